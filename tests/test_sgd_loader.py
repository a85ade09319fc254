"""SGD gold loader (native, corpus root, single file, Hugging Face export) and the
SGD-style prediction reader."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from dst_eval.corpora import load_gold
from dst_eval.corpora.sgd import loader as sgd
from dst_eval.errors import GoldDataError, PredictionError, UsageError
from dst_eval.gold import GoldSet, SlotSpan
from dst_eval.predictions.sgd_frames import looks_like_sgd_frames, read_sgd_frame_predictions


@pytest.fixture()
def sample_dir(gold_samples: Path) -> Path:
    return gold_samples / "sgd"


@pytest.fixture()
def sample(sample_dir: Path) -> GoldSet:
    return sgd.load(sample_dir)


@pytest.fixture()
def native(sample_dir: Path) -> list[dict]:
    return json.loads((sample_dir / "dialogues_001.json").read_text())


@pytest.fixture(scope="session")
def sgd_dev(sgd_dev_gold: GoldSet) -> GoldSet:
    return sgd_dev_gold  # conftest: loaded once per test process


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


# --------------------------------------------------------------------------- gold_samples


def test_sample_counts_and_schema(sample: GoldSet) -> None:
    assert [d.dialogue_id for d in sample] == ["sample_001", "sample_002", "sample_003",
                                                "sample_004"]
    assert [len(d.turns) for d in sample] == [3, 2, 3, 1]
    assert sample.corpus == "sgd" and sample.split is None and sample.seen_services is None
    assert list(sample.schema) == ["Cafes_1", "Trains_7", "Weather_5"]
    cafes = sample.schema["Cafes_1"]
    assert cafes.slots == ("city", "cafe_name", "seating", "party_size", "time")
    assert cafes.categorical == {"seating", "party_size"}
    assert cafes.intents == ("FindCafe", "BookTable")
    assert len(sample.slots) == 13 and "Weather_5-temperature" in sample.slots
    assert sample.categorical_slots == {"Cafes_1-seating", "Cafes_1-party_size",
                                        "Trains_7-travel_class", "Trains_7-passengers"}


def test_sample_turns(sample: GoldSet) -> None:
    first = sample.get("SAMPLE_001.json").turns[1]  # ids match case-insensitively
    assert first.turn_index == 1 and first.raw_turn_index == 2
    assert first.user_utterance.startswith("Book Blue Cup")
    assert first.system_response == "Your table is booked."
    assert first.state["Cafes_1-time"] == ("9:30 am", "half past 9 in the morning")
    assert list(first.state) == sorted(first.state)
    assert first.active_intents == {"Cafes_1": "BookTable"}
    frame = first.frames[0]
    assert frame.slot_values["Cafes_1-time"][0] == "9:30 am"
    assert frame.slot_values is first.state  # one frame, SGD's names: one mapping
    span = next(s for s in frame.spans if s.slot == "time")
    assert first.user_utterance[span.start:span.end] == "half past 9 in the morning"
    assert isinstance(span, SlotSpan)

    multi = sample.get("sample_003").turns[1]
    assert multi.services == ("Trains_7", "Weather_5")
    assert [f.service for f in multi.frames] == ["Trains_7", "Weather_5"]
    assert multi.state == {"Trains_7-date": ("tomorrow",), "Trains_7-from_city": ("New York",),
                           "Trains_7-to_city": ("Boston",), "Weather_5-city": ("Boston",),
                           "Weather_5-date": ("tomorrow",)}
    assert list(multi.state) == sorted(multi.state)
    assert multi.requested_slots == {"Weather_5-temperature"}
    last = sample.get("sample_004").turns[0]
    assert last.system_response == "It is 21 degrees in San Jose."
    assert last.state["Weather_5-date"] == ("dontcare",)


def test_single_file_and_detection(sample_dir: Path, sample: GoldSet) -> None:
    single = sgd.load(sample_dir / "dialogues_001.json")
    assert single.dialogues == sample.dialogues and single.schema == sample.schema
    assert sgd.sniff(sample_dir) and sgd.sniff(sample_dir / "dialogues_001.json")
    assert not sgd.sniff(sample_dir / "schema.json")
    assert load_gold(sample_dir).dialogues == sample.dialogues  # detected as SGD


def _to_hf(dialogue: dict) -> dict:
    """The Hugging Face schema_guided_dstc8 record layout (columnar turns and frames)."""
    turns: dict[str, list] = {"speaker": [], "utterance": [], "frames": []}
    for turn in dialogue["turns"]:
        turns["speaker"].append(0 if turn["speaker"] == "USER" else 1)
        turns["utterance"].append(turn["utterance"])
        frames: dict[str, list] = {"service": [], "slots": [], "state": [], "actions": []}
        for frame in turn["frames"]:
            frames["service"].append(frame["service"])
            frames["slots"].append({k: [s[k] for s in frame["slots"]]
                                    for k in ("slot", "start", "exclusive_end")})
            state = frame.get("state", {"active_intent": "", "requested_slots": [],
                                        "slot_values": {}})
            frames["state"].append({
                "active_intent": state["active_intent"],
                "requested_slots": state["requested_slots"],
                "slot_values": {"slot_name": list(state["slot_values"]),
                                "slot_value_list": list(state["slot_values"].values())},
            })
            frames["actions"].append({"act": [], "slot": [], "canonical_values": [],
                                      "values": []})
        turns["frames"].append(frames)
    return {"dialogue_id": dialogue["dialogue_id"], "services": dialogue["services"],
            "turns": turns}


def test_hugging_face_export(tmp_path: Path, sample_dir: Path, native: list[dict],
                             sample: GoldSet) -> None:
    shutil.copy(sample_dir / "schema.json", tmp_path / "schema.json")
    lines = "\n".join(json.dumps(_to_hf(d)) for d in native)
    (tmp_path / "validation.jsonl").write_text(lines + "\n")
    (tmp_path / "test.jsonl").write_text(lines + "\n")
    assert sgd.sniff(tmp_path / "validation.jsonl")
    with pytest.raises(UsageError, match="name one with --split"):
        sgd.load(tmp_path)
    loaded = sgd.load(tmp_path, split="dev")
    assert loaded.split == "dev"
    assert loaded.dialogues == sample.dialogues
    assert loaded.schema == sample.schema
    as_array = _write(tmp_path / "one" / "records.json", [_to_hf(d) for d in native])
    no_schema = sgd.load(as_array)
    assert no_schema.dialogues == sample.dialogues and dict(no_schema.schema) == {}
    # the HF "schema" config: slots and intents columnar too
    services = json.loads((sample_dir / "schema.json").read_text())
    _write(tmp_path / "one" / "schema.json", [
        {"service_name": s["service_name"], "description": s["description"],
         "slots": {k: [slot[k] for slot in s["slots"]]
                   for k in ("name", "description", "is_categorical", "possible_values")},
         "intents": {k: [intent[k] for intent in s["intents"]]
                     for k in ("name", "description", "is_transactional")}}
        for s in services])
    assert sgd.load(as_array).schema == sample.schema


# --------------------------------------------------------------------------- errors


def _frame_copy(frame: dict, **values: list[str]) -> dict:
    """A copy of a user frame whose slot_values are ``values`` only."""
    copy = json.loads(json.dumps(frame))
    copy["state"]["slot_values"] = values
    return copy


@pytest.mark.parametrize(("mutate", "message", "dialogue", "turn"), [
    (lambda d: d[1]["turns"][2]["frames"][0].pop("state"), "missing key 'state'",
     "sample_002", 2),
    (lambda d: d[0]["turns"][0]["frames"][0]["state"]["slot_values"].update(city="Oakland"),
     "slot 'city' is not a list", "sample_001", 0),
    (lambda d: d[2]["turns"][1].update(speaker="BOT"), "neither USER nor SYSTEM",
     "sample_003", 1),
    (lambda d: d[3].pop("turns"), "without a 'turns' list", "sample_004", None),
    (lambda d: d[3]["turns"][0]["frames"][0].update(service="Nope_1"),
     "'Nope_1' is not in the schema", "sample_004", 0),
    (lambda d: d[3].update(dialogue_id="sample_001"), "duplicate dialogue id", "sample_001",
     None),
    # speakers alternate USER, SYSTEM, ... from USER (the state of a user turn labelled
    # SYSTEM used to be dropped; a user turn following a user turn used to be scored)
    (lambda d: d[0]["turns"][0].update(speaker="SYSTEM"), "first turn is SYSTEM",
     "sample_001", 0),
    (lambda d: d[0]["turns"][2].update(speaker="SYSTEM"), "two SYSTEM turns in a row",
     "sample_001", 2),
    (lambda d: d[1]["turns"].pop(2), "two SYSTEM turns in a row", "sample_002", 2),
    (lambda d: d[1]["turns"].pop(1), "two USER turns in a row", "sample_002", 1),
    (lambda d: d[2]["turns"][5].update(speaker="USER"), "two USER turns in a row",
     "sample_003", 5),
    # a dialogue without turns has nothing to score (it used to be dropped silently)
    (lambda d: d[3].update(turns=[]), "has no turns", "sample_004", None),
    # two frames of one service contradicting each other (one used to be dropped silently)
    (lambda d: d[0]["turns"][0]["frames"].append(_frame_copy(
        d[0]["turns"][0]["frames"][0], city=["Berkeley"])),
     "slot 'Cafes_1-city' has different values in frames 'Cafes_1' and 'Cafes_1'",
     "sample_001", 0),
    (lambda d: d[2]["turns"][2]["frames"].insert(1, _frame_copy(
        d[2]["turns"][2]["frames"][0], to_city=["Boston", "BOS"])),
     "slot 'Trains_7-to_city' has different values", "sample_003", 2),
    # a slot the service's schema does not declare, in any spelling (it used to be gold)
    (lambda d: d[0]["turns"][0]["frames"][0]["state"]["slot_values"].update(
        no_such_slot=["x"]), "slot 'no_such_slot' is not in the schema of service 'Cafes_1'",
     "sample_001", 0),
    (lambda d: d[0]["turns"][2]["frames"][0]["state"]["slot_values"].update(
        City=d[0]["turns"][2]["frames"][0]["state"]["slot_values"].pop("city")),
     "slot 'City' is not in the schema of service 'Cafes_1'", "sample_001", 2),
    (lambda d: d[2]["turns"][2]["frames"][1]["state"].update(requested_slots=["Temperature"]),
     "slot 'Temperature' is not in the schema of service 'Weather_5'", "sample_003", 2),
])
def test_malformed_gold(tmp_path: Path, sample_dir: Path, native: list[dict], mutate,
                        message: str, dialogue: str, turn: int | None) -> None:
    shutil.copy(sample_dir / "schema.json", tmp_path / "schema.json")
    mutate(native)
    _write(tmp_path / "dialogues_001.json", native)
    with pytest.raises(GoldDataError, match=message) as info:
        sgd.load(tmp_path)
    assert info.value.dialogue == dialogue and info.value.turn == turn
    assert "dialogues_001.json" in str(info.value) or tmp_path.name in str(info.value)
    assert "\n" not in str(info.value)


def test_two_frames_of_one_service_that_agree(tmp_path: Path, sample_dir: Path,
                                               native: list[dict], sample: GoldSet) -> None:
    """As in MultiWOZ 2.2, only different values for one slot are an error: a repeated
    frame adds nothing, a frame with other slots of the service adds them."""
    shutil.copy(sample_dir / "schema.json", tmp_path / "schema.json")
    first = native[0]["turns"][0]["frames"]
    first.append(_frame_copy(first[0], **first[0]["state"]["slot_values"]))
    first.append(_frame_copy(first[0], city=["Oakland"], time=["10 am"]))
    _write(tmp_path / "dialogues_001.json", native)
    turn = sgd.load(tmp_path).get("sample_001").turns[0]
    assert dict(turn.state) == {"Cafes_1-city": ("Oakland",), "Cafes_1-seating": ("outdoor",),
                                "Cafes_1-time": ("10 am",)}
    assert [f.service for f in turn.frames] == ["Cafes_1"] * 3


def test_slots_are_checked_against_a_schema_only(tmp_path: Path, native: list[dict]) -> None:
    """Without a schema.json there is nothing to check a slot name against."""
    native[0]["turns"][0]["frames"][0]["state"]["slot_values"]["no_such_slot"] = ["x"]
    gold = sgd.load(_write(tmp_path / "dialogues_001.json", native))
    assert gold.get("sample_001").turns[0].state["Cafes_1-no_such_slot"] == ("x",)


def test_corpus_root_needs_a_split(tmp_path: Path, sample_dir: Path) -> None:
    shutil.copytree(sample_dir, tmp_path / "dev")
    with pytest.raises(UsageError, match="name one with --split"):
        sgd.load(tmp_path)
    with pytest.raises(GoldDataError, match="split 'test' not found"):  # exit 4 (issue 9)
        sgd.load(tmp_path, split="test")
    with pytest.raises(GoldDataError, match="'dev' split but split 'test'"):
        sgd.load(tmp_path / "dev", split="test")
    with pytest.raises(GoldDataError, match="no SGD dialogues"):
        sgd.load(_write(tmp_path / "empty" / "x.txt", "").parent)


# --------------------------------------------------------------------------- no cache, one process


def test_every_load_reads_the_files_and_writes_nothing(tmp_path: Path, sample_dir: Path,
                                                      monkeypatch) -> None:
    """No cache of any kind: a changed file is seen at once, nothing is written."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("DST_EVAL_NO_CACHE", raising=False)
    data = tmp_path / "dev"
    shutil.copytree(sample_dir, data)
    first = sgd.load(data)
    assert sgd.load(data) == first
    # same size, same second: only reading the file again can see the change
    stat = (data / "dialogues_001.json").stat()
    text = (data / "dialogues_001.json").read_text().replace("Oakland", "Oaklanx")
    (data / "dialogues_001.json").write_text(text)
    os.utime(data / "dialogues_001.json", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    changed = sgd.load(data)
    assert changed.get("sample_001").turns[0].state["Cafes_1-city"] == ("Oaklanx",)
    assert first.get("sample_001").turns[0].state["Cafes_1-city"] == ("Oakland",)
    assert not (tmp_path / "cache").exists()
    assert sorted(p.name for p in data.iterdir()) == sorted(p.name for p in sample_dir.iterdir())


def _split_into_files(tmp_path: Path, sample_dir: Path, native: list[dict]) -> Path:
    shutil.copy(sample_dir / "schema.json", tmp_path / "schema.json")
    for i, dialogue in enumerate(native, start=1):
        _write(tmp_path / f"dialogues_{i:03d}.json", [dialogue])
    return tmp_path


def test_several_files_give_the_same_gold(tmp_path: Path, sample_dir: Path,
                                          native: list[dict], sample: GoldSet) -> None:
    data = _split_into_files(tmp_path, sample_dir, native)
    assert sgd.load(data).dialogues == sample.dialogues


def test_errors_name_the_file_dialogue_and_turn(tmp_path: Path, sample_dir: Path,
                                                native: list[dict]) -> None:
    native[3]["turns"][0]["frames"][0]["state"]["slot_values"]["city"] = [3]
    data = _split_into_files(tmp_path, sample_dir, native)
    bad = str(data / "dialogues_004.json")
    with pytest.raises(GoldDataError, match="non-string value 3") as info:
        sgd.load(data)
    assert info.value.file == bad
    assert info.value.dialogue == "sample_004" and info.value.turn == 0  # position in turns


# --------------------------------------------------------------------------- real corpus


def test_sgd_dev_counts(sgd_dev: GoldSet) -> None:
    assert len(sgd_dev) == 2482
    assert sgd_dev.n_turns == 24363
    frames = [f for t in sgd_dev.turns() for f in t.frames]
    assert len(frames) == 26077
    assert sum(len(d.services) == 1 for d in sgd_dev) == 836
    assert (len(sgd_dev.schema), len(sgd_dev.slots), len(sgd_dev.categorical_slots)) == (
        17, 136, 36)
    seen = sgd_dev.seen_services & set(sgd_dev.schema)
    assert len(seen) == 9
    assert sum(f.service in seen for f in frames) == 14740
    assert sgd_dev.split == "dev"


def test_sgd_root_split_and_test_dir(shared_dir: Path, sgd_dev: GoldSet) -> None:
    root = shared_dir / "corpora" / "sgd"
    assert sgd.sniff(root) and sgd.sniff(root / "dev")
    assert not sgd.sniff(shared_dir / "corpora" / "multiwoz22")
    assert not sgd.sniff(shared_dir / "corpora" / "multiwoz22" / "test" / "dialogues_001.json")
    with pytest.raises(UsageError, match="name one with --split"):
        sgd.load(root)
    test = sgd.load(root, split="test")
    assert len(list((root / "test").glob("dialogues_*.json"))) == 24
    assert len(test) == 2921 and test.split == "test"
    assert len(test.schema) == 21
    assert test.seen_services & set(test.schema) == {
        "Hotels_2", "Movies_1", "RideSharing_2", "Services_1", "Travel_1", "Weather_1"}


# --------------------------------------------------------------------------- SGD-style predictions


def test_two_frames_of_a_service_that_disagree_are_reported(tmp_path: Path,
                                                             native: list[dict]) -> None:
    """Predicted frames of one service in one turn that give a slot two values: the later
    frame's value is the turn's (the official scorer reads a service's last frame), and
    Issue ``conflicting_frames`` says so (it was silent: a wrong value in the first frame
    went unseen); frames that agree add nothing."""
    frames = native[0]["turns"][0]["frames"]
    first = frames[0]
    frames.append(_frame_copy(first, **first["state"]["slot_values"]))  # agrees
    agreeing = read_sgd_frame_predictions(_write(tmp_path / "agree.json", native))
    assert "conflicting_frames" not in {i.kind for i in agreeing.issues}
    frames.insert(0, _frame_copy(first, city=["zzz"], seating=["outdoor"]))
    predictions = read_sgd_frame_predictions(_write(tmp_path / "p.json", native))
    [issue] = [i for i in predictions.issues if i.kind == "conflicting_frames"]
    assert (issue.dialogue, issue.turn, issue.file) == ("sample_001", 0, str(tmp_path / "p.json"))
    assert issue.message.startswith("1 slots with different values in two frames")
    assert "slot 'Cafes_1-city': 'zzz' in one frame of service 'Cafes_1'" in issue.message
    turn = predictions.get("sample_001")[0]
    assert turn.state["Cafes_1-city"] == first["state"]["slot_values"]["city"][0]


def test_a_dialogue_predicted_twice_is_refused(tmp_path: Path, native: list[dict]) -> None:
    """A dialogue predicted twice -- in two SGD-style files, twice in a list, or as a
    repeated key of ``{dialogue_id: dialogue}`` -- is exit 3 naming the file, the dialogue
    and the other place: which one was meant cannot be known (the official scorer reads
    the later one, silently)."""
    changed = json.loads(json.dumps(native[0]))
    changed["turns"][0]["frames"][0]["state"]["slot_values"]["city"] = ["zzz"]
    _write(tmp_path / "preds" / "a.json", native)
    _write(tmp_path / "preds" / "b.json", [changed])
    with pytest.raises(PredictionError) as caught:
        read_sgd_frame_predictions(tmp_path / "preds")
    error = caught.value
    assert (error.file, error.dialogue) == (str(tmp_path / "preds" / "b.json"), "sample_001")
    assert f"dialogue predicted twice: here and in {tmp_path / 'preds' / 'a.json'}" in str(error)
    _write(tmp_path / "one.json", [native[0], changed])  # twice in one file
    with pytest.raises(PredictionError, match="here and earlier in this file"):
        read_sgd_frame_predictions(tmp_path / "one.json")
    keyed = tmp_path / "keyed.json"  # {id: dialogue} with the id twice: the parser merges
    body = json.dumps(native[0])
    keyed.write_text(f'{{"sample_001": {body}, "sample_001": {json.dumps(changed)}}}')
    with pytest.raises(PredictionError, match="'sample_001' is given 2 times") as caught:
        read_sgd_frame_predictions(keyed)
    assert (caught.value.file, caught.value.dialogue) == (str(keyed), "sample_001")
    _write(tmp_path / "twice" / "a.json", native)  # the same content twice: still refused
    _write(tmp_path / "twice" / "b.json", native)
    with pytest.raises(PredictionError, match="dialogue predicted twice"):
        read_sgd_frame_predictions(tmp_path / "twice")


def test_reader_flat_view_and_issues(tmp_path: Path, native: list[dict]) -> None:
    values = native[0]["turns"][2]["frames"][0]["state"]["slot_values"]
    values["city"] = "Oakland"          # a string, not a list
    values["seating"] = []              # empty list
    native[0]["turns"][2]["frames"][0].pop("slots")
    path = _write(tmp_path / "preds" / "a.json", native[:2])
    _write(tmp_path / "preds" / "b.json", {d["dialogue_id"]: d for d in native[2:]})
    _write(tmp_path / "preds" / "dialogues_and_metrics.json", {"x": 1})
    assert looks_like_sgd_frames(native) and looks_like_sgd_frames({"x": native[0]})
    assert not looks_like_sgd_frames({"x": [{"state": {}}]})
    predictions = read_sgd_frame_predictions(path.parent)
    assert sorted(predictions.dialogues) == ["sample_001", "sample_002", "sample_003",
                                             "sample_004"]
    turn = predictions.get("sample_001")[1]
    frame = turn.frames[0]
    assert frame.slot_values["Cafes_1-city"] == "Oakland"
    assert "Cafes_1-seating" not in frame.slot_values
    assert frame.slot_values["Cafes_1-time"] == "9:30 am"  # the first of two: hedged
    assert frame.slot_values is turn.state
    assert frame.spans is None
    assert turn.state == {"Cafes_1-cafe_name": "Blue Cup", "Cafes_1-city": "Oakland",
                          "Cafes_1-party_size": "2", "Cafes_1-time": "9:30 am"}
    assert turn.active_intents == {"Cafes_1": "BookTable"}
    multi = predictions.get("sample_003")[1]
    assert multi.requested_slots == {"Weather_5-temperature"}
    assert multi.frames[1].spans == (SlotSpan("city", 37, 43),)
    kinds = {i.kind: i for i in predictions.issues}
    assert kinds["non_list_value"].dialogue == "sample_001" and kinds["non_list_value"].turn == 1
    assert "empty_value_list" in kinds and "skipped_file" in kinds
    assert kinds["hedged_value"].message.startswith("4 slots with several predicted values")


def _frame_copy(frame: dict, **values: list[str]) -> dict:
    """A copy of a user frame whose slot_values are ``values`` only."""
    copy = json.loads(json.dumps(frame))
    copy["state"]["slot_values"] = values
    return copy


@pytest.mark.parametrize(("mutate", "message", "dialogue", "turn"), [
    (lambda d: d[1]["turns"][2]["frames"][0].pop("state"), "user frame without 'state'",
     "sample_002", 1),
    (lambda d: d[0]["turns"][4]["frames"][0].pop("service"), "user frame without 'service'",
     "sample_001", 2),
    (lambda d: d[2].pop("dialogue_id"), "without a string 'dialogue_id'", None, None),
    (lambda d: d[2].pop("turns"), "without a 'turns' list", "sample_003", None),
    (lambda d: d[0]["turns"][0]["frames"][0]["state"].pop("slot_values"),
     "missing key 'slot_values'", "sample_001", 0),
    (lambda d: d[0]["turns"][2].update(frames={"service": "Cafes_1"}),
     r"position 2 in 'turns'\): 'frames' is not a list", "sample_001", 1),
    (lambda d: d[0]["turns"][2]["frames"][0].update(slots=[{"slot": 3}]),
     r"position 2 in 'turns'\): Expected `str`, got `int` - at `frames\[0\].slots\[0\].slot`",
     "sample_001", 1),
    (lambda d: d[0]["turns"][2]["frames"][0]["state"]["slot_values"].update(city=None),
     "slot 'city' has null as its value list", "sample_001", 1),
    # a user turn not written USER was skipped: every later turn was scored against the gold
    # turn before it (--missing skip: 100.00 for 88.89 on this sample)
    (lambda d: d[0]["turns"][2].update(speaker="user"),
     r"position 2 in 'turns'\): speaker 'user' is neither USER nor SYSTEM", "sample_001", 1),
    (lambda d: d[0]["turns"][2].update(speaker="USER "), "speaker 'USER ' is neither",
     "sample_001", 1),
    (lambda d: d[0]["turns"][2].update(speaker="SYSTEM"),
     r"position 2 in 'turns'\): two SYSTEM turns in a row", "sample_001", 1),
    (lambda d: d[0]["turns"][0].update(speaker="SYSTEM"), "the first turn is SYSTEM",
     "sample_001", 0),
    (lambda d: d[0]["turns"][1].pop("speaker"), "missing key 'speaker'", "sample_001", 1),
])
def test_reader_structural_errors(tmp_path: Path, native: list[dict], mutate, message: str,
                                  dialogue: str | None, turn: int | None) -> None:
    mutate(native)
    path = _write(tmp_path / "p.json", native)
    with pytest.raises(PredictionError, match=message) as info:
        read_sgd_frame_predictions(path)
    assert info.value.dialogue == dialogue and info.value.turn == turn
    assert info.value.file == str(path)


def test_null_frames_in_the_first_turn_are_reported_at_their_place(tmp_path: Path,
                                                                    native: list[dict]) -> None:
    """Detection no longer needs the first turn's ``frames`` to be a list: ``null`` there
    said "cannot tell the prediction format", naming neither dialogue nor turn."""
    from dst_eval.predictions.reader import read_predictions

    native[0]["turns"][0]["frames"] = None
    folder = tmp_path / "preds"
    _write(folder / "dialogues_001.json", native)
    with pytest.raises(PredictionError, match="missing key 'frames'") as info:
        read_predictions(folder)
    assert (info.value.dialogue, info.value.turn) == ("sample_001", 0)


def test_system_frames_are_never_read(tmp_path: Path, sample_dir: Path,
                                      native: list[dict]) -> None:
    """System frames hold no state: junk in them changes neither the gold nor the
    predictions (they are skipped as JSON text, never decoded)."""
    gold = sgd.load(sample_dir)
    predictions = read_sgd_frame_predictions(_write(tmp_path / "p.json", native))
    system = native[0]["turns"][1]
    assert system["speaker"] == "SYSTEM"
    system["frames"] = [{"slots": "junk", "state": 7, "service": ["not", "a", "name"]}]
    shutil.copy(sample_dir / "schema.json", tmp_path / "schema.json")
    _write(tmp_path / "dialogues_001.json", native)
    assert sgd.load(tmp_path / "dialogues_001.json").dialogues == gold.dialogues
    junk = read_sgd_frame_predictions(_write(tmp_path / "q.json", native))
    assert junk.dialogues == predictions.dialogues
    assert ([(i.kind, i.message, i.dialogue, i.turn) for i in junk.issues]
            == [(i.kind, i.message, i.dialogue, i.turn) for i in predictions.issues])


def test_reader_rejects_non_dialogue_documents(tmp_path: Path) -> None:
    with pytest.raises(PredictionError, match="expected a list of SGD dialogues"):
        read_sgd_frame_predictions(_write(tmp_path / "p.json", "text"))
    with pytest.raises(PredictionError, match="no \\*.json prediction files"):
        read_sgd_frame_predictions(_write(tmp_path / "d" / "x.txt", "").parent)


def test_reader_reads_a_zip(tmp_path: Path, native: list[dict]) -> None:
    import zipfile

    with zipfile.ZipFile(tmp_path / "p.zip", "w") as archive:
        archive.writestr("pred/a.json", json.dumps(native[:3]))
        archive.writestr("pred/b.json", json.dumps(native[3:]))
        archive.writestr("pred/dialogues_and_metrics.json", "{}")
    predictions = read_sgd_frame_predictions(tmp_path / "p.zip")
    assert [len(predictions.get(d["dialogue_id"])) for d in native] == [3, 2, 3, 1]
    hedged = next(i for i in predictions.issues if i.kind == "hedged_value")
    assert hedged.file == f"{tmp_path / 'p.zip'}:pred/a.json"


def test_requested_slot_sets_match_the_files_and_are_shared(shared_dir: Path,
                                                            sgd_dev: GoldSet) -> None:
    """Gold and SGD-style predictions read from SGD dev: each user turn's requested-slot set
    is ``{"<service>-<slot>"}`` of its frames, read here with ``json``; turns asking the same
    slots of the same services share one set object (gold: per gold set; predictions: per
    file)."""
    dev = shared_dir / "corpora" / "sgd" / "dev"
    expected: dict[tuple[str, int], frozenset[str]] = {}
    asked: dict[tuple[str, int], tuple] = {}
    file_of: dict[str, str] = {}
    for path in sorted(dev.glob("dialogues_*.json")):
        for dialogue in json.loads(path.read_text()):
            file_of[dialogue["dialogue_id"]] = path.name
            user_turns = [t for t in dialogue["turns"] if t["speaker"] == "USER"]
            for index, turn in enumerate(user_turns):
                place = (dialogue["dialogue_id"], index)
                expected[place] = frozenset(f"{f['service']}-{slot}" for f in turn["frames"]
                                            for slot in f["state"]["requested_slots"])
                asked[place] = tuple((f["service"], tuple(f["state"]["requested_slots"]))
                                     for f in turn["frames"])
    predictions = read_sgd_frame_predictions(dev)
    for name, turns in (("gold", {(t.dialogue_id, t.turn_index): t for t in sgd_dev.turns()}),
                        ("predictions", {(d, i): t for d, ts in predictions.dialogues.items()
                                         for i, t in enumerate(ts)})):
        assert turns.keys() == expected.keys(), name
        assert all(turns[p].requested_slots == expected[p] for p in expected), name
        objects: dict[tuple, set[int]] = {}
        for place, key in asked.items():
            if expected[place]:
                scope = key if name == "gold" else (file_of[place[0]], key)
                objects.setdefault(scope, set()).add(id(turns[place].requested_slots))
        assert sum(expected[p] != frozenset() for p in expected) > 1000
        assert all(len(ids) == 1 for ids in objects.values()), name
        assert len(objects) < sum(expected[p] != frozenset() for p in expected), name


def test_read_ahead_advises_the_next_files_and_yields_all(tmp_path: Path, monkeypatch) -> None:
    """Each path comes out once, in order; before the i-th, the kernel is asked for the next
    ``window`` regular files (each once); a missing file or a FIFO is left alone (a FIFO
    opened for reading would block), and without posix_fadvise the paths still come out."""
    from dst_eval import readahead

    paths = [tmp_path / f"f{i}.json" for i in range(7)]
    for path in paths[:5]:
        path.write_text("[]")
    os.mkfifo(paths[6])  # never opened for reading in a blocking way, never advised
    name_of = {path.stat().st_ino: path.name for path in paths[:5]}
    advised: list[str] = []
    seen_when: list[list[str]] = []
    monkeypatch.setattr(readahead, "_ADVISE",
                        lambda fd, offset, length, advice: advised.append(
                            name_of[os.fstat(fd).st_ino]))
    out = []
    for path in readahead.read_ahead(paths, window=2):
        out.append(path)
        seen_when.append(list(advised))
    assert out == paths
    assert seen_when[0] == ["f1.json", "f2.json"]  # f5 does not exist: skipped silently
    assert advised == ["f1.json", "f2.json", "f3.json", "f4.json"]  # f6: a FIFO
    monkeypatch.setattr(readahead, "_ADVISE", None)
    assert list(readahead.read_ahead(paths)) == paths


def test_split_label_of_a_folder_not_named_for_a_split(sample_dir: Path) -> None:
    """gold_samples/sgd does not say its split: --split labels it, and only a split name
    does (an unknown one used to be stamped into the signature)."""
    assert sgd.load(sample_dir).split is None and not sgd.load(sample_dir).notes
    labelled = sgd.load(sample_dir, split="validation")
    assert labelled.split == "dev"
    assert labelled.notes == ("split 'dev' is the --split label: the gold's folder and file "
                              "names do not say which split it holds (the gold digest in the "
                              "signature identifies it)",)
    assert sgd.load(sample_dir / "dialogues_001.json", split="test").split == "test"
    assert not load_gold(sample_dir.parent / "multiwoz22").notes  # MultiWOZ 2.2 alike
    assert load_gold(sample_dir.parent / "multiwoz22", split="dev").notes == labelled.notes
    for path in (sample_dir, sample_dir / "dialogues_001.json"):
        with pytest.raises(UsageError, match="unknown SGD split 'nosuch'"):
            sgd.load(path, split="nosuch")


def test_a_split_folder_needs_no_label(tmp_path: Path, sample_dir: Path) -> None:
    folder = tmp_path / "dev"
    shutil.copytree(sample_dir, folder)
    gold = sgd.load(folder, split="dev")
    assert gold.split == "dev" and not gold.notes
    with pytest.raises(GoldDataError, match="is the 'dev' split but split 'test'"):
        sgd.load(folder, split="test")
    archive = tmp_path / "dev.zip"
    archive.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip
    with pytest.raises(GoldDataError, match=r"not a \.zip file \(unpack an archive first\)"):
        sgd.load(archive)


def test_split_names_of_files_and_real_folders_are_checked(tmp_path: Path,
                                                           sample_dir: Path) -> None:
    """A gold file named for a split (``test.json``, as the Hugging Face export names its
    files) and a symlinked split folder (``test`` -> a ``dev`` folder) say their split; a
    --split naming another is refused (both were scored under the asked name)."""
    folder = tmp_path / "export"
    folder.mkdir()
    shutil.copyfile(sample_dir / "dialogues_001.json", folder / "test.json")
    with pytest.raises(GoldDataError, match="the file's name or folder says it holds the "
                       "'test' split"):
        sgd.load(folder / "test.json", split="dev")
    assert sgd.load(folder / "test.json").split == "test"
    real = tmp_path / "corpus" / "dev"
    shutil.copytree(sample_dir, real)
    root = tmp_path / "links"
    root.mkdir()
    (root / "test").symlink_to(real, target_is_directory=True)
    with pytest.raises(GoldDataError, match="is the 'dev' split"):
        sgd.load(root, split="test")
    with pytest.raises(GoldDataError, match="is the 'dev' split"):
        sgd.load(root / "test", split="test")
    assert sgd.load(root / "test").split == "dev"


def test_multiwoz22_gold_read_as_sgd_is_refused(gold_samples: Path, tmp_path: Path) -> None:
    """MultiWOZ 2.2 gold (SGD's layout, MultiWOZ's services) with --corpus sgd is exit 4: it
    was scored by SGD's rules with 'unknown slot' warnings only (JGA 53.85 for 69.23)."""
    with pytest.raises(GoldDataError, match=r"no service is named as SGD's are \(Hotels_1, "
                                            r"\.\.\.\): attraction, hotel"):
        load_gold(gold_samples / "multiwoz22", corpus="sgd")
    folder = tmp_path / "noschema"  # without its schema: the frames' services
    folder.mkdir()
    shutil.copy(gold_samples / "multiwoz22" / "dialogues_001.json", folder)
    with pytest.raises(GoldDataError, match="is this gold another corpus"):
        load_gold(folder, corpus="sgd")
    assert load_gold(gold_samples / "sgd", corpus="sgd").corpus == "sgd"


def test_null_intent_and_requested_slots_read_as_the_official_scorer_does(
        gold_samples: Path, tmp_path: Path) -> None:
    """``"active_intent": null`` is a wrong intent and ``"requested_slots": null`` none under
    sgd-official, as the official scorer reads them (checked side by side with it: they
    were left out, giving intent accuracy 1.0 for its 0.667); a frame without the keys
    stays left out; strict leaves both out with a warning."""
    from dst_eval import evaluate

    dialogues = json.loads((gold_samples / "sgd" / "dialogues_001.json").read_text())
    frames = [f for d in dialogues for t in d["turns"] if t["speaker"] == "USER"
              for f in t["frames"]]
    asking = next(f for f in frames if f["state"]["requested_slots"])
    frames[0]["state"]["active_intent"] = None
    asking["state"]["requested_slots"] = None
    path = tmp_path / "p.json"
    path.write_text(json.dumps(dialogues))
    n = len(frames)
    official = evaluate(path, gold=gold_samples / "sgd", profile="sgd-official")
    scores = official.official["#ALL_SERVICES"]
    assert scores["active_intent_accuracy"] == pytest.approx((n - 1) / n, abs=1e-12)
    assert scores["requested_slots_recall"] == pytest.approx((n - 1) / n, abs=1e-12)
    assert scores["requested_slots_precision"] == 1.0  # none predicted: precision 1
    kinds = {i.kind for i in official.issues}
    assert {"null_intent", "null_requested_slots"} <= kinds
    del frames[0]["state"]["active_intent"]  # no key: left out, as before
    path.write_text(json.dumps(dialogues))
    missing = evaluate(path, gold=gold_samples / "sgd", profile="sgd-official")
    assert missing.official["#ALL_SERVICES"]["active_intent_accuracy"] == 1.0
    assert "missing_intent" in {i.kind for i in missing.issues}
