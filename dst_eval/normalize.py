"""Value normalisation: the one place where slot values are rewritten before matching.

A *policy* is a named, versioned sequence of rules from :data:`RULES`; policies are
composed with ``+`` (``"nfkc+despace"``). The same normaliser is applied to gold
values, gold variants and predictions, so a policy can never make gold and
prediction disagree. The policy's :attr:`Normalizer.signature` (e.g. ``basic-v1``)
is part of every score's signature; changing what a rule does means bumping
:data:`RULE_TABLE_VERSION`.

Rules (each is tested in ``tests/test_normalize.py``):

==================  ==============================================================
rule                effect
==================  ==============================================================
``strip``           remove leading and trailing whitespace
``collapse-space``  runs of whitespace become one ASCII space
``lower``           Unicode lower-case (``str.lower``)
``despace``         remove every whitespace character (word-segmented CJK values)
``nfkc``            Unicode NFKC: full-width ASCII and parentheses to half-width
``multi-value-sort`` for the slots the corpus config names, split on whitespace,
                    sort the parts, join with one space (unordered value lists)
==================  ==============================================================

Named policies: ``exact`` (no rule), ``basic`` (strip, collapse-space, lower),
``despace``, ``nfkc`` (nfkc, strip), ``multi-value-sort`` (strip, multi-value-sort).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

RULE_TABLE_VERSION = 1

_SPACE_RUN = re.compile(r"\s+")


def _strip(_slot: str, value: str) -> str:
    return value.strip()


def _collapse_space(_slot: str, value: str) -> str:
    return _SPACE_RUN.sub(" ", value)


def _lower(_slot: str, value: str) -> str:
    return value.lower()


def _despace(_slot: str, value: str) -> str:
    return _SPACE_RUN.sub("", value)


def _nfkc(_slot: str, value: str) -> str:
    return unicodedata.normalize("NFKC", value)


Rule = Callable[[str, str], str]

RULES: dict[str, Rule] = {
    "strip": _strip,
    "collapse-space": _collapse_space,
    "lower": _lower,
    "despace": _despace,
    "nfkc": _nfkc,
    # "multi-value-sort" is parametrised by the slot set; see Normalizer.
}

POLICIES: dict[str, tuple[str, ...]] = {
    "exact": (),
    "basic": ("strip", "collapse-space", "lower"),
    "despace": ("despace",),
    "nfkc": ("nfkc", "strip"),
    "multi-value-sort": ("strip", "multi-value-sort"),
}


def policy_rules(policy: str) -> tuple[str, ...]:
    """Expand a policy name (``"nfkc+despace"``) into its ordered rule names."""
    rules: list[str] = []
    for part in policy.split("+"):
        part = part.strip()
        if part in POLICIES:
            expanded: Iterable[str] = POLICIES[part]
        elif part in RULES or part == "multi-value-sort":
            expanded = (part,)
        else:
            known = ", ".join(sorted(set(POLICIES) | set(RULES)))
            raise ValueError(f"unknown normalisation policy or rule {part!r} (known: {known})")
        for rule in expanded:
            if rule not in rules:
                rules.append(rule)
    return tuple(rules)


@dataclass(frozen=True)
class Normalizer:
    """Callable ``(slot_key, value) -> normalised value`` for one policy."""

    policy: str = "basic"
    multi_value_slots: frozenset[str] = frozenset()
    rules: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", policy_rules(self.policy))
        object.__setattr__(self, "_cache", {})

    @property
    def signature(self) -> str:
        return f"{self.policy}-v{RULE_TABLE_VERSION}"

    @property
    def is_identity(self) -> bool:
        return not self.rules

    def __call__(self, slot_key: str, value: str) -> str:
        cache: dict = self._cache  # type: ignore[attr-defined]
        key = (slot_key, value)
        cached = cache.get(key)
        if cached is None:
            cached = cache[key] = self._apply(slot_key, value)
        return cached

    def _apply(self, slot_key: str, value: str) -> str:
        for rule in self.rules:
            if rule == "multi-value-sort":
                if slot_key in self.multi_value_slots:
                    value = " ".join(sorted(value.split()))
            else:
                value = RULES[rule](slot_key, value)
        return value

    def variants(self, slot_key: str, values: Iterable[str]) -> tuple[str, ...]:
        """Normalise gold variants, keeping their order and dropping duplicates."""
        if not self.rules:
            return tuple(values)
        out: list[str] = []
        for value in values:
            norm = self(slot_key, value)
            if norm not in out:
                out.append(norm)
        return tuple(out)
