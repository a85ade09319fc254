"""Joint goal accuracy.

.. math:: \\mathrm{JGA} = \\frac{1}{T}\\sum_t \\mathbf{1}[B_t = P_t]

A turn is correct when every gold slot is predicted with one of its gold variants and
no other slot is predicted. Empty gold and empty prediction count as correct (TRADE,
ConvLab-3 and JMultiWOZ convention).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from dst_eval.metrics.base import GoldState, Metric, PredState, ratio
from dst_eval.metrics.state_compare import turn_table


class JointGoalAccuracy(Metric):
    name = "joint_goal_accuracy"
    columns = ("jga", "turn")

    def from_sums(self, sums: Mapping[str, np.ndarray | float]) -> np.ndarray | float:
        return ratio(sums["jga"], sums["turn"])


def joint_goal_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState]) -> float:
    """Share of turns whose predicted state equals the gold state (any gold variant matches).

    >>> joint_goal_accuracy([{"hotel-area": ["centre", "center"]}], [{"hotel-area": "center"}])
    1.0
    """
    return JointGoalAccuracy().score(turn_table(y_true, y_pred, fga_lambdas=()))
