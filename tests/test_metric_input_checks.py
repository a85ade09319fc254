"""Inputs of the public metric functions that used to be misread, and what they do now.

* a string-set turn (TRADE items, requested slots) given as a mapping or a plain string
  is a ``TypeError`` naming the turn (it was read as its keys, or its characters);
* a word-list option (``unset_words``, ``multi_value_slots``, ``slots``, ``dialogue_ids``,
  domains) given as one string, and ``aliases`` that are not a ``{str: str}`` mapping,
  are a ``TypeError`` (a string was read as its characters);
* a slot given both nested and flat in one state takes its first value that is set, in
  the order the CLI's reader reads a state (the CLI's number);
* an active intent ``NONE`` is no intent, on both sides (the CLI's loaders drop it);
* ``n_slots`` is an int >= 1 (not a bool), ``slots`` a collection of at least one slot;
  a turn of ``slot_accuracy`` counts at most N errors (every slot of the list wrong), so
  the value is in [0, 1];
* ``zero_division`` must be finite;
* ``turn_table`` refuses a predicted value that is neither a string nor ``None`` (a
  ``TypeError`` naming turn and slot, as the functions), reads ``None`` as a slot not
  predicted, and every :class:`Metric` on a table of no turns is nan (slot F1 gave 1.0).

Every number is worked out by hand in the comments.
"""

from __future__ import annotations

import copy
import inspect
import json
import math
from pathlib import Path

import dst_eval.metrics as M
import pytest
from dst_eval.metrics.optional_columns import requested_columns
from dst_eval.metrics.trade_accuracy import TradeSlotAccuracy, trade_slot_errors
from helpers import function_scores

from dst_eval import evaluate, metric_options
from dst_eval.corpora import load_gold

MWOZ22 = Path(__file__).resolve().parent.parent / "gold_samples" / "multiwoz22"


# 1. TRADE string sets

@pytest.mark.parametrize(("gold", "pred", "side", "row"), [
    ([{"hotel-area": "north"}], [{"hotel-area": "south"}], "y_true", 0),
    ([{"hotel-area-north"}], [{"hotel-area": "south"}], "y_pred", 0),
    ([set(), "hotel-area-north"], [set(), {"hotel-area-north"}], "y_true", 1),
    ([{"hotel-area-north"}], ["hotel-area-north"], "y_pred", 0),
    ([{"hotel-area-north"}], [{("hotel", "area", "north")}], "y_pred", 0),
])
def test_trade_slot_accuracy_refuses_a_turn_that_is_not_a_set_of_strings(gold, pred, side,
                                                                         row):
    with pytest.raises(TypeError, match=rf"{side} turn {row}:"):
        M.trade_slot_accuracy(gold, pred, n_slots=30)
    with pytest.raises(TypeError, match=rf"{side} turn {row}:"):
        trade_slot_errors(gold, pred)


def test_trade_slot_accuracy_by_construction():
    # the wrong value counts once (its slot is a missed one): 1 - 1/30; lists are sets too
    assert M.trade_slot_accuracy([{"hotel-area-north"}], [["hotel-area-south"]],
                                 n_slots=30) == pytest.approx(1 - 1 / 30)
    # the dict states, as TRADE items: the wrong value is an error, not 1.0
    assert M.trade_slot_accuracy([{"hotel-area-north"}], [{"hotel-area-north"}],
                                 n_slots=30) == 1.0


# 2. one string where a list of words is meant

def test_unset_words_given_as_a_string_is_refused():
    with pytest.raises(TypeError, match="unset_words.*list of words"):
        M.joint_goal_accuracy([{}], [{"hotel-area": "none"}], unset_words="none")
    # as a list: "none" leaves the slot unset (1.0); another word keeps it a value (0.0)
    assert M.joint_goal_accuracy([{}], [{"hotel-area": "none"}], unset_words=["none"]) == 1.0
    assert M.joint_goal_accuracy([{}], [{"hotel-area": "none"}], unset_words=["n"]) == 0.0


@pytest.mark.parametrize(("call", "name"), [
    (lambda: M.joint_goal_accuracy([{}], [{}], multi_value_slots="hotel-area"),
     "multi_value_slots"),
    (lambda: M.joint_goal_accuracy([{}], [{}], aliases="train-leave"), "aliases"),
    (lambda: M.joint_goal_accuracy([{}], [{}], aliases={"train-leave": 5}), "aliases"),
    (lambda: M.joint_goal_accuracy([{}], [{}], aliases={("train", "leave"): "x"}), "aliases"),
    (lambda: M.canonical_states([{}], [{}], unset_words="none"), "unset_words"),
    (lambda: M.slot_accuracy([{}], [{}], slots="a-x"), "slots"),
    (lambda: M.turn_accuracy([{}, {}], [{}, {}], dialogue_ids="ab"), "dialogue_ids"),
    (lambda: M.turn_table([{}, {}], [{}, {}], dialogue_ids="ab"), "dialogue_ids"),
    (lambda: M.MeanDomainJointGoalAccuracy("hotel"), "domains"),
])
def test_a_string_for_a_list_option_is_refused(call, name):
    with pytest.raises(TypeError, match=name):
        call()


def test_aliases_by_construction():
    gold, pred = [{"train-leaveat": "10:00"}], [{"train-leave": "10:00"}]
    assert M.joint_goal_accuracy(gold, pred) == 0.0
    assert M.joint_goal_accuracy(gold, pred, aliases={"train-leave": "train-leaveat"}) == 1.0


# 3. requested slots

@pytest.mark.parametrize(("gold", "pred", "side", "row"), [
    (["hotel-area"], ["hotel-name"], "y_true", 0),
    ([["hotel-area"]], ["hotel-name"], "y_pred", 0),
    ([[], {"hotel-area": 1}], [[], ["hotel-area"]], "y_true", 1),
    ([["hotel-area"]], [[("hotel", "area")]], "y_pred", 0),
    ([[""], ""], [[""], [""]], "y_true", 1),
])
def test_requested_slots_refuse_a_turn_that_is_not_a_collection_of_strings(gold, pred, side,
                                                                         row):
    with pytest.raises(TypeError, match=rf"{side} turn {row}:"):
        M.requested_slots_precision_recall_f1(gold, pred)
    with pytest.raises(TypeError, match=rf"turn {row}:"):
        requested_columns(gold, pred)


def test_requested_slots_by_construction():
    # no overlap: nothing right (the string form gave partial credit from shared letters)
    assert M.requested_slots_precision_recall_f1([["hotel-area"]], [["hotel-name"]]) == (
        0.0, 0.0, 0.0)
    # TP 1, FP 0, FN 1: P = 1, R = 1/2, F1 = 2/3
    p, r, f = M.requested_slots_precision_recall_f1([{"hotel-area", "hotel-name"}],
                                                    [("hotel-name",)])
    assert (p, r) == (1.0, 0.5) and f == pytest.approx(2 / 3)


# 4. a slot given nested and flat

def test_a_slot_spelled_twice_takes_its_first_set_value():
    gold = [{"hotel-area": "north"}]
    # nested first: its value; flat first: the flat one
    assert M.joint_goal_accuracy(gold, [{"hotel": {"area": "north"}, "hotel-area": "south"}]) \
        == 1.0
    assert M.joint_goal_accuracy(gold, [{"hotel-area": "south", "hotel": {"area": "north"}}]) \
        == 0.0
    # a first value that is unset ("none", "") gives way to the next one, in either order
    assert M.joint_goal_accuracy(gold, [{"hotel-area": "north", "hotel": {"area": "none"}}]) \
        == 1.0
    assert M.joint_goal_accuracy(gold, [{"hotel": {"area": " "}, "hotel-area": "north"}]) == 1.0
    # gold alike: the first set value is the gold one
    assert M.joint_goal_accuracy([{"hotel-area": "north", "hotel": {"area": "south"}}],
                                 [{"hotel-area": "north"}]) == 1.0
    # turn_table (no unset rule) keeps the first value that is not None
    table = M.turn_table([{"hotel-area": ("north",)}],
                         [{"hotel-area": "north", "hotel": {"area": "south"}}])
    assert table.columns["jga"].tolist() == [1.0]
    table = M.turn_table([{"hotel-area": ("north",)}],
                         [{"hotel-area": None, "hotel": {"area": "north"}}])
    assert table.columns["jga"].tolist() == [1.0]


def _mwoz22_pairs(predictions):
    gold_set = load_gold(MWOZ22, corpus="multiwoz22")
    gold, pred, ids = [], [], []
    for dialogue in gold_set.dialogues:
        given = predictions[dialogue.dialogue_id.removesuffix(".json").lower()]
        for i, turn in enumerate(dialogue.turns):
            gold.append(dict(turn.state))
            pred.append(given[i]["state"])
            ids.append(dialogue.dialogue_id)
    return gold_set, gold, pred, ids


def test_slot_given_twice_and_unknown_slot_equal_the_cli():
    """MultiWOZ 2.2 sample with, in DEMO0001, a slot given nested and flat with two values
    (either order), an unset first value followed by a set one, and a slot outside the
    corpus slot list: every function gives ``evaluate()``'s number."""
    predictions = json.loads((MWOZ22 / "predictions.json").read_text(encoding="utf-8"))
    edited = copy.deepcopy(predictions)
    turns = edited["demo0001"]
    assert turns[0]["state"]["restaurant"]["area"] == "centre"
    turns[0]["state"]["restaurant-area"] = "north"  # after the nested centre: centre
    turns[1]["state"] = {"restaurant-area": "north", **turns[1]["state"]}  # flat first: north
    turns[2]["state"]["restaurant"]["area"] = "not mentioned"  # unset, then flat centre
    turns[2]["state"]["restaurant-area"] = "centre"
    turns[3]["state"]["restaurant"]["colour"] = "blue"  # not a slot of the corpus
    gold_set, gold, pred, ids = _mwoz22_pairs(edited)
    result = evaluate(edited, gold=gold_set)
    base = evaluate(predictions, gold=gold_set)
    # by hand: turn 1 is now wrong (north for centre), turn 3 has one extra slot
    assert result.scores["joint_goal_accuracy"] == pytest.approx(
        base.scores["joint_goal_accuracy"] - 2 / 13)
    n_slots = result.counts["slots_in_list"]
    assert n_slots == 35
    assert result.scores["slot_accuracy"] == pytest.approx(
        base.scores["slot_accuracy"] - 2 / (35 * 13))
    scores = function_scores(gold, pred, ids, n_slots, **metric_options("multiwoz22"))
    for name, value in scores.items():
        assert result.scores[name] == pytest.approx(value, abs=1e-12), name


# 5. NONE intents

def test_a_none_intent_is_no_intent():
    assert M.active_intent_accuracy([{"Hotels_1": "ReserveHotel", "Travel_1": "NONE"}],
                                    [{"Hotels_1": "ReserveHotel"}]) == 1.0
    # a turn whose only gold intent is NONE is not counted: 1 of 1 counted turns right
    assert M.active_intent_accuracy([{"Travel_1": "NONE"}, {"Hotels_1": "ReserveHotel"}],
                                    [{}, {"Hotels_1": "ReserveHotel"}]) == 1.0
    # a predicted NONE is no intent: wrong for a gold intent, ignored elsewhere
    assert M.active_intent_accuracy([{"Hotels_1": "ReserveHotel"}, {}],
                                    [{"Hotels_1": "NONE"}, {"Travel_1": "NONE"}]) == 0.0
    with pytest.raises(ValueError, match="no gold intent"):
        M.active_intent_accuracy([{"Travel_1": "NONE"}], [{"Travel_1": "NONE"}])
    assert M.active_intent_accuracy([{"Travel_1": "NONE"}], [{}], zero_division=0.25) == 0.25
    # None: a turn not predicted, wrong
    assert M.active_intent_accuracy([{"Hotels_1": "ReserveHotel", "Travel_1": "NONE"}],
                                    [None]) == 0.0


@pytest.mark.parametrize(("gold", "pred", "side"), [
    (["ReserveHotel"], [{"Hotels_1": "ReserveHotel"}], "y_true"),
    ([{"Hotels_1": "ReserveHotel"}], ["ReserveHotel"], "y_pred"),
])
def test_intent_turn_that_is_not_a_mapping_is_refused(gold, pred, side):
    with pytest.raises(TypeError, match=rf"{side} turn 0:"):
        M.active_intent_accuracy(gold, pred)


# 6. slot list size

@pytest.mark.parametrize(("n_slots", "error"), [
    (0, ValueError), (-1, ValueError), (True, TypeError), (1.5, TypeError), ("30", TypeError),
    (None, TypeError)])
def test_n_slots_must_be_an_int_of_at_least_one(n_slots, error):
    with pytest.raises(error, match="n_slots"):
        M.trade_slot_accuracy([{"a-x-1"}], [{"a-x-1"}], n_slots=n_slots)
    with pytest.raises(error, match="n_slots"):
        TradeSlotAccuracy(n_slots)
    with pytest.raises(error, match="n_slots"):
        M.SlotAccuracy(n_slots)


def test_slots_must_be_a_non_empty_collection():
    with pytest.raises(ValueError, match="n_slots"):
        M.slot_accuracy([{}], [{}], slots=[])
    with pytest.raises(TypeError, match="slots"):
        M.slot_accuracy([{}], [{}], slots=iter(["a-x"]))


def test_slot_accuracy_is_the_clis_slot_accuracy():
    """The function equals the CLI's SlotAccuracy on its table, also when slots outside a
    list of size N give a turn more than N errors (TRADE's compute_acc goes below 0 too)."""
    gold = [{"a-x": "1", "a-y": "1", "a-z": "1"}, {"a-x": "1"}]
    pred = [{}, {"a-x": "1"}]
    # N = 2: turn 0 has 3 errors (1 - 3/2), turn 1 none (1): mean 0.25
    assert M.slot_accuracy(gold, pred, slots=["a-x", "a-y"]) == 0.25
    table = M.turn_table(gold, pred)
    assert M.SlotAccuracy(2).score(table) == 0.25
    # a predicted slot outside the list is an error, as the CLI counts it: 1 - 1/2
    assert M.slot_accuracy([{"a-x": "1"}], [{"a-x": "1", "b-q": "2"}],
                           slots=["a-x", "a-y"]) == 0.5
    # a turn not predicted: N errors whatever its gold (3 slots here): (0 + 1) / 2
    assert M.slot_accuracy(gold, [None, {"a-x": "1"}], slots=["a-x", "a-y"]) == 0.5


# 7. zero_division

@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("name", M.METRIC_FUNCTIONS)
def test_zero_division_must_be_finite(name, value):
    extra = {"slots": range(30), "n_slots": 26, "dialogue_ids": []}
    params = inspect.signature(getattr(M, name)).parameters
    kwargs = {k: v for k, v in extra.items() if k in params}
    with pytest.raises(ValueError, match="zero_division"):
        getattr(M, name)([], [], zero_division=value, **kwargs)


# 8. turn_table and the Metric classes: as strict as the functions

@pytest.mark.parametrize(("pred", "shown"), [
    ({"a-b": 4}, "4"), ({"a-b": ("4",)}, "('4',)"), ({"a-b": ["4"]}, "['4']"),
    ({"a": {"b": 4.0}}, "4.0"), ({"a-b": b"4"}, "b'4'"), ({"a-b": True}, "True"),
])
def test_turn_table_refuses_a_predicted_value_that_is_not_a_string(pred, shown):
    """``4`` for ``"4"`` scored a wrong value (JGA 0.0) without an error; a tuple or list
    was compared as one value. Now the functions' ``TypeError``, naming turn and slot."""
    gold = [{"a-b": ("4",)}, {"a-b": ("4",)}]
    message = f"predicted turn 1, slot 'a-b': value {shown} is not a string"
    with pytest.raises(TypeError) as info:
        M.turn_table(gold, [{"a-b": "4"}, pred])
    assert str(info.value) == message
    with pytest.raises(TypeError) as info:
        M.joint_goal_accuracy(gold, [{"a-b": "4"}, pred])
    assert str(info.value) == message
    with pytest.raises(TypeError, match="predicted turn 0: a state must be a mapping"):
        M.turn_table([{}], ["a-b"])


def test_turn_table_leaves_out_a_predicted_none():
    """A predicted ``None`` is a slot not predicted (the CLI reads JSON ``null`` so): it was
    an extra slot where the gold has none, a missing one where it has the slot."""
    table = M.turn_table([{}], [{"a-b": None}])
    # by hand: nothing predicted, nothing in the gold: a right turn, F1 1
    assert {k: table.columns[k].tolist() for k in ("jga", "extra", "n_pred", "f1")} == {
        "jga": [1.0], "extra": [0.0], "n_pred": [0.0], "f1": [1.0]}
    table = M.turn_table([{"a-b": ("4",)}], [{"a-b": None, "c-d": None}])
    assert {k: table.columns[k].tolist() for k in ("missing", "extra", "wrong")} == {
        "missing": [1.0], "extra": [0.0], "wrong": [0.0]}
    # in every column, a state with None values is the state without them
    gold = [{"a-b": ("1",)}, {"a-b": ("1",), "c-d": ("2",)}, {"c-d": ("2",)}, {}]
    with_none = [{"a-b": "1", "c-d": None}, {"a-b": None, "c-d": "2"},
                 {"a": {"b": None}, "c-d": "2"}, {"e-f": None}]
    without = [{"a-b": "1"}, {"c-d": "2"}, {"c-d": "2"}, {}]
    ids = ["d", "d", "d", "e"]
    a, b = M.turn_table(gold, with_none, dialogue_ids=ids), M.turn_table(gold, without,
                                                                         dialogue_ids=ids)
    assert a.columns.keys() == b.columns.keys()
    for name in a.columns:
        assert a.columns[name].tolist() == b.columns[name].tolist(), name
    # by hand: turn 1 misses a-b, the others are right
    assert a.columns["jga"].tolist() == [1.0, 0.0, 1.0, 1.0]


def test_metric_classes_on_no_turns_are_nan():
    """``SlotF1().score`` of a table of no turns gave 1.0 (its convention for turns with
    empty states) where JGA gave nan and the functions raise: every metric is nan now."""
    empty = M.turn_table([], [])
    for metric in (M.SlotF1(), M.SlotPrecision(), M.SlotRecall(), M.JointGoalAccuracy(),
                   M.SlotF1PerTurnMacro(), M.RequestedSlotsF1()):
        assert math.isnan(metric.score(empty)), metric.name
    with pytest.raises(M.UndefinedMetric):
        M.slot_f1([], [])
    # turns with empty states: nothing missed, nothing wrong: P = R = F1 = 1 (the CLI's)
    assert M.SlotF1().score(M.turn_table([{}], [{}])) == 1.0 == M.slot_f1([{}], [{}])
