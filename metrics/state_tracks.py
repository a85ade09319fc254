"""The per-turn columns of :func:`~.state_compare.turn_table` computed on arrays.

Exact matching only (``value_match`` None), on states coded as integers
(:class:`~.state_codes.StateCodes`). The columns and their edge cases are those of the
per-turn loop (:mod:`.state_compare`'s module docstring), which stays the reference: the
tests compare the two on random inputs.

The layout: a *track* is one slot of one dialogue (every slot that any gold or predicted
state of the dialogue has), a *cell* is a track at one turn of its dialogue. Cells are laid
out track by track, each track's turns in order, so that the cell before a cell is the
same slot at the previous turn (unless the cell is its track's first). Each cell holds the
gold value id and the predicted string id of that slot at that turn (-1: not in the
state). Every column is then an element-wise test on cells followed by a count per turn:
on MultiWOZ 2.1 test (7,372 turns, 65k cells) the table with its slot outcomes takes 16 ms
(9 ms without) where the per-turn loop took 86 ms (75 ms), plus 20 ms to code the states.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from dst_eval.metrics.change_counts import change_count_columns, previous
from dst_eval.metrics.state_codes import StateCodes, flat_ids

CORRECT, WRONG, MISSING, EXTRA = "correct", "wrong", "missing", "extra"


class Cells(NamedTuple):
    """The cells of a table (module docstring): per cell its turn, track and values."""

    row: np.ndarray
    """The turn (row of the table) of each cell."""
    first: np.ndarray
    """True on each track's first cell (the dialogue's first turn)."""
    track_slot: np.ndarray
    """Slot id of each track."""
    track: np.ndarray
    """Track of each cell."""
    gold: np.ndarray
    """Gold value id of each cell, -1 where the slot is not in the gold state."""
    pred: np.ndarray
    """Predicted string id of each cell, -1 where the slot is not predicted."""
    gold_cell: np.ndarray
    """The cell of each gold item (in the order of :func:`~.state_codes.flat_ids`)."""
    pred_cell: np.ndarray
    """The cell of each predicted item."""
    start: np.ndarray
    """The first cell of each track."""
    turns: np.ndarray
    """The number of cells of each track (its dialogue's turns)."""


def layout(codes: StateCodes, index: np.ndarray, present: np.ndarray
           ) -> tuple[Cells, tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The cells of the coded states, with the gold and the predicted items (ids, rows);
    the predicted items of turns not ``present`` are left out."""
    n = len(index)
    gold_ids, gold_row = flat_ids(codes.gold_rows, n)
    pred_ids, pred_row = flat_ids(codes.pred_rows, n)
    keep = present[pred_row]
    if not keep.all():
        pred_ids, pred_row = pred_ids[keep], pred_row[keep]
    gold_slot = np.asarray(codes.gold_item_slot, dtype=np.int64)[gold_ids]
    pred_slot = np.asarray(codes.pred_item_slot, dtype=np.int64)[pred_ids]
    # dialogues are consecutive and numbered in order: the first row of each, and its length
    starts, position = turn_positions(index)
    lengths = np.diff(starts, append=n)
    n_slots = max(len(codes.slot_ids), 1)
    keys = np.concatenate([index[gold_row] * n_slots + gold_slot,
                           index[pred_row] * n_slots + pred_slot])
    tracks, track_of = unique(keys, (int(index[-1]) + 1 if n else 0) * n_slots)
    track_dialogue, track_slot = np.divmod(tracks, n_slots)
    turns = lengths[track_dialogue]
    start = np.cumsum(turns) - turns
    n_cells = int(turns.sum())
    track = np.repeat(np.arange(len(tracks)), turns)
    offset = np.arange(n_cells) - start[track]
    row = starts[track_dialogue][track] + offset
    cell_of = start[track_of] + position[np.concatenate([gold_row, pred_row])]
    gold_cell, pred_cell = cell_of[:len(gold_ids)], cell_of[len(gold_ids):]
    gold = np.full(n_cells, -1, dtype=np.int64)
    gold[gold_cell] = np.asarray(codes.gold_item_value, dtype=np.int64)[gold_ids]
    pred = np.full(n_cells, -1, dtype=np.int64)
    pred[pred_cell] = np.asarray(codes.pred_item_value, dtype=np.int64)[pred_ids]
    cells = Cells(row, offset == 0, track_slot, track, gold, pred, gold_cell, pred_cell,
                  start, turns)
    return cells, (gold_ids, gold_row), (pred_ids, pred_row)


def fga_column(lam: float) -> str:
    """The per-turn column of FGA at ``lam`` (both table paths, :mod:`.fga`)."""
    return f"fga@{lam:g}"


def turn_positions(index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first row of each dialogue (numbered in order, turns consecutive) and each turn's
    position in its dialogue."""
    if not len(index):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.diff(index, prepend=-1))
    return starts, np.arange(len(index)) - starts[index]


def unique(keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` of keys in [0, size): by a bitmap of the
    keys when ``size`` is not much more than their number (no sort: 1.8 -> 0.3 ms on
    MultiWOZ 2.1 test's 81k items)."""
    if size > 4 * len(keys) + 65536:
        return np.unique(keys, return_inverse=True)
    seen = np.zeros(size, dtype=bool)
    seen[keys] = True
    return np.flatnonzero(seen), (np.cumsum(seen) - 1)[keys]


def matches(codes: StateCodes, gold: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Per cell: a gold value and a predicted string, the string one of the variants."""
    both = np.flatnonzero((gold >= 0) & (pred >= 0))
    single = np.asarray(codes.single, dtype=np.int64)[gold[both]]
    ok = single == pred[both]
    multi = np.flatnonzero(single < 0)
    if len(multi):
        ok[multi] = codes.multi_match(gold[both][multi], pred[both][multi])
    out = np.zeros(len(gold), dtype=bool)
    out[both[ok]] = True
    return out


def gold_changes(codes: StateCodes, gold: np.ndarray, before: np.ndarray) -> np.ndarray:
    """Per cell: the slot is in the gold state and is a change from the previous turn (it
    was not there, or its variants share none with the previous ones)."""
    changed = (gold >= 0) & (before != gold)
    both = np.flatnonzero(changed & (before >= 0))
    single = np.asarray(codes.single, dtype=np.int64)
    multi = both[(single[gold[both]] < 0) | (single[before[both]] < 0)]
    if len(multi):  # two single values that differ share no variant
        changed[multi] = codes.disjoint(before[multi], gold[multi])
    return changed


def per_row(cells: Cells, mask: np.ndarray, n: int) -> np.ndarray:
    """The number of ``mask`` cells of each row."""
    return np.bincount(cells.row[mask], minlength=n)


def fga_terms(jga: np.ndarray, fga_ok: np.ndarray, position: np.ndarray,
              numbers: np.ndarray | None, lambdas: Sequence[float]) -> list[np.ndarray]:
    """FGA's term per λ: 1 on a correct turn; 0 on a turn with a new error (the first
    turn, after a correct turn, or a failed change test), which sets t_err; else
    1 − exp(−λ·(t − t_err)), with ``math.exp`` once per distinct age (as the loop)."""
    n = len(jga)
    prev_jga = np.ones(n, dtype=bool)
    prev_jga[1:] = jga[:-1]
    new_error = ~jga & ((position == 0) | prev_jga | ~fga_ok)
    last_error = np.maximum.accumulate(np.where(new_error, np.arange(n), -1)) if n else jga
    clock = position if numbers is None else numbers
    aged = np.flatnonzero(~jga & ~new_error)
    ages, age_of = np.unique(clock[aged] - clock[last_error[aged]], return_inverse=True)
    terms = []
    for lam in lambdas:
        column = jga.astype(float)
        column[aged] = np.array([1.0 - math.exp(-lam * age) for age in ages.tolist()],
                                dtype=float)[age_of]
        terms.append(column)
    return terms


def track_columns(codes: StateCodes, index: np.ndarray, present: np.ndarray,
                  lambdas: Sequence[float], numbers: np.ndarray | None,
                  outcomes: list | None, names: Sequence[str], record: type
                  ) -> dict[str, np.ndarray]:
    """The columns of the per-turn loop (``names`` first, in that order, then the FGA,
    final, domain and unpredicted columns); ``outcomes`` receives one ``record`` per slot
    per turn, as there (``names`` and ``record`` are :mod:`.state_compare`'s
    ``COLUMN_NAMES`` and ``SlotOutcome``, passed in: that module imports this one)."""
    n = len(index)
    cells, gold_items, pred_items = layout(codes, index, present)
    gold, pred, first = cells.gold, cells.pred, cells.first
    in_gold, in_pred = gold >= 0, pred >= 0
    match = matches(codes, gold, pred)
    correct = per_row(cells, match, n)
    wrong = per_row(cells, in_gold & in_pred & ~match, n)
    missing = per_row(cells, in_gold & ~in_pred, n)
    extra = per_row(cells, in_pred & ~in_gold, n)
    n_gold, n_pred = correct + wrong + missing, correct + wrong + extra
    errors = wrong + missing + extra
    tstar = correct + errors
    jga = (errors == 0) & present
    f1 = np.zeros(n)
    both_empty = (n_gold == 0) & (n_pred == 0)
    f1[both_empty] = 1.0
    some = np.flatnonzero((correct > 0) & ~both_empty)
    f1[some] = 2 * correct[some] / (n_gold[some] + n_pred[some])
    f1[~present] = 0.0

    gold_before, pred_before = previous(gold, first), previous(pred, first)
    gold_changed = gold_changes(codes, gold, gold_before)
    pred_changed = in_pred & (pred_before != pred)
    failed = (gold_changed | pred_changed) & ~match
    was_gold, was_pred = gold_before >= 0, pred_before >= 0
    deleted_badly = (was_gold & ~in_gold & in_pred) | (was_pred & ~in_pred & in_gold)
    fga_ok = (per_row(cells, failed, n) == 0) & present
    ta = fga_ok & (per_row(cells, deleted_badly, n) == 0)

    cols = dict(zip(names, (
        np.ones(n), n_gold, n_pred, correct, wrong, missing, extra, jga, f1,
        _ratio(correct, n_gold, n_gold > 0), (n_gold > 0),
        _ratio(correct, tstar, tstar > 0), (tstar > 0) | ~present, tstar, ta,
        _ratio(correct, tstar + wrong, n_gold > 0),
        *change_count_columns(cells, match, gold_changed, present, n)), strict=True))
    cols = {name: np.asarray(column, dtype=np.float64) for name, column in cols.items()}
    position = turn_positions(index)[1]
    for lam, term in zip(lambdas, fga_terms(jga, fga_ok, position, numbers, lambdas),
                         strict=True):
        cols[fga_column(lam)] = term
    final = np.zeros(n)
    if n:
        final[np.flatnonzero(np.diff(index, append=-1) != 0)] = 1.0
    cols["final"], cols["final_jga"] = final, final * cols["jga"]
    errs = (in_gold | in_pred) & ~match
    cols.update(_domain_columns(codes, cells, errs, index, present))
    cols["unpredicted"] = (~present).astype(float)
    cols["unpredicted_gold"] = cols["unpredicted"] * cols["n_gold"]
    if outcomes is not None:
        outcomes += _outcomes(codes, cells, match, gold_items, pred_items, record)
    return cols


def _ratio(num: np.ndarray, den: np.ndarray, where: np.ndarray) -> np.ndarray:
    """``num / den`` where ``where``, else 0.0."""
    out = np.zeros(len(num))
    np.divide(num, den, out=out, where=where)
    return out


def _domain_columns(codes: StateCodes, cells: Cells, errs: np.ndarray, index: np.ndarray,
                    present: np.ndarray) -> dict[str, np.ndarray]:
    """``dom_turn:d`` and ``dom_jga:d`` for each domain d of a gold slot, in name order."""
    domains: dict[str, int] = {}
    slot_domain = np.array([domains.setdefault(key.partition("-")[0], len(domains))
                            for key in codes.slot_ids], dtype=np.int64)
    track_domain = slot_domain[cells.track_slot]
    track_dialogue = index[cells.row[cells.start]]
    has_gold = np.zeros(len(cells.track_slot), dtype=bool)
    has_gold[cells.track[cells.gold >= 0]] = True
    gold_tracks = np.flatnonzero(has_gold)
    has_domain = np.zeros(len(domains), dtype=bool)  # not np.unique: it imports numpy.ma
    has_domain[track_domain[gold_tracks]] = True      # (40 ms in a CLI run)
    gold_domains = np.flatnonzero(has_domain)  # the columns, one per domain
    column_of = np.full(len(domains), -1)
    column_of[gold_domains] = np.arange(len(gold_domains))
    n_dialogues = int(index[-1]) + 1 if len(index) else 0
    involved = np.zeros((n_dialogues, len(gold_domains)), dtype=bool)
    involved[track_dialogue[gold_tracks], column_of[track_domain[gold_tracks]]] = True
    bad = np.zeros((len(index), len(gold_domains)), dtype=bool)
    err_column = column_of[track_domain[cells.track[errs]]]
    bad[cells.row[errs][err_column >= 0], err_column[err_column >= 0]] = True
    names = list(domains)
    cols: dict[str, np.ndarray] = {}
    for column in sorted(range(len(gold_domains)), key=lambda c: names[gold_domains[c]]):
        name = names[gold_domains[column]]
        seen = involved[index, column].astype(float)
        ok = seen.copy()
        ok[bad[:, column] | ~present] = 0.0
        cols[f"dom_turn:{name}"], cols[f"dom_jga:{name}"] = seen, ok
    return cols


def _outcomes(codes: StateCodes, cells: Cells, match: np.ndarray,
              gold_items: tuple[np.ndarray, np.ndarray],
              pred_items: tuple[np.ndarray, np.ndarray], record: type) -> list:
    """One ``record(row, slot, outcome, gold variants, predicted value)`` per slot per turn:
    a turn's gold slots in its state's order, then its extra predicted slots."""
    gold_ids, gold_row = gold_items
    pred_ids, pred_row = pred_items
    at_gold = cells.pred[cells.gold_cell]  # the predicted string of each gold slot
    kind = np.where(at_gold < 0, 2, np.where(match[cells.gold_cell], 0, 1))
    extra = np.flatnonzero(cells.gold[cells.pred_cell] < 0)
    slot_ids = np.asarray(codes.gold_item_slot, dtype=np.int64)[gold_ids]
    rows, gold_of, pred_of = gold_row, cells.gold[cells.gold_cell], at_gold
    if len(extra):  # each turn's extra slots after its gold slots
        order = np.argsort(np.concatenate([2 * gold_row, 2 * pred_row[extra] + 1]),
                           kind="stable")
        rows = np.concatenate([gold_row, pred_row[extra]])[order]
        slot_ids = np.concatenate([slot_ids, np.asarray(codes.pred_item_slot, dtype=np.int64)[
            pred_ids[extra]]])[order]
        kind = np.concatenate([kind, np.full(len(extra), 3)])[order]
        gold_of = np.concatenate([gold_of, np.full(len(extra), -1)])[order]
        pred_of = np.concatenate([pred_of, cells.pred[cells.pred_cell[extra]]])[order]
    kinds = np.array([CORRECT, WRONG, MISSING, EXTRA], dtype=object)
    slots, values = _objects(codes.slot_ids), _objects(codes.gold_value_ids)
    strings = _objects(codes.string_ids)
    return list(map(record, rows.tolist(), slots[slot_ids].tolist(), kinds[kind].tolist(),
                    values[gold_of].tolist(), strings[pred_of].tolist()))


def _objects(ids: dict) -> np.ndarray:
    """The keys of ``ids`` (in id order) as an object array, then None: index -1 is None."""
    out = np.empty(len(ids) + 1, dtype=object)
    for position, key in enumerate(ids):
        out[position] = key
    return out
