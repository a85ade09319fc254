"""Canonical slot keys for predictions: ``"domain-slot"`` spelled the way the gold spells it.

Predictions name slots in many spellings (``"hotel-price range"``, ``"train-leaveAt"``,
mwzeval's ``"train-leave"``, TRADE's ``"hotel-book day"``). :func:`canonical_slot_key`
maps a predicted ``(domain, slot)`` to one canonical key for a corpus in two steps:

1. the corpus's *key policy* spells the key:

   ============  ===================================================================
   policy        effect
   ============  ===================================================================
   ``lower``     domain and slot lower-cased, all whitespace removed (MultiWOZ 2.1/2.2:
                 ``"price range"`` -> ``"pricerange"``, ``"leaveAt"`` -> ``"leaveat"``)
   ``keep``      domain and slot as given, surrounding whitespace stripped (SGD: the
                 service keeps its case, ``"Hotels_4-location"``; alignment matches
                 service names case-insensitively against the gold)
   ``verbatim``  exactly as given (CrossWOZ, RiSAWOZ, JMultiWOZ: CJK slot names and
                 RiSAWOZ names with spaces or hyphens are never touched)
   ============  ===================================================================

   Without a corpus (``corpus=None``) the key is kept as given except that the
   domain is lower-cased. Each corpus config names its policy (``[corpus]
   slot_key_policy`` in ``configs/<corpus>.toml``).
2. the corpus config's ``[slot_aliases]`` table (``configs/<corpus>.toml``, prediction
   key -> canonical key) is looked up with the policy-spelled key; alias keys are
   spelled by the same policy first, so ``"hotel-price range"`` and
   ``"hotel-pricerange"`` in the table mean the same thing. Book slots in book
   context (``"hotel-day"`` -> ``"hotel-bookday"``) are corpus knowledge and live in
   that table, not here.

A flat key ``"domain-slot"`` is split on the FIRST ``-`` only (slot names may hold
hyphens): :func:`split_slot_key` is the one splitter. Results are cached per
``(domain, slot, corpus)``.

After the corpus spelling, :class:`GoldSpellings` spells a predicted key or domain that
matches the loaded gold only case-insensitively (SGD ``hotels_4-location`` vs the gold's
``Hotels_4-location``) as the gold does; alignment uses it for every predicted key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from types import MappingProxyType

from dst_eval.config import corpus_config
from dst_eval.errors import UsageError

_WHITESPACE = re.compile(r"\s+")


def _spell_lower(domain: str, slot: str) -> str:
    return f"{_WHITESPACE.sub('', domain).lower()}-{_WHITESPACE.sub('', slot).lower()}"


def _spell_keep(domain: str, slot: str) -> str:
    return f"{domain.strip()}-{slot.strip()}"


def _spell_verbatim(domain: str, slot: str) -> str:
    return f"{domain}-{slot}"


_SPELLERS = {"lower": _spell_lower, "keep": _spell_keep, "verbatim": _spell_verbatim}


def split_slot_key(key: str) -> tuple[str, str]:
    """Split a flat ``"domain-slot"`` key on its first ``-``; ``("", key)`` when it has none."""
    domain, dash, slot = key.partition("-")
    return (domain, slot) if dash else ("", key)


@cache
def key_policy(corpus: str | None) -> str:
    """The key policy name used for ``corpus`` (``"none"`` when no corpus is known)."""
    if corpus is None:
        return "none"
    policy = corpus_config(corpus).slot_key_policy  # an unknown corpus is a usage error
    if policy not in _SPELLERS:
        raise UsageError(
            f"configs/{corpus}.toml: unknown slot_key_policy {policy!r} "
            f"(known: {', '.join(_SPELLERS)})"
        )
    return policy


@cache
def _alias_table(corpus: str) -> Mapping[str, str]:
    """``[slot_aliases]`` of the corpus config with its keys spelled by the key policy."""
    spell = _SPELLERS[key_policy(corpus)]
    table: dict[str, str] = {}
    for alias, target in corpus_config(corpus).slot_aliases.items():
        domain, slot = split_slot_key(str(alias))
        table[spell(domain, slot)] = str(target)
    return MappingProxyType(table)


@lru_cache(maxsize=1 << 16)
def canonical_slot_key(domain: str, slot: str, corpus: str | None) -> str:
    """Canonical ``"domain-slot"`` key of a predicted slot for ``corpus``.

    >>> canonical_slot_key("Hotel", "price range", "multiwoz22")
    'hotel-pricerange'
    >>> canonical_slot_key("Hotels_4", "location", "sgd")
    'Hotels_4-location'
    >>> canonical_slot_key("Hotel", "Stars", None)
    'hotel-Stars'
    """
    if corpus is None:
        return f"{domain.lower()}-{slot}"
    key = _SPELLERS[key_policy(corpus)](domain, slot)
    return _alias_table(corpus).get(key, key)


@lru_cache(maxsize=1 << 12)
def canonical_domain(domain: str, corpus: str | None) -> str:
    """The domain/service spelled as :func:`canonical_slot_key` spells the part before ``-``."""
    if corpus is None:
        return domain.lower()
    policy = key_policy(corpus)
    if policy == "lower":
        return _WHITESPACE.sub("", domain).lower()
    return domain.strip() if policy == "keep" else domain


class GoldSpellings:
    """The gold's spelling of predicted keys and domains (case-insensitive fallback).

    ``key(k)`` is ``k`` when the gold has it, else the gold key equal to it ignoring case
    (the first in sorted order), else None; ``domain(d)`` likewise for domains (``d``
    itself when unknown). ``keys`` are the gold's slot keys, ``domains`` its domains
    (those of ``keys`` are added).
    """

    __slots__ = ("keys", "domains", "_keys_by_lower", "_domains_by_lower")

    def __init__(self, keys: Iterable[str], domains: Iterable[str] = ()) -> None:
        self.keys = frozenset(keys)
        self.domains = frozenset(split_slot_key(k)[0] for k in self.keys) | frozenset(domains)
        self._keys_by_lower: dict[str, str] = {}
        for key in sorted(self.keys):
            self._keys_by_lower.setdefault(key.lower(), key)
        self._domains_by_lower: dict[str, str] = {}
        for domain in sorted(self.domains):
            self._domains_by_lower.setdefault(domain.lower(), domain)

    def key(self, key: str) -> str | None:
        if key in self.keys:
            return key
        return self._keys_by_lower.get(key.lower())

    def domain(self, domain: str) -> str:
        return self._domains_by_lower.get(domain.lower(), domain)

    def has_domain(self, domain: str) -> bool:
        return domain.lower() in self._domains_by_lower


def clear_caches() -> None:
    """Forget cached policies, alias tables and keys (after a config changed, e.g. in tests)."""
    for cached in (key_policy, _alias_table, canonical_slot_key, canonical_domain):
        cached.cache_clear()
