"""mwzeval 7f19ee0 key and value normalisation (SCORERS.md §1.2, §1.5), row by row."""

from __future__ import annotations

import copy
from types import MappingProxyType

import pytest

from dst_eval.corpora.multiwoz.mwzeval_rules import (
    RULES_VERSION,
    RULES_VERSION_CD3F0EE,
    canonical_slot_name,
    normalize_slot_name,
    normalize_state,
    normalize_value,
    rules_version,
    time_to_canonical,
)

# --- keys -----


@pytest.mark.parametrize(("raw", "expected"), [
    ("leaveAt", "leave"), ("leave at", "leave"), ("leaveat", "leave"), ("leave", "leave"),
    ("arriveBy", "arrive"), ("arrive by", "arrive"), ("Arrive By", "arrive"),
    ("price range", "pricerange"), ("pricerange", "pricerange"),
    ("book day", "bookday"), ("bookPeople", "bookpeople"), ("day", "day"), ("people", "people"),
    ("time", "time"), ("Name", "name"),
    ("leave\tat", "leave\tat"),  # only ASCII spaces are removed, as mwzeval's replace(' ', '')
])
def test_slot_names(raw: str, expected: str) -> None:
    assert normalize_slot_name(raw) == expected


def test_canonical_slot_names_round_trip() -> None:
    assert canonical_slot_name("leave") == "leaveat"
    assert canonical_slot_name("arrive") == "arriveby"
    assert canonical_slot_name("bookday") == "bookday"
    for canonical in ("leaveat", "arriveby", "bookday", "bookpeople", "pricerange", "day"):
        assert canonical_slot_name(normalize_slot_name(canonical)) == canonical


# --- names -----

RESTAURANT_ROWS = [
    ("hotel du vin bistro", "hotel du vin and bistro"),
    ("the river bar and grill", "the river bar steakhouse and grill"),
    ("nando's", "nandos"),
    ("city center b and b", "city center north b and b"),
    ("acorn house", "acorn guest house"),
    ("caffee uno", "caffe uno"), ("cafe uno", "caffe uno"),
    ("rosa's", "rosas bed and breakfast"),
    ("restaurant called two two", "restaurant two two"),
    ("restaurant 2 two", "restaurant two two"), ("restaurant two 2", "restaurant two two"),
    ("restaurant 2 2", "restaurant two two"),
    ("restaurant 1 7", "restaurant one seven"), ("restaurant 17", "restaurant one seven"),
]
HOTEL_ROWS = [
    ("lime house", "limehouse"), ("cityrooms", "cityroomz"), ("whale of time", "whale of a time"),
    ("huntingdon hotel", "huntingdon marriott hotel"),
    ("holiday inn exlpress, cambridge", "express by holiday inn cambridge"),
    ("university hotel", "university arms hotel"),
    ("arbury guesthouse and lodge", "arbury lodge guesthouse"),
    ("arbury guesthouse", "arbury lodge guesthouse"),
    ("bridge house", "bridge guest house"), ("nandos in the city centre", "nandos city centre"),
]
ATTRACTION_ROWS = [
    ("broughton gallery", "broughton house gallery"),
    ("scudamores punt co", "scudamores punting co"),
    ("cambridge botanic gardens", "cambridge university botanic gardens"),
    ("the botanical gardens at cambridge university", "cambridge university botanic gardens"),
    ("the junction", "junction theatre"), ("trinity street college", "trinity college"),
    ("christ college", "christ's college"), ("christs", "christ's college"),
    ("history of science museum", "whipple museum of the history of science"),
    ("parkside pools", "parkside swimming pool"), ("cafe jello museum", "cafe jello gallery"),
]


@pytest.mark.parametrize(("raw", "expected"), RESTAURANT_ROWS + HOTEL_ROWS + ATTRACTION_ROWS)
@pytest.mark.parametrize("slot", ["name", "destination", "departure"])
def test_name_tables_apply_to_every_name_slot(slot: str, raw: str, expected: str) -> None:
    # all three tables apply whatever the domain, also to taxi/train places
    assert normalize_value(slot, raw) == expected
    assert normalize_value(slot, f"  {raw.upper()} ") == expected  # strip + lower first


@pytest.mark.parametrize(("raw", "expected"), [
    ("Pizza Hut & Grill", "pizza hut and grill"),
    ("a&b guest house", "a and b guest house"),
    ("christ 's college", "christ's college"),
    ("nando 's", "nandos"),  # " '" -> "'" then the table
    ("Rosa & Co", "rosa and co"),
    ("the cambridge belfry", "the cambridge belfry"),  # no table row: unchanged after lower
    ("alexander bed and breakfast", "alexander bed and breakfast"),  # cd3f0ee rule is off
    ("a and b guest house", "a and b guest house"),  # cd3f0ee row is off
    ("acorn guesthouse", "acorn guesthouse"),  # cd3f0ee row is off
])
def test_name_replacements(raw: str, expected: str) -> None:
    assert normalize_value("name", raw) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    ("alexander bed and breakfast", "alexander b and b"),
    ("a and b guest house", "a and b guesthouse"),
    ("A & B Guest House", "a and b guesthouse"),
    ("acorn guesthouse", "acorn guest house"),
    ("rosa's", "rosas bed and breakfast"),  # the table's output is not rewritten again
    ("cityrooms", "cityroomz"),
])
def test_cd3f0ee_rules(raw: str, expected: str) -> None:
    assert normalize_value("name", raw, cd3f0ee=True) == expected
    assert rules_version(cd3f0ee=True) == RULES_VERSION_CD3F0EE == "mwzeval-cd3f0ee"
    assert rules_version() == RULES_VERSION == "mwzeval-7f19ee0"


# --- type, food, parking/internet, others -----

@pytest.mark.parametrize(("raw", "expected"), [
    ("swimming pool", "swimmingpool"), ("mutliple sports", "multiple sports"),
    ("night club", "nightclub"), ("guest house", "guesthouse"),
    ("Guest House", "Guest House"),  # exact and case-sensitive: not lower-cased
    (" guest house", " guest house"),  # not stripped either
    ("museum", "museum"),
])
def test_type_table(raw: str, expected: str) -> None:
    assert normalize_value("type", raw) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    ("eriterean", "mediterranean"), ("brazilian", "portuguese"), ("sea food", "seafood"),
    ("portugese", "portuguese"), ("modern american", "north american"),
    ("americas", "north american"), ("intalian", "italian"), ("italain", "italian"),
    ("asian or oriental", "asian"), ("english", "british"), ("brutish", "british"),
    ("bristish", "british"), ("australasian", "australian"), ("gastropod", "gastropub"),
    ("europeon", "european"),
    ("  English ", "british"), ("Italian", "italian"), ("chinese", "chinese"),
])
def test_food_table(raw: str, expected: str) -> None:
    assert normalize_value("food", raw) == expected


@pytest.mark.parametrize("slot", ["parking", "internet"])
@pytest.mark.parametrize(("raw", "expected"), [
    ("free", "yes"), ("Free", "Free"), ("yes", "yes"), ("no", "no"), (" free", " free"),
])
def test_free_means_yes(slot: str, raw: str, expected: str) -> None:
    assert normalize_value(slot, raw) == expected


@pytest.mark.parametrize(("slot", "raw"), [
    ("area", " Centre "), ("pricerange", "Cheap"), ("stars", "4"), ("day", "Monday"),
    ("bookday", "Friday"), ("bookpeople", " 2 "), ("bookstay", "3"), ("people", "2"),
    ("department", "Acute Medical Assessment Unit"),
])
def test_other_slots_unchanged(slot: str, raw: str) -> None:
    assert normalize_value(slot, raw) == raw


# --- time rules, one family each -----

TIME_CASES = [
    # (1) strip + lower, (2) whole phrases
    ("  AFTERNOON ", "13:00"), ("lunch", "12:00"), ("noon", "12:00"), ("mid-day", "12:00"),
    ("around lunch time", "12:00"), ("morning", "08:00"),
    ("one o'clock p.m.", "13:00"), ("one o'clock p.m please", "13:00"),
    ("ten o'clock a.m.", "10:00"), ("seven o'clock tomorrow evening", "07:00"),
    ("three forty five p.m", "15:45"), ("one thirty p.m.", "13:30"),
    ("six fourty five", "06:45"), ("eight thirty", "08:30"),
    # (3) prefixes: "by" drops three characters, after/afer drop and strip
    ("by 15:00", "15:00"), ("by15:00", "05:00"), ("after 14:30", "14:30"),
    ("afer 9:15", "09:15"), ("after 1430", "14:30"), ("by after 5", "05:00"),
    # (4) am / a.m.
    ("9:30 am", "09:30"), ("10:15 a.m.", "10:15"), ("8am", "08:00"),
    # (5) pm / p.m.: H:MM -> (H+12):MM, digits H -> (H+12):00, other forms go on
    ("5:30 pm", "17:30"), ("12:30 pm", "24:30"), ("7 pm", "19:00"), ("7pm", "19:00"),
    ("3:45 p.m.", "15:45"), ("9 : 15 pm", "21: 15"), ("5.30 pm", "5.30"),
    ("half past pm", "half past"), ("twelve:30 pm", "twelve:30"),  # mwzeval: ValueError
    # (6) empty -> 00:00
    ("", "00:00"), ("   ", "00:00"), ("am", "00:00"), ("by", "00:00"),
    # (7) one trailing . , ?
    ("15:00.", "15:00"), ("1430?", "14:30"), ("9,", "09:00"), ("15:00..", "15:00."),
    # (8) HHMM -> HH:MM
    ("1430", "14:30"), ("0915", "09:15"),
    # (9) other digits -> zero-pad to 2 + :00
    ("9", "09:00"), ("17", "17:00"), ("123", "123:00"),
    # (10) with ':' spaces go; (11) H:MM -> 0H:MM
    ("15 : 00", "15:00"), ("9 : 30", "09:30"), ("9:30", "09:30"), ("09:30", "09:30"),
    # (12) anything else unchanged
    ("10.30", "10.30"), ("around 6", "around 6"), ("Whenever", "whenever"),
]


@pytest.mark.parametrize(("raw", "expected"), TIME_CASES)
def test_time_rules(raw: str, expected: str) -> None:
    assert time_to_canonical(raw) == expected


@pytest.mark.parametrize("slot", ["arrive", "leave", "arriveby", "leaveat", "time"])
def test_time_slots(slot: str) -> None:
    assert normalize_value(slot, "5:30 pm") == "17:30"
    assert normalize_value(slot, "by 9") == "09:00"


def test_time_rules_only_on_time_slots() -> None:
    assert normalize_value("bookday", "5:30 pm") == "5:30 pm"
    assert normalize_value("booktime", "5:30 pm") == "5:30 pm"  # mwzeval leaves booktime alone


def test_non_string_value_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="must be a string"):
        normalize_value("stars", 4)  # type: ignore[arg-type]


# --- states -----

def test_normalize_state_new_dict_and_no_mutation() -> None:
    state = {
        "train": {"leaveAt": "5:30 pm", "arrive by": "by 20:00", "Day": "Monday"},
        "hotel": {"name": "Rosa's", "parking": "free", "type": "guest house"},
        "taxi": {},
    }
    before = copy.deepcopy(state)
    out = normalize_state(state)
    assert state == before
    assert out == {
        "train": {"leave": "17:30", "arrive": "20:00", "day": "Monday"},
        "hotel": {"name": "rosas bed and breakfast", "parking": "yes", "type": "guesthouse"},
        "taxi": {},
    }
    assert out is not state and out["train"] is not state["train"]
    out["train"]["leave"] = "changed"
    assert state == before


def test_normalize_state_read_only_input_and_later_key_wins() -> None:
    state = MappingProxyType({"train": MappingProxyType({"leaveAt": "9", "leave at": "10"})})
    assert normalize_state(state) == {"train": {"leave": "10:00"}}


def test_normalize_state_twice_is_stable() -> None:
    state = {"restaurant": {"name": "Nando's", "food": "English", "time": "7pm"}}
    once = normalize_state(state)
    assert normalize_state(once) == once == {
        "restaurant": {"name": "nandos", "food": "british", "time": "19:00"}
    }


def test_the_rules_option_outside_the_mwzeval_profile_is_noted(gold_samples) -> None:
    """Only the mwzeval profile reads mwzeval's rule tables: elsewhere ``--mwzeval-rules``
    changes nothing and a note says it does not apply (it used to say nothing)."""
    from dst_eval import evaluate

    for corpus, profile in (("multiwoz22", "strict"), ("sgd", "sgd-official")):
        gold = gold_samples / corpus
        base = evaluate(gold / "predictions.json", gold=gold, profile=profile)
        asked = evaluate(gold / "predictions.json", gold=gold, profile=profile,
                         mwzeval_rules="cd3f0ee")
        assert asked.scores == base.scores and str(asked.signature) == str(base.signature)
        assert [n for n in asked.notes if n not in base.notes] == [
            f"the {profile} profile does not use mwzeval's rule tables; --mwzeval-rules "
            "cd3f0ee applies to the mwzeval profile only"]
    gold = gold_samples / "multiwoz22"
    mwzeval = evaluate(gold / "predictions.json", gold=gold, profile="mwzeval",
                       mwzeval_rules="cd3f0ee")
    assert not any("--mwzeval-rules" in n for n in mwzeval.notes)
    assert f"norm:{RULES_VERSION_CD3F0EE}" in str(mwzeval.signature)
