"""Scoring profiles: which metric definitions, normalisation and aggregation a run uses.

``strict`` is the default everywhere and fixes the official scorers' defects;
each compatibility profile reproduces one official scorer number for number.
A profile is a function ``score(alignment, options) -> ProfileResult``; the
registry below maps profile names to it lazily (so a profile's dependencies load
only when used) and names the corpora each profile applies to.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dst_eval import corpora
from dst_eval.errors import UsageError


@dataclass(frozen=True)
class ScoreOptions:
    missing: str = "wrong"
    """``wrong``: missing dialogues/turns score as empty predictions (default);
    ``skip``: score only what is present, as the official scorers silently do."""
    metrics: tuple[str, ...] | None = None
    """Restrict the headline metrics to these names (None: all the profile computes)."""
    by: tuple[str, ...] = ()
    """Breakdowns: any of ``domain``, ``slot``, ``service``, ``seen``, ``depth``."""
    fga_lambdas: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)
    dontcare: str = "value"
    """``value``: dontcare is an ordinary value (default); ``ignore``: removed on both sides."""
    normalisation: str | None = None
    """Override the corpus's default normalisation policy (strict profile only)."""
    mwzeval_rules: str = "7f19ee0"
    """mwzeval rule tables: ``7f19ee0`` (published leaderboard) or ``cd3f0ee`` (latest)."""


@dataclass
class ProfileResult:
    scores: dict[str, float]
    """Headline metrics ``{name: value}``; fractions in [0, 1] unless the name says ``_pct``."""
    signature_fields: dict[str, str]
    """Signature fields beyond corpus/split/profile/version, e.g. ``{"norm": "basic-v1"}``."""
    groups: dict[str, dict[str, float]] = field(default_factory=dict)
    """Breakdowns ``{"domain:hotel": {"joint_goal_accuracy": ...}}``."""
    official: dict[str, Any] | None = None
    """The anchor scorer's own output structure, for diffing (compat profiles)."""
    per_turn: dict[str, Any] | None = None
    """Per-turn columns (equal-length lists/arrays): ``dialogue_id``, ``turn_index``, stats."""
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    table: Any = None
    """The :class:`~dst_eval.metrics.base.TurnTable` the scores were computed from, when the
    profile's metrics are sums of per-turn statistics (bootstrap and significance use it)."""
    metric_objects: list[Any] = field(default_factory=list)
    """The :class:`~dst_eval.metrics.base.Metric` objects behind ``scores`` (same names)."""
    outcomes: list[Any] = field(default_factory=list)
    """Per-slot :class:`~dst_eval.metrics.state_compare.SlotOutcome` records (row = index
    into ``per_turn``), for error analysis."""


ProfileFn = Callable[..., ProfileResult]

# name -> (module, function); the corpora a profile applies to are those whose
# configs/<corpus>.toml lists it under `profiles` (dst_eval.corpora.applicable).
PROFILES: dict[str, tuple[str, str]] = {
    "strict": ("strict", "score"),
    "sgd-official": ("sgd_official", "score"),
    "sgd-official-multiwoz": ("sgd_official", "score_multiwoz"),
    "mwzeval": ("mwzeval", "score"),
    "convlab": ("convlab", "score"),
    "trade": ("trade", "score"),
    "official": ("jmultiwoz_official", "score"),
}


def get_profile(name: str, corpus: str) -> ProfileFn:
    if name not in PROFILES:
        raise UsageError(f"unknown profile {name!r}; known: {', '.join(PROFILES)}")
    module_name, fn_name = PROFILES[name]
    if not corpora.get(corpus).applies(name):
        raise UsageError(
            f"profile {name!r} does not apply to corpus {corpus!r} "
            f"(it applies to {', '.join(corpora.applicable(name))})"
        )
    try:
        module = importlib.import_module(f"{__name__}.{module_name}")
    except ModuleNotFoundError as exc:
        raise UsageError(f"profile {name!r} is not available in this version") from exc
    return getattr(module, fn_name)
