"""The metric functions with ``dst_eval.metric_options(corpus)`` give the CLI's numbers where
the CLI spells predicted keys as the gold does, and FGA where ``--missing skip`` drops turns.

* SGD (``slot_key_policy = "keep"``) and the CJK corpora (``verbatim``): the CLI matches a
  predicted key that equals a gold key only ignoring case (``Cafes_1-City`` for
  ``Cafes_1-city``; ``dst_eval.slotkeys.GoldSpellings``), and for SGD strips whitespace
  around service and slot; the functions do with ``keys="strip+gold-case"`` /
  ``"exact+gold-case"``, which ``metric_options`` now returns. The CLI does not strip CJK
  keys (``verbatim``), and neither do the functions. Requested slots take ``keys=`` and
  ``aliases=`` too.
* ``flexible_goal_accuracy(turn_numbers=...)`` ages errors in the dialogue's turn numbers,
  as the CLI does when ``--missing skip`` leaves turns out.

Numbers are the CLI's (``evaluate``) or worked out by hand in the comments.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import dst_eval.metrics as M
import pytest
from helpers import function_scores
from metrics_fixture import corrupt

from dst_eval import evaluate, metric_options
from dst_eval.corpora import load_gold
from dst_eval.gold import dialogue_key
from dst_eval.slotkeys import GoldSpellings

SAMPLES = Path(__file__).resolve().parent.parent / "gold_samples"
SPLITS = {"jmultiwoz": "test"}


def _gold(corpus: str):
    return load_gold(SAMPLES / corpus, corpus=corpus, split=SPLITS.get(corpus))


def _pairs(gold_set, predictions: dict) -> tuple[list, list, list]:
    """Gold states, predicted states (None: a turn without prediction) and dialogue ids."""
    gold, pred, ids = [], [], []
    by_key = {dialogue_key(d): turns for d, turns in predictions.items()}
    for dialogue in gold_set.dialogues:
        given = by_key.get(dialogue_key(dialogue.dialogue_id), [])
        for i, turn in enumerate(dialogue.turns):
            gold.append(dict(turn.state))
            pred.append(given[i]["state"] if i < len(given) and given[i] else None)
            ids.append(dialogue.dialogue_id)
    return gold, pred, ids


def _respelled(predictions: dict, slot_fn, domain_fn=lambda d: d) -> dict:
    """The predictions with each state key's domain and slot spelled by the functions
    (nested and flat keys alike)."""
    out = copy.deepcopy(predictions)
    for turns in out.values():
        for turn in turns:
            state = {}
            for key, value in turn["state"].items():
                if isinstance(value, dict):
                    state[domain_fn(key)] = {slot_fn(s): v for s, v in value.items()}
                else:
                    domain, _, slot = key.partition("-")
                    state[f"{domain_fn(domain)}-{slot_fn(slot)}"] = value
            turn["state"] = state
    return out


def _assert_equal_scores(result, gold, pred, ids, corpus) -> dict[str, float]:
    scores = function_scores(gold, pred, ids, result.counts["slots_in_list"],
                             **metric_options(corpus))
    assert {k.partition(":")[0] for k in scores} >= {
        "joint_goal_accuracy", "slot_f1", "flexible_goal_accuracy@0.5",
        "domain_joint_goal_accuracy"}
    for name, value in scores.items():
        assert result.scores[name] == pytest.approx(value, abs=1e-12), name
    return scores


def test_sgd_keys_in_another_case_and_padded_equal_the_cli():
    """Every slot name title-cased (``Cafes_1-City``), every service padded with spaces:
    the CLI reads the same states as the sample's, so every number is the unedited one
    (README: JGA 4/9, slot P 30/33, R 30/35); the functions with the corpus options agree."""
    gold_set = _gold("sgd")
    original = json.loads((SAMPLES / "sgd" / "predictions.json").read_text(encoding="utf-8"))
    edited = _respelled(original, str.title, lambda d: f" {d}\t")
    assert edited["sample_001"][0]["state"] == {
        " Cafes_1\t": {"City": "Oakland", "Seating": "indoor"}}
    result = evaluate(edited, gold=gold_set)
    assert result.scores["joint_goal_accuracy"] == pytest.approx(4 / 9)
    assert result.scores["slot_precision"] == pytest.approx(30 / 33)
    assert result.scores["slot_recall"] == pytest.approx(30 / 35)
    gold, pred, ids = _pairs(gold_set, edited)
    scores = _assert_equal_scores(result, gold, pred, ids, "sgd")
    assert scores == pytest.approx(function_scores(
        *_pairs(gold_set, original), result.counts["slots_in_list"], **metric_options("sgd")))
    # the keys as given (the old options): every predicted slot is an unknown one
    assert M.joint_goal_accuracy(gold, pred, **{**metric_options("sgd"),
                                                "keys": "exact"}) == pytest.approx(0.0)
    # padding alone needs "strip", case alone "+gold-case"
    assert M.joint_goal_accuracy(gold, pred, **{**metric_options("sgd"),
                                                "keys": "exact+gold-case"}) == 0.0
    assert M.joint_goal_accuracy(gold, pred, **{**metric_options("sgd"),
                                                "keys": "strip"}) == 0.0


@pytest.mark.parametrize(("corpus", "slot_fn", "domain_fn"), [
    ("jmultiwoz", str.upper, str.upper),  # booking aliases written in upper case: unknown
    ("jmultiwoz", str.upper, lambda d: d),
    ("jmultiwoz", lambda s: f" {s} ", lambda d: d),  # verbatim: padded keys stay unknown
    ("crosswoz", lambda s: f"{s} ", lambda d: d),
    ("risawoz", str.lower, lambda d: d),  # "3.0T MRI" written "3.0t mri"
])
def test_cjk_keys_in_another_case_equal_the_cli(corpus, slot_fn, domain_fn):
    gold_set = _gold(corpus)
    original = json.loads((SAMPLES / corpus / "predictions.json").read_text(encoding="utf-8"))
    edited = _respelled(original, slot_fn, domain_fn)
    result = evaluate(edited, gold=gold_set)
    gold, pred, ids = _pairs(gold_set, edited)
    _assert_equal_scores(result, gold, pred, ids, corpus)


def test_jmultiwoz_upper_case_slot_names_by_number():
    """The measured case of the finding: CLI 0.5, the functions gave 0.0 before."""
    gold_set = _gold("jmultiwoz")
    original = json.loads((SAMPLES / "jmultiwoz" / "predictions.json").read_text(
        encoding="utf-8"))
    edited = _respelled(original, str.upper, str.upper)
    result = evaluate(edited, gold=gold_set)
    assert result.scores["joint_goal_accuracy"] == 0.5
    gold, pred, _ = _pairs(gold_set, edited)
    assert M.joint_goal_accuracy(gold, pred, **metric_options("jmultiwoz")) == 0.5


def test_gold_case_takes_the_first_gold_spelling_in_sorted_order():
    # two gold keys equal ignoring case: "a-X" < "a-x", as the CLI's GoldSpellings picks
    assert GoldSpellings(["a-x", "a-X"]).key("A-X") == "a-X"
    gold = [{"a-x": "1", "a-X": "2"}]
    # "A-X" is "a-X" (value 2: right), "a-x" is missing: recall 1/2, precision 1/1
    assert M.slot_precision_recall_f1(gold, [{"A-X": "2"}], keys="exact+gold-case") == (
        pytest.approx(1.0), pytest.approx(0.5), pytest.approx(2 / 3))
    # a key matching no gold key keeps its spelling (an extra slot); exact keys are kept
    assert M.slot_precision_recall_f1(gold, [{"a-x": "1", "a-X": "2", "B-y": "3"}],
                                      keys="exact+gold-case") == (
        pytest.approx(2 / 3), pytest.approx(1.0), pytest.approx(0.8))
    # the gold's own spelling is read first, then the others; the first set value counts
    g = [{"Cafes_1-city": "Oakland"}]
    for pred in ({"Cafes_1-City": "Berkeley", "Cafes_1-city": "Oakland"},
                 {"Cafes_1-city": "Oakland", "CAFES_1-CITY": "Berkeley"},
                 {"Cafes_1-city": "", "Cafes_1-City": "Oakland"},
                 {"Cafes_1": {"City": ""}, "Cafes_1-CITY": "Oakland"}):
        assert M.joint_goal_accuracy(g, [pred], **metric_options("sgd")) == 1.0, pred
    with pytest.raises(ValueError, match="keys must be one of"):
        M.joint_goal_accuracy(g, [{}], keys="gold-case")
    with pytest.raises(ValueError, match="keys must be one of"):
        M.joint_goal_accuracy(g, [{}], keys="lower+")


def test_requested_slots_in_another_case_equal_the_cli():
    """sample_001 t2 requests ``Cafes_1-city``, predicted as ``Cafes_1-City`` (and
    ``Trains_7-DATE`` for ``Trains_7-date`` in sample_002 t1): the CLI counts both right."""
    gold_set = _gold("sgd")
    original = json.loads((SAMPLES / "sgd" / "predictions.json").read_text(encoding="utf-8"))
    edited = copy.deepcopy(original)
    assert edited["sample_001"][2]["requested_slots"] == ["Cafes_1-city"]
    edited["sample_001"][2]["requested_slots"] = ["Cafes_1-City"]
    assert "Trains_7-date" in edited["sample_002"][1]["requested_slots"]
    edited["sample_002"][1]["requested_slots"] = [
        " Trains_7 -DATE" if s == "Trains_7-date" else s
        for s in edited["sample_002"][1]["requested_slots"]]
    result = evaluate(edited, gold=gold_set)
    assert result.scores["requested_slots_f1"] == evaluate(original, gold=gold_set).scores[
        "requested_slots_f1"]
    by_key = {dialogue_key(d): turns for d, turns in edited.items()}
    y_true, y_pred = [], []
    for dialogue in gold_set.dialogues:
        given = by_key.get(dialogue_key(dialogue.dialogue_id))
        for i, turn in enumerate(dialogue.turns):
            y_true.append(set(turn.requested_slots))
            y_pred.append(None if given is None else given[i]["requested_slots"])
    options = metric_options("sgd")
    p, r, f = M.requested_slots_precision_recall_f1(y_true, y_pred, keys=options["keys"],
                                                    aliases=options["aliases"])
    assert (p, r, f) == pytest.approx((result.scores["requested_slots_precision"],
                                       result.scores["requested_slots_recall"],
                                       result.scores["requested_slots_f1"]), abs=1e-12)
    # compared as given, both are misses
    assert M.requested_slots_precision_recall_f1(y_true, y_pred)[1] < r


def test_sgd_dev_keys_in_another_case_equal_the_cli(shared_dir, tmp_path):
    """SGD dev with the errors of ``corrupt`` and every third turn's keys in another case
    (service lower-cased, or slot upper-cased) and padded: every number equals the CLI's."""
    gold_set = load_gold(shared_dir / "corpora" / "sgd", corpus="sgd", split="dev")
    ids, gold, pred = corrupt((d.dialogue_id, [{k: v[0] for k, v in t.state.items()}
                                               for t in d.turns]) for d in gold_set.dialogues)
    gold = [dict(t.state) for d in gold_set.dialogues for t in d.turns]
    turn_numbers = [t.turn_index for d in gold_set.dialogues for t in d.turns]
    spellings = [lambda service, slot: (service, slot),
                 lambda service, slot: (service, slot.upper()),
                 lambda service, slot: (f" {service.lower()} ", f"{slot} ")]
    pred = [{"-".join(spellings[row % 3](*key.split("-", 1))): value
             for key, value in state.items()} for row, state in enumerate(pred)]
    assert any(k.startswith(" ") for state in pred for k in state)
    path = tmp_path / "predictions.jsonl"
    path.write_text("".join(json.dumps({"dialogue_id": i, "turn_index": t, "state": state})
                            + "\n" for i, t, state in zip(ids, turn_numbers, pred, strict=True)))
    result = evaluate(path, gold=gold_set)
    _assert_equal_scores(result, gold, pred, ids, "sgd")
    assert M.joint_goal_accuracy(gold, pred, **{**metric_options("sgd"), "keys": "exact"}) < (
        result.scores["joint_goal_accuracy"] - 0.1)


# FGA under --missing skip

def test_fga_turn_numbers_equal_the_cli_under_missing_skip():
    """MultiWOZ 2.2 sample, DEMO0002 without ``hotel-parking`` in every turn (gold ``yes``
    from turn 0) and without a prediction for turn 1, scored with ``--missing skip``.

    By hand, 12 scored turns: DEMO0001 (4), DEMO0003 t0, DEMO0004 t0 are right (6 x 1);
    DEMO0002 t0 is a new error (t_err = 0), t2 and t3 inherit it with ages 2 and 3 in the
    dialogue's turn numbers (1 and 2 when the skipped turn is not counted); DEMO0003 t1 is
    a new error, t2 inherits it (age 1); DEMO0004 t1 is a new error. So
    FGA_λ = (6 + (1 - e^{-2λ}) + (1 - e^{-3λ}) + (1 - e^{-λ})) / 12 (0.6502 at λ = 0.5)."""
    gold_set = _gold("multiwoz22")
    predictions = json.loads((SAMPLES / "multiwoz22" / "predictions.json").read_text(
        encoding="utf-8"))
    edited = copy.deepcopy(predictions)
    for turn in edited["demo0002"]:
        turn["state"]["hotel"].pop("parking", None)
    edited["demo0002"][1] = {}  # an empty turn object: no predicted state
    result = evaluate(edited, gold=gold_set, missing="skip")
    assert result.counts["turns"] == 12
    gold, pred, ids, numbers = [], [], [], []
    for dialogue in gold_set.dialogues:
        given = edited[dialogue_key(dialogue.dialogue_id)]
        for i, turn in enumerate(dialogue.turns):
            if given[i]:  # --missing skip: the turn without a prediction is left out
                gold.append(dict(turn.state))
                pred.append(given[i]["state"])
                ids.append(dialogue.dialogue_id)
                numbers.append(turn.turn_index)
    assert numbers == [0, 1, 2, 3, 0, 2, 3, 0, 1, 2, 0, 1]
    options = metric_options("multiwoz22")
    fga = M.flexible_goal_accuracy(gold, pred, dialogue_ids=ids, turn_numbers=numbers,
                                   **options)
    for lam, value in fga.items():
        by_hand = (6 + (1 - math.exp(-2 * lam)) + (1 - math.exp(-3 * lam))
                   + (1 - math.exp(-lam))) / 12
        assert value == pytest.approx(by_hand, abs=1e-12)
        assert result.scores[f"flexible_goal_accuracy@{lam:g}"] == pytest.approx(value,
                                                                               abs=1e-12)
    assert fga[0.5] == pytest.approx(0.6502, abs=1e-4)
    # consecutive numbering (the default) ages the errors by 1 and 2 instead: 0.6183
    default = M.flexible_goal_accuracy(gold, pred, dialogue_ids=ids, **options)
    assert default[0.5] == pytest.approx(
        (6 + 2 * (1 - math.exp(-0.5)) + (1 - math.exp(-1))) / 12, abs=1e-12)
    # the other numbers do not depend on the turn numbers
    scores = function_scores(gold, pred, ids, result.counts["slots_in_list"], **options)
    for name, value in scores.items():
        if not name.startswith("flexible_goal_accuracy"):
            assert result.scores[name] == pytest.approx(value, abs=1e-12), name


@pytest.mark.parametrize(("numbers", "error", "match"), [
    ([0, 1], ValueError, "turn_numbers has 2 entries for 3 turns"),
    ([0, 2, 1], ValueError, "turn 2.*increase"),
    ([0, 1, 1], ValueError, "turn 2.*increase"),
    ([0, 1.5, 2], TypeError, "turn 1.*int"),
    ([0, True, 2], TypeError, "turn 1.*int"),
    ("012", TypeError, "turn_numbers"),
])
def test_fga_turn_numbers_are_increasing_ints(numbers, error, match):
    gold, pred = [{"a-b": "1"}] * 3, [{"a-b": "2"}] * 3
    with pytest.raises(error, match=match):
        M.flexible_goal_accuracy(gold, pred, dialogue_ids=["d"] * 3, turn_numbers=numbers)
    # a new dialogue may start again from any number
    out = M.flexible_goal_accuracy(gold * 2, pred * 2, dialogue_ids=["d"] * 3 + ["e"] * 3,
                                   turn_numbers=[0, 2, 5, 0, 1, 2], lambdas=[1.0])
    # per dialogue: new error, then inherited at ages 2, 5 (d) and 1, 2 (e)
    assert out[1.0] == pytest.approx(sum(1 - math.exp(-a) for a in (2, 5, 1, 2)) / 6)
