"""Improved average goal accuracy (IAGA; Aksu & Chen, LREC-COLING 2024, arXiv 2403.11123).

AGA ignores over-predictions; IAGA divides by the union of the (slot, value) items of
both states instead of the gold ones (cuthalionn/Granular_Change_Accuracy
``src/compute_accuracies.py``, ``getImprovedAvgGoalAccuracy``):

.. math:: \\mathrm{IAGA} = \\frac{\\sum_{t:\\,B_t \\neq \\emptyset}
          |B_t \\cap P_t| \\,/\\, |B_t \\cup P_t|}{|\\{t : B_t \\neq \\emptyset\\}|}

A wrong value is two items of the union (the gold item and the predicted one), so
|B_t ∪ P_t| = correct + 2·wrong + missing + extra. The reference code sums the ratio
over turns with B_t ∪ P_t ≠ ∅ but divides by the number of turns with B_t ≠ ∅ (AGA's
count); turns with an empty gold add 0 to the sum, so this is the formula above.
``nan`` when no turn has a gold slot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

from dst_eval.metrics.base import GoldState, Metric, PredState, ratio
from dst_eval.metrics.canonical import StateOptions, canonical_table, metric_value


class ImprovedAverageGoalAccuracy(Metric):
    name = "improved_average_goal_accuracy"
    columns = ("iaga_num", "aga_den")

    def from_sums(self, sums):
        return ratio(sums["iaga_num"], sums["aga_den"])


def improved_average_goal_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None],
                                   *, zero_division: str | float = "raise",
                                      **options: Unpack[StateOptions]
                                   ) -> float:
    """Mean over turns with a gold slot of |B ∩ P| / |B ∪ P| ((slot, value) items).

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.

    >>> improved_average_goal_accuracy([{"hotel-area": "north", "hotel-stars": "4"}],
    ...                                [{"hotel-area": "north", "hotel-stars": "3"}])
    0.3333333333333333
    """
    table = canonical_table(y_true, y_pred, options)
    return metric_value(ImprovedAverageGoalAccuracy(), table, zero_division)
