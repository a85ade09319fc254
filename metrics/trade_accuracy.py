"""TRADE's "Turn Acc" exactly as its ``compute_acc`` counts errors (ConvLab-2 CrossWOZ TRADE).

States are sets of ``"domain-slot-value"`` strings (G gold, P predicted). TRADE takes a
string's slot as everything before its LAST ``-`` (``str.rsplit("-", 1)[0]``):

.. math::

    M_t = G_t \\setminus P_t,\\qquad
    S_t = \\{\\mathrm{rsplit}(g)\\ :\\ g \\in M_t\\},\\qquad
    W_t = \\{p \\in P_t \\setminus G_t\\ :\\ \\mathrm{rsplit}(p) \\notin S_t\\}

    \\mathrm{acc}_t = \\frac{N - |M_t| - |W_t|}{N},\\qquad
    \\mathrm{TurnAcc} = \\frac{1}{T}\\sum_t \\mathrm{acc}_t
    = 1 - \\frac{\\sum_t (|M_t| + |W_t|)}{N\\,T}

N is the size of the slot list. A wrong value is meant to count once (its predicted
string's slot is in S_t), which makes this :class:`~dst_eval.metrics.slot_acc.
SlotAccuracy` -- except when a value contains ``-`` (CrossWOZ ``50-100元``, ``1小时 -
2小时``): the "slot" then includes part of the value, the wrong prediction is no longer
recognised as the missed slot's, and it counts twice. The compatibility profile
reproduces that; the strict profile's slot accuracy does not.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np
from dst_eval.metrics.base import Metric, check_n_slots, ratio, string_set


def trade_slot_errors(y_true: Sequence[Collection[str]],
                      y_pred: Sequence[Collection[str] | None]) -> np.ndarray:
    """Per-turn TRADE error count |M_t| + |W_t| from ``domain-slot-value`` string sets
    (a ``None`` prediction counted as the empty set here). A turn that is a mapping (a
    ``{slot: value}`` state) or a string, or holds an item that is not a string, is a
    ``TypeError`` naming the turn."""
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} turns but y_pred has {len(y_pred)}")
    errors = np.zeros(len(y_true))
    for row, (gold_items, pred_items) in enumerate(zip(y_true, y_pred, strict=True)):
        if gold_items is None:
            raise ValueError(f"y_true turn {row}: the gold state is None (a gold turn needs a "
                             "state, an empty set when empty)")
        gold = string_set(gold_items, row, "y_true", "a TRADE state (domain-slot-value items)")
        pred = (set() if pred_items is None else
                string_set(pred_items, row, "y_pred", "a TRADE state (domain-slot-value items)"))
        missed = gold - pred
        missed_slots = {g.rsplit("-", 1)[0] for g in missed}
        wrong = sum(1 for p in pred - gold if p.rsplit("-", 1)[0] not in missed_slots)
        errors[row] = len(missed) + wrong
    return errors


class TradeSlotAccuracy(Metric):
    """TRADE "Turn Acc" from the per-turn ``trade_errors`` column (see the module docstring)."""

    name = "trade_slot_accuracy"
    columns = ("trade_errors", "turn")

    def __init__(self, n_slots: int) -> None:
        self.n_slots = check_n_slots(n_slots)

    def from_sums(self, sums: Mapping[str, np.ndarray | float]) -> np.ndarray | float:
        return 1.0 - ratio(sums["trade_errors"], np.asarray(sums["turn"]) * self.n_slots)


def trade_slot_accuracy(y_true: Sequence[Collection[str]],
                        y_pred: Sequence[Collection[str] | None],
                        *, n_slots: int, zero_division: str | float = "raise") -> float:
    """Mean over turns of TRADE's ``compute_acc`` for string-set states.

    ``None`` in ``y_pred``: a turn not predicted, all ``n_slots`` slots wrong whatever its
    gold (the CLI's ``--missing wrong``; an empty set predicts the empty state); ``None``
    in ``y_true``: a ``ValueError``. A turn is a set (or list) of ``domain-slot-value``
    strings: a ``{slot: value}`` mapping or a string is a ``TypeError`` naming the turn.
    ``n_slots`` is an int >= 1 (a bool is a ``TypeError``). As TRADE's ``compute_acc``, a
    turn with more errors than ``n_slots`` (items of slots outside the list) scores below 0.

    >>> trade_slot_accuracy([{"餐馆-人均消费-50-100元"}], [{"餐馆-人均消费-100-150元"}], n_slots=26)
    0.9230769230769231
    """
    from dst_eval.metrics.canonical import check_zero_division, resolve_zero_division

    check_zero_division(zero_division)
    n_slots = check_n_slots(n_slots)
    if not len(y_true):
        return resolve_zero_division(float("nan"), metric=TradeSlotAccuracy.name,
                                     zero_division=zero_division, reason="no turns")
    errors = trade_slot_errors(y_true, y_pred)
    errors[[row for row, items in enumerate(y_pred) if items is None]] = n_slots
    return float(1.0 - errors.sum() / (n_slots * len(errors)))
