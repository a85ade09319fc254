"""Entity inform rate: the share of the gold response's entities the generated response repeats.

GEM's CrossWOZ card: "how many entities in the gold response appear in the generated
response". For turn i with the entity set E_i of its gold response (distinct strings, each
occurring in the gold response; :func:`reference_entities`) and the generated response h_i::

    found_i = |{e ∈ E_i : e is a substring of h_i}|          total_i = |E_i|
    entity inform rate = Σ_i found_i / Σ_i total_i            (micro over turns)

Turns without entities add nothing; with no entity at all the rate is undefined (NaN).
Strings are compared exactly, so normalise gold entities, gold responses and generated
responses alike first (``dst_eval`` uses NFKC + whitespace removal + lower-case). Which
strings are entities is the corpus's decision (``dst_eval.corpora.crosswoz.responses``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from dst_eval.metrics.base import Metric, ratio

__all__ = [
    "EntityInformRate",
    "entity_inform_counts",
    "entity_inform_rate",
    "reference_entities",
]


def reference_entities(candidates: Iterable[str], reference: str) -> tuple[str, ...]:
    """The distinct non-empty ``candidates`` that occur in ``reference``, first-seen order."""
    out: dict[str, None] = {}
    for candidate in candidates:
        if candidate and candidate in reference:
            out.setdefault(candidate)
    return tuple(out)


def entity_inform_counts(y_true: Sequence[Sequence[str]], y_pred: Sequence[str]
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Per turn ``(found_i, total_i)``: ``y_true[i]`` the entities E_i, ``y_pred[i]`` h_i."""
    if len(y_true) != len(y_pred):
        raise ValueError(f"{len(y_true)} entity sets but {len(y_pred)} responses")
    found = np.fromiter((sum(e in hyp for e in set(entities))
                         for entities, hyp in zip(y_true, y_pred, strict=True)),
                        dtype=np.int64, count=len(y_true))
    total = np.fromiter((len(set(entities)) for entities in y_true), dtype=np.int64,
                        count=len(y_true))
    return found, total


def entity_inform_rate(y_true: Sequence[Sequence[str]], y_pred: Sequence[str]) -> float:
    """Σ found_i / Σ total_i (module docstring); NaN when no turn has an entity."""
    found, total = entity_inform_counts(y_true, y_pred)
    return float(ratio(found.sum(), total.sum()))


class EntityInformRate(Metric):
    """Entity inform rate from the per-turn columns ``entity_found`` and ``entity_total``."""

    name = "entity_inform_rate"
    columns = ("entity_found", "entity_total")

    def from_sums(self, sums: Mapping[str, np.ndarray | float]) -> np.ndarray | float:
        return ratio(sums["entity_found"], sums["entity_total"])
