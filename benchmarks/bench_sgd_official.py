"""SGD dev, ``sgd-official`` profile: wall time and peak memory of load + read + score.

Reference: the official scorer (google-research ``schema_guided_dst/evaluate.py``) takes
10.6-15.7 s and 355 MB peak RSS on SGD dev on this machine. Goal (issue 2): at least
15x faster, at most half the memory.

Predictions are ``make_corrupt.py --mode drop --every 5`` (the reference outputs'
recipe), written to a temporary directory unless ``--pred`` names one. Each repetition
runs in a fresh process, so interpreter start, imports and parsing are counted as in a
user's ``dst-eval`` run. Runs:

* ``evaluate()``: :func:`dst_eval.evaluate`, what the CLI calls;
* ``chain``: ``load_gold`` + ``read_predictions`` + ``align`` + the profile, nothing else;

each with a warm gold cache (the normal case after the first run) and without it
(``DST_EVAL_NO_CACHE=1``), and with one worker process (the default) or none
(``DST_EVAL_WORKERS=1``); "GC off" runs the chain with the cyclic garbage collector
disabled, what a short-lived CLI process can afford (the ~1M gold and prediction objects
are acyclic, yet each collection re-scans them). CPU = user + sys of the process and its
worker, less sensitive than wall time to other load on the machine. Peak RSS is ``ru_maxrss`` of the
main process; the worker's own peak (it parses the prediction files: half of them in
the chain, most of them in ``evaluate()``, which starts it before loading the gold) is shown
apart -- the two overlap in time, so their sum bounds the footprint from above (it counts
the pages they share twice).

    python benchmarks/bench_sgd_official.py [--shared ../shared] [--repeat 5] [--pred DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OFFICIAL_SECONDS = (10.6, 15.7)
OFFICIAL_MB = 355.0

CHILD_EVALUATE = """
import json, resource, sys, time
t0 = time.perf_counter()
from dst_eval import evaluate
report = evaluate(sys.argv[1], gold=sys.argv[2], corpus="sgd", profile="sgd-official")
t1 = time.perf_counter()
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps([t1 - t0, report.scores["joint_goal_accuracy"], own, worker]))
"""

CHILD_CHAIN = """
import gc, json, os, resource, sys, time
t0 = time.perf_counter()
if os.environ.get("BENCH_GC_OFF") == "1":
    gc.disable()
from dst_eval.alignment import align
from dst_eval.loaders import load_gold
from dst_eval.options import EvalOptions
from dst_eval.profiles import get_profile
from dst_eval.reader import read_predictions
gold = load_gold(sys.argv[2], corpus="sgd")
predictions = read_predictions(sys.argv[1], corpus="sgd")
result = get_profile("sgd-official", "sgd")(align(gold, predictions), EvalOptions())
t1 = time.perf_counter()
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps([t1 - t0, result.scores["joint_goal_accuracy"], own, worker]))
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(code: str, pred: Path, gold: Path, env: dict[str, str]) -> tuple[float, float, list]:
    """Wall seconds, CPU seconds (user + sys, worker included) and the child's report."""
    cpu, start = _children_cpu(), time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, str(pred), str(gold)], check=True,
                         capture_output=True, text=True, env=env).stdout
    return time.perf_counter() - start, _children_cpu() - cpu, json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared",
                        default=os.environ.get("DST_EVAL_SHARED", ROOT.parent / "shared"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--pred", type=Path, help="SGD-style prediction directory")
    args = parser.parse_args()
    shared = Path(args.shared)
    gold = shared / "corpora" / "sgd" / "dev"
    with tempfile.TemporaryDirectory() as tmp:
        pred = args.pred
        if pred is None:
            pred = Path(tmp) / "pred"
            subprocess.run([sys.executable, str(shared / "reference" / "sgd_official" /
                                                "make_corrupt.py"), str(gold), str(pred),
                            "--mode", "drop", "--every", "5"], check=True, capture_output=True)
        cache = Path(tmp) / "cache"
        # bytecode cached as in any normal installation (under tmp, not in the source tree)
        base = {**os.environ, "XDG_CACHE_HOME": str(cache),
                "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")}
        for name in ("DST_EVAL_NO_CACHE", "DST_EVAL_WORKERS", "PYTHONDONTWRITEBYTECODE"):
            base.pop(name, None)
        run(CHILD_EVALUATE, pred, gold, base)  # compiles the modules
        run(CHILD_CHAIN, pred, gold, base)  # fills the gold cache
        configs = [
            ("evaluate(), warm cache", CHILD_EVALUATE, {}),
            ("chain, warm cache", CHILD_CHAIN, {}),
            ("chain, no cache", CHILD_CHAIN, {"DST_EVAL_NO_CACHE": "1"}),
            ("chain, warm cache, no worker", CHILD_CHAIN, {"DST_EVAL_WORKERS": "1"}),
            ("chain, no cache, no worker", CHILD_CHAIN,
             {"DST_EVAL_NO_CACHE": "1", "DST_EVAL_WORKERS": "1"}),
            ("chain, warm cache, GC off", CHILD_CHAIN, {"BENCH_GC_OFF": "1"}),
        ]
        print(f"SGD dev, sgd-official, predictions {pred} ({args.repeat} runs each; "
              f"official scorer: {OFFICIAL_SECONDS[0]}-{OFFICIAL_SECONDS[1]} s, "
              f"{OFFICIAL_MB:.0f} MB)")
        for label, code, extra in configs:
            outer, cpu, inner, own, worker = [], [], [], [], []
            jga = None
            for _ in range(args.repeat):
                seconds, cpu_seconds, (call, jga, own_mb, worker_mb) = run(
                    code, pred, gold, {**base, **extra})
                outer.append(seconds)
                cpu.append(cpu_seconds)
                inner.append(call)
                own.append(own_mb)
                worker.append(worker_mb)
            best, median = min(outer), statistics.median(outer)
            print(f"  {label:32s} process wall best {best:.3f} s, median {median:.3f} s "
                  f"(call {min(inner):.3f} s, CPU {min(cpu):.3f} s); "
                  f"{OFFICIAL_SECONDS[0] / best:.1f}x-{OFFICIAL_SECONDS[1] / best:.1f}x faster; "
                  f"peak RSS {max(own):.0f} MB ({OFFICIAL_MB / max(own):.1f}x less) + worker "
                  f"{max(worker):.0f} MB; JGA {jga:.6f}")


if __name__ == "__main__":
    main()
