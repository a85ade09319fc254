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
``keys``           ``"lower"``       slot-key spelling on both sides: ``lower`` = domain
                                     and slot lower-cased, whitespace removed, split on
                                     the first ``-`` (``"Hotel-Price Range"`` =
                                     ``"hotel-pricerange"``: the MultiWOZ key policy);
                                     ``"exact"`` keeps keys as given.
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
:func:`~dst_eval.metrics.state_compare.flat_items`). A value that is
not a string is a ``TypeError`` naming its turn and slot.

``None`` in ``y_pred`` means the turn was not predicted: it is scored wrong for every
statistic, whatever its gold, as the CLI's default ``--missing wrong`` scores a missing
turn (:func:`~dst_eval.metrics.state_compare.turn_table`); ``{}`` is a prediction of the
empty state (the CLI's ``--missing empty``). ``None`` in ``y_true`` is a ``ValueError``
naming the turn: a gold turn has a state (``{}`` when empty).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, TypedDict

from dst_eval.metrics.base import Metric, TurnTable, check_words
from dst_eval.metrics.normalization import RULE_TABLE_VERSION, Normalizer, Unset
from dst_eval.metrics.state_compare import NO_GOLD_STATE, flat_items, gold_variants, turn_table

DEFAULT_NORM = f"basic-v{RULE_TABLE_VERSION}"
DEFAULT_UNSET = "blank+words"
DEFAULT_UNSET_WORDS = ("none", "not mentioned")
KEY_POLICIES = ("lower", "exact")
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


def _key_speller(keys: str, aliases: Mapping[str, str] | None):
    if keys not in KEY_POLICIES:
        raise ValueError(f"keys must be one of {KEY_POLICIES}, got {keys!r}")
    if aliases is not None and not isinstance(aliases, Mapping):
        raise TypeError(f"aliases must be a mapping {{alias: canonical key}}, got "
                        f"{aliases!r:.80}")
    for pair in (aliases or {}).items():
        if not all(isinstance(key, str) for key in pair):
            raise TypeError(f"aliases: {pair[0]!r:.60} -> {pair[1]!r:.60} is not a pair of "
                            "slot-key strings")
    spell = _spell_lower if keys == "lower" else str
    table = {spell(a): spell(t) for a, t in (aliases or {}).items()}
    cache: dict[str, str] = {}

    def canonical(key: str) -> str:
        out = cache.get(key)
        if out is None:
            spelled = spell(key)
            out = cache[key] = table.get(spelled, spelled)
        return out
    return canonical


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
    for row, state in enumerate(y_true):
        if state is None:
            raise ValueError(f"y_true turn {row}: {NO_GOLD_STATE}")
        gold: dict[str, tuple[str, ...]] = {}
        for key, value in flat_items(state):
            key = spell(_check_str(key, row, key, "gold"))
            kept = [v for v in gold_variants(key, value, row) if not is_unset(v)]
            if kept and key not in gold:
                gold[key] = norm_fn.variants(key, kept)
        gold_out.append(gold)
    for row, state in enumerate(y_pred):
        if state is None:
            pred_out.append(None)
            continue
        pred: dict[str, str] = {}
        for key, value in flat_items(state):
            key = spell(_check_str(key, row, key, "predicted"))
            if key not in pred and not is_unset(_check_str(value, row, key, "predicted")):
                pred[key] = norm_fn(key, value)
        pred_out.append(pred)
    return gold_out, pred_out


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
