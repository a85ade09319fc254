"""Test helpers shared by several test modules (import as ``from helpers import ...``)."""

from __future__ import annotations

from typing import Any

import dst_eval.metrics as M

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


def function_scores(gold: list, pred: list, ids: list[str], n_slots: int, **options
                     ) -> dict[str, float]:
    """Every DST number of the CLI, computed by the metric functions."""
    expected = {
        "joint_goal_accuracy": M.joint_goal_accuracy(gold, pred, **options),
        "slot_accuracy": M.slot_accuracy(gold, pred, slots=range(n_slots), **options),
        "slot_f1": M.slot_f1(gold, pred, **options),
        "slot_f1_turn_macro": M.slot_f1_turn_macro(gold, pred, **options),
        "average_goal_accuracy": M.average_goal_accuracy(gold, pred, **options),
        "improved_average_goal_accuracy":
            M.improved_average_goal_accuracy(gold, pred, **options),
        "relative_slot_accuracy": M.relative_slot_accuracy(gold, pred, **options),
        "relative_slot_accuracy_micro":
            M.relative_slot_accuracy(gold, pred, average="micro", **options),
        "turn_accuracy": M.turn_accuracy(gold, pred, dialogue_ids=ids, **options),
        "final_turn_joint_goal_accuracy":
            M.final_turn_joint_goal_accuracy(gold, pred, dialogue_ids=ids, **options),
        "granular_change_accuracy":
            M.granular_change_accuracy(gold, pred, dialogue_ids=ids, **options),
    }
    p, r, f = M.slot_precision_recall_f1(gold, pred, **options)
    expected.update(slot_precision=p, slot_recall=r)
    if f != expected["slot_f1"]:
        raise AssertionError(f"slot_f1 {expected['slot_f1']!r} but the P/R/F1 function gives {f!r}")
    for lam, value in M.flexible_goal_accuracy(gold, pred, dialogue_ids=ids,
                                               **options).items():
        expected[f"flexible_goal_accuracy@{lam:g}"] = value
    per_domain, mean = M.per_domain_joint_goal_accuracy(gold, pred, dialogue_ids=ids,
                                                        **options)
    expected["domain_joint_goal_accuracy_mean"] = mean
    for domain, value in per_domain.items():
        expected[f"domain_joint_goal_accuracy:{domain}"] = value
    return expected
