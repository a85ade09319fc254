"""The sgd-official profiles against the official scorer's own outputs (SCORERS.md §2, §11.3)."""

from __future__ import annotations

import copy
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from dst_eval.metrics.sgd_frame import METRICS, f1_multiset, goal_accuracies

from dst_eval.alignment import align
from dst_eval.corpora import load_gold
from dst_eval.corpora.sgd import loader as sgd
from dst_eval.gold import GoldSet
from dst_eval.options import EvalOptions
from dst_eval.predictions.model import PredictionSet, PredTurn
from dst_eval.predictions.sgd_frames import read_sgd_frame_predictions
from dst_eval.profiles import get_profile
from dst_eval.profiles.sgd_official import score, score_multiwoz
from dst_eval.result import Result

TOLERANCE = 1e-9

# reference file -> (make_corrupt.py arguments, MultiWOZ style)
REFERENCES = {
    "dev_oracle": (("--mode", "oracle"), False),
    "dev_drop": (("--mode", "drop", "--every", "5"), False),
    "dev_drop_mwozstyle": (("--mode", "drop", "--every", "5"), True),
    "dev_intent": (("--mode", "intent", "--every", "5"), False),
    "dev_reqslot": (("--mode", "reqslot", "--every", "5"), False),
    "dev_fuzz7": (("--mode", "fuzz", "--every", "7"), False),
    "dev_fuzz7_mwoz": (("--mode", "fuzz", "--every", "7"), True),
}
MISSING10 = ("--mode", "drop", "--every", "5", "--drop-dialogues", "10")


FAST_IO = """
import copy, json, runpy, sys
import orjson
json.dump = lambda obj, fp, **kw: fp.write(json.dumps(obj, **kw))
copy.deepcopy = lambda obj, memo=None: orjson.loads(orjson.dumps(obj))
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
"""Runs the reference make_corrupt.py unchanged, with two library functions it calls swapped
for byte-equivalent fast ones: ``json.dump`` (the stdlib's pure-Python streaming encoder)
by one ``json.dumps`` (the C encoder; same text for the same arguments) and
``copy.deepcopy`` of its JSON data by an orjson round trip (JSON in, equal JSON out). Its
output directories are byte-identical (checked with ``diff -r`` for drop, fuzz and intent
with --drop-dialogues); it takes 2.1 s of CPU instead of 7.4 s per directory."""

# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def sgd_dev(sgd_dev_gold: GoldSet) -> GoldSet:
    return sgd_dev_gold  # conftest: loaded once per test process


@pytest.fixture(scope="session")
def corrupted(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """``corrupted(args)`` -> a prediction directory made by the reference make_corrupt.py.

    make_corrupt.py takes a few seconds per directory: the directories the tests need are
    made in the background, two at a time, in the order the tests use them.
    """
    script = shared_dir / "reference" / "sgd_official" / "make_corrupt.py"
    gold_dir = shared_dir / "corpora" / "sgd" / "dev"
    pending = list(dict.fromkeys([REFERENCES[n][0] for n in sorted(REFERENCES)] + [MISSING10]))
    running: dict[tuple[str, ...], tuple[subprocess.Popen, Path]] = {}
    done: dict[tuple[str, ...], Path] = {}

    def start(args: tuple[str, ...]) -> None:
        pending.remove(args)
        out = tmp_path_factory.mktemp("sgd_pred")
        process = subprocess.Popen([sys.executable, "-c", FAST_IO, str(script), str(gold_dir),
                                    str(out), *args],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        running[args] = (process, out)

    def top_up() -> None:
        while pending and len(running) < 2:
            start(pending[0])

    def make(args: tuple[str, ...]) -> Path:
        if args not in done:
            if args not in running:
                start(args)
            process, out = running.pop(args)
            _, err = process.communicate()
            assert process.returncode == 0, err.decode()
            done[args] = out
        top_up()
        return done[args]

    top_up()
    yield make
    for process, _ in running.values():
        process.communicate()


def _reference(shared_dir: Path, name: str) -> dict:
    return json.loads((shared_dir / "reference" / "sgd_official" / f"{name}.json").read_text())


def _assert_same(result: dict, reference: dict) -> None:
    assert sorted(result) == sorted(reference), "groups differ"
    for group, metrics in reference.items():
        assert sorted(result[group]) == sorted(metrics), f"metrics of {group} differ"
        for metric, value in metrics.items():
            assert abs(result[group][metric] - value) <= TOLERANCE, (group, metric)


# --------------------------------------------------------------------------- fidelity on SGD dev


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_reproduces_the_official_scorer(name: str, shared_dir: Path, sgd_dev: GoldSet,
                                        corrupted) -> None:
    args, multiwoz_style = REFERENCES[name]
    predictions = read_sgd_frame_predictions(corrupted(args))
    alignment = align(sgd_dev, predictions)
    assert not alignment.missing_dialogues and alignment.n_missing_turns == 0
    result = (score_multiwoz if multiwoz_style else score)(alignment, EvalOptions())
    _assert_same(result.official, _reference(shared_dir, name))
    assert result.scores == result.official["#ALL_SERVICES"]
    assert result.counts["frames"] == 26077 and result.counts["turns"] == 24363
    assert result.signature_fields["agg"] == ("turn-joint" if multiwoz_style else "frame")


def test_drop_identity(sgd_dev: GoldSet, corrupted) -> None:
    """SCORERS.md §11.3: per-frame JGA = 1 - 4844/26077 by construction."""
    alignment = align(sgd_dev, read_sgd_frame_predictions(corrupted(REFERENCES["dev_drop"][0])))
    result = score(alignment)
    assert result.scores["joint_goal_accuracy"] == pytest.approx(1 - 4844 / 26077, abs=1e-12)
    assert result.groups["seen:seen"] == result.official["#SEEN_SERVICES"]
    assert result.groups["service:Alarm_1"] == result.official["Alarm_1"]
    assert result.groups["domain:Alarm"] == result.official["Alarm"]
    per_turn = result.per_turn
    assert len(per_turn["dialogue_id"]) == len(per_turn["joint_goal_accuracy"]) == 24363
    # turn-level joint accuracy = the MultiWOZ-style #ALL_SERVICES value
    mwoz = score_multiwoz(alignment)
    assert np.mean(per_turn["joint_goal_accuracy"]) == pytest.approx(
        mwoz.scores["joint_goal_accuracy"], abs=1e-12)


def _expected_missing10_jga(gold: GoldSet, missing: str = "wrong") -> float:
    """make_corrupt.py --mode drop --every 5 --drop-dialogues 10, scored with ``missing``.

    Frames are counted globally (file, dialogue, turn, frame order = GoldSet order); frame
    ``i`` loses a slot when ``i % 5 == 4`` and its state is not empty (JGA 0). Dialogue
    ``k`` (1-based) is omitted when ``k % 10 == 0``: its frames are wrong (``wrong``) or
    meet an empty prediction, right only when the gold frame state is empty (``empty``).
    """
    index = right = total = 0
    for k, dialogue in enumerate(gold, start=1):
        omitted = k % 10 == 0
        for turn in dialogue.turns:
            for frame in turn.frames:
                dropped = index % 5 == 4 and bool(frame.slot_values)
                if omitted:
                    right += missing == "empty" and not frame.slot_values
                else:
                    right += not dropped
                total += 1
                index += 1
    return right / total


def test_missing_dialogues_count_as_wrong_by_default(shared_dir: Path, sgd_dev: GoldSet,
                                                    corrupted) -> None:
    alignment = align(sgd_dev, read_sgd_frame_predictions(corrupted(MISSING10)))
    assert len(alignment.missing_dialogues) == 248
    assert any(i.kind == "missing_dialogues" and "248 of 2482" in i.message
               for i in alignment.issues)
    n_missing_turns = sum(len(sgd_dev.get(d).turns) for d in alignment.missing_dialogues)

    wrong = score(alignment, EvalOptions())
    assert wrong.counts["missing_turns_scored_empty"] == n_missing_turns
    assert wrong.counts["frames"] == 26077
    assert any("scored as wrong" in note for note in wrong.notes)
    assert wrong.scores["joint_goal_accuracy"] == pytest.approx(
        _expected_missing10_jga(sgd_dev), abs=1e-12)

    empty = score(alignment, EvalOptions(missing="empty"))
    assert any("scored as empty predictions" in note for note in empty.notes)
    assert empty.scores["joint_goal_accuracy"] == pytest.approx(
        _expected_missing10_jga(sgd_dev, "empty"), abs=1e-12)
    assert empty.scores["joint_goal_accuracy"] > wrong.scores["joint_goal_accuracy"]

    skip = score(alignment, EvalOptions(missing="skip"))
    _assert_same(skip.official, _reference(shared_dir, "dev_drop_missing10"))
    assert skip.counts["dialogues"] == 2234
    assert skip.scores["joint_goal_accuracy"] > wrong.scores["joint_goal_accuracy"]


# --------------------------------------------------------------------------- gold_samples


@pytest.fixture()
def sample(gold_samples: Path) -> GoldSet:
    return sgd.load(gold_samples / "sgd")


def _flat_oracle(gold: GoldSet) -> PredictionSet:
    dialogues = {
        d.dialogue_id: [PredTurn(state={k: v[0] for k, v in t.state.items()},
                                 requested_slots=t.requested_slots,
                                 active_intents=dict(t.active_intents)) for t in d.turns]
        for d in gold}
    return PredictionSet(source="oracle", format="jsonl", dialogues=dialogues)


def _all_ones(result: Result) -> None:
    for group, metrics in result.official.items():
        assert metrics and all(value == 1.0 for value in metrics.values()), group


def test_oracle_on_gold_samples(tmp_path: Path, gold_samples: Path, sample: GoldSet) -> None:
    shutil.copy(gold_samples / "sgd" / "dialogues_001.json", tmp_path / "pred.json")
    frames = align(sample, read_sgd_frame_predictions(tmp_path / "pred.json"))
    for fn in (score, score_multiwoz):
        result = fn(frames)
        _all_ones(result)
        assert set(result.official) == {"#ALL_SERVICES", "Cafes", "Cafes_1", "Trains",
                                        "Trains_7", "Weather", "Weather_5"}
        assert set(result.scores) == set(METRICS)  # spans given: slot tagging too
        assert any("no training schema" in note for note in result.notes)
        flat = fn(align(sample, _flat_oracle(sample)))
        _all_ones(flat)
        assert set(flat.scores) == set(METRICS) - {
            "slot_tagging_f1", "slot_tagging_precision", "slot_tagging_recall"}


def test_gold_samples_predictions(gold_samples: Path, sample: GoldSet) -> None:
    """gold_samples/sgd/predictions.json, mwzeval-style, errors counted by hand.

    Gold frames (10): sample_001 t0 seating indoor/outdoor (categorical: JGA 0, AGA 1/2),
    t1 time = second variant (1), t2 (1); sample_002 t0 date 'March 3' vs 'March 3rd'
    (token-sort 88 -> 0.88 fuzzy, 0 exact), t1 wrong intent, travel_class missing (JGA 0,
    AGA 3/4 + 0/1 ...), requested {travel_class, date} vs {travel_class} (F1 2/3);
    sample_003 t0 (1), t1 trains (1), t1 weather predicts temperature the gold lacks
    (JGA 0, AGA 1), t2 (1); sample_004 not predicted.
    """
    from dst_eval.predictions.reader import read_predictions

    alignment = align(sample, read_predictions(gold_samples / "sgd" / "predictions.json",
                                               corpus="sgd"))
    assert alignment.missing_dialogues == ["sample_004"]
    frame_jga = [0, 1, 1, 0.88, 0, 1, 1, 0, 1]
    wrong = score(alignment)
    assert wrong.scores["joint_goal_accuracy"] == pytest.approx((sum(frame_jga) + 0) / 10)
    assert wrong.scores["active_intent_accuracy"] == pytest.approx(8 / 10)
    assert wrong.scores["requested_slots_f1"] == pytest.approx((8 + 2 / 3 + 0) / 10)
    assert "slot_tagging_f1" not in wrong.scores
    skip = score(alignment, EvalOptions(missing="skip"))
    assert skip.scores["joint_goal_accuracy"] == pytest.approx(sum(frame_jga) / 9)
    assert skip.official["Weather_5"]["joint_goal_accuracy"] == 0.0
    assert skip.official["Weather_5"]["average_goal_accuracy"] == 1.0
    # per turn, exact matching: 9 turns, right: s1 t1, t2; s3 t0, t2
    turn_wise = score_multiwoz(alignment)
    assert turn_wise.scores["joint_goal_accuracy"] == pytest.approx(4 / 9)
    assert turn_wise.official["Trains_7"]["joint_goal_accuracy"] == pytest.approx(3 / 5)
    assert turn_wise.signature_fields["match"] == "exact"
    assert turn_wise.scores["average_noncat_accuracy"] < wrong.scores["average_noncat_accuracy"]


def test_missing_frames(tmp_path: Path, gold_samples: Path, sample: GoldSet) -> None:
    dialogues = json.loads((gold_samples / "sgd" / "dialogues_001.json").read_text())
    user_turn = dialogues[2]["turns"][2]  # sample_003 t1: Trains_7 + Weather_5
    user_turn["frames"] = [f for f in user_turn["frames"] if f["service"] != "Weather_5"]
    (tmp_path / "p.json").write_text(json.dumps(dialogues))
    alignment = align(sample, read_sgd_frame_predictions(tmp_path / "p.json"))
    wrong = score(alignment)
    assert wrong.counts["missing_frames"] == 1 and wrong.counts["frames"] == 10
    assert wrong.official["Weather_5"]["joint_goal_accuracy"] == 0.5
    assert wrong.official["Weather_5"]["slot_tagging_recall"] == 0.5  # empty span list
    skip = score(alignment, EvalOptions(missing="skip"))
    assert skip.counts["frames"] == 9
    assert skip.official["Weather_5"]["joint_goal_accuracy"] == 1.0


def test_registry_and_options(sample: GoldSet) -> None:
    assert get_profile("sgd-official", "sgd") is score
    assert get_profile("sgd-official-multiwoz", "multiwoz22") is score_multiwoz
    alignment = align(sample, _flat_oracle(sample))
    only = score(alignment, EvalOptions(metrics=("joint_goal_accuracy",)))
    assert only.scores == {"joint_goal_accuracy": 1.0}
    from dst_eval.errors import UsageError

    with pytest.raises(UsageError, match="unknown metric"):
        score(alignment, EvalOptions(metrics=("bleu",)))
    with pytest.raises(UsageError, match="missing-prediction policy"):
        score(alignment, EvalOptions(missing="zero"))


# --------------------------------------------------------------------------- metric functions


def test_frame_metric_definitions() -> None:
    assert f1_multiset([], []) == (1.0, 1.0, 1.0)
    assert f1_multiset(["a"], []) == (0.0, 1.0, 0.0)
    assert f1_multiset(["a", "a", "b"], ["a", "c"]) == pytest.approx((0.4, 0.5, 1 / 3))
    slots, categorical = ("city", "seats", "time"), {"seats"}
    ref = {"city": ("San Francisco",), "seats": ("2",)}
    joint, jcat, jnon, avg, acat, anon = goal_accuracies(
        ref, {"city": "san francisco ca", "seats": "2"}, slots=slots,
        categorical=categorical)
    assert (joint, jcat, jnon, avg, acat, anon) == pytest.approx((0.9, 1, 0.9, 0.95, 1, 0.9))
    exact = goal_accuracies(ref, {"city": "san francisco ca", "seats": "2", "time": "5 pm"},
                            slots=slots, categorical=categorical, fuzzy=False)
    assert exact[:3] == (0.0, 1.0, 0.0) and exact[3] == 0.5
    # one predicted value per slot: the first gold value of each is all right, another
    # gold variant is right only where the slot is not categorical, "" is a value
    variants = {"city": ("SF", "San Francisco"), "seats": ("2", "two")}
    assert goal_accuracies(variants, {"city": "SF", "seats": "2"}, slots=slots,
                           categorical=categorical)[:4] == (1.0, 1.0, 1.0, 1.0)
    assert goal_accuracies(variants, {"city": "San Francisco", "seats": "two"}, slots=slots,
                           categorical=categorical)[:3] == (0.0, 0.0, 1.0)
    assert goal_accuracies({"city": ("",)}, {"city": ""}, slots=slots,
                           categorical=categorical)[0] == 1.0
    assert goal_accuracies({"seats": ("2",)}, {"seats": "2", "city": ""}, slots=slots,
                           categorical=categorical)[:3] == (0.0, 1.0, 0.0)
    empty = goal_accuracies({}, {}, slots=slots, categorical=categorical)
    assert empty[:3] == (1.0, 1.0, 1.0) and all(math.isnan(x) for x in empty[3:])
    nocat = goal_accuracies({}, {}, slots=("a",), categorical=set())
    assert math.isnan(nocat[1])


# --------------------------------------------------------------------------- MultiWOZ 2.2


@pytest.fixture(scope="session")
def mul0484(shared_dir: Path) -> tuple[GoldSet, list]:
    path = shared_dir / "corpora" / "multiwoz22" / "test"
    gold = load_gold(path, corpus="multiwoz22")
    return gold, json.loads((path / "dialogues_001.json").read_text())


def _score_mul(tmp_path: Path, gold: GoldSet, dialogues: list) -> tuple[float, float]:
    (tmp_path / "p.json").write_text(json.dumps(dialogues))
    alignment = align(gold, read_sgd_frame_predictions(tmp_path / "p.json"))
    per_frame, per_turn = score(alignment), score_multiwoz(alignment)
    assert per_frame.counts["frames"] == 40 and per_frame.counts["turns"] == 5
    return per_frame.scores["joint_goal_accuracy"], per_turn.scores["joint_goal_accuracy"]


def _train_frame(dialogues: list, user_turn: int) -> dict:
    turns = [t for t in dialogues[0]["turns"] if t["speaker"] == "USER"]
    return next(f for f in turns[user_turn]["frames"] if f["service"] == "train")


def test_mul0484_per_frame_and_per_turn(tmp_path: Path, mul0484) -> None:
    """SCORERS.md §11.3: one dropped slot -> 0.975 per frame, 0.800 per turn; one predicted
    untracked slot (train-ref) -> 0.8 per turn."""
    gold, dialogues = mul0484
    assert _score_mul(tmp_path, gold, dialogues) == (1.0, 1.0)
    dropped = copy.deepcopy(dialogues)
    del _train_frame(dropped, 2)["state"]["slot_values"]["train-day"]
    per_frame, per_turn = _score_mul(tmp_path, gold, dropped)
    assert per_frame == pytest.approx(0.975) and per_turn == pytest.approx(0.8)
    untracked = copy.deepcopy(dialogues)
    _train_frame(untracked, 3)["state"]["slot_values"]["train-ref"] = ["ABC123"]
    assert _score_mul(tmp_path, gold, untracked)[1] == pytest.approx(0.8)


def test_mul0484_slot_names_match_only_as_the_schema_spells_them(tmp_path: Path,
                                                                  mul0484) -> None:
    """The official scorer looks a frame's slots up by the schema's names: a 2.2 slot
    written without its prefix (``day`` for ``train-day``) is not found, as if dropped
    (0.975 / 0.8, as in the test above); written both ways, the schema's spelling counts and
    the other is no schema slot (1.0 / 1.0). Both give one state key ``train-day``."""
    gold, dialogues = mul0484
    short = copy.deepcopy(dialogues)
    values = _train_frame(short, 2)["state"]["slot_values"]
    values["day"] = values.pop("train-day")
    per_frame, per_turn = _score_mul(tmp_path, gold, short)
    assert per_frame == pytest.approx(0.975) and per_turn == pytest.approx(0.8)
    both = copy.deepcopy(dialogues)
    values = _train_frame(both, 2)["state"]["slot_values"]
    values["day"] = ["sunday"]
    assert _score_mul(tmp_path, gold, both) == (1.0, 1.0)
    (tmp_path / "p.json").write_text(json.dumps(both))
    turn = read_sgd_frame_predictions(tmp_path / "p.json").dialogues["MUL0484.json"][2]
    frame = next(f for f in turn.frames if f.service == "train")
    assert frame.slot_values["train-train-day"] != "sunday"
    assert frame.slot_values["train-day"] == "sunday" and turn.state["train-day"] == "sunday"


def test_mul0484_flat_predictions(mul0484) -> None:
    """mwzeval/JSONL-style flat keys 'train-day' map to the 2.2 frame slot 'train-day'."""
    gold, _ = mul0484
    turns = []
    for i, turn in enumerate(gold.dialogues[0].turns):
        state = {k: v[0] for k, v in turn.state.items()}
        if i == 2:
            del state["train-day"]
        turns.append(PredTurn(state=state, requested_slots=turn.requested_slots,
                              active_intents=dict(turn.active_intents)))
    predictions = PredictionSet(source="flat", format="jsonl",
                                dialogues={gold.dialogues[0].dialogue_id: turns})
    alignment = align(gold, predictions)
    assert score(alignment).scores["joint_goal_accuracy"] == pytest.approx(0.975)
    assert score_multiwoz(alignment).scores["joint_goal_accuracy"] == pytest.approx(0.8)
    assert score(alignment).scores["active_intent_accuracy"] == 1.0


# --------------------------------------------------------------------------- blank values

# The official scorer (../shared/anchors/sgd_official/run.sh DATA dev PRED OUT.json, plus
# --joint_acc_across_turn=True --use_fuzzy_match=False for the MultiWOZ style) run on
# _blank_split + _written_predictions([value]) below, for value in none, "", " ", "\t".
# Stored: the goal metrics (joint, joint_cat, joint_noncat, average, average_cat,
# average_noncat) of three groups; "", " " and "\t" gave one and the same output, and every
# other metric was 1.0 in every case.
_GOAL = ("joint_goal_accuracy", "joint_cat_accuracy", "joint_noncat_accuracy",
         "average_goal_accuracy", "average_cat_accuracy", "average_noncat_accuracy")
_BLANK_OFFICIAL = {
    ("sgd-official", "none"): {
        "#ALL_SERVICES": (0.3413953488372093, 0.6046511627906976, 0.7367441860465115,
                          0.8843658536585366, 0.7612612612612613, 0.9608571428571427),
        "#SEEN_SERVICES": (0.3308, 0.64, 0.6908, 0.9000694444444445, 0.7380952380952381,
                           0.9841304347826088),
        "#UNSEEN_SERVICES": (0.3561111111111111, 0.5555555555555556, 0.8005555555555556,
                             0.8621960784313726, 0.7916666666666666, 0.9162500000000001),
    },
    ("sgd-official", "blank"): {
        "#ALL_SERVICES": (0.32558139534883723, 0.6046511627906976, 0.7209302325581395,
                          0.8784552845528455, 0.7612612612612613, 0.95),
        "#SEEN_SERVICES": (0.32, 0.64, 0.68, 0.8944444444444445, 0.7380952380952381,
                           0.9782608695652174),
        "#UNSEEN_SERVICES": (0.3333333333333333, 0.5555555555555556, 0.7777777777777778,
                             0.8558823529411764, 0.7916666666666666, 0.8958333333333334),
    },
    ("sgd-official-multiwoz", "none"): {
        "#ALL_SERVICES": (0.3157894736842105, 0.6052631578947368, 0.6842105263157895,
                          0.8784552845528455, 0.7612612612612613, 0.95),
        "#SEEN_SERVICES": (0.32, 0.64, 0.68, 0.8944444444444445, 0.7380952380952381,
                           0.9782608695652174),
        "#UNSEEN_SERVICES": (0.3333333333333333, 0.5555555555555556, 0.7777777777777778,
                             0.8558823529411764, 0.7916666666666666, 0.8958333333333334),
    },
}
_BLANK_OFFICIAL[("sgd-official-multiwoz", "blank")] = _BLANK_OFFICIAL[
    ("sgd-official-multiwoz", "none")]  # exact matching: none scores like a blank


def _blank_split(shared_dir: Path, root: Path) -> list[dict]:
    """``root/dev`` (5 dev dialogues: seen and unseen services, two-frame turns) and
    ``root/train/schema.json``, as the official scorer's data directory."""
    dev = shared_dir / "corpora" / "sgd" / "dev"
    dialogues: list[dict] = []
    for name, n in (("001", 1), ("009", 2), ("013", 2)):
        dialogues += json.loads((dev / f"dialogues_{name}.json").read_text())[:n]
    (root / "dev").mkdir(parents=True)
    (root / "train").mkdir()
    (root / "dev" / "dialogues_001.json").write_text(json.dumps(dialogues))
    shutil.copy(dev / "schema.json", root / "dev" / "schema.json")
    shutil.copy(dev.parent / "train" / "schema.json", root / "train" / "schema.json")
    return dialogues


def _written_predictions(dialogues: list[dict], schema: dict, value: object,
                         on_gold: bool = True) -> list[dict]:
    """User frame i (counted over the split): i % 3 == 0 and a non-empty state (and
    ``on_gold``): its alphabetically first slot's value list written as ``value``; i % 3 == 1
    (or an empty state): the first schema slot the state lacks added with ``value``;
    i % 3 == 2: unchanged. ``value`` is the whole value list as written (``_BARE``: the
    first gold value, or ``"x"`` for the added slot, as a bare string)."""
    out = copy.deepcopy(dialogues)
    i = 0
    for dialogue in out:
        for turn in dialogue["turns"]:
            if turn["speaker"] != "USER":
                continue
            for frame in turn["frames"]:
                values = frame["state"]["slot_values"]
                if i % 3 == 0 and values and on_gold:
                    first = sorted(values)[0]
                    values[first] = values[first][0] if value == _BARE else value
                elif i % 3 != 2:
                    extra = next(s["name"] for s in schema[frame["service"]]["slots"]
                                 if s["name"] not in values)
                    values[extra] = "x" if value == _BARE else value
                i += 1
    return out


@pytest.mark.parametrize("value", ["none", "", " ", "\t"])
@pytest.mark.parametrize("profile", ["sgd-official", "sgd-official-multiwoz"])
def test_blank_and_none_values_are_values(tmp_path: Path, shared_dir: Path, profile: str,
                                          value: str) -> None:
    """A predicted none, "" or whitespace is a value for the official scorer: a false
    positive where the gold has no value, a (fuzzy) mismatch where it has one."""
    from dst_eval import evaluate

    dialogues = _blank_split(shared_dir, tmp_path / "data")
    schema = {s["service_name"]: s
              for s in json.loads((tmp_path / "data" / "dev" / "schema.json").read_text())}
    (tmp_path / "pred").mkdir()
    (tmp_path / "pred" / "dialogues_001.json").write_text(
        json.dumps(_written_predictions(dialogues, schema, [value])))
    result = evaluate(tmp_path / "pred", gold=tmp_path / "data", split="dev", profile=profile)
    expected = _BLANK_OFFICIAL[(profile, "none" if value == "none" else "blank")]
    for group, numbers in expected.items():
        for metric, number in zip(_GOAL, numbers, strict=True):
            assert abs(result.official[group][metric] - number) <= TOLERANCE, (group, metric)
    assert len(result.official) == 13  # 3 groups, 5 services, 5 domains
    for metrics in result.official.values():
        assert all(metrics[m] == 1.0 for m in metrics if m not in _GOAL)



# Odd value lists, as the official scorer reads the JSON (``slot_values[slot][0]``):
# ``#ALL_SERVICES`` goal metrics (``_GOAL`` order) of the official DSTC8 scorer
# (../shared/anchors/sgd_official/run.sh, both modes) on ``_written_predictions`` of
# ``_blank_split``, run 2026-11-27. "bare": the first gold value written as a bare string
# (the scorer reads its first character) and the extra slot as "x"; "[] extra"/"7 extra":
# only the extra slots, where the gold has no value (a false positive whatever it holds).
_BARE = "bare"
_ODD_VALUES: dict[str, tuple[object, bool]] = {
    "bare": (_BARE, True), "[7]": ([7], True), "[2.5]": ([2.5], True),
    "[null]": ([None], True), "[true]": ([True], True), "[] extra": ([], False),
    "7 extra": (7, False)}
_ODD_OFFICIAL = {
    ("sgd-official", "bare"): (0.3630232558139535, 0.627906976744186, 0.7351162790697674,
                               0.8952276422764227, 0.7882882882882883, 0.9579285714285714),
    ("sgd-official-multiwoz", "bare"): (0.34210526315789475, 0.631578947368421,
                                        0.6842105263157895, 0.890650406504065,
                                        0.7882882882882883, 0.95),
    ("sgd-official", "[7]"): (0.32558139534883723, 0.6046511627906976, 0.7209302325581395,
                              0.8784552845528455, 0.7612612612612613, 0.95),
    ("sgd-official", "[2.5]"): (0.3311627906976744, 0.6046511627906976, 0.7265116279069768,
                                0.8809756097560975, 0.7612612612612613, 0.954857142857143),
    ("sgd-official", "[true]"): (0.336046511627907, 0.6046511627906976, 0.7313953488372092,
                                 0.8819268292682927, 0.7612612612612613, 0.9562857142857143),
    ("sgd-official", "[] extra"): (0.32558139534883723, 0.7674418604651163,
                                   0.5581395348837209, 1.0, 1.0, 1.0),
    ("sgd-official-multiwoz", "[] extra"): (0.3157894736842105, 0.7368421052631579, 0.5,
                                            1.0, 1.0, 1.0),
}
_ODD_OFFICIAL[("sgd-official", "[null]")] = _ODD_OFFICIAL[("sgd-official", "[7]")]
for _name in ("[7]", "[2.5]", "[null]", "[true]"):  # exact matching: no partial credit
    _ODD_OFFICIAL[("sgd-official-multiwoz", _name)] = _BLANK_OFFICIAL[
        ("sgd-official-multiwoz", "none")]["#ALL_SERVICES"]
for _profile in ("sgd-official", "sgd-official-multiwoz"):
    _ODD_OFFICIAL[(_profile, "7 extra")] = _ODD_OFFICIAL[(_profile, "[] extra")]


@pytest.mark.parametrize("name", list(_ODD_VALUES))
@pytest.mark.parametrize("profile", ["sgd-official", "sgd-official-multiwoz"])
def test_odd_value_lists_are_read_as_the_official_scorer_reads_them(
        tmp_path: Path, shared_dir: Path, profile: str, name: str) -> None:
    from dst_eval import evaluate

    dialogues = _blank_split(shared_dir, tmp_path / "data")
    schema = {s["service_name"]: s
              for s in json.loads((tmp_path / "data" / "dev" / "schema.json").read_text())}
    (tmp_path / "pred").mkdir()
    (tmp_path / "pred" / "dialogues_001.json").write_text(
        json.dumps(_written_predictions(dialogues, schema, *_ODD_VALUES[name])))
    result = evaluate(tmp_path / "pred", gold=tmp_path / "data", split="dev", profile=profile)
    expected = _ODD_OFFICIAL[(profile, name)]
    for metric, number in zip(_GOAL, expected, strict=True):
        assert abs(result.official["#ALL_SERVICES"][metric] - number) <= TOLERANCE, metric
    if name == "[] extra":  # the strict reading: an empty list is no value
        strict = evaluate(tmp_path / "pred", gold=tmp_path / "data", split="dev")
        assert strict.scores["joint_goal_accuracy"] == 1.0


@pytest.mark.parametrize(("value", "shown"), [([], "[]"), ("", '""'), (7, "7")])
def test_a_value_list_without_first_value_on_a_gold_slot_stops(
        tmp_path: Path, shared_dir: Path, capsys, value: object, shown: str) -> None:
    """Where the gold has the slot, the official scorer crashes on ``[]``, ``""`` or a
    number (``slot_values[slot][0]``): sgd-official has no number, exit 3."""
    from dst_eval.cli import main

    dialogues = _blank_split(shared_dir, tmp_path / "data")
    preds = copy.deepcopy(dialogues)
    frame = next(f for t in preds[0]["turns"] if t["speaker"] == "USER"
                 for f in t["frames"] if f["state"]["slot_values"])
    slot = sorted(frame["state"]["slot_values"])[0]
    frame["state"]["slot_values"][slot] = value
    (tmp_path / "pred").mkdir()
    (tmp_path / "pred" / "dialogues_001.json").write_text(json.dumps(preds))
    args = [str(tmp_path / "pred"), "--gold", str(tmp_path / "data"), "--split", "dev"]
    assert main([*args, "--profile", "sgd-official"]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"dialogue {preds[0]['dialogue_id']}" in err and f"slot {slot!r}" in err
    assert f"the value list {shown} has no first value" in err
    assert main([*args, "-f", "json"]) == 0  # strict reads it, with a warning

def test_group_means_equal_a_loop_over_memberships():
    """group_means against the definition: each listing of a frame in a group adds its
    non-NaN value once (a group listed twice in a service's row counts the frame twice)."""
    from dst_eval.metrics.sgd_frame import group_means

    rng = np.random.default_rng(7)
    n_frames, n_metrics, n_services, n_groups = 500, 4, 5, 9
    values = rng.random((n_frames, n_metrics))
    values[rng.random(values.shape) < 0.3] = np.nan
    values[:, 3] = np.nan  # a metric that never applies
    frame_services = rng.integers(0, n_services, n_frames)
    service_groups = rng.integers(0, n_groups - 1, (n_services, 3))
    service_groups[0, 2] = service_groups[0, 1]  # listed twice, as a service named like its domain
    means, counts = group_means(values, frame_services, service_groups, n_groups)
    for g in range(n_groups):
        for j in range(n_metrics):
            listed = [values[i, j] for i in range(n_frames)
                      for group in service_groups[frame_services[i]]
                      if group == g and not math.isnan(values[i, j])]
            assert counts[g, j] == len(listed)
            if listed:
                assert means[g, j] == pytest.approx(sum(listed) / len(listed), rel=1e-12)
            else:
                assert math.isnan(means[g, j])
    assert counts[:, 3].sum() == 0 and counts[n_groups - 1].sum() == 0


def test_turn_joint_is_turn_products_with_one_group():
    """turn_joint (frames in turn order, no sort) equals the general turn_products with every
    frame in one group, NaN frames and turns without a scored frame included."""
    from dst_eval.metrics.sgd_frame import turn_joint, turn_products

    rng = np.random.default_rng(3)
    turn_of_frame = np.sort(rng.integers(0, 300, 1000))
    values = rng.random(1000)
    values[rng.random(1000) < 0.3] = np.nan
    keys, products = turn_products(values, np.arange(1000), np.zeros(1000, dtype=np.int64),
                                   turn_of_frame, 1)
    turns, joint = turn_joint(values, turn_of_frame)
    assert np.array_equal(turns, keys) and np.array_equal(joint, products)
    assert len(turns) < len(np.unique(turn_of_frame))  # some turns have only NaN frames
