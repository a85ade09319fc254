"""Wall time of a full CrossWOZ test DST evaluation (goal: under 1 s).

One run = load the gold (``test.json.zip``, 500 dialogues, 4,238 user turns), read an
mwzeval-style prediction file (the gold fed back with every 7th turn corrupted), align,
and score with one profile -- what ``dst-eval preds.json --gold test.json.zip`` does
minus printing. Each stage is timed separately; the best of ``--repeat`` runs is shown
(the first run also pays the imports and the config/tokenizer caches). CPU time is shown
too: on a busy machine it is the steadier number.

    python benchmarks/bench_crosswoz.py --gold ../shared/corpora/crosswoz/test.json.zip
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from dst_eval.alignment import align
from dst_eval.corpora.crosswoz import loader as crosswoz
from dst_eval.options import EvalOptions
from dst_eval.predictions.reader import read_predictions
from dst_eval.profiles import get_profile

DEFAULT_GOLD = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "crosswoz" / \
    "test.json.zip"


def write_predictions(gold_path: Path, out: Path) -> None:
    gold = crosswoz.load(gold_path)
    data: dict[str, list] = {}
    for row, turn in enumerate(gold.turns()):
        state: dict[str, dict[str, str]] = {}
        for key, values in turn.state.items():
            domain, _, slot = key.partition("-")
            state.setdefault(domain, {})[slot] = values[0]
        if row % 7 == 6 and state:
            domain = sorted(state)[0]
            state[domain].pop(sorted(state[domain])[0])
        data.setdefault(turn.dialogue_id, []).append({"state": state})
    out.write_text(json.dumps(data, ensure_ascii=False), "utf-8")


def run_once(gold_path: Path, pred_path: Path, profile: str) -> dict[str, float]:
    times = {}
    cpu_start = time.process_time()
    start = time.perf_counter()
    gold = crosswoz.load(gold_path)
    times["load_gold"] = time.perf_counter() - start
    mark = time.perf_counter()
    predictions = read_predictions(pred_path, corpus="crosswoz")
    times["read_predictions"] = time.perf_counter() - mark
    mark = time.perf_counter()
    alignment = align(gold, predictions)
    times["align"] = time.perf_counter() - mark
    mark = time.perf_counter()
    result = get_profile(profile, "crosswoz")(alignment, EvalOptions())
    times["score"] = time.perf_counter() - mark
    times["total"] = time.perf_counter() - start
    times["cpu"] = time.process_time() - cpu_start
    times["joint_goal_accuracy"] = result.scores["joint_goal_accuracy"]
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", type=Path, default=DEFAULT_GOLD)
    parser.add_argument("--profiles", default="strict,trade,convlab")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    if not args.gold.is_file():
        print(f"CrossWOZ test file not found: {args.gold}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        pred_path = Path(tmp) / "predictions.json"
        write_predictions(args.gold, pred_path)
        for profile in args.profiles.split(","):
            runs = [run_once(args.gold, pred_path, profile) for _ in range(args.repeat)]
            best = min(runs, key=lambda r: r["total"])
            stages = "  ".join(f"{k} {best[k]:.3f}s" for k in
                               ("load_gold", "read_predictions", "align", "score"))
            print(f"{profile:8s} total {best['total']:.3f}s, cpu {best['cpu']:.3f}s (best of "
                  f"{args.repeat}; first {runs[0]['total']:.3f}s)  {stages}  "
                  f"JGA {best['joint_goal_accuracy']:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
