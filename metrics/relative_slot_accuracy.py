"""Relative slot accuracy (RSA; Kim et al., ACL 2022).

Per turn, T* is the number of distinct slots in B_t ∪ P_t and

.. math:: \\mathrm{RSA}_t = \\frac{T^* - \\mathrm{missing}_t - \\mathrm{wrong}_t}{T^*}
          = \\frac{|B_t \\cap P_t|}{T^*}

(an extra slot raises T* without adding a correct one). Turns with T* = 0 (both states
empty) have no defined value; existing code disagrees on them (SCORERS.md §8.1), so
both choices are explicit and part of the metric name:

* ``empty_turns``: ``"exclude"`` (ConvLab-3 mdst; default), ``"zero"`` (GCA repository)
  or ``"one"``;
* ``average``: ``"macro"`` (mean of RSA_t; default) or ``"micro"`` (Σ|B∩P| / ΣT*, where
  empty turns contribute nothing whatever ``empty_turns`` says).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from dst_eval.metrics.base import GoldState, Metric, PredState, ratio
from dst_eval.metrics.state_compare import turn_table

EMPTY_TURNS = ("exclude", "zero", "one")
AVERAGES = ("macro", "micro")


class RelativeSlotAccuracy(Metric):
    def __init__(self, *, empty_turns: str = "exclude", average: str = "macro") -> None:
        if empty_turns not in EMPTY_TURNS:
            raise ValueError(f"empty_turns must be one of {EMPTY_TURNS}")
        if average not in AVERAGES:
            raise ValueError(f"average must be one of {AVERAGES}")
        self.empty_turns, self.average = empty_turns, average
        if average == "micro":
            self.name = "relative_slot_accuracy_micro"
            self.columns = ("correct", "rsa_tstar")
        else:
            suffix = "" if empty_turns == "exclude" else f"_empty_{empty_turns}"
            self.name = f"relative_slot_accuracy{suffix}"
            self.columns = ("rsa_num", "rsa_den", "turn")

    def from_sums(self, sums):
        if self.average == "micro":
            return ratio(sums["correct"], sums["rsa_tstar"])
        if self.empty_turns == "exclude":
            return ratio(sums["rsa_num"], sums["rsa_den"])
        empty = np.asarray(sums["turn"]) - sums["rsa_den"]
        bonus = empty if self.empty_turns == "one" else 0.0
        return ratio(np.asarray(sums["rsa_num"]) + bonus, sums["turn"])


def relative_slot_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState], *,
                           empty_turns: str = "exclude", average: str = "macro") -> float:
    """Relative slot accuracy with the stated empty-turn convention and averaging."""
    metric = RelativeSlotAccuracy(empty_turns=empty_turns, average=average)
    return metric.score(turn_table(y_true, y_pred, fga_lambdas=()))
