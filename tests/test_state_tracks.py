"""The vectorised table (``metrics/state_tracks.py``, exact matching on coded states) equals
the per-turn loop, which stays the reference (``turn_table`` with a ``value_match``), on
random inputs built to hit the edge cases: shared and repeated state objects, slots dropped
and re-added, gold values with no, one or several variants (overlapping or not), missing and
extra slots, unpredicted turns (``None`` and the ``predicted`` mask), ``{}`` predictions,
turn numbers out of order, several and no FGA λ; and inputs the codes do not cover
(nested states, gold strings or lists, non-string values), which take the loop.

The strict profile's coded states (``coded_states`` + ``coded_table``) equal the dicts it
builds for breakdowns scored by ``turn_table``, on the samples of every corpus.
"""

from __future__ import annotations

import random
from pathlib import Path

import dst_eval.metrics.state_compare as state_compare
import numpy as np
import pytest
from dst_eval.metrics import turn_table

from dst_eval import evaluate
from dst_eval.corpora import load_gold
from dst_eval.profiles import strict

ROOT = Path(__file__).resolve().parent.parent
SLOTS = ("hotel-area", "hotel-name", "train-day", "taxi", "attraction-type-x", "Hotels_2-x")
VALUES = ("north", "south", "centre", "center", "", "dontcare", "ÉTÉ")


SPLIT = {"multiwoz21": "test", "jmultiwoz": "test"}


def loop(*args, **kwargs):
    """The reference: the per-turn loop (any ``value_match`` takes it)."""
    return turn_table(*args, value_match=lambda value, variants: value in variants, **kwargs)


def assert_same(y_true, y_pred, **kwargs):
    fast_outcomes: list = []
    slow_outcomes: list = []
    fast = turn_table(y_true, y_pred, outcomes=fast_outcomes, **kwargs)
    slow = loop(y_true, y_pred, outcomes=slow_outcomes, **kwargs)
    assert list(fast.columns) == list(slow.columns)
    for name, column in slow.columns.items():
        assert fast.columns[name].dtype == column.dtype, name
        assert np.array_equal(fast.columns[name], column), name
    assert np.array_equal(fast.dialogue_index, slow.dialogue_index)
    assert fast.dialogue_ids == slow.dialogue_ids
    assert fast_outcomes == slow_outcomes


def random_case(rng: random.Random, codable: bool = True):
    """Dialogues of random states (see the module docstring) and the table options."""
    n_dialogues = rng.randint(0, 5)
    y_true, y_pred, ids, numbers = [], [], [], []
    for d in range(n_dialogues):
        gold: dict = {}
        pred: dict | None = {}
        for t in range(rng.randint(1, 7)):
            if rng.random() < 0.7:  # else the previous turn's state object again
                gold = dict(gold)
                for _ in range(rng.randint(0, 3)):
                    slot = rng.choice(SLOTS)
                    if rng.random() < 0.25:
                        gold.pop(slot, None)
                    else:
                        gold[slot] = tuple(rng.sample(VALUES, rng.choice((0, 1, 1, 1, 2, 3))))
            if rng.random() < 0.1:
                pred = None
            elif rng.random() < 0.8 or pred is None:
                pred = dict(pred or {})
                for _ in range(rng.randint(0, 3)):
                    slot = rng.choice(SLOTS)
                    if rng.random() < 0.25:
                        pred.pop(slot, None)
                    elif rng.random() < 0.5 and slot in gold and gold[slot]:
                        pred[slot] = rng.choice(gold[slot])
                    else:
                        pred[slot] = rng.choice(VALUES)
            y_true.append(gold)
            y_pred.append(pred)
            ids.append(f"d{d}")
            numbers.append(rng.choice((t, t, t + 2, -t, 0)))
    if not codable and y_true:
        row = rng.randrange(len(y_true))
        spoiler = rng.choice(({"hotel": {"area": ("north",)}}, {"hotel-area": "north"},
                              {"hotel-area": ["north", "centre"]}))
        y_true[row] = {**y_true[row], **spoiler}
    kwargs: dict = {"dialogue_ids": ids if rng.random() < 0.9 else None}
    if rng.random() < 0.5:
        kwargs["turn_numbers"] = numbers
    if rng.random() < 0.5:
        kwargs["predicted"] = np.array([rng.random() < 0.85 for _ in y_true], dtype=bool)
    kwargs["fga_lambdas"] = rng.choice(((0.25, 0.5, 0.75, 1.0), (), (1.0,), (0.3,)))
    return y_true, y_pred, kwargs


def check_seeds(seeds: range, codable: bool) -> None:
    for seed in seeds:
        y_true, y_pred, kwargs = random_case(random.Random(seed), codable)
        try:
            assert_same(y_true, y_pred, **kwargs)
        except AssertionError as exc:
            raise AssertionError(f"random_case(Random({seed}), {codable})") from exc


def test_vectorised_table_equals_the_loop():
    check_seeds(range(400), codable=True)


def test_states_the_codes_do_not_cover_take_the_loop():
    check_seeds(range(60), codable=False)


def test_edge_cases():
    """No turns; empty states; a value predicted, dropped on one side, then re-added."""
    assert_same([], [])
    assert_same([{}], [{}])
    assert_same([{}], [None])
    gold = [{"a-x": ("1",)}, {}, {"a-x": ("1",)}, {"a-x": ("1", "2")}, {"a-x": ("2",)}]
    pred = [{"a-x": "1"}, {"a-x": "1"}, {}, {"a-x": "2"}, {"b-y": "2"}]
    assert_same(gold, pred, dialogue_ids=["d"] * 5)
    assert_same(gold, pred, dialogue_ids=["d"] * 5, turn_numbers=[0, 3, 1, 7, 7])


def test_turn_numbers_that_are_not_ints_take_the_loop():
    gold = [{"a-x": ("1",)}, {"a-x": ("2",)}, {"a-x": ("3",)}]
    pred = [{"a-x": "1"}, {"a-x": "1"}, {"a-x": "1"}]
    assert_same(gold, pred, turn_numbers=[0.5, 1.5, 4.0])
    assert_same(gold, pred, turn_numbers=[0, 1, 2**70])


@pytest.mark.parametrize("corpus", ["multiwoz21", "multiwoz22", "sgd", "crosswoz", "risawoz",
                                    "jmultiwoz"])
@pytest.mark.parametrize("overrides", [{}, {"dontcare": "ignore", "missing": "empty"},
                                       {"missing": "skip"}])
def test_strict_coded_states_equal_its_dicts(corpus, overrides, monkeypatch):
    """``strict.score`` with its coded states and with the dicts (``coded_states`` None)
    gives the same per-turn columns and slot outcomes (kept for the breakdown by slot)."""
    folder = ROOT / "gold_samples" / corpus
    gold = load_gold(folder, corpus=corpus, split=SPLIT.get(corpus))
    predictions = next(folder.glob("predictions*.json*"), None) or next(
        p for p in folder.iterdir() if p.name.startswith("pred"))
    fast = evaluate(predictions, gold=gold, min_coverage=0.0, by=("slot",), **overrides)
    monkeypatch.setattr(strict, "coded_states", lambda *args: None)
    slow = evaluate(predictions, gold=gold, min_coverage=0.0, by=("slot",), **overrides)
    assert fast.outcomes
    assert list(fast.per_turn) == list(slow.per_turn)
    for name, column in slow.per_turn.items():
        assert np.array_equal(np.asarray(fast.per_turn[name]), np.asarray(column)), name
    assert fast.outcomes == slow.outcomes
    assert fast.scores == pytest.approx(slow.scores, nan_ok=True)


def test_the_loop_is_the_reference_for_custom_matching():
    """A ``value_match`` always takes the loop (no codes are built)."""
    calls = []
    original = state_compare.StateCodes.of_dicts
    try:
        state_compare.StateCodes.of_dicts = classmethod(
            lambda cls, *a: calls.append(a) or original.__func__(cls, *a))
        loop([{"a-x": ("1",)}], [{"a-x": "1"}])
        assert not calls
        turn_table([{"a-x": ("1",)}], [{"a-x": "1"}])
        assert calls
    finally:
        state_compare.StateCodes.of_dicts = original


@pytest.mark.parametrize("size", [10, 10**7])
def test_unique_by_bitmap_or_sort_is_numpy_unique(size):
    from dst_eval.metrics.state_tracks import unique

    rng = np.random.default_rng(size)
    keys = rng.integers(0, 10, 50) * (size // 10)
    for got, want in zip(unique(keys, size), np.unique(keys, return_inverse=True), strict=True):
        assert np.array_equal(got, want)
    assert all(len(part) == 0 for part in unique(np.zeros(0, dtype=np.int64), size))


def test_a_strict_run_does_not_import_numpy_ma():
    """``np.unique`` without ``return_inverse`` imports ``numpy.ma`` (~40 ms of a CLI run
    that never needed it); the vectorised table avoids it."""
    import subprocess
    import sys

    code = ("import sys; from dst_eval import evaluate; "
            f"evaluate({str(ROOT / 'gold_samples' / 'sgd' / 'predictions.json')!r}, "
            f"gold={str(ROOT / 'gold_samples' / 'sgd')!r}, by=('domain', 'slot')); "
            "print('numpy.ma' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_coded_table_takes_turn_tables_keywords_only():
    """``coded_table`` forwards :func:`turn_table`'s keyword arguments; another name (a typo,
    or ``value_match``, which the coded path cannot honour) is a TypeError, not ignored."""
    from dst_eval.metrics.state_codes import StateCodes

    codes = StateCodes.of_dicts([{"a-x": ("1",)}], [{"a-x": "1"}], np.ones(1, dtype=bool))
    table = state_compare.coded_table(codes, dialogue_ids=["d"], fga_lambdas=(0.5,))
    assert table is not None and table.columns["jga"].tolist() == [1.0]
    for name in ("value_match", "dialog_ids"):
        with pytest.raises(TypeError, match=name):
            state_compare.coded_table(codes, **{name: None})
