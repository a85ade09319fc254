"""Metamorphic tests on the real corpora in ``../shared``: relations that must hold whatever
the numbers are.

* the gold fed back scores 1.0 on every DST metric under every profile that applies (the
  documented exception: ``mwzeval`` drops gold dontcare slots only, so its oracle is the
  gold without them -- README "Missing predictions and coverage");
* the spelling of a submission changes nothing: shuffled dialogue order, key order, JSONL
  line order, id case, ``.json`` id suffixes, nested vs flat states, a metadata wrapper;
* dropping k dialogues under ``missing: wrong`` changes every strict metric (GCA included)
  by exactly the amount computed here from the gold alone;
* a file matching no gold dialogue is refused (exit 3) and, accepted with
  ``min_coverage=0``, scores 0 on every correctness metric;
* inputs are never modified (sha256 before and after) and a re-run is byte-identical.

A subset of each corpus (the first ``N_DIALOGUES`` dialogues) keeps the runtime modest.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import oracle_predictions

from dst_eval import evaluate
from dst_eval.config import corpus_config
from dst_eval.corpora import load_gold
from dst_eval.errors import PredictionError
from dst_eval.gold import GoldSet

N_DIALOGUES = 100
K_DROPPED = 10
GOLD = {  # corpus -> (path under ../shared or gold_samples, split)
    "multiwoz21": ("shared", "corpora/multiwoz21/test.json.zip", None),
    "multiwoz22": ("shared", "corpora/multiwoz22", "test"),
    "sgd": ("shared", "corpora/sgd", "dev"),
    "crosswoz": ("shared", "corpora/crosswoz/val.json.zip", None),
    "risawoz": ("shared", "corpora/risawoz/sample_train100_original_format.json", None),
    "jmultiwoz": ("samples", "jmultiwoz", "test"),  # not in ../shared: the sample release
}
NOT_DST = ("inform", "success", "combined", "entity_inform_rate", "avg_lengths", "entropy",
           "cond_entropy", "msttr", "num_", "bleu")
FORMAT_BOUND = {"trippy"}
"""Profiles that replay a system's own output fields (TripPy's class predictions) and score
no other format: their oracle, coverage and spelling checks are in tests/test_trippy_profile.py."""
CASES = [(c, p) for c in GOLD for p in corpus_config(c).profiles if p not in FORMAT_BOUND]
NOT_ONE = {("multiwoz21", "trade"): "the trade profile rebuilds the MultiWOZ gold as trade-dst "
           "does (value fixes: 'restaurant two two' differs), so dst-eval's gold is not its "
           "oracle"}
"""Documented exceptions to "the gold fed back scores 1.0" (besides mwzeval's dontcare drop,
handled by its oracle)."""

_cache: dict[str, GoldSet] = {}


def subset(gold: GoldSet, n: int) -> GoldSet:
    """The first ``n`` dialogues of ``gold`` (everything else as loaded)."""
    values = {f.name: getattr(gold, f.name) for f in fields(gold)
              if f.init and f.name != "_by_key"}
    values["dialogues"] = gold.dialogues[:n]
    return GoldSet(**values)


@pytest.fixture()
def gold_of(shared_dir: Path, gold_samples: Path):
    def get(corpus: str) -> GoldSet:
        if corpus not in _cache:
            base, rel, split = GOLD[corpus]
            root = shared_dir if base == "shared" else gold_samples
            _cache[corpus] = subset(load_gold(root / rel, corpus=corpus, split=split),
                                    N_DIALOGUES)
        return _cache[corpus]
    return get


def dst_oracle(gold: GoldSet, profile: str = "strict") -> dict[str, list[dict[str, Any]]]:
    """The gold as predictions (mwzeval layout, nested states), without responses."""
    predictions = oracle_predictions(gold)
    for turns in predictions.values():
        for turn in turns:
            turn.pop("response", None)
            if profile == "mwzeval":  # its documented exception: gold-only dontcare drop
                turn["state"] = {d: {s: v for s, v in slots.items() if v != "dontcare"}
                                 for d, slots in turn["state"].items()}
    return predictions


def dst_scores(result) -> dict[str, float]:
    return {k: v for k, v in result.scores.items() if not k.startswith(NOT_DST)}


# --------------------------------------------------------------------------- gold fed back


@pytest.mark.parametrize(("corpus", "profile"), CASES)
def test_gold_fed_back_scores_one(gold_of, corpus: str, profile: str) -> None:
    gold = gold_of(corpus)
    result = evaluate(dst_oracle(gold, profile), gold=gold, profile=profile)
    scores = dst_scores(result)
    assert scores
    if (corpus, profile) in NOT_ONE:  # the exception must stay real, or leave the list
        assert scores["joint_goal_accuracy"] < 1.0, NOT_ONE[(corpus, profile)]
        return
    for name, value in scores.items():
        assert value == pytest.approx(1.0, abs=1e-12), f"{corpus}/{profile}: {name} = {value}"


# --------------------------------------------------------------------------- invariance


def corrupted(gold: GoldSet) -> dict[str, list[dict[str, Any]]]:
    """The oracle with one slot dropped in every third turn (so scores are not all 1)."""
    predictions = dst_oracle(gold)
    for n, turn in enumerate(t for turns in predictions.values() for t in turns):
        if n % 3 == 2 and turn["state"]:
            domain = sorted(turn["state"])[0]
            slots = turn["state"][domain]
            slots.pop(sorted(slots)[0], None)
            if not slots:
                del turn["state"][domain]
    return predictions


def _shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        items = [(k, _shuffled(v, rng)) for k, v in value.items()]
        rng.shuffle(items)
        return dict(items)
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


def _flat(predictions: dict) -> dict:
    out = copy.deepcopy(predictions)
    for turns in out.values():
        for turn in turns:
            turn["state"] = {f"{d}-{s}": v for d, slots in turn["state"].items()
                             for s, v in slots.items()}
    return out


def _jsonl(predictions: dict, rng: random.Random) -> str:
    lines = [json.dumps({"dialogue_id": did, "turn_index": i, **turn}, ensure_ascii=False)
             for did, turns in predictions.items() for i, turn in enumerate(turns)]
    rng.shuffle(lines)
    return "\n".join(lines) + "\n"


def variants(predictions: dict, tmp_path: Path) -> dict[str, Path]:
    rng = random.Random(7)
    ids = list(predictions)
    rng.shuffle(ids)
    written = {
        "dialogue order": {d: predictions[d] for d in ids},
        "key order": _shuffled(predictions, rng),
        "id case": {d.upper(): t for d, t in predictions.items()},
        ".json suffix": {f"{d}.json": t for d, t in predictions.items()},
        "flat states": _flat(predictions),
        "metadata wrapper": {"metadata": {"model": "x"}, "predictions": predictions},
    }
    paths = {}
    for name, content in written.items():
        path = tmp_path / (name.replace(" ", "_").replace(".", "") + ".json")
        path.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
        paths[name] = path
    path = tmp_path / "shuffled.jsonl"
    path.write_text(_jsonl(predictions, rng), encoding="utf-8")
    paths["JSONL line order"] = path
    return paths


@pytest.mark.parametrize(("corpus", "profile"), CASES)
def test_spelling_changes_nothing(gold_of, tmp_path: Path, corpus: str, profile: str) -> None:
    gold = gold_of(corpus)
    predictions = corrupted(gold)
    base_path = tmp_path / "base.json"
    base_path.write_text(json.dumps(predictions, ensure_ascii=False), encoding="utf-8")
    base = evaluate(base_path, gold=gold, profile=profile)
    assert dst_scores(base)
    if profile == "strict":
        assert base.scores["joint_goal_accuracy"] < 1.0
    for name, path in variants(predictions, tmp_path).items():
        other = evaluate(path, gold=gold, profile=profile)
        assert dst_scores(other) == dst_scores(base), f"{corpus}/{profile}: {name}"
        assert other.groups == base.groups, f"{corpus}/{profile}: {name}"
        assert other.official == base.official, f"{corpus}/{profile}: {name}"


# --------------------------------------------------------------------------- dropping k


def expected_after_drop(gold: GoldSet, dropped: set[str]) -> dict[str, float]:
    """Every strict score of the oracle minus the ``dropped`` dialogues, from the gold alone:
    a kept turn is perfect; a dropped turn is wrong for every metric and each of its gold
    slots, requested slots and intents a miss (README "Missing predictions and coverage")."""
    turns = [(t, d.dialogue_id in dropped) for d in gold for t in d.turns]
    kept = np.array([not lost for _, lost in turns])
    n_gold = np.array([len(t.state) for t, _ in turns])
    nonempty = n_gold > 0
    share = float(kept.mean())
    slot_recall = float(n_gold[kept].sum() / n_gold.sum())
    exp = {
        "joint_goal_accuracy": share, "turn_accuracy": share, "slot_f1_turn_macro": share,
        "slot_precision": 1.0, "slot_recall": slot_recall,
        "slot_f1": 2 * slot_recall / (1 + slot_recall),
        "average_goal_accuracy": float(kept[nonempty].mean()),
        "improved_average_goal_accuracy": float(kept[nonempty].mean()),
        "relative_slot_accuracy": float((kept & nonempty).sum() / (
            (kept & nonempty).sum() + (~kept).sum())),
        "relative_slot_accuracy_micro": slot_recall,
        "final_turn_joint_goal_accuracy": 1 - len(dropped) / len(gold),
    }
    if gold.slots:
        exp["slot_accuracy"] = share
    for lam in (0.25, 0.5, 0.75, 1.0):
        exp[f"flexible_goal_accuracy@{lam:g}"] = share
    domains: dict[str, list[float]] = {}
    for dialogue in gold:
        involved = {k.partition("-")[0] for t in dialogue.turns for k in t.state}
        for domain in involved:
            domains.setdefault(domain, []).extend(
                [float(dialogue.dialogue_id not in dropped)] * len(dialogue.turns))
    for domain, oks in domains.items():
        exp[f"domain_joint_goal_accuracy:{domain}"] = float(np.mean(oks))
    if domains:
        exp["domain_joint_goal_accuracy_mean"] = float(np.mean(
            [exp[f"domain_joint_goal_accuracy:{d}"] for d in domains]))
    requested = np.array([len(t.requested_slots) for t, _ in turns])
    if requested.sum():
        recall = float(requested[kept].sum() / requested.sum())
        exp.update({"requested_slots_precision": 1.0, "requested_slots_recall": recall,
                    "requested_slots_f1": 2 * recall / (1 + recall),
                    "requested_slots_f1_turn_macro": share})
    with_intent = np.array([bool(t.active_intents) for t, _ in turns])
    if with_intent.any():
        exp["active_intent_accuracy"] = float(kept[with_intent].mean())
    # GCA: every change of a kept dialogue (gold, or the oracle's first variant) is correct
    # (c), every gold change of a dropped one missed (m);
    # P = P_L = 1 and R = R_L = c/(c+m), so the weighted harmonic mean is
    # (2c + m) / (c + (c+m)^2 / c).
    c = sum(gold_changes(d, gold.corpus, oracle=True) for d in gold
            if d.dialogue_id not in dropped)
    m = sum(gold_changes(d, gold.corpus) for d in gold if d.dialogue_id in dropped)
    if c:
        exp["granular_change_accuracy"] = (2 * c + m) / (c + (c + m) ** 2 / c)
    return exp


def gold_changes(dialogue, corpus: str, *, oracle: bool = False) -> int:
    """The number of changes GCA counts in ``dialogue``: per turn, the slots of the padded
    state (every slot seen so far, ``None`` once dropped) whose value the previous padded
    state lacks; values as the strict profile normalises them, and gold variant lists that
    share a spelling one value (a spelling added to the gold is no change). ``oracle``:
    the turn's predicted state is the oracle's (each slot's first variant), and a slot whose
    predicted value changes counts too (once, however both sides change)."""
    from dst_eval.options import EvalOptions
    from dst_eval.profiles.strict import gold_states, normalizer_for

    norm = normalizer_for(corpus, EvalOptions())
    gold_before: dict[str, Any] = {}
    pred_before: dict[str, Any] = {}
    count = 0
    for turn, state in zip(dialogue.turns, gold_states(list(dialogue.turns), norm, "value"),
                           strict=True):
        now = dict.fromkeys(gold_before) | state
        changed = {key for key, value in now.items()
                   if key not in gold_before or (gold_before[key] != value and (
                       gold_before[key] is None or value is None
                       or not set(gold_before[key]) & set(value)))}
        gold_before = now
        if oracle:
            predicted = dict.fromkeys(pred_before) | {
                key: norm(key, variants[0]) for key, variants in turn.state.items()}
            changed |= {key for key, value in predicted.items()
                        if key not in pred_before or pred_before[key] != value}
            pred_before = predicted
        count += len(changed)
    return count


@pytest.mark.parametrize("corpus", list(GOLD))
def test_dropping_k_dialogues_changes_every_metric_exactly(gold_of, corpus: str) -> None:
    gold = gold_of(corpus)
    k = min(K_DROPPED, len(gold) // 3)
    predictions = dst_oracle(gold)
    ids = list(predictions)
    dropped_keys = set(ids[1::3][:k]) if k else set()
    for key in dropped_keys:
        del predictions[key]
    dropped = {d.dialogue_id for d in gold if d.dialogue_id.lower().removesuffix(".json")
               in dropped_keys}
    assert len(dropped) == k
    result = evaluate(predictions, gold=gold, min_coverage=0.0)
    expected = expected_after_drop(gold, dropped)
    scores = result.scores
    unchecked = set(scores) - set(expected)
    assert not unchecked, f"no expectation for {sorted(unchecked)}"
    for name, value in expected.items():
        assert scores[name] == pytest.approx(value, abs=1e-12), f"{corpus}: {name}"
    if k:
        assert scores["granular_change_accuracy"] < 1.0


@pytest.mark.parametrize(("corpus", "profile"), CASES)
def test_nothing_predicted_is_refused_then_all_wrong(gold_of, corpus: str, profile: str) -> None:
    gold = gold_of(corpus)
    stranger = {"no-such-dialogue": [{"state": {}}]}
    with pytest.raises(PredictionError, match=f"predictions match 0 of {len(gold)} dialogues"):
        evaluate(stranger, gold=gold, profile=profile)
    result = evaluate(stranger, gold=gold, profile=profile, min_coverage=0)
    assert "min-coverage:0" in str(result.signature)
    for name, value in dst_scores(result).items():
        if name in ("slot_precision", "requested_slots_precision") or name.startswith(
                "slot_tagging_precision"):
            continue  # nothing predicted: precision has no false positive to count
        assert value == 0.0, f"{corpus}/{profile}: {name} = {value}"


# --------------------------------------------------------------------------- side effects


def _digest(path: Path) -> dict[str, str]:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


@pytest.mark.parametrize("corpus", ["multiwoz21", "sgd", "crosswoz"])
def test_inputs_unmodified_and_reruns_identical(shared_dir: Path, tmp_path: Path,
                                                corpus: str) -> None:
    _, rel, split = GOLD[corpus]
    gold_path = shared_dir / rel
    gold = subset(load_gold(gold_path, corpus=corpus, split=split), N_DIALOGUES)
    pred_path = tmp_path / "pred.json"
    pred_path.write_text(json.dumps(corrupted(gold), ensure_ascii=False), encoding="utf-8")
    gold_files = [Path(f.path) for f in gold.files]
    assert gold_files
    before = {**_digest(pred_path), **{k: v for f in gold_files for k, v in _digest(f).items()}}
    runs = [evaluate(pred_path, gold=gold, by=("domain",)).to_json() for _ in range(2)]
    after = {**_digest(pred_path), **{k: v for f in gold_files for k, v in _digest(f).items()}}
    assert before == after
    assert runs[0] == runs[1]
    assert f"gold:{_files_digest(gold)}" in json.loads(runs[0])["signature"]


def _files_digest(gold: GoldSet) -> str:
    joined = "\n".join(hashlib.sha256(Path(f.path).read_bytes()).hexdigest()
                       for f in gold.files)  # in reading order
    return hashlib.sha256(joined.encode()).hexdigest()[:8]
