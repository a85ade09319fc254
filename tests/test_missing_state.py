"""A turn that predicts no state is missing, never an empty prediction (an audit found both
credited): a turn object without ``state`` (its response only) and, in SGD-style files, a
user turn without a frame for a service of the gold turn. By construction from oracle
predictions on the gold samples; each is reported (``missing_state`` / ``missing_frame``)."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest
from helpers import oracle_predictions

from dst_eval import evaluate
from dst_eval.corpora import load_gold

SAMPLES = Path(__file__).resolve().parent.parent / "gold_samples"


def _empty_gold_turn(gold) -> tuple[int, str, int]:
    """(position among all turns, dialogue id, turn index) of the first turn with an empty
    gold state."""
    position = 0
    for dialogue in gold:
        for turn in dialogue.turns:
            if not turn.state:
                return position, dialogue.dialogue_id, turn.turn_index
            position += 1
    raise AssertionError("no turn with an empty gold state")


@pytest.mark.parametrize(("corpus", "profile"), [("crosswoz", "strict"), ("crosswoz", "trade"),
                                                 ("crosswoz", "convlab")])
def test_a_turn_without_state_is_missing(tmp_path: Path, corpus: str, profile: str) -> None:
    gold = load_gold(SAMPLES / corpus)
    n = gold.n_turns
    _, dialogue_id, index = _empty_gold_turn(gold)
    predictions = oracle_predictions(gold)
    key = next(k for k in predictions if k.lower() == dialogue_id.lower().removesuffix(".json"))
    del predictions[key][index]["state"]  # the turn object stays, with its response
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(predictions, ensure_ascii=False), "utf-8")
    result = evaluate(path, gold=gold, profile=profile)
    assert result.scores["joint_goal_accuracy"] == pytest.approx((n - 1) / n)  # not credited
    [issue] = [i for i in result.issues if i.kind == "missing_state"]
    assert (issue.dialogue, issue.turn) == (dialogue_id, index)
    skipped = evaluate(path, gold=gold, profile=profile, missing="skip")
    assert skipped.scores["joint_goal_accuracy"] == 1.0  # left out, not scored
    if profile == "strict":
        assert skipped.counts["turns"] == n - 1
        empty = evaluate(path, gold=gold, missing="empty")
        assert empty.scores["joint_goal_accuracy"] == 1.0  # an empty prediction: right here


def test_a_turn_without_state_under_mwzeval(tmp_path: Path) -> None:
    """mwzeval's own normalisation leaves the oracle below 1 here: the stateless turn loses
    exactly its own credit, whatever the oracle scored on it."""
    gold = load_gold(SAMPLES / "multiwoz22")
    n = gold.n_turns
    predictions = oracle_predictions(gold)
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(predictions), "utf-8")
    oracle = evaluate(path, gold=gold, profile="mwzeval")
    first = next(iter(predictions))
    right = oracle.per_turn["joint_goal_accuracy"][0]  # the first turn of the first dialogue
    assert right == 1
    del predictions[first][0]["state"]
    path.write_text(json.dumps(predictions), "utf-8")
    result = evaluate(path, gold=gold, profile="mwzeval")
    assert result.scores["joint_goal_accuracy"] == pytest.approx(
        oracle.scores["joint_goal_accuracy"] - 1 / n)
    assert result.counts["turns_without_state"] == 1


def test_an_sgd_turn_without_a_gold_service_frame_is_missing(tmp_path: Path) -> None:
    """gold_samples/multiwoz22: DEMO0001's first user turn has a ``hotel`` frame without
    slot values; predicting the turn without that frame is no prediction for it."""
    folder = SAMPLES / "multiwoz22"
    gold = load_gold(folder)
    n = gold.n_turns
    dialogues = json.loads((folder / "dialogues_001.json").read_text("utf-8"))
    predicted = copy.deepcopy(dialogues)
    user = predicted[0]["turns"][0]
    empty = [f for f in user["frames"] if not f["state"]["slot_values"]]
    assert empty and len(empty) < len(user["frames"])  # a slot-less frame among others
    user["frames"].remove(empty[0])
    preds = tmp_path / "preds"
    preds.mkdir()
    (preds / "dialogues_001.json").write_text(json.dumps(predicted), "utf-8")
    result = evaluate(preds, gold=gold, pred_format="sgd")
    assert result.scores["joint_goal_accuracy"] == pytest.approx((n - 1) / n)
    [issue] = [i for i in result.issues if i.kind == "missing_frame"]
    assert issue.turn == 0 and empty[0]["service"] in issue.message
    no_frames = copy.deepcopy(dialogues)
    no_frames[0]["turns"][0]["frames"] = []
    (preds / "dialogues_001.json").write_text(json.dumps(no_frames), "utf-8")
    result = evaluate(preds, gold=gold, pred_format="sgd")
    assert result.scores["joint_goal_accuracy"] == pytest.approx((n - 1) / n)
    assert result.scores["slot_accuracy"] == pytest.approx((n - 1) / n)  # all N slots wrong


def test_fga_error_age_counts_dialogue_turns_when_a_turn_is_skipped(gold_samples: Path):
    """``--missing skip`` with a turn missing mid-dialogue: FGA's t − t_err counts the
    dialogue's turns, as the authors' code (``int(turn) - error_turn``) does. DEMO0002's
    area is predicted wrong at every turn and its turn 1 is missing: its scored turns
    0, 2, 3 give 0, 1 − e^(−2λ), 1 − e^(−3λ); the other 9 turns are right."""
    gold = load_gold(gold_samples / "multiwoz22")
    predictions = oracle_predictions(gold)
    turns = predictions["demo0002"]
    for turn in turns:
        turn["state"]["hotel"]["area"] = "south"
    turns[1] = {}
    result = evaluate(predictions, gold=gold, missing="skip")
    for lam in (0.25, 0.5, 0.75, 1.0):
        expected = (9 + 0 + (1 - math.exp(-2 * lam)) + (1 - math.exp(-3 * lam))) / 12
        assert result.scores[f"flexible_goal_accuracy@{lam:g}"] == pytest.approx(
            expected, abs=1e-12)
