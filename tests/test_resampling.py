"""Dialogue-level bootstrap CIs and paired tests (dst_eval.metrics.resampling).

References: slow re-implementations that rebuild every resampled / shuffled corpus turn by
turn and score it from scratch with ``turn_table``; sacrebleu 2.x itself (BLEU with one
segment per dialogue must give sacrebleu's CI and p-values exactly, which pins the seed,
RNG draw and p-value conventions).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from dst_eval.metrics import dst_metrics, turn_table
from dst_eval.metrics.base import TurnTable
from dst_eval.metrics.bleu import segment_statistics
from dst_eval.metrics.jga import JointGoalAccuracy
from dst_eval.metrics.resampling import (
    BleuMetric,
    approximate_randomisation,
    bleu_table,
    bootstrap_ci,
    estimate_ci,
    paired_bootstrap,
    parse_seed,
    resample_counts,
    resample_indices,
    seed_from_env,
    seed_label,
)
from dst_eval.metrics.rsa import RelativeSlotAccuracy
from sacrebleu.metrics import BLEU
from sacrebleu.significance import PairedTest

SLOTS = [f"{d}-{s}" for d in ("hotel", "train", "taxi") for s in ("area", "day", "people")]
VALUES = ["a", "b", "c", "dontcare"]
METRICS = dst_metrics(n_slots=len(SLOTS))


# ---- synthetic corpora ---------------------------------------------------------------
def make_gold(n_dialogues: int, seed: int) -> list[tuple[str, list[dict]]]:
    """Dialogues of 2-9 turns whose state grows (and sometimes changes) turn by turn."""
    rng = random.Random(seed)
    dialogues = []
    for d in range(n_dialogues):
        state: dict[str, tuple[str, ...]] = {}
        turns = []
        for _ in range(rng.randint(2, 9)):
            for _ in range(rng.randint(0, 2)):
                state[rng.choice(SLOTS)] = (rng.choice(VALUES),)
            turns.append(dict(state))
        dialogues.append((f"D{d:03d}", turns))
    return dialogues


def make_predictions(gold, error_rate: float, seed: int) -> list[list[dict]]:
    """Gold states with each slot dropped, changed or joined by an extra slot at ``error_rate``."""
    rng = random.Random(seed)
    out = []
    for _, turns in gold:
        predicted = []
        for state in turns:
            pred = {}
            for slot, variants in state.items():
                roll = rng.random()
                if roll < error_rate / 2:
                    continue
                pred[slot] = rng.choice(VALUES) if roll < error_rate else variants[0]
            if rng.random() < error_rate / 3:
                pred[rng.choice(SLOTS)] = rng.choice(VALUES)
            predicted.append(pred)
        out.append(predicted)
    return out


def table_of(gold, preds, order=None) -> TurnTable:
    order = range(len(gold)) if order is None else order
    y_true, y_pred, ids = [], [], []
    for position, d in enumerate(order):
        dialogue_id, turns = gold[d]
        y_true += turns
        y_pred += preds[d]
        ids += [f"{dialogue_id}#{position}"] * len(turns)  # a repeated dialogue is a new one
    return turn_table(y_true, y_pred, dialogue_ids=ids)


@pytest.fixture(scope="module")
def corpus():
    gold = make_gold(60, seed=1)
    base = make_predictions(gold, 0.15, seed=2)
    system = make_predictions(gold, 0.25, seed=3)
    return gold, base, system


def rename(table: TurnTable) -> TurnTable:
    """The same table with ids as in the full corpus (``table_of`` suffixes positions)."""
    return TurnTable(table.columns, table.dialogue_index,
                     [d.split("#")[0] for d in table.dialogue_ids])


# ---- seeds ---------------------------------------------------------------------------
def test_seed_from_env_precedence_and_none():
    assert seed_from_env({}) == 12345
    assert seed_from_env({"SACREBLEU_SEED": "7"}) == 7
    assert seed_from_env({"SACREBLEU_SEED": "7", "DST_EVAL_SEED": "9"}) == 9
    assert seed_from_env({"SACREBLEU_SEED": "None"}) is None
    assert seed_from_env({"DST_EVAL_SEED": " ", "SACREBLEU_SEED": "3"}) == 3
    assert parse_seed("none") is None and parse_seed("0") == 0
    assert seed_label(None) == "none" and seed_label(12345) == "12345"
    for bad in ("abc", "-1", "1.5", str(2**63)):  # the --seed option's limits
        with pytest.raises(ValueError, match="seed"):
            parse_seed(bad)
    assert parse_seed(str(2**63 - 1)) == 2**63 - 1
    from dst_eval.metrics.resampling import MAX_SEED

    from dst_eval.options import MAX_SEED as OPTION_MAX_SEED

    assert MAX_SEED == OPTION_MAX_SEED


def test_resample_indices_reproducible_and_counts():
    a = resample_indices(50, 20, seed=7)
    assert a.shape == (20, 50) and a.min() >= 0 and a.max() < 50
    assert np.array_equal(a, resample_indices(50, 20, seed=7))
    assert not np.array_equal(a, resample_indices(50, 20, seed=8))
    counts = resample_counts(a, 50)
    assert counts.shape == (20, 50) and (counts.sum(axis=1) == 50).all()
    for j in (0, 13):
        assert counts[j].tolist() == np.bincount(a[j], minlength=50).tolist()
    assert resample_indices(5, 3, seed=None).shape == (3, 5)
    with pytest.raises(ValueError):
        resample_indices(0, 10, seed=1)


# ---- bootstrap CI --------------------------------------------------------------------
def test_estimate_ci_known_values():
    ci = estimate_ci(np.arange(100.0)[::-1])
    # lo = 100 // 40 = 2, hi = 100 - 2 - 1 = 97
    assert ci == {"mean": 49.5, "ci_low": 2.0, "ci_high": 97.0, "half_width": 47.5,
                  "resamples": 100}
    with_nan = estimate_ci(np.r_[np.arange(39.0), np.nan])
    assert with_nan["resamples"] == 39 and with_nan["ci_low"] == 0.0
    assert with_nan["ci_high"] == 38.0 and with_nan["mean"] == 19.0


def test_bootstrap_ci_equals_slow_reference(corpus):
    gold, base, _ = corpus
    table = table_of(gold, base)
    n_samples = 120
    fast = bootstrap_ci(table, METRICS, n_samples=n_samples, seed=42)
    indices = np.random.default_rng(42).choice(len(gold), size=(n_samples, len(gold)))
    slow = {m.name: [] for m in METRICS}
    for row in indices:  # rebuild each resampled corpus and score it from scratch
        resampled = table_of(gold, base, order=row)
        for metric in METRICS:
            slow[metric.name].append(metric.score(resampled))
    lo = n_samples // 40
    for metric in METRICS:
        scores = np.sort(slow[metric.name])
        got = fast[metric.name]
        assert got["score"] == pytest.approx(metric.score(table), abs=0)
        assert got["mean"] == pytest.approx(scores.mean(), abs=1e-12)
        assert got["ci_low"] == pytest.approx(scores[lo], abs=1e-12)
        assert got["ci_high"] == pytest.approx(scores[n_samples - lo - 1], abs=1e-12)
        assert got["half_width"] == pytest.approx(
            0.5 * (scores[n_samples - lo - 1] - scores[lo]), abs=1e-12)
        assert got["ci_low"] <= got["mean"] <= got["ci_high"]


def test_bootstrap_ci_seeded_reproducible(corpus):
    gold, base, _ = corpus
    table = table_of(gold, base)
    first = bootstrap_ci(table, METRICS[:3], n_samples=300, seed=5)
    assert first == bootstrap_ci(table, METRICS[:3], n_samples=300, seed=5)
    other = bootstrap_ci(table, METRICS[:3], n_samples=300, seed=6)
    assert other["joint_goal_accuracy"]["mean"] != first["joint_goal_accuracy"]["mean"]
    assert other["joint_goal_accuracy"]["score"] == first["joint_goal_accuracy"]["score"]


def test_bootstrap_ci_width_shrinks_with_more_dialogues():
    small = make_gold(30, seed=11)
    large = make_gold(600, seed=11)
    jga = [JointGoalAccuracy()]
    width = [bootstrap_ci(table_of(g, make_predictions(g, 0.2, seed=4)), jga)
             ["joint_goal_accuracy"]["half_width"] for g in (small, large)]
    assert 2.5 < width[0] / width[1] < 7  # ~ sqrt(20) = 4.5


def test_undefined_resamples_are_left_out():
    # RSA (exclude empty turns) is undefined on a resample drawing only empty dialogues
    gold = [("E0", [{}]), ("E1", [{}]), ("F", [{"hotel-area": ("a",)}])]
    preds = [[{}], [{}], [{"hotel-area": "a"}]]
    table = table_of(gold, preds)
    result = bootstrap_ci(table, [RelativeSlotAccuracy()], n_samples=400, seed=1)
    ci = result["relative_slot_accuracy"]
    drawn_f = (resample_indices(3, 400, seed=1) == 2).any(axis=1).sum()
    assert ci["resamples"] == drawn_f < 400
    assert ci["mean"] == 1.0 and ci["score"] == 1.0


def test_bootstrap_ci_errors(corpus):
    gold, base, _ = corpus
    table = table_of(gold, base)
    with pytest.raises(ValueError, match="at least 2"):
        bootstrap_ci(table, METRICS, n_samples=1)
    with pytest.raises(ValueError, match="unique"):
        bootstrap_ci(table, [JointGoalAccuracy(), JointGoalAccuracy()])
    with pytest.raises(ValueError, match="no column 'req_tp'"):
        bootstrap_ci(table, dst_metrics(requested=True))


# ---- paired tests --------------------------------------------------------------------
def p_value(statistics: np.ndarray, delta: float, *, ties: bool = True) -> float:
    """(#{x >= |Δ|} + 1) / (N + 1), ties up to float noise; sacrebleu's x > |Δ| without ties."""
    extreme = [x > abs(delta) or (ties and abs(x - abs(delta)) <= 1e-12) for x in statistics]
    return (sum(extreme) + 1) / (len(statistics) + 1)


def test_paired_bootstrap_equals_slow_reference(corpus):
    gold, base, system = corpus
    n_samples = 100
    fast = paired_bootstrap(table_of(gold, base), table_of(gold, system), METRICS,
                            n_samples=n_samples, seed=9)
    indices = np.random.default_rng(9).choice(len(gold), size=(n_samples, len(gold)))
    resampled = [(table_of(gold, base, row), table_of(gold, system, row)) for row in indices]
    for metric in METRICS:
        real_base = metric.score(table_of(gold, base))
        real_sys = metric.score(table_of(gold, system))
        deltas = np.array([abs(metric.score(s) - metric.score(b)) for b, s in resampled])
        got = fast[metric.name]
        assert got["baseline"] == real_base and got["system"] == real_sys
        assert got["delta"] == pytest.approx(real_sys - real_base, abs=0)
        assert got["p_value"] == pytest.approx(p_value(deltas - deltas.mean(),
                                                       real_sys - real_base), abs=0)
        sys_scores = np.sort([metric.score(s) for _, s in resampled])
        assert got["system_ci"]["mean"] == pytest.approx(sys_scores.mean(), abs=1e-12)


def test_approximate_randomisation_equals_slow_reference(corpus):
    gold, base, _ = corpus
    system = make_predictions(gold, 0.2, seed=6)  # close to the baseline: ties occur
    n_trials = 80
    tables = table_of(gold, base), table_of(gold, system)
    fast = approximate_randomisation(*tables, METRICS, n_trials=n_trials, seed=3)
    strict = approximate_randomisation(*tables, METRICS, n_trials=n_trials, seed=3,
                                       ties="exclude")
    mask = np.random.default_rng(3).integers(2, size=(n_trials, len(gold)), dtype=bool)
    pseudo = []
    for row in mask:  # A takes the baseline's dialogue where the mask is set, B the system's
        a = [base[d] if row[d] else system[d] for d in range(len(gold))]
        b = [system[d] if row[d] else base[d] for d in range(len(gold))]
        pseudo.append((table_of(gold, a), table_of(gold, b)))
    ties_seen = 0
    for metric in METRICS:
        delta = metric.score(table_of(gold, system)) - metric.score(table_of(gold, base))
        stats = np.array([abs(metric.score(a) - metric.score(b)) for a, b in pseudo])
        got = fast[metric.name]
        assert got["delta"] == pytest.approx(delta, abs=1e-15)
        assert got["trials"] == n_trials
        assert got["p_value"] == pytest.approx(p_value(stats, delta), abs=0), metric.name
        assert strict[metric.name]["p_value"] == pytest.approx(
            p_value(stats, delta, ties=False), abs=0), metric.name
        ties_seen += strict[metric.name]["p_value"] < got["p_value"]
    assert ties_seen  # the discrete metrics do produce exact ties


def test_identical_systems_p_one(corpus):
    gold, base, _ = corpus
    a, b = table_of(gold, base), table_of(gold, [list(t) for t in base])
    for result in (paired_bootstrap(a, b, METRICS), approximate_randomisation(a, b, METRICS)):
        for metric in METRICS:
            assert result[metric.name]["delta"] == 0
            assert result[metric.name]["p_value"] == 1.0
    # sacrebleu's strict '>' makes identical systems "significant": p = 1 / (N + 1)
    bs = paired_bootstrap(a, b, METRICS, n_samples=500, ties="exclude")
    ar = approximate_randomisation(a, b, METRICS, n_trials=999, ties="exclude")
    assert bs["joint_goal_accuracy"]["p_value"] == 1 / 501
    assert ar["joint_goal_accuracy"]["p_value"] == 1 / 1000


def test_one_turn_difference_not_significant(corpus):
    gold, base, _ = corpus
    nearly = [list(turns) for turns in base]
    nearly[0][0] = {"hotel-area": "z"}  # one turn of one dialogue made wrong
    a, b = table_of(gold, base), table_of(gold, nearly)
    jga = [JointGoalAccuracy()]
    bs = paired_bootstrap(a, b, jga)["joint_goal_accuracy"]
    assert bs["delta"] == pytest.approx(-1 / len(a)) and bs["p_value"] > 0.05
    # every swap moves the one differing turn, so |A - B| = |Δ| in every trial: a tie
    assert approximate_randomisation(a, b, jga)["joint_goal_accuracy"]["p_value"] == 1.0
    strict = approximate_randomisation(a, b, jga, n_trials=999, ties="exclude")
    assert strict["joint_goal_accuracy"]["p_value"] == 1 / 1000  # sacrebleu's rule


def test_one_dialogue_difference_with_fractional_sums_is_a_tie(corpus):
    """AGA sums fractions: a swap of the one differing dialogue gives |Δ| up to a rounding
    residue (±1e-16), which is a tie under both rules, never "greater" (an audit found p
    0.50 under ties="exclude" where sacrebleu's rule gives 1/(N + 1))."""
    from dst_eval.metrics.aga import AverageGoalAccuracy

    gold, base, _ = corpus
    emptied = [list(turns) for turns in base]
    emptied[7] = [{} for _ in emptied[7]]  # every state of one dialogue emptied
    a, b = table_of(gold, base), table_of(gold, emptied)
    aga = [AverageGoalAccuracy()]
    strict = approximate_randomisation(a, b, aga, n_trials=999, ties="exclude")
    assert strict["average_goal_accuracy"]["p_value"] == 1 / 1000
    assert approximate_randomisation(a, b, aga, n_trials=999)[
        "average_goal_accuracy"]["p_value"] == 1.0


def test_heavily_corrupted_copy_is_significant(corpus):
    gold, base, _ = corpus
    corrupted = make_predictions(gold, 0.9, seed=8)
    a, b = table_of(gold, base), table_of(gold, corrupted)
    bs = paired_bootstrap(a, b, METRICS)
    ar = approximate_randomisation(a, b, METRICS)
    for name in ("joint_goal_accuracy", "slot_f1", "average_goal_accuracy",
                 "flexible_goal_accuracy@0.5"):
        assert bs[name]["delta"] < -0.3
        assert bs[name]["p_value"] < 0.01 and ar[name]["p_value"] < 0.01


def test_paired_tests_reject_unpaired_tables(corpus):
    gold, base, system = corpus
    a = table_of(gold, base)
    shorter = table_of(gold[:-1], system[:-1])
    reordered = rename(table_of(gold, system, order=[1, 0, *range(2, len(gold))]))
    other_gold = [(i, [dict(s, **{"taxi-day": ("z",)}) for s in turns]) for i, turns in gold]
    for fn in (paired_bootstrap, approximate_randomisation):
        with pytest.raises(ValueError, match="different turns"):
            fn(a, shorter, METRICS)
        with pytest.raises(ValueError, match="different dialogues.*D000.*D001"):
            fn(rename(a), reordered, METRICS)
        with pytest.raises(ValueError, match="different gold states"):
            fn(a, table_of(other_gold, system), METRICS)
        with pytest.raises(ValueError, match="ties"):
            fn(a, a, METRICS, ties="maybe")


# ---- BLEU through the same machinery -------------------------------------------------
WORDS = ["the", "a", "cat", "dog", "sat", "on", "mat", "barks", "at", "night", "hello",
         "there", "my", "friend", "we", "go", "home", "now"]


@pytest.fixture(scope="module")
def bleu_corpus():
    rng = random.Random(0)
    refs = [" ".join(rng.choices(WORDS, k=rng.randint(3, 12))) for _ in range(150)]

    def noisy(q: float) -> list[str]:
        return [" ".join(w if rng.random() > q else rng.choice(WORDS) for w in r.split())
                for r in refs]

    return refs, noisy(0.3), noisy(0.36)


def test_bleu_metric_equals_sacrebleu_full_and_resample(bleu_corpus):
    refs, hyps, _ = bleu_corpus
    dialogue_ids = [f"d{i // 3}" for i in range(len(refs))]  # 3 segments per dialogue
    table = bleu_table(segment_statistics(hyps, refs), dialogue_ids)
    metric = BleuMetric()
    assert metric.score(table) == pytest.approx(BLEU().corpus_score(hyps, [refs]).score,
                                                abs=1e-12)
    row = resample_indices(50, 1, seed=4)[0]
    segments = [3 * d + k for d in row for k in range(3)]
    expected = BLEU().corpus_score([hyps[i] for i in segments], [[refs[i] for i in segments]])
    sums = {c: float(table.dialogue_sums(metric.columns)[c][row].sum()) for c in metric.columns}
    assert metric.from_sums(sums) == pytest.approx(expected.score, abs=1e-12)


def test_bleu_segment_bootstrap_reproduces_sacrebleu(bleu_corpus, monkeypatch):
    refs, hyps, _ = bleu_corpus
    table = bleu_table(segment_statistics(hyps, refs), [str(i) for i in range(len(refs))])
    monkeypatch.setenv("SACREBLEU_SEED", "777")
    expected = BLEU().corpus_score(hyps, [refs], n_bootstrap=1000)
    got = bootstrap_ci(table, [BleuMetric()], n_samples=1000, seed=seed_from_env())["bleu"]
    assert got["score"] == pytest.approx(expected.score, abs=1e-12)
    # sacrebleu sums float32 statistics, hence the tolerance
    assert got["mean"] == pytest.approx(expected._mean, abs=1e-5)
    assert got["half_width"] == pytest.approx(expected._ci, abs=1e-5)


@pytest.mark.parametrize("test_type", ["bs", "ar"])
def test_bleu_segment_paired_tests_reproduce_sacrebleu(bleu_corpus, test_type):
    refs, hyps, hyps2 = bleu_corpus
    ids = [str(i) for i in range(len(refs))]
    base = bleu_table(segment_statistics(hyps, refs), ids)
    system = bleu_table(segment_statistics(hyps2, refs), ids)
    n = 1000 if test_type == "bs" else 3000
    _, scores = PairedTest([("base", hyps), ("sys", hyps2), ("same", list(hyps))],
                           {"BLEU": BLEU()}, [refs], test_type=test_type, n_samples=n)()
    if test_type == "bs":
        got = paired_bootstrap(base, system, [BleuMetric()], n_samples=n)["bleu"]
        assert got["system_ci"]["half_width"] == pytest.approx(scores["BLEU"][1].ci, abs=1e-5)
        same = paired_bootstrap(base, base, [BleuMetric()], n_samples=n, ties="exclude")["bleu"]
    else:
        got = approximate_randomisation(base, system, [BleuMetric()], n_trials=n)["bleu"]
        same = approximate_randomisation(base, base, [BleuMetric()], n_trials=n,
                                         ties="exclude")["bleu"]
    assert got["system"] == pytest.approx(scores["BLEU"][1].score, abs=1e-12)
    assert 0.001 < got["p_value"] < 0.5  # a real, non-trivial p-value
    assert got["p_value"] == scores["BLEU"][1].p_value
    assert same["p_value"] == scores["BLEU"][2].p_value


_BLAS_PROBE = """
import hashlib, numpy as np
from dst_eval.metrics import dst_metrics, turn_table
from dst_eval.metrics.resampling import approximate_randomisation, bootstrap_ci
rng = np.random.default_rng(0)
ids = [f"d{i // 3}" for i in range(7500)]
gold = [{"hotel-area": ("north",)} for _ in ids]
base = turn_table(gold, [{"hotel-area": "north" if rng.random() < 0.8 else "x"} for _ in ids],
                  dialogue_ids=ids)
other = turn_table(gold, [{"hotel-area": "north" if rng.random() < 0.7 else "x"} for _ in ids],
                   dialogue_ids=ids)
out = [bootstrap_ci(base, dst_metrics(), n_samples=1000, seed=3),
       approximate_randomisation(base, other, dst_metrics(), n_trials=1000, seed=3)]
print(hashlib.sha256(repr(out).encode()).hexdigest())
"""


def test_intervals_do_not_depend_on_the_blas_thread_count():
    """Resample sums are numpy's own loops, not a BLAS product, whose last bits depend on
    its thread count: an interval is the same in the command (one BLAS thread) and in any
    process (2,500 dialogues, 1,000 resamples: a BLAS product differs here)."""
    import os
    import subprocess
    import sys

    digests = set()
    for threads in ("1", "2"):
        env = {**os.environ, "OPENBLAS_NUM_THREADS": threads, "MKL_NUM_THREADS": threads,
               "OMP_NUM_THREADS": threads}
        digests.add(subprocess.run([sys.executable, "-c", _BLAS_PROBE], env=env, check=True,
                                   capture_output=True, text=True).stdout)
    assert len(digests) == 1
