"""Every turn's gold and predicted state as integer item ids, for the vectorised table.

:func:`~.state_tracks.track_columns` compares states as integers: each distinct slot key,
gold value (a tuple of variants) and predicted string gets an id the first time it is seen,
and each distinct ``(slot, value)`` item an item id; a turn's state is then the list of its
item ids, in the state's own order. Interning an item is one dict lookup (the item's type is
checked once, when it is first seen); every string or tuple comparison of the per-turn loop
then happens once per distinct value or pair of values, not once per turn.

Only plain states are coded: ``dict`` states, ``str`` keys, gold values that are tuples of
``str``, predicted values that are ``str``. Anything else (a nested state, a gold value
given as a string or list, a non-string value) raises :class:`NotCodable` and the caller
takes the general per-turn loop of :func:`~.state_compare.turn_table`, which also words the
errors of bad input.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from itertools import chain

import numpy as np
from dst_eval.metrics.change_counts import gold_changed

_DICTS = frozenset({dict})


class NotCodable(Exception):
    """A state these codes do not cover; the general per-turn loop scores it."""


class Interner(dict):
    """A dict that makes the value of a missing key with ``make`` (once per distinct key);
    looking up a key seen before is a plain dict lookup."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[Hashable], int]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: Hashable) -> int:
        value = self[key] = self.make(key)
        return value


class StateCodes:
    """The interned slots, values and items of one table's states, and its turns' item ids.

    Gold items ``(slot, variants)`` and predicted items ``(slot, value)`` have separate item
    ids (the :class:`Interner` pair of :meth:`interners`); an item id of -1 in a turn's list
    is an item left out (the strict profile's ``--dontcare ignore``).
    :attr:`gold_rows` and :attr:`pred_rows` hold each turn's list (turns that share a state
    object share one list).
    """

    def __init__(self) -> None:
        self.slot_ids: dict[str, int] = {}
        self.string_ids: dict[str, int] = {}  # predicted values and single gold variants
        self.gold_value_ids: dict[tuple[str, ...], int] = {}
        self.single: list[int] = []
        """Gold value id -> the string id of its one variant; -1 for 0 or 2+ variants."""
        self.gold_item_slot: list[int] = []
        self.gold_item_value: list[int] = []
        self.pred_item_slot: list[int] = []
        self.pred_item_value: list[int] = []
        self.gold_rows: list[list[int]] = []
        self.pred_rows: list[list[int]] = []

    # ---- interning ----------------------------------------------------------------------
    def interners(self) -> tuple[Interner, Interner]:
        """The gold and the predicted item interners that add to these codes (one pair per
        codes; the codes do not keep them: a cycle would outlive a CLI run, which runs
        without the cyclic collector)."""
        return Interner(self._new_gold_item), Interner(self._new_pred_item)

    def _slot(self, key: object) -> int:
        return _string_id(self.slot_ids, key)

    def _string(self, value: object) -> int:
        return _string_id(self.string_ids, value)

    def _new_gold_item(self, item: tuple[str, tuple[str, ...]]) -> int:
        key, variants = item
        value = self.gold_value_ids.get(variants)
        if value is None:
            if type(variants) is not tuple or not all(type(v) is str for v in variants):
                raise NotCodable
            value = self.gold_value_ids[variants] = len(self.gold_value_ids)
            self.single.append(self._string(variants[0]) if len(variants) == 1 else -1)
        self.gold_item_slot.append(self._slot(key))
        self.gold_item_value.append(value)
        return len(self.gold_item_value) - 1

    def _new_pred_item(self, item: tuple[str, str]) -> int:
        key, value = item
        self.pred_item_slot.append(self._slot(key))
        self.pred_item_value.append(self._string(value))
        return len(self.pred_item_value) - 1

    # ---- building -----------------------------------------------------------------------
    @classmethod
    def of_dicts(cls, y_true: Sequence[Mapping], y_pred: Sequence[Mapping | None],
                 present: np.ndarray) -> StateCodes | None:
        """The codes of :func:`~.state_compare.turn_table`'s inputs (a turn not
        ``present`` has no predicted items); None when a state is not codable."""
        if not _DICTS.issuperset(map(type, y_true)):
            return None
        codes = cls()
        gold_items, pred_items = codes.interners()
        gold_item, pred_item = gold_items.__getitem__, pred_items.__getitem__
        shared: dict[int, list[int]] = {}  # id(state) -> its items: turns that share a state
        try:
            for state in y_true:
                ids = shared.get(id(state))
                if ids is None:
                    ids = shared[id(state)] = list(map(gold_item, state.items()))
                codes.gold_rows.append(ids)
            for state, given in zip(y_pred, present.tolist(), strict=True):
                if not given or not state:
                    codes.pred_rows.append([])
                elif type(state) is dict:
                    codes.pred_rows.append(list(map(pred_item, state.items())))
                else:
                    return None
        except (NotCodable, TypeError):  # TypeError: an unhashable value (a list)
            return None
        return codes

    def multi_match(self, gold_values: np.ndarray, strings: np.ndarray) -> np.ndarray:
        """Whether each predicted string is one of its gold value's variants (for gold
        values without exactly one variant; one test per distinct pair)."""
        values, texts = list(self.gold_value_ids), list(self.string_ids)
        return pairwise(gold_values, strings, lambda g, s: texts[s] in values[g])

    def disjoint(self, before: np.ndarray, now: np.ndarray) -> np.ndarray:
        """Whether distinct gold values ``before`` and ``now`` are a change, by the rule of
        :func:`~.change_counts.gold_changed`: they share no variant (one test per distinct
        pair)."""
        values = list(self.gold_value_ids)
        return pairwise(before, now, lambda a, b: gold_changed(values[a], values[b]))


def _string_id(ids: dict[str, int], text: object) -> int:
    """The id of string ``text`` in ``ids`` (a new one the first time); another type of
    value is :class:`NotCodable`."""
    found = ids.get(text)  # type: ignore[call-overload]
    if found is None:
        if type(text) is not str:
            raise NotCodable
        found = ids[text] = len(ids)
    return found


def pairwise(left: np.ndarray, right: np.ndarray, test: Callable[[int, int], bool]
             ) -> np.ndarray:
    """``test(left[i], right[i])`` for every i (non-negative ids), called once per
    distinct pair."""
    if not len(left):
        return np.zeros(0, dtype=bool)
    width = int(right.max()) + 1
    pairs, inverse = np.unique(left * width + right, return_inverse=True)
    results = np.fromiter((test(p // width, p % width) for p in pairs.tolist()), dtype=bool,
                          count=len(pairs))
    return results[inverse]


def flat_ids(rows: Iterable[list[int]], n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's item ids concatenated, and the row of each; ids of -1 left out."""
    rows = list(rows)
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=n_rows)
    ids = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=int(lengths.sum()))
    row_of = np.repeat(np.arange(n_rows), lengths)
    kept = ids >= 0
    if not kept.all():
        ids, row_of = ids[kept], row_of[kept]
    return ids, row_of
