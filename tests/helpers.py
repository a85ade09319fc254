"""Test helpers shared by several test modules (import as ``from helpers import ...``)."""

from __future__ import annotations

from typing import Any

from dst_eval.gold import GoldSet, dialogue_key
from dst_eval.slotkeys import split_slot_key


def oracle_predictions(gold: GoldSet) -> dict[str, list[dict[str, Any]]]:
    """A perfect prediction file for ``gold`` in the mwzeval layout.

    ``{dialogue_id: [{"state": {domain: {slot: value}}, "requested_slots": [...],
    "active_intents": {...}, "response": "..."}, ...]}`` with one entry per gold turn, the
    dialogue id spelled as mwzeval does (lower case, no ``.json``), the FIRST label variant of
    every slot, and the key ``"domain-slot"`` split on its first ``-``.
    """
    predictions: dict[str, list[dict[str, Any]]] = {}
    for dialogue in gold:
        turns: list[dict[str, Any]] = []
        for turn in dialogue.turns:
            state: dict[str, dict[str, str]] = {}
            for key, variants in turn.state.items():
                domain, slot = split_slot_key(key)
                state.setdefault(domain, {})[slot] = variants[0]
            entry: dict[str, Any] = {
                "state": state,
                "requested_slots": sorted(turn.requested_slots),
                "active_intents": dict(turn.active_intents),
            }
            if turn.system_response is not None:
                entry["response"] = turn.system_response
            turns.append(entry)
        predictions[dialogue_key(dialogue.dialogue_id)] = turns
    return predictions
