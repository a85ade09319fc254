"""Slot precision, recall and F1: micro over all turns, and the per-turn macro F1.

Micro (ConvLab-3, mwzeval): TP = correct slots, FP = wrong + extra, FN = wrong + missing,
summed over turns:

.. math:: P = \\frac{TP}{TP+FP},\\quad R = \\frac{TP}{TP+FN},\\quad F_1 = \\frac{2PR}{P+R}

A wrong value is both a false positive and a false negative. With no predicted slot at
all P is 1 if there is no gold slot either (nothing to find, nothing wrong), else 0;
likewise R with no gold slot; F1 is 0 when P + R = 0. So turns with empty states only
give P = R = F1 = 1 (``zero_division = 1.0`` of the :class:`Metric`). No turns at all
is undefined: the functions raise :class:`UndefinedMetric` unless ``zero_division=``
gives the value, as every metric function does, and :meth:`Metric.score` gives nan, as
for every metric.

Per-turn macro F1 (TRADE "joint F1", IC-DST, JMultiWOZ): the mean over turns of
F1_t, where F1_t = 1 when gold and prediction are both empty, 0 when nothing is
correct, else 2P_tR_t/(P_t+R_t).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Unpack

import numpy as np
from dst_eval.metrics.base import GoldState, Metric, PredState, ratio
from dst_eval.metrics.canonical import StateOptions, canonical_table, metric_value

_COLUMNS = ("correct", "wrong", "missing", "extra")


def _micro(sums: Mapping[str, np.ndarray | float]) -> tuple:
    tp = np.asarray(sums["correct"], dtype=float)
    fp = np.asarray(sums["wrong"]) + sums["extra"]
    fn = np.asarray(sums["wrong"]) + sums["missing"]
    precision = np.where(tp + fp > 0, ratio(tp, tp + fp, empty=0.0), np.where(fn > 0, 0.0, 1.0))
    recall = np.where(tp + fn > 0, ratio(tp, tp + fn, empty=0.0), np.where(fp > 0, 0.0, 1.0))
    f1 = ratio(2 * precision * recall, precision + recall, empty=0.0)
    return precision, recall, f1


def _scalar(value: np.ndarray | float) -> np.ndarray | float:
    arr = np.asarray(value)
    return float(arr) if arr.ndim == 0 else arr


class SlotPrecision(Metric):
    name = "slot_precision"
    columns = _COLUMNS
    zero_division = 1.0  # no gold and no predicted slot: nothing missed, nothing wrong

    def from_sums(self, sums):
        return _scalar(_micro(sums)[0])


class SlotRecall(Metric):
    name = "slot_recall"
    columns = _COLUMNS
    zero_division = 1.0

    def from_sums(self, sums):
        return _scalar(_micro(sums)[1])


class SlotF1(Metric):
    name = "slot_f1"
    columns = _COLUMNS
    zero_division = 1.0

    def from_sums(self, sums):
        return _scalar(_micro(sums)[2])


class SlotF1PerTurnMacro(Metric):
    name = "slot_f1_turn_macro"
    columns = ("f1", "turn")

    def from_sums(self, sums):
        return ratio(sums["f1"], sums["turn"])


def slot_precision_recall_f1(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None], *,
                             zero_division: str | float = "raise", **options: Unpack[StateOptions]
                             ) -> tuple[float, float, float]:
    """Micro slot precision, recall and F1 over all turns.

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.

    No turns: :class:`UndefinedMetric`, or ``zero_division`` for all three."""
    table = canonical_table(y_true, y_pred, options)
    if not len(table):
        value = metric_value(SlotF1(), table, zero_division)
        return value, value, value
    sums = table.sums(_COLUMNS)
    return tuple(float(x) for x in _micro(sums))  # type: ignore[return-value]


def slot_f1_turn_macro(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None], *,
                       zero_division: str | float = "raise",
                       **options: Unpack[StateOptions]) -> float:
    """Mean over turns of the per-turn slot F1 (1 when both states are empty).

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.
    """
    table = canonical_table(y_true, y_pred, options)
    return metric_value(SlotF1PerTurnMacro(), table, zero_division)


def slot_f1(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None], *,
            zero_division: str | float = "raise", **options: Unpack[StateOptions]) -> float:
    """Micro slot F1 over all turns (the third value of :func:`slot_precision_recall_f1`).

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.

    >>> slot_f1([{"hotel-area": "north", "hotel-stars": "4"}], [{"hotel-area": "north"}])
    0.6666666666666666
    """
    return slot_precision_recall_f1(y_true, y_pred, zero_division=zero_division, **options)[2]
