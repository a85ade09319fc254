"""One pass over the turns that computes every per-turn DST statistic column.

Notation (SCORERS.md §0): for turn t of a dialogue, B_t / P_t are the gold / predicted
states; T_t = B_t \\ B_{t-1} and U_t = P_t \\ P_{t-1} are the gold / predicted changes,
a deleted slot counting as the item ``(slot, "")``.

Columns (all numpy arrays, one entry per turn):

============== ==============================================================
``turn``       1
``n_gold``     |B_t|                  ``n_pred``  |P_t|
``correct``    slots in both whose predicted value is a gold variant
``wrong``      slots in both with a non-matching value
``missing``    slots only in B_t      ``extra``   slots only in P_t
``jga``        1[missing = extra = wrong = 0]
``f1``         per-turn slot F1: 1 if B_t = P_t = ∅; 0 if correct = 0; else 2PR/(P+R)
               with P = correct/|P_t|, R = correct/|B_t|
``aga_num``    correct/|B_t| if |B_t| > 0 else 0;   ``aga_den`` 1[|B_t| > 0]
``rsa_num``    correct/T* if T* > 0 else 0, T* = correct+wrong+missing+extra (distinct
               slots in B_t ∪ P_t);  ``rsa_den`` 1[T* > 0];  ``rsa_tstar`` T*
``ta``         turn accuracy 1[U_t ⊆ B_t ∧ T_t ⊆ P_t], deletions included (ConvLab-3)
``fga@λ``      flexible goal accuracy term f_t(λ) for each requested λ in (0, 1], Dey et al.'s
               change test (additions and value changes only; see
               :mod:`~dst_eval.metrics.fga`)
``iaga_num``   |B_t ∩ P_t| / |B_t ∪ P_t| over (slot, value) items if |B_t| > 0 else 0
               (a wrong value is two items of the union)
``final``      1 on the last turn of each dialogue; ``final_jga`` = final · jga
``gca_*``      ``gca_correct``, ``gca_wrong``, ``gca_over``, ``gca_missed``: counts of
               this turn's state changes (:mod:`~dst_eval.metrics.gca`)
``dom_turn:d`` 1 on every turn of a dialogue whose gold states have a slot of
               domain d (the key before its first ``-``) at some turn;
               ``dom_jga:d`` 1 when, in addition, B_t and P_t restricted to d agree
============== ==============================================================

States may be flat (``{"hotel-area": "north"}``) or nested by domain
(``{"hotel": {"area": "north"}}``); nested states are flattened to ``"domain-slot"``.

``unpredicted`` 1 on a turn without prediction (``predicted`` mask False);
               ``unpredicted_gold`` |B_t| on such a turn, else 0

A turn marked not predicted (``predicted[row]`` False, or ``y_pred[row]`` None: a missing
dialogue or turn under ``missing: wrong``) is wrong for every statistic with a notion of
correctness, whatever its gold: its predicted state is empty,
``jga = f1 = ta = iaga_num = rsa_num = 0``, ``rsa_den = 1`` (counted even when B_t = ∅),
``rsa_tstar = |B_t|`` (every gold slot a miss), ``fga@λ = 0`` (a new error: t_err = t),
every domain of its dialogue fails ``dom_jga``, requested slots score ``req_f1 = 0`` with
every requested slot a miss, and its active intents are wrong, every gold change of it is
a GCA miss. The next turn's changes are taken against an empty previous prediction.

Two computations give these columns. With the default exact matching and plain states
(``dict`` states with ``str`` keys, gold values that are tuples of strings, predicted values
that are strings) the states are coded as integers (:mod:`~.state_codes`) and every column
is computed on arrays (:mod:`~.state_tracks`: 85 -> 15 ms on MultiWOZ 2.1 test's 7,372
turns, 240 -> 95 ms on SGD dev's 24,363). Any other input (a ``value_match``, nested states,
gold values given as strings or lists, bad input and its errors) takes the per-turn loop
below, the reference the tests compare the arrays with.

Optional inputs add ``req_tp``, ``req_fp``, ``req_fn``, ``req_f1`` (requested slots;
per-turn F1 is 1 when both sets are empty) and ``intent_correct``, ``intent_n``
(active intents: the turn is correct when the predicted intent of every service
with a gold intent equals it; turns without a gold intent are not counted).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain
from numbers import Real
from typing import Any, NamedTuple

import numpy as np
from dst_eval.metrics.base import GoldState, PredState, TurnTable
from dst_eval.metrics.change_counts import GCA_COLUMNS, ChangeCounter, gold_changed
from dst_eval.metrics.optional_columns import intent_columns, requested_columns
from dst_eval.metrics.state_codes import StateCodes
from dst_eval.metrics.state_items import NO_GOLD_STATE, flat_state, gold_variants, predicted_slots
from dst_eval.metrics.state_tracks import (
    CORRECT,
    EXTRA,
    MISSING,
    WRONG,
    fga_column,
    track_columns,
)
from msgspec import Struct

ValueMatch = Callable[[str, tuple[str, ...]], bool]

_TUPLES = frozenset({tuple})
_STRS = frozenset({str})
_INTS = frozenset({int})
COLUMN_NAMES = ("turn", "n_gold", "n_pred", "correct", "wrong", "missing", "extra", "jga", "f1",
                "aga_num", "aga_den", "rsa_num", "rsa_den", "rsa_tstar", "ta", "iaga_num",
                *GCA_COLUMNS)
"""The columns of every table, in this order (then ``fga@λ``, ``final``, ``final_jga``, the
domain columns, ``unpredicted``, ``unpredicted_gold``, the optional ones)."""
FGA_LAMBDAS = (0.25, 0.5, 0.75, 1.0)
"""The default λ values of FGA's columns."""


class SlotOutcome(Struct, frozen=True, gc=False):
    """One slot's outcome in one turn, for error breakdowns (a frozen :class:`msgspec.Struct`:
    one per slot per turn, ~0.2 µs to build where a frozen dataclass takes ~3 µs)."""

    row: int
    slot: str
    outcome: str  # correct | wrong | missing | extra
    gold: tuple[str, ...] | None
    pred: str | None


def _exact(pred: str, variants: tuple[str, ...]) -> bool:
    return pred in variants


def _change_tests(b_prev: Mapping, b_now: Mapping, p_prev: Mapping, p_now: Mapping,
                  match: ValueMatch) -> tuple[bool, bool]:
    """``(fga_ok, ta_ok)`` for one turn.

    ``fga_ok`` is Dey et al.'s (B_t − B_{t-1}) ⊆ P_t and (P_t − P_{t-1}) ⊆ B_t on
    (slot, value) items: only additions and value changes are changes (gold variant lists
    that share a value are one value: :func:`~.change_counts.gold_changed`). ``ta_ok`` (turn
    accuracy, ConvLab-3) also requires every deletion on one side to be one on the other.
    """
    for slot, variants in b_now.items():
        before = b_prev.get(slot)
        if before != variants and (before is None or gold_changed(before, variants)):
            pred = p_now.get(slot)
            if pred is None or not match(pred, variants):
                return False, False
    for slot, value in p_now.items():
        if p_prev.get(slot) != value:
            variants = b_now.get(slot)
            if variants is None or not match(value, variants):
                return False, False
    deletions_ok = (all(slot in b_now or slot not in p_now for slot in b_prev)
                    and all(slot in p_now or slot not in b_now for slot in p_prev))
    return True, deletions_ok


def _dialogue_numbers(dialogue_ids: Sequence[str] | None, n: int) -> tuple[np.ndarray, list[str]]:
    """Each turn's dialogue number (0, 1, ... in first-seen order) and the dialogue ids;
    a dialogue whose turns are not consecutive is a ``ValueError``."""
    if dialogue_ids is None:
        return np.zeros(n, dtype=np.int64), ["all"] if n else []
    if isinstance(dialogue_ids, str | bytes):
        raise TypeError(f"dialogue_ids must be a list of ids, one per turn: {dialogue_ids!r:.80}")
    if len(dialogue_ids) != n:
        raise ValueError(f"dialogue_ids has {len(dialogue_ids)} entries for {n} turns")
    numbers = {d: number for number, d in enumerate(dict.fromkeys(dialogue_ids))}
    index = np.fromiter(map(numbers.__getitem__, dialogue_ids), dtype=np.int64, count=n)
    back = np.flatnonzero(np.diff(index) < 0)  # numbered in first-seen order: a return
    if len(back):
        row = int(back[0]) + 1
        before = int(np.flatnonzero(index[:row] == index[row])[-1])
        raise ValueError(f"dialogue_ids: the turns of dialogue {dialogue_ids[row]!r} are not "
                         f"consecutive (rows {before} and {row} have other dialogues between "
                         "them); give each dialogue's turns together and in order")
    return index, list(numbers)


def turn_table(
    y_true: Sequence[GoldState],
    y_pred: Sequence[PredState | None],
    *,
    dialogue_ids: Sequence[str] | None = None,
    fga_lambdas: Iterable[float] = FGA_LAMBDAS,
    value_match: ValueMatch | None = None,
    requested_true: Sequence[Iterable[str]] | None = None,
    requested_pred: Sequence[Iterable[str] | None] | None = None,
    intents_true: Sequence[Mapping[str, str]] | None = None,
    intents_pred: Sequence[Mapping[str, str] | None] | None = None,
    outcomes: list[SlotOutcome] | None = None,
    predicted: Sequence[bool] | np.ndarray | None = None,
    turn_numbers: Sequence[int] | None = None,
) -> TurnTable:
    """Compute every per-turn statistic column in one pass.

    ``dialogue_ids`` gives each turn's dialogue (turns of a dialogue consecutive and in
    order: a dialogue whose turns are not consecutive is a ``ValueError``); without it all
    turns form one dialogue, which only matters for the change-based metrics (turn accuracy,
    FGA). ``outcomes``, when a list is passed, receives one :class:`SlotOutcome` per slot
    per turn. ``predicted`` (one bool per turn, default all True) marks the turns that have
    no prediction: each is wrong for every statistic (module docstring); its ``y_pred``
    entry is ignored. A ``None`` entry of ``y_pred`` marks its turn not predicted too (the
    CLI's ``--missing wrong``; ``{}`` is a prediction, of the empty state); a ``None`` entry
    of ``y_true`` is a ``ValueError`` naming the turn (a gold turn has a state). A gold
    value is a string or a sequence of strings (its variants), a predicted value a string,
    or ``None`` for a slot not predicted (left out, whatever the gold:
    :func:`~.state_items.predicted_slots`); another value, or a key that is not a string,
    is the ``TypeError`` of :func:`~.canonical.canonical_states` naming the turn and slot.
    ``turn_numbers`` (default: each turn's position in its dialogue) gives each turn's
    number in its dialogue, for FGA's error age t − t_err: with turns left out of the rows
    (``--missing skip``) the age counts the dialogue's turns, as the FGA authors' code
    (``int(turn)``) does.
    """
    n = len(y_true)
    if len(y_pred) != n:
        raise ValueError(f"y_true has {n} turns but y_pred has {len(y_pred)}")
    present = _predicted_mask(predicted, n)
    not_given = [row for row, state in enumerate(y_pred) if state is None]
    if not_given:  # None: not predicted, as a False in ``predicted``
        present = present.copy()
        present[not_given] = False
    setup = _Setup.of(n, present, dialogue_ids, fga_lambdas, turn_numbers)
    cols = None
    if value_match is None:  # exact matching: the vectorised table where the states allow
        codes = StateCodes.of_dicts(y_true, y_pred, present)
        if codes is not None:
            cols = setup.coded_columns(codes, outcomes)
    if cols is None:
        cols = _loop_columns(y_true, y_pred, value_match, setup, outcomes)
    return setup.finish(cols, requested_true, requested_pred, intents_true, intents_pred)


def coded_table(codes: StateCodes, **options: Any) -> TurnTable | None:
    """:func:`turn_table` (exact matching) of states already coded (a profile that codes
    them while it normalises them, :func:`dst_eval.profiles.strict.score`); ``options`` are
    :func:`turn_table`'s keyword arguments but ``value_match``. None when the general loop
    is needed (``turn_numbers`` that are not plain ints): the caller then calls
    :func:`turn_table`."""
    unknown = set(options) - _TABLE_OPTIONS
    if unknown:
        raise TypeError(f"coded_table() got unexpected keyword arguments {sorted(unknown)}")
    n = len(codes.gold_rows)
    setup = _Setup.of(n, _predicted_mask(options.get("predicted"), n),
                      options.get("dialogue_ids"), options.get("fga_lambdas", FGA_LAMBDAS),
                      options.get("turn_numbers"))
    cols = setup.coded_columns(codes, options.get("outcomes"))
    if cols is None:
        return None
    return setup.finish(cols, *(options.get(name) for name in (
        "requested_true", "requested_pred", "intents_true", "intents_pred")))


_TABLE_OPTIONS = frozenset({"dialogue_ids", "fga_lambdas", "requested_true", "requested_pred",
                            "intents_true", "intents_pred", "outcomes", "predicted",
                            "turn_numbers"})
"""The keyword arguments :func:`coded_table` takes (:func:`turn_table`'s but
``value_match``)."""


class _Setup(NamedTuple):
    """What both ways of computing the columns share: the checked options of a table."""

    n: int
    present: np.ndarray
    lambdas: tuple[float, ...]
    index: np.ndarray
    names: list[str]
    numbers: list | None

    @classmethod
    def of(cls, n: int, present: np.ndarray, dialogue_ids: Sequence[str] | None,
           fga_lambdas: Iterable[float], turn_numbers: Sequence[int] | None) -> _Setup:
        lambdas = check_lambdas(fga_lambdas)
        index, names = _dialogue_numbers(dialogue_ids, n)
        numbers = list(turn_numbers) if turn_numbers is not None else None
        if numbers is not None and len(numbers) != n:
            raise ValueError(f"turn_numbers has {len(numbers)} entries for {n} turns")
        return cls(n, present, lambdas, index, names, numbers)

    def coded_columns(self, codes: StateCodes, outcomes: list[SlotOutcome] | None
                      ) -> dict[str, np.ndarray] | None:
        """:func:`~.state_tracks.track_columns`; None when ``turn_numbers`` are not ints
        (of at most 62 bits: the ages are computed in int64)."""
        numbers = None
        if self.numbers is not None and self.n:
            if (not _INTS.issuperset(map(type, self.numbers))
                    or not -2**62 < min(self.numbers) <= max(self.numbers) < 2**62):
                return None
            numbers = np.array(self.numbers, dtype=np.int64)
        return track_columns(codes, self.index, self.present, self.lambdas, numbers, outcomes,
                             COLUMN_NAMES, SlotOutcome)

    def finish(self, cols: dict[str, np.ndarray],
               requested_true: Sequence[Iterable[str]] | None,
               requested_pred: Sequence[Iterable[str] | None] | None,
               intents_true: Sequence[Mapping[str, str]] | None,
               intents_pred: Sequence[Mapping[str, str] | None] | None) -> TurnTable:
        """The table: ``cols`` and the optional requested-slot and intent columns."""
        if requested_true is not None and requested_pred is not None:
            cols.update(requested_columns(requested_true, requested_pred, self.present))
        if intents_true is not None and intents_pred is not None:
            cols.update(intent_columns(intents_true, intents_pred, self.present))
        return TurnTable(cols, self.index, self.names)


def _loop_columns(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None],
                  value_match: ValueMatch | None, setup: _Setup,
                  outcomes: list[SlotOutcome] | None) -> dict[str, np.ndarray]:
    """The columns, turn by turn: any ``value_match``, any state (nested states, gold
    values given as strings or lists), and the errors of bad input."""
    n, present, lambdas, index, numbers = (setup.n, setup.present, setup.lambdas, setup.index,
                                           setup.numbers)
    absent_rows: list[int] = np.flatnonzero(~present).tolist()
    absent = set(absent_rows)
    match = value_match or _exact
    exact = value_match is None  # the default match, inline in the slot loop
    names_ = COLUMN_NAMES
    rows_out = array("d")  # one row of len(names_) floats per turn, no tuple kept
    fga_rows = array("d")  # len(lambdas) floats per turn
    zeros = [0.0] * len(lambdas)
    ones = [1.0] * len(lambdas)

    prev_dialogue = -1
    b_prev: Mapping[str, tuple[str, ...]] = {}
    p_prev: Mapping[str, str] = {}
    prev_jga = True
    t = 0
    t_err = -1
    record = outcomes.append if outcomes is not None else None
    changes = ChangeCounter(match)
    dialogue_of: list[int] = index.tolist()
    bad_rows: dict[str, list[int]] = {}
    dialogue_domains: dict[int, set[str]] = {}
    domain_of: dict[str, str] = {}  # slot key -> domain, the part before the first "-"
    seen_variants: set[tuple[str, ...]] = set()  # gold values checked: tuples of strings

    def _domain(key: str) -> str:
        domain = domain_of.get(key)
        if domain is None:
            if not isinstance(key, str):  # every key of this turn gets here when first seen
                side = "gold" if key in gold else "predicted"
                raise TypeError(f"{side} turn {row}, slot {key!r}: value {key!r} is not a "
                                "string")
            domain = domain_of[key] = key.partition("-")[0]
        return domain
    for row in range(n):
        if y_true[row] is None:
            raise ValueError(f"y_true turn {row}: {NO_GOLD_STATE}")
        raw_gold = flat_state(y_true[row])
        values = raw_gold.values()
        try:  # gold values seen before, all tuples of strings (the strict profile's)
            gold = raw_gold if seen_variants.issuperset(values) else None
        except TypeError:  # an unhashable value (a list)
            gold = None
        if gold is None:
            if (_TUPLES.issuperset(map(type, values))
                    and _STRS.issuperset(map(type, chain.from_iterable(values)))):
                gold = raw_gold
                seen_variants.update(values)
            else:
                gold = {key: gold_variants(key, value, row) for key, value in raw_gold.items()}
        unpredicted = row in absent if absent else False
        pred = {} if unpredicted else predicted_slots(y_pred[row], row)
        dialogue = dialogue_of[row]
        if dialogue != prev_dialogue:
            prev_dialogue, b_prev, p_prev, prev_jga, t, t_err = dialogue, {}, {}, True, 0, -1
            changes.reset()
        correct = wrong = missing = 0
        errs: list[str] = []
        for slot, variants in gold.items():
            value = pred.get(slot)
            if value is None:
                missing += 1
                kind = MISSING
                errs.append(slot)
            elif value in variants if exact else match(value, variants):
                correct += 1
                kind = CORRECT
            else:
                wrong += 1
                kind = WRONG
                errs.append(slot)
            if record is not None:
                record(SlotOutcome(row, slot, kind, variants, value))
        extra = 0
        for slot, value in pred.items():
            if slot not in gold:
                extra += 1
                errs.append(slot)
                if record is not None:
                    record(SlotOutcome(row, slot, EXTRA, None, value))
        if errs:
            for domain in set(map(_domain, errs)):
                bad_rows.setdefault(domain, []).append(row)
        if gold.keys() != b_prev.keys():
            dialogue_domains.setdefault(dialogue, set()).update(map(_domain, gold))
        n_gold, n_pred = len(gold), len(pred)
        errors = wrong + missing + extra
        jga = errors == 0 and not unpredicted
        tstar = correct + errors

        fga_ok, changes_ok = _change_tests(b_prev, gold, p_prev, pred, match)
        if unpredicted:
            fga_ok = changes_ok = False
        if jga:
            fga_rows.extend(ones)
        elif t == 0 or prev_jga or not fga_ok:
            fga_rows.extend(zeros)
            t_err = t if numbers is None else numbers[row]
        else:
            age = t - t_err if numbers is None else numbers[row] - t_err
            fga_rows.extend([1.0 - math.exp(-lam * age) for lam in lambdas])

        if unpredicted:
            f1 = 0.0
        elif n_gold == 0 and n_pred == 0:
            f1 = 1.0
        elif correct:
            f1 = 2 * correct / (n_gold + n_pred)
        else:
            f1 = 0.0
        rows_out.extend((
            1, n_gold, n_pred, correct, wrong, missing, extra, jga, f1,
            correct / n_gold if n_gold else 0.0, 1 if n_gold else 0,
            correct / tstar if tstar else 0.0, 1 if tstar or unpredicted else 0, tstar,
            changes_ok,
            correct / (tstar + wrong) if n_gold else 0.0,
            *changes.step(gold, pred, unpredicted),
        ))
        b_prev, p_prev, prev_jga = gold, pred, jga
        t += 1

    matrix = np.frombuffer(rows_out, dtype=np.float64).reshape(n, len(names_))
    cols = {name: matrix[:, i].copy() for i, name in enumerate(names_)}
    fga_matrix = np.frombuffer(fga_rows, dtype=np.float64).reshape(n, len(lambdas))
    fga_cols = [fga_matrix[:, i].copy() for i in range(len(lambdas))]
    for lam, column in zip(lambdas, fga_cols, strict=True):
        cols[fga_column(lam)] = column
    final = np.zeros(n)
    if n:
        final[np.flatnonzero(np.diff(index, append=-1) != 0)] = 1.0
    cols["final"], cols["final_jga"] = final, final * cols["jga"]
    n_dialogues = int(index.max()) + 1 if n else 0
    for domain in sorted(set().union(*dialogue_domains.values())):
        involved = np.array([domain in dialogue_domains.get(i, ()) for i in range(n_dialogues)])
        seen = involved[index].astype(float)
        ok = seen.copy()
        ok[bad_rows.get(domain, [])] = 0.0
        ok[absent_rows] = 0.0
        cols[f"dom_turn:{domain}"], cols[f"dom_jga:{domain}"] = seen, ok
    cols["unpredicted"] = (~present).astype(float)
    cols["unpredicted_gold"] = cols["unpredicted"] * cols["n_gold"]
    return cols


def _predicted_mask(predicted: Sequence[bool] | np.ndarray | None, n: int) -> np.ndarray:
    """``predicted`` as a boolean array of length ``n`` (all True when None)."""
    if predicted is None:
        return np.ones(n, dtype=bool)
    mask = np.asarray(predicted)
    if mask.shape != (n,) or mask.dtype != np.bool_:
        raise ValueError(f"predicted must be {n} booleans, one per turn")
    return mask


def check_lambdas(lambdas: Iterable[float], name: str = "fga_lambdas") -> tuple[float, ...]:
    """``lambdas`` as floats; each must be a number in (0, 1] (NaN, λ ≤ 0 and λ > 1 are a
    ``ValueError`` worded as :class:`dst_eval.options.EvalOptions` words it)."""
    given = tuple(lambdas)
    if not all(isinstance(x, Real) and not isinstance(x, bool) and 0 < x <= 1 for x in given):
        raise ValueError(f"{name} {given!r}: must be numbers in (0, 1]")
    return tuple(float(x) for x in given)
