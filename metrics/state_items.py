"""The ``(slot, value)`` items of one state as the DST metrics read them.

A state is flat (``{"hotel-area": "north"}``) or nested by domain (``{"hotel": {"area":
"north"}}``, read as ``"hotel-area"``). A gold value is a string or a sequence of strings
(its acceptable variants); a predicted value is one string, or ``None`` for a slot not
predicted. Anything else is a ``TypeError`` naming the turn and the slot (the rule of
:mod:`~.canonical` and of :func:`~.state_compare.turn_table` alike).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

_FLAT_VALUES = frozenset({str, tuple, list})
_STRS = frozenset({str})

NO_GOLD_STATE = "the gold state is None (a gold turn needs a state, {} when empty)"
"""The ``ValueError`` text of a ``None`` gold turn (after ``y_true turn <row>: ``)."""


def flat_items(state: Mapping) -> Iterable[tuple[Any, Any]]:
    """A state's ``(key, value)`` pairs in the order the CLI's reader reads them
    (``dst_eval.predictions.turns``): ``{"domain": {"slot": v}}`` gives ``("domain-slot",
    v)`` in the domain's place. A slot given twice keeps the first value that is set."""
    if _FLAT_VALUES.issuperset(map(type, state.values())):
        return state.items()
    return [pair for key, value in state.items() for pair in (
        [(f"{key}-{slot}", inner) for slot, inner in value.items()]
        if isinstance(value, Mapping) else [(key, value)])]


def flat_state(state: Mapping) -> Mapping:
    """``{"domain": {"slot": v}}`` -> ``{"domain-slot": v}``, a slot given twice keeping its
    first value (:func:`flat_items` order) that is not ``None``; a flat state as is."""
    if _FLAT_VALUES.issuperset(map(type, state.values())):
        return state
    flat: dict = {}
    for key, value in flat_items(state):
        if flat.get(key) is None:
            flat[key] = value
    return flat


def gold_variants(key: str, value: Any, row: int) -> tuple[str, ...]:
    """The variants of one gold slot: a string is one, a sequence of strings its variants;
    a key or value that is not a string (5, None, b"x", a mapping) is a ``TypeError`` naming
    the turn and slot (the metric functions' one rule, :mod:`~.canonical`)."""
    if isinstance(value, str):
        variants: tuple = (value,)
    elif isinstance(value, Iterable) and not isinstance(value, Mapping | bytes | bytearray):
        variants = tuple(value)
    else:  # neither a value nor a list of variants
        variants = (value,)
    for item in (key, *variants):
        if not isinstance(item, str):
            raise TypeError(f"gold turn {row}, slot {key!r}: value {item!r} is not a string")
    return variants


def predicted_slots(state: Mapping, row: int) -> Mapping[str, str]:
    """A predicted state as ``{"domain-slot": value}``: nested domains flattened, a ``None``
    value a slot not predicted (left out, wherever the slot is in the gold: a slot given
    twice takes its first value that is not ``None``, :func:`flat_items` order). A value
    that is neither a string nor ``None`` (``4``, a list) is a ``TypeError`` naming the turn
    and the slot, and so is a state that is not a mapping."""
    if not isinstance(state, Mapping):
        raise TypeError(f"predicted turn {row}: a state must be a mapping {{slot: value}}, "
                        f"got {type(state).__name__} {state!r:.80}")
    if _STRS.issuperset(map(type, state.values())):
        return state  # a key that is not a string: the TypeError of its first use
    flat: dict = {}
    for key, value in flat_items(state):
        if not isinstance(key, str) or not (value is None or isinstance(value, str)):
            bad = key if not isinstance(key, str) else value
            raise TypeError(f"predicted turn {row}, slot {key!r}: value {bad!r} is not a "
                            "string")
        if value is not None and key not in flat:
            flat[key] = value
    return flat
