"""Response-generation metrics per corpus (BLEU, Inform, Success, Combined, richness, ...).

Each corpus module exposes ``score(alignment, options, result, *, resources) -> Result``,
which records its metrics in ``result`` (the same :class:`~dst_eval.result.Result` the DST
profile filled). :func:`score_responses` dispatches on the gold corpus. A metric a
corpus does not define is listed in ``not_applicable`` with the reason (shown as
``n/a``), never reported as 0.

Scales: rates (inform, success, entity inform rate) are fractions in [0, 1]; BLEU is on
sacrebleu's 0–100 scale; ``combined`` = 0.5·(100·inform + 100·success) + BLEU, in points.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dst_eval.alignment import Alignment
from dst_eval.options import EvalOptions
from dst_eval.result import Result


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


def has_responses(alignment: Alignment) -> bool:
    return any(p is not None and p.response is not None for _, p in alignment.pairs)


def score_responses(alignment: Alignment, options: EvalOptions, result: Result | None = None,
                    *, resources: ResponseResources | None = None) -> Result:
    """The gold corpus's response scorer: records its metrics in ``result`` (a fresh
    :class:`~dst_eval.result.Result` when None) and returns it. ``options.profile``
    selects compatibility behaviour (``mwzeval`` on MultiWOZ)."""
    from dst_eval import corpora

    module = corpora.get(alignment.gold.corpus).responses_module()
    resources = resources or ResponseResources()
    result = module.score(alignment, options, result if result is not None else Result(),
                          resources=resources)
    if resources.db is not None and not hasattr(module, "database_folder"):
        result.add(notes=[f"--db {resources.db}: not read, the {alignment.gold.corpus} "
                          "response metrics use no database"])
    return result
