"""Joint goal accuracy.

.. math:: \\mathrm{JGA} = \\frac{1}{T}\\sum_t \\mathbf{1}[B_t = P_t]

A turn is correct when every gold slot is predicted with one of its gold variants and
no other slot is predicted. Empty gold and empty prediction count as correct (TRADE,
ConvLab-3 and JMultiWOZ convention).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Unpack

import numpy as np
from dst_eval.metrics.base import GoldState, Metric, PredState, ratio
from dst_eval.metrics.canonical import StateOptions, canonical_table, metric_value


class JointGoalAccuracy(Metric):
    name = "joint_goal_accuracy"
    columns = ("jga", "turn")

    def from_sums(self, sums: Mapping[str, np.ndarray | float]) -> np.ndarray | float:
        return ratio(sums["jga"], sums["turn"])


def joint_goal_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None], *,
                        zero_division: str | float = "raise",
                        **options: Unpack[StateOptions]) -> float:
    """Share of turns whose predicted state equals the gold state (any gold variant matches).

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.

    Options (``norm="basic-v1"``, ``keys="lower"``, ...; :mod:`~dst_eval.metrics.canonical`)
    default to the CLI's strict profile; no turns raise :class:`UndefinedMetric` unless
    ``zero_division`` gives the value.

    >>> joint_goal_accuracy([{"hotel-area": ["centre", "center"]}], [{"hotel-area": "center"}])
    1.0
    >>> joint_goal_accuracy([{"hotel-area": "North"}], [{"Hotel-Area": "north"}])
    1.0
    >>> joint_goal_accuracy([{"hotel-area": "North"}], [{"hotel-area": "north"}], norm="exact")
    0.0
    """
    table = canonical_table(y_true, y_pred, options)
    return metric_value(JointGoalAccuracy(), table, zero_division)
