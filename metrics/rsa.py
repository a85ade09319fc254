"""Relative slot accuracy (RSA; Kim et al., ACL 2022, 2022.acl-short.33).

Per turn, T* is the number of distinct slots in B_t ∪ P_t and

.. math:: \\mathrm{RSA}_t = \\frac{T^* - \\mathrm{missing}_t - \\mathrm{wrong}_t
          - \\mathrm{extra}_t}{T^*} = \\frac{|B_t \\cap P_t|}{T^*}

(the paper's (T* − M − W)/T*, W counting every predicted item not in the gold: wrong
values and extra slots). Turns with T* = 0 (both states empty) have no defined value,
and how turns are averaged is not fixed by the formula. Kim et al.'s own
implementation could not be located (searched: GitHub code, issues and pages indexes,
the authors' accounts; the paper's repositories list none), so the default is NOT
confirmed as the paper's. Each convention is explicit and part of the metric name:

========================  ====================================  ==========================
option                    definition                            reproduces
========================  ====================================  ==========================
``empty_turns="exclude"``  mean of RSA_t over turns with T* > 0  ConvLab-3 ``mdst`` (default)
``empty_turns="zero"``     mean over all turns, RSA_t = 0 when   cuthalionn/Granular_Change_
                           T* = 0                                Accuracy
                                                                 ``getRelativeSlotAccuracy``
                                                                 (tested to 1e-9; that code
                                                                 takes a slot as
                                                                 ``rsplit("-", 1)[0]`` of
                                                                 ``domain-slot-value``, which
                                                                 breaks on values containing
                                                                 ``-``: not reproduced)
``empty_turns="one"``      mean over all turns, RSA_t = 1 when   no known code
                           T* = 0
``average="micro"``        Σ_t |B_t ∩ P_t| / Σ_t T* (empty turns a SimpleTOD-based
                           contribute nothing)                   ``evaluate_dst`` script
                                                                 (``r_slot_acc / num_r_slots``)
========================  ====================================  ==========================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

import numpy as np
from dst_eval.metrics.base import GoldState, Metric, PredState, ratio
from dst_eval.metrics.canonical import StateOptions, canonical_table, metric_value

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


def relative_slot_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None], *,
                           empty_turns: str = "exclude", average: str = "macro",
                           zero_division: str | float = "raise",
                           **options: Unpack[StateOptions]) -> float:
    """Relative slot accuracy with the stated empty-turn convention and averaging.

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.
    """
    metric = RelativeSlotAccuracy(empty_turns=empty_turns, average=average)
    return metric_value(metric, canonical_table(y_true, y_pred, options), zero_division)
