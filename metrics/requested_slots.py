"""Requested-slot precision, recall and F1.

Micro over turns: TP = requested slots predicted, FP = predicted but not requested,
FN = requested but not predicted; P = TP/(TP+FP), R = TP/(TP+FN), F1 = 2PR/(P+R), with
P (R) = 1 when nothing is predicted (requested) and nothing is missing (spurious).
``requested_slots_f1_turn_macro`` is the mean per-turn F1 with empty/empty = 1 (the
SGD scorer's per-frame convention, here per turn).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from dst_eval.metrics.base import Metric, ratio
from dst_eval.metrics.optional_columns import requested_columns


def _micro(sums):
    tp = np.asarray(sums["req_tp"], dtype=float)
    fp, fn = np.asarray(sums["req_fp"], dtype=float), np.asarray(sums["req_fn"], dtype=float)
    precision = np.where(tp + fp > 0, ratio(tp, tp + fp, empty=0.0), np.where(fn > 0, 0.0, 1.0))
    recall = np.where(tp + fn > 0, ratio(tp, tp + fn, empty=0.0), np.where(fp > 0, 0.0, 1.0))
    return precision, recall, ratio(2 * precision * recall, precision + recall, empty=0.0)


class _RequestedMetric(Metric):
    columns = ("req_tp", "req_fp", "req_fn")
    zero_division = 1.0  # nothing requested, nothing predicted
    position = 0

    def from_sums(self, sums):
        value = np.asarray(_micro(sums)[self.position])
        return float(value) if value.ndim == 0 else value


class RequestedSlotsPrecision(_RequestedMetric):
    name, position = "requested_slots_precision", 0


class RequestedSlotsRecall(_RequestedMetric):
    name, position = "requested_slots_recall", 1


class RequestedSlotsF1(_RequestedMetric):
    name, position = "requested_slots_f1", 2


class RequestedSlotsF1TurnMacro(Metric):
    name = "requested_slots_f1_turn_macro"
    columns = ("req_f1", "turn")

    def from_sums(self, sums):
        return ratio(sums["req_f1"], sums["turn"])


def requested_slots_precision_recall_f1(y_true: Sequence[Iterable[str]],
                                        y_pred: Sequence[Iterable[str] | None], *,
                                        keys: str = "exact",
                                        aliases: Mapping[str, str] | None = None,
                                        zero_division: str | float = "raise"
                                        ) -> tuple[float, float, float]:
    """Micro requested-slot precision, recall and F1.

    Each turn is a set or list of ``domain-slot`` strings: a string (its characters) or a
    mapping is a ``TypeError`` naming the turn. No turns: :class:`UndefinedMetric`, or
    ``zero_division`` for all three.

    ``keys`` and ``aliases`` spell the slot keys as the DST functions spell state keys
    (:mod:`~dst_eval.metrics.canonical`), ``+gold-case`` against the requested slots of
    ``y_true``; the default ``"exact"`` compares them as given. The ``keys`` and
    ``aliases`` of ``dst_eval.metric_options(corpus)`` spell them as the CLI does.

    ``None`` in ``y_pred``: a turn not predicted, every requested slot of it missed (the
    CLI's ``--missing wrong``, which for these micro values equals predicting none)."""
    from dst_eval.metrics.canonical import (
        canonical_requested,
        check_zero_division,
        resolve_zero_division,
    )

    check_zero_division(zero_division)
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} turns but y_pred has {len(y_pred)}")
    if keys != "exact" or aliases:
        y_true, y_pred = canonical_requested(y_true, y_pred, keys=keys, aliases=aliases)
    if not len(y_true):
        value = resolve_zero_division(float("nan"), metric="requested_slots_f1",
                                      zero_division=zero_division, reason="no turns")
        return value, value, value
    cols = requested_columns(y_true, y_pred)
    sums = {k: float(v.sum()) for k, v in cols.items()}
    return tuple(float(x) for x in _micro(sums))  # type: ignore[return-value]
