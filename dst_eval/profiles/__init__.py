"""Scoring profiles: which metric definitions, normalisation and aggregation a run uses.

``strict`` is the default everywhere and fixes the official scorers' defects;
each compatibility profile reproduces one official scorer number for number.
A profile is a function ``score(alignment, options, result=None) -> Result`` that
records its scores in ``result`` (:class:`~dst_eval.result.Result`); the
registry below maps profile names to it lazily (so a profile's dependencies load
only when used) and names the corpora each profile applies to.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from dst_eval.errors import UsageError
from dst_eval.options import EvalOptions
from dst_eval.result import Result

__all__ = ["PROFILES", "EvalOptions", "ProfileFn", "Result", "get_profile"]


ProfileFn = Callable[..., Result]
"""``score(alignment, options, result=None) -> Result``: fills ``result`` (a fresh one
when None) and returns it."""

# name -> (module, function, corpora it applies to; empty = all)
PROFILES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "strict": ("strict", "score", ()),
    "sgd-official": ("sgd_official", "score", ("sgd", "multiwoz22")),
    "sgd-official-multiwoz": ("sgd_official", "score_multiwoz", ("sgd", "multiwoz22")),
    "mwzeval": ("mwzeval", "score", ("multiwoz22", "multiwoz21")),
    "convlab": ("convlab", "score", ("multiwoz21", "multiwoz22", "sgd", "crosswoz")),
    "trade": ("trade", "score", ("crosswoz", "multiwoz21", "multiwoz22")),
    "official": ("jmultiwoz_official", "score", ("jmultiwoz",)),
}


PROFILE_BREAKDOWNS: dict[str, tuple[str, ...]] = {
    "strict": ("domain", "slot", "service", "seen", "depth"),
    "mwzeval": ("domain", "slot"),
}
"""The ``--by`` breakdowns each profile computes (none for a profile not listed)."""


def breakdowns_of(profile: str) -> tuple[str, ...]:
    return PROFILE_BREAKDOWNS.get(profile, ())


def get_profile(name: str, corpus: str) -> ProfileFn:
    if name not in PROFILES:
        raise UsageError(f"unknown profile {name!r}; known: {', '.join(PROFILES)}")
    module_name, fn_name, corpora = PROFILES[name]
    if corpora and corpus not in corpora:
        raise UsageError(
            f"profile {name!r} does not apply to corpus {corpus!r} "
            f"(it applies to {', '.join(corpora)})"
        )
    try:
        module = importlib.import_module(f"{__name__}.{module_name}")
    except ModuleNotFoundError as exc:
        raise UsageError(f"profile {name!r} is not available in this version") from exc
    return getattr(module, fn_name)
