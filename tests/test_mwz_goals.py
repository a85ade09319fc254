"""Goals, booked domains and gold states derived from MultiWOZ 2.1 data.json vs mwzeval's files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dst_eval.corpora.multiwoz.goals import (
    booked_domains,
    derive_goal,
    goal_domains,
    gold_states,
    gold_states_from_mwz22,
    load_multiwoz21,
)
from dst_eval.errors import GoldDataError


@pytest.fixture(scope="session")
def mwz21_val_test(shared_dir: Path) -> dict[str, dict]:
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
        derived = derive_goal(dialogue["goal"], dialogue=key)
        # entry by entry, with dict and list order
        if derived != expected[key] or list(derived) != list(expected[key]) or any(
            derived[d]["requestable"] != expected[key][d]["requestable"] for d in derived
        ):
            wrong.append(key)
    assert wrong == []


def test_booked_domains_equal_mwzeval_file(mwz21_val_test: dict, mwzeval_dir: Path) -> None:
    expected = json.loads((mwzeval_dir / "booked_domains.json").read_text())
    wrong = [
        k for k, d in mwz21_val_test.items() if booked_domains(d, dialogue_id=k) != expected[k]
    ]
    assert wrong == []
    # taxi bookings never count (no reference number): at least one dialogue has one
    assert any(
        t["metadata"]["taxi"]["book"]["booked"] for d in mwz21_val_test.values()
        for t in d["log"][1::2]
    )


def test_gold_states_equal_approx_gold_states(shared_dir: Path, mwzeval_dir: Path) -> None:
    dialogues = load_multiwoz21(shared_dir / "corpora" / "multiwoz21" / "test.json.zip")
    expected = json.loads((mwzeval_dir / "approx_gold_states_mwz21_test.json").read_text())
    assert set(expected) == set(dialogues)
    wrong = []
    for key, dialogue in dialogues.items():
        states = gold_states(dialogue, dialogue_id=key)
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


def test_booked_domains_and_states_hand_made() -> None:
    dialogue = {"goal": {}, "log": [
        {"text": "u", "metadata": {}}, _turn(None, {"food": "dontcare", "area": "centre"}),
        {"text": "u", "metadata": {}}, _turn("taxi", {"name": "Nando's", "area": "none"}),
        {"text": "u", "metadata": {}}, _turn("restaurant", {"name": ""}),
    ]}
    assert booked_domains(dialogue) == [[], [], ["restaurant"]]
    assert gold_states(dialogue) == [
        {"restaurant": {"area": "centre", "bookday": "monday"}},
        {"restaurant": {"name": "nandos", "bookday": "monday"}},
        {"restaurant": {"bookday": "monday"}},
    ]


def test_malformed_data_raise_gold_data_error(tmp_path: Path) -> None:
    bad = tmp_path / "data.json"
    bad.write_text(json.dumps({"SNG1": {"goal": {}, "log": [{"text": "u"}, {"text": "s"}]}}))
    dialogues = load_multiwoz21(bad)
    with pytest.raises(GoldDataError, match="metadata") as err:
        booked_domains(dialogues["sng1"], file=str(bad), dialogue_id="sng1")
    assert "sng1" in str(err.value) and "turn 0" in str(err.value)
    bad.write_text(json.dumps({"SNG1": {"log": []}}))
    with pytest.raises(GoldDataError, match="goal"):
        load_multiwoz21(bad)
    with pytest.raises(GoldDataError, match="not a string"):
        derive_goal({"hotel": {"info": {"stars": 4}}}, dialogue="x")
    bad.write_text(json.dumps({"SNG1.json": {"goal": {}, "log": []}}))
    assert list(load_multiwoz21(bad, ids=["sng1"])) == ["sng1"]
    with pytest.raises(GoldDataError, match="not in the data"):
        load_multiwoz21(bad, ids=["SNG1.json", "PMUL2"])


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
