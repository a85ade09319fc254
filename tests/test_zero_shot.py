"""``--zero-shot-domain``: TRADE's leave-one-domain-out test protocol on MultiWOZ 2.1 test.

Expected values by construction: the dialogues TRADE keeps are those whose goal has a
non-empty ``hotel`` entry (trade-dst ``create_data.py`` ``domains`` + ``read_langs``),
counted here from the raw JSON (394: TRADE's Table 1); an oracle scores 1.0; a file wrong
only outside the hotel domain scores 1.0; a file with exactly one wrong hotel slot on k
turns scores 1 - k/T (JGA) and 1 - k/(10 T) (slot accuracy over TRADE's 10 hotel slots).
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
import zlib

import pytest

from dst_eval import evaluate
from dst_eval.corpora import load_gold
from dst_eval.errors import CoverageError, PredictionError, UsageError

TEST_ZIP = "corpora/multiwoz21/test.json.zip"
IGNORE_KEYS_IN_GOAL = ("eod", "topic", "messageLen", "message")  # trade-dst create_data.py


@pytest.fixture(scope="module")
def gold(shared_dir):
    return load_gold(shared_dir / TEST_ZIP, corpus="multiwoz21")


@pytest.fixture(scope="module")
def raw(shared_dir):
    with zipfile.ZipFile(shared_dir / TEST_ZIP) as archive:
        return json.loads(archive.read("test.json"))


def _states(gold, change):
    return {d.dialogue_id: [{"state": change(d.dialogue_id, t.turn_index,
                                             {k: v[0] for k, v in t.state.items()})}
                            for t in d.turns] for d in gold.dialogues}


def _goal_dialogues(raw, domain):
    return {name for name, dial in raw.items()
            if any(dom == domain and goal for dom, goal in dial["goal"].items()
                   if dom not in IGNORE_KEYS_IN_GOAL)}


def test_dialogues_and_turns_are_trades(gold, raw):
    hotel = _goal_dialogues(raw, "hotel")
    assert len(hotel) == 394  # TRADE (Wu et al., 2019) Table 1, hotel test dialogues
    n_turns = sum(len(raw[name]["log"]) // 2 for name in hotel)
    result = evaluate(_states(gold, lambda d, t, s: s), gold=gold, zero_shot_domain="hotel")
    assert result.counts["dialogues"] == 394
    assert result.counts["turns"] == n_turns
    assert result.counts["slots_in_list"] == 10  # len(slot_temp) for hotel
    assert "zero-shot:hotel" in str(result.signature)
    assert result.scores["joint_goal_accuracy"] == 1.0
    assert result.scores["slot_accuracy"] == 1.0
    assert any("394 of 1000 dialogues" in n for n in result.notes)


def test_errors_outside_the_domain_do_not_count(gold):
    def wrong_elsewhere(_d, _t, state):
        out = {k: (v if k.startswith("hotel-") else v + " x") for k, v in state.items()}
        out["train-day"] = "someday"
        return out

    preds = _states(gold, wrong_elsewhere)
    zero_shot = evaluate(preds, gold=gold, zero_shot_domain="hotel")
    assert zero_shot.scores["joint_goal_accuracy"] == 1.0
    assert zero_shot.scores["slot_f1"] == 1.0
    assert evaluate(preds, gold=gold).scores["joint_goal_accuracy"] < 0.1


def test_errors_inside_the_domain_count_exactly(gold, raw):
    """Only errors in the goal-hotel dialogues count: a dialogue with hotel slots but no
    hotel goal is not one TRADE tests on (MultiWOZ 2.1 test has such dialogues)."""
    wrong_turns = set()
    hotel = _goal_dialogues(raw, "hotel")

    def one_wrong_hotel_slot(d, t, state):
        hotel = sorted(k for k in state if k.startswith("hotel-"))
        if hotel and zlib.crc32(f"{d}:{t}".encode()) % 4 == 0:
            wrong_turns.add((d, t))
            return {**state, hotel[0]: state[hotel[0]] + " x"}
        return state

    preds = _states(gold, one_wrong_hotel_slot)
    result = evaluate(preds, gold=gold, zero_shot_domain="hotel")
    n = result.counts["turns"]
    k = len({(d, t) for d, t in wrong_turns if d in hotel})
    assert 100 < k < n and k < len(wrong_turns)
    assert result.scores["joint_goal_accuracy"] == pytest.approx(1 - k / n, abs=1e-12)
    assert result.scores["slot_accuracy"] == pytest.approx(1 - k / (10 * n), abs=1e-12)


def test_a_domain_no_dialogue_involves_is_a_usage_error(gold, shared_dir, tmp_path):
    with pytest.raises(UsageError, match="no dialogue of multiwoz21/test involves it"):
        evaluate(_states(gold, lambda d, t, s: s), gold=gold, zero_shot_domain="police")
    with pytest.raises(UsageError, match="one domain name"):
        evaluate({}, gold=gold, zero_shot_domain="hotel-area")
    with pytest.raises(UsageError, match="use --profile strict"):
        evaluate({}, gold=gold, zero_shot_domain="hotel", profile="mwzeval")
    path = tmp_path / "p.json"
    path.write_text(json.dumps(_states(gold, lambda d, t, s: s)), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "dst_eval", str(path), "--gold",
                          str(shared_dir / TEST_ZIP), "--zero-shot-domain", "police",
                          "--no-report"], capture_output=True, text=True, check=False)
    assert run.returncode == 2, run.stderr
    assert "hotel" in run.stderr and run.stderr.count("\n") == 1


def _only(preds, ids):
    return {d: turns for d, turns in preds.items() if d in ids}


def test_checks_count_only_the_scored_dialogues(gold, raw, shared_dir, tmp_path):
    """Coverage, --strict and the missing warning see the dialogues the protocol scores
    (the 394 goal-hotel ones, counted from the raw JSON), not the whole split."""
    hotel = _goal_dialogues(raw, "hotel")
    others = set(raw) - hotel
    oracle = _states(gold, lambda d, t, s: s)
    # TRADE's --except_domain hotel decodes only these: complete at the default settings
    exact = evaluate(_only(oracle, hotel), gold=gold, zero_shot_domain="hotel")
    assert exact.scores["joint_goal_accuracy"] == 1.0
    assert exact.coverage["missing_dialogues"] == 0
    assert not [i for i in exact.issues if i.kind == "missing_dialogues"]
    assert "min-coverage" not in str(exact.signature)
    # a file covering none of them is the wrong file (exit 3), whatever else it covers
    with pytest.raises(CoverageError, match="0 of 394 dialogues of multiwoz21/test involving"):
        evaluate(_only(oracle, others), gold=gold, zero_shot_domain="hotel")
    with pytest.raises(CoverageError):
        evaluate(_only(oracle, others), gold=gold, zero_shot_domain="hotel", missing="skip")
    # --strict: a dialogue the protocol does not score may be absent; a scored one may not
    one_other, one_hotel = sorted(others)[0], sorted(hotel)[0]
    assert evaluate(_only(oracle, set(raw) - {one_other}), gold=gold, strict=True,
                    zero_shot_domain="hotel").scores["joint_goal_accuracy"] == 1.0
    with pytest.raises(PredictionError, match="1 of 394 gold dialogues have no prediction"):
        evaluate(_only(oracle, set(raw) - {one_hotel}), gold=gold, strict=True,
                 zero_shot_domain="hotel")
    # the warning counts the scored dialogues that are missing: 394 - 30
    part = _only(oracle, set(sorted(hotel)[:30]) | set(sorted(others)[:30]))
    result = evaluate(part, gold=gold, zero_shot_domain="hotel", min_coverage=0)
    warning = [i.message for i in result.issues if i.kind == "missing_dialogues"]
    assert len(warning) == 1 and warning[0].startswith("364 of 394 gold dialogues")
    assert result.coverage["missing_dialogues"] == 364
    path = tmp_path / "hotel.json"
    path.write_text(json.dumps(_only(oracle, hotel)), encoding="utf-8")
    for command in ([str(path), "--no-report"], ["compare", str(path), str(path), "--n", "20"]):
        run = subprocess.run([sys.executable, "-m", "dst_eval", *command, "--gold",
                              str(shared_dir / TEST_ZIP), "--zero-shot-domain", "hotel", "-q"],
                             capture_output=True, text=True, check=False)
        assert run.returncode == 0, run.stderr
