"""Values that may mean "unset" (``""``, ``" "``, ``"\\t"``, ``none``, ``not mentioned``):
the readers deliver them verbatim in every format, and each profile applies its own rule.

Expected numbers of the compatibility profiles come from running the anchors on the same
inputs (only the resulting numbers are stored here):

* ConvLab-3 ``convlab/dst/evaluate_unified_datasets.py`` (ConvLab/ConvLab-3, identical in
  convlab 3.0.1), run as ``../shared/anchors/convlab/run.sh unified.json`` on
  :data:`CONVLAB_GOLD` / :data:`CONVLAB_PRED` written as unified samples (every slot of
  :data:`CONVLAB_SLOTS` in the gold state, ``""`` = empty);
* JMultiWOZ ``evaluate.py`` + ``utils/data_utils.py`` (nu-dialogue/jmultiwoz a78dd33),
  unmodified, run with ``--task_name e2e`` on one test dialogue whose SYSTEM turns carry
  :data:`JMW_GOLD` (reference) and :data:`JMW_PRED` (inference file) as
  ``dialogue_state.{belief_state, book_state}`` (only ``transformers.HfArgumentParser`` was
  replaced by an argparse stand-in); the numbers are the means of its ``e2e.scores.csv``.

The strict and trade numbers are computed by construction (comments give the count).
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from dst_eval.alignment import align
from dst_eval.gold import GoldDialogue, GoldSet, GoldTurn, freeze_state
from dst_eval.normalize import Unset
from dst_eval.options import EvalOptions
from dst_eval.predictions import predictions_from_object, read_predictions
from dst_eval.profiles import get_profile
from dst_eval.slotkeys import split_slot_key

VALUES = {"area": "", "name": " ", "type": "\t", "stars": "none",
          "parking": "not mentioned", "internet": "Not Mentioned ", "day": "None"}

# ----------------------------------------------------------------------------- helpers


def nested(state: dict[str, str]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for key, value in state.items():
        domain, slot = split_slot_key(key)
        out.setdefault(domain, {})[slot] = value
    return out


def gold_set(corpus: str, states: list[dict[str, str]], slots: tuple[str, ...]) -> GoldSet:
    turns = tuple(GoldTurn("d1", i, "u", freeze_state({k: (v,) for k, v in s.items()}))
                  for i, s in enumerate(states))
    return GoldSet(corpus, "test", (GoldDialogue("d1", turns),), "<test>", slots=slots)


def score(gold: GoldSet, pred_states: list[dict[str, str]], profile: str, **options):
    preds = predictions_from_object({"d1": [{"state": nested(s)} for s in pred_states]},
                                    corpus=gold.corpus)
    alignment = align(gold, preds)
    return get_profile(profile, gold.corpus)(alignment, EvalOptions(**options))


# ----------------------------------------------------------------------------- readers


def _hotel(state) -> dict[str, str]:
    return {k.partition("-")[2]: v for k, v in state.items()}


@pytest.mark.parametrize("corpus", [None, "multiwoz22", "sgd"])
def test_every_format_reads_values_verbatim(tmp_path: Path, corpus: str | None) -> None:
    expected = dict(VALUES)
    if corpus == "multiwoz22":  # the key policy spells "day" in book context
        expected["bookday"] = expected.pop("day")
    mwz = {"d1": [{"state": {"hotel": VALUES}}]}
    records = [{"dialogue_id": "d1", "turn_index": 0, "state": {"hotel": VALUES}}]
    flat = {"d1": [{"state": {f"hotel-{k}": v for k, v in VALUES.items()}}]}
    (tmp_path / "p.json").write_text(json.dumps(mwz), "utf-8")
    (tmp_path / "flat.json").write_text(json.dumps(flat), "utf-8")
    (tmp_path / "p.jsonl").write_text(json.dumps(records[0]) + "\n", "utf-8")
    (tmp_path / "array.jsonl").write_text(json.dumps(records), "utf-8")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("p.json", json.dumps(mwz))
    (tmp_path / "p.zip").write_bytes(buffer.getvalue())
    sets = [read_predictions(tmp_path / name, corpus=corpus)
            for name in ("p.json", "flat.json", "p.jsonl", "array.jsonl", "p.zip")]
    sets += [predictions_from_object(mwz, corpus=corpus),
             predictions_from_object(records, corpus=corpus)]
    for preds in sets:
        assert _hotel(preds.dialogues["d1"][0].state) == expected, preds.format
        assert preds.issues == []


def test_sgd_frames_read_values_verbatim(tmp_path: Path) -> None:
    frame = {"service": "Hotels_1", "state": {
        "active_intent": "SearchHotel", "requested_slots": [],
        "slot_values": {slot: [value] for slot, value in VALUES.items()}}}
    dialogue = {"dialogue_id": "1_00000", "services": ["Hotels_1"],
                "turns": [{"speaker": "USER", "utterance": "u", "frames": [frame]}]}
    (tmp_path / "dialogues_001.json").write_text(json.dumps([dialogue]), "utf-8")
    for corpus in (None, "sgd"):
        preds = read_predictions(tmp_path, corpus=corpus)
        assert _hotel(preds.dialogues["1_00000"][0].state) == VALUES


def test_two_spellings_keep_both_values(tmp_path: Path) -> None:
    obj = {"d1": [{"state": {"hotel": {"price range": "", "pricerange": "cheap",
                                       "area": "north"}, "hotel-area": "north"}}]}
    preds = predictions_from_object(obj, corpus="multiwoz22")
    turn = preds.dialogues["d1"][0]
    assert dict(turn.state) == {"hotel-pricerange": "", "hotel-area": "north"}
    assert dict(turn.duplicates) == {"hotel-pricerange": ("cheap",), "hotel-area": ("north",)}
    assert [i.kind for i in preds.issues] == ["duplicate_slot"]
    # a profile that reads "" as unset scores the next value given for the slot
    assert Unset("blank").items(turn.state, turn.duplicates) == [
        ("hotel-pricerange", "cheap"), ("hotel-area", "north")]
    assert Unset("blank").items({"a": " "}, {"a": ("", "\t")}) == []


# ----------------------------------------------------------------------------- convlab

CONVLAB_SLOTS = ("hotel-area", "hotel-name", "hotel-stars", "hotel-parking",
                 "restaurant-area", "restaurant-food")
CONVLAB_GOLD = [
    {}, {"hotel-area": "north"}, {"hotel-area": "north"}, {"hotel-area": "north"},
    {"hotel-area": "north", "restaurant-food": "indian"}, {}, {},
    {"restaurant-food": "indian"}, {"hotel-name": "acorn guest house"},
]
CONVLAB_PRED = [
    {"hotel-area": "none"},
    {"hotel-area": "not mentioned"},
    {"hotel-area": "north", "hotel-name": " "},
    {"hotel-area": "North", "hotel-stars": "\t"},
    {"hotel-area": "", "restaurant-food": "indian", "restaurant-area": "None"},
    {"hotel-parking": "Not Mentioned"},
    {"hotel-parking": "", "hotel-stars": " \t "},
    {"restaurant-food": "none"},
    {"hotel-name": "acorn guesthouse", "hotel-area": "not mentioned"},
]


@pytest.mark.parametrize("corpus", ["multiwoz21", "multiwoz22"])
def test_convlab_counts_none_and_not_mentioned_as_values(corpus: str) -> None:
    gold = gold_set(corpus, CONVLAB_GOLD, CONVLAB_SLOTS)
    result = score(gold, CONVLAB_PRED, "convlab")
    # ConvLab-3 evaluate_unified_datasets.py on the same samples printed exactly these
    assert result.official == {"accuracy": 0.3333333333333333,
                               "slot_f1": 0.47058823529411764,
                               "slot_precision": 0.4,
                               "slot_recall": 0.5714285714285714}


@pytest.mark.parametrize("corpus", ["multiwoz21", "multiwoz22"])
def test_strict_reads_none_not_mentioned_and_blanks_as_unset_on_multiwoz(corpus: str) -> None:
    gold = gold_set(corpus, CONVLAB_GOLD, CONVLAB_SLOTS)
    result = score(gold, CONVLAB_PRED, "strict")
    # with every unset value removed, turns 0, 2, 3, 5 and 6 equal the gold ("North" ->
    # "north" by the basic policy); 1, 4, 7 miss a slot, 8 has a wrong name
    assert result.scores["joint_goal_accuracy"] == pytest.approx(5 / 9)
    table = result.table.sums(("correct", "wrong", "missing", "extra"))
    assert table == {"correct": 3, "wrong": 1, "missing": 3, "extra": 0}


def test_strict_outside_multiwoz_reads_only_blanks_as_unset() -> None:
    gold = gold_set("sgd", CONVLAB_GOLD, CONVLAB_SLOTS)
    result = score(gold, CONVLAB_PRED, "strict")
    # sgd has no unset words: "none"/"not mentioned"/"None" are values (turns 0, 1, 4, 5,
    # 7, 8 wrong); blanks are unset (turns 2, 3, 6 correct)
    assert result.scores["joint_goal_accuracy"] == pytest.approx(3 / 9)
    table = result.table.sums(("correct", "wrong", "missing", "extra"))
    assert table == {"correct": 3, "wrong": 3, "missing": 1, "extra": 4}


# ----------------------------------------------------------------------------- JMultiWOZ

JMW_GOLD = [
    {}, {},
    {"restaurant-area": "北", "restaurant-genre": "和食"},
    {"restaurant-area": "北"}, {"restaurant-area": "北"},
    {"restaurant-area": "北", "restaurant-book_people": "2"},
    {"restaurant-area": "北"},
    {"hotel-name": "ホテルA", "general-city": "東京"},
    {"general-city": "東京"},
]
JMW_PRED = [
    {"restaurant-area": ""},
    {"restaurant-area": " "},
    {"restaurant-area": "北", "restaurant-genre": "和食", "restaurant-pricerange": "\t"},
    {"restaurant-area": "北", "hotel-name": "none"},
    {"restaurant-area": "北", "restaurant-pricerange": "not mentioned"},
    {"restaurant-area": "北", "restaurant-book_people": "2", "restaurant-station": ""},
    {"restaurant-area": " "},
    {"hotel-name": "ホテルA", "general-city": "東京", "hotel-book_day": "\t"},
    {"general-city": "東京", "taxi-name": "None", "weather-day": ""},
]


def _jmultiwoz_gold() -> GoldSet:
    from dst_eval.config import corpus_config

    return gold_set("jmultiwoz", JMW_GOLD, corpus_config("jmultiwoz").slots)


def test_jmultiwoz_official_counts_whitespace_values_as_items() -> None:
    result = score(_jmultiwoz_gold(), JMW_PRED, "official")
    # nu-dialogue/jmultiwoz evaluate.py (a78dd33) on the same turns: per-turn JGA
    # [1, 0, 0, 0, 0, 1, 0, 0, 0], per-turn slot F1 [1, 0, 0.8, 2/3, 2/3, 1, 0, 0.8, 2/3]
    assert result.official["joint_goal_accuracy"] == pytest.approx(0.2222222222222222,
                                                                   abs=1e-15)
    assert result.official["slot_f1"] == pytest.approx(0.6222222222222222, abs=1e-15)
    assert result.official["count"] == 9
    assert list(result.per_turn["jga"]) == [1, 0, 0, 0, 0, 1, 0, 0, 0]


def test_jmultiwoz_strict_reads_blanks_as_unset() -> None:
    result = score(_jmultiwoz_gold(), JMW_PRED, "strict")
    # blanks unset: turns 0, 1, 2, 5, 7 equal the gold; "none"/"not mentioned"/"None"
    # are values (3, 4, 8 extra); turn 6 misses restaurant-area; 9 gold slots are matched
    assert result.scores["joint_goal_accuracy"] == pytest.approx(5 / 9)
    table = result.table.sums(("correct", "wrong", "missing", "extra"))
    assert table == {"correct": 9, "wrong": 0, "missing": 1, "extra": 3}


# ----------------------------------------------------------------------------- trade


def test_trade_drops_exactly_none() -> None:
    gold = gold_set("crosswoz", [{"餐馆-名称": "A"}] * 5, ("餐馆-名称", "餐馆-评分"))
    preds = [{"餐馆-名称": "A", "餐馆-评分": "none"},   # dropped: correct
             {"餐馆-名称": "A", "餐馆-评分": ""},       # an item "餐馆-评分-": extra
                                                  # (trade-dst TRADE.evaluate keeps an
                                                  # empty decoded value; drops only "none")
             {"餐馆-名称": "A", "餐馆-评分": " "},      # an item "餐馆-评分- ": extra
             {"餐馆-名称": "A", "餐馆-评分": "None"},   # an item: extra
             {"餐馆-名称": "none"}]                     # dropped: the gold item is missed
    result = score(gold, preds, "trade")
    assert result.official["Joint Acc"] == pytest.approx(1 / 5)
    # per-turn F1: 1, 2/3, 2/3, 2/3, 0
    assert result.official["Joint F1"] == pytest.approx((1 + 2 / 3 + 2 / 3 + 2 / 3 + 0) / 5)
