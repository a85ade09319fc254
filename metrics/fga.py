"""Flexible goal accuracy (FGA; Dey et al., ACL 2022, 2022.acl-short.35).

Exactly the reference code, SuvodipDey/FGA ``compute_accuracy_trade_somdst.py``
(``getFGA``; reused unchanged in cuthalionn/Granular_Change_Accuracy
``src/compute_accuracies.py``). States are sets of (domain, slot, value) items; per
dialogue, with t counted in turns from 0 and t_err the turn of the last new error
(initially −1)::

    if B_t == P_t:                                       f_t = 1
    elif t == 0 or B_{t-1} == P_{t-1}:                   f_t = 0   # new error (type 1)
    elif not ((B_t − B_{t-1}) ⊆ P_t and (P_t − P_{t-1}) ⊆ B_t):
                                                         f_t = 0   # wrong change now (type 1)
    else:                                  f_t = 1 − exp(−λ (t − t_err))   # inherited (type 2)
    if f_t == 0: t_err = t

.. math:: \\mathrm{FGA}_\\lambda = \\frac{1}{T}\\sum_t f_t

The differences are plain set differences of items: only additions and value changes
are changes; a slot the gold (or the prediction) drops is not, so dropping a slot does
not by itself make a turn a new error. (:mod:`~dst_eval.metrics.turn_acc`, after
ConvLab-3, does count deletions.) A predicted value matches a gold item when it equals
any gold variant. λ → 0 gives JGA; λ → ∞ full credit to inherited errors. The reference
code reports λ = 0.25, 0.5, 0.75 and 1.0, and so does dst-eval.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from numbers import Integral
from typing import Unpack

from dst_eval.metrics.base import GoldState, Metric, PredState, ratio
from dst_eval.metrics.canonical import StateOptions, canonical_table, metric_value
from dst_eval.metrics.state_compare import check_lambdas
from dst_eval.metrics.state_tracks import fga_column


class FlexibleGoalAccuracy(Metric):
    def __init__(self, lam: float) -> None:
        (self.lam,) = check_lambdas((lam,), "lambda")
        self.name = f"flexible_goal_accuracy@{self.lam:g}"
        self.columns = (fga_column(self.lam), "turn")

    def from_sums(self, sums):
        return ratio(sums[self.columns[0]], sums["turn"])


def flexible_goal_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None], *,
                           dialogue_ids: Sequence[str], lambdas: Iterable[float] = (
                               0.25, 0.5, 0.75, 1.0),
                           turn_numbers: Sequence[int] | None = None,
                           zero_division: str | float = "raise",
                           **options: Unpack[StateOptions]) -> dict[float, float]:
    """FGA for each λ in ``lambdas``; turns of a dialogue must be consecutive and in order
    (a dialogue whose turns are not consecutive is a ``ValueError``). Each λ is a number in
    (0, 1], as ``evaluate()``'s ``fga_lambdas``: NaN, λ ≤ 0 or λ > 1 is a ``ValueError``.

    ``turn_numbers``: each turn's number in its dialogue (the gold ``turn_index``), one int
    per turn, increasing within a dialogue; the error age t − t_err is counted in these
    numbers. ``None`` (the default) numbers each dialogue's turns 0, 1, 2, ... as given.
    Pass them when turns are left out: the CLI's ``--missing skip`` drops the turns without
    a predicted state and ages errors in the dialogue's turn numbers, as the FGA authors'
    code (``int(turn)``) does, so an error inherited across a dropped turn is one turn
    older than its row distance.

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.
    """
    lambdas = tuple(lambdas)
    check_lambdas(lambdas, "lambdas")
    numbers = _turn_numbers(turn_numbers, len(y_true))
    table = canonical_table(y_true, y_pred, options, dialogue_ids=dialogue_ids,
                            fga_lambdas=lambdas, turn_numbers=numbers)
    if numbers is not None:
        _check_increasing(numbers, dialogue_ids)
    return {lam: metric_value(FlexibleGoalAccuracy(lam), table, zero_division)
            for lam in lambdas}


def _turn_numbers(turn_numbers: Sequence[int] | None, n: int) -> list[int] | None:
    """``turn_numbers`` as a list of ints (one per turn), or None; a bool, float or other
    value is a ``TypeError`` naming the turn, another length a ``ValueError``."""
    if turn_numbers is None:
        return None
    if isinstance(turn_numbers, str | bytes) or not isinstance(turn_numbers, Iterable):
        raise TypeError(f"turn_numbers must be a list of ints, one per turn, got "
                        f"{turn_numbers!r:.80}")
    numbers = list(turn_numbers)
    if len(numbers) != n:
        raise ValueError(f"turn_numbers has {len(numbers)} entries for {n} turns")
    for row, number in enumerate(numbers):
        if isinstance(number, bool) or not isinstance(number, Integral):
            raise TypeError(f"turn_numbers: turn {row}: {number!r} is not an int")
    return [int(number) for number in numbers]


def _check_increasing(numbers: list[int], dialogue_ids: Sequence[str]) -> None:
    """A dialogue's turn numbers must increase (an error's age is then positive)."""
    for row in range(1, len(numbers)):
        if dialogue_ids[row] == dialogue_ids[row - 1] and numbers[row] <= numbers[row - 1]:
            raise ValueError(f"turn_numbers: turn {row}: {numbers[row]} after "
                             f"{numbers[row - 1]} in dialogue {dialogue_ids[row]!r}; a "
                             "dialogue's turn numbers must increase")
