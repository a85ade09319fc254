"""Per-turn change counts of granular change accuracy (Aksu & Chen 2024, arXiv 2403.11123).

:class:`ChangeCounter` walks one dialogue's turns and counts, per turn, the slot changes
that were predicted correctly, wrongly, over-predicted or missed, as the reference code's
``compute_gca`` loop does (cuthalionn/Granular_Change_Accuracy). It lives apart from
:mod:`.gca` so that the per-turn table (:mod:`.state_compare`) and the metric can both use
it without importing each other. :func:`change_count_columns` applies the same rules to
every turn at once, on the cells of the vectorised table (:mod:`.state_tracks`); the tests
compare the two on random dialogues.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

ValueMatch = Callable[[str, tuple[str, ...]], bool]
GCA_COLUMNS = ("gca_correct", "gca_wrong", "gca_over", "gca_missed", "gca_codel")
CO_DELETION = ("once", "reference")
_ABSENT = object()  # "key not in the previous padded state" (distinct from None = dropped)


def gold_changed(before: object, now: tuple[str, ...] | None) -> bool:
    """Whether a gold slot's variants ``now`` are a change from ``before`` (its variants
    at the previous turn; None: dropped; ``_ABSENT``/missing: not there). Variant lists
    that share a value are the same value: SGD and MultiWOZ 2.2 gold add a spelling the
    system echoed (``["9:30 am"]`` -> ``["9:30 am", "half past 9 in the morning"]``)
    without any change by the user, and FGA, turn accuracy and GCA score the user's
    changes."""
    if before == now:
        return False
    if before is None or now is None or before is _ABSENT:
        return True
    return set(before).isdisjoint(now)  # type: ignore[arg-type]


class ChangeCounter:
    """Per-dialogue state of :func:`compute_gca`'s loop; :meth:`step` gives one turn's counts."""

    __slots__ = ("match", "active_gold", "active_pred", "past_gold", "past_pred", "last")

    def __init__(self, match: ValueMatch) -> None:
        self.match = match
        self.reset()

    def reset(self) -> None:
        self.active_gold: set[str] = set()
        self.active_pred: set[str] = set()
        self.past_gold: dict[str, tuple[str, ...] | None] = {}
        self.past_pred: dict[str, str | None] = {}
        self.last: tuple[Mapping, Mapping] = ({}, {})

    def _same(self, pred: str | None, gold: tuple[str, ...] | None) -> bool:
        if gold is None or pred is None:
            return gold is None and pred is None
        return self.match(pred, gold)

    def step(self, gold: Mapping[str, tuple[str, ...]], pred: Mapping[str, str],
             absent: bool = False) -> tuple[int, int, int, int, int]:
        """``(correct, wrong, over, missed, co_deleted)`` of this turn's changes; the
        reference code's ``missed`` is ``missed + co_deleted``. ``absent``: the turn has
        no prediction (``pred`` is empty): every gold change of it is missed, nothing else
        is counted."""
        if gold == self.last[0] and pred == self.last[1]:
            return 0, 0, 0, 0, 0  # nothing changed on either side
        self.last = (gold, pred)
        self.active_gold.update(gold)
        self.active_pred.update(pred)
        gold_now: dict[str, tuple[str, ...] | None] = dict(gold)
        if len(self.active_gold) != len(gold):
            for key in self.active_gold.difference(gold):
                gold_now[key] = None
        pred_now: dict[str, str | None] = dict(pred)
        if len(self.active_pred) != len(pred):
            for key in self.active_pred.difference(pred):
                pred_now[key] = None
        past_gold, past_pred = self.past_gold, self.past_pred
        gold_get, pred_get = past_gold.get, past_pred.get
        gold_diff = {k: v for k, v in gold_now.items()
                     if (before := gold_get(k, _ABSENT)) != v and gold_changed(before, v)}
        if absent:
            self.past_gold, self.past_pred = gold_now, pred_now
            return 0, 0, 0, len(gold_diff), 0
        pred_diff = {k: v for k, v in pred_now.items() if pred_get(k, _ABSENT) != v}

        correct = wrong = over = missed = codel = 0
        correct_labels: set[str] = set()
        wrong_labels: set[str] = set()
        for label, g in gold_diff.items():
            if label not in pred_now:
                if g is not None:
                    missed += 1
                else:
                    correct += 1
                    correct_labels.add(label)
            elif self._same(pred_now[label], g):
                correct += 1
                correct_labels.add(label)
            elif g is None:
                over += 1
            else:
                wrong += 1
                wrong_labels.add(label)
        for label, p in pred_diff.items():
            if label not in gold_now:
                if p is not None:
                    over += 1
                else:
                    correct += 1
                continue
            same = self._same(p, gold_now[label])
            if same and label not in correct_labels:
                correct += 1
            elif p is None:
                if same:  # dropped by both, already counted correct
                    codel += 1
                else:
                    missed += 1
            elif not same and label not in wrong_labels:
                wrong += 1
        self.past_gold, self.past_pred = gold_now, pred_now
        return correct, wrong, over, missed, codel


NONE, ABSENT = -1, -2  # a cell's state besides a value id: dropped / not there yet


def previous(values: np.ndarray, first: np.ndarray, empty: int = -1) -> np.ndarray:
    """Each cell's value at the previous turn of its track (:mod:`.state_tracks`'s cells,
    laid out track by track), ``empty`` on a track's first cell."""
    out = np.empty_like(values)
    out[1:] = values[:-1]
    out[first] = empty
    return out


def _padded(values: np.ndarray, cells: Any) -> np.ndarray:
    """Each cell's value in :class:`ChangeCounter`'s padded state: the value id, ``NONE``
    once the slot was in an earlier state of the dialogue, ``ABSENT`` before that."""
    present = values >= 0
    seen = np.cumsum(present)
    before = np.repeat((seen - present)[cells.start], cells.turns)  # counts before a track
    return np.where(present, values, np.where(seen - before > 0, NONE, ABSENT))


def change_count_columns(cells: Any, match: np.ndarray, gold_changed: np.ndarray,
                         present: np.ndarray, n: int) -> tuple[np.ndarray, ...]:
    """The five :data:`GCA_COLUMNS` of every turn at once, :meth:`ChangeCounter.step`'s
    rules applied to the cells of :mod:`.state_tracks` (``match``: the predicted string
    is a gold variant; ``gold_changed``: the slot is in the gold state and changed).
    ``gold_diff`` and ``pred_diff`` are the cells of the step's two dicts."""
    gold, pred = _padded(cells.gold, cells), _padded(cells.pred, cells)
    gold_before, pred_before = previous(gold, cells.first, ABSENT), previous(pred, cells.first,
                                                                              ABSENT)
    gold_diff = gold_changed | ((gold == NONE) & (gold_before >= 0))  # changed or dropped
    pred_diff = (pred != ABSENT) & (pred_before != pred)
    gold_none, pred_none = gold == NONE, pred == NONE
    same = match | (gold_none & pred_none)
    no_pred, no_gold = pred == ABSENT, gold == ABSENT
    # the loop over gold_diff
    correct_1 = gold_diff & ((no_pred & gold_none) | (~no_pred & same))
    wrong_1 = gold_diff & ~no_pred & ~same & ~gold_none
    over = gold_diff & ~no_pred & ~same & gold_none
    missed = gold_diff & no_pred & ~gold_none
    # the loop over pred_diff
    rest = pred_diff & ~no_gold
    correct = correct_1 | (pred_diff & no_gold & pred_none) | (rest & same & ~correct_1)
    wrong = wrong_1 | (rest & ~same & ~pred_none & ~wrong_1)
    over = over | (pred_diff & no_gold & ~pred_none)
    missed = missed | (rest & ~same & pred_none)
    codel = rest & same & correct_1 & pred_none

    def count(mask: np.ndarray) -> np.ndarray:
        return np.bincount(cells.row[mask], minlength=n)

    # a turn without prediction: every gold change missed, nothing else counted
    absent = ~present
    columns = [count(correct), count(wrong), count(over), count(missed), count(codel)]
    for column in (0, 1, 2, 4):
        columns[column][absent] = 0
    columns[3][absent] = count(gold_diff)[absent]
    return tuple(columns)
