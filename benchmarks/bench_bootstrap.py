"""Speed of dialogue-level bootstrap CIs and paired tests on MultiWOZ 2.1 test (goal: CIs < 1 s).

Gold: ``<shared>/corpora/multiwoz21/test.json.zip`` (1,000 dialogues, 7,372 turns), shared
folder from ``$DST_EVAL_SHARED`` or ``../shared``. Predictions: the gold states with a
deterministic corruption (a slot dropped in every 4th turn, a value changed in every 7th, an
extra slot in every 9th) scored by the strict profile; a second, more corrupted system for
the paired tests. Timed (best and median of ``--repeats``), on the profile's TurnTable:

- ``bootstrap_ci``: 1,000 dialogue resamples of every strict DST metric (the goal);
- ``paired_bootstrap``: 1,000 resamples, both systems, every metric;
- ``approximate_randomisation``: 10,000 dialogue-swap trials, every metric.

    python benchmarks/bench_bootstrap.py [--repeats 5] [--n 1000] [--trials 10000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dst_eval.metrics.resampling import approximate_randomisation, bootstrap_ci, paired_bootstrap

from dst_eval.api import evaluate
from dst_eval.corpora import load_gold
from dst_eval.gold import GoldSet, dialogue_key
from dst_eval.slotkeys import split_slot_key

ROOT = Path(__file__).resolve().parent.parent


def shared_dir() -> Path:
    return Path(os.environ.get("DST_EVAL_SHARED", ROOT.parent / "shared")).resolve()


def corrupted_predictions(gold: GoldSet, *, every: tuple[int, int, int]) -> dict[str, list]:
    """Gold states (first variant) with slot drops / value changes / extra slots every k-th turn."""
    drop, change, extra = every
    predictions: dict[str, list] = {}
    row = 0
    for dialogue in gold:
        turns = []
        for turn in dialogue.turns:
            state = {key: variants[0] for key, variants in sorted(turn.state.items())}
            keys = list(state)
            if keys and row % drop == 0:
                del state[keys[0]]
            if keys and row % change == 0:
                state[keys[-1]] = "corrupted value"
            if row % extra == 0:
                state["hotel-parking"] = "yes"
            nested: dict[str, dict[str, str]] = {}
            for key, value in state.items():
                domain, slot = split_slot_key(key)
                nested.setdefault(domain, {})[slot] = value
            turns.append({"state": nested})
            row += 1
        predictions[dialogue_key(dialogue.dialogue_id)] = turns
    return predictions


def timed(fn: Callable[[], Any], repeats: int) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n", type=int, default=1000, help="bootstrap resamples")
    parser.add_argument("--trials", type=int, default=10000, help="AR trials")
    args = parser.parse_args()

    path = shared_dir() / "corpora" / "multiwoz21" / "test.json.zip"
    start = time.perf_counter()
    gold = load_gold(path, corpus="multiwoz21", split="test")
    print(f"gold loaded in {time.perf_counter() - start:.2f} s: {len(gold.dialogues)} dialogues")
    base = evaluate(corrupted_predictions(gold, every=(4, 7, 9)), gold=gold)
    system = evaluate(corrupted_predictions(gold, every=(3, 5, 6)), gold=gold)
    table, metrics = base.table, base.metric_objects
    print(f"{len(table)} turns, {len(table.dialogue_ids)} dialogues, {len(metrics)} metrics: "
          f"{', '.join(m.name for m in metrics)}")

    cis = bootstrap_ci(table, metrics, n_samples=args.n)
    best, median = timed(lambda: bootstrap_ci(table, metrics, n_samples=args.n), args.repeats)
    jga = cis["joint_goal_accuracy"]
    print(f"bootstrap_ci, {args.n} dialogue resamples x {len(metrics)} metrics: "
          f"best {best:.3f} s, median {median:.3f} s (goal < 1 s) -- JGA "
          f"{100 * jga['score']:.2f} (μ = {100 * jga['mean']:.2f} ± "
          f"{100 * jga['half_width']:.2f})")

    tests = {
        f"paired_bootstrap ({args.n} resamples)": lambda: paired_bootstrap(
            table, system.table, metrics, n_samples=args.n),
        f"approximate_randomisation ({args.trials} trials)": lambda: approximate_randomisation(
            table, system.table, metrics, n_trials=args.trials),
    }
    for label, fn in tests.items():
        result = fn()["joint_goal_accuracy"]
        best, median = timed(fn, args.repeats)
        print(f"{label}: best {best:.3f} s, median {median:.3f} s -- JGA "
              f"{100 * result['baseline']:.2f} vs {100 * result['system']:.2f}, "
              f"p = {result['p_value']:.4g}")


if __name__ == "__main__":
    main()
