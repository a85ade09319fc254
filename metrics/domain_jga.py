"""Per-domain joint goal accuracy and its unweighted mean (FnCTOD's headline).

Definition of facebookresearch/FnCTOD ``src/multiwoz/utils/compute_joint_acc.py``
(``compute_jacc``, ``per_domain_jga``): for a domain d (the part of a slot key before
its first ``-``: ``hotel`` for ``hotel-area``, the service ``Hotels_2`` for SGD keys),
B_t^d and P_t^d are the states restricted to d's slots, and every turn of every
dialogue that involves d counts -- also the turns before d is first mentioned:

.. math:: \\mathrm{JGA}_d = \\frac{|\\{t \\in \\mathcal{T}_d : B^d_t = P^d_t\\}|}
          {|\\mathcal{T}_d|},\\qquad
          \\overline{\\mathrm{JGA}} = \\frac{1}{|D|}\\sum_{d \\in D}\\mathrm{JGA}_d

with 𝒯_d the turns of the dialogues involving d. FnCTOD takes a dialogue's domains from
its annotation (``all_domains``); here they are the domains with a gold slot at some
turn of the dialogue (the two agree when every annotated domain gets a slot), so a
predicted slot of a domain the dialogue never involves counts in no JGA_d. D is the
set of domains involved in the scored dialogues. Each is a function of column sums,
so dialogue-bootstrap intervals apply.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Unpack

import numpy as np
from dst_eval.metrics.base import GoldState, Metric, PredState, TurnTable, check_words, ratio
from dst_eval.metrics.canonical import (
    StateOptions,
    canonical_table,
    check_zero_division,
    resolve_zero_division,
)

PREFIX_TURN, PREFIX_JGA = "dom_turn:", "dom_jga:"


class DomainJointGoalAccuracy(Metric):
    """JGA_d for one domain d; ``nan`` when no dialogue involves d."""

    def __init__(self, domain: str) -> None:
        self.domain = domain
        self.name = f"domain_joint_goal_accuracy:{domain}"
        self.columns = (PREFIX_JGA + domain, PREFIX_TURN + domain)

    def from_sums(self, sums):
        return ratio(sums[self.columns[0]], sums[self.columns[1]])


class MeanDomainJointGoalAccuracy(Metric):
    """Unweighted mean of JGA_d over ``domains``; a domain no dialogue of a bootstrap
    resample involves has no JGA_d there and is left out of that resample's mean."""

    name = "domain_joint_goal_accuracy_mean"

    def __init__(self, domains: Iterable[str]) -> None:
        check_words(domains, "domains", "domain names")
        self.parts = [DomainJointGoalAccuracy(d) for d in sorted(set(domains))]
        if not self.parts:
            raise ValueError("the per-domain JGA mean needs at least one domain")
        self.columns = tuple(c for part in self.parts for c in part.columns)

    def from_sums(self, sums):
        values = np.array([np.asarray(part.from_sums(sums), dtype=float) for part in self.parts])
        defined = np.isfinite(values)
        count = defined.sum(axis=0)
        total = np.where(defined, values, 0.0).sum(axis=0)
        out = np.where(count > 0, total / np.where(count > 0, count, 1), np.nan)
        return float(out) if out.ndim == 0 else out


def table_domains(table: TurnTable) -> list[str]:
    """Domains with per-domain columns in ``table``."""
    return sorted(name[len(PREFIX_TURN):] for name in table.columns
                  if name.startswith(PREFIX_TURN))


def domain_metrics(table: TurnTable) -> list[Metric]:
    """One :class:`DomainJointGoalAccuracy` per domain of ``table``, then their mean."""
    domains = table_domains(table)
    if not domains:
        return []
    return [*(DomainJointGoalAccuracy(d) for d in domains), MeanDomainJointGoalAccuracy(domains)]


def per_domain_joint_goal_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None],
                                   *, dialogue_ids: Sequence[str],
                                   zero_division: str | float = "raise",
                                   **options: Unpack[StateOptions]
                                   ) -> tuple[dict[str, float], float]:
    """``({domain: JGA_d}, mean over domains)``; turns of a dialogue consecutive and in order.

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.

    Domains are those of the (spelled) gold keys. No domain at all (no turns, or no gold
    slot anywhere): :class:`UndefinedMetric`, or ``({}, zero_division)``.

    >>> per_domain_joint_goal_accuracy(
    ...     [{}, {"hotel-area": "north", "taxi-leave": "1"}],
    ...     [{}, {"hotel-area": "north", "taxi-leave": "2"}], dialogue_ids=["d", "d"])
    ({'hotel': 1.0, 'taxi': 0.5}, 0.75)
    """
    table = canonical_table(y_true, y_pred, options, dialogue_ids=dialogue_ids)
    metrics = domain_metrics(table)
    if not metrics:
        check_zero_division(zero_division)
        reason = "no turns" if not len(table) else "no gold slot in any domain"
        return {}, resolve_zero_division(float("nan"), metric=MeanDomainJointGoalAccuracy.name,
                                         zero_division=zero_division, reason=reason)
    scores = {m.domain: m.score(table) for m in metrics[:-1]}  # type: ignore[attr-defined]
    return scores, metrics[-1].score(table)
