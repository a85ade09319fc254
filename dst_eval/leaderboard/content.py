"""What makes two submissions the same predictions, whatever their bytes.

A byte-for-byte copy of a submission is caught by its file digest; a copy re-indented,
with its keys or dialogues reordered, or padded with dialogues the gold lacks is not.
:func:`predictions_digest` identifies what is scored instead: for each gold turn, in the
gold's order, the predicted turn that alignment paired with it (after the binding to the
gold: positional and order-aligned formats are placed by then), with every field any
profile reads -- the state and the state as written, requested slots, intents, domains,
response, SGD frames with their values as written and spans, the replayed fields of a
system's own output (TripPy's) -- and every mapping and set sorted (but the state as
written: :func:`_turn`). Two submissions with one digest give every profile the same input
on every gold turn: one of them is a copy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
import orjson
from msgspec import Struct

from dst_eval.predictions.model import PredTurn

_PLAIN = (str, int, float, bool, type(None))


def _canonical(value: Any, *, ordered: bool = False) -> Any:
    """``value`` as plain JSON data, the same whatever the order of a mapping or set
    (``ordered``: a mapping's items in their order)."""
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, Mapping):
        items = [[str(k), _canonical(v, ordered=ordered)] for k, v in value.items()]
        return items if ordered else sorted(items)
    if isinstance(value, set | frozenset):
        return sorted((_canonical(v) for v in value), key=repr)
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if isinstance(value, Struct):
        return [type(value).__name__,
                *(_canonical(getattr(value, name)) for name in value.__struct_fields__)]
    return repr(value)  # a sentinel (``WRITTEN_NULL``): its name


def _turn(turn: PredTurn) -> list[Any]:
    """A predicted turn as plain data. Its state as written keeps the order of its keys
    (mwzeval reads the later of two keys that normalise alike); written as a list of
    pairs (LDST, TRADE), no profile reads their order, and they are sorted."""
    raw = turn.raw_state
    return [_canonical(msgspec.structs.replace(turn, raw_state=None)),
            _canonical(raw, ordered=True) if isinstance(raw, Mapping) else
            sorted((_canonical(item) for item in raw), key=repr) if isinstance(raw, list | tuple)
            else _canonical(raw)]


def predictions_digest(pairs: Iterable[tuple[Any, Any]]) -> str:
    """The sha256 (hex) of the predicted turns of ``pairs`` (``Result.turns``: each gold
    turn and its aligned prediction, None where there is none; module docstring)."""
    digest = hashlib.sha256()
    for _gold, pred in pairs:
        digest.update(orjson.dumps(None if pred is None else _turn(pred)))
        digest.update(b"\n")
    return digest.hexdigest()
