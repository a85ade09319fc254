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
from typing import TYPE_CHECKING

from dst_eval import corpora
from dst_eval.errors import UsageError

if TYPE_CHECKING:
    from dst_eval.result import Result

__all__ = ["PROFILES", "RESAMPLING_PROFILES", "ProfileFn", "breakdowns_of", "get_profile",
           "unset_test"]


ProfileFn = Callable[..., "Result"]
"""``score(alignment, options, result=None) -> Result``: fills ``result`` (a fresh one
when None) and returns it."""

# name -> (module, function); the corpora a profile applies to are those whose
# configs/<corpus>.toml lists it under `profiles` (dst_eval.corpora.applicable).
PROFILES: dict[str, tuple[str, str]] = {
    "strict": ("strict", "score"),
    "sgd-official": ("sgd_official", "score"),
    "sgd-official-multiwoz": ("sgd_official", "score_multiwoz"),
    "mwzeval": ("mwzeval", "score"),
    "convlab": ("convlab", "score"),
    "trade": ("trade", "score"),
    "trippy": ("trippy", "score"),
    "official": ("jmultiwoz_official", "score"),
}


PROFILE_BREAKDOWNS: dict[str, tuple[str, ...]] = {
    "strict": ("domain", "slot", "service", "seen", "depth"),
    "mwzeval": ("domain", "slot"),
    "sgd-official": ("service",),
    "sgd-official-multiwoz": ("service",),
}
"""The ``--by`` breakdowns each profile computes (none for a profile not listed)."""


RESAMPLING_PROFILES = ("strict", "trade", "trippy")
"""The profiles that keep per-turn statistics (``Result.table``), so ``--bootstrap`` and
``compare`` can resample them; the others score as their anchor does, on totals only."""


def breakdowns_of(profile: str) -> tuple[str, ...]:
    return PROFILE_BREAKDOWNS.get(profile, ())


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


def unset_test(profile: str, corpus: str, marker: str | None = None
               ) -> Callable[[str], bool]:
    """Which predicted strings leave a slot unset under ``profile``, as its anchor reads
    them: the profile module's ``unset_for(corpus, marker)`` (``strict``: the format's unset
    literal ``marker`` too) or ``UNSET``; a module with neither (``mwzeval``,
    ``sgd-official``) scores every string as a value."""
    module = importlib.import_module(f"{__name__}.{PROFILES[profile][0]}")
    if hasattr(module, "unset_for"):
        return module.unset_for(corpus, marker).test
    unset = getattr(module, "UNSET", None)
    return unset.test if unset is not None else _never


def _never(value: str) -> bool:
    return False
