"""Alignment: pairing, missing/extra dialogues and turns, unknown slots, malformed values."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest

from dst_eval.alignment import Alignment, TurnPairs, align, group_issues
from dst_eval.alignment_keys import known_slot_keys
from dst_eval.errors import PredictionError
from dst_eval.gold import GoldDialogue, GoldSet, GoldTurn, ServiceSchema, freeze_state
from dst_eval.predictions.model import Issue, PredictionSet, PredTurn
from dst_eval.predictions.reader import read_predictions


def gold_turn(dialogue: str, index: int, state: dict) -> GoldTurn:
    return GoldTurn(dialogue, index, f"user {index}",
                    freeze_state({k: (v,) for k, v in state.items()}))


def make_gold(dialogues: dict[str, list[dict]], **kwargs) -> GoldSet:
    return GoldSet(
        corpus=kwargs.pop("corpus", "multiwoz22"), split="test",
        dialogues=tuple(GoldDialogue(d, tuple(gold_turn(d, i, s) for i, s in enumerate(states)))
                        for d, states in dialogues.items()),
        source="hand-made", **kwargs)


def pred(**state) -> PredTurn:
    return PredTurn(state=MappingProxyType(dict(state)))


def make_preds(dialogues: dict[str, list[PredTurn]], issues=None) -> PredictionSet:
    return PredictionSet("preds.json", "mwzeval", dialogues, list(issues or []))


GOLD = {
    "d1": [{"hotel-area": "north"}, {"hotel-area": "north", "hotel-stars": "4"}],
    "d2": [{"train-day": "monday"}, {"train-day": "monday"}, {"train-day": "monday"}],
}


def test_exact_fit_has_no_issues():
    gold = make_gold(GOLD)
    preds = make_preds({d.dialogue_id: [pred(**{k: v[0] for k, v in t.state.items()})
                                         for t in d.turns] for d in gold})
    alignment = align(gold, preds, strict=True)
    assert alignment.issues == [] and alignment.issue_details == []
    assert alignment.coverage == 1.0 and alignment.n_turns == 5
    assert [dict(p.state) for _, p in alignment.pairs] == [
        {k: v[0] for k, v in t.state.items()} for t in gold.turns()]


def test_missing_extra_and_gap_turns():
    gold = make_gold(GOLD)
    preds = make_preds({
        "D1.json": [pred(**{"hotel-area": "north"})],                    # 1 of 2 turns
        "d2": [pred(), PredTurn(), pred(), pred()],                       # a gap and an extra
        "d9": [pred()],                                                   # not in the gold
    })
    alignment = align(gold, preds)
    assert [p is None for _, p in alignment.pairs] == [False, True, False, True, False]
    assert alignment.n_missing_turns == 2 and alignment.n_extra_turns == 1
    assert alignment.extra_dialogues == ["d9"] and alignment.missing_dialogues == []
    assert alignment.coverage == pytest.approx(3 / 5)
    assert [i.kind for i in alignment.issues] == ["turn_count_mismatch", "missing_turn",
                                                  "extra_dialogues"]
    mismatch = [i for i in alignment.issue_details if i.kind == "turn_count_mismatch"]
    assert [(i.dialogue, i.turn) for i in mismatch] == [("d1", 1), ("d2", 3)]
    assert "2 times in 2 turns of 2 dialogues, first at dialogue d1 turn 1" in \
        alignment.issues[0].message
    summary = alignment.summary()
    assert (summary["missing_turns"], summary["extra_turns"], summary["issues"]) == (2, 1, 3)


def test_turn_pairs_hold_two_parallel_lists():
    gold = make_gold(GOLD)
    turns = list(gold.turns())
    predicted = [pred(), None, pred(), None, None]
    pairs = TurnPairs(turns, predicted)
    assert list(pairs) == list(zip(turns, predicted, strict=True)) and len(pairs) == 5
    assert pairs[1] == (turns[1], None) and pairs[-1] == (turns[4], None)
    assert list(pairs[1:3]) == [(turns[1], None), (turns[2], predicted[2])]
    assert TurnPairs.of(list(pairs)) == pairs and TurnPairs.of(pairs) is pairs
    built = Alignment(gold, make_preds({}), list(zip(turns, predicted, strict=True)))
    assert isinstance(built.pairs, TurnPairs) and built.pairs == pairs
    assert built.coverage == pytest.approx(2 / 5) and built.n_turns == 5
    with pytest.raises(ValueError, match="one prediction"):
        TurnPairs(turns, predicted[:4])


def test_missing_dialogue():
    alignment = align(make_gold(GOLD), make_preds({"d1": [pred(), pred()]}))
    assert alignment.missing_dialogues == ["d2"] and alignment.n_missing_turns == 3
    [issue] = alignment.issues
    assert issue.kind == "missing_dialogues" and "1 of 2 gold dialogues" in issue.message


def test_unknown_slots_and_domains_grouped_with_every_instance_kept():
    gold = make_gold(GOLD)
    preds = make_preds({
        "d1": [pred(**{"hotel-foo": "x"}), pred(**{"hotel-foo": "x", "spa-area": "n"})],
        "d2": [pred(**{"hotel-foo": "y"}), pred(**{"spa-name": "z", "spa-area": "n"}),
               pred(**{"train-day": "monday", "hotel-bar": "1"})],
    })
    alignment = align(gold, preds)
    details = [(i.kind, i.dialogue, i.turn) for i in alignment.issue_details]
    assert details == [
        ("unknown_slot", "d1", 0), ("unknown_slot", "d1", 1), ("unknown_domain", "d1", 1),
        ("unknown_slot", "d2", 0), ("unknown_domain", "d2", 1), ("unknown_domain", "d2", 1),
        ("unknown_slot", "d2", 2),
    ]
    messages = [i.message for i in alignment.issues]
    assert messages == [
        "unknown slot hotel-foo in 3 turns of 2 dialogues, first at dialogue d1 turn 0",
        "unknown domain spa (slots spa-area, spa-name) in 2 turns of 2 dialogues, first at "
        "dialogue d1 turn 1",
        "unknown slot hotel-bar (not a slot of the gold data)",
    ]
    assert alignment.issues[2].dialogue == "d2" and alignment.issues[2].turn == 2
    # unknown slots stay in the prediction: the profile decides how to score them
    assert alignment.pairs[0][1].state == {"hotel-foo": "x"}
    with pytest.raises(PredictionError) as info:
        align(gold, preds, strict=True)
    assert info.value.exit_code == 3
    assert str(info.value).startswith("preds.json, dialogue d1, turn 0: unknown slot hotel-foo")
    assert "7 problems in all" in str(info.value) and "\n" not in str(info.value)


def test_known_slots_come_from_slot_list_schema_and_states():
    schema = {"Hotels_4": ServiceSchema("Hotels_4", ("location", "star_rating")),
              "hotel": ServiceSchema("hotel", ("hotel-phone",))}
    gold = make_gold({"d": [{"Hotels_4-location": "Paris"}]}, corpus="sgd",
                     slots=("taxi-leaveat",), schema=schema)
    assert known_slot_keys(gold) == {"Hotels_4-location", "Hotels_4-star_rating",
                                     "hotel-phone", "taxi-leaveat"}


def test_service_names_match_case_insensitively_and_are_respelled():
    schema = {"Hotels_4": ServiceSchema("Hotels_4", ("location", "star_rating"))}
    gold = make_gold({"d": [{"Hotels_4-location": "Paris"}]}, corpus="sgd", schema=schema)
    turn = PredTurn(state=MappingProxyType({"hotels_4-location": "Paris",
                                            "HOTELS_4-star_rating": "4"}),
                    requested_slots=frozenset({"hotels_4-star_rating"}),
                    active_intents=MappingProxyType({"hotels_4": "SearchHotel"}))
    alignment = align(gold, make_preds({"d": [turn]}), strict=True)
    aligned = alignment.pairs[0][1]
    assert dict(aligned.state) == {"Hotels_4-location": "Paris", "Hotels_4-star_rating": "4"}
    assert aligned.requested_slots == frozenset({"Hotels_4-star_rating"})
    assert dict(aligned.active_intents) == {"Hotels_4": "SearchHotel"}
    assert alignment.issues == []


def test_no_slot_check_when_the_gold_knows_no_slots():
    gold = make_gold({"d": [{}]})
    alignment = align(gold, make_preds({"d": [pred(**{"x-y": "1"})]}), strict=True)
    assert alignment.issues == []


def test_malformed_values_in_prediction_sets_built_by_hand():
    gold = make_gold(GOLD)
    preds = make_preds({"d1": [
        pred(**{"hotel-area": "north|centre"}),
        pred(**{"hotel-area": ["north", "centre"], "hotel-stars": 4}),
    ]})
    alignment = align(gold, preds)
    details = [(i.kind, i.turn, i.message.partition(":")[0]) for i in alignment.issue_details]
    assert details == [("hedged_value", 0, "slot hotel-area"), ("hedged_value", 1,
                       "slot hotel-area"), ("non_string_value", 1, "slot hotel-stars"),
                       ("missing_dialogues", None, "1 of 2 gold dialogues have no prediction "
                        "and are scored as wrong")]
    grouped = [(i.kind, i.message.split(",")[0]) for i in alignment.issues]
    assert grouped[0] == ("hedged_value", "hedged value: 2 times in 2 turns of 1 dialogue")
    for policy, fate in (("skip", "are left out of the scores (--missing skip)"),
                         ("empty", "are scored as empty predictions")):
        [missing] = [i for i in align(gold, preds, missing=policy).issues
                     if i.kind == "missing_dialogues"]
        assert missing.message.startswith(f"1 of 2 gold dialogues have no prediction and {fate}")
    with pytest.raises(PredictionError):
        align(gold, preds, strict=True)


def test_reader_reported_values_are_not_reported_twice(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({
        "d1": [{"state": {"hotel": {"area": "north|centre"}}},
               {"state": {"hotel": {"area": ["north", "south"], "stars": 4}}}],
        "d2": [{}, {}, {}],
    }), encoding="utf-8")
    preds = read_predictions(path, corpus="multiwoz22")
    alignment = align(make_gold(GOLD), preds)
    assert [i.kind for i in alignment.issue_details] == [
        "hedged_value", "hedged_value", "non_string_value",       # from the reader, once each
        "missing_turn", "missing_turn", "missing_turn"]           # d2's empty turns are gaps
    assert alignment.n_missing_turns == 3
    assert [i.kind for i in alignment.issues] == ["hedged_value", "non_string_value",
                                                  "missing_turn"]
    assert alignment.issues[1].message.startswith("slot hotel-stars: value 4 is a number")


def test_group_issues_keeps_singletons_and_marks_errors():
    issues = [Issue("a", "one", file="f", dialogue="x", turn=1),
              Issue("b", "two", file="f", dialogue="x", turn=2),
              Issue("b", "three", file="f", dialogue="y", turn=0, severity="error")]
    grouped = group_issues(issues)
    assert grouped[0] == issues[0]
    assert grouped[1].severity == "error"
    assert grouped[1].message == ("b: 2 times in 2 turns of 2 dialogues, first at dialogue x "
                                  "turn 2: two")


# --------------------------------------------------------------------------- real data


@pytest.fixture(scope="session")
def multiwoz21_test(mwz21_test_gold):
    return mwz21_test_gold  # conftest: load_gold(test.json.zip, split="test"), loaded once


def test_unknown_slots_on_a_reference_prediction_file(shared_dir, multiwoz21_test):
    path = shared_dir / "reference" / "mwzeval" / "predictions" / "bort.json"
    alignment = align(multiwoz21_test, read_predictions(path, corpus="multiwoz21"))
    # independently: turns of PMUL1276 whose raw state has a train "name"
    raw = json.loads(path.read_text(encoding="utf-8"))
    expected = [i for i, t in enumerate(raw["pmul1276"]) if "name" in t["state"].get("train", {})]
    found = [i.turn for i in alignment.issue_details
             if i.kind == "unknown_slot" and i.message.startswith("unknown slot train-name ")]
    assert found == expected and len(found) == 7
    [grouped] = [i for i in alignment.issues if i.message.startswith("unknown slot train-name ")]
    assert grouped.message == (f"unknown slot train-name in 7 turns of 1 dialogue, first at "
                               f"dialogue PMUL1276 turn {expected[0]}")
    # bort leaves out one dialogue: its turns are missing, nothing else is
    n_raw_turns = sum(len(t) for t in raw.values())
    assert alignment.n_missing_turns == multiwoz21_test.n_turns - n_raw_turns
    assert len(alignment.missing_dialogues) == 1000 - len(raw)


def test_gold_values_holding_a_pipe_are_not_hedges(tmp_path):
    gold = make_gold({"d": [{"Services_1-stylist_name": "18|8 Fine Men's Salons"},
                            {"Services_1-stylist_name": "Other Salon"}]}, corpus="sgd")
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"d": [
        {"state": {"Services_1-stylist_name": "18|8 fine men's salons "}},  # a gold value
        {"state": {"Services_1-stylist_name": "18|8 Fine Men's Salons"}},   # wrong, not hedged
    ]}), encoding="utf-8")
    preds = read_predictions(path, corpus="sgd")
    assert [(i.kind, i.turn) for i in preds.issues] == [("hedged_value", 0), ("hedged_value", 1)]
    alignment = align(gold, preds)
    assert [(i.kind, i.turn) for i in alignment.issue_details] == []
    hand_made = make_preds({"d": [pred(**{"Services_1-stylist_name": "a|b"}),
                                  pred(**{"Services_1-stylist_name": "18|8 Fine Men's Salons"})]})
    assert [(i.kind, i.turn) for i in align(gold, hand_made).issue_details] == [
        ("hedged_value", 0)]


@pytest.fixture(scope="session")
def sgd_dev(sgd_dev_gold):
    return sgd_dev_gold  # conftest: equal to load_gold(sgd root, split="dev"), loaded once


def test_sgd_oracle_with_lower_cased_services(tmp_path, sgd_dev):
    """Gold fed back in mwzeval form with every service name lower-cased: the strict
    alignment finds nothing to report and restores the gold's spelling everywhere.
    (Every 5th dev dialogue plus those with a '|' in a gold value, to keep it quick.)"""
    sgd_dev = GoldSet(sgd_dev.corpus, sgd_dev.split, tuple(
        d for i, d in enumerate(sgd_dev) if i % 5 == 0 or any(
            "|" in v[0] for t in d.turns for v in t.state.values())),
        sgd_dev.source, sgd_dev.slots, sgd_dev.categorical_slots, sgd_dev.schema)
    oracle = {d.dialogue_id: [{
        "state": {k.lower(): v[0] for k, v in t.state.items()},
        "requested_slots": sorted(k.lower() for k in t.requested_slots),
        "active_intents": {s.lower(): i for s, i in t.active_intents.items()},
    } for t in d.turns] for d in sgd_dev}
    path = tmp_path / "oracle.json"
    path.write_text(json.dumps(oracle), encoding="utf-8")
    preds = read_predictions(path, corpus="sgd")
    n_pipes = sum("|" in v[0] for t in sgd_dev.turns() for v in t.state.values())
    assert n_pipes > 0 and len(preds.issues) == n_pipes  # the reader cannot know yet
    alignment = align(sgd_dev, preds, strict=True)
    assert alignment.issues == [] and alignment.coverage == 1.0
    for gold, predicted in alignment.pairs:
        assert dict(predicted.state) == {k: v[0] for k, v in gold.state.items()}
        assert predicted.requested_slots == gold.requested_slots
        assert dict(predicted.active_intents) == dict(gold.active_intents)


def test_sgd_value_problems_are_counted_over_the_whole_set_whatever_its_files(
        tmp_path, gold_samples):
    """Every user slot of the SGD sample predicted with two values: one ``hedged_value``
    Issue with the set's totals (slots, turns, dialogues counted here from the file), the
    same for one file and for one file per dialogue (it used to give one summary per file,
    counted as '2 times in 2 turns')."""
    dialogues = json.loads((gold_samples / "sgd" / "dialogues_001.json").read_text("utf-8"))
    slots, turns, hedged_dialogues = 0, 0, 0
    for dialogue in dialogues:
        in_dialogue = 0
        for turn in dialogue["turns"]:
            frames = [f for f in turn["frames"] if turn["speaker"] == "USER"]
            n = sum(len(f["state"]["slot_values"]) for f in frames)
            for frame in frames:
                values = frame["state"]["slot_values"]
                frame["state"]["slot_values"] = {k: [v[0], v[0] + " x"] for k, v in
                                                 values.items()}
            slots, turns, in_dialogue = slots + n, turns + (n > 0), in_dialogue + n
        hedged_dialogues += in_dialogue > 0
    assert turns > 1 and hedged_dialogues > 1
    one = tmp_path / "one"
    one.mkdir()
    (one / "dialogues_001.json").write_text(json.dumps(dialogues), "utf-8")
    many = tmp_path / "many"
    many.mkdir()
    for i, dialogue in enumerate(dialogues):
        (many / f"dialogues_{i:03d}.json").write_text(json.dumps([dialogue]), "utf-8")
    for folder in (one, many):
        issues = [i for i in read_predictions(folder).issues if i.kind == "hedged_value"]
        assert len(issues) == 1
        assert issues[0].message.startswith(
            f"{slots:,} slots with several predicted values (the first is used, as the "
            f"official scorer does) in {turns:,} turns of {hedged_dialogues:,} dialogues;")
        assert group_issues(issues) == issues


def test_one_slot_written_in_two_case_spellings_with_two_values_is_reported(
        gold_samples, tmp_path):
    """SGD predictions writing ``city`` and ``City`` for one service with different values:
    the gold's spelling is read, as before, and an Issue ``duplicate_slot`` says so (the
    other value was dropped without a word); the same value twice is no problem."""
    from dst_eval import evaluate

    dialogues = json.loads((gold_samples / "sgd" / "dialogues_001.json").read_text())
    turn = dialogues[0]["turns"][2]
    values = turn["frames"][0]["state"]["slot_values"]
    slot = next(iter(values))
    values[slot.title()] = ["zzz"]  # after the gold's spelling: the gold's is read
    path = tmp_path / "p.json"
    path.write_text(json.dumps(dialogues))
    result = evaluate(path, gold=gold_samples / "sgd", min_coverage=0)
    [issue] = [i for i in result.issues if i.kind == "duplicate_slot"]
    service = turn["frames"][0]["service"]
    assert issue.message == (f"slot {service}-{slot} written as {service}-{slot} and "
                             f"{service}-{slot.title()} with different values; "
                             f"{service}-{slot}'s is read")
    assert result.scores["joint_goal_accuracy"] == 1.0  # the gold's spelling's value
    values[slot.title()] = values[slot]  # the same value: nothing to say
    path.write_text(json.dumps(dialogues))
    same = evaluate(path, gold=gold_samples / "sgd", min_coverage=0)
    assert not [i for i in same.issues if i.kind == "duplicate_slot"]
