"""Goals, booked domains and gold states derived from MultiWOZ 2.1 data.json vs mwzeval's files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dst_eval.corpora.multiwoz import loader21
from dst_eval.corpora.multiwoz.goals import (
    booked_domains,
    derive_goal,
    dialogue_goal,
    goal_domains,
    gold_states,
    gold_states_from_mwz22,
)
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldDialogue, dialogue_key
from dst_eval.jsonio import read_json


def load_multiwoz21(path: Path) -> dict[str, GoldDialogue]:
    """The loaded gold dialogues by matching key."""
    return {dialogue_key(d.dialogue_id): d for d in loader21.load(path)}


@pytest.fixture(scope="session")
def mwz21_val_test(shared_dir: Path) -> dict[str, GoldDialogue]:
    corpus = shared_dir / "corpora" / "multiwoz21"
    dialogues = load_multiwoz21(corpus / "test.json.zip")
    dialogues.update(load_multiwoz21(corpus / "val.json.zip"))
    return dialogues


@pytest.fixture(scope="session")
def mwzeval_dir(shared_dir: Path) -> Path:
    return shared_dir / "reference" / "mwzeval"


def test_goals_equal_mwzeval_goals_json(mwz21_val_test: dict, mwzeval_dir: Path) -> None:
    expected = json.loads((mwzeval_dir / "goals.json").read_text())
    assert set(expected) == set(mwz21_val_test)
    assert len(expected) == 1999
    wrong = []
    for key, dialogue in mwz21_val_test.items():
        derived = dialogue_goal(dialogue)
        # entry by entry, with dict and list order
        if derived != expected[key] or list(derived) != list(expected[key]) or any(
            derived[d]["requestable"] != expected[key][d]["requestable"] for d in derived
        ):
            wrong.append(key)
    assert wrong == []


def test_booked_domains_equal_mwzeval_file(mwz21_val_test: dict, mwzeval_dir: Path,
                                          shared_dir: Path) -> None:
    expected = json.loads((mwzeval_dir / "booked_domains.json").read_text())
    wrong = [
        k for k, d in mwz21_val_test.items() if booked_domains(d) != expected[k]
    ]
    assert wrong == []
    # taxi bookings never count (no reference number): at least one dialogue has one
    raw = read_json(shared_dir / "corpora" / "multiwoz21" / "test.json.zip")
    assert any(
        t["metadata"]["taxi"]["book"]["booked"] for d in raw.values() for t in d["log"][1::2]
    )


def test_gold_states_equal_approx_gold_states(shared_dir: Path, mwzeval_dir: Path) -> None:
    dialogues = load_multiwoz21(shared_dir / "corpora" / "multiwoz21" / "test.json.zip")
    expected = json.loads((mwzeval_dir / "approx_gold_states_mwz21_test.json").read_text())
    assert set(expected) == set(dialogues)
    wrong = []
    for key, dialogue in dialogues.items():
        states = gold_states(dialogue)
        same_order = all(
            list(a) == list(b) and all(list(a[d]) == list(b[d]) for d in a)
            for a, b in zip(states, expected[key], strict=True)
        )
        if states != expected[key] or not same_order:
            wrong.append(key)
    assert wrong == []


def test_derive_goal_rules() -> None:
    raw = {
        "message": ["..."], "topic": {"train": False},
        "police": {},
        "train": {"info": {"leaveAt": "after 9 pm", "destination": "Cambridge"},
                  "reqt": ["trainID", "phone", "duration"],
                  "book": {"people": "2", "invalid": False, "pre_invalid": True}},
        "hotel": {"info": {"name": "Cityrooms", "parking": "free", "type": "guest house"},
                  "reqt": ["postcode", "parking", "phone", "postcode"], "fail_info": {}},
    }
    goal = derive_goal(raw)
    assert list(goal) == ["hotel", "train"]  # fixed domain order, empty domains left out
    assert goal["hotel"] == {
        "informable": {"name": "cityroomz", "parking": "yes", "type": "guesthouse"},
        "requestable": ["POST", "PHONE"],
        "booking": [],
    }
    assert goal["train"] == {
        "informable": {"leave": "21:00", "destination": "cambridge"},
        "requestable": ["REFERENCE", "TRAINID"],  # train: no PHONE/ADDRESS/POST
        "booking": {"people": "2"},
    }
    domains = goal_domains(goal)
    assert domains["train"].requestable == frozenset({"REFERENCE", "TRAINID"})
    assert domains["hotel"].informable["name"] == "cityroomz"


def test_non_train_reference_follows_booking() -> None:
    goal = derive_goal({"restaurant": {"info": {"food": "Sea food"}, "reqt": ["address"],
                                       "book": {"time": "12:00"}}})
    assert goal["restaurant"]["requestable"] == ["ADDRESS", "REFERENCE"]
    assert goal["restaurant"]["informable"] == {"food": "seafood"}


def _turn(booked_domain: str | None, semi: dict) -> dict:
    metadata = {
        "taxi": {"book": {"booked": [{"x": 1}] if booked_domain == "taxi" else []}, "semi": {}},
        "restaurant": {"book": {"booked": [{"x": 1}] if booked_domain == "restaurant" else [],
                                "time": "", "day": "monday"}, "semi": semi},
        "train": {"book": {"booked": [], "people": ""}, "semi": {"leaveAt": "not mentioned"}},
    }
    return {"text": "...", "metadata": metadata}


def _load_one(tmp_path: Path, raw: dict) -> GoldDialogue:
    path = tmp_path / "data.json"
    path.write_text(json.dumps({"X1": raw}))
    return loader21.load(path).dialogues[0]


def test_booked_domains_and_states_hand_made(tmp_path: Path) -> None:
    raw = {"goal": {}, "log": [
        {"text": "u", "metadata": {}}, _turn(None, {"food": "dontcare", "area": "centre"}),
        {"text": "u", "metadata": {}}, _turn("taxi", {"name": "Nando's", "area": "none"}),
        {"text": "u", "metadata": {}}, _turn("restaurant", {"name": ""}),
    ]}
    dialogue = _load_one(tmp_path, raw)
    assert booked_domains(dialogue) == [[], [], ["restaurant"]]
    assert gold_states(dialogue) == [
        {"restaurant": {"area": "centre", "bookday": "monday"}},
        {"restaurant": {"name": "nandos", "bookday": "monday"}},
        {"restaurant": {"bookday": "monday"}},
    ]


def test_malformed_data_raise_gold_data_error(tmp_path: Path) -> None:
    bad = tmp_path / "data.json"
    bad.write_text(json.dumps({"SNG1": {"goal": {}, "log": [{"text": "u"}, {"text": "s"}]}}))
    with pytest.raises(GoldDataError, match="metadata") as err:
        load_multiwoz21(bad)  # the loader names the system turn by its log position
    assert "SNG1" in str(err.value) and "turn 1" in str(err.value)
    bad.write_text(json.dumps({"SNG1": {"log": []}}))
    with pytest.raises(GoldDataError, match="goal"):
        dialogue_goal(load_multiwoz21(bad)["sng1"])
    with pytest.raises(GoldDataError, match="not a string"):
        derive_goal({"hotel": {"info": {"stars": 4}}}, dialogue="x")
    bad.write_text(json.dumps({"SNG1.json": {"goal": {}, "log": []}}))
    (tmp_path / "testListFile").write_text("sng1\n")
    assert [d.dialogue_id for d in loader21.load(bad, split="test")] == ["SNG1.json"]
    (tmp_path / "testListFile").write_text("SNG1.json\nPMUL2\n")
    with pytest.raises(GoldDataError, match="not in the file"):
        loader21.load(bad, split="test")


def test_gold_states_from_mwz22_sample(shared_dir: Path, mwzeval_dir: Path) -> None:
    """The 2.2 sample dialogue gives the same states as the 2.1-derived approximation."""
    sample = json.loads(
        (shared_dir / "corpora" / "multiwoz22" / "test" / "dialogues_001.json").read_text())
    expected = json.loads((mwzeval_dir / "approx_gold_states_mwz21_test.json").read_text())
    dialogue = sample[0]
    assert dialogue["dialogue_id"] == "MUL0484.json"
    assert gold_states_from_mwz22(dialogue) == expected["mul0484"]


def test_gold_states_from_mwz22_rules() -> None:
    frames = [
        {"service": "taxi", "state": {"slot_values": {"taxi-leaveat": ["5 pm", "17:00"],
                                                      "taxi-destination": ["dontcare"]}}},
        {"service": "hotel", "state": {"slot_values": {"hotel-bookday": ["monday"],
                                                       "hotel-area": ["east", "dontcare"]}}},
        {"service": "bus", "state": {"slot_values": {}}},
    ]
    dialogue = {"dialogue_id": "X.json", "turns": [
        {"speaker": "USER", "frames": frames}, {"speaker": "SYSTEM", "frames": []},
        {"speaker": "USER", "frames": []}, {"speaker": "SYSTEM", "frames": []},
    ]}
    assert gold_states_from_mwz22(dialogue) == [
        {"taxi": {"leave": "17:00"}, "hotel": {"bookday": "monday"}}, {}]
    with pytest.raises(GoldDataError, match="frames"):
        gold_states_from_mwz22({"dialogue_id": "X", "turns": [{"speaker": "USER"}, {}]})
