"""What the public metric functions do with inputs the CLI never builds for them.

* ``None`` in ``y_pred`` is a turn not predicted: every function gives the CLI's default
  ``--missing wrong`` number for it (``{}`` stays a prediction of the empty state);
  ``None`` in ``y_true`` is a ``ValueError`` naming the turn;
* a dialogue whose turns are not consecutive in ``dialogue_ids`` is a ``ValueError`` naming
  the dialogue and two of its rows (a returning id used to start a new dialogue);
* a gold value that is not a string (nor a list of strings) is the ``TypeError`` naming
  its turn and slot that :mod:`dst_eval.metrics.canonical` documents, in ``turn_table``
  too (and for a key that is not a string);
* an FGA λ must be a number in (0, 1], as ``EvalOptions.fga_lambdas``: NaN, λ > 1 and
  λ <= 0 are a ``ValueError`` worded as its check.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import dst_eval.metrics as M
import numpy as np
import pytest
from helpers import function_scores

from dst_eval import evaluate, metric_options
from dst_eval.corpora import load_gold

ROOT = Path(__file__).resolve().parent.parent
CROSSWOZ = ROOT / "gold_samples" / "crosswoz"


def test_none_prediction_is_the_cli_missing_wrong_number():
    """CrossWOZ sample without dialogue 9003 (whose first gold state is empty): the
    functions given ``None`` for its turns equal ``evaluate()``'s default
    ``--missing wrong``, and ``{}`` for them its ``--missing empty``."""
    gold_set = load_gold(CROSSWOZ, corpus="crosswoz")
    predictions = json.loads((CROSSWOZ / "predictions.json").read_text(encoding="utf-8"))
    del predictions["9003"]
    wrong = evaluate(predictions, gold=gold_set)
    empty = evaluate(predictions, gold=gold_set, missing="empty")
    gold, ids, as_none, as_empty = [], [], [], []
    for dialogue in gold_set.dialogues:
        given = predictions.get(dialogue.dialogue_id)
        for i, turn in enumerate(dialogue.turns):
            gold.append(dict(turn.state))
            ids.append(dialogue.dialogue_id)
            as_none.append(given[i]["state"] if given else None)
            as_empty.append(given[i]["state"] if given else {})
    assert as_none.count(None) == 4 and {} in gold[-4:]  # an empty gold state unpredicted
    options = metric_options("crosswoz")
    n_slots = wrong.counts["slots_in_list"]
    for pred, result in ((as_none, wrong), (as_empty, empty)):
        scores = function_scores(gold, pred, ids, n_slots, **options)
        for name, value in scores.items():
            assert result.scores[name] == pytest.approx(value, abs=1e-12), name
        assert set(result.scores) - set(scores) <= {
            "bleu", "bleu_jieba", "entity_inform_rate"}
    # the two policies differ here, so None is not read as {}
    assert wrong.scores["joint_goal_accuracy"] < empty.scores["joint_goal_accuracy"]
    assert wrong.scores["slot_accuracy"] < empty.scores["slot_accuracy"]


def test_none_prediction_by_construction():
    gold = [{"hotel-area": "north"}, {}]
    assert M.joint_goal_accuracy(gold, [{"hotel-area": "north"}, None]) == 0.5
    assert M.joint_goal_accuracy(gold, [{"hotel-area": "north"}, {}]) == 1.0
    assert M.slot_f1_turn_macro(gold, [{"hotel-area": "north"}, None]) == 0.5
    # the unpredicted turn has all 4 slots wrong: 1 - 4 / (4 * 2)
    assert M.slot_accuracy(gold, [{"hotel-area": "north"}, None], slots=range(4)) == 0.5
    assert M.trade_slot_accuracy([{"hotel-area-north"}, set()], [{"hotel-area-north"}, None],
                                 n_slots=4) == 0.5
    # an empty-gold turn not predicted counts for RSA (T* = 0 would leave it out)
    assert M.relative_slot_accuracy(gold, [{"hotel-area": "north"}, None]) == 0.5
    assert M.relative_slot_accuracy(gold, [{"hotel-area": "north"}, {}]) == 1.0
    counts = M.slot_error_counts([{"hotel-area": "north"}], [None])
    assert counts["hotel-area"]["missing"] == 1


def test_none_combines_with_an_explicit_predicted_mask():
    gold = [{"a-b": ("1",)}, {"a-b": ("1",)}, {}]
    mask = np.array([False, True, True])
    table = M.turn_table(gold, [{"a-b": "1"}, None, {}], predicted=mask, fga_lambdas=())
    assert table.columns["jga"].tolist() == [0.0, 0.0, 1.0]
    assert table.columns["unpredicted"].tolist() == [1.0, 1.0, 0.0]
    assert mask.tolist() == [False, True, True]  # the caller's mask is not changed


@pytest.mark.parametrize("call", [
    lambda: M.joint_goal_accuracy([{}, None], [{}, {}]),
    lambda: M.canonical_states([{}, None], [{}, {}]),
    lambda: M.turn_table([{}, None], [{}, {}]),
    lambda: M.trade_slot_accuracy([set(), None], [set(), set()], n_slots=4),
])
def test_none_gold_state_is_an_error_naming_the_turn(call):
    with pytest.raises(ValueError, match="y_true turn 1: the gold state is None"):
        call()


INTERLEAVED = ([{"a-b": "1"}, {}, {"a-b": "1"}], [{"a-b": "2"}, {}, {"a-b": "2"}],
               ["d1", "d2", "d1"])


@pytest.mark.parametrize("function", [
    M.turn_accuracy, M.flexible_goal_accuracy, M.final_turn_joint_goal_accuracy,
    M.granular_change_accuracy, M.per_domain_joint_goal_accuracy,
])
def test_dialogue_turns_not_consecutive_are_an_error(function):
    gold, pred, ids = INTERLEAVED
    with pytest.raises(ValueError, match=r"dialogue 'd1' are not consecutive \(rows 0 and 2"):
        function(gold, pred, dialogue_ids=ids)
    # grouped, the same turns are scored: d1 = two wrong turns, d2 = one right (empty) turn
    grouped = [0, 2, 1]
    value = function([gold[i] for i in grouped], [pred[i] for i in grouped],
                     dialogue_ids=[ids[i] for i in grouped])
    if function is M.final_turn_joint_goal_accuracy:
        assert value == 0.5  # D = 2 dialogues, d2's last turn right


def test_turn_table_names_the_first_return():
    ids = ["a", "a", "b", "c", "b", "a"]
    with pytest.raises(ValueError, match=r"dialogue 'b' are not consecutive \(rows 2 and 4"):
        M.turn_table([{}] * 6, [{}] * 6, dialogue_ids=ids)
    table = M.turn_table([{}] * 4, [{}] * 4, dialogue_ids=["a", "a", "b", "c"])
    assert table.dialogue_index.tolist() == [0, 0, 1, 2]


@pytest.mark.parametrize(("value", "shown"), [(5, "5"), (None, "None"), (["4", None], "None"),
                                              (b"4", "b'4'")])
def test_non_string_gold_value_names_turn_and_slot(value, shown):
    gold = [{"hotel-area": "north"}, {"hotel-area": "north", "Hotel-Stars": value}]
    pred = [{"hotel-area": "north"}, {"hotel-area": "north"}]
    message = f"gold turn 1, slot 'hotel-stars': value {shown} is not a string"
    with pytest.raises(TypeError, match=message):
        M.joint_goal_accuracy(gold, pred)
    with pytest.raises(TypeError, match="gold turn 1, slot 'hotel-stars'"):
        M.flexible_goal_accuracy(gold, pred, dialogue_ids=["d", "d"])


@pytest.mark.parametrize(("gold", "slot", "shown"), [
    ({"hotel-stars": 5}, "'hotel-stars'", "5"),
    ({"hotel-stars": None}, "'hotel-stars'", "None"),
    ({"hotel-stars": ["4", 5]}, "'hotel-stars'", "5"),
    ({"hotel-stars": ("4", 5)}, "'hotel-stars'", "5"),
    ({"hotel-stars": b"4"}, "'hotel-stars'", "b'4'"),
    ({"hotel": {"stars": 5}}, "'hotel-stars'", "5"),
    ({5: "4"}, "5", "5"),
])
def test_turn_table_non_string_gold_names_turn_and_slot(gold, slot, shown):
    """``turn_table`` (public) gives canonical.py's TypeError for a gold key or value that
    is not a string. It used to raise a bare ``'int' object is not iterable`` or an
    AttributeError, and to take ``["4", 5]`` and ``b"4"`` (as the variants 52, ...) as
    variants. Turn 0 (all tuples of strings) is checked and remembered first."""
    first = {"hotel-area": ("north",), "hotel-stars": ("4",)}
    pred = [{"hotel-area": "north"}, {"hotel-stars": "4"}]
    message = f"gold turn 1, slot {slot}: value {shown} is not a string"
    with pytest.raises(TypeError) as info:
        M.turn_table([first, gold], pred)
    assert str(info.value) == message
    with pytest.raises(TypeError) as info:
        M.turn_table([first, {"hotel-area": ("north",), 7: ("4",)}], pred)
    assert str(info.value) == "gold turn 1, slot 7: value 7 is not a string"
    with pytest.raises(TypeError) as info:
        M.turn_table([first, first], [pred[0], {**pred[0], 7: "4"}])
    assert str(info.value) == "predicted turn 1, slot 7: value 7 is not a string"
    table = M.turn_table([first, {"hotel-area": ["north"], "hotel-stars": "4"}],
                         [{"hotel-area": "north", "hotel-stars": "4"}] * 2)
    assert table.columns["jga"].tolist() == [1.0, 1.0]  # lists and strings of str are fine


@pytest.mark.parametrize("lam", [float("nan"), 5, 1.5, 0, -0.5, float("inf"), True, "0.5"])
def test_fga_lambda_outside_zero_one_is_an_error(lam):
    from dst_eval.errors import UsageError
    from dst_eval.options import EvalOptions

    gold, pred = [{"a-b": "1"}, {"a-b": "1"}], [{"a-b": "2"}, {"a-b": "2"}]
    with pytest.raises(UsageError, match=r"must be numbers in \(0, 1\]"):
        EvalOptions(fga_lambdas=(lam,))  # the rule the metric functions now share
    for call in (
        lambda: M.flexible_goal_accuracy(gold, pred, dialogue_ids=["d", "d"], lambdas=[lam],
                                         zero_division=0.0),
        lambda: M.turn_table(gold, pred, fga_lambdas=[lam]),
        lambda: M.FlexibleGoalAccuracy(lam),
        lambda: M.dst_metrics(fga_lambdas=[lam]),
    ):
        with pytest.raises(ValueError, match=r"must be (numbers|a number) in \(0, 1\]"):
            call()


def test_fga_lambda_in_zero_one_by_construction():
    """d: turn 0 a new error, turn 1 inherits it (right change): f_1 = 1 - exp(-λ)."""
    gold = [{"a-b": "1"}, {"a-b": "1", "c-d": "2"}]
    pred = [{"a-b": "9"}, {"a-b": "9", "c-d": "2"}]
    out = M.flexible_goal_accuracy(gold, pred, dialogue_ids=["d", "d"], lambdas=[1, 0.5])
    assert out == {1: pytest.approx((1 - math.exp(-1)) / 2),
                   0.5: pytest.approx((1 - math.exp(-0.5)) / 2)}
