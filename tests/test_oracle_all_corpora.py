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

SAMPLES = Path(__file__).resolve().parent.parent / "gold_samples"
GOLD = {"multiwoz22": SAMPLES / "multiwoz22", "multiwoz21": SAMPLES / "multiwoz21" / "data.json",
        "sgd": SAMPLES / "sgd", "crosswoz": SAMPLES / "crosswoz", "risawoz": SAMPLES / "risawoz",
        "jmultiwoz": SAMPLES / "jmultiwoz"}
# scores that are not DST fractions: response metrics (ceilings below 1 by construction)
NOT_DST = ("inform", "success", "combined", "entity_inform_rate", "avg_lengths", "entropy",
           "cond_entropy", "msttr", "num_")
CASES = [(corpus, profile) for corpus in GOLD for profile in corpus_config(corpus).profiles]


@pytest.mark.parametrize(("corpus", "profile"), CASES)
def test_oracle(tmp_path, corpus, profile):
    gold = load_gold(GOLD[corpus], corpus=corpus)
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
    path = tmp_path / "oracle.json"
    path.write_text(json.dumps(predictions, ensure_ascii=False), encoding="utf-8")
    report = evaluate(path, gold=gold, profile=profile)
    checked = 0
    for name, value in report.scores.items():
        if name.startswith(NOT_DST):
            continue
        expected = 100.0 if "bleu" in name else 1.0
        assert value == pytest.approx(expected), f"{corpus}/{profile}: {name} = {value}"
        checked += 1
    assert checked >= 1
    assert report.coverage["missing_dialogues"] == 0
