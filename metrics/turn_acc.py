"""Turn accuracy (TA): was this turn's change of state predicted exactly?

    TA = (1/T) Σ_t 1[U_t ⊆ B_t ∧ T_t ⊆ P_t]

with T_t = B_t \\ B_{t-1} the gold change, U_t = P_t \\ P_{t-1} the predicted change
(against the previous *predicted* state), deletions counted as ``(slot, "")``
(ConvLab-3 ``mdst`` definition). An error carried over from an earlier turn does not
fail later turns; a wrong, missed or spurious change -- a missed or spurious deletion
included -- does. This differs from the change test of flexible goal accuracy (Dey et
al.'s reference code), where deletions are not changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

from dst_eval.metrics.base import GoldState, Metric, PredState, ratio
from dst_eval.metrics.canonical import StateOptions, canonical_table, metric_value


class TurnAccuracy(Metric):
    name = "turn_accuracy"
    columns = ("ta", "turn")

    def from_sums(self, sums):
        return ratio(sums["ta"], sums["turn"])


def turn_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None], *,
                  dialogue_ids: Sequence[str], zero_division: str | float = "raise",
                                               **options: Unpack[StateOptions]) -> float:
    """Share of turns whose state change (additions, changes, deletions) is exactly right.

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.
    """
    table = canonical_table(y_true, y_pred, options, dialogue_ids=dialogue_ids)
    return metric_value(TurnAccuracy(), table, zero_division)
