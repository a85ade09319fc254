"""Granular change accuracy (GCA; Aksu & Chen, LREC-COLING 2024, arXiv 2403.11123).

GCA scores the *changes* of the state rather than the accumulated state. Reference code:
cuthalionn/Granular_Change_Accuracy ``src/gca.py`` (``compute_gca`` /
``calculate_gca``), reproduced here exactly, including its quirks.

Per dialogue, every slot key seen so far in the gold (prediction) stays in the gold
(predicted) state with the value ``none`` once dropped. With B̃_t, P̃_t these padded
states, the changes are the plain item differences ΔB_t = B̃_t \\ B̃_{t-1} and
ΔP_t = P̃_t \\ P̃_{t-1}. Each item of ΔB_t, then each item of ΔP_t, is counted once as
``correct`` (c), ``wrong`` (w), ``over``-prediction (o) or ``missed`` (m):

=====================================  ============================================
gold change (ℓ, g) ∈ ΔB_t               outcome
=====================================  ============================================
ℓ never predicted in the dialogue      m if g ≠ none, else c
P̃_t[ℓ] = g                             c (ℓ marked correct)
g = none (gold dropped ℓ)              o
otherwise                              w (ℓ marked wrong)
predicted change (ℓ, p) ∈ ΔP_t
ℓ never in the gold of the dialogue    o if p ≠ none, else c
p = B̃_t[ℓ] and ℓ not marked correct    c
p = none                               m   (see below when ℓ is marked correct)
p ≠ B̃_t[ℓ] and ℓ not marked wrong      w
otherwise                              not counted
=====================================  ============================================

Over the corpus (sums of the per-turn counts), with P = c/(c+w+o), R = c/(c+w+m),
P_L = (c+w)/(c+w+o), R_L = (c+w)/(c+w+m) and α = 1 − 1/11:

.. math:: \\mathrm{GCA} = \\frac{\\sum_i v_i}{\\sum_i v_i / x_i},\\quad
          v = (α d_P, α d_R, (1-α) d_P, (1-α) d_R),\\ x = (P, R, P_L, R_L)

(d_P = c+w+o, d_R = c+w+m): a weighted harmonic mean; GCA = 0 when any of P, R,
P_L, R_L is 0 (also when nothing changes at all). Gold variants: a predicted value
matches when it equals any variant.

**Co-deletions.** When gold and prediction drop the same slot in the same turn, the
reference code counts the gold change ``c`` and then, because the slot is already
marked correct, the predicted change ``m``: an oracle prediction scores below 1 on any
dialogue where the gold deletes a slot. ``co_deletion="once"`` (the default, and the
strict profile's ``granular_change_accuracy``) counts such a slot once, as correct;
``co_deletion="reference"`` (``granular_change_accuracy_reference``) adds the extra
miss and equals the reference code's GCA exactly. The per-turn column ``gca_codel``
counts these slots, so both are functions of the same sums.
"""

from __future__ import annotations

from typing import Unpack

import numpy as np
from dst_eval.metrics.base import Metric
from dst_eval.metrics.canonical import StateOptions
from dst_eval.metrics.change_counts import CO_DELETION, GCA_COLUMNS

ALPHA = 1 - 1 / 11


def gca_from_counts(correct, wrong, over, missed) -> np.ndarray | float:
    """``calculate_gca`` of the reference code on totals (scalars or equal-shaped arrays)."""
    c, w, o, m = (np.asarray(x, dtype=float) for x in (correct, wrong, over, missed))
    d_p, d_r = w + c + o, w + c + m
    safe_p, safe_r = np.where(d_p > 0, d_p, 1.0), np.where(d_r > 0, d_r, 1.0)
    prec = np.where(d_p > 0, c / safe_p, 0.0)
    recall = np.where(d_r > 0, c / safe_r, 0.0)
    label_prec = np.where(d_p > 0, (c + w) / safe_p, 0.0)
    label_recall = np.where(d_r > 0, (c + w) / safe_r, 0.0)
    ok = (prec > 0) & (recall > 0) & (label_prec > 0) & (label_recall > 0)
    weights = (ALPHA * d_p, ALPHA * d_r, (1 - ALPHA) * d_p, (1 - ALPHA) * d_r)
    values = tuple(np.where(ok, x, 1.0) for x in (prec, recall, label_prec, label_recall))
    total = weights[0] + weights[1] + weights[2] + weights[3]
    inverse = sum(wt / x for wt, x in zip(weights, values, strict=True))
    out = np.where(ok, total / np.where(ok, inverse, 1.0), 0.0)
    return float(out) if out.ndim == 0 else out


class GranularChangeAccuracy(Metric):
    """GCA from the per-turn change counts (see the module docstring)."""

    columns = GCA_COLUMNS
    zero_division = 0.0  # no change at all: the reference code's 0

    def __init__(self, *, co_deletion: str = "once") -> None:
        if co_deletion not in CO_DELETION:
            raise ValueError(f"co_deletion must be one of {CO_DELETION}")
        self.co_deletion = co_deletion
        self.name = "granular_change_accuracy" + (
            "_reference" if co_deletion == "reference" else "")

    def from_sums(self, sums):
        missed = np.asarray(sums["gca_missed"], dtype=float)
        if self.co_deletion == "reference":
            missed = missed + sums["gca_codel"]
        return gca_from_counts(sums["gca_correct"], sums["gca_wrong"], sums["gca_over"], missed)


def granular_change_accuracy(y_true, y_pred, *, dialogue_ids, co_deletion: str = "once",
                             zero_division: str | float = "raise",
                             **options: Unpack[StateOptions]) -> float:
    """GCA of consecutive, ordered turns grouped by ``dialogue_ids``.

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.

    >>> granular_change_accuracy([{"hotel-area": "north"}], [{"hotel-area": "north"}],
    ...                          dialogue_ids=["d"])
    1.0
    """
    from dst_eval.metrics.canonical import canonical_table, metric_value

    table = canonical_table(y_true, y_pred, options, dialogue_ids=dialogue_ids)
    return metric_value(GranularChangeAccuracy(co_deletion=co_deletion), table, zero_division)
