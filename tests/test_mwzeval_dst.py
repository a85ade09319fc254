"""The ``mwzeval`` DST profile and the mwzeval gold-states reader.

Hand-built cases check every rule of SCORERS.md §1.7 with numbers computed by hand;
the reference test reproduces mwzeval's printed DST output for every system of
``reference/mwzeval`` that has one.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from dst_eval.alignment import align
from dst_eval.corpora.multiwoz import mwzeval_states
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldDialogue, GoldSet, GoldTurn, freeze_state
from dst_eval.options import EvalOptions
from dst_eval.predictions.model import PredictionSet, PredTurn
from dst_eval.profiles.mwzeval import score

# --- hand-built data -----


def _gold(dialogues: dict[str, list[dict[str, tuple[str, ...]]]]) -> GoldSet:
    return GoldSet(
        corpus="multiwoz22", split="test", source="memory",
        dialogues=tuple(
            GoldDialogue(d, tuple(GoldTurn(d, i, "", freeze_state(s)) for i, s in enumerate(ts)))
            for d, ts in dialogues.items()
        ),
    )


GOLD = {
    "d1": [
        {"hotel-area": ("centre",), "hotel-parking": ("yes", "dontcare")},  # parking dropped
        {"hotel-area": ("centre", "center"), "hotel-bookpeople": ("2",),
         "train-leaveat": ("5:30 pm",)},  # leave -> 17:30
        {"hotel-area": ("centre",), "hotel-bookpeople": ("2",), "train-leaveat": ("09:15",),
         "hotel-name": ("Rosa's",)},  # name -> rosas bed and breakfast
    ],
    "d2": [{}, {"restaurant-food": ("English",)}],  # food -> british
    "d3": [{"taxi-destination": ("cambridge",)}, {"taxi-destination": ("cambridge",)}],
}

RAW = {
    "d1": [
        # TP area; FP parking (dontcare kept on the prediction side only); JGA 0
        {"hotel": {"area": "centre", "parking": "dontcare"}},
        # TP area, leave; FP people (never matches bookpeople); FN bookpeople; JGA 0
        {"hotel": {"area": "centre", "people": "2"}, "train": {"leave at": "17:30"}},
        # TP area, bookpeople ('12' contains '2': partial_ratio 100), name;
        # FP + FN leave ('19:15' vs '09:15': partial_ratio 80); JGA 0
        {"hotel": {"area": "centre", "book people": "12", "name": "rosas bed and breakfast"},
         "train": {"leaveAt": "19:15"}},
    ],
    "d2": [{}, {"restaurant": {"food": "British"}}],  # both JGA 1
}


def _predictions(raw: dict, *, with_raw: bool = True) -> PredictionSet:
    dialogues = {}
    for d, turns in raw.items():
        dialogues[d] = [
            PredTurn(state={f"{dom}-{s}": v for dom, sl in t.items() for s, v in sl.items()},
                     raw_state=t if with_raw else None)
            for t in turns
        ]
    return PredictionSet(source="memory.json", format="mwzeval", dialogues=dialogues)


@pytest.fixture()
def alignment():
    return align(_gold(GOLD), _predictions(RAW))


def test_hand_computed_skip(alignment) -> None:
    result = score(alignment, EvalOptions(missing="skip"))
    # 5 scored turns (d3 has no prediction); JGA hits: d2 t0 (empty = empty), d2 t1
    tp, fp, fn = 1 + 2 + 3 + 0 + 1, 1 + 1 + 1 + 0 + 0, 0 + 1 + 1 + 0 + 0
    assert (tp, fp, fn) == (7, 3, 2)
    p, r = tp / (tp + fp), tp / (tp + fn)
    assert result.scores["joint_goal_accuracy"] == pytest.approx(2 / 5, abs=1e-12)
    assert result.scores["slot_precision"] == pytest.approx(0.7, abs=1e-12)
    assert result.scores["slot_recall"] == pytest.approx(7 / 9, abs=1e-12)
    assert result.scores["slot_f1"] == pytest.approx(2 * p * r / (p + r), abs=1e-12)
    dst = result.official["dst"]
    assert dst["joint_accuracy"] == 2 / (5 + 1e-10) * 100
    assert dst["slot_precision"] == 7 / (10 + 1e-10)
    assert dst["slot_recall"] == 7 / (9 + 1e-10)
    p_eps, r_eps = dst["slot_precision"], dst["slot_recall"]
    assert dst["slot_f1"] == 2 * p_eps * r_eps / (p_eps + r_eps + 1e-10) * 100
    assert result.per_turn["dialogue_id"] == ["d1", "d1", "d1", "d2", "d2"]
    assert result.per_turn["turn_index"] == [0, 1, 2, 0, 1]
    assert result.per_turn["tp"].tolist() == [1, 2, 3, 0, 1]
    assert result.per_turn["fp"].tolist() == [1, 1, 1, 0, 0]
    assert result.per_turn["fn"].tolist() == [0, 1, 1, 0, 0]
    assert result.per_turn["joint_goal_accuracy"].tolist() == [False, False, False, True, True]
    assert result.counts["turns"] == 5
    assert result.signature_fields == {"norm": "mwzeval-7f19ee0", "match": "partial-ratio>95",
                                       "dontcare": "gold-drop", "agg": "turn", "missing": "skip"}


def test_missing_dialogue_counts_as_empty_by_default(alignment) -> None:
    result = score(alignment, EvalOptions())  # missing="wrong"
    assert result.counts["turns"] == 7
    assert result.counts["missing_turns_scored_empty"] == 2
    assert result.scores["joint_goal_accuracy"] == pytest.approx(2 / 7, abs=1e-12)
    assert result.scores["slot_recall"] == pytest.approx(7 / 11, abs=1e-12)
    assert result.scores["slot_precision"] == pytest.approx(0.7, abs=1e-12)
    assert any("no prediction" in note for note in result.notes)


def test_profile_mutates_nothing(alignment) -> None:
    raw_before = copy.deepcopy(RAW)
    gold_before = [dict(t.state) for t in alignment.gold.turns()]
    first = score(alignment, EvalOptions(missing="skip"))
    second = score(alignment, EvalOptions(missing="skip"))
    assert raw_before == RAW
    assert [dict(t.state) for t in alignment.gold.turns()] == gold_before
    assert first.official == second.official and first.scores == second.scores


def test_breakdowns(alignment) -> None:
    groups = score(alignment, EvalOptions(missing="skip", by=("domain", "slot"))).groups
    hotel = groups["domain:hotel"]
    assert (hotel["tp"], hotel["fp"], hotel["fn"]) == (5, 2, 1)
    assert (groups["domain:train"]["tp"], groups["domain:train"]["fp"]) == (1, 1)
    assert groups["slot:hotel-people"]["fp"] == 1  # the raw spelling, never gold
    assert groups["slot:train-leaveat"]["fn"] == 1  # mwzeval 'leave' shown as 2.2 'leaveat'
    assert groups["slot:restaurant-food"]["slot_f1"] == 1.0


def test_canonical_state_used_without_raw_state() -> None:
    preds = _predictions({"d2": RAW["d2"]}, with_raw=False)
    result = score(align(_gold({"d2": GOLD["d2"]}), preds), EvalOptions())
    assert result.scores["joint_goal_accuracy"] == 1.0
    assert result.counts["tp"] == 1
    # canonical 2.2 keys map back to mwzeval's names: train-leaveat -> (train, leave)
    gold = _gold({"c": [GOLD["d1"][1]]})
    canonical = {"hotel-area": "centre", "hotel-bookpeople": "2", "train-leaveat": "5:30 pm"}
    preds = PredictionSet("p.json", "mwzeval", {"c": [PredTurn(state=canonical)]})
    assert score(align(gold, preds), EvalOptions()).scores["joint_goal_accuracy"] == 1.0


def test_raw_state_keeps_what_the_reader_drops(tmp_path: Path) -> None:
    from dst_eval.predictions.reader import read_predictions

    path = tmp_path / "preds.json"
    path.write_text(json.dumps({"d2": [
        {"state": {}},
        {"state": {"restaurant": {"food": "british", "pricerange": "none", "area": ""}}},
    ]}))
    preds = read_predictions(path, corpus="multiwoz22")
    # the reader keeps every value verbatim (issue 8); the strict profile reads the
    # "none"/"" values as unset, mwzeval scores them
    assert dict(preds.get("d2")[1].state) == {"restaurant-food": "british",
                                              "restaurant-pricerange": "none",
                                              "restaurant-area": ""}
    from dst_eval.profiles.strict import unset_for
    assert dict(unset_for("multiwoz22").items(preds.get("d2")[1].state)) == {
        "restaurant-food": "british"}
    result = score(align(_gold({"d2": GOLD["d2"]}), preds), EvalOptions())
    # mwzeval scores "none" and "" as predicted values: two false positives
    assert (result.counts["tp"], result.counts["fp"], result.counts["fn"]) == (1, 2, 0)
    assert result.scores["joint_goal_accuracy"] == 0.5


def test_turn_without_state() -> None:
    gold = _gold({"d2": GOLD["d2"]})
    stateless = PredTurn(response="hello")  # a turn object without "state"
    with_state = PredTurn(raw_state={"restaurant": {"food": "british"}})
    preds = PredictionSet("p.json", "mwzeval", {"d2": [stateless, with_state]})
    wrong = score(align(gold, preds), EvalOptions())
    assert wrong.counts["turns_without_state"] == 1
    assert wrong.scores["joint_goal_accuracy"] == 0.5  # no state: wrong, even on empty gold
    assert "1 predicted turns have no state and score as wrong" in wrong.notes
    empty = score(align(gold, preds), EvalOptions(missing="empty"))
    assert empty.scores["joint_goal_accuracy"] == 1.0  # an empty prediction vs empty gold
    skip = score(align(gold, preds), EvalOptions(missing="skip"))
    assert skip.scores == dict.fromkeys(skip.scores, 0.0)  # mwzeval: all zeros
    assert skip.official == {"dst": {"joint_accuracy": 0, "slot_f1": 0,
                                     "slot_precision": 0, "slot_recall": 0}}


def test_gap_turn_is_a_missing_turn() -> None:
    gold = _gold({"d2": GOLD["d2"]})
    preds = PredictionSet("p.jsonl", "jsonl", {"d2": [PredTurn(raw_state={}), PredTurn()]})
    skip = score(align(gold, preds), EvalOptions(missing="skip"))
    assert skip.counts["turns"] == 1 and skip.scores["joint_goal_accuracy"] == 1.0
    wrong = score(align(gold, preds), EvalOptions())
    assert wrong.counts["missing_turns_scored_empty"] == 1
    assert wrong.scores["joint_goal_accuracy"] == 0.5


def test_non_string_raw_values_are_converted_and_noted() -> None:
    gold = _gold({"h": [{"hotel-stars": ("4",), "hotel-area": ("north",)}]})
    preds = PredictionSet("p.json", "mwzeval", {"h": [PredTurn(raw_state={
        "hotel": {"stars": 4, "area": ["north", "east"], "type": None}})]})
    result = score(align(gold, preds), EvalOptions())
    assert result.scores["joint_goal_accuracy"] == 1.0
    assert any("non-string" in note for note in result.notes)


def test_flat_raw_state_and_cd3f0ee() -> None:
    gold = _gold({"b": [{"hotel-name": ("alexander b and b",)}]})
    raw = {"hotel-name": "Alexander Bed and Breakfast"}
    preds = PredictionSet("p.json", "mwzeval", {"b": [PredTurn(raw_state=raw)]})
    old = score(align(gold, preds), EvalOptions())
    new = score(align(gold, preds), EvalOptions(), cd3f0ee=True)
    assert old.scores["joint_goal_accuracy"] == 0.0
    assert new.scores["joint_goal_accuracy"] == 1.0
    assert new.signature_fields["norm"] == "mwzeval-cd3f0ee"


# --- the mwzeval gold-states reader -----

def test_states_reader_on_a_small_file(tmp_path: Path) -> None:
    path = tmp_path / "states.json"
    path.write_text(json.dumps({"sng0001": [
        {"taxi": {"leave": "17:15", "destination": "pizza hut"}},
        {"taxi": {"leave": "17:15", "arrive": "18:00"}, "hotel": {"bookday": "monday"},
         "train": {}},
    ]}))
    assert mwzeval_states.sniff(path)
    gold = mwzeval_states.load(path, split="test")
    assert (gold.corpus, gold.split, len(gold), gold.n_turns) == ("multiwoz22", "test", 1, 2)
    turn = gold.get("SNG0001.json").turns[1]
    assert dict(turn.state) == {"taxi-leaveat": ("17:15",), "taxi-arriveby": ("18:00",),
                                "hotel-bookday": ("monday",)}
    assert turn.services == ("taxi", "hotel")


@pytest.mark.parametrize(("content", "message", "where"), [
    ([], "found a JSON list", ""),
    ({}, "holds no dialogue", ""),
    ({"d": {"taxi": {}}}, "expected a list of turn states", "dialogue d"),
    ({"d": [{"taxi": {}}, "x"]}, "a turn state must be an object", "dialogue d, turn 1"),
    ({"d": [{"taxi": "x"}]}, "domain 'taxi'", "dialogue d, turn 0"),
    ({"d": [{"taxi": {"leave": 5}}]}, "value must be a string", "dialogue d, turn 0"),
    ({"d": [{"taxi": {"leave": "1", "leaveat": "2"}}]}, "two spellings", "dialogue d, turn 0"),
])
def test_states_reader_errors(tmp_path: Path, content, message: str, where: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content))
    with pytest.raises(GoldDataError) as info:
        mwzeval_states.load(path)
    text = str(info.value)
    assert message in text and str(path) in text and where in text and "\n" not in text
    assert info.value.exit_code == 4


# --- reference: mwzeval's printed DST for every system that has one ------------------------------

@pytest.fixture(scope="session")
def mwzeval_dir(shared_dir: Path) -> Path:
    return shared_dir / "reference" / "mwzeval"


@pytest.fixture(scope="session")
def approx_gold(mwzeval_dir: Path) -> GoldSet:
    return mwzeval_states.load(mwzeval_dir / "approx_gold_states_mwz21_test.json", split="test")


DST_SYSTEMS = ["augpt", "bort", "damd", "dots", "galaxy-e2e", "labes", "mintl", "pptod",
               "soloist", "uniconv"]
"""The systems whose file has states, i.e. that reference_outputs.json has a ``dst`` for."""
STATELESS_SYSTEMS = ["galaxy-policy", "hdno", "hdsa", "lava", "marco"]


@pytest.fixture(scope="session")
def reference_outputs(mwzeval_dir: Path) -> dict:
    return json.loads((mwzeval_dir / "reference_outputs.json").read_text())["systems"]


def test_approx_gold_states(approx_gold: GoldSet, mwzeval_dir: Path) -> None:
    assert (len(approx_gold), approx_gold.n_turns) == (1000, 7372)
    turn = approx_gold.get("SNG0073").turns[1]
    assert dict(turn.state) == {"taxi-departure": ("saint johns college",),
                                "taxi-destination": ("pizza hut fenditton",),
                                "taxi-leaveat": ("17:15",)}
    assert mwzeval_states.sniff(mwzeval_dir / "approx_gold_states_mwz21_test.json")
    assert not mwzeval_states.sniff(mwzeval_dir / "predictions" / "augpt.json")
    assert not mwzeval_states.sniff(mwzeval_dir / "goals.json")


def test_reference_lists_are_complete(mwzeval_dir: Path, reference_outputs: dict) -> None:
    files = sorted(p.stem for p in (mwzeval_dir / "predictions").glob("*.json"))
    assert files == sorted(DST_SYSTEMS + STATELESS_SYSTEMS)
    assert sorted(s for s, out in reference_outputs.items() if out.get("dst")) == DST_SYSTEMS


@pytest.mark.parametrize("system", DST_SYSTEMS)
def test_reproduces_mwzeval_dst(system: str, approx_gold: GoldSet, mwzeval_dir: Path,
                                reference_outputs: dict) -> None:
    from dst_eval.predictions.reader import read_predictions

    expected = reference_outputs[system]["dst"]
    preds = read_predictions(mwzeval_dir / "predictions" / f"{system}.json", corpus="multiwoz22")
    result = score(align(approx_gold, preds), EvalOptions(missing="skip"))
    assert result.counts["turns"] == reference_outputs[system]["n_turns"]
    got = result.official["dst"]
    assert set(got) == set(expected)
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-9), name
    assert result.scores["joint_goal_accuracy"] == pytest.approx(
        expected["joint_accuracy"] / 100, abs=1e-9)
    assert result.scores["slot_f1"] == pytest.approx(expected["slot_f1"] / 100, abs=1e-9)
    assert result.scores["slot_precision"] == pytest.approx(expected["slot_precision"], abs=1e-9)
    assert result.scores["slot_recall"] == pytest.approx(expected["slot_recall"], abs=1e-9)


def test_labes_default_counts_missing_dialogues(approx_gold: GoldSet, mwzeval_dir: Path) -> None:
    from dst_eval.predictions.reader import read_predictions

    preds = read_predictions(mwzeval_dir / "predictions" / "labes.json", corpus="multiwoz22")
    result = score(align(approx_gold, preds), EvalOptions())
    skipped = score(align(approx_gold, preds), EvalOptions(missing="skip"))
    assert result.counts["turns"] == 7372
    assert result.counts["missing_turns_scored_empty"] == 7372 - 6757
    # the 615 extra turns can only add misses (an empty gold state would be a hit)
    assert result.counts["joint_matches"] >= skipped.counts["joint_matches"]
    assert result.scores["joint_goal_accuracy"] < skipped.scores["joint_goal_accuracy"]
    assert result.counts["tp"] == skipped.counts["tp"]


def test_stateless_file_scores_zero_like_mwzeval(approx_gold: GoldSet, mwzeval_dir: Path) -> None:
    from dst_eval.predictions.reader import read_predictions

    preds = read_predictions(mwzeval_dir / "predictions" / "hdno.json", corpus="multiwoz22")
    result = score(align(approx_gold, preds), EvalOptions(missing="skip"))
    assert result.counts["turns_without_state"] == 7372
    assert result.scores == dict.fromkeys(result.scores, 0.0)
    assert any("Missing state predictions" in note for note in result.notes)


def test_unset_and_blank_predicted_values_count_as_mwzeval_counts_them(
        approx_gold: GoldSet, mwzeval_dir: Path) -> None:
    """Predicted ``none``, ``not mentioned``, ``" "`` and ``"\\t"`` are values for mwzeval
    (false positives). Expected numbers: the mwzeval anchor (7f19ee0, ``Evaluator(False,
    False, False, dst=True)``, gold = approx_gold_states_mwz21_test.json) run on exactly
    this file: JGA 36.84210526296399, F1 87.21804510769856, P 0.7945205479441171,
    R 0.9666666666650555."""
    from dst_eval.predictions.reader import predictions_from_object

    states = json.loads((mwzeval_dir / "approx_gold_states_mwz21_test.json").read_text())
    data = {}
    for key in ("sng0073", "pmul4648", "mul0484"):
        turns = []
        for index, state in enumerate(states[key]):
            state = {d: dict(v) for d, v in state.items()}
            if index == 0:
                state.setdefault("hotel", {})["area"] = "none"
            if index == 1:
                state.setdefault("restaurant", {})["food"] = "not mentioned"
            if index == 2:
                state.setdefault("train", {})["day"] = " "
            if index == 3:
                state.setdefault("taxi", {})["leaveAt"] = "none"
                state.setdefault("hotel", {})["stars"] = "\t"
            turns.append({"response": "x", "state": state})
        data[key] = turns
    preds = predictions_from_object(data, pred_format="mwzeval", corpus="multiwoz22")
    result = score(align(approx_gold, preds), EvalOptions(missing="skip"))
    expected = {"joint_accuracy": 36.84210526296399, "slot_f1": 87.21804510769856,
                "slot_precision": 0.7945205479441171, "slot_recall": 0.9666666666650555}
    got = result.official["dst"]
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name
    assert result.counts["turns"] == 19
    assert (result.counts["tp"], result.counts["fp"], result.counts["fn"]) == (58, 15, 2)
