"""Properties every DST metric must have (in the spirit of scikit-learn's test_common.py).

For every metric of the registry below -- the strict profile's set plus every named
convention -- on a synthetic corpus with slot deletions, value changes, gold variants,
empty-gold turns, requested slots and intents:

* an oracle prediction scores 1.0 (two documented exceptions, asserted exactly);
* the score does not depend on the order of the dialogues;
* slot keys spelled in any way the readers accept give the same score once resolved;
* nested ``{"domain": {"slot": v}}`` and flat ``{"domain-slot": v}`` states are equal;
* empty input (no turns) gives nan for every metric; a documented ``zero_division``
  (slot and requested-slot P/R/F1, GCA) is the value on turns with nothing to count;
* per-dialogue column sums (the bootstrap unit) add up to the corpus sums, and
  ``from_sums`` on arrays of resampled sums equals the scalar score.
"""

from __future__ import annotations

import math
import random
import zlib

import numpy as np
import pytest
from dst_eval.metrics import (
    FinalTurnJointGoalAccuracy,
    GranularChangeAccuracy,
    ImprovedAverageGoalAccuracy,
    Metric,
    RelativeSlotAccuracy,
    dst_metrics,
    turn_table,
)
from dst_eval.metrics.domain_jga import MeanDomainJointGoalAccuracy, domain_metrics
from metrics_fixture import corrupt

from dst_eval.slotkeys import canonical_slot_key

# canonical MultiWOZ 2.1 key -> a spelling predictions use for it
SPELLINGS = {
    "hotel-pricerange": ("Hotel", "price range"), "hotel-area": ("hotel", "area"),
    "hotel-bookday": ("hotel", "book day"), "train-leaveat": ("train", "leaveAt"),
    "train-arriveby": ("train", "arriveBy"), "restaurant-food": ("restaurant", "food"),
    "restaurant-bookpeople": ("restaurant", "book people"),
    "taxi-destination": ("Taxi", "destination"), "attraction-name": ("attraction", "name"),
    "attraction-area": ("Attraction", "area"),
}
VALUES = ["north", "centre", "cheap", "alpha-milton guest house", "17:15", "2", "dontcare"]
SERVICES = ["hotel", "train", "restaurant"]


def synthetic_corpus(seed: int = 7, n_dialogues: int = 40):
    """Gold dialogues with additions, value changes, deletions, empty first turns and
    two-variant values; the first variant is the canonical value."""
    rng = random.Random(seed)
    keys = sorted(SPELLINGS)
    dialogues = []
    for d in range(n_dialogues):
        state: dict[str, tuple[str, ...]] = {}
        turns = []
        for t in range(rng.randint(1, 8)):
            if t or rng.random() < 0.6:
                for _ in range(rng.randint(0, 2)):
                    value = rng.choice(VALUES)
                    variants = (value, value.upper()) if rng.random() < 0.3 else (value,)
                    state[rng.choice(keys)] = variants
                if state and rng.random() < 0.2:
                    del state[rng.choice(sorted(state))]
            requested = set(rng.sample(keys, rng.randint(0, 2)))
            intents = {s: f"find_{s}" for s in rng.sample(SERVICES, rng.randint(0, 2))}
            turns.append((dict(state), requested, intents))
        dialogues.append((f"D{d:03d}", turns))
    return dialogues


def flatten(dialogues, *, oracle: bool):
    ids, gold, req_true, int_true = [], [], [], []
    for dialogue_id, turns in dialogues:
        for state, requested, intents in turns:
            ids.append(dialogue_id)
            gold.append(state)
            req_true.append(requested)
            int_true.append(intents)
    canonical = [{k: v[0] for k, v in g.items()} for g in gold]
    if oracle:
        pred, req_pred, int_pred = canonical, req_true, int_true
    else:
        blocks = []
        for dialogue_id, turns in dialogues:
            blocks.append((dialogue_id, [{k: v[0] for k, v in s.items()} for s, _, _ in turns]))
        _, _, pred = corrupt(blocks)
        # per-turn choices keyed by (dialogue, turn), so they do not depend on the order
        turn_no = [sum(1 for j in range(i) if ids[j] == ids[i]) for i in range(len(ids))]
        keep = [zlib.crc32(f"{d}:{t}".encode()) % 10 for d, t in zip(ids, turn_no, strict=True)]
        req_pred = [set(r) if k < 7 else set() for r, k in zip(req_true, keep, strict=True)]
        int_pred = [dict(i) if k != 3 else {} for i, k in zip(int_true, keep, strict=True)]
    return ids, gold, pred, req_true, req_pred, int_true, int_pred


def table_of(ids, gold, pred, req_true, req_pred, int_true, int_pred):
    return turn_table(gold, pred, dialogue_ids=ids, requested_true=req_true,
                      requested_pred=req_pred, intents_true=int_true, intents_pred=int_pred)


def registry(table) -> list[Metric]:
    """Every DST metric: the strict profile's set and every named convention."""
    metrics = dst_metrics(n_slots=30, requested=True, intents=True)
    metrics += [RelativeSlotAccuracy(empty_turns="zero"), RelativeSlotAccuracy(empty_turns="one"),
                ImprovedAverageGoalAccuracy(), GranularChangeAccuracy(),
                GranularChangeAccuracy(co_deletion="reference"), FinalTurnJointGoalAccuracy()]
    metrics += domain_metrics(table)
    names = [m.name for m in metrics]
    assert len(names) == len(set(names)), names
    return metrics


@pytest.fixture(scope="module")
def corpus():
    return synthetic_corpus()


@pytest.fixture(scope="module")
def predicted(corpus):
    data = flatten(corpus, oracle=False)
    return data, table_of(*data)


def scores(table) -> dict[str, float]:
    return {m.name: m.score(table) for m in registry(table)}


def same(a: dict[str, float], b: dict[str, float]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == pytest.approx(b[name], abs=1e-12, nan_ok=True), name


def test_registry_covers_the_hard_cases(predicted) -> None:
    (ids, gold, pred, *_), table = predicted
    s = scores(table)
    assert len(s) >= 30
    assert all(0.0 <= v <= 1.0 for v in s.values()), s
    assert s["joint_goal_accuracy"] < 1 and table.columns["gca_codel"].sum() > 0
    assert any(not g for g in gold) and any(len(v) > 1 for g in gold for v in g.values())


def test_oracle_scores_one(corpus) -> None:
    ids, gold, pred, *rest = data = flatten(corpus, oracle=True)
    table = table_of(*data)
    s = scores(table)
    n = len(ids)
    empty = sum(1 for g in gold if not g)
    co_deleted = table.columns["gca_codel"].sum()
    exceptions = {
        # GCA-repository RSA convention: a turn with both states empty scores 0
        "relative_slot_accuracy_empty_zero": (n - empty) / n,
        # reference GCA counts a slot dropped by both sides as correct and missed
        "granular_change_accuracy_reference": GranularChangeAccuracy(co_deletion="reference")
        .from_sums({"gca_correct": table.columns["gca_correct"].sum(), "gca_wrong": 0,
                    "gca_over": 0, "gca_missed": co_deleted, "gca_codel": 0}),
    }
    assert empty > 0 and co_deleted > 0
    for name, value in s.items():
        expected = exceptions.get(name, 1.0)
        assert value == pytest.approx(expected, abs=1e-12), name
    assert exceptions["granular_change_accuracy_reference"] < 1


def test_dialogue_order_does_not_matter(corpus, predicted) -> None:
    _, table = predicted
    shuffled = list(corpus)
    random.Random(3).shuffle(shuffled)
    assert [d for d, _ in shuffled] != [d for d, _ in corpus]
    same(scores(table_of(*flatten(shuffled, oracle=False))), scores(table))


def test_slot_key_spellings_resolve_to_the_same_score(predicted) -> None:
    (ids, gold, pred, *rest), table = predicted
    respelled = [{"-".join(SPELLINGS[k]): v for k, v in p.items()} for p in pred]
    assert respelled != pred
    resolved = [{canonical_slot_key(*k.split("-", 1), "multiwoz21"): v for k, v in p.items()}
                for p in respelled]
    same(scores(table_of(ids, gold, resolved, *rest)), scores(table))


def test_nested_and_flat_states_are_equal(predicted) -> None:
    (ids, gold, pred, *rest), table = predicted

    def nest(state):
        out: dict = {}
        for key, value in state.items():
            domain, _, slot = key.partition("-")
            out.setdefault(domain, {})[slot] = value
        return out

    same(scores(table_of(ids, [nest(g) for g in gold], [nest(p) for p in pred], *rest)),
         scores(table))
    mixed = [nest(p) if i % 2 else p for i, p in enumerate(pred)]
    same(scores(table_of(ids, gold, mixed, *rest)), scores(table))


def test_empty_input_is_nan_for_every_metric(predicted) -> None:
    """No turns: every metric is nan, also slot and requested-slot P/R/F1 and GCA (they gave
    their ``zero_division``, 1.0 or 0.0, while JGA gave nan); that convention stays the
    value on turns with nothing to count (states and requested slots all empty: P = R =
    F1 = 1 by hand, GCA 0 for no change as the reference code has it)."""
    _, full = predicted
    empty = turn_table([], [], dialogue_ids=[], requested_true=[], requested_pred=[],
                       intents_true=[], intents_pred=[])
    assert len(empty) == 0 and domain_metrics(empty) == []
    with pytest.raises(ValueError):
        MeanDomainJointGoalAccuracy([])
    for metric in registry(full):
        if metric.name.startswith("domain_joint_goal_accuracy"):
            continue  # no domain in empty input: these metrics do not exist
        assert math.isnan(metric.score(empty)), metric.name
        assert math.isnan(metric.score(full, np.zeros(len(full), dtype=bool))), metric.name
    nothing = turn_table([{}], [{}], dialogue_ids=["d"], requested_true=[[]],
                         requested_pred=[[]])
    by_hand = {"slot_precision": 1.0, "slot_recall": 1.0, "slot_f1": 1.0,
               "requested_slots_precision": 1.0, "requested_slots_recall": 1.0,
               "requested_slots_f1": 1.0, "granular_change_accuracy": 0.0,  # no change: 0
               "granular_change_accuracy_reference": 0.0}
    conventions = {m.name: m for m in registry(full) if hasattr(m, "zero_division")}
    assert set(conventions) == set(by_hand)
    for name, metric in conventions.items():
        assert metric.score(nothing) == by_hand[name] == metric.zero_division, name


def test_dialogue_sums_add_up_to_the_corpus_value(predicted) -> None:
    _, table = predicted
    n_dialogues = len(table.dialogue_ids)
    rng = np.random.default_rng(0)
    draws = rng.integers(0, n_dialogues, size=(5, n_dialogues))
    for metric in registry(table):
        per_dialogue = table.dialogue_sums(metric.columns)
        totals = {c: per_dialogue[c].sum() for c in metric.columns}
        corpus = table.sums(metric.columns)
        for c in metric.columns:
            assert totals[c] == pytest.approx(corpus[c], abs=1e-9), (metric.name, c)
        assert float(metric.from_sums(totals)) == pytest.approx(metric.score(table),
                                                                 abs=1e-12, nan_ok=True)
        # bootstrap shape: one value per resample, each equal to scoring that resample
        resampled = {c: per_dialogue[c][draws].sum(axis=1) for c in metric.columns}
        values = np.asarray(metric.from_sums(resampled))
        assert values.shape == (5,), metric.name
        for b in range(5):
            rows = np.concatenate([np.flatnonzero(table.dialogue_index == d) for d in draws[b]])
            one = {c: table.columns[c][rows].sum() for c in metric.columns}
            assert values[b] == pytest.approx(float(metric.from_sums(one)), abs=1e-12,
                                              nan_ok=True), metric.name
