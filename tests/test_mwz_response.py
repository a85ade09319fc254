"""MultiWOZ response scoring (Inform, Success, BLEU, richness) vs mwzeval's outputs and rules.

Fidelity: for all 15 systems in reference/mwzeval/predictions, our computation equals
``reference_outputs.json`` (mwzeval 7f19ee0 on the same inputs) -- BLEU to 1e-9, per-domain
Inform/Success rates exactly, richness to the last digits -- and the published leaderboard
for the systems marked ``exact``.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
import sacrebleu
from dst_eval.metrics.bleu import corpus_bleu
from dst_eval.metrics.fuzzy import partial_ratio
from dst_eval.metrics.inform_success import (
    DialogueOutcome,
    GoalDomain,
    dialogue_inform_success,
    inform_success_rates,
)

from dst_eval.alignment import align
from dst_eval.corpora.multiwoz import loader21
from dst_eval.corpora.multiwoz.database import MultiwozDatabase, fuzzy_match, time_to_minutes
from dst_eval.corpora.multiwoz.delex import (
    delexicalize_char_spans,
    delexicalize_word_spans,
    load_mwz22_references,
    normalize_response,
    references_from_mwz22,
)
from dst_eval.corpora.multiwoz.domains import estimate_active_domains
from dst_eval.corpora.multiwoz.engine import bleu_statistics
from dst_eval.corpora.multiwoz.engine import score_responses as score_alignment
from dst_eval.corpora.multiwoz.response_gold import ResponseGold, response_gold
from dst_eval.errors import GoldDataError, PredictionError, UsageError
from dst_eval.gold import GoldSet, dialogue_key
from dst_eval.jsonio import read_json
from dst_eval.predictions.reader import predictions_from_object


def load_response_gold(data: Path, db: Path, *, ids: list[str] | None = None,
                       references: Path | None = None,
                       gold_states: Path | None = None) -> ResponseGold:
    """Response gold of the loaded 2.1 GoldSet (optionally only the dialogues ``ids``)."""
    gold_set = loader21.load(data)
    if ids is not None:
        keep = {dialogue_key(i) for i in ids}
        gold_set = GoldSet(gold_set.corpus, gold_set.split,
                           tuple(d for d in gold_set if dialogue_key(d.dialogue_id) in keep),
                           gold_set.source)
    return response_gold(gold_set, MultiwozDatabase.load(db), references=references,
                         gold_states=gold_states)


def score_responses(gold: ResponseGold, data: Any, *, compat: bool, missing: str = "wrong",
                    file: str = "<memory>") -> dict[str, Any]:
    """mwzeval-format predictions read by the prediction reader, aligned, then scored."""
    predictions = predictions_from_object(data, source=file, pred_format="mwzeval",
                                          corpus="multiwoz21")
    return score_alignment(gold, align(gold.gold, predictions), compat=compat, missing=missing)

SYSTEMS = (
    "augpt", "bort", "damd", "dots", "galaxy-e2e", "galaxy-policy", "hdno", "hdsa", "labes",
    "lava", "marco", "mintl", "pptod", "soloist", "uniconv",
)


@pytest.fixture(scope="session")
def mwzeval_dir(shared_dir: Path) -> Path:
    return shared_dir / "reference" / "mwzeval"


@pytest.fixture(scope="session")
def mwz21_dir(shared_dir: Path) -> Path:
    return shared_dir / "corpora" / "multiwoz21"


@pytest.fixture(scope="session")
def gold(mwz21_dir: Path) -> ResponseGold:
    return load_response_gold(mwz21_dir / "test.json.zip", mwz21_dir / "db")


@pytest.fixture(scope="session")
def reference_outputs(mwzeval_dir: Path) -> dict[str, Any]:
    return json.loads((mwzeval_dir / "reference_outputs.json").read_text())["systems"]


@pytest.fixture(scope="session")
def published(mwzeval_dir: Path) -> dict[str, Any]:
    return json.loads((mwzeval_dir / "published.json").read_text())["systems"]


@pytest.fixture(scope="session")
def predictions(mwzeval_dir: Path):
    cache: dict[str, Any] = {}

    def get(name: str) -> Any:
        if name not in cache:
            cache[name] = read_json(mwzeval_dir / "predictions" / f"{name}.json",
                                    error=PredictionError)
        return cache[name]

    return get


@pytest.fixture(scope="session")
def scored(gold: ResponseGold, predictions):
    """mwzeval-compatible scores of each system (computed once per session)."""
    cache: dict[str, dict] = {}

    def get(name: str) -> dict:
        if name not in cache:
            cache[name] = score_responses(gold, predictions(name), compat=True, missing="skip")
        return cache[name]

    return get


# ---------------------------------------------------------------------------------------------
# Fidelity on the 15 systems
# ---------------------------------------------------------------------------------------------


def test_all_fifteen_systems_present(reference_outputs: dict, published: dict) -> None:
    assert set(reference_outputs) == set(SYSTEMS) == set(published)


@pytest.mark.parametrize("name", SYSTEMS)
def test_equals_mwzeval_reference_outputs(name: str, scored, reference_outputs: dict) -> None:
    expected = reference_outputs[name]
    result = scored(name)
    official = result["official"]
    assert official["bleu"]["mwz22"] == pytest.approx(expected["bleu"], abs=1e-9)
    assert official["success"]["inform"] == expected["inform_dom"]
    assert official["success"]["success"] == expected["success_dom"]
    assert official["success"]["inform"]["total"] == expected["inform"]
    assert official["success"]["success"]["total"] == expected["success"]
    for key, value in expected["richness"].items():
        assert official["richness"][key] == pytest.approx(value, rel=1e-12, abs=1e-12), key
    counts = result["counts"]
    assert (counts["dialogues_scored"], counts["turns_predicted"]) == (
        expected["n_dialogs"], expected["n_turns"])
    # unrounded rates round to mwzeval's; Combined = 0.5 (I + S) + BLEU
    assert round(100 * result["inform"], 1) == expected["inform"]  # a fraction inside
    assert result["combined"] == pytest.approx(
        0.5 * (expected["inform"] + expected["success"]) + expected["bleu"], abs=0.05)


@pytest.mark.parametrize("name", SYSTEMS)
def test_published_leaderboard(name: str, scored, published: dict) -> None:
    entry = published[name]
    result = scored(name)
    inform = result["official"]["success"]["inform"]["total"]
    success = result["official"]["success"]["success"]["total"]
    status = entry["inform_success_reproduction"]
    if status == "exact":
        assert (inform, success) == (entry["inform"], entry["success"])
    elif status == "approximate":  # policy systems: 2.1-derived gold states, within 0.2
        assert result["setting"] == "policy-optimisation"
        assert abs(inform - entry["inform"]) <= 0.2 + 1e-9
        assert abs(success - entry["success"]) <= 0.2 + 1e-9
    else:  # "deviates": mwzeval itself gives other numbers (SOLOIST 81.7/67.1, DoTS 80.5/70.5)
        assert status == "deviates"
        assert (inform, success) != (entry["inform"], entry["success"])
    rich = result["richness"]
    assert round(rich["avg_lengths"], 2) == entry["avg_len"]
    assert round(rich["cond_entropy"], 2) == entry["cond_bigram_entropy"]
    assert rich["num_trigrams"] == entry["unique_trigrams"]
    if name == "uniconv":  # published 338; mwzeval's own code gives 337 (published.json note)
        assert (rich["num_unigrams"], entry["unique_words"]) == (337, 338)
    else:
        assert rich["num_unigrams"] == entry["unique_words"]


def test_state_and_domain_sources(scored, published: dict) -> None:
    for name in SYSTEMS:
        result = scored(name)
        has_states = published[name]["states"] == "predicted" or name == "uniconv"
        assert result["state_source"] == ("predicted" if has_states else "gold"), name
    assert scored("augpt")["domain_source"] == "predicted"
    assert scored("galaxy-policy")["domain_source"] == "estimated"  # neither states nor domains


def test_reported_problems_on_real_files(scored) -> None:
    assert scored("galaxy-e2e")["problems"]["unknown_placeholder"]["count"] == 3
    assert "[hotel]" in scored("galaxy-e2e")["problems"]["unknown_placeholder"]["examples"][0]
    assert scored("labes")["problems"]["missing_dialogues"]["count"] == 56
    assert scored("pptod")["problems"]["missing_turns"]["count"] == 1
    assert scored("marco")["problems"]["response_empty"]["count"] == 13
    assert scored("lava")["problems"] == {}


def test_derived_references_equal_approx_file(gold: ResponseGold, mwzeval_dir: Path) -> None:
    expected = json.loads((mwzeval_dir / "approx_references_mwz21_test.json").read_text())
    assert dict(gold.references) == expected


def test_gold_from_mwzeval_files_scores_alike(mwz21_dir: Path, mwzeval_dir: Path, gold,
                                              predictions, scored) -> None:
    from_files = load_response_gold(
        mwz21_dir / "test.json.zip", mwz21_dir / "db",
        references=mwzeval_dir / "approx_references_mwz21_test.json",
        gold_states=mwzeval_dir / "approx_gold_states_mwz21_test.json")
    assert "approx_references" in from_files.sources["references"]
    result = score_responses(from_files, predictions("marco"), compat=True, missing="skip")
    assert result["official"] == scored("marco")["official"]


def test_gold_files_must_cover_every_dialogue(mwz21_dir: Path, tmp_path: Path) -> None:
    partial = tmp_path / "refs.json"
    partial.write_text(json.dumps({"SNG0073.json": ["a", "b", "c", "d"], "pmul4648": ["a"]}))
    two = ["sng0073", "pmul4648"]
    with pytest.raises(GoldDataError, match="1 references for 10 system turns") as err:
        load_response_gold(mwz21_dir / "test.json.zip", mwz21_dir / "db", ids=two,
                           references=partial)
    assert "pmul4648" in str(err.value)
    partial.write_text(json.dumps({"sng0073": ["a", "b", "c", "d"]}))
    with pytest.raises(GoldDataError, match="no gold states for this dialogue"):
        load_response_gold(mwz21_dir / "test.json.zip", mwz21_dir / "db", ids=two,
                           gold_states=partial)
    with pytest.raises(GoldDataError, match="gold state must be"):
        load_response_gold(mwz21_dir / "test.json.zip", mwz21_dir / "db", ids=two[:1],
                           gold_states=partial)


# ---------------------------------------------------------------------------------------------
# Gold responses, missing data, bad responses, no mutation
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def gold_responses(mwz21_test_gold) -> dict[str, list[dict]]:
    """The gold system turns delexicalised (not yet normalised), as a system would output."""
    gold_set = mwz21_test_gold  # conftest: the same dialogues as loader21.load(test.json.zip)
    return {
        dialogue_key(d.dialogue_id): [
            {"response": delexicalize_word_spans(t.system_response,
                                                 t.system_annotations["span_info"])}
            for t in d.turns]
        for d in gold_set
    }


def test_gold_responses_score_bleu_100_and_the_ceiling(gold, gold_responses) -> None:
    result = score_responses(gold, gold_responses, compat=True, missing="skip")
    assert result["bleu"] == pytest.approx(100.0, abs=1e-9)
    assert result["setting"] == "policy-optimisation"
    # the ceiling with MultiWOZ 2.1 spans and states (mwzeval's 2.2 data: 93.7 / 90.9)
    official = result["official"]["success"]
    assert (official["inform"]["total"], official["success"]["total"]) == (92.5, 88.8)
    with_states = {
        k: [{**t, "state": s} for t, s in zip(turns, gold.states[k], strict=True)]
        for k, turns in gold_responses.items()
    }
    end_to_end = score_responses(gold, with_states, compat=False)
    assert end_to_end["setting"] == "end-to-end"
    assert end_to_end["official"]["success"] == result["official"]["success"]
    assert end_to_end["problems"] == {}


def test_missing_wrong_counts_absent_dialogues_as_failures(gold, predictions, scored) -> None:
    skip = scored("labes")
    wrong = score_responses(gold, predictions("labes"), compat=False, missing="wrong")
    inform_hits = sum(d["inform"] for d in skip["per_dialogue"])
    success_hits = sum(d["success"] for d in skip["per_dialogue"])
    assert len(skip["per_dialogue"]) == 944
    assert wrong["inform"] == pytest.approx(inform_hits / 1000)  # fractions inside
    assert wrong["success"] == pytest.approx(success_hits / 1000)
    assert wrong["counts"]["turns_scored"] == 7372
    assert wrong["counts"]["turns_padded"] == 7372 - 6757
    assert wrong["bleu"] < skip["bleu"]  # empty hypotheses for the missing turns
    # richness of the responses given (strict: in the gold's order, whatever the policy)
    strict_skip = score_responses(gold, predictions("labes"), compat=False, missing="skip")
    assert wrong["richness"] == strict_skip["richness"]


def test_compat_all_or_nothing_state_fallback_vs_strict(gold, predictions, scored) -> None:
    data = copy.deepcopy(predictions("augpt"))
    del data["sng0073"][1]["state"]
    compat = score_responses(gold, data, compat=True, missing="skip")
    assert compat["state_source"] == "gold"  # mwzeval: one missing state -> gold everywhere
    assert compat["domain_source"] == "predicted"
    strict = score_responses(gold, data, compat=False, missing="skip")
    assert strict["state_source"] == "predicted"
    assert strict["problems"]["missing_state"]["count"] == 1
    del data["sng0073"][0]["active_domains"]
    strict = score_responses(gold, data, compat=False, missing="skip")
    assert strict["domain_source"] == "mixed"
    assert strict["problems"]["missing_active_domains"]["count"] == 1
    compat = score_responses(gold, data, compat=True, missing="skip")
    assert compat["domain_source"] == "estimated"


def test_bad_responses_are_reported_not_fatal(gold, gold_responses) -> None:
    keys = list(gold.dialogue_ids)[:5]
    data: dict[str, Any] = {k.upper() + ".json": copy.deepcopy(gold_responses[k]) for k in keys}
    first = data[keys[0].upper() + ".json"]
    first[0]["response"] = None
    first[1]["response"] = 42
    del first[2]["response"]
    data[keys[1].upper() + ".json"][0]["response"] = "   "
    data[keys[2].upper() + ".json"][0]["response"] = "the [hotel] at [value_area] has [stars]"
    data[keys[3].upper() + ".json"].append({"response": "extra"})
    data["nonexistent"] = [{"response": "hi"}]
    result = score_responses(gold, data, compat=True, missing="skip")
    problems = {k: v["count"] for k, v in result["problems"].items()}
    # the prediction reader reads a null response as an absent one: both are response_missing
    assert problems == {
        "response_not_string": 1, "response_missing": 2,
        "response_empty": 1, "unknown_placeholder": 1, "extra_turns": 1,
        "unknown_dialogue": 1, "missing_dialogues": len(gold.dialogue_ids) - 5,
    }
    assert "[hotel]" in result["problems"]["unknown_placeholder"]["examples"][0]
    assert result["counts"]["dialogues_scored"] == 5
    assert 0 < result["bleu"] < 100


def test_every_non_string_response_is_counted(gold, gold_responses) -> None:
    """More non-string responses than the reader lists by place (100) are each counted: the
    reader keeps them as written, and the engine tests their type (it looked them up among
    the reader's listed places, and counted the others as text)."""
    keys = list(gold.dialogue_ids)[:60]
    data: dict[str, Any] = {k: copy.deepcopy(gold_responses[k]) for k in keys}
    n_bad = 0
    for turns in data.values():
        for turn in turns[:3]:
            turn["response"] = 42
            n_bad += 1
    assert n_bad > 100
    result = score_responses(gold, data, compat=False, missing="skip")
    assert result["problems"]["response_not_string"]["count"] == n_bad
    assert "response_empty" not in result["problems"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "JSON object"),
        ({"sng0073": {"response": "x"}}, "expected a list of turns"),
        ({"sng0073": ["just text"]}, "turn must be a JSON object"),
        ({"unknown": [{"response": "x"}]}, "no prediction matches"),
    ],
)
def test_structural_errors_raise_prediction_error(gold, data, message: str) -> None:
    with pytest.raises(PredictionError, match=message) as err:
        score_responses(gold, data, compat=True, missing="skip", file="preds.json")
    assert "preds.json" in str(err.value) and "\n" not in str(err.value)


def test_unknown_missing_policy(gold) -> None:
    with pytest.raises(UsageError):
        score_responses(gold, {}, compat=True, missing="ignore")


def test_bad_state_values_are_dropped_and_reported(gold, gold_responses) -> None:
    key = next(iter(gold.dialogue_ids))
    turns = copy.deepcopy(gold_responses[key])
    for turn in turns:
        turn["state"] = {"taxi": {"leave at": 17}, "hotel-area": ["cheap"]}  # flat: read
    result = score_responses(gold, {key: turns}, compat=False, missing="skip")
    assert result["problems"]["bad_state"]["count"] == 2 * len(turns)
    assert result["state_source"] == "predicted"


def test_input_is_never_mutated_and_rescoring_is_stable(gold, predictions, scored) -> None:
    data = predictions("uniconv")  # raw keys like "leaveAt", raw values, active_domains
    before = copy.deepcopy(data)
    again = score_responses(gold, data, compat=True, missing="skip")
    assert data == before
    assert again["official"] == scored("uniconv")["official"]


# ---------------------------------------------------------------------------------------------
# BLEU, response normalisation, references
# ---------------------------------------------------------------------------------------------


def test_bleu_statistics_equal_sacrebleu(gold, scored, predictions) -> None:
    hyps, refs = [], []
    for key, turns in predictions("soloist").items():
        for index, turn in enumerate(turns):
            hyps.append(normalize_response(turn["response"])[0])
            refs.append(gold.references[key][index])
    stats = bleu_statistics(hyps, refs)
    ours = scored("soloist")["bleu"]
    assert ours == pytest.approx(corpus_bleu(hyps, [refs], tokenize="13a"), abs=1e-9)
    reference = sacrebleu.corpus_bleu(hyps, [refs])
    assert ours == pytest.approx(reference.score, abs=1e-9)
    assert (int(stats.hyp_len.sum()), int(stats.ref_len.sum())) == (reference.sys_len,
                                                                    reference.ref_len)


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("[value_count] trains leave at [value_time].", "COUNT trains leave at TIME."),
        ("The [restaurant_name]s are in the [value_area]-s.", "the NAME are in the AREA."),
        ("[Hotel_Name] , [hotel_stars] stars", "NAME, COUNT stars"),
        ("at [arrive by] or [leave at]", "at TIME or TIME"),
        ("it leaves at 9:30 .", "it leaves at 9: 30."),
        ("a well-lit friend-ly place-s, happily", "a well-lit friend place, happily"),
        ("I booked the [hotel] .", "i booked the."),
    ],
)
def test_normalize_response(raw: str, normalised: str) -> None:
    assert normalize_response(raw)[0] == normalised


def test_fast_moses_tokenizer_equals_sacremoses(predictions) -> None:
    """The set-based islower/isanyalpha give sacremoses' own tokenisation."""
    from sacremoses import MosesTokenizer

    from dst_eval.corpora.multiwoz.delex import _MOSES_TOKENIZER

    plain = MosesTokenizer(lang="en")
    texts = sorted({t["response"] for name in ("soloist", "dots") for turns in
                    predictions(name).values() for t in turns})
    sample = random.Random(1).sample(texts, 1500)
    sample += ["e.g. the U.S. and i.e. this", "Mr. Smith at 9 a.m. today. then", "", "x. Y. z."]
    for text in sample:
        for variant in (text, text.lower()):
            assert _MOSES_TOKENIZER.tokenize(variant) == plain.tokenize(variant), variant


def test_unknown_placeholders_are_returned() -> None:
    assert normalize_response("[hotel] and [restaurant] near [value_area]")[1] == (
        "hotel", "restaurant")


def test_word_span_delexicalisation() -> None:
    text = "I do n't have Nusha .   Try the Copper Kettle at 4 Kings Parade ."
    words = text.split(" ")
    spans = [["Restaurant-Inform", "Addr", "4 Kings Parade", 13, 15],
             ["Restaurant-Inform", "Name", "Nusha", 4, 4],
             ["Restaurant-Inform", "Name", "Copper Kettle", 10, 11],
             ["Restaurant-Inform", "Name", "Kettle", 11, 11],  # overlaps: skipped
             ["Restaurant-Inform", "Food", "dontcare", 0, 0]]  # dontcare: skipped
    assert words[10:12] == ["Copper", "Kettle"]
    assert delexicalize_word_spans(text, spans) == (
        "I don't have [name] .   Try the [name] at [address] .")


def test_char_span_references_from_mwz22() -> None:
    utterance = "Nandos is at 17 Mill Road, call 01223."
    spans = [["Restaurant-Inform", "phone", "01223", 32, 37],
             ["Restaurant-Inform", "name", "Nandos", 0, 6],
             ["Restaurant-Inform", "address", "17 Mill Road", 13, 25],
             ["Restaurant-Inform", "ref", "Mill", 16, 20]]  # starts inside the address
    assert delexicalize_char_spans(utterance, spans) == "[name] is at [address], call [phone]."
    dialogues = [{"dialogue_id": "MUL1.json", "turns": [
        {"turn_id": "0", "utterance": "hi", "speaker": "USER"},
        {"turn_id": "1", "utterance": utterance, "speaker": "SYSTEM"},
    ]}]
    acts = {"MUL1.json": {"1": {"span_info": spans}}}
    assert references_from_mwz22(dialogues, acts) == {"mul1": ["NAME is at ADDRESS, call PHONE."]}
    with pytest.raises(GoldDataError, match="dialog_acts"):
        references_from_mwz22(dialogues, {})


def test_load_mwz22_references(tmp_path: Path, shared_dir: Path) -> None:
    (tmp_path / "test").mkdir()
    dialogues = [{"dialogue_id": "SNG9.json", "turns": [
        {"turn_id": "0", "speaker": "USER", "utterance": "a cheap hotel?"},
        {"turn_id": "1", "speaker": "SYSTEM", "utterance": "Try the Alpha-Milton, it's cheap."},
    ]}]
    (tmp_path / "test" / "dialogues_001.json").write_text(json.dumps(dialogues))
    acts = {"SNG9.json": {"0": {"span_info": []}, "1": {"span_info": [
        ["Hotel-Inform", "name", "the Alpha-Milton", 4, 20],
        ["Hotel-Inform", "pricerange", "cheap", 27, 32]]}}}
    (tmp_path / "dialog_acts.json").write_text(json.dumps(acts))
    assert load_mwz22_references(tmp_path / "test") == {"sng9": ["try NAME, it's PRICE."]}
    # the shared 2.2 sample has no dialog_acts.json
    with pytest.raises(GoldDataError, match="file not found"):
        load_mwz22_references(shared_dir / "corpora" / "multiwoz22" / "test")


def test_gold_from_given_files(mwz21_dir: Path, gold: ResponseGold, tmp_path: Path) -> None:
    two = ["sng0073", "pmul4648"]
    refs = {k: [f"this is reference {i} of {k}" for i in range(len(gold.references[k]))]
            for k in two}
    refs_file, states_file = tmp_path / "refs.json", tmp_path / "states.json"
    refs_file.write_text(json.dumps(refs))
    states_file.write_text(json.dumps({k: gold.states[k] for k in two}))
    small = load_response_gold(mwz21_dir / "test.json.zip", mwz21_dir / "db", ids=two,
                               references=refs_file, gold_states=states_file)
    assert small.dialogue_ids == tuple(two)
    assert small.references == refs
    assert small.sources["references"] == str(refs_file)
    assert small.states == {k: gold.states[k] for k in two}
    result = score_responses(small, {k: [{"response": r} for r in refs[k]] for k in two},
                             compat=True, missing="skip")
    assert result["bleu"] == pytest.approx(100.0)


# ---------------------------------------------------------------------------------------------
# Database query semantics
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_db() -> MultiwozDatabase:
    return MultiwozDatabase({
        "hotel": [
            {"id": "0", "name": "acorn guest house", "area": "north", "Price Range": "moderate",
             "type": "guesthouse", "price": {"single": "50"}, "location": [0, 0]},
            {"id": "1", "name": "the lensfield hotel", "area": "?", "Price Range": "expensive",
             "type": "hotel", "price": {"single": "90"}, "location": [0, 0]},
            {"id": "2", "name": "cityroomz", "area": "centre", "Price Range": "moderate",
             "type": "hotel", "price": {}, "location": [0, 0]},
        ],
        "train": [
            {"trainID": "TR1", "leaveAt": "05:00", "arriveBy": "05:51", "day": "monday",
             "departure": "cambridge", "destination": "london kings cross"},
            {"trainID": "TR2", "leaveAt": "09:00", "arriveBy": "09:51", "day": "monday",
             "departure": "cambridge", "destination": "london kings cross"},
        ],
    })


def test_database_columns_are_renamed_and_dropped(tiny_db: MultiwozDatabase) -> None:
    assert tiny_db.columns("hotel") == ("id", "name", "area", "pricerange", "type")
    assert set(tiny_db.columns("train")) == {"trainid", "leave", "arrive", "day", "departure",
                                             "destination"}
    assert tiny_db.query("taxi", {"destination": "x"}) == ()


@pytest.mark.parametrize(
    ("domain", "constraints", "ids"),
    [
        ("hotel", {}, ("0", "1", "2")),
        ("hotel", {"area": "north"}, ("0", "1")),  # '?' matches anything
        ("hotel", {"area": "North"}, ("1",)),  # exact and case-sensitive
        ("hotel", {"area": "dontcare", "type": "guest house"}, ("0",)),  # skipped; type table
        ("hotel", {"area": "do n't care"}, ("0", "1", "2")),
        ("hotel", {"area": ""}, ("1",)),  # '' is not skipped
        ("hotel", {"name": "City Rooms"}, ()),  # partial_ratio('cityroomz', 'city rooms') = 89
        ("hotel", {"name": "cityrooms"}, ("2",)),  # name table: cityrooms -> cityroomz
        ("hotel", {"name": "acorn"}, ("0",)),  # partial_ratio('acorn guest house', 'acorn') = 100
        ("hotel", {"name": "lensfield", "bookday": "monday", "parking": "x"}, ("1",)),
        ("hotel", {"pricerange": "expensive", "area": 3}, ("1",)),  # non-string: '?' rows only
        ("train", {"leave": "after 8:30 am"}, ("TR2",)),  # row leave >= 08:30
        ("train", {"arrive": "by 09:51"}, ("TR1", "TR2")),  # row arrive <= 09:51
        ("train", {"arrive": "9 pm"}, ("TR1", "TR2")),
        ("train", {"arrive": "morning"}, ("TR1",)),  # 08:00
        ("train", {"arrive": "soon"}, ()),  # not DD:DD -> 0 minutes
        ("train", {"destination": "london"}, ("TR1", "TR2")),  # fuzzy substring
        ("train", {"destination": "london liverpool street"}, ()),
    ],
)
def test_database_query(tiny_db: MultiwozDatabase, domain: str, constraints: dict,
                        ids: tuple) -> None:
    assert tiny_db.query(domain, constraints) == ids
    assert tiny_db.query_set(domain, constraints) == frozenset(ids)


def test_database_cache(tiny_db: MultiwozDatabase) -> None:
    before = tiny_db.cache_info()
    tiny_db.query("hotel", {"type": "hotel", "area": "centre"})
    tiny_db.query("hotel", {"area": "centre", "type": "hotel", "bookstay": "2"})
    after = tiny_db.cache_info()
    assert after["calls"] - before["calls"] == 2
    assert after["distinct"] - before["distinct"] == 1


@pytest.mark.parametrize(
    ("value", "minutes"),
    [("05:51", 351), ("24:30", 1470), ("9:30", 0), ("12:30pm", 750), ("10:3x", 0), ("", 0),
     ("ab:cd", 0), ("07:15:00", 435)],
)
def test_time_to_minutes(value: str, minutes: int) -> None:
    assert time_to_minutes(value) == minutes


def test_fuzzy_prefilter_is_exact(mwz21_dir: Path, predictions) -> None:
    """fuzzy_match == (partial_ratio >= 90) on DB values x state values of real systems."""
    rows = set()
    for domain, column in (("restaurant", "name"), ("restaurant", "food"), ("hotel", "name"),
                           ("attraction", "name"), ("train", "departure")):
        table = json.loads((mwz21_dir / "db" / f"{domain}_db.json").read_text())
        rows |= {row[column] for row in table}
    values = set()
    for name in ("augpt", "soloist", "dots"):
        for turns in predictions(name).values():
            for turn in turns:
                for slots in turn["state"].values():
                    values |= {v for k, v in slots.items() if k in ("name", "food", "departure")}
    rng = random.Random(0)
    pairs = [(r, v) for r in sorted(rows) for v in rng.sample(sorted(values), 40)]
    pairs += [("cambridge", "cambrige"), ("", ""), ("a", ""), ("pizza hut", "pizza hut city")]
    disagreements = [(r, v) for r, v in pairs if fuzzy_match(r, v) != (partial_ratio(r, v) >= 90)]
    assert disagreements == []
    assert sum(fuzzy_match(r, v) for r, v in pairs) > 10


# ---------------------------------------------------------------------------------------------
# The pure Inform/Success algorithm and domain estimation
# ---------------------------------------------------------------------------------------------


def _fake_query(domain: str, constraints: dict) -> frozenset[str]:
    table = {"restaurant": {"r1": "north", "r2": "north", "r3": "south"},
             "train": {"t1": "monday", "t2": "tuesday"}}.get(domain, {})
    wanted = constraints.get("area", constraints.get("day"))
    return frozenset(k for k, v in table.items() if wanted in (None, v))


def test_inform_success_algorithm() -> None:
    goal = {
        "restaurant": GoalDomain({"area": "north"}, frozenset({"PHONE", "REFERENCE"})),
        "train": GoalDomain({"day": "monday"}, frozenset({"TRAINID"})),
        "taxi": GoalDomain({}, frozenset({"PHONE"})),
    }
    responses = ["NAME is nice, phone PHONE", "booked, ref REFERENCE", "TRAINID leaves",
                 "booked, ref REFERENCE. taxi phone PHONE"]
    states = [{"restaurant": {"area": "north"}}, {"restaurant": {"area": "north"}},
              {"train": {"day": "monday"}}, {}]
    active = [["restaurant"], ["restaurant"], ["train"], ["taxi"]]
    booked = [[], [], ["restaurant"], ["restaurant"]]
    outcome = dialogue_inform_success(goal, responses, states, active, booked,
                                      query=_fake_query)
    assert outcome.inform == {"restaurant": True, "train": True, "taxi": True}
    # REFERENCE in turn 1 came before the booking: not credited; turn 3 is taxi-active
    assert outcome.success == {"restaurant": False, "train": True, "taxi": True}
    assert outcome.inform_total and not outcome.success_total

    wrong_venue = dialogue_inform_success(
        goal, ["NAME"] + responses[1:], [{"restaurant": {"area": "south"}}] + states[1:],
        active, booked, query=_fake_query)
    assert wrong_venue.inform["restaurant"] is False
    assert not any(wrong_venue.success.values())

    # a later result set containing every venue offered so far keeps the earlier offer...
    superset = dialogue_inform_success(
        {"restaurant": goal["restaurant"]}, ["NAME", "NAME"],
        [{"restaurant": {"area": "north"}}, {"restaurant": {}}], [["restaurant"]] * 2,
        [[], []], query=_fake_query)
    assert superset.inform["restaurant"] is True  # {r1,r2} ⊆ {r1,r2,r3}: {r1,r2} kept
    # ...any other one replaces it (the last offer wins)
    replaced = dialogue_inform_success(
        {"restaurant": goal["restaurant"]}, ["NAME", "NAME"],
        [{"restaurant": {"area": "north"}}, {"restaurant": {"area": "south"}}],
        [["restaurant"]] * 2, [[], []], query=_fake_query)
    assert replaced.inform["restaurant"] is False
    # a venue mentioned while the domain is not active is not an offer
    inactive = dialogue_inform_success(
        {"restaurant": goal["restaurant"]}, ["NAME"], [{"restaurant": {"area": "south"}}],
        [[]], [[]], query=_fake_query)
    assert inactive.inform["restaurant"] is False  # nothing offered at all


def test_inform_success_rates() -> None:
    outcomes = [
        DialogueOutcome({"hotel": True, "taxi": True}, {"hotel": True, "taxi": False}),
        DialogueOutcome({"hotel": False}, {"hotel": True}),  # success needs inform
        DialogueOutcome.failed(["hotel"]),
    ]
    rates = inform_success_rates(outcomes)
    assert rates.dialogues == {"total": 3, "hotel": 3, "taxi": 1}
    assert rates.inform() == pytest.approx(100 / 3)
    assert rates.success() == 0.0
    assert rates.success("hotel") == pytest.approx(100 / 3)
    with pytest.raises(ValueError):
        inform_success_rates([])


def test_active_domain_estimation() -> None:
    states = [
        {},
        {"hotel": {"area": "north"}},
        {"hotel": {"area": "north"}, "train": {"day": "monday", "departure": "ely"},
         "taxi": {"leave": "10:00"}},
        {"hotel": {"area": "north"}, "train": {"day": "monday", "departure": "ely"},
         "taxi": {"leave": "10:00"}},
        {"hotel": {"area": "north", "stars": "4"}},
    ]
    original = copy.deepcopy(states)
    # turn 2: train and taxi changed, current hotel did not -> train (most slots);
    # turn 3: nothing changed, two changed before -> the other one still in the state (taxi)
    assert estimate_active_domains(states) == [[], ["hotel"], ["train"], ["taxi"], ["hotel"]]
    assert states == original


def test_scoring_reads_the_loaded_goldset(mwz21_dir: Path, gold: ResponseGold,
                                          gold_responses) -> None:
    """Inform comes from the GoldSet object given, not from a re-read of data.json: making
    the goal's hotel/restaurant area impossible turns an informed dialogue into a failure
    (its offered venues are no longer a subset of the venues matching the goal)."""
    from types import MappingProxyType

    from msgspec.structs import replace

    baseline = score_responses(gold, gold_responses, compat=True, missing="skip")
    hits = {row["dialogue_id"]: row["inform"] for row in baseline["per_dialogue"]}
    chosen = None
    for dialogue in gold.gold:
        key = dialogue_key(dialogue.dialogue_id)
        domains = [d for d in ("hotel", "restaurant") if d in (dialogue.goal or {})
                   and "name" not in dialogue.goal[d].get("info", {})
                   and "area" in dialogue.goal[d].get("info", {})]
        if hits.get(key) and domains and list(dialogue.goal) and len(
                [d for d in ("restaurant", "hotel", "attraction", "train", "taxi", "police",
                             "hospital") if dialogue.goal.get(d)]) == 1:
            chosen = (dialogue, domains[0])
            break
    assert chosen is not None
    dialogue, domain = chosen
    key = dialogue_key(dialogue.dialogue_id)
    goal = {d: dict(v) for d, v in dialogue.goal.items() if isinstance(v, MappingProxyType)}
    goal[domain] = {**goal[domain], "info": {**goal[domain]["info"], "area": "nowhere"}}
    one = GoldSet(gold.gold.corpus, gold.gold.split, (dialogue,), gold.gold.source)
    changed = GoldSet(gold.gold.corpus, gold.gold.split, (replace(dialogue, goal=goal),),
                      gold.gold.source)
    data = {key: gold_responses[key]}
    database = gold.database
    before = score_alignment(response_gold(one, database),
                             align(one, predictions_from_object(data, pred_format="mwzeval")),
                             compat=True, missing="skip")
    after = score_alignment(response_gold(changed, database),
                            align(changed, predictions_from_object(data, pred_format="mwzeval")),
                            compat=True, missing="skip")
    assert (before["inform"], after["inform"]) == (1.0, 0.0)
    assert after["bleu"] == before["bleu"]  # references unchanged


def test_multiwoz_bleu_is_metrics_bleu(gold: ResponseGold, scored, predictions) -> None:
    """One BLEU implementation: the engine's BLEU and statistics are metrics.bleu's on the
    same normalised segments, bit for bit."""
    from dst_eval.metrics.bleu import corpus_bleu_from_stats, segment_statistics

    hyps, refs = [], []
    for key, turns in predictions("hdsa").items():
        for index, turn in enumerate(turns[:gold.n_turns(dialogue_key(key))]):
            hyps.append(normalize_response(turn["response"])[0])
            refs.append(gold.references[dialogue_key(key)][index])
    stats = segment_statistics(hyps, refs, tokenize="13a")
    result = scored("hdsa")
    assert result["bleu"] == corpus_bleu_from_stats(stats)
    assert result["official"]["bleu"]["mwz22"] == corpus_bleu_from_stats(stats)
    ours = result["bleu_stats"]
    assert int(ours.matches.sum()) == int(stats.matches.sum())
    assert (int(ours.hyp_len.sum()), int(ours.ref_len.sum())) == (
        int(stats.hyp_len.sum()), int(stats.ref_len.sum()))


def test_response_resources_are_in_the_signature(mwz21_dir: Path, mwzeval_dir: Path,
                                                 tmp_path: Path) -> None:
    """A patched database, or another references file, changes the response numbers: the
    signature's ``res:`` digest changes with it (it did not: both runs had one signature)."""
    import shutil

    from dst_eval import evaluate

    prediction = mwzeval_dir / "predictions" / "mintl.json"
    db = tmp_path / "db"
    shutil.copytree(mwz21_dir / "db", db)
    rows = json.loads((db / "restaurant_db.json").read_text("utf-8"))
    (db / "restaurant_db.json").write_text(json.dumps(rows[: len(rows) // 4]), "utf-8")

    def run(**extra):
        result = evaluate(prediction, gold=mwz21_dir, corpus="multiwoz21", split="test",
                          metrics=("inform", "bleu"), **extra)
        return result.scores, result.signature.as_dict()["res"]

    scores, res = run()
    patched_scores, patched_res = run(db=db)
    assert patched_scores["inform"] < scores["inform"] and patched_res != res
    same_db = tmp_path / "db_copy"
    shutil.copytree(mwz21_dir / "db", same_db)
    assert run(db=same_db)[1] == res  # the same content, wherever it lives
    refs = json.loads((mwzeval_dir / "approx_references_mwz21_test.json").read_text("utf-8"))
    first = next(iter(refs))
    refs[first] = [" ".join(r.split()[:3]) for r in refs[first]]
    (tmp_path / "refs.json").write_text(json.dumps(refs), "utf-8")
    ref_scores, ref_res = run(references=tmp_path / "refs.json")
    assert ref_scores["bleu"] != scores["bleu"] and ref_res not in (res, patched_res)


_OPENED: list[str] | None = None  # the paths opened while a test records (an audit hook)


def _record_open(event: str, args: tuple) -> None:
    if event == "open" and _OPENED is not None and isinstance(args[0], str | Path):
        _OPENED.append(str(args[0]))


def test_response_resources_are_read_once(mwz21_dir: Path, mwzeval_dir: Path) -> None:
    """The references and gold states files are opened once each: the bytes parsed are the
    bytes the ``res:`` digest covers (each was read a second time for the digest, so a file
    rewritten in between was scored with one content and signed with another)."""
    import sys

    from dst_eval import evaluate

    global _OPENED
    refs = mwzeval_dir / "approx_references_mwz21_test.json"
    states = mwzeval_dir / "approx_gold_states_mwz21_test.json"
    sys.addaudithook(_record_open)  # stays installed: records only while _OPENED is a list
    _OPENED = []
    try:
        evaluate(mwzeval_dir / "predictions" / "mintl.json", gold=mwz21_dir,
                 corpus="multiwoz21", split="test", profile="mwzeval", missing="skip",
                 references=refs, gold_states=states, metrics=("inform", "bleu"))
        opened = list(_OPENED)
    finally:
        _OPENED = None
    assert opened.count(str(refs)) == 1 and opened.count(str(states)) == 1, opened


def test_mwz22_dialog_acts_are_in_the_signature(shared_dir: Path, mwz21_dir: Path,
                                                tmp_path: Path) -> None:
    """MultiWOZ 2.2 references come from the split folder's ``../dialog_acts.json``: spans
    there change the BLEU, so its content is in the ``res:`` digest (it was not: two
    different BLEU scores had one signature). Expected values by construction: the
    predictions are the system utterances, BLEU 100 against spans-free references; a span
    over "133" delexicalises the first reference, so the BLEU drops."""
    from dst_eval import evaluate

    root, dialogue, system = _mwz22_root(shared_dir, tmp_path)

    def run(first_spans: list) -> tuple[float, str]:
        _write_acts(root / "dialog_acts.json", dialogue, system[0]["turn_id"], first_spans)
        result = evaluate(tmp_path / "pred.json", gold=root / "test", corpus="multiwoz22",
                          goals=mwz21_dir / "test.json.zip", db=mwz21_dir / "db",
                          metrics=("bleu",))
        return result.scores["bleu"], result.signature.as_dict()["res"]

    plain_bleu, plain_res = run([])
    spanned_bleu, spanned_res = run([["Train-Inform", "choice", "133", 7, 10]])
    assert plain_bleu == pytest.approx(100.0) and spanned_bleu < 100.0
    assert spanned_res != plain_res
    assert run([])[1] == plain_res  # the same content, the same digest


def _mwz22_root(shared_dir: Path, tmp_path: Path) -> tuple[Path, dict, list]:
    """``tmp_path/root/{schema.json, test/dialogues_001.json}`` (the 2.2 release layout, the
    shared dialogue MUL0484 alone) and ``pred.json``, the dialogue's system utterances as
    responses. Returns the root, the dialogue and its system turns."""
    root = tmp_path / "root"
    (root / "test").mkdir(parents=True)
    source = shared_dir / "corpora" / "multiwoz22"
    dialogues = json.loads((source / "test" / "dialogues_001.json").read_text("utf-8"))
    (root / "test" / "dialogues_001.json").write_text(json.dumps(dialogues[:1]), "utf-8")
    (root / "schema.json").write_bytes((source / "schema.json").read_bytes())
    dialogue = dialogues[0]
    system = [t for t in dialogue["turns"] if t["speaker"] == "SYSTEM"]
    assert system[0]["utterance"].startswith("I have 133 trains")
    key = dialogue["dialogue_id"].lower().removesuffix(".json")
    (tmp_path / "pred.json").write_text(json.dumps(
        {key: [{"response": t["utterance"]} for t in system]}), "utf-8")
    return root, dialogue, system


def _write_acts(path: Path, dialogue: dict, first_turn_id: str, first_spans: list) -> None:
    acts = {t["turn_id"]: {"span_info": []} for t in dialogue["turns"]}
    acts[first_turn_id] = {"span_info": first_spans}
    path.write_text(json.dumps({dialogue["dialogue_id"]: acts}), "utf-8")


def test_mwz22_corpus_root_reads_the_dialog_acts_of_the_corpus(shared_dir: Path,
                                                                mwz21_dir: Path,
                                                                tmp_path: Path) -> None:
    """A 2.2 corpus root with ``split="test"`` read ``dialog_acts.json`` from the root's
    parent (outside the corpus), so the same gold and split scored another BLEU than the
    split folder did (d1 #1). The file is next to ``schema.json`` and ``test/``. By
    construction: the root's file has a span over "133" (BLEU < 100); the stray file
    outside has none (it would give BLEU 100)."""
    from dst_eval import evaluate

    root, dialogue, system = _mwz22_root(shared_dir, tmp_path)
    span = [["Train-Inform", "choice", "133", 7, 10]]
    _write_acts(root / "dialog_acts.json", dialogue, system[0]["turn_id"], span)
    common = {"corpus": "multiwoz22", "goals": mwz21_dir / "test.json.zip",
              "db": mwz21_dir / "db", "metrics": ("bleu",), "min_coverage": 0}

    def run(**gold: Any) -> tuple[float, str]:
        result = evaluate(tmp_path / "pred.json", **gold, **common)
        return result.scores["bleu"], result.signature.as_dict()["res"]

    folder_bleu, folder_res = run(gold=root / "test")
    assert folder_bleu < 100.0
    assert run(gold=root, split="test") == (folder_bleu, folder_res)  # no file outside
    _write_acts(tmp_path / "dialog_acts.json", dialogue, system[0]["turn_id"], [])
    assert run(gold=root, split="test") == (folder_bleu, folder_res)
    assert run(gold=root / "test") == (folder_bleu, folder_res)


def test_mwz22_one_folder_layout_reads_the_dialog_acts_next_to_its_schema(
        shared_dir: Path, mwz21_dir: Path, tmp_path: Path) -> None:
    """A 2.2 folder holding ``dialogues_*.json``, ``schema.json`` and ``dialog_acts.json``
    (the layout of gold_samples/multiwoz22) read ``dialog_acts.json`` from the folder's
    parent, outside the corpus: exit 4 without one there, another file's spans with one
    (g1 #1). The file is next to the ``schema.json`` read. By construction: the corpus's
    file has a span over "133" (BLEU < 100); the stray file above has none (BLEU 100); the
    same files as the release layout (split folder, root + split) score alike."""
    from dst_eval import evaluate

    root, dialogue, system = _mwz22_root(shared_dir, tmp_path)
    span = [["Train-Inform", "choice", "133", 7, 10]]
    _write_acts(root / "dialog_acts.json", dialogue, system[0]["turn_id"], span)
    flat = tmp_path / "flatp" / "flat"
    flat.mkdir(parents=True)
    for name in ("schema.json", "dialog_acts.json", "test/dialogues_001.json"):
        (flat / Path(name).name).write_bytes((root / name).read_bytes())
    common = {"corpus": "multiwoz22", "goals": mwz21_dir / "test.json.zip",
              "db": mwz21_dir / "db", "metrics": ("bleu",), "min_coverage": 0}

    def run(**gold: Any) -> tuple[float, str]:
        result = evaluate(tmp_path / "pred.json", **gold, **common)
        return result.scores["bleu"], result.signature.as_dict()["res"]

    folder = run(gold=root / "test")
    assert folder[0] < 100.0
    assert run(gold=root, split="test") == folder
    assert run(gold=flat) == folder  # nothing above the corpus
    assert run(gold=flat, split="test") == folder
    _write_acts(flat.parent / "dialog_acts.json", dialogue, system[0]["turn_id"], [])
    assert run(gold=flat) == folder  # a file above the corpus is not read
    _write_acts(flat / "dialog_acts.json", dialogue, system[0]["turn_id"], [])
    plain_bleu, plain_res = run(gold=flat)  # the corpus's own file is
    assert plain_bleu == pytest.approx(100.0) and plain_res != folder[1]


def test_mwz22_references_file_leaves_dialog_acts_unread(shared_dir: Path, mwz21_dir: Path,
                                                         tmp_path: Path) -> None:
    """With ``references``, the spans of ``dialog_acts.json`` make no reference, yet the
    file was read and digested: two equal BLEU scores signed two ``res:`` (d1 #3). Now it is
    not read: its content, or its absence, changes neither the number nor the signature."""
    from dst_eval import evaluate

    root, dialogue, system = _mwz22_root(shared_dir, tmp_path)
    key = dialogue["dialogue_id"].lower().removesuffix(".json")
    refs = tmp_path / "refs.json"
    refs.write_text(json.dumps({key: [t["utterance"] for t in system]}), "utf-8")

    def run() -> tuple[float, str]:
        result = evaluate(tmp_path / "pred.json", gold=root / "test", corpus="multiwoz22",
                          goals=mwz21_dir / "test.json.zip", db=mwz21_dir / "db",
                          references=refs, metrics=("bleu",), min_coverage=0)
        return result.scores["bleu"], result.signature.as_dict()["res"]

    absent = run()
    _write_acts(root / "dialog_acts.json", dialogue, system[0]["turn_id"], [])
    assert run() == absent
    _write_acts(root / "dialog_acts.json", dialogue, system[0]["turn_id"],
                [["Train-Inform", "choice", "133", 7, 10]])
    assert run() == absent


def test_richness_follows_the_gold_order_except_under_mwzeval(gold: ResponseGold,
                                                             predictions) -> None:
    """MSTTR windows run over the concatenated responses. mwzeval takes the file's order
    (kept under compat); the strict engine takes the gold's, so the same predictions
    shuffled give the same richness: the mwzeval algorithm's value on the file written in
    gold order."""
    import random

    data = predictions("augpt")
    keys = list(data)
    random.Random(5).shuffle(keys)
    shuffled = {key: data[key] for key in keys}
    in_gold_order = {key: data[key] for key in gold.dialogue_ids if key in data}
    in_gold_order |= {key: data[key] for key in sorted(data) if key not in in_gold_order}
    expected = score_responses(gold, in_gold_order, compat=True, missing="skip")["richness"]
    for given in (data, shuffled):
        richness = score_responses(gold, given, compat=False)["richness"]
        for key in ("msttr", "entropy", "cond_entropy"):
            assert richness[key] == pytest.approx(expected[key], abs=1e-12), key
    mwzeval_shuffled = score_responses(gold, shuffled, compat=True, missing="skip")
    assert mwzeval_shuffled["richness"]["msttr"] != pytest.approx(expected["msttr"], abs=1e-6)


def test_goals_option_on_data_json_gold_is_named_as_unused(mwz21_dir: Path,
                                                          tmp_path: Path) -> None:
    """data.json gold (2.0/2.1/2.4) carries its own goals: ``--goals`` is not read, so a
    goals file with every goal emptied changes nothing, and a note says the gold's goals
    are used (it used to say nothing)."""
    import zipfile

    from dst_eval import evaluate

    with zipfile.ZipFile(mwz21_dir / "test.json.zip") as archive:
        raw = json.loads(archive.read("test.json"))
    sub = {k: raw[k] for k in sorted(raw)[:5]}
    (tmp_path / "test.json").write_text(json.dumps(sub), encoding="utf-8")
    emptied = {k: {**v, "goal": {d: {} if isinstance(g, dict) else g
                                 for d, g in v["goal"].items()}} for k, v in sub.items()}
    (tmp_path / "goals.json").write_text(json.dumps(emptied), encoding="utf-8")
    system = json.loads((mwz21_dir.parent.parent / "reference" / "mwzeval" / "predictions"
                         / "augpt.json").read_text(encoding="utf-8"))
    preds = {k: [{"response": t["response"]} for t in system[k.lower()]] for k in sub}
    kwargs = {"gold": tmp_path / "test.json", "corpus": "multiwoz21", "db": mwz21_dir / "db"}
    base = evaluate(preds, **kwargs)
    asked = evaluate(preds, goals=tmp_path / "goals.json", **kwargs)
    assert base.scores["inform"] > 0 and base.scores["bleu"] > 0
    (tmp_path / "emptied").mkdir()  # had the emptied goals been read, inform would differ
    (tmp_path / "emptied" / "test.json").write_text(json.dumps(emptied), encoding="utf-8")
    used = evaluate(preds, **{**kwargs, "gold": tmp_path / "emptied" / "test.json"})
    assert used.scores["inform"] != base.scores["inform"]
    assert asked.scores == base.scores and str(asked.signature) == str(base.signature)
    assert [n for n in asked.notes if n not in base.notes] == [
        "--goals is not used: the multiwoz21 gold (data.json) has its own user goals, and "
        "those are used"]


def test_a_database_found_next_to_the_gold_is_named(tmp_path: Path, mwz21_dir: Path,
                                                    mwzeval_dir: Path, monkeypatch) -> None:
    """A database not given with --db is named in a note, relative to the gold's folder
    (a board publishes notes: no absolute path): the gold's own ``db`` folder, or the one
    next to that folder; with --db nothing is noted."""
    import shutil

    from dst_eval import evaluate

    prediction = mwzeval_dir / "predictions" / "mintl.json"
    corpus = tmp_path / "corpus"
    (corpus / "split").mkdir(parents=True)
    shutil.copy(mwz21_dir / "test.json.zip", corpus / "split" / "test.json.zip")
    shutil.copytree(mwz21_dir / "db", corpus / "db")

    def notes(gold: Path, **extra) -> list[str]:
        result = evaluate(prediction, gold=gold, corpus="multiwoz21", split="test",
                          metrics=("inform",), **extra)
        return [n for n in result.notes if "database" in n]

    beside = "responses: database folder {}, found next to the gold (relative to {}); --db " \
        "names another"
    in_file_folder = "the gold file's folder"
    assert notes(corpus / "split" / "test.json.zip") == [beside.format("../db", in_file_folder)]
    monkeypatch.chdir(corpus / "split")  # a relative gold path: its folder's parent is '..'
    assert notes(Path("test.json.zip")) == [beside.format("../db", in_file_folder)]
    # a folder of split files: the gold is the split's file (GoldSet.source)
    assert notes(corpus / "split") == [beside.format("../db", in_file_folder)]
    shutil.move(corpus / "db", corpus / "split" / "db")
    assert notes(corpus / "split" / "test.json.zip") == [beside.format("db", in_file_folder)]
    assert notes(corpus / "split" / "test.json.zip", db=corpus / "split" / "db") == []


def test_goals_from_a_file_of_several_splits_are_read_whole(gold_samples: Path,
                                                            tmp_path: Path) -> None:
    """``--goals`` data is read whole, whatever its list files say: MultiWOZ 2.2 gold of
    any split finds its dialogues' goals (a data.json holding several splits was refused:
    "holds several splits ...; choose one with --split", although --split was given); a
    gold dialogue the file lacks is a gold error."""
    from dataclasses import replace

    from dst_eval.corpora.multiwoz import loader21
    from dst_eval.corpora.multiwoz.response_gold import with_mwz21_annotations
    from dst_eval.errors import GoldDataError
    from dst_eval.gold import GoldDialogue

    data = gold_samples / "multiwoz21" / "data.json"
    test, dev = loader21.load(data, split="test"), loader21.load(data, split="dev")
    both = replace(test, split=None, dialogues=test.dialogues + dev.dialogues, _by_key={})
    merged = with_mwz21_annotations(both, data)  # refused before, whatever the split
    assert [d.goal for d in merged] == [test.dialogues[0].goal, dev.dialogues[0].goal]
    assert all(d.goal for d in merged)
    unknown = replace(test, dialogues=(GoldDialogue("SMPL999.json", ()),), _by_key={})
    with pytest.raises(GoldDataError, match="dialogue not in the --goals data"):
        with_mwz21_annotations(unknown, data)
