"""Slot accuracy (TRADE style) over a fixed slot list of size N.

.. math:: \\mathrm{SA} = \\frac{1}{T}\\sum_t \\frac{N - |\\mathrm{wrong}_t| - |\\mathrm{missing}_t|
          - |\\mathrm{extra}_t|}{N} = 1 - \\frac{\\sum_t \\mathrm{errors}_t}{N \\cdot T}

This is TRADE's ``(N − |B_t \\ P_t| − |{p ∈ P_t \\ B_t : slot(p) not already missed}|)/N``:
a wrong value is counted once. It is inflated by the many empty slots of every turn
(SCORERS.md §8.1); prefer relative slot accuracy or F1 for comparisons.

A turn without prediction (``unpredicted`` column, see
:func:`~dst_eval.metrics.state_compare.turn_table`) has all N slots wrong: its
errors_t is N, whatever its gold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Unpack

import numpy as np
from dst_eval.metrics.base import GoldState, Metric, PredState, ratio
from dst_eval.metrics.canonical import StateOptions, canonical_table, metric_value


class SlotAccuracy(Metric):
    name = "slot_accuracy"
    columns = ("wrong", "missing", "extra", "turn", "unpredicted", "unpredicted_gold")

    def __init__(self, n_slots: int) -> None:
        if n_slots <= 0:
            raise ValueError("slot accuracy needs the corpus slot list (n_slots > 0)")
        self.n_slots = n_slots

    def from_sums(self, sums: Mapping[str, np.ndarray | float]) -> np.ndarray | float:
        errors = (np.asarray(sums["wrong"]) + sums["missing"] + sums["extra"]
                  - sums.get("unpredicted_gold", 0.0)
                  + np.asarray(sums.get("unpredicted", 0.0)) * self.n_slots)
        return 1.0 - ratio(errors, np.asarray(sums["turn"]) * self.n_slots)


def slot_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None], *,
                  slots: Sequence[str], zero_division: str | float = "raise",
                                        **options: Unpack[StateOptions]) -> float:
    """TRADE slot accuracy over the corpus slot list ``slots`` (only its length matters).

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.
    """
    table = canonical_table(y_true, y_pred, options)
    return metric_value(SlotAccuracy(len(slots)), table, zero_division)
