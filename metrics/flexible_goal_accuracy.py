"""Flexible goal accuracy (FGA; Dey et al., ACL 2022).

Errors inherited from an earlier turn get partial credit that decays with their age.
Per dialogue, with t counted in turns from 0 and t_err the turn of the last new error::

    if B_t == P_t:                              f_t = 1
    elif t == 0 or B_{t-1} == P_{t-1}:          f_t = 0          # new error (type 1)
    elif not (T_t ⊆ P_t and U_t ⊆ B_t):         f_t = 0          # wrong change now (type 1)
    else:                                       f_t = 1 - exp(-λ (t - t_err))  # inherited
    if f_t == 0: t_err = t

.. math:: \\mathrm{FGA}_\\lambda = \\frac{1}{T}\\sum_t f_t

λ → 0 gives JGA; λ → ∞ gives full credit to inherited errors. No default λ is
established, so the reference values 0.25, 0.5, 0.75 and 1.0 are all reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from dst_eval.metrics.base import GoldState, Metric, PredState, ratio
from dst_eval.metrics.state_compare import fga_column, turn_table


class FlexibleGoalAccuracy(Metric):
    def __init__(self, lam: float) -> None:
        if lam <= 0:
            raise ValueError("FGA needs λ > 0")
        self.lam = float(lam)
        self.name = f"flexible_goal_accuracy@{self.lam:g}"
        self.columns = (fga_column(self.lam), "turn")

    def from_sums(self, sums):
        return ratio(sums[self.columns[0]], sums["turn"])


def flexible_goal_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState], *,
                           dialogue_ids: Sequence[str], lambdas: Iterable[float] = (
                               0.25, 0.5, 0.75, 1.0)) -> dict[float, float]:
    """FGA for each λ in ``lambdas``; turns of a dialogue must be consecutive and in order."""
    lambdas = tuple(lambdas)
    table = turn_table(y_true, y_pred, dialogue_ids=dialogue_ids, fga_lambdas=lambdas)
    return {lam: FlexibleGoalAccuracy(lam).score(table) for lam in lambdas}
