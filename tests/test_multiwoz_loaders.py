"""MultiWOZ 2.2 and 2.1 gold loaders: real data, own samples, the HF layout, zips, bad input."""

from __future__ import annotations

import copy
import json
import shutil
import zipfile
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from helpers import oracle_predictions

from dst_eval.cli.app import main
from dst_eval.config import corpus_config
from dst_eval.corpora import detect_corpus, load_gold
from dst_eval.corpora.multiwoz import loader21 as multiwoz21
from dst_eval.corpora.multiwoz import loader22 as multiwoz22
from dst_eval.errors import EXIT_GOLD_PROBLEM, GoldDataError, UsageError
from dst_eval.gold import GoldSet, SlotSpan

# ------------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="session")
def mwz22_dir(shared_dir: Path) -> Path:
    return shared_dir / "corpora" / "multiwoz22"


@pytest.fixture(scope="session")
def mwz21_dir(shared_dir: Path) -> Path:
    return shared_dir / "corpora" / "multiwoz21"


@pytest.fixture(scope="session")
def mwz22_test(mwz22_dir: Path) -> GoldSet:
    return multiwoz22.load(mwz22_dir / "test")


@pytest.fixture(scope="session")
def mwz21_test(mwz21_test_gold: GoldSet) -> GoldSet:
    return mwz21_test_gold  # conftest: equal to multiwoz21.load(test.json.zip, split="test")


@pytest.fixture(scope="session")
def mwz21_val(mwz21_dir: Path) -> GoldSet:
    return multiwoz21.load(mwz21_dir / "val.json.zip", split="val")


def _raw(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _write(path: Path, obj: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


def _plain(gold: GoldSet) -> list:
    """Dialogues as comparable tuples (GoldSet.source differs between layouts)."""
    return list(gold.dialogues)


# ------------------------------------------------------------------------ MultiWOZ 2.2, real data


def test_mul0484_turns_frames_and_state(mwz22_test: GoldSet) -> None:
    assert mwz22_test.corpus == "multiwoz22" and mwz22_test.split == "test"
    (dialogue,) = mwz22_test.dialogues
    assert dialogue.dialogue_id == "MUL0484.json"
    assert dialogue.services == ("attraction", "train")
    assert [t.raw_turn_index for t in dialogue.turns] == [0, 2, 4, 6, 8]
    assert [t.turn_index for t in dialogue.turns] == [0, 1, 2, 3, 4]
    assert sum(len(t.frames) for t in dialogue.turns) == 40
    turn = dialogue.turns[3]
    assert dict(turn.state) == {
        "attraction-name": ("cineworld cinema",),
        "train-arriveby": ("18:00",),
        "train-day": ("monday",),
        "train-departure": ("norwich",),
        "train-destination": ("cambridge",),
    }
    assert turn.user_utterance.startswith("No hold off on booking for now.")
    assert turn.system_response == (
        "Yes it is a cinema located in the south part of town what information would you "
        "like on it?"
    )
    assert dict(turn.active_intents) == {"attraction": "find_attraction"}
    assert turn.services == ("attraction", "train")  # train: inactive but carries state
    attraction = turn.frames[0]
    assert attraction.service == "attraction"
    assert attraction.spans == (SlotSpan("attraction-name", 74, 90),)
    assert turn.user_utterance[74:90] == "cineworld cinema"
    assert [f.service for f in turn.frames] == [
        "attraction", "train", "bus", "police", "hotel", "restaurant", "taxi", "hospital"
    ]
    assert dialogue.turns[2].requested_slots == {"train-leaveat", "train-duration", "train-price"}
    assert dialogue.turns[1].frames[0].spans == (SlotSpan("train-arriveby", 42, 47),)
    last = dialogue.turns[4]
    assert dict(last.active_intents) == {} and last.services == ("attraction", "train")
    assert last.system_response == "Thank you for using our system."


def test_mul0484_schema_and_config(mwz22_test: GoldSet, mwz22_dir: Path) -> None:
    schema = mwz22_test.schema
    assert len(schema) == 8
    assert sum(len(s.slots) for s in schema.values()) == 61
    assert len(mwz22_test.categorical_slots) == 21
    assert schema["hotel"].intents == ("find_hotel", "book_hotel")
    assert "hotel-pricerange" in schema["hotel"].categorical
    assert "hotel-name" not in schema["hotel"].categorical
    config = corpus_config("multiwoz22")
    assert config.categorical_slots == mwz22_test.categorical_slots
    # config slots = the 35 tracked slots = slots named by the intents, minus police-name
    raw = _raw(mwz22_dir / "schema.json")
    intent_slots = {
        slot for service in raw for intent in service["intents"]
        for slot in [*intent["required_slots"], *intent["optional_slots"]]
    }
    assert len(config.slots) == 35
    assert set(config.slots) == intent_slots - {"police-name"}
    assert mwz22_test.slots == config.slots
    assert mwz22_test.seen_services == frozenset(schema)


def test_mwz22_layouts_agree(mwz22_dir: Path, mwz22_test: GoldSet) -> None:
    from_file = multiwoz22.load(mwz22_dir / "test" / "dialogues_001.json")
    from_root = multiwoz22.load(mwz22_dir, split="test")
    from_root_only_split = multiwoz22.load(mwz22_dir)  # only test/ is there
    for other in (from_file, from_root, from_root_only_split):
        assert _plain(other) == _plain(mwz22_test)
        assert other.schema == mwz22_test.schema
        assert other.split == "test"
    with pytest.raises(GoldDataError, match="no dev/ folder"):
        multiwoz22.load(mwz22_dir, split="dev")


def test_mwz22_zip_equals_directory(tmp_path: Path, mwz22_dir: Path, gold_samples: Path,
                                    mwz22_test: GoldSet) -> None:
    archive = tmp_path / "MultiWOZ_2.2.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(mwz22_dir / "schema.json", "MultiWOZ_2.2/schema.json")
        zf.write(mwz22_dir / "test" / "dialogues_001.json", "MultiWOZ_2.2/test/dialogues_001.json")
        zf.write(gold_samples / "multiwoz22" / "dialogues_001.json",
                 "MultiWOZ_2.2/dev/dialogues_001.json")
    zipped = multiwoz22.load(archive, split="test")
    assert _plain(zipped) == _plain(mwz22_test)
    assert zipped.schema == mwz22_test.schema and zipped.split == "test"
    dev = multiwoz22.load(archive, split="dev")
    assert [d.dialogue_id for d in dev] == [
        "DEMO0001.json", "DEMO0002.json", "DEMO0003.json", "DEMO0004.json"
    ]
    with pytest.raises(UsageError, match="several splits"):
        multiwoz22.load(archive)
    with pytest.raises(GoldDataError, match="no single train/ folder"):
        multiwoz22.load(archive, split="train")
    assert multiwoz22.sniff(archive) and not multiwoz21.sniff(archive)


# ------------------------------------------------------------------- Hugging Face multi_woz_v22


def to_hf_record(dialogue: dict, *, active_only: bool = False) -> dict:
    """A native 2.2 dialogue as the HF ``multi_woz_v22`` builder yields it (columnar turns).

    Like the builder, each span's ``start`` holds the native ``exclusive_end`` and vice versa,
    copy_from slots have ``value`` "" and their values in ``copy_from_value``, and the
    ``v2.2_active_only`` config keeps only frames whose intent is not NONE.
    """
    frames_per_turn = []
    for turn in dialogue["turns"]:
        frames = [
            f for f in turn["frames"]
            if not active_only or f.get("state", {}).get("active_intent", "NONE") != "NONE"
        ]
        states, slots = [], []
        for frame in frames:
            state = frame.get("state")
            states.append({
                "active_intent": state["active_intent"] if state else "",
                "requested_slots": state["requested_slots"] if state else [],
                "slots_values": {
                    "slots_values_name": list(state["slot_values"]) if state else [],
                    "slots_values_list": list(state["slot_values"].values()) if state else [],
                },
            })
            spans = frame["slots"]
            slots.append({
                "slot": [s["slot"] for s in spans],
                "value": ["" if "copy_from" in s else s["value"] for s in spans],
                "start": [s.get("exclusive_end", -1) for s in spans],
                "exclusive_end": [s.get("start", -1) for s in spans],
                "copy_from": [s.get("copy_from", "") for s in spans],
                "copy_from_value": [s["value"] if "copy_from" in s else [] for s in spans],
            })
        frames_per_turn.append(
            {"service": [f["service"] for f in frames], "state": states, "slots": slots}
        )
    turns = dialogue["turns"]
    return {
        "dialogue_id": dialogue["dialogue_id"],
        "services": dialogue["services"],
        "turns": {
            "turn_id": [t["turn_id"] for t in turns],
            "speaker": [0 if t["speaker"] == "USER" else 1 for t in turns],
            "utterance": [t["utterance"] for t in turns],
            "frames": frames_per_turn,
            "dialogue_acts": [
                {"dialog_act": {"act_type": [], "act_slots": []},
                 "span_info": {"act_type": [], "act_slot_name": [], "act_slot_value": [],
                               "span_start": [], "span_end": []}}
                for _ in turns
            ],
        },
    }


def test_hf_layout_equals_native(tmp_path: Path, mwz22_dir: Path, gold_samples: Path) -> None:
    for native_file in (mwz22_dir / "test" / "dialogues_001.json",
                        gold_samples / "multiwoz22" / "dialogues_001.json"):
        native = multiwoz22.load(native_file)
        records = [to_hf_record(d) for d in _raw(native_file)]
        jsonl = tmp_path / "hf" / "test.jsonl"
        jsonl.parent.mkdir(exist_ok=True)
        jsonl.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        array = _write(tmp_path / "hf" / "multi_woz_v22_test.json", records)
        for hf_file in (jsonl, array):
            assert multiwoz22.sniff(hf_file) and detect_corpus(hf_file) == "multiwoz22"
            hf = multiwoz22.load(hf_file)
            assert _plain(hf) == _plain(native)
            assert hf.split == "test"
            assert hf.schema == {}  # no schema.json next to an HF export
            assert hf.categorical_slots == corpus_config("multiwoz22").categorical_slots


def test_hf_literal_record_spans_and_copy_from(tmp_path: Path) -> None:
    """A hand-written HF record: swapped span ends, a copy_from slot, string speakers too."""
    record = {
        "dialogue_id": "HF01.json",
        "services": ["hotel", "taxi"],
        "turns": {
            "turn_id": ["0", "1"],
            "speaker": [0, 1],
            "utterance": ["a taxi from my hotel to the gallery", "booked"],
            "frames": [
                {
                    "service": ["taxi", "hotel"],
                    "state": [
                        {"active_intent": "book_taxi", "requested_slots": ["taxi-phone"],
                         "slots_values": {"slots_values_name": ["taxi-departure",
                                                                "taxi-destination"],
                                          "slots_values_list": [["alpha house"],
                                                                ["gallery", "the gallery"]]}},
                        {"active_intent": "NONE", "requested_slots": [],
                         "slots_values": {"slots_values_name": ["hotel-name"],
                                          "slots_values_list": [["alpha house"]]}},
                    ],
                    "slots": [
                        {"slot": ["taxi-departure", "taxi-destination"], "value": ["", "gallery"],
                         "start": [-1, 35], "exclusive_end": [-1, 28],
                         "copy_from": ["hotel-name", ""], "copy_from_value": [["alpha house"], []]},
                        {"slot": [], "value": [], "start": [], "exclusive_end": [],
                         "copy_from": [], "copy_from_value": []},
                    ],
                },
                {"service": [], "state": [], "slots": []},
            ],
        },
    }
    gold = multiwoz22.load(_write(tmp_path / "hf.json", [record]))
    (turn,) = gold.dialogues[0].turns
    assert dict(turn.state) == {
        "hotel-name": ("alpha house",),
        "taxi-departure": ("alpha house",),
        "taxi-destination": ("gallery", "the gallery"),
    }
    assert turn.frames[0].spans == (SlotSpan("taxi-destination", 28, 35),)
    assert turn.user_utterance[28:35] == "gallery"
    assert turn.requested_slots == {"taxi-phone"}
    assert dict(turn.active_intents) == {"taxi": "book_taxi"}
    assert turn.services == ("taxi", "hotel")
    assert turn.system_response == "booked"
    record["turns"]["speaker"] = ["USER", "SYSTEM"]
    again = multiwoz22.load(_write(tmp_path / "hf2.json", [record]))
    assert _plain(again) == _plain(gold)


def test_hf_active_only_is_refused(tmp_path: Path, mwz22_dir: Path) -> None:
    records = [to_hf_record(d, active_only=True)
               for d in _raw(mwz22_dir / "test" / "dialogues_001.json")]
    path = _write(tmp_path / "active_only.json", records)
    with pytest.raises(GoldDataError, match="v2.2_active_only") as info:
        multiwoz22.load(path)
    assert "MUL0484.json" in str(info.value)


# ------------------------------------------------------------------------ MultiWOZ 2.1, real data


def test_mwz21_test_counts(mwz21_test: GoldSet) -> None:
    assert mwz21_test.corpus == "multiwoz21" and mwz21_test.split == "test"
    assert len(mwz21_test) == 1000
    assert mwz21_test.n_turns == 7372
    assert mwz21_test.slots == corpus_config("multiwoz21").slots and len(mwz21_test.slots) == 30
    # independently counted on the raw file: 41,843 set (turn, slot) pairs, 1,169 of them dontcare
    pairs = [v for t in mwz21_test.turns() for v in t.state.values()]
    assert len(pairs) == 41843
    assert sum(v == ("dontcare",) for v in pairs) == 1169
    assert all(len(v) == 1 for v in pairs)
    domains = {k.partition("-")[0] for t in mwz21_test.turns() for k in t.state}
    assert domains == {"attraction", "hotel", "restaurant", "taxi", "train"}
    assert {k for t in mwz21_test.turns() for k in t.state} == set(mwz21_test.slots)


def test_mwz21_val_counts(mwz21_val: GoldSet) -> None:
    # this val.json holds 999 dialogues (valListFile lists the same 999), not 1,000;
    # MultiWOZ 2.2 dev has 1,000 dialogues / 7,374 user turns (SCORERS §11.3)
    assert mwz21_val.split == "dev"  # --split val, named canonically (as SGD, 2.2)
    assert len(mwz21_val) == 999
    assert mwz21_val.n_turns == 7365
    pairs = [v for t in mwz21_val.turns() for v in t.state.values()]
    assert len(pairs) == 41012
    assert sum(v == ("dontcare",) for v in pairs) == 775
    # hospital-department is kept although it is not a TRADE slot
    hospital = [t for t in mwz21_val.turns() if "hospital-department" in t.state]
    assert len(hospital) == 7


def test_mwz21_whole_file_without_split(mwz21_dir: Path, mwz21_test: GoldSet) -> None:
    whole = multiwoz21.load(mwz21_dir / "test.json.zip")
    assert whole.split == "test"  # inferred from the file name
    assert _plain(whole) == _plain(mwz21_test)


def test_mwz21_normalisation_on_real_dialogues(mwz21_test: GoldSet) -> None:
    sng = mwz21_test.get("SNG0073")
    assert sng is not None and sng.services == ("taxi",)
    # log[1] has taxi leaveAt "not mentioned" and arriveBy "not mentioned": dropped
    assert dict(sng.turns[0].state) == {
        "taxi-departure": ("saint johns college",),
        "taxi-destination": ("pizza hut fenditton",),
    }
    assert sng.turns[1].state["taxi-leaveat"] == ("17:15",)  # leaveAt -> leaveat
    assert sng.turns[0].system_response.startswith("What time do you want to leave")
    assert sng.turns[1].raw_turn_index == 2
    # MUL0671 log[7]: hotel name "none" -> not set
    mul0671 = mwz21_test.get("mul0671.json")
    hotel = {k: v for k, v in mul0671.turns[3].state.items() if k.startswith("hotel-")}
    assert hotel == {"hotel-internet": ("yes",), "hotel-pricerange": ("moderate",)}
    # PMUL3027 log[3]: attraction type dontcare, name "not mentioned"
    pmul = mwz21_test.get("PMUL3027")
    assert {k: v for k, v in pmul.turns[1].state.items() if k.startswith("attraction-")} == {
        "attraction-area": ("centre",), "attraction-type": ("dontcare",)
    }
    # MUL2499 log[7]: book slots get the "book" prefix; book.booked is ignored
    mul2499 = mwz21_test.get("MUL2499")
    restaurant = {k: v for k, v in mul2499.turns[3].state.items() if k.startswith("restaurant-")}
    assert restaurant == {
        "restaurant-area": ("centre",),
        "restaurant-bookday": ("thursday",),
        "restaurant-bookpeople": ("8",),
        "restaurant-booktime": ("17:30",),
        "restaurant-name": ("dojo noodle bar",),
        "restaurant-pricerange": ("cheap",),
    }


def test_mwz21_goal_is_read_only(mwz21_test: GoldSet) -> None:
    goal = mwz21_test.get("SNG0073").goal
    assert isinstance(goal, MappingProxyType)
    assert goal["taxi"]["info"]["leaveAt"] == "17:15"
    assert goal["taxi"]["reqt"] == ("car type", "phone")
    with pytest.raises(TypeError):
        goal["taxi"]["info"]["leaveAt"] = "18:00"  # type: ignore[index]


def test_same_dialogue_same_state_in_21_and_22(mwz21_test: GoldSet, mwz22_test: GoldSet) -> None:
    """MUL0484 gives identical canonical states from 2.1 data.json and 2.2 dialogues."""
    v21 = mwz21_test.get("MUL0484.json")
    v22 = mwz22_test.get("mul0484")
    assert [dict(t.state) for t in v21.turns] == [dict(t.state) for t in v22.turns]
    assert [t.user_utterance for t in v21.turns][0].startswith("I need train reservations")


# --------------------------------------------------------------------------------- own samples


def test_gold_sample_mwz22(gold_samples: Path) -> None:
    gold = load_gold(gold_samples / "multiwoz22")
    assert gold.corpus == "multiwoz22" and gold.split is None
    assert len(gold) == 4 and gold.n_turns == 13
    assert sorted(gold.schema) == ["attraction", "hotel", "restaurant", "taxi", "train"]
    assert sum(len(s.slots) for s in gold.schema.values()) == 49
    demo1, demo2, demo3, demo4 = gold.dialogues
    booking = demo1.turns[2].state
    assert booking["restaurant-booktime"] == ("19:30", "7:30 pm")  # two label variants
    assert booking["restaurant-food"] == ("dontcare",)
    assert demo1.turns[2].frames[0].spans == (SlotSpan("restaurant-booktime", 49, 56),)
    taxi_turn = demo2.turns[2]
    assert taxi_turn.state["taxi-departure"] == ("acorn guest house",)  # copy_from hotel-name
    assert [s.slot for f in taxi_turn.frames for s in f.spans] == [
        "taxi-destination", "taxi-leaveat"
    ]
    assert taxi_turn.services == ("taxi", "hotel")
    assert dict(taxi_turn.active_intents) == {"taxi": "book_taxi"}
    assert demo3.turns[2].state["train-bookpeople"] == ("4",)
    assert demo4.turns[1].requested_slots == {"attraction-phone", "attraction-postcode"}


def test_gold_sample_mwz22_predictions_hold_three_errors(gold_samples: Path) -> None:
    from dst_eval.alignment import align
    from dst_eval.predictions.reader import read_predictions

    gold = load_gold(gold_samples / "multiwoz22")
    preds = read_predictions(gold_samples / "multiwoz22" / "predictions.json", corpus="multiwoz22")
    alignment = align(gold, preds)
    assert alignment.coverage == 1.0 and not alignment.issues
    differences = {}
    for gold_turn, pred_turn in alignment.pairs:
        predicted = dict(pred_turn.state)
        for key in set(predicted) | set(gold_turn.state):
            if predicted.get(key) not in gold_turn.state.get(key, ()):
                differences[(gold_turn.dialogue_id, gold_turn.turn_index, key)] = (
                    predicted.get(key), gold_turn.state.get(key)
                )
    assert differences == {
        ("DEMO0002.json", 0, "hotel-parking"): (None, ("yes",)),
        ("DEMO0003.json", 1, "train-leaveat"): ("17:15", ("17:45",)),
        ("DEMO0003.json", 2, "train-leaveat"): ("17:15", ("17:45",)),
        ("DEMO0004.json", 1, "attraction-name"): ("cafe jello gallery", None),
    }


def test_oracle_round_trip(tmp_path: Path, gold_samples: Path, mwz21_test: GoldSet) -> None:
    from dst_eval.predictions.reader import read_predictions

    for corpus, gold in (("multiwoz22", load_gold(gold_samples / "multiwoz22")),
                         ("multiwoz21", mwz21_test)):
        path = _write(tmp_path / f"{corpus}_oracle.json", oracle_predictions(gold))
        preds = read_predictions(path, corpus=corpus)
        for dialogue in gold:
            pred_turns = preds.get(dialogue.dialogue_id)
            assert pred_turns is not None and len(pred_turns) == len(dialogue.turns)
            for gold_turn, pred_turn in zip(dialogue.turns, pred_turns, strict=True):
                assert dict(pred_turn.state) == {k: v[0] for k, v in gold_turn.state.items()}


def test_gold_sample_mwz21(gold_samples: Path) -> None:
    path = gold_samples / "multiwoz21" / "data.json"
    assert detect_corpus(path) == "multiwoz21"
    with pytest.raises(UsageError, match=r"holds several splits \(dev, test, by its list"):
        load_gold(path)  # test + val by testListFile/valListFile: which one is meant?
    (smpl1,) = load_gold(path, split="test").dialogues
    (smpl2,) = load_gold(path, split="dev").dialogues
    assert smpl1.services == ("hotel", "train")
    # "do n't care" -> dontcare; "not mentioned" and "none" dropped
    assert dict(smpl1.turns[0].state) == {
        "hotel-area": ("east",), "hotel-pricerange": ("cheap",), "hotel-stars": ("dontcare",)
    }
    assert dict(smpl1.turns[2].state) == {
        "hotel-area": ("east",),
        "hotel-bookday": ("tuesday",),
        "hotel-bookpeople": ("2",),
        "hotel-bookstay": ("3",),
        "hotel-name": ("allenbell",),
        "hotel-pricerange": ("cheap",),
        "hotel-stars": ("dontcare",),
        "train-arriveby": ("18:00",),  # " 18:00 " stripped, arriveBy -> arriveby
        "train-day": ("tuesday",),
        "train-destination": ("cambridge",),
        "train-leaveat": ("dontcare",),  # "dont care"
    }
    assert smpl2.turns[1].state["restaurant-pricerange"] == ("dontcare",)  # "don't care"
    assert smpl2.turns[1].state["restaurant-booktime"] == ("12:15",)
    assert smpl2.turns[1].services == ("restaurant",)
    assert [smpl1.dialogue_id, smpl2.dialogue_id] == ["SMPL001.json", "SMPL002.json"]
    with pytest.raises(GoldDataError, match="no dialogues|holds no train split"):
        load_gold(path, split="train")


@pytest.mark.parametrize("raw, expected", [
    ("", None), ("  ", None), ("not mentioned", None), ("None", None), ("none", None),
    ("dontcare", "dontcare"), ("do n't care", "dontcare"), ("do nt care", "dontcare"),
    ("dont care", "dontcare"), ("Don't Care", "dontcare"), ("do not care", "dontcare"),
    (" 18:00 ", "18:00"), ("Pizza Hut", "Pizza Hut"),
])
def test_mwz21_value_rule(raw: str, expected: str | None) -> None:
    assert multiwoz21.canonical_value(raw) == expected


def test_mwz21_key_rule() -> None:
    assert multiwoz21.canonical_key("train", "leaveAt", book=False) == "train-leaveat"
    assert multiwoz21.canonical_key("Taxi", "arriveBy", book=False) == "taxi-arriveby"
    assert multiwoz21.canonical_key("hotel", "day", book=True) == "hotel-bookday"
    assert multiwoz21.canonical_key("hotel", "price range", book=False) == "hotel-pricerange"


# -------------------------------------------------------------------------------- slot aliases


@pytest.mark.parametrize("corpus", ["multiwoz21", "multiwoz22"])
@pytest.mark.parametrize("domain, slot, expected", [
    ("hotel", "price range", "hotel-pricerange"),
    ("hotel", "price", "hotel-pricerange"),
    ("train", "leaveAt", "train-leaveat"),
    ("train", "leave at", "train-leaveat"),
    ("train", "leave", "train-leaveat"),
    ("taxi", "arrive", "taxi-arriveby"),
    ("train", "arriveBy", "train-arriveby"),
    ("hotel", "book day", "hotel-bookday"),
    ("hotel", "day", "hotel-bookday"),
    ("hotel", "stay", "hotel-bookstay"),
    ("restaurant", "time", "restaurant-booktime"),
    ("restaurant", "book people", "restaurant-bookpeople"),
    ("train", "people", "train-bookpeople"),
    ("train", "day", "train-day"),  # a search slot, not a booking slot
    ("attraction", "area", "attraction-area"),
])
def test_slot_aliases(corpus: str, domain: str, slot: str, expected: str) -> None:
    from dst_eval.slotkeys import canonical_slot_key

    assert canonical_slot_key(domain, slot, corpus) == expected


def test_alias_targets_are_schema_slots(mwz22_test: GoldSet) -> None:
    schema_slots = {s for service in mwz22_test.schema.values() for s in service.slots}
    for corpus in ("multiwoz21", "multiwoz22"):
        config = corpus_config(corpus)
        assert set(config.slot_aliases.values()) <= schema_slots
        assert set(config.slots) <= schema_slots


# ------------------------------------------------------------------------------------ sniffing


def test_sniff(mwz22_dir: Path, mwz21_dir: Path, shared_dir: Path, gold_samples: Path) -> None:
    for path in (mwz22_dir, mwz22_dir / "test", mwz22_dir / "test" / "dialogues_001.json",
                 gold_samples / "multiwoz22"):
        assert multiwoz22.sniff(path) and not multiwoz21.sniff(path)
        assert detect_corpus(path) == "multiwoz22"
    for path in (mwz21_dir / "test.json.zip", mwz21_dir / "val.json.zip",
                 gold_samples / "multiwoz21" / "data.json"):
        assert multiwoz21.sniff(path) and not multiwoz22.sniff(path)
    for path in (mwz22_dir / "schema.json", shared_dir / "corpora" / "sgd" / "dev",
                 shared_dir / "corpora" / "crosswoz" / "test.json.zip",
                 gold_samples / "multiwoz22" / "predictions.json"):
        assert not multiwoz22.sniff(path) and not multiwoz21.sniff(path)


# ---------------------------------------------------------------------------------- bad input


def _sample22(gold_samples: Path) -> list[dict]:
    return _raw(gold_samples / "multiwoz22" / "dialogues_001.json")


def _sample21(gold_samples: Path) -> dict:
    return _raw(gold_samples / "multiwoz21" / "data.json")


def _set(data: Any, path: tuple, value: Any) -> Any:
    data = copy.deepcopy(data)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


BAD_22 = [
    # (path into the sample, new value, message, dialogue, raw turn)
    ((1, "turns", 2, "frames", 0, "state", "slot_values", "hotel-area"), "north",
     "must be a list of strings", "DEMO0002.json", 2),
    ((0, "turns", 4, "speaker"), "WIZARD", "speaker must be USER or SYSTEM", "DEMO0001.json", 4),
    ((2, "turns", 2, "frames", 0, "slots", 0, "start"), 99, "0 <= start <= exclusive_end",
     "DEMO0003.json", 2),
    ((2, "turns", 2, "frames", 1, "state", "slot_values", "train-day"), ["friday"],
     "different values in frames", "DEMO0003.json", 2),
    ((3, "turns", 0, "frames", 0, "state"), None, "has no 'state' object", "DEMO0004.json", 0),
    ((3, "turns", 2, "utterance"), 5, "no string 'utterance'", "DEMO0004.json", 2),
    ((3, "turns", 2, "frames", 0, "state", "requested_slots"), "attraction-phone",
     "requested_slots must be a list", "DEMO0004.json", 2),
]


@pytest.mark.parametrize("path, value, message, dialogue, turn", BAD_22)
def test_bad_mwz22_gold(tmp_path: Path, gold_samples: Path, path: tuple, value: Any,
                        message: str, dialogue: str, turn: int) -> None:
    data = _set(_sample22(gold_samples), path, value)
    file = _write(tmp_path / "test" / "dialogues_001.json", data)
    with pytest.raises(GoldDataError) as info:
        multiwoz22.load(file)
    error = info.value
    text = str(error)
    assert error.exit_code == EXIT_GOLD_PROBLEM == 4
    assert message in text and "\n" not in text
    assert str(file) in text and f"dialogue {dialogue}" in text and f"turn {turn}" in text


def test_bad_mwz22_files(tmp_path: Path, gold_samples: Path) -> None:
    sample = _sample22(gold_samples)
    cases = {
        "not_a_list.json": {"dialogue_id": "x"},
        "no_id.json": [{"turns": []}],
        "duplicate.json": [sample[0], {**sample[0], "dialogue_id": "demo0001"}],
        "empty_list.json": [],
    }
    messages = {
        "not_a_list.json": "expected a JSON array of dialogues",
        "no_id.json": "has no string 'dialogue_id'",
        "duplicate.json": "duplicate dialogue id",
        "empty_list.json": "no dialogues",
    }
    for name, obj in cases.items():
        file = _write(tmp_path / name, obj)
        with pytest.raises(GoldDataError, match=messages[name]) as info:
            multiwoz22.load(file)
        assert str(file) in str(info.value)
    broken = tmp_path / "broken.json"
    broken.write_text('[{"dialogue_id": ', encoding="utf-8")
    with pytest.raises(GoldDataError, match="invalid JSON"):
        multiwoz22.load(broken)
    with pytest.raises(GoldDataError, match="this is the schema"):
        multiwoz22.load(gold_samples / "multiwoz22" / "schema.json")
    (tmp_path / "empty").mkdir()
    with pytest.raises(GoldDataError, match="no dialogues_"):
        multiwoz22.load(tmp_path / "empty")  # a folder without dialogue files
    with pytest.raises(UsageError, match="unknown MultiWOZ 2.2 split"):
        multiwoz22.load(gold_samples / "multiwoz22", split="holdout")


def test_bad_hf_record(tmp_path: Path, gold_samples: Path) -> None:
    record = to_hf_record(_sample22(gold_samples)[0])
    record["turns"]["speaker"] = record["turns"]["speaker"][:-1]
    file = _write(tmp_path / "hf.json", [record])
    with pytest.raises(GoldDataError, match="'speaker' must be a list of 8") as info:
        multiwoz22.load(file)
    assert "dialogue DEMO0001.json" in str(info.value)
    record = to_hf_record(_sample22(gold_samples)[0])
    names = record["turns"]["frames"][2]["state"][0]["slots_values"]["slots_values_name"]
    names.append("restaurant-extra")
    with pytest.raises(GoldDataError, match="'slots_values_list' must be a list of 4") as info:
        multiwoz22.load(_write(tmp_path / "hf2.json", [record]))
    assert "turn 2" in str(info.value)


BAD_21 = [
    (("SMPL001.json", "log", 3, "metadata", "hotel", "semi", "area"), 5,
     "must be a string, not int", "SMPL001.json", 3),
    (("SMPL001.json", "log", 2, "metadata"), {"hotel": {}},
     "does not alternate user/system", "SMPL001.json", 2),
    (("SMPL002.json", "log", 1, "metadata"), [], "'metadata' must be an object",
     "SMPL002.json", 1),
    (("SMPL002.json", "log", 3, "metadata", "restaurant", "book"), "friday",
     "restaurant.book must be an object", "SMPL002.json", 3),
    (("SMPL002.json", "log", 2, "text"), None, "needs a string 'text'", "SMPL002.json", 2),
]


@pytest.mark.parametrize("path, value, message, dialogue, turn", BAD_21)
def test_bad_mwz21_gold(tmp_path: Path, gold_samples: Path, path: tuple, value: Any,
                        message: str, dialogue: str, turn: int) -> None:
    file = _write(tmp_path / "data.json", _set(_sample21(gold_samples), path, value))
    with pytest.raises(GoldDataError) as info:
        multiwoz21.load(file)
    text = str(info.value)
    assert info.value.exit_code == 4 and "\n" not in text
    assert message in text
    assert str(file) in text and f"dialogue {dialogue}" in text and f"turn {turn}" in text


def test_bad_mwz21_files(tmp_path: Path, gold_samples: Path) -> None:
    data = _sample21(gold_samples)
    file = _write(tmp_path / "data.json", data)
    (tmp_path / "testListFile").write_text("SMPL001.json\nMUL9999.json\n", encoding="utf-8")
    with pytest.raises(GoldDataError, match=r"1 of the 2 dialogues listed in .*testListFile"):
        multiwoz21.load(file, split="test")
    with pytest.raises(UsageError, match=r"several splits \(unlisted, test"):
        multiwoz21.load(file)  # no split, but test (listed) and another dialogue
    with pytest.raises(GoldDataError, match="no 'log' list") as info:
        multiwoz21.load(_write(tmp_path / "nolog.json", {"X1": {"goal": {}}}))
    assert "dialogue X1" in str(info.value)
    with pytest.raises(GoldDataError, match=r"expected a JSON object"):
        multiwoz21.load(_write(tmp_path / "list.json", [data]))
    with pytest.raises(UsageError, match="unknown MultiWOZ split"):
        multiwoz21.load(file, split="holdout")
    archive = tmp_path / "two.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("a.json", "{}")
        zf.writestr("b.json", "{}")
    with pytest.raises(GoldDataError, match="expected one .json member"):
        multiwoz21.load(archive)


def test_mwz21_zip_with_list_files(tmp_path: Path, gold_samples: Path) -> None:
    folder = gold_samples / "multiwoz21"
    archive = tmp_path / "MultiWOZ_2.1.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(folder / "data.json", "MULTIWOZ2.1/data.json")
        zf.write(folder / "testListFile", "MULTIWOZ2.1/testListFile.txt")
        zf.write(folder / "valListFile", "MULTIWOZ2.1/valListFile.txt")
        zf.writestr("MULTIWOZ2.1/ontology.json", "{}")
    assert multiwoz21.sniff(archive)
    for split in ("test", "val"):  # the list files inside the zip split it as next to a file
        assert _plain(multiwoz21.load(archive, split=split)) == _plain(
            multiwoz21.load(folder / "data.json", split=split))
    assert [d.dialogue_id for d in multiwoz21.load(archive, split="val")] == ["SMPL002.json"]
    with pytest.raises(UsageError, match="several splits"):
        multiwoz21.load(archive)


def test_data_json_splits_by_list_files(tmp_path: Path, gold_samples: Path) -> None:
    """Without ``--split``, a data.json is scored whole only when it holds one split; the
    dialogues in no list file are ``train`` (both lists) or ``unlisted`` (one list), and a
    split is held only when its list names some dialogue of the file."""
    data = json.loads((gold_samples / "multiwoz21" / "data.json").read_text())
    one = tmp_path / "one"  # only the test dialogue, both list files next to it
    one.mkdir()
    _write(one / "data.json", {"SMPL001.json": data["SMPL001.json"]})
    for name in ("testListFile", "valListFile"):
        shutil.copy(gold_samples / "multiwoz21" / name, one / name)
    whole = load_gold(one / "data.json")
    assert whole.split == "test" and [d.dialogue_id for d in whole] == ["SMPL001.json"]
    with pytest.raises(GoldDataError, match="holds no dev split \\(it holds test\\)"):
        load_gold(one / "data.json", split="dev")

    half = tmp_path / "half"  # test + val dialogues, only testListFile
    half.mkdir()
    _write(half / "data.json", data)
    shutil.copy(gold_samples / "multiwoz21" / "testListFile", half / "testListFile")
    with pytest.raises(UsageError, match=r"several splits \(unlisted, test"):
        load_gold(half / "data.json")
    assert [d.dialogue_id for d in load_gold(half / "data.json", split="test")] == [
        "SMPL001.json"]
    for split in ("train", "dev"):  # the unlisted rest is no split anyone can name
        with pytest.raises(GoldDataError, match=f"holds no {split} split \\(it holds "
                           "unlisted, test\\)"):
            load_gold(half / "data.json", split=split)


def test_mwz22_user_turn_without_frames_is_a_gold_error(tmp_path: Path,
                                                        gold_samples: Path) -> None:
    """A missing annotation is not an empty state (it was read as one, silently)."""
    folder = tmp_path / "mwz22"
    shutil.copytree(gold_samples / "multiwoz22", folder)
    dialogues = json.loads((folder / "dialogues_001.json").read_text("utf-8"))
    del dialogues[0]["turns"][2]["frames"]
    (folder / "dialogues_001.json").write_text(json.dumps(dialogues), "utf-8")
    with pytest.raises(GoldDataError, match="user turn without 'frames'") as info:
        multiwoz22.load(folder)
    assert (info.value.dialogue, info.value.turn) == (dialogues[0]["dialogue_id"], 2)


@pytest.mark.parametrize(("where", "slot"), [
    ("slot_values", "hotel-pricerange "), ("slot_values", "hotel-pr\u0456cerange"),
    ("requested_slots", "hotel-phone\u200b")])
def test_mwz22_slot_missing_from_the_schema_is_a_gold_error(tmp_path: Path, gold_samples: Path,
                                                            where: str, slot: str) -> None:
    """A gold slot its service's schema does not declare, spelled exactly, is exit 4, as in
    SGD: an edited name (trailing space, Cyrillic і, zero-width space) was scored silently,
    every turn holding it wrong."""
    folder = tmp_path / "mwz22"
    shutil.copytree(gold_samples / "multiwoz22", folder)
    dialogues = json.loads((folder / "dialogues_001.json").read_text("utf-8"))
    assert dialogues[1]["dialogue_id"] == "DEMO0002.json"
    [hotel] = [f for f in dialogues[1]["turns"][2]["frames"] if f["service"] == "hotel"]
    state = hotel["state"]
    if where == "slot_values":
        state["slot_values"][slot] = state["slot_values"].pop("hotel-pricerange", ["cheap"])
    else:
        state["requested_slots"] = [slot]
    _write(folder / "dialogues_001.json", dialogues)
    with pytest.raises(GoldDataError, match="is not in the schema of service 'hotel'") as info:
        multiwoz22.load(folder)
    assert (info.value.dialogue, info.value.turn) == ("DEMO0002.json", 2)
    assert repr(slot) in str(info.value)
    assert len(multiwoz22.load(gold_samples / "multiwoz22").dialogues) == 4  # as released


@pytest.mark.parametrize("profile", ["strict", "sgd-official"])
def test_mwz22_service_missing_from_the_schema_is_a_gold_error(tmp_path: Path, gold_samples: Path,
                                                               capsys, profile: str) -> None:
    """As in SGD: it was accepted, and ``sgd-official`` stopped with KeyError (exit 1)."""
    folder = tmp_path / "mwz22"
    shutil.copytree(gold_samples / "multiwoz22", folder)
    schema = json.loads((folder / "schema.json").read_text("utf-8"))
    _write(folder / "schema.json", [s for s in schema if s["service_name"] != "hotel"])
    with pytest.raises(GoldDataError, match="service 'hotel' is not in the schema") as info:
        multiwoz22.load(folder)
    assert (info.value.file, info.value.dialogue, info.value.turn) == (
        str(folder / "dialogues_001.json"), "DEMO0001.json", 0)
    assert str(folder / "schema.json") in str(info.value)
    predictions = str(gold_samples / "multiwoz22" / "predictions.json")
    assert main([predictions, "--gold", str(folder), "--profile", profile, "-q"]) == 4
    error = capsys.readouterr().err
    assert "service 'hotel' is not in the schema" in error and "Traceback" not in error


def test_sgd_gold_read_as_multiwoz22_is_refused(tmp_path: Path, gold_samples: Path,
                                                capsys) -> None:
    """``--corpus multiwoz22`` on SGD gold (the same file layout) read it, keyed its slots
    by SGD service names, and scored every prediction 0 with exit 0: the schema's services,
    or without a schema the frames', must be MultiWOZ 2.2's."""
    sgd = gold_samples / "sgd"
    predictions = str(gold_samples / "sgd" / "predictions.json")
    assert main([predictions, "--gold", str(sgd), "--corpus", "multiwoz22", "-q"]) == 4
    error = capsys.readouterr().err
    assert f"{sgd / 'schema.json'}: not a MultiWOZ 2.2 schema: service(s) Cafes_1, " \
        "Trains_7, Weather_5" in error
    alone = tmp_path / "dialogues_001.json"  # no schema next to it or above
    shutil.copy(sgd / "dialogues_001.json", alone)
    with pytest.raises(GoldDataError, match="service 'Cafes_1' is not in MultiWOZ 2.2") as info:
        multiwoz22.load(alone)
    assert (info.value.file, info.value.dialogue, info.value.turn) == (
        str(alone), "sample_001", 0)
    assert len(multiwoz22.load(gold_samples / "multiwoz22")) == 4  # its own gold still loads


# ---- split names that the gold's layout does not back (an audit found each scored) ------


def test_a_file_named_for_a_split_must_agree_with_its_list_file(tmp_path: Path,
                                                                 gold_samples: Path) -> None:
    """``test.json`` next to a ``testListFile`` that does not list all its dialogues (a file
    of another split, renamed) is refused, not scored as test."""
    folder = tmp_path / "renamed"
    folder.mkdir()
    shutil.copyfile(gold_samples / "multiwoz21" / "data.json", folder / "test.json")
    shutil.copyfile(gold_samples / "multiwoz21" / "testListFile", folder / "testListFile")
    with pytest.raises(GoldDataError, match=r"named for the test split but \d+ of its \d+ "
                       "dialogues are not in"):
        multiwoz21.load(folder / "test.json", split="test")


def test_mwz21_split_label_is_canonical(mwz21_dir: Path) -> None:
    for spelling in ("dev", "val", "validation"):
        assert multiwoz21.load(mwz21_dir / "val.json.zip", split=spelling).split == "dev"


def test_mwzeval_gold_states_file_is_digested_and_its_split_a_label(shared_dir: Path,
                                                                     tmp_path: Path) -> None:
    from dst_eval.corpora.multiwoz import mwzeval_states

    source = shared_dir / "reference" / "mwzeval" / "approx_gold_states_mwz21_test.json"
    gold = mwzeval_states.load(source, split="val")
    assert gold.split == "dev" and "is the --split label" in gold.notes[0]
    assert [f.path for f in gold.files] == [str(source)]
    changed = tmp_path / "states.json"
    changed.write_bytes(source.read_bytes() + b"\n")  # other bytes, the same states
    assert mwzeval_states.load(changed).files[0].sha256 != gold.files[0].sha256
    with pytest.raises(UsageError, match="unknown MultiWOZ split 'tset'"):
        mwzeval_states.load(source, split="tset")


def test_a_symlinked_split_folder_is_its_real_split(tmp_path: Path, gold_samples: Path) -> None:
    real = tmp_path / "real" / "dev"
    shutil.copytree(gold_samples / "multiwoz22", real)
    root = tmp_path / "root"
    root.mkdir()
    (root / "test").symlink_to(real, target_is_directory=True)
    with pytest.raises(GoldDataError, match="the gold holds the dev split"):
        multiwoz22.load(root, split="test")
    assert multiwoz22.load(root / "test").split == "dev"


def test_mwz21_slot_spelled_twice_with_two_values_is_a_gold_error(tmp_path: Path,
                                                                   gold_samples: Path) -> None:
    """``semi`` holding ``pricerange`` and ``price range`` (one canonical slot) with two
    values: which is the gold? Refused, naming dialogue and turn."""
    data = json.loads((gold_samples / "multiwoz21" / "data.json").read_text("utf-8"))
    dialogue_id, dialogue = next(iter(data.items()))
    system = dialogue["log"][1]
    system["metadata"]["hotel"]["semi"].update({"pricerange": "cheap", "price range": "expensive"})
    path = tmp_path / "data.json"
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(GoldDataError, match="slot 'hotel-pricerange' is set twice") as info:
        multiwoz21.load(path)
    assert (info.value.dialogue, info.value.turn) == (dialogue_id, 1)
