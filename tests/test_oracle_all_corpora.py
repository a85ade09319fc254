"""Gold fed back as predictions scores 1.0 on every DST metric, for every corpus sample and
every profile that applies to it (and BLEU 100 where responses are scored)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import oracle_predictions

from dst_eval import evaluate
from dst_eval.config import corpus_config
from dst_eval.corpora import load_gold
from dst_eval.corpora.multiwoz import trade_gold
from dst_eval.profiles.convlab import unified_states

SAMPLES = Path(__file__).resolve().parent.parent / "gold_samples"
GOLD = {"multiwoz22": SAMPLES / "multiwoz22", "multiwoz21": SAMPLES / "multiwoz21" / "data.json",
        "sgd": SAMPLES / "sgd", "crosswoz": SAMPLES / "crosswoz", "risawoz": SAMPLES / "risawoz",
        "jmultiwoz": SAMPLES / "jmultiwoz"}
# scores that are not DST fractions: response metrics (ceilings below 1 by construction)
NOT_DST = ("inform", "success", "combined", "entity_inform_rate", "avg_lengths", "entropy",
           "cond_entropy", "msttr", "num_")
SPLITS = {"multiwoz21": ("test", "dev"),  # its data.json holds both (by its list files)
          "jmultiwoz": ("test", "dev")}  # so does the sample's split_list.json
FORMAT_BOUND = {"trippy"}  # scores TripPy pred_res files only: tests/test_trippy_profile.py
CASES = [(corpus, split, profile) for corpus in GOLD for split in SPLITS.get(corpus, (None,))
         for profile in corpus_config(corpus).profiles if profile not in FORMAT_BOUND]


@pytest.mark.parametrize(("corpus", "split", "profile"), CASES)
def test_oracle(tmp_path, corpus, split, profile):
    gold = load_gold(GOLD[corpus], corpus=corpus, split=split)
    predictions = oracle_predictions(gold)
    if profile == "mwzeval":
        # mwzeval drops dontcare slots from the gold only (its asymmetric-dontcare defect,
        # reproduced by this profile): its oracle is the gold without them
        has_dontcare = any("dontcare" in v for t in gold.turns() for v in t.state.values())
        assert has_dontcare, "the sample should exercise dontcare"
        for turns in predictions.values():
            for turn in turns:
                turn["state"] = {d: {s: v for s, v in slots.items() if v != "dontcare"}
                                 for d, slots in turn["state"].items()}
    ceiling = 1.0
    if profile == "trade" and corpus == "multiwoz21":
        # the trade profile scores trade-dst's own gold (its normalised values): the oracle is
        # that gold, without its literal "none" items (no TRADE prediction can hold one), so
        # only the turns without such an item can be right: none of the 3 test turns, both
        # dev turns
        built = trade_gold.load_for(gold)
        parts = {d: [[i.split("-", 2) for i in items] for items in turns]
                 for d, turns in built.items()}
        predictions = {d: [{"state": {f"{a}-{b}": v for a, b, v in items if v != "none"}}
                           for items in turns] for d, turns in parts.items()}
        ceiling = sum(not any(i.endswith("-none") for i in t)
                      for ts in built.values() for t in ts) / gold.n_turns
        assert ceiling == {"test": 0.0, "dev": 1.0}[split]
    if profile == "convlab" and corpus == "sgd":
        # ConvLab-3's unified SGD state is cumulative per service (since b3f1b23): the gold
        # fed back is that state
        states = unified_states(gold)
        predictions = {d.dialogue_id: [
            {"state": {k: v[0] for k, v in states[(d.dialogue_id, t.turn_index)].items()}}
            for t in d.turns] for d in gold}
    path = tmp_path / "oracle.json"
    path.write_text(json.dumps(predictions, ensure_ascii=False), encoding="utf-8")
    report = evaluate(path, gold=gold, profile=profile)
    if ceiling != 1.0:
        assert report.scores["joint_goal_accuracy"] == pytest.approx(ceiling, abs=1e-12)
        return
    checked = 0
    for name, value in report.scores.items():
        if name.startswith(NOT_DST):
            continue
        expected = 100.0 if "bleu" in name else 1.0
        assert value == pytest.approx(expected), f"{corpus}/{profile}: {name} = {value}"
        checked += 1
    assert checked >= 1
    assert report.coverage["missing_dialogues"] == 0
