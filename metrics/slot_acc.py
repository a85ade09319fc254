"""Slot accuracy (TRADE style) over a fixed slot list of size N.

.. math:: \\mathrm{SA} = \\frac{1}{T}\\sum_t \\frac{N - |\\mathrm{wrong}_t| - |\\mathrm{missing}_t|
          - |\\mathrm{extra}_t|}{N} = 1 - \\frac{\\sum_t \\mathrm{errors}_t}{N \\cdot T}

This is TRADE's ``(N − |B_t \\ P_t| − |{p ∈ P_t \\ B_t : slot(p) not already missed}|)/N``:
a wrong value is counted once. It is inflated by the many empty slots of every turn
(SCORERS.md §8.1); prefer relative slot accuracy or F1 for comparisons.

A turn without prediction (``unpredicted`` column, see
:func:`~dst_eval.metrics.state_compare.turn_table`) has all N slots wrong: its
errors_t is N, whatever its gold.

A predicted slot outside the slot list is an error (an extra slot), as the CLI counts it;
with every gold and predicted slot in the list, errors_t ≤ N. Slots outside a list of size
N can give a turn more than N errors and the metric a value below 0, as TRADE's
``compute_acc`` does: a value below 0 says that ``slots`` is not the states' slot list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Sized
from typing import Unpack

import numpy as np
from dst_eval.metrics.base import (
    GoldState,
    Metric,
    PredState,
    check_n_slots,
    check_words,
    ratio,
)
from dst_eval.metrics.canonical import (
    StateOptions,
    canonical_table,
    check_zero_division,
    metric_value,
)


class SlotAccuracy(Metric):
    name = "slot_accuracy"
    columns = ("wrong", "missing", "extra", "turn", "unpredicted", "unpredicted_gold")

    def __init__(self, n_slots: int) -> None:
        self.n_slots = check_n_slots(n_slots)

    def from_sums(self, sums: Mapping[str, np.ndarray | float]) -> np.ndarray | float:
        errors = (np.asarray(sums["wrong"]) + sums["missing"] + sums["extra"]
                  - sums.get("unpredicted_gold", 0.0)
                  + np.asarray(sums.get("unpredicted", 0.0)) * self.n_slots)
        return 1.0 - ratio(errors, np.asarray(sums["turn"]) * self.n_slots)


def slot_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None], *,
                  slots: Sequence[str], zero_division: str | float = "raise",
                                        **options: Unpack[StateOptions]) -> float:
    """TRADE slot accuracy over the corpus slot list ``slots`` (only its length matters:
    N = ``len(slots)`` >= 1; a string is a ``TypeError``).

    A predicted slot outside the list is an error, as the CLI counts it (a value below 0:
    slots outside a list of size N, see the module docstring).

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.

    >>> slot_accuracy([{"hotel-area": "north"}], [{"hotel-area": "south"}], slots=range(30))
    0.9666666666666667
    """
    check_words(slots, "slots", "slot names")
    if not isinstance(slots, Sized):
        raise TypeError(f"slots must be the corpus slot list (a list), got {slots!r:.80}")
    metric = SlotAccuracy(len(slots))
    check_zero_division(zero_division)
    return metric_value(metric, canonical_table(y_true, y_pred, options), zero_division)
