"""Value normalisation rules: the one implementation (``dst_eval.normalize`` re-exports it).

A *policy* is a named, versioned sequence of rules from :data:`RULES`; policies are
composed with ``+`` (``"nfkc+despace"``). The same normaliser is applied to gold
values, gold variants and predictions, so a policy can never make gold and
prediction disagree. The policy's :attr:`Normalizer.signature` (e.g. ``basic-v1``)
is part of every score's signature; changing what a rule does means bumping
:data:`RULE_TABLE_VERSION`.

Rules:

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

Unset values. Readers deliver every predicted string verbatim (``""``, ``" "``,
``none``, ``not mentioned`` included); which of them leave a slot *unset* (the slot is
then absent from the prediction) is the profile's policy, an :class:`Unset` made of
the rules in :data:`UNSET_RULES`, applied to the value as the file wrote it, before
any normalisation rule:

==============  ================================================================
unset rule      the value leaves the slot unset when
==============  ================================================================
``empty``       it is ``""``
``blank``       it is ``""`` or whitespace only (``str.strip()`` leaves nothing)
``words``       ``value.strip().lower()`` is one of the corpus's unset words
                (``[values] unset`` in ``configs/<corpus>.toml``; MultiWOZ:
                ``none``, ``not mentioned``, the 2.1 ``metadata`` spellings)
``none``        it is exactly ``none`` (TRADE's decoder drops exactly that)
==============  ================================================================

The profile modules of ``dst_eval`` choose a policy and an :class:`Unset` per profile
(``dst_eval/normalize.py`` documents which); the metric functions of this package use
:func:`normalise_pair` with the strict profile's choices by default.

A slot given twice in one turn (two spellings, :attr:`PredTurn.duplicates`) takes the
first of its values that is not unset (:meth:`Unset.items`).
"""


from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping

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


_VERSION = re.compile(r"-v(\d+)\s*$")

_WHITESPACE_RULES = frozenset({"strip", "collapse-space", "lower", "despace",
                               "multi-value-sort"})
KEEPS_DONE: dict[str, frozenset[str]] = {
    "strip": _WHITESPACE_RULES, "collapse-space": _WHITESPACE_RULES,
    "lower": _WHITESPACE_RULES, "despace": _WHITESPACE_RULES,
    "nfkc": frozenset({"nfkc", "strip"}),
    "multi-value-sort": frozenset({"strip", "collapse-space", "despace", "multi-value-sort"}),
}
"""``{rule: the rules that leave its output as it is}``: a value the rule has made (a fixed
point of it: every rule is idempotent) stays one through these, so applying the rule again
after them changes nothing. ``strip``, ``collapse-space``, ``lower`` and ``despace`` make
no whitespace and no upper case (``str.lower`` maps no character to whitespace and is
idempotent), and ``multi-value-sort`` joins its parts with one space. ``nfkc`` can make
whitespace and upper case (U+00A8 becomes a space and a mark, U+210C becomes ``H``), so it
keeps no other rule's output; ``lower`` can reorder sorted parts (``B a``); removing inner
whitespace can let characters compose under NFKC, so only ``strip`` (nothing before or
after the removed ends to compose with) keeps NFKC's output."""


def _check_repeats(rules: list[str]) -> None:
    """A ``ValueError`` when a rule is given again after a rule that can change its output
    (``lower+nfkc+lower``): applied as written it could differ from applying it once, and a
    normaliser applies each rule once. A repeat is accepted (and applied once) only when
    every rule between keeps the repeated rule's output (:data:`KEEPS_DONE`: ``basic+lower``,
    ``nfkc+basic``); the test looks at the rules between, not at what follows, so a repeat
    that a later rule makes harmless (``basic+nfkc+despace``: ``despace`` removes what the
    second ``strip`` would) is refused too. Name each rule once."""
    applied: list[str] = []  # the rules that act: a repeat accepted here does nothing
    for rule in rules:
        if rule in applied:
            between = [r for r in applied[applied.index(rule) + 1:]
                       if r not in KEEPS_DONE[rule]]
            if between:
                raise ValueError(
                    f"rule {rule!r} comes again after {between[0]!r}, which can change its "
                    "result; a policy applies each rule once: name each rule once, in the "
                    "order to apply them")
        else:
            applied.append(rule)


def policy_rules(policy: str) -> tuple[str, ...]:
    """Expand a policy name (``"nfkc+despace"``) into its ordered rule names. The name may
    end in the rule-table version its signature prints (``"basic-v1"``); another version
    than :data:`RULE_TABLE_VERSION` is a ``ValueError`` (its rules may differ), and so is a
    rule repeated after one that can change its output (:func:`_check_repeats`)."""
    version = _VERSION.search(policy)
    if version:
        if int(version.group(1)) != RULE_TABLE_VERSION:
            raise ValueError(f"{policy.strip()!r} names rule table "
                             f"v{int(version.group(1))}; this version implements rule table "
                             f"v{RULE_TABLE_VERSION} only")
        policy = policy[:version.start()]
    written: list[str] = []
    for part in policy.split("+"):
        part = part.strip()
        if part in POLICIES:
            expanded: Iterable[str] = POLICIES[part]
        elif part in RULES or part == "multi-value-sort":
            expanded = (part,)
        else:
            known = ", ".join(sorted(set(POLICIES) | set(RULES)))
            raise ValueError(f"unknown normalisation policy or rule {part!r} (known: {known})")
        written.extend(expanded)
    _check_repeats(written)
    return tuple(dict.fromkeys(written))  # a repeat kept above changes nothing: once each


def policy_name(rules: tuple[str, ...]) -> str:
    """The canonical name of an expanded rule list (:func:`policy_rules`): the policy in
    :data:`POLICIES` with exactly these rules in this order, else the rules joined by
    ``+``."""
    for name, expanded in POLICIES.items():
        if expanded == rules:
            return name
    return "+".join(rules)


class Normalizer:
    """Callable ``(slot_key, value) -> normalised value`` for one policy (results cached)."""

    __slots__ = ("policy", "multi_value_slots", "rules", "_cache")

    def __init__(self, policy: str = "basic",
                 multi_value_slots: Iterable[str] = frozenset()) -> None:
        self.policy = policy
        self.multi_value_slots = frozenset(multi_value_slots)
        self.rules = policy_rules(policy)
        self._cache: dict[tuple[str, str], str] = {}

    def __repr__(self) -> str:
        return f"Normalizer({self.policy!r})"

    @property
    def signature(self) -> str:
        """``<rules>-v<table version>``: the rules this normaliser applies, named as the
        policy that has exactly them (``basic``), else joined by ``+`` in their order; two
        spellings of one rule list (``basic``, ``strip+collapse-space+lower``, `` basic``)
        sign alike."""
        return f"{policy_name(self.rules)}-v{RULE_TABLE_VERSION}"

    @property
    def is_identity(self) -> bool:
        return not self.rules

    def __call__(self, slot_key: str, value: str) -> str:
        cache = self._cache
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


# --------------------------------------------------------------------------- unset values

UnsetTest = Callable[[str], bool]


def _unset_empty(_words: frozenset[str]) -> UnsetTest:
    return lambda value: not value


def _unset_blank(_words: frozenset[str]) -> UnsetTest:
    return lambda value: not value.strip()


def _unset_words(words: frozenset[str]) -> UnsetTest:
    longest = max(map(len, words), default=0)

    def test(value: str) -> bool:
        stripped = value.strip()
        return len(stripped) <= longest and stripped.lower() in words
    return test


def _blank_or_words(words: frozenset[str]) -> UnsetTest:
    longest = max(map(len, words), default=0)

    def test(value: str) -> bool:
        stripped = value.strip()
        return not stripped or (len(stripped) <= longest and stripped.lower() in words)
    return test


def _unset_none(_words: frozenset[str]) -> UnsetTest:
    return lambda value: value == "none"


UNSET_RULES: dict[str, Callable[[frozenset[str]], UnsetTest]] = {
    "empty": _unset_empty,
    "blank": _unset_blank,
    "words": _unset_words,
    "none": _unset_none,
}
"""Unset rules by name (module docstring); each builds a test from the corpus's words."""


class Unset:
    """Which predicted values leave a slot unset for a profile: ``+``-joined
    :data:`UNSET_RULES` (``"blank+words"``) and the corpus's unset ``words`` (compared
    with ``value.strip().lower()``; used by the ``words`` rule), and ``literal``: one
    string unset exactly as written (a prediction format's marker for an unset slot, such
    as LDST's ``NONE``: ``None`` stays a value, as in that format's own postprocessing)."""

    __slots__ = ("rules", "words", "literal", "test")

    def __init__(self, rules: str = "blank", words: Iterable[str] = (),
                 literal: str | None = None) -> None:
        names = [part.strip() for part in rules.split("+") if part.strip()]
        unknown = [name for name in names if name not in UNSET_RULES]
        if unknown:
            raise ValueError(f"unknown unset rule {unknown[0]!r} (known: "
                             f"{', '.join(UNSET_RULES)})")
        self.rules = "+".join(names)
        self.words = frozenset(word.strip().lower() for word in words)
        tests = [UNSET_RULES[name](self.words) for name in names
                 if name != "words" or self.words]
        if set(names) >= {"blank", "words"} and self.words and len(names) == 2:
            tests = [_blank_or_words(self.words)]  # the strict profile's rule, one strip
        if not tests:
            test: UnsetTest = _never
        elif len(tests) == 1:
            test = tests[0]
        elif len(tests) == 2:
            first, second = tests
            test = lambda value: first(value) or second(value)  # noqa: E731
        else:
            test = lambda value: any(t(value) for t in tests)  # noqa: E731
        self.literal = literal
        if literal is not None:
            rule_test = test
            test = lambda value: value == literal or rule_test(value)  # noqa: E731
        self.test: UnsetTest = test

    def __repr__(self) -> str:
        literal = f", literal={self.literal!r}" if self.literal is not None else ""
        return f"Unset({self.rules!r}, words={sorted(self.words)!r}{literal})"

    def __call__(self, value: str) -> bool:
        """True when ``value`` (as the file wrote it) leaves its slot unset."""
        return self.test(value)

    @property
    def signature(self) -> str:
        words = ",".join(sorted(self.words)) if "words" in self.rules else ""
        return f"{self.rules}({words})-v{RULE_TABLE_VERSION}" if words else \
            f"{self.rules}-v{RULE_TABLE_VERSION}"

    def items(self, state: Mapping[str, str] | None,
              duplicates: Mapping[str, tuple[str, ...]] | None = None
              ) -> list[tuple[str, str]]:
        """The set slots of a predicted state, ``[(key, value as written), ...]`` in state
        order: unset values left out; a repeated slot (``duplicates``: its later values)
        takes its first value that is not unset."""
        if not state:
            return []
        test = self.test
        if not duplicates:
            return [(key, value) for key, value in state.items() if not test(value)]
        out = []
        for key, value in state.items():
            if test(value):
                value = next((v for v in duplicates.get(key, ()) if not test(v)), None)
                if value is None:
                    continue
            out.append((key, value))
        return out


def _never(_value: str) -> bool:
    return False
