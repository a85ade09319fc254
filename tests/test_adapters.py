"""Output adapters on small files in each system's exact layout (written by us from the
format's definition: the adapter modules' docstrings cite where).

Every file predicts the same states for the 3-turn test dialogue SMPL001 of
``gold_samples/multiwoz21``: turn 0 misses ``hotel-stars = dontcare``, turns 1 and 2
equal the gold. So every format scores JGA 2/3 under ``strict`` (by construction), and
the reader-level tests check each format's quirks (turn keys, markers, ids).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dst_eval.api import evaluate
from dst_eval.cli.app import main
from dst_eval.errors import PredictionError
from dst_eval.predictions.adapted import UNSET_MARKER
from dst_eval.predictions.reader import detect_format, read_predictions

T1 = {"hotel-area": "east", "hotel-bookday": "tuesday", "hotel-bookpeople": "2",
      "hotel-bookstay": "3", "hotel-name": "allenbell", "hotel-pricerange": "cheap",
      "hotel-stars": "dontcare"}
T2 = {**T1, "train-arriveby": "18:00", "train-day": "tuesday", "train-destination": "cambridge",
      "train-leaveat": "dontcare"}
T0_PRED = {"hotel-area": "east", "hotel-pricerange": "cheap"}
PREDICTED = [T0_PRED, T1, T2]
TRADE_BELIEF = [
    ["hotel-area-east", "hotel-pricerange-cheap"],
    ["hotel-area-east", "hotel-book day-tuesday", "hotel-book people-2", "hotel-book stay-3",
     "hotel-name-allenbell", "hotel-pricerange-cheap", "hotel-stars-dontcare"],
]
TRADE_BELIEF.append(TRADE_BELIEF[1] + ["train-arriveby-18:00", "train-day-tuesday",
                                       "train-destination-cambridge", "train-leaveat-dontcare"])
GOLD_T0 = ["hotel-area-east", "hotel-pricerange-cheap", "hotel-stars-dontcare"]


@pytest.fixture(scope="module")
def gold(gold_samples: Path) -> Path:
    return gold_samples / "multiwoz21" / "data.json"


def _json(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    return path


def _score(path: Path, gold: Path, **options):
    return evaluate(path, gold=gold, corpus="multiwoz21", split="test", **options)


def _states(path: Path, **kw) -> list[dict]:
    predictions = read_predictions(path, corpus="multiwoz21", **kw)
    (dialogue,) = predictions.dialogues
    return [dict(t.state) for t in predictions.dialogues[dialogue]]


def trade_file(tmp_path: Path) -> Path:
    gold_beliefs = [GOLD_T0, TRADE_BELIEF[1], TRADE_BELIEF[2]]
    return _json(tmp_path / "all_prediction_TRADE.json", {"SMPL001.json": {
        str(i): {"turn_belief": gold_beliefs[i], "pred_bs_ptr": TRADE_BELIEF[i]}
        for i in range(3)}})


def somdst_file(tmp_path: Path) -> Path:
    gold_beliefs = [GOLD_T0, TRADE_BELIEF[1], TRADE_BELIEF[2]]
    return _json(tmp_path / "preds_29.json", {f"SMPL001.json_{i}": [TRADE_BELIEF[i],
                                                                   gold_beliefs[i]]
                                              for i in range(3)})


TRIPPY_SLOTS = ["hotel-area", "hotel-book_day", "hotel-book_people", "hotel-book_stay",
                "hotel-name", "hotel-pricerange", "hotel-stars", "train-arriveBy", "train-day",
                "train-destination", "train-leaveAt"]


def _trippy_key(slot: str) -> str:
    return slot.replace("book_", "book").lower()


def trippy_file(tmp_path: Path) -> Path:
    records = []
    for i, state in enumerate(PREDICTED):
        record: dict = {"guid": ["test", "SMPL001.json", str(i)]}
        for slot in TRIPPY_SLOTS:
            value = state.get(_trippy_key(slot), "none")
            if slot == "hotel-name" and value != "none":
                value = "§§" + value  # an informed value, as run_dst.py marks it
            gold_value = (T2 if i == 2 else T1 if i == 1 else
                          {**T0_PRED, "hotel-stars": "dontcare"}).get(_trippy_key(slot), "none")
            record[f"class_prediction_{slot}"] = 0 if value == "none" else 2
            record[f"class_label_id_{slot}"] = 0
            record[f"slot_prediction_{slot}"] = value
            record[f"slot_groundtruth_{slot}"] = gold_value
        records.append(record)
    return _json(tmp_path / "pred_res.test.final.json", records)


def simpletod_file(tmp_path: Path) -> Path:
    beliefs = [[b.replace("-", " ", 1).replace("-", " ", 1) for b in belief]
               for belief in TRADE_BELIEF]
    beliefs[0][-1] += " <|endoftext|>"
    text = "<|belief|> " + " , ".join(beliefs[2]) + " <|endofbelief|> <|action|> x"
    return _json(tmp_path / "simpletod_test.json", {"SMPL001.json": {
        "target_turn_belief": [[b.replace("-", " ", 1).replace("-", " ", 1) for b in GOLD_T0],
                               beliefs[1], beliefs[2]],
        "generated_turn_belief": [beliefs[0], beliefs[1], text],
        "generated_response": ["", "", ""]}})


def icdst_file(tmp_path: Path) -> Path:
    records = [{"ID": "SMPL001.json", "turn_id": i, "domains": ["hotel", "train"],
                "pred": dict(state), "slot_values": dict(state), "completion": "SELECT ..."}
               for i, state in enumerate(PREDICTED)]
    records[0]["slot_values"] = {**T0_PRED, "hotel-stars": "dontcare"}
    return _json(tmp_path / "running_log.json", records)


def ldst_file(tmp_path: Path) -> Path:
    slots = [("hotel", "area"), ("hotel", "book day"), ("hotel", "book people"),
             ("hotel", "book stay"), ("hotel", "name"), ("hotel", "pricerange"),
             ("hotel", "stars"), ("train", "arriveby"), ("train", "day"),
             ("train", "destination"), ("train", "leaveat"), ("taxi", "departure")]
    lines = []
    for i, state in enumerate(PREDICTED):
        for domain, slot in slots:
            value = state.get(f"{domain}-{slot.replace(' ', '')}", "NONE")
            answer = "[]" if domain == "taxi" else repr([value])
            lines.append(f"data.json|||SMPL001.json|||{2 * i + 1}|||0|||{domain}|||{slot}|||"
                         f"{answer}")
    path = tmp_path / "results.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


UNIFIED = {"bookday": "book day", "bookpeople": "book people", "bookstay": "book stay",
           "pricerange": "price range", "arriveby": "arrive by", "leaveat": "leave at"}


def _unified(state: dict) -> dict:
    nested: dict = {"hotel": {"area": "", "price range": "", "stars": ""}}
    for key, value in state.items():
        domain, slot = key.split("-")
        nested.setdefault(domain, {})[UNIFIED.get(slot, slot)] = value
    return nested


def convlab_file(tmp_path: Path, *, ids: bool = True) -> Path:
    golds = [{**T0_PRED, "hotel-stars": "dontcare"}, T1, T2]
    samples = []
    for i, state in enumerate(PREDICTED):
        sample = {"utt_idx": 2 * i, "speaker": "user", "utterance": "...",
                  "state": _unified(golds[i]), "predictions": {"state": _unified(state)}}
        if ids:
            sample = {"dialogue_id": "SMPL001.json", **sample}
        samples.append(sample)
    return _json(tmp_path / "predictions.json", samples)


def jmultiwoz_file(tmp_path: Path) -> Path:
    turns = []
    for i, state in enumerate(PREDICTED):
        belief: dict = {}
        book: dict = {}
        for key, value in state.items():
            domain, slot = key.split("-")
            if slot.startswith("book"):
                book.setdefault(domain, {})[slot[4:]] = value
            else:
                belief.setdefault(domain, {})[slot] = value
        turns.append({"turn_id": 2 * i, "speaker": "USER", "utterance": "..."})
        turns.append({"turn_id": 2 * i + 1, "speaker": "SYSTEM",
                      "utterance": f"response {i}",
                      "dialogue_state": {"belief_state": belief, "book_state": book}})
    return _json(tmp_path / "e2e.inference.json", {"SMPL001.json": {"turns": turns}})


WRITERS = {"trade": trade_file, "somdst": somdst_file, "trippy": trippy_file,
           "simpletod": simpletod_file, "icdst": icdst_file, "ldst": ldst_file,
           "convlab": convlab_file, "jmultiwoz-inference": jmultiwoz_file}


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_each_format_reads_the_same_states_and_scores_two_of_three(tmp_path, gold, fmt):
    path = WRITERS[fmt](tmp_path)
    assert detect_format(path) == fmt
    states = _states(path)
    unset = {"convlab": "", "trippy": "none", "ldst": "NONE"}.get(fmt)
    if unset is not None:  # ConvLab / TripPy / LDST write every slot, "" / none / NONE where
        # unset: kept verbatim (strict reads each as unset)
        assert states[0]["hotel-stars"] == unset
        states = [{k: v for k, v in state.items() if v != unset} for state in states]
    assert states == PREDICTED
    assert len(_states(path, pred_format=fmt)) == 3
    result = _score(path, gold)
    assert result.scores["joint_goal_accuracy"] == pytest.approx(2 / 3)
    assert result.coverage["coverage"] == 1.0
    kinds = {issue.kind for issue in result.issues}
    assert "embedded_gold_mismatch" not in kinds


def test_convlab_without_dialogue_id_is_aligned_by_order(tmp_path, gold):
    path = convlab_file(tmp_path, ids=False)
    predictions = read_predictions(path, corpus="multiwoz21")
    assert list(predictions.dialogues) == ["#0"]
    result = _score(path, gold)
    assert result.scores["joint_goal_accuracy"] == pytest.approx(2 / 3)


def test_convlab_order_refused_when_the_embedded_gold_differs(tmp_path, gold):
    path = convlab_file(tmp_path, ids=False)
    samples = json.loads(path.read_text(encoding="utf-8"))
    samples[1]["state"]["hotel"]["area"] = ""  # the sample's own gold no longer matches
    _json(path, samples)
    with pytest.raises(PredictionError, match="sample's gold state differs") as err:
        _score(path, gold)
    assert err.value.turn == 1


def test_values_are_kept_verbatim(tmp_path):
    path = _json(tmp_path / "p.json", {"X.json": {"0": {"pred_bs_ptr": [
        "hotel-name-alpha-milton guest house", "hotel-type-guest house", "hotel-area-none"]}}})
    assert _states(path) == [{"hotel-name": "alpha-milton guest house",
                              "hotel-type": "guest house", "hotel-area": "none"}]
    trippy = _json(tmp_path / "t.json", [{"guid": "test-X.json-0",
                                          "slot_prediction_hotel-area": "none",
                                          "slot_prediction_hotel-name": "§§ a and b"}])
    assert _states(trippy) == [{"hotel-area": "none", "hotel-name": "a and b"}]


def test_ldst_none_marker_and_empty_answer(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text("data.json|||X.json|||3|||0|||hotel|||area|||['NONE']\n"
                    "data.json|||X.json|||3|||0|||hotel|||name|||[\"king's college\"]\n"
                    "data.json|||X.json|||3|||0|||taxi|||leaveat|||[]\n", encoding="utf-8")
    predictions = read_predictions(path, corpus="multiwoz21")
    turns = predictions.dialogues["X.json"]
    assert len(turns) == 2 and turns[0].state is None  # utt 3 = user turn 1; turn 0 a gap
    # NONE is kept (the format's unset literal, declared for the profiles); [] is no line
    assert dict(turns[1].state) == {"hotel-area": "NONE", "hotel-name": "king's college"}
    assert predictions.metadata[UNSET_MARKER] == "NONE"
    assert [i.kind for i in predictions.issues] == ["missing_turn"]


def _sgd_ldst_lines(gold_dir: Path) -> list[str]:
    """The SGD sample gold as LDST lines: dialogue = position in dialogues_001.json,
    utt_index = the USER turn's position in ``turns``."""
    dialogues = json.loads((gold_dir / "dialogues_001.json").read_text(encoding="utf-8"))
    lines = []
    for position, dialogue in enumerate(dialogues):
        for utt, turn in enumerate(dialogue["turns"]):
            if turn["speaker"] != "USER":
                continue
            for frame_index, frame in enumerate(turn["frames"]):
                for slot, values in frame["state"]["slot_values"].items():
                    lines.append(f"dialogues_001.json|||{position}|||{utt}|||{frame_index}|||"
                                 f"{frame['service']}|||{slot}|||{[values[0]]!r}")
                lines.append(f"dialogues_001.json|||{position}|||{utt}|||{frame_index}|||"
                             f"{frame['service']}|||unasked_slot|||[]")
    return lines


def test_ldst_positions_in_sgd_files_are_resolved_from_the_gold_folder(tmp_path,
                                                                         gold_samples):
    gold_dir = gold_samples / "sgd"
    lines = _sgd_ldst_lines(gold_dir)
    path = tmp_path / "results.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    predictions = read_predictions(path)
    assert "dialogues_001.json#0" in predictions.dialogues
    result = evaluate(path, gold=gold_dir)
    assert result.scores["joint_goal_accuracy"] == 1.0
    assert result.coverage["coverage"] == 1.0 and result.coverage["extra_dialogues"] == 0
    shards = tmp_path / "shards"
    shards.mkdir()
    half = len(lines) // 2
    (shards / "results_0.txt").write_text("\n".join(lines[:half]) + "\n", encoding="utf-8")
    (shards / "results_1.txt").write_text("\n".join(lines[half:]) + "\n", encoding="utf-8")
    assert evaluate(shards, gold=gold_dir).scores["joint_goal_accuracy"] == 1.0
    (shards / "results_1.txt").write_text("\n".join(lines[half - 1:]) + "\n",
                                          encoding="utf-8")  # one line in both shards
    with pytest.raises(PredictionError, match=f"results_0.txt line {half} and .*results_1"):
        read_predictions(shards)
    (shards / "results_1.txt").unlink()
    wrong = [line.replace("dialogues_001.json", "dialogues_009.json") for line in lines]
    path.write_text("\n".join(wrong) + "\n", encoding="utf-8")
    with pytest.raises(PredictionError, match="names no gold file read for this run"):
        evaluate(path, gold=gold_dir)
    # a position names a file the gold loader read, never another one
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps([{"dialogue_id": "SECRET"}]), encoding="utf-8")
    for name in ("../outside.json", str(outside)):
        path.write_text("\n".join(line.replace("dialogues_001.json", name, 1)
                                  for line in lines) + "\n", encoding="utf-8")
        with pytest.raises(PredictionError, match="not a file name|names no gold file") as info:
            evaluate(path, gold=gold_dir)
        assert "SECRET" not in str(info.value)
    wrapped = {"metadata": {"positional": True},  # a file claiming positions: same rule
               "predictions": {f"{outside}#0": [{"state": {}}]}}
    path.write_text(json.dumps(wrapped), encoding="utf-8")
    with pytest.raises(PredictionError) as info:
        evaluate(path, gold=gold_dir)
    assert "SECRET" not in str(info.value)


def test_ldst_positions_resolve_under_a_multiwoz22_root_and_split(tmp_path, gold_samples):
    """DST-as-Prompting / LDST lines for MultiWOZ 2.2 (``dialogues_001.json|||<position>|||
    <turn_id>|||<frame>|||hotel|||area|||['…']``) with ``--gold ROOT --split test``, as
    with the split directory: a perfect copy scores 1."""
    root = tmp_path / "mwz22"
    (root / "test").mkdir(parents=True)
    shutil.copy(gold_samples / "multiwoz22" / "dialogues_001.json", root / "test")
    shutil.copy(gold_samples / "multiwoz22" / "schema.json", root / "schema.json")
    dialogues = json.loads((root / "test" / "dialogues_001.json").read_text(encoding="utf-8"))
    lines = []
    for position, dialogue in enumerate(dialogues):
        for turn in dialogue["turns"]:
            if turn["speaker"] != "USER":
                continue
            for index, frame in enumerate(turn["frames"]):
                for key, values in frame["state"]["slot_values"].items():
                    domain, slot = key.split("-", 1)
                    lines.append(f"dialogues_001.json|||{position}|||{turn['turn_id']}|||"
                                 f"{index}|||{domain}|||{slot}|||{[values[0]]!r}")
    path = tmp_path / "results.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert evaluate(path, gold=root, split="test").scores["joint_goal_accuracy"] == 1.0
    assert evaluate(path, gold=root / "test").scores["joint_goal_accuracy"] == 1.0


def test_ldst_marker_is_exact_so_the_sgd_value_none_is_a_value(tmp_path, gold_samples):
    """LDST's unset literal is ``NONE`` as written (its postprocessing drops a slot only
    when ``val == "NONE"``); SGD has the value ``None`` (``Media_2-subtitle_language``),
    which must stay a value: a perfect copy of a gold holding it scores JGA 1."""
    gold_dir = tmp_path / "sgd"
    shutil.copytree(gold_samples / "sgd", gold_dir)
    dialogues = json.loads((gold_dir / "dialogues_001.json").read_text(encoding="utf-8"))
    changed = 0
    for dialogue in dialogues:
        for turn in dialogue["turns"]:
            for frame in turn["frames"] if turn["speaker"] == "USER" else ():
                for slot in frame["state"]["slot_values"]:
                    frame["state"]["slot_values"][slot] = ["None"]
                    changed += 1
                    break
    assert changed
    (gold_dir / "dialogues_001.json").write_text(json.dumps(dialogues), encoding="utf-8")
    path = tmp_path / "results.txt"
    path.write_text("\n".join(_sgd_ldst_lines(gold_dir)) + "\n", encoding="utf-8")
    assert "['None']" in path.read_text(encoding="utf-8")
    result = evaluate(path, gold=gold_dir)
    assert result.scores["joint_goal_accuracy"] == 1.0 and result.scores["slot_f1"] == 1.0
    assert "|format-unset:NONE|" in str(result.signature)


def test_ldst_none_is_unset_under_strict_and_a_value_under_sgd_official(tmp_path,
                                                                          gold_samples):
    """LDST on SGD writes ``['NONE']`` for each schema slot a frame does not fill: strict
    reads the format's literal as unset (JGA 1, named in the signature); sgd-official, like
    the DSTC8 scorer given such a state, scores it as a value: a frame is right only when
    no NONE line names one of its service's schema slots, and one warning counts them."""
    gold_dir = gold_samples / "sgd"
    schema = {s["service_name"]: [slot["name"] for slot in s["slots"]]
              for s in json.loads((gold_dir / "schema.json").read_text(encoding="utf-8"))}
    dialogues = json.loads((gold_dir / "dialogues_001.json").read_text(encoding="utf-8"))
    lines, frames_right, n_none = [], [], 0
    for position, dialogue in enumerate(dialogues):
        for utt, turn in enumerate(dialogue["turns"]):
            if turn["speaker"] != "USER":
                continue
            for index, frame in enumerate(turn["frames"]):
                values = frame["state"]["slot_values"]
                unset = [slot for slot in schema[frame["service"]] if slot not in values]
                answers = [*((slot, [v[0]]) for slot, v in values.items()),
                           *((slot, ["NONE"]) for slot in unset)]
                lines += [f"dialogues_001.json|||{position}|||{utt}|||{index}|||"
                          f"{frame['service']}|||{slot}|||{answer!r}" for slot, answer in answers]
                frames_right.append(not unset)
                n_none += len(unset)
    path = tmp_path / "results.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert 0 < sum(frames_right) < len(frames_right)
    strict = evaluate(path, gold=gold_dir)
    assert strict.scores["joint_goal_accuracy"] == 1.0 and strict.scores["slot_f1"] == 1.0
    assert "|format-unset:NONE|" in str(strict.signature)
    assert not [i for i in strict.issues if i.kind == "unset_marker_scored"]
    official = evaluate(path, gold=gold_dir, profile="sgd-official")
    assert official.scores["joint_goal_accuracy"] == pytest.approx(
        sum(frames_right) / len(frames_right), abs=1e-12)
    assert official.counts["unset_marker_values"] == n_none
    [named] = [i for i in official.issues if i.kind == "unset_marker_scored"]
    assert f"{n_none:,} predicted 'NONE' values" in named.message
    assert "the strict profile reads it as unset" in named.message
    assert "format-unset" not in str(official.signature)


def test_simpletod_plain_belief_strings(tmp_path):
    path = _json(tmp_path / "s.json", {"X": [
        "<|belief|> hotel area east , hotel book people 2 <|endofbelief|>",
        "<|endoftext|> <|belief|> <|endofbelief|>"]})
    assert detect_format(path) == "simpletod"
    assert _states(path) == [{"hotel-area": "east", "hotel-bookpeople": "2"}, {}]


def test_a_turn_left_out_of_a_positional_format_is_explained(tmp_path, gold_samples):
    """mwzeval files number turns by position: the first turn left out shows as the last
    one missing; the warning says so."""
    from dst_eval.api import evaluate

    folder = gold_samples / "multiwoz22"
    predictions = json.loads((folder / "predictions.json").read_text(encoding="utf-8"))
    first = next(iter(predictions))
    predictions[first] = predictions[first][1:]
    result = evaluate(_json(tmp_path / "p.json", predictions), gold=folder)
    [issue] = [i for i in result.issues if i.kind == "turn_count_mismatch"]
    assert issue.message.endswith("are missing (this format numbers turns by their position: "
                                  "a turn left out anywhere shows as missing at the end, and "
                                  "the turns after it are shifted)")
    predictions[first] = predictions[first] * 3  # extra turns: no note about missing ones
    result = evaluate(_json(tmp_path / "q.json", predictions), gold=folder)
    [issue] = [i for i in result.issues if i.kind == "turn_count_mismatch"]
    assert issue.message.endswith("are extra and ignored")
    # SGD-style files number the USER turns by their order: the same note
    sgd = gold_samples / "sgd"
    native = json.loads((sgd / "dialogues_001.json").read_text(encoding="utf-8"))
    del native[0]["turns"][:2]  # its first USER and SYSTEM turns
    (tmp_path / "sgd").mkdir()
    result = evaluate(_json(tmp_path / "sgd" / "dialogues_001.json", native), gold=sgd)
    [issue] = [i for i in result.issues if i.kind == "turn_count_mismatch"]
    assert "(this format numbers turns by their position" in issue.message


def test_trade_record_keys_that_are_not_read_are_reported(tmp_path):
    """A TRADE turn record with a key besides pred_bs_ptr and turn_belief (a 'state' the
    user meant to be scored) gives one Issue naming it; it used to be ignored silently."""
    path = _json(tmp_path / "t.json", {"X.json": {
        "0": {"turn_belief": [], "pred_bs_ptr": ["hotel-area-east"],
              "state": {"hotel-area": "west"}},
        "1": {"turn_belief": [], "pred_bs_ptr": [], "state": {}}}})
    read = read_predictions(path, pred_format="trade")
    assert [t.state for t in read.dialogues["X.json"]] == [{"hotel-area": "east"}, {}]
    [issue] = read.issues
    assert (issue.kind, issue.dialogue, issue.turn) == ("unknown_key", "X.json", 0)
    assert issue.message == ("keys of turn records that are not read: 'state' (2 turns); "
                             "TRADE's prediction is 'pred_bs_ptr'")
    many = {"X.json": {str(t): {"pred_bs_ptr": [], f"k{t}": 1} for t in range(12)}}
    [issue] = read_predictions(_json(tmp_path / "m.json", many), pred_format="trade").issues
    assert issue.message.startswith("keys of turn records that are not read: 'k0' (1 turn), "
                                    "'k1' (1 turn), 'k10' (1 turn), 'k11' (1 turn), 'k2' (1 "
                                    "turn) and 7 more;")


def test_simpletod_text_without_a_belief_marker_is_reported(tmp_path):
    """Items written as text without <|belief|> predict no state, with an Issue naming the
    turn (they were read silently as no prediction); a text of tokens only is no problem."""
    path = _json(tmp_path / "s.json", {"X": {"generated_turn_belief": [
        "hotel area east , hotel pricerange cheap", "<|endoftext|>",
        "<|belief|> hotel area east <|endofbelief|>"]}})
    read = read_predictions(path, pred_format="simpletod")
    assert [t.state for t in read.dialogues["X"]] == [{}, {}, {"hotel-area": "east"}]
    [issue] = read.issues
    assert (issue.kind, issue.dialogue, issue.turn) == ("no_belief_marker", "X", 0)
    assert issue.message.startswith("generated text 'hotel area east , hotel pricerange "
                                    "cheap' has no <|belief|> marker")
    # a first turn without belief hides the format from detection: the error says which
    first_empty = _json(tmp_path / "t.json", {"X": [
        "<|endoftext|>", "<|belief|> hotel area east <|endofbelief|>"]})
    with pytest.raises(PredictionError, match="SimpleTOD generated text\\? --pred-format "
                                              "simpletod reads it"):
        read_predictions(first_empty)
    assert [t.state for t in read_predictions(first_empty, pred_format="simpletod")
            .dialogues["X"]] == [{}, {"hotel-area": "east"}]


@pytest.mark.parametrize(("content", "message"), [
    ({"X.json": {"0": {"pred_bs_ptr": ["hotel-area"]}}}, "is not 'domain-slot-value'"),
    ({"X.json": {"zero": {"pred_bs_ptr": []}}}, "turn index"),
    ({"X.json_0": [["hotel-area-east"], []], "X.json_x": [[], []]}, "turn index"),
])
def test_malformed_files_are_one_line_errors(tmp_path, content, message):
    path = _json(tmp_path / "p.json", content)
    with pytest.raises(PredictionError, match=message):
        read_predictions(path)


def test_a_turn_given_twice_is_refused(tmp_path):
    records = [{"ID": "X.json", "turn_id": 0, "pred": {}},
               {"ID": "X.json", "turn_id": 0, "pred": {"hotel-area": "east"}}]
    with pytest.raises(PredictionError, match="record 0 and record 1") as err:
        read_predictions(_json(tmp_path / "log.json", records))
    assert (err.value.dialogue, err.value.turn) == ("X.json", 0)


def _icdst_shard(path: Path, turns: list[int]) -> Path:
    return _json(path, [{"ID": "SMPL001.json", "turn_id": i, "pred": PREDICTED[i]}
                        for i in turns])


def test_shards_are_one_submission(tmp_path, gold):
    shards = tmp_path / "out"
    shards.mkdir()
    _icdst_shard(shards / "log_0.json", [0, 2])
    _icdst_shard(shards / "log_1.json", [1])
    for source in (shards, shards / "log_*.json"):
        predictions = read_predictions(source, corpus="multiwoz21")
        assert [dict(t.state) for t in predictions.dialogues["SMPL001.json"]] == PREDICTED
        assert not predictions.issues
        assert _score(source, gold).scores["joint_goal_accuracy"] == pytest.approx(2 / 3)


def test_overlapping_shards_exit_3_naming_both_files(tmp_path, gold, capsys):
    shards = tmp_path / "out"
    shards.mkdir()
    first = _icdst_shard(shards / "log_0.json", [0, 1])
    second = _icdst_shard(shards / "log_1.json", [1, 2])
    code = main([str(shards), "--gold", str(gold), "--corpus", "multiwoz21",
                 "--split", "test", "--format", "json", "--no-report"])
    err = capsys.readouterr().err
    assert code == 3
    assert str(first) in err and str(second) in err and "turn 1" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_glob_without_match_is_an_error(tmp_path):
    with pytest.raises(PredictionError, match="no prediction file matches"):
        read_predictions(tmp_path / "nothing_*.json")


def test_embedded_gold_disagreement_is_reported(tmp_path, gold):
    path = trade_file(tmp_path)
    content = json.loads(path.read_text(encoding="utf-8"))
    content["SMPL001.json"]["2"]["turn_belief"] = TRADE_BELIEF[2][1:]  # hotel-area missing
    _json(path, content)
    result = _score(path, gold)  # 1 of 3 turns differ: a warning, not a refusal
    (issue,) = [i for i in result.issues if i.kind == "embedded_gold_mismatch"]
    assert "1 of 3 turns" in issue.message
    assert result.scores["joint_goal_accuracy"] == pytest.approx(2 / 3)  # never scored
    for turn in ("0", "1"):
        content["SMPL001.json"][turn]["turn_belief"] = ["hotel-area-west"]
    _json(path, content)
    with pytest.raises(PredictionError, match="not aligned with this gold"):
        _score(path, gold)


def test_convlab_empty_values_are_named_under_a_profile_that_scores_them(tmp_path, gold):
    """ConvLab's unified state writes ``""`` for every unset slot: under ``--profile
    mwzeval``, which scores ``""`` as a value as mwzeval does, the false positives are
    counted and said (they were not: JGA 0.00 against 49.27 under ``convlab`` on a published
    system's 2.1 test predictions, without a word); ``strict`` reads ``""`` as unset."""
    path = convlab_file(tmp_path)
    strict = evaluate(path, gold=gold, split="test")
    assert not [i for i in strict.issues if i.kind == "unset_marker_scored"]
    assert "format-unset" not in str(strict.signature)
    mwzeval = evaluate(path, gold=gold, split="test", profile="mwzeval")
    [named] = [i for i in mwzeval.issues if i.kind == "unset_marker_scored"]
    n_empty = mwzeval.counts["unset_marker_values"]
    assert n_empty > 0 and f"{n_empty:,} predicted '' values" in named.message
