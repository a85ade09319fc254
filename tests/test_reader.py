"""The prediction reader: formats, detection, state shapes, value rules, slot keys, speed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from dst_eval.errors import PredictionError, UsageError
from dst_eval.predictions.model import PredTurn
from dst_eval.predictions.reader import (
    MAX_VALUE_CHARS,
    detect_format,
    predictions_from_object,
    read_predictions,
)
from dst_eval.profiles.strict import unset_for
from dst_eval.slotkeys import canonical_domain, canonical_slot_key, split_slot_key


def write_json(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def kinds(predictions) -> list[str]:
    return [issue.kind for issue in predictions.issues]


# --------------------------------------------------------------------------- slot keys


@pytest.mark.parametrize(("domain", "slot", "expected"), [
    ("hotel", "price range", "hotel-pricerange"),
    ("Hotel", "priceRange", "hotel-pricerange"),
    ("train", "leaveAt", "train-leaveat"),
    ("train", "leave at", "train-leaveat"),
    ("taxi", "arrive by", "taxi-arriveby"),
    ("train", "leave", "train-leaveat"),      # mwzeval's spelling
    ("taxi", "arrive", "taxi-arriveby"),
    ("hotel", "book day", "hotel-bookday"),   # TRADE's spelling
    ("hotel", "day", "hotel-bookday"),        # 2.1 book slot in book context
    ("restaurant", "time", "restaurant-booktime"),
    ("restaurant", "people", "restaurant-bookpeople"),
    ("train", "people", "train-bookpeople"),
    ("train", "day", "train-day"),            # a search slot: stays
    ("hotel", "bookday", "hotel-bookday"),
    ("hotel", "area", "hotel-area"),
])
def test_multiwoz_slot_keys(domain, slot, expected):
    assert canonical_slot_key(domain, slot, "multiwoz22") == expected
    assert canonical_slot_key(domain, slot, "multiwoz21") == expected


def test_slot_key_policies_per_corpus():
    assert canonical_slot_key("Hotels_4", "location", "sgd") == "Hotels_4-location"
    assert canonical_slot_key(" Hotels_4 ", "location ", "sgd") == "Hotels_4-location"
    assert canonical_slot_key("餐馆", "推荐菜", "crosswoz") == "餐馆-推荐菜"
    # RiSAWOZ slot names hold spaces and hyphens: never touched
    assert canonical_slot_key("旅游景点", "门票 价格", "risawoz") == "旅游景点-门票 价格"
    assert canonical_slot_key("Hotel", "Price Range", None) == "hotel-Price Range"
    assert canonical_domain("Hotels_4", "sgd") == "Hotels_4"
    assert canonical_domain("Hotel ", "multiwoz22") == "hotel"
    assert canonical_domain("Hotel", None) == "hotel"
    with pytest.raises(UsageError):
        canonical_slot_key("hotel", "area", "nosuchcorpus")


def test_flat_keys_split_on_first_dash():
    assert split_slot_key("hotel-check-in date") == ("hotel", "check-in date")
    assert split_slot_key("nodash") == ("", "nodash")


# --------------------------------------------------------------------------- mwzeval JSON


def test_mwzeval_nested_flat_and_mixed_states(tmp_path):
    raw = {
        "SNG01": [
            {"state": {"hotel": {"price range": "cheap", "day": "monday"}},
             "response": "ok", "active_domains": ["hotel"]},
            {"state": {"hotel-pricerange": "cheap", "train-leaveAt": "10:00"}},
            {"state": {"hotel": {"area": "north"}, "train-arrive by": "11:00"},
             "requested_slots": ["hotel-phone", "train-price range"],
             "active_intents": {"Hotel": "find_hotel"}},
            {"response": "no state here", "active_intent": {"train": "find_train"}},
        ]
    }
    path = write_json(tmp_path / "preds.json", raw)
    preds = read_predictions(path, corpus="multiwoz22")
    assert preds.format == "mwzeval" and preds.source == str(path)
    turns = preds.get("sng01.json")  # ids match case-insensitively, with/without .json
    assert turns is preds.dialogues["SNG01"]
    assert dict(turns[0].state) == {"hotel-pricerange": "cheap", "hotel-bookday": "monday"}
    assert turns[0].response == "ok" and turns[0].active_domains == ("hotel",)
    assert turns[0].raw_state == raw["SNG01"][0]["state"]
    assert dict(turns[1].state) == {"hotel-pricerange": "cheap", "train-leaveat": "10:00"}
    assert dict(turns[2].state) == {"hotel-area": "north", "train-arriveby": "11:00"}
    assert turns[2].requested_slots == frozenset({"hotel-phone", "train-pricerange"})
    assert dict(turns[2].active_intents) == {"hotel": "find_hotel"}
    assert turns[3].state is None and turns[3].raw_state is None
    assert turns[3].response == "no state here"
    assert dict(turns[3].active_intents) == {"train": "find_train"}
    assert preds.issues == []


def test_states_are_read_only(tmp_path):
    path = write_json(tmp_path / "p.json", {"d": [{"state": {"hotel": {"area": "north"}}}]})
    state = read_predictions(path).dialogues["d"][0].state
    with pytest.raises(TypeError):
        state["hotel-area"] = "south"  # type: ignore[index]


def test_without_corpus_keys_are_kept_but_domain_lower_cased(tmp_path):
    path = write_json(tmp_path / "p.json",
                      {"d": [{"state": {"Hotel": {"price range": "cheap"}, "Taxi-leaveAt": "1"}}]})
    state = read_predictions(path).dialogues["d"][0].state
    assert dict(state) == {"hotel-price range": "cheap", "taxi-leaveAt": "1"}


def test_wrapper_with_metadata(tmp_path):
    obj = {"metadata": {"system": "mine", "paper": "x"},
           "predictions": {"d1": [{"state": {"hotel": {"area": "north"}}}]}}
    preds = read_predictions(write_json(tmp_path / "w.json", obj), corpus="multiwoz22")
    assert preds.format == "mwzeval"
    assert dict(preds.metadata) == {"system": "mine", "paper": "x"}
    assert list(preds.dialogues) == ["d1"]
    assert dict(preds.dialogues["d1"][0].state) == {"hotel-area": "north"}


def test_wrapper_with_unexpected_keys_is_rejected(tmp_path):
    obj = {"metadata": {}, "predictions": {"d1": []}, "extra": 1}
    with pytest.raises(PredictionError, match="'extra'"):
        read_predictions(write_json(tmp_path / "w.json", obj))


def test_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"d": [{"state": {}}]}).encode())
    assert list(read_predictions(path).dialogues) == ["d"]


# --------------------------------------------------------------------------- value rules


def test_values_are_kept_verbatim_and_the_strict_profile_decides_unset(tmp_path):
    state = {"hotel": {"area": "", "name": "   ", "type": None, "stars": "none",
                       "parking": "Not Mentioned", "internet": "dontcare", "day": "None "}}
    path = write_json(tmp_path / "p.json", {"d": [{"state": state}]})
    mwz = read_predictions(path, corpus="multiwoz22").dialogues["d"][0].state
    # the reader keeps every string as written (null is JSON's "no value")
    assert dict(mwz) == {"hotel-area": "", "hotel-name": "   ", "hotel-stars": "none",
                         "hotel-parking": "Not Mentioned", "hotel-internet": "dontcare",
                         "hotel-bookday": "None "}
    # the strict profile's documented rules: for MultiWOZ "none"/"not mentioned" (any
    # case, surrounding whitespace ignored), "" and whitespace-only are unset
    assert dict(unset_for("multiwoz22").items(mwz)) == {"hotel-internet": "dontcare"}
    # outside MultiWOZ "none" is an ordinary value; "" and whitespace-only are unset everywhere
    sgd = read_predictions(path, corpus="sgd").dialogues["d"][0].state
    assert dict(unset_for("sgd").items(sgd)) == {
        "hotel-stars": "none", "hotel-parking": "Not Mentioned",
        "hotel-internet": "dontcare", "hotel-day": "None "}


def test_non_string_values_are_converted_and_reported(tmp_path):
    state = {"hotel": {"stars": 4, "price": 2.5, "parking": True, "area": ["north"],
                       "name": ["a", "b"], "type": [], "day": None}}
    path = write_json(tmp_path / "p.json", {"d": [{"state": state}]})
    preds = read_predictions(path, corpus="sgd")
    assert dict(preds.dialogues["d"][0].state) == {
        "hotel-stars": "4", "hotel-price": "2.5", "hotel-parking": "True",
        "hotel-area": "north", "hotel-name": "a"}
    assert kinds(preds) == ["non_string_value"] * 4 + ["hedged_value", "empty_value_list",
                                                       "null_value"]
    for issue in preds.issues:
        assert (issue.file, issue.dialogue, issue.turn) == (str(path), "d", 0)
        assert issue.severity == "warning"
    assert "hotel-name" in preds.issues[4].message


def test_an_integer_that_json_parsing_cannot_keep_is_refused(tmp_path):
    """orjson reads an integer beyond 64 bits as a float: 99999999999999999999 would be
    scored as '1e+20'. Refused, naming the place."""
    path = tmp_path / "p.json"
    path.write_text('{"d": [{"state": {"hotel": {"stars": 99999999999999999999}}}]}')
    with pytest.raises(PredictionError, match=r"slot hotel-stars: the number 1e\+20 cannot be "
                       "read exactly") as info:
        read_predictions(path, corpus="multiwoz21")
    assert (info.value.dialogue, info.value.turn) == ("d", 0)
    path.write_text('{"d": [{"state": {"hotel": {"stars": 9007199254740991}}}]}')  # 2^53 - 1
    assert read_predictions(path, corpus="multiwoz21").dialogues["d"][0].state == {
        "hotel-stars": "9007199254740991"}


def test_pipe_hedged_value_is_kept_as_one_value(tmp_path):
    path = write_json(tmp_path / "p.json",
                      {"d": [{"state": {}}, {"state": {"hotel": {"area": "north|centre"}}}]})
    preds = read_predictions(path, corpus="multiwoz22")
    assert dict(preds.dialogues["d"][1].state) == {"hotel-area": "north|centre"}
    [issue] = preds.issues
    assert (issue.kind, issue.dialogue, issue.turn) == ("hedged_value", "d", 1)
    assert "hotel-area" in issue.message and "'north|centre'" in issue.message


def test_two_spellings_of_one_slot(tmp_path):
    state = {"hotel": {"price range": "cheap", "pricerange": "cheap", "area": "north"},
             "hotel-area": "south"}
    path = write_json(tmp_path / "p.json", {"d": [{"state": state}]})
    preds = read_predictions(path, corpus="multiwoz22")
    assert dict(preds.dialogues["d"][0].state) == {"hotel-pricerange": "cheap",
                                                   "hotel-area": "north"}
    assert kinds(preds) == ["duplicate_slot"]  # same value twice is not a problem


def test_value_length_limit(tmp_path):
    ok = "x" * MAX_VALUE_CHARS
    path = write_json(tmp_path / "ok.json", {"d": [{"state": {"hotel": {"name": ok}}}]})
    assert read_predictions(path).dialogues["d"][0].state["hotel-name"] == ok
    path = write_json(tmp_path / "long.json",
                      {"d": [{}, {"state": {"hotel": {"name": ok + "y"}}}]})
    with pytest.raises(PredictionError) as info:
        read_predictions(path)
    assert info.value.dialogue == "d" and info.value.turn == 1
    assert "10,001 characters exceeds the 10,000-character limit" in str(info.value)
    assert "hotel-name" in str(info.value)


# --------------------------------------------------------------------------- JSONL


def test_jsonl_any_order_with_gaps(tmp_path):
    records = [
        {"dialogue_id": "b", "turn_index": 1, "state": {"hotel-area": "north"}},
        {"dialogue_id": "a", "turn_index": 0, "state": {"train": {"leaveAt": "10:00"}}},
        {"dialogue_id": "b", "turn_index": 0, "state": {}},
        {"dialogue_id": "a", "turn_index": 3, "state": {"hotel": {"area": "east"}},
         "requested_slots": ["hotel-phone"], "response": "r"},
    ]
    path = write_jsonl(tmp_path / "p.jsonl", records)
    assert detect_format(path) == "jsonl"
    preds = read_predictions(path, corpus="multiwoz22")
    assert preds.format == "jsonl"
    assert list(preds.dialogues) == ["b", "a"]
    a, b = preds.dialogues["a"], preds.dialogues["b"]
    assert [dict(t.state or {}) for t in b] == [{}, {"hotel-area": "north"}]
    assert len(a) == 4
    assert dict(a[0].state) == {"train-leaveat": "10:00"}
    assert a[1] == PredTurn() and a[2] == PredTurn()
    assert dict(a[3].state) == {"hotel-area": "east"}
    assert a[3].requested_slots == frozenset({"hotel-phone"}) and a[3].response == "r"
    # one Issue per dialogue naming every gap (issue 9: bounded by the file, not the gaps)
    assert [(i.kind, i.dialogue, i.turn) for i in preds.issues] == [("missing_turn", "a", 1)]
    assert "2 turns without a record (turns 1..2)" in preds.issues[0].message


def test_jsonl_as_json_array_and_under_a_json_name(tmp_path):
    records = [{"dialogue_id": "d", "turn_index": i, "state": {"hotel-area": str(i)}}
               for i in range(3)]
    array = write_json(tmp_path / "records.json", records)
    lines = write_jsonl(tmp_path / "records_lines.json", records)
    one_line = write_jsonl(tmp_path / "single.json", records[:1])
    for path, n_turns in ((array, 3), (lines, 3), (one_line, 1)):
        assert detect_format(path) == "jsonl"
        preds = read_predictions(path)
        assert [t.state["hotel-area"] for t in preds.dialogues["d"]] == [
            str(i) for i in range(n_turns)]


def test_jsonl_record_errors_name_the_line(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"dialogue_id": "d", "turn_index": 0}\n\n{"dialogue_id": "d", "turn_in',
                    encoding="utf-8")
    with pytest.raises(PredictionError, match=r"line 3: invalid JSON"):
        read_predictions(path)
    for bad, message in [
        ({"turn_index": 0}, "'dialogue_id' must be a non-empty string"),
        ({"dialogue_id": "d", "turn_index": -1}, "'turn_index' must be an integer"),
        ({"dialogue_id": "d", "turn_index": "0"}, "'turn_index' must be an integer"),
        ({"dialogue_id": "d", "turn_index": 10**9}, "'turn_index' must be an integer"),
        ({"dialogue_id": "d", "turn_index": True}, "'turn_index' must be an integer"),
    ]:
        write_jsonl(path, [{"dialogue_id": "d", "turn_index": 0}, bad])
        with pytest.raises(PredictionError, match=message) as info:
            read_predictions(path)
        assert "line 2" in str(info.value)


def test_jsonl_integer_dialogue_ids_become_strings(tmp_path):
    path = write_jsonl(tmp_path / "p.jsonl", [{"dialogue_id": 7, "turn_index": 0}])
    assert list(read_predictions(path).dialogues) == ["7"]


# --------------------------------------------------------------------------- detection


def test_detect_and_override_format(tmp_path):
    mwz = write_json(tmp_path / "m.json", {"d": [{"state": {}}]})
    assert detect_format(mwz) == "mwzeval"
    assert read_predictions(mwz, pred_format="mwzeval").format == "mwzeval"
    records = write_json(tmp_path / "r.json", [{"dialogue_id": "d", "turn_index": 0}])
    assert read_predictions(records, pred_format="jsonl").format == "jsonl"
    with pytest.raises(PredictionError, match="mwzeval predictions must be a JSON object"):
        read_predictions(records, pred_format="mwzeval")
    with pytest.raises(UsageError, match="unknown prediction format"):
        read_predictions(mwz, pred_format="csv")
    with pytest.raises(UsageError, match="unknown corpus"):
        read_predictions(mwz, corpus="multiwoz99")


def test_undetectable_shapes_say_what_was_found(tmp_path):
    for obj, found in [([1, 2], "a list of numbers"), ({"id": "x"}, "is a string"),
                       ("text", "a string"), ({}, "empty JSON object"), ([], "empty list")]:
        path = write_json(tmp_path / "x.json", obj)
        with pytest.raises(PredictionError, match=found) as info:
            detect_format(path)
        assert str(path) in str(info.value)


def test_predictions_from_object():
    raw = {"D1": [{"state": {"hotel": {"price range": "cheap"}}}]}
    preds = predictions_from_object(raw, corpus="multiwoz22")
    assert preds.source == "<memory>" and preds.format == "mwzeval"
    assert dict(preds.dialogues["D1"][0].state) == {"hotel-pricerange": "cheap"}
    assert preds.dialogues["D1"][0].raw_state is raw["D1"][0]["state"]  # referenced, not copied
    assert raw == {"D1": [{"state": {"hotel": {"price range": "cheap"}}}]}  # not modified
    records = [{"dialogue_id": "x", "turn_index": 1, "state": {"hotel-area": "north"}}]
    preds = predictions_from_object(records, source="api")
    assert preds.format == "jsonl" and len(preds.dialogues["x"]) == 2
    with pytest.raises(PredictionError, match="api: cannot tell"):
        predictions_from_object([1], source="api")


MWZ22_SAMPLE = Path(__file__).resolve().parent.parent / "gold_samples" / "multiwoz22"


def _in_memory_with(change) -> dict:
    doc = json.loads((MWZ22_SAMPLE / "predictions.json").read_text(encoding="utf-8"))
    change(doc)
    return doc


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["demo0001"][1]["state"]["restaurant"].update({5: "x"}),
     "<memory>, dialogue demo0001, turn 1: state key 'restaurant': 5: a domain or slot name "
     "must be a string, found a number"),
    (lambda d: d["demo0002"][0]["state"].update({7: {"area": "x"}}),
     "<memory>, dialogue demo0002, turn 0: state key 7: 'area': a domain or slot name must "
     "be a string, found a number"),
    (lambda d: d["demo0001"][0].update(state={None: "x"}),
     "<memory>, dialogue demo0001, turn 0: state key None: a slot key must be a string, "
     "found null"),
    (lambda d: d["demo0003"][2].update(active_intents={3: "find"}),
     "<memory>, dialogue demo0003, turn 2: active_intents key 3: a domain name must be a "
     "string, found a number"),
    (lambda d: d.update({1234: d.pop("demo0001")}),
     "<memory>, dialogue 1234: a dialogue id must be a string, found a number"),
])
def test_in_memory_keys_that_are_not_strings_are_prediction_errors(change, message):
    """JSON object keys are strings; Python mappings given to ``evaluate()`` may hold others:
    a one-line PredictionError (exit 3) naming <memory>, the dialogue and the turn."""
    from dst_eval import evaluate

    with pytest.raises(PredictionError) as info:
        evaluate(_in_memory_with(change), gold=MWZ22_SAMPLE)
    assert str(info.value) == message and info.value.exit_code == 3
    records = [{"dialogue_id": "demo0001", "turn_index": 0, "state": {"hotel": {5: "x"}}}]
    with pytest.raises(PredictionError, match="turn 0: state key 'hotel': 5: a domain"):
        predictions_from_object(records)


# --------------------------------------------------------------------------- SGD frames


def _sgd_dialogue(dialogue_id: str, values: dict) -> dict:
    frame = {"service": "Hotels_4", "slots": [],
             "state": {"active_intent": "SearchHotel", "requested_slots": [],
                       "slot_values": values}}
    return {"dialogue_id": dialogue_id, "services": ["Hotels_4"], "turns": [
        {"speaker": "USER", "utterance": "a hotel please", "frames": [frame]},
        {"speaker": "SYSTEM", "utterance": "where?", "frames": []},
    ]}


def test_sgd_frame_files_and_directories_are_delegated(tmp_path):
    directory = tmp_path / "sgd_preds"
    directory.mkdir()
    write_json(directory / "dialogues_001.json",
               [_sgd_dialogue("1_00000", {"location": ["Paris"]})])
    write_json(directory / "dialogues_002.json",
               [_sgd_dialogue("1_00001", {"location": ["Rome", "Roma"]})])
    assert detect_format(directory) == "sgd"
    assert detect_format(directory / "dialogues_001.json") == "sgd"
    preds = read_predictions(directory, corpus="sgd")
    assert preds.format == "sgd"
    assert dict(preds.dialogues["1_00000"][0].state) == {"Hotels_4-location": "Paris"}
    assert dict(preds.dialogues["1_00001"][0].state) == {"Hotels_4-location": "Rome"}
    assert preds.dialogues["1_00000"][0].frames[0].service == "Hotels_4"
    assert "hedged_value" in kinds(preds)
    one = read_predictions(directory / "dialogues_001.json")
    assert list(one.dialogues) == ["1_00000"]
    with pytest.raises(PredictionError, match="SGD-style files"):
        read_predictions(directory, pred_format="mwzeval")


def test_zipped_predictions(tmp_path):
    import zipfile

    mwz = tmp_path / "preds.zip"
    with zipfile.ZipFile(mwz, "w") as archive:
        archive.writestr("preds.json", json.dumps({"d": [{"state": {"hotel-area": "north"}}]}))
    assert detect_format(mwz) == "mwzeval"
    assert dict(read_predictions(mwz).dialogues["d"][0].state) == {"hotel-area": "north"}
    sgd = tmp_path / "sgd.zip"
    with zipfile.ZipFile(sgd, "w") as archive:
        for i in range(2):
            archive.writestr(f"dialogues_00{i}.json", json.dumps(
                [_sgd_dialogue(f"1_0000{i}", {"location": ["Paris"]})]))
    assert detect_format(sgd) == "sgd"
    assert sorted(read_predictions(sgd).dialogues) == ["1_00000", "1_00001"]
    two = tmp_path / "two.zip"
    with zipfile.ZipFile(two, "w") as archive:
        archive.writestr("a.json", "{}")
        archive.writestr("b.json", "{}")
    with pytest.raises(PredictionError, match="expected one JSON file in the zip, found 2"):
        read_predictions(two)
    for missing in (tmp_path / "nothere.zip", tmp_path / "nothere.jsonl"):
        with pytest.raises(PredictionError, match="file not found"):
            read_predictions(missing)
    (tmp_path / "broken.zip").write_bytes(b"PK no zip")
    with pytest.raises(PredictionError, match="not a valid zip file"):
        read_predictions(tmp_path / "broken.zip")


# --------------------------------------------------------------------------- real files


@pytest.fixture(scope="session")
def mwzeval_predictions(shared_dir) -> Path:
    return shared_dir / "reference" / "mwzeval" / "predictions"


def _raw_counts(path: Path) -> tuple[int, int, int, int, int]:
    """Dialogues, turns, non-empty values, '|' values and all values, counted with the
    json module."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    n_turns = n_values = n_pipes = n_all = 0
    for turns in raw.values():
        for turn in turns:
            n_turns += 1
            for slots in (turn.get("state") or {}).values():
                n_all += len(slots)
                for value in slots.values():
                    if value.strip() and value.strip().lower() not in ("none", "not mentioned"):
                        n_values += 1
                        n_pipes += "|" in value
    return len(raw), n_turns, n_values, n_pipes, n_all


@pytest.mark.parametrize("system", ["augpt", "dots", "galaxy-e2e", "uniconv", "labes"])
def test_reference_prediction_files(mwzeval_predictions, system):
    path = mwzeval_predictions / f"{system}.json"
    preds = read_predictions(path, corpus="multiwoz22")
    n_dialogues, n_turns, n_values, n_pipes, n_all = _raw_counts(path)
    assert len(preds.dialogues) == n_dialogues
    assert sum(len(t) for t in preds.dialogues.values()) == n_turns
    # no two raw spellings of one slot in these files: every value lands in the state,
    # verbatim; the strict profile's rules leave the non-empty ones set
    assert sum(len(t.state or {}) for ts in preds.dialogues.values() for t in ts) == n_all
    unset = unset_for("multiwoz22")
    assert sum(len(unset.items(t.state)) for ts in preds.dialogues.values()
               for t in ts) == n_values
    assert kinds(preds) == ["hedged_value"] * n_pipes


def test_reference_keys_map_to_multiwoz22_names(mwzeval_predictions):
    from dst_eval.config import corpus_config

    tracked = set(corpus_config("multiwoz22").slots)
    for system in ("augpt", "dots", "uniconv", "soloist", "labes"):  # 2.1/2.2/mwzeval spellings
        preds = read_predictions(mwzeval_predictions / f"{system}.json", corpus="multiwoz22")
        keys = {k for ts in preds.dialogues.values() for t in ts for k in (t.state or {})}
        assert keys <= tracked | {"restaurant-internet", "restaurant-stars", "restaurant-type"}
        assert "train-leaveat" in keys and "taxi-arriveby" in keys


def test_reading_speed(mwzeval_predictions):
    path = mwzeval_predictions / "augpt.json"  # 3.0 MB
    best = float("inf")
    for _ in range(5):  # CPU time, best of 5: robust to other processes on the machine
        start = time.process_time()
        read_predictions(path, corpus="multiwoz22")
        best = min(best, time.process_time() - start)
    assert best < 0.25, f"reading a 3 MB mwzeval file took {best:.3f} s of CPU"


def test_turn_keys_that_are_not_read_are_named_and_a_file_of_none_is_refused(tmp_path):
    """A state under ``belief_state`` is not read: one ``unknown_key`` Issue names each
    such key with its count. Turn objects that never hold a key that is read (MTTOD/UBAR
    raw output: ``bspn_gen``, ``resp_gen``) are exit 3, not 'empty turn objects'."""
    state = {"hotel": {"area": "north"}}
    renamed = {"d1": [{"belief_state": state, "response": "ok"}, {"response": "fine"}],
               "d2": [{"belief_state": state, "response": "ok", "turn_num": 0}]}
    preds = read_predictions(write_json(tmp_path / "p.json", renamed), corpus="multiwoz21")
    [issue] = [i for i in preds.issues if i.kind == "unknown_key"]
    assert (issue.dialogue, issue.turn, issue.severity) == ("d1", 0, "warning")
    assert "'belief_state' (2 turns), 'turn_num' (1 turn)" in issue.message
    assert all(t.state is None for ts in preds.dialogues.values() for t in ts)
    raw = {"d1": [{"bspn_gen": "[hotel] area north", "resp_gen": "ok", "dial_id": "d1"}]}
    with pytest.raises(PredictionError, match=r"no turn object holds a key dst-eval reads .* "
                       r"found 'bspn_gen' \(1 turn\)"):
        read_predictions(write_json(tmp_path / "raw.json", raw), corpus="multiwoz21")
    # JSONL: dialogue_id and turn_index place the record; only other keys are unknown
    rows = [{"dialogue_id": "d1", "turn_index": 0, "state": state},
            {"dialogue_id": "d1", "turn_index": 1, "state": state, "gold_state": state}]
    jsonl = read_predictions(write_jsonl(tmp_path / "p.jsonl", rows), corpus="multiwoz21")
    [issue] = [i for i in jsonl.issues if i.kind == "unknown_key"]
    assert issue.turn == 1 and "'gold_state' (1 turn)" in issue.message
    clean = read_predictions(write_jsonl(tmp_path / "c.jsonl", rows[:1]), corpus="multiwoz21")
    assert "unknown_key" not in kinds(clean)
