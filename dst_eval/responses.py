"""Response-generation metrics per corpus (BLEU, Inform, Success, Combined, richness, ...).

Each corpus module exposes ``score(alignment, options, *, resources) -> ResponseResult``.
:func:`score_responses` dispatches on the gold corpus; ``dst_eval.api.evaluate`` merges
the result into the report next to the DST scores. A metric a corpus does not define is
listed in ``not_applicable`` with the reason (shown as ``n/a``), never reported as 0.

Scales: rates (inform, success, entity inform rate) are fractions in [0, 1]; BLEU is on
sacrebleu's 0–100 scale; ``combined`` = 0.5·(100·inform + 100·success) + BLEU, in points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dst_eval import corpora
from dst_eval.alignment import Alignment
from dst_eval.profiles import ScoreOptions


@dataclass
class ResponseResources:
    """Where corpus resources needed by response metrics live (databases, references)."""

    db: Path | None = None
    """Database directory (MultiWOZ ``db/``, RiSAWOZ ``RiSAWOZ-Database-and-Ontology``)."""
    references: Path | None = None
    """A references file overriding the gold responses (mwzeval format for MultiWOZ)."""
    goals: Path | None = None
    """MultiWOZ 2.1 ``data.json`` (or zip) giving goals when the gold is MultiWOZ 2.2."""
    gold_states: Path | None = None
    """mwzeval-format gold states for the policy-optimisation setting (MultiWOZ)."""
    gold_path: Path | None = None
    """The gold path the user gave (for locating resources next to it)."""


@dataclass
class ResponseResult:
    scores: dict[str, float]
    signature_fields: dict[str, str] = field(default_factory=dict)
    not_applicable: dict[str, str] = field(default_factory=dict)
    """metric name -> why this corpus or run has no value for it."""
    groups: dict[str, dict[str, float]] = field(default_factory=dict)
    official: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    table: Any = None
    """Per-segment/per-dialogue TurnTable for bootstrap (optional)."""
    metric_objects: list[Any] = field(default_factory=list)
    """The Metric objects computed from ``table``."""
    tables: list[tuple[Any, list[Any]]] = field(default_factory=list)
    """Further ``(TurnTable, [Metric])`` pairs (e.g. per-dialogue inform/success and
    per-segment BLEU statistics), each resampled by dialogue."""


def has_responses(alignment: Alignment) -> bool:
    return any(p is not None and p.response is not None for _, p in alignment.pairs)


def score_responses(alignment: Alignment, options: ScoreOptions, *,
                    resources: ResponseResources | None = None,
                    profile: str = "strict") -> ResponseResult:
    module = corpora.get(alignment.gold.corpus).responses_module()
    return module.score(alignment, options, resources=resources or ResponseResources(),
                        profile=profile)
