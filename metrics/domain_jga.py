"""Per-domain joint goal accuracy and its unweighted mean (FnCTOD-style headline).

For a domain d (the part of a slot key before its first ``-``: ``hotel`` for
``hotel-area``, the service ``Hotels_2`` for SGD keys), B_t^d and P_t^d are the states
restricted to d's slots. Turns where neither state has a slot of d are not counted:

.. math:: \\mathrm{JGA}_d = \\frac{|\\{t : B^d_t \\cup P^d_t \\neq \\emptyset,\\ B^d_t = P^d_t\\}|}
          {|\\{t : B^d_t \\cup P^d_t \\neq \\emptyset\\}|},\\qquad
          \\overline{\\mathrm{JGA}} = \\frac{1}{|D|}\\sum_{d \\in D}\\mathrm{JGA}_d

D is the set of domains that occur in the scored gold or predictions (or the ``domains``
given). Each is a function of column sums, so dialogue-bootstrap intervals apply.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from dst_eval.metrics.base import GoldState, Metric, PredState, TurnTable, ratio
from dst_eval.metrics.state_compare import turn_table

PREFIX_TURN, PREFIX_JGA = "dom_turn:", "dom_jga:"


class DomainJointGoalAccuracy(Metric):
    """JGA_d for one domain d; ``nan`` when no turn involves d."""

    def __init__(self, domain: str) -> None:
        self.domain = domain
        self.name = f"domain_joint_goal_accuracy:{domain}"
        self.columns = (PREFIX_JGA + domain, PREFIX_TURN + domain)

    def from_sums(self, sums):
        return ratio(sums[self.columns[0]], sums[self.columns[1]])


class MeanDomainJointGoalAccuracy(Metric):
    """Unweighted mean of JGA_d over ``domains``."""

    name = "domain_joint_goal_accuracy_mean"

    def __init__(self, domains: Iterable[str]) -> None:
        self.parts = [DomainJointGoalAccuracy(d) for d in sorted(set(domains))]
        if not self.parts:
            raise ValueError("the per-domain JGA mean needs at least one domain")
        self.columns = tuple(c for part in self.parts for c in part.columns)

    def from_sums(self, sums):
        values = [np.asarray(part.from_sums(sums), dtype=float) for part in self.parts]
        out = np.mean(values, axis=0)
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


def per_domain_joint_goal_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState]
                                   ) -> tuple[dict[str, float], float]:
    """``({domain: JGA_d}, mean over domains)``.

    >>> per_domain_joint_goal_accuracy([{"hotel-area": "north", "taxi-leave": "1"}],
    ...                                [{"hotel-area": "north", "taxi-leave": "2"}])
    ({'hotel': 1.0, 'taxi': 0.0}, 0.5)
    """
    table = turn_table(y_true, y_pred, fga_lambdas=())
    metrics = domain_metrics(table)
    if not metrics:
        return {}, float("nan")
    scores = {m.domain: m.score(table) for m in metrics[:-1]}  # type: ignore[attr-defined]
    return scores, metrics[-1].score(table)
