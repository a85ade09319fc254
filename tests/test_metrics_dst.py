"""DST metric functions on plain Python data, with values computed by hand.

The two "hypothetical" dialogues reproduce the GCA paper's toy examples (SCORERS.md
§11.5): their published JGA / RSA / AGA / TA / FGA values are the expected numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest
from dst_eval.metrics import (
    active_intent_accuracy,
    average_goal_accuracy,
    dst_metrics,
    flexible_goal_accuracy,
    joint_goal_accuracy,
    relative_slot_accuracy,
    requested_slots_precision_recall_f1,
    slot_accuracy,
    slot_error_counts,
    slot_f1_turn_macro,
    slot_precision_recall_f1,
    turn_accuracy,
    turn_table,
)
from dst_eval.metrics.optional_columns import intent_columns, requested_columns

INTERNET = "hotel-internet"
PARKING = "hotel-parking"

# p1: six turns; internet=yes from turn 0, parking=yes added in the last turn, predicted "no".
P1_GOLD = [{INTERNET: "yes"}] * 5 + [{INTERNET: "yes", PARKING: "yes"}]
P1_PRED = [{INTERNET: "yes"}] * 5 + [{INTERNET: "yes", PARKING: "no"}]
# p2: internet wrong from turn 0 and carried; the later parking change is right.
P2_GOLD = P1_GOLD
P2_PRED = [{INTERNET: "no"}] * 5 + [{INTERNET: "no", PARKING: "yes"}]
IDS = ["d"] * 6


def pct(x: float) -> float:
    return round(100 * x, 2)


def test_gca_hypothetical_p1():
    assert pct(joint_goal_accuracy(P1_GOLD, P1_PRED)) == 83.33
    assert pct(relative_slot_accuracy(P1_GOLD, P1_PRED)) == 91.67
    assert pct(relative_slot_accuracy(P1_GOLD, P1_PRED, average="micro")) == 85.71
    assert pct(average_goal_accuracy(P1_GOLD, P1_PRED)) == 91.67
    assert pct(turn_accuracy(P1_GOLD, P1_PRED, dialogue_ids=IDS)) == 83.33
    fga = flexible_goal_accuracy(P1_GOLD, P1_PRED, dialogue_ids=IDS)
    assert [pct(v) for v in fga.values()] == [83.33] * 4


def test_gca_hypothetical_p2():
    assert joint_goal_accuracy(P2_GOLD, P2_PRED) == 0.0
    assert pct(relative_slot_accuracy(P2_GOLD, P2_PRED)) == 8.33
    assert pct(relative_slot_accuracy(P2_GOLD, P2_PRED, average="micro")) == 14.29
    assert pct(average_goal_accuracy(P2_GOLD, P2_PRED)) == 8.33
    assert pct(turn_accuracy(P2_GOLD, P2_PRED, dialogue_ids=IDS)) == 83.33
    fga = flexible_goal_accuracy(P2_GOLD, P2_PRED, dialogue_ids=IDS)
    assert [pct(v) for v in fga.values()] == [41.47, 59.75, 68.76, 73.70]
    # the same, from the formula: turns 1..5 inherit the turn-0 error
    expected = sum(1 - math.exp(-0.5 * t) for t in range(1, 6)) / 6
    assert fga[0.5] == pytest.approx(expected, abs=1e-12)


def test_gold_variants_and_empty_turns():
    gold = [{}, {"hotel-area": ["centre", "center"]}, {"hotel-area": ("centre",)}]
    pred = [{}, {"hotel-area": "center"}, {"hotel-area": "center"}]
    assert joint_goal_accuracy(gold, pred) == pytest.approx(2 / 3)
    # empty/empty is correct for JGA and per-turn F1, excluded from AGA and default RSA
    assert slot_f1_turn_macro(gold, pred) == pytest.approx(2 / 3)
    assert average_goal_accuracy(gold, pred) == pytest.approx(1 / 2)
    assert relative_slot_accuracy(gold, pred) == pytest.approx(1 / 2)
    assert relative_slot_accuracy(gold, pred, empty_turns="zero") == pytest.approx(1 / 3)
    assert relative_slot_accuracy(gold, pred, empty_turns="one") == pytest.approx(2 / 3)


def test_micro_precision_recall_f1_and_slot_accuracy():
    gold = [{"a-x": "1", "a-y": "2"}, {"a-x": "1", "a-y": "2", "b-z": "3"}]
    pred = [{"a-x": "1", "a-w": "9"}, {"a-x": "1", "a-y": "5", "b-z": "3"}]
    # turn 0: correct 1, missing 1 (a-y), extra 1 (a-w); turn 1: correct 2, wrong 1
    precision, recall, f1 = slot_precision_recall_f1(gold, pred)
    tp, fp, fn = 3, 1 + 1, 1 + 1
    assert precision == pytest.approx(tp / (tp + fp))
    assert recall == pytest.approx(tp / (tp + fn))
    assert f1 == pytest.approx(2 * precision * recall / (precision + recall))
    # TRADE slot accuracy with N = 30: a wrong value counts once
    assert slot_accuracy(gold, pred, slots=[f"s{i}" for i in range(30)]) == pytest.approx(
        ((30 - 2) / 30 + (30 - 1) / 30) / 2)
    assert joint_goal_accuracy(gold, pred) == 0.0


def test_precision_recall_conventions_on_empty_input():
    assert slot_precision_recall_f1([{}], [{}]) == (1.0, 1.0, 1.0)
    assert slot_precision_recall_f1([{"a-x": "1"}], [{}]) == (0.0, 0.0, 0.0)


def test_turn_accuracy_counts_deletions():
    gold = [{"a-x": "1"}, {}]
    pred_keeps = [{"a-x": "1"}, {"a-x": "1"}]
    pred_deletes = [{"a-x": "1"}, {}]
    assert turn_accuracy(gold, pred_keeps, dialogue_ids=["d", "d"]) == 0.5
    assert turn_accuracy(gold, pred_deletes, dialogue_ids=["d", "d"]) == 1.0


def test_change_metrics_restart_per_dialogue():
    gold = [{"a-x": "1"}, {"a-x": "1"}]
    pred = [{"a-x": "2"}, {"a-x": "2"}]
    # one dialogue: the second turn inherits the error (TA passes, FGA partial credit)
    assert turn_accuracy(gold, pred, dialogue_ids=["d", "d"]) == 0.5
    # two dialogues: each error is new (TA fails both, FGA = 0)
    assert turn_accuracy(gold, pred, dialogue_ids=["d", "e"]) == 0.0
    assert flexible_goal_accuracy(gold, pred, dialogue_ids=["d", "e"])[1.0] == 0.0


def test_intents_and_requested_slots():
    assert active_intent_accuracy([{"hotel": "find_hotel"}, {}, {"taxi": "book_taxi"}],
                                  [{"hotel": "find_hotel"}, {"x": "y"}, None]) == 0.5
    p, r, f = requested_slots_precision_recall_f1([{"hotel-phone"}, set()],
                                                  [{"hotel-phone", "hotel-area"}, None])
    assert (p, r) == (0.5, 1.0)
    assert f == pytest.approx(2 / 3)


class _FreshRows(Sequence):
    """Rows made anew at each access, freed after use: an id of one row can be another's."""

    def __init__(self, rows: list) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i):
        row = self.rows[i]
        return None if row is None else type(row)(row)


def test_optional_columns_count_pooled_and_fresh_rows_alike():
    """Rows that are one pooled object (as loaders give them) are counted once per pair of
    objects; rows made anew at each access give the same columns as their lists (their
    ids are reused: the counting keeps the objects, so no row takes another's counts)."""
    rng = np.random.default_rng(3)
    slots = ["a-x", "a-y", "b-z"]
    pool = [frozenset(s for s in slots if rng.random() < 0.5) for _ in range(4)]
    req_true = [pool[i] for i in rng.integers(0, 4, 300)]
    req_pred = [None if rng.random() < 0.1 else pool[i] for i in rng.integers(0, 4, 300)]
    intents = [{}, {"a": "find"}, {"a": "book"}, {"a": "find", "b": "go"}]
    int_true = [intents[i] for i in rng.integers(0, 4, 300)]
    int_pred = [None if rng.random() < 0.1 else intents[i] for i in rng.integers(0, 4, 300)]
    present = rng.random(300) < 0.9
    req = requested_columns(req_true, req_pred, present)
    fresh = requested_columns(_FreshRows([set(r) for r in req_true]),
                              _FreshRows([None if r is None else set(r) for r in req_pred]),
                              present)
    ints = intent_columns(int_true, int_pred, present)
    ints_fresh = intent_columns(_FreshRows(int_true), _FreshRows(int_pred), present)
    for row in range(300):  # by construction, row by row
        gold, pred = req_true[row], req_pred[row] or frozenset()
        hits = len(gold & pred) if present[row] else 0
        f1 = (0.0 if not present[row] else 1.0 if not gold and not pred
              else 2 * hits / (len(gold) + len(pred)))
        expected = (hits, len(pred) - hits if present[row] else 0, len(gold) - hits, f1)
        for cols in (req, fresh):
            assert tuple(cols[k][row] for k in ("req_tp", "req_fp", "req_fn", "req_f1")) \
                == pytest.approx(expected)
        right = present[row] and all((int_pred[row] or {}).get(s) == i
                                     for s, i in int_true[row].items())
        for cols in (ints, ints_fresh):
            assert cols["intent_n"][row] == (1.0 if int_true[row] else 0.0)
            assert cols["intent_correct"][row] == (1.0 if int_true[row] and right else 0.0)


def test_error_counts_by_slot_and_domain():
    gold = [{"hotel-area": "north", "hotel-stars": "4"}, {"taxi-leaveat": "10:00"}]
    pred = [{"hotel-area": "south", "hotel-name": "x"}, {"taxi-leaveat": "10:00"}]
    by_slot = slot_error_counts(gold, pred)
    assert by_slot["hotel-area"]["wrong"] == 1
    assert by_slot["hotel-stars"]["missing"] == 1
    assert by_slot["hotel-name"]["extra"] == 1
    assert by_slot["taxi-leaveat"]["correct"] == 1
    by_domain = slot_error_counts(gold, pred, by="domain")
    assert by_domain["hotel"]["errors"] == 3
    assert by_domain["taxi"]["errors"] == 0


def test_dialogue_sums_give_the_same_score_as_turn_sums():
    gold = P1_GOLD + P2_GOLD
    pred = P1_PRED + P2_PRED
    table = turn_table(gold, pred, dialogue_ids=["p1"] * 6 + ["p2"] * 6)
    for metric in dst_metrics(n_slots=30):
        per_dialogue = table.dialogue_sums(metric.columns)
        totals = {k: v.sum() for k, v in per_dialogue.items()}
        assert metric.from_sums(totals) == pytest.approx(metric.score(table), nan_ok=True)
        # vectorised over resamples: each row of the index matrix is one resample
        rows = np.array([[0, 1], [0, 0], [1, 1]])
        stacked = {k: v[rows].sum(axis=1) for k, v in per_dialogue.items()}
        values = metric.from_sums(stacked)
        assert np.shape(values) == (3,)


def test_inputs_are_not_mutated():
    gold = [{"a-x": ["1", "2"]}]
    pred = [{"a-x": "2"}]
    snapshot = (repr(gold), repr(pred))
    joint_goal_accuracy(gold, pred)
    assert (repr(gold), repr(pred)) == snapshot


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError):
        joint_goal_accuracy([{}], [])


def test_a_gold_variant_list_that_grows_is_no_change():
    """SGD / MultiWOZ 2.2 gold adds a spelling the system echoed (``["9:30 am"]`` ->
    ``["9:30 am", "half past 9"]``) without any change by the user: turn accuracy, FGA and
    GCA score it as the control that lists both spellings from the start. By construction:
    turn 0 time wrong (a change, missed), turn 1 nothing changes (the wrong time is carried),
    turn 2 area added and right."""
    time, area = "restaurant-time", "restaurant-area"
    both = ("9:30 am", "half past 9")
    growing = [{time: ("9:30 am",)}, {time: both}, {time: both, area: ("north",)}]
    control = [{time: both}, {time: both}, {time: both, area: ("north",)}]
    pred = [{time: "10 am"}, {time: "10 am"}, {time: "10 am", area: "north"}]
    ids = ["d"] * 3
    for gold in (growing, control):
        table = turn_table(gold, pred, dialogue_ids=ids, fga_lambdas=(1.0,))
        assert table.columns["ta"].tolist() == [0, 1, 1]
        assert table.columns["gca_wrong"].tolist() == [1, 0, 0]
        assert table.columns["gca_correct"].tolist() == [0, 0, 1]
        assert turn_accuracy(gold, pred, dialogue_ids=ids) == pytest.approx(2 / 3)
        assert flexible_goal_accuracy(gold, pred, dialogue_ids=ids, lambdas=(1.0,))[1.0] == \
            pytest.approx((0 + (1 - math.exp(-1)) + (1 - math.exp(-2))) / 3, abs=1e-12)
    # a value that does change (no spelling in common) is still a change
    changed = [{time: ("9:30 am",)}, {time: ("10 am",)}, {time: ("10 am",), area: ("north",)}]
    table = turn_table(changed, pred, dialogue_ids=ids, fga_lambdas=(1.0,))
    assert table.columns["ta"].tolist() == [0, 1, 1]  # the prediction meets the new value
    assert table.columns["gca_correct"].tolist() == [0, 1, 1]
