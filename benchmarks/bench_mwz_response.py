"""Speed of MultiWOZ response scoring (Inform, Success, BLEU, richness) on the 15 mwzeval files.

All 15 prediction files of ``<shared>/reference/mwzeval/predictions`` are scored in ONE
process with the mwzeval-compatible settings (``compat=True, missing="skip"``) against gold
derived from ``<shared>/corpora/multiwoz21/test.json.zip`` and ``db/`` (shared folder from
``$DST_EVAL_SHARED`` or ``../shared``). Per file: wall time of reading the JSON + scoring.
The gold (goals, booked domains, references, states, DB) is loaded once per process; its
time is reported separately and also spread over the files (``amortised``).

Every number is checked against ``reference_outputs.json`` (mwzeval 7f19ee0): BLEU to 1e-9,
Inform/Success per domain exactly, richness to 1e-12; the script exits 1 on any difference.

The anchor (mwzeval, one ``Evaluator`` per file) needs 10.6-22.6 s per file on this machine
(94 % of it in uncached linear DB scans); the goal is >= 20x faster per file. Each repeat
runs in a fresh subprocess (cold caches); the per-file minimum over repeats is reported.

    python benchmarks/bench_mwz_response.py [--repeats 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANCHOR_SECONDS = (10.6, 22.6)
SPEEDUP_GOAL = 20.0


def shared_dir() -> Path:
    return Path(os.environ.get("DST_EVAL_SHARED", ROOT.parent / "shared")).resolve()


def run_once() -> dict:
    """One cold process: load gold, score the 15 files, check numbers; timings in seconds."""
    from dst_eval.corpora.multiwoz.engine import load_response_gold, score_responses
    from dst_eval.errors import PredictionError
    from dst_eval.jsonio import read_json

    shared = shared_dir()
    corpus = shared / "corpora" / "multiwoz21"
    mwzeval = shared / "reference" / "mwzeval"
    expected = json.loads((mwzeval / "reference_outputs.json").read_text())["systems"]

    start = time.perf_counter()
    gold = load_response_gold(corpus / "test.json.zip", corpus / "db")
    gold_seconds = time.perf_counter() - start

    files, mismatches = {}, []
    for name in sorted(expected):
        start = time.perf_counter()
        cpu = time.process_time()
        predictions = read_json(mwzeval / "predictions" / f"{name}.json", error=PredictionError)
        result = score_responses(gold, predictions, compat=True, missing="skip")
        files[name] = {"wall": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                       "turns": result["counts"]["turns_predicted"]}
        mismatches += [f"{name}: {m}" for m in _compare(result["official"], expected[name])]
    return {"gold_load": gold_seconds, "files": files, "mismatches": mismatches}


def _compare(official: dict, expected: dict) -> list[str]:
    problems = []
    if abs(official["bleu"]["mwz22"] - expected["bleu"]) > 1e-9:
        problems.append(f"bleu {official['bleu']['mwz22']} != {expected['bleu']}")
    if official["success"]["inform"] != expected["inform_dom"]:
        problems.append(f"inform {official['success']['inform']} != {expected['inform_dom']}")
    if official["success"]["success"] != expected["success_dom"]:
        problems.append(f"success {official['success']['success']} != {expected['success_dom']}")
    for key, value in expected["richness"].items():
        if abs(official["richness"][key] - value) > 1e-12 * max(1.0, abs(value)):
            problems.append(f"{key} {official['richness'][key]} != {value}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes (default 3)")
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_once()))
        return 0

    runs = []
    for _ in range(args.repeats):
        out = subprocess.run([sys.executable, __file__, "--child"], capture_output=True,
                             text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    mismatches = sorted({m for run in runs for m in run["mismatches"]})
    gold_load = min(run["gold_load"] for run in runs)
    names = sorted(runs[0]["files"])
    best = {n: min(run["files"][n]["wall"] for run in runs) for n in names}
    cpu = {n: min(run["files"][n]["cpu"] for run in runs) for n in names}
    amortised = gold_load / len(names)

    print(f"gold load (once per process): {gold_load:.2f} s "
          f"= {amortised:.2f} s per file amortised over {len(names)} files")
    print(f"{'system':15s} {'turns':>6s} {'wall s':>7s} {'cpu s':>7s} {'+gold s':>8s} "
          f"{'x vs 10.6 s':>11s} {'x vs 22.6 s':>11s}")
    for name in names:
        total = best[name] + amortised
        print(f"{name:15s} {runs[0]['files'][name]['turns']:6d} {best[name]:7.2f} "
              f"{cpu[name]:7.2f} {total:8.2f} {ANCHOR_SECONDS[0] / total:11.1f} "
              f"{ANCHOR_SECONDS[1] / total:11.1f}")
    mean = sum(best.values()) / len(names) + amortised
    worst = max(best.values()) + amortised
    print(f"mean per file {mean:.2f} s (incl. gold), worst {worst:.2f} s; speed-up vs the "
          f"anchor's 10.6-22.6 s per file: {ANCHOR_SECONDS[0] / mean:.0f}-"
          f"{ANCHOR_SECONDS[1] / mean:.0f}x on average, >= {ANCHOR_SECONDS[0] / worst:.0f}x "
          f"for every file (goal {SPEEDUP_GOAL:.0f}x)")
    mean_cpu = sum(cpu.values()) / len(names) + amortised
    print(f"mean CPU time per file {mean_cpu:.2f} s (incl. gold): "
          f"{ANCHOR_SECONDS[0] / mean_cpu:.0f}-{ANCHOR_SECONDS[1] / mean_cpu:.0f}x "
          "(wall time suffers most when other processes share the CPUs)")
    print(f"total for 15 files in one process: {gold_load + sum(best.values()):.1f} s; "
          f"load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print("numbers identical to reference_outputs.json" if not mismatches
          else "MISMATCHES:\n" + "\n".join(mismatches))
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "best_wall": best, "best_cpu": cpu,
                                         "gold_load": gold_load}, indent=1))
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
