"""What the DST metric functions do to states before comparing them (the CLI's strict rules).

Every public DST metric function (``joint_goal_accuracy``, ``slot_f1``, ...) takes the
same keyword-only options and passes its inputs through :func:`canonical_states`, so it
gives the number the CLI's ``strict`` profile gives on the same data:

================== ================= ==================================================
option             default           effect
================== ================= ==================================================
``norm``           ``"basic-v1"``    value policy of :mod:`~dst_eval.metrics.normalization`
                                     (the ``--norm`` syntax, optionally with the rule
                                     table version ``-v1``): ``basic`` = strip, collapse
                                     whitespace, lower-case, on gold variants and
                                     predictions alike. ``"exact"`` compares values as
                                     given.
``keys``           ``"lower"``       slot-key spelling on both sides, split on the first
                                     ``-``: ``lower`` = domain and slot lower-cased,
                                     whitespace removed (``"Hotel-Price Range"`` =
                                     ``"hotel-pricerange"``: the MultiWOZ key policy);
                                     ``strip`` = whitespace around domain and slot
                                     removed (the CLI's ``keep`` policy, SGD);
                                     ``exact`` = as given (``verbatim``: CJK corpora).
                                     ``+gold-case`` after the policy: then a predicted
                                     key that is not a key of ``y_true`` but equals one
                                     ignoring case is spelled as ``y_true`` spells it
                                     (the first in sorted order when several do), as
                                     the CLI's alignment does (``"strip+gold-case"``:
                                     ``Cafes_1-City`` = ``Cafes_1-city``); see below
``aliases``        ``None``          extra key spellings ``{alias: canonical key}`` (both
                                     spelled by ``keys`` first), e.g. a corpus config's
                                     ``[slot_aliases]`` table (``"train-leave"``).
``unset``          ``"blank+words"`` which values leave a slot unset (dropped, on both
                                     sides): the rules of :class:`Unset`; ``""`` = none
``unset_words``    ``none``,         the words of the ``words`` rule (MultiWOZ's
                   ``not mentioned`` ``[values] unset``; compared after ``strip().lower()``);
                                     a list: one string is a ``TypeError``
``multi_value_slots`` ``()``         slots the ``multi-value-sort`` rule sorts
``zero_division``  ``"raise"``       when a metric is undefined (no turns, or no turn it
                                     counts): ``"raise"`` raises :class:`UndefinedMetric`
                                     (a ``ValueError``); a finite number is returned
                                     instead
================== ================= ==================================================

States may be flat (``{"hotel-area": "north"}``) or nested (``{"hotel": {"area":
"north"}}``); a gold value is a string or a sequence of acceptable variants. A slot
spelled twice (after key spelling) takes its first value that is set, in the order the
CLI's reader reads a state (a nested domain's slots in the domain's place:
:func:`~dst_eval.metrics.state_items.flat_items`). A value that is
not a string is a ``TypeError`` naming its turn and slot.

``+gold-case`` uses every key of ``y_true`` (every turn, set or unset values alike) as the
gold's keys; the CLI uses every key its gold set knows (the corpus slot list, the schema and
the states of every dialogue), so a predicted key matching a key outside ``y_true`` keeps
its spelling here (:func:`dst_eval.metric_options` lists what else differs). When a turn
writes one slot in spellings it merges, the gold's own spelling is read first, then the
others in state order, and the first value that is set is the slot's.

``None`` in ``y_pred`` means the turn was not predicted: it is scored wrong for every
statistic, whatever its gold, as the CLI's default ``--missing wrong`` scores a missing
turn (:func:`~dst_eval.metrics.state_compare.turn_table`); ``{}`` is a prediction of the
empty state (the CLI's ``--missing empty``). ``None`` in ``y_true`` is a ``ValueError``
naming the turn: a gold turn has a state (``{}`` when empty).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, TypedDict

from dst_eval.metrics.base import Metric, TurnTable, check_words, string_set
from dst_eval.metrics.normalization import RULE_TABLE_VERSION, Normalizer, Unset
from dst_eval.metrics.state_compare import turn_table
from dst_eval.metrics.state_items import NO_GOLD_STATE, flat_items, gold_variants

DEFAULT_NORM = f"basic-v{RULE_TABLE_VERSION}"
DEFAULT_UNSET = "blank+words"
DEFAULT_UNSET_WORDS = ("none", "not mentioned")
GOLD_CASE = "+gold-case"
KEY_POLICIES = ("lower", "strip", "exact", "lower" + GOLD_CASE, "strip" + GOLD_CASE,
                "exact" + GOLD_CASE)
"""The values of the ``keys`` option (module docstring)."""
_WHITESPACE = re.compile(r"\s+")


class UndefinedMetric(ValueError):
    """A metric whose denominator is 0 (no turns, or no turn it counts) under
    ``zero_division="raise"``."""


def resolve_zero_division(value: float, *, metric: str, zero_division: str | float,
                          reason: str = "no turns, or no turn it counts") -> float:
    """``value``, or when it is undefined (nan) the ``zero_division`` value or an error."""
    if value == value:  # not nan
        return value
    if zero_division == "raise":
        raise UndefinedMetric(f"{metric} is undefined ({reason}); pass zero_division=0.0 "
                              "(or another number) to get that value instead")
    check_zero_division(zero_division)
    return float(zero_division)


def check_zero_division(zero_division: str | float) -> None:
    """``"raise"`` or a finite number (a bool, nan or an infinity is a ``ValueError``)."""
    if zero_division != "raise" and (isinstance(zero_division, bool)
                                     or not isinstance(zero_division, int | float)
                                     or not math.isfinite(zero_division)):
        raise ValueError(f"zero_division must be 'raise' or a finite number, got "
                         f"{zero_division!r}")


@lru_cache(maxsize=64)
def normalizer(norm: str, multi_value_slots: frozenset[str] = frozenset()) -> Normalizer:
    """The :class:`Normalizer` of ``norm`` (``"basic"`` or ``"basic-v1"``); another rule-table
    version than this one's is a ``ValueError``."""
    if not isinstance(norm, str):
        raise ValueError(f"norm must be a policy name such as 'basic-v1' or 'exact', got {norm!r}")
    try:
        return Normalizer(norm, multi_value_slots)  # a "-v<N>" suffix: policy_rules checks it
    except ValueError as exc:
        raise ValueError(f"norm {norm!r}: {exc}") from None


def _spell_lower(key: str) -> str:
    domain, dash, slot = key.partition("-")
    if not dash:
        return _WHITESPACE.sub("", key).lower()
    return f"{_WHITESPACE.sub('', domain).lower()}-{_WHITESPACE.sub('', slot).lower()}"


def _spell_strip(key: str) -> str:
    domain, dash, slot = key.partition("-")
    return f"{domain.strip()}-{slot.strip()}" if dash else key.strip()


_SPELLERS = {"lower": _spell_lower, "strip": _spell_strip, "exact": str}


def _key_speller(keys: str, aliases: Mapping[str, str] | None):
    if not isinstance(keys, str) or keys not in KEY_POLICIES:
        raise ValueError(f"keys must be one of {KEY_POLICIES}, got {keys!r}")
    if aliases is not None and not isinstance(aliases, Mapping):
        raise TypeError(f"aliases must be a mapping {{alias: canonical key}}, got "
                        f"{aliases!r:.80}")
    for pair in (aliases or {}).items():
        if not all(isinstance(key, str) for key in pair):
            raise TypeError(f"aliases: {pair[0]!r:.60} -> {pair[1]!r:.60} is not a pair of "
                            "slot-key strings")
    spell = _SPELLERS[keys.removesuffix(GOLD_CASE)]
    table = {spell(a): spell(t) for a, t in (aliases or {}).items()}
    cache: dict[str, str] = {}

    def canonical(key: str) -> str:
        out = cache.get(key)
        if out is None:
            spelled = spell(key)
            out = cache[key] = table.get(spelled, spelled)
        return out
    return canonical


Items = list[tuple[str, Any]]


def gold_case(known: Iterable[str]) -> Callable[[Items], Items]:
    """The ``+gold-case`` step (the CLI's ``dst_eval.slotkeys.GoldSpellings`` on ``known``,
    the gold's keys): ``items`` with each key that is not in ``known`` but equals a key of
    it ignoring case (``str.lower``) spelled as that key -- the first in sorted order when
    several do --, these items after the others (a slot's own spelling is read first)."""
    known = frozenset(known)
    by_lower: dict[str, str] = {}
    for key in sorted(known):
        by_lower.setdefault(key.lower(), key)
    cache: dict[str, str] = {}

    def respell(items: Items) -> Items:
        kept: Items = []
        moved: Items = []
        for key, value in items:
            gold = cache.get(key)
            if gold is None:
                gold = cache[key] = key if key in known else by_lower.get(key.lower(), key)
            if gold == key:
                kept.append((key, value))
            else:
                moved.append((gold, value))
        return kept + moved if moved else kept
    return respell


def _check_str(value: Any, row: int, key: str, side: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{side} turn {row}, slot {key!r}: value {value!r} is not a string")
    return value


def canonical_states(
    y_true: Sequence[Mapping], y_pred: Sequence[Mapping | None], *,
    norm: str = DEFAULT_NORM, keys: str = "lower", aliases: Mapping[str, str] | None = None,
    unset: str = DEFAULT_UNSET, unset_words: Iterable[str] = DEFAULT_UNSET_WORDS,
    multi_value_slots: Iterable[str] = (),
) -> tuple[list[dict[str, tuple[str, ...]]], list[dict[str, str] | None]]:
    """Gold states as ``{key: (variant, ...)}`` and predicted states as ``{key: value}``,
    keys spelled, unset values dropped (rule applied to the value as given) and values
    normalised, as the strict profile does (module docstring). A ``None`` predicted state
    (turn not predicted) stays ``None``; a ``None`` gold state is a ``ValueError``."""
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} turns but y_pred has {len(y_pred)}")
    check_words(unset_words, "unset_words")
    check_words(multi_value_slots, "multi_value_slots", "slot keys")
    norm_fn = normalizer(norm, frozenset(multi_value_slots))
    spell = _key_speller(keys, aliases)
    is_unset = Unset(unset, unset_words).test
    gold_out: list[dict[str, tuple[str, ...]]] = []
    pred_out: list[dict[str, str] | None] = []
    gold_keys: set[str] = set()
    for row, state in enumerate(y_true):
        if state is None:
            raise ValueError(f"y_true turn {row}: {NO_GOLD_STATE}")
        gold: dict[str, tuple[str, ...]] = {}
        for key, value in flat_items(state):
            key = spell(_check_str(key, row, key, "gold"))
            gold_keys.add(key)
            kept = [v for v in gold_variants(key, value, row) if not is_unset(v)]
            if kept and key not in gold:
                gold[key] = norm_fn.variants(key, kept)
        gold_out.append(gold)
    respell = gold_case(gold_keys) if keys.endswith(GOLD_CASE) else None
    for row, state in enumerate(y_pred):
        if state is None:
            pred_out.append(None)
            continue
        items = [(spell(_check_str(key, row, key, "predicted")), value)
                 for key, value in flat_items(state)]
        pred: dict[str, str] = {}
        for key, value in items if respell is None else respell(items):
            if key not in pred and not is_unset(_check_str(value, row, key, "predicted")):
                pred[key] = norm_fn(key, value)
        pred_out.append(pred)
    return gold_out, pred_out


def canonical_requested(y_true: Sequence[Iterable[str]],
                        y_pred: Sequence[Iterable[str] | None], *, keys: str = "exact",
                        aliases: Mapping[str, str] | None = None
                        ) -> tuple[list[set[str]], list[set[str] | None]]:
    """Requested slots (each turn a set or list of ``"domain-slot"`` keys) spelled by
    ``keys`` and ``aliases`` as :func:`canonical_states` spells state keys; ``+gold-case``
    takes the requested slots of ``y_true`` as the gold's keys. A ``None`` predicted turn
    stays ``None``; a turn that is not a collection of strings is a ``TypeError``."""
    spell = _key_speller(keys, aliases)
    gold = [set(map(spell, string_set(turn, row, "y_true", "requested slots")))
            for row, turn in enumerate(y_true)]
    respell = gold_case(set().union(*gold)) if keys.endswith(GOLD_CASE) else None
    pred: list[set[str] | None] = []
    for row, turn in enumerate(y_pred):
        if turn is None:
            pred.append(None)
            continue
        items = [(spell(key), None) for key in string_set(turn, row, "y_pred", "requested slots")]
        pred.append({key for key, _ in (items if respell is None else respell(items))})
    return gold, pred


class StateOptions(TypedDict, total=False):
    """The keyword options of every DST metric function (module docstring)."""

    norm: str
    keys: str
    aliases: Mapping[str, str] | None
    unset: str
    unset_words: Iterable[str]
    multi_value_slots: Iterable[str]


def canonical_table(y_true: Sequence[Mapping], y_pred: Sequence[Mapping | None],
                    options: StateOptions, **table_options: Any) -> TurnTable:
    """:func:`turn_table` of the :func:`canonical_states` of the inputs."""
    gold, pred = canonical_states(y_true, y_pred, **options)
    table_options.setdefault("fga_lambdas", ())
    return turn_table(gold, pred, **table_options)


def metric_value(metric: Metric, table: TurnTable, zero_division: str | float) -> float:
    """``metric`` on ``table``; an undefined value goes through :func:`resolve_zero_division`."""
    check_zero_division(zero_division)
    if not len(table):  # no input: undefined for every metric (never a convention value)
        return resolve_zero_division(float("nan"), metric=metric.name,
                                     zero_division=zero_division, reason="no turns")
    return resolve_zero_division(metric.score(table), metric=metric.name,
                                 zero_division=zero_division, reason="no turn it counts")
