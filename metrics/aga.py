"""Average goal accuracy (AGA): accuracy over the slots active in the gold state.

.. math:: \\mathrm{AGA} = \\frac{\\sum_{t: B_t \\neq \\emptyset} |B_t \\cap P_t| / |B_t|}
          {|\\{t : B_t \\neq \\emptyset\\}|}

Extra predicted slots are not penalised (SGD, FGA repository convention); turns with
an empty gold state are not counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

from dst_eval.metrics.base import GoldState, Metric, PredState, ratio
from dst_eval.metrics.canonical import StateOptions, canonical_table, metric_value


class AverageGoalAccuracy(Metric):
    name = "average_goal_accuracy"
    columns = ("aga_num", "aga_den")

    def from_sums(self, sums):
        return ratio(sums["aga_num"], sums["aga_den"])


def average_goal_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None], *,
                          zero_division: str | float = "raise",
                          **options: Unpack[StateOptions]) -> float:
    """Mean over turns with a non-empty gold state of the share of gold slots predicted right.

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.

    Undefined when no gold state is non-empty (``zero_division``); options as
    :func:`~dst_eval.metrics.jga.joint_goal_accuracy`."""
    table = canonical_table(y_true, y_pred, options)
    return metric_value(AverageGoalAccuracy(), table, zero_division)
