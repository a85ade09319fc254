"""What makes two submissions the same predictions, whatever their bytes.

A byte-for-byte copy of a submission is caught by its file digest; a copy re-indented,
with its keys or dialogues reordered, converted to another accepted format or padded with
dialogues the gold lacks is not. :func:`predictions_digest` identifies what is scored
instead: for each gold dialogue, in the gold's order, the predicted turns as read -- each
turn's state (and the later values of a slot given twice), requested slots, active
intents and domains, response and the replayed fields of a system's own output
(TripPy's) -- with every mapping and set sorted. Two submissions with
one digest give every turn the same prediction: one of them is a copy.

SGD-style frames are not in the digest beyond what their turn's state, requested slots and
intents hold (their spans are not): the same states written once as frames and once flat
are the same predictions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import orjson

from dst_eval.gold import GoldSet
from dst_eval.predictions.model import PredictionSet, PredTurn


def _plain(value: Any) -> Any:
    """A mapping or set inside a replayed field, as JSON (a set sorted); anything else as
    its text."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, set | frozenset):
        return sorted(map(str, value))
    return str(value)


def _sorted_items(mapping: Mapping | None) -> list | None:
    return None if mapping is None else sorted((str(k), v) for k, v in mapping.items())


def _turn(turn: PredTurn) -> list[Any]:
    requested, domains = turn.requested_slots, turn.active_domains
    return [_sorted_items(turn.state),
            _sorted_items(turn.duplicates),
            None if requested is None else sorted(requested),
            _sorted_items(turn.active_intents),
            None if domains is None else sorted(domains),
            turn.response,
            turn.extras]


def predictions_digest(predictions: PredictionSet, gold: GoldSet) -> str:
    """The sha256 (hex) of the predictions of ``gold``'s dialogues (module docstring)."""
    digest = hashlib.sha256()
    for dialogue in gold.dialogues:
        turns = predictions.get(dialogue.dialogue_id)
        rows = None if turns is None else [_turn(turn) for turn in turns]
        digest.update(orjson.dumps(rows, default=_plain, option=orjson.OPT_SORT_KEYS))
        digest.update(b"\n")
    return digest.hexdigest()
