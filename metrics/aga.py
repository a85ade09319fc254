"""Average goal accuracy (AGA): accuracy over the slots active in the gold state.

.. math:: \\mathrm{AGA} = \\frac{\\sum_{t: B_t \\neq \\emptyset} |B_t \\cap P_t| / |B_t|}
          {|\\{t : B_t \\neq \\emptyset\\}|}

Extra predicted slots are not penalised (SGD, FGA repository convention); turns with
an empty gold state are not counted.
"""

from __future__ import annotations

from collections.abc import Sequence

from dst_eval.metrics.base import GoldState, Metric, PredState, ratio
from dst_eval.metrics.state_compare import turn_table


class AverageGoalAccuracy(Metric):
    name = "average_goal_accuracy"
    columns = ("aga_num", "aga_den")

    def from_sums(self, sums):
        return ratio(sums["aga_num"], sums["aga_den"])


def average_goal_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState]) -> float:
    """Mean over turns with a non-empty gold state of the share of gold slots predicted right."""
    return AverageGoalAccuracy().score(turn_table(y_true, y_pred, fga_lambdas=()))
