"""Run every benchmark job and print one Markdown table (plus per-job details).

    python benchmarks/run.py [--quick] [--dry-run] [--rounds N] [--jobs 1,2,3,4,5]
                             [--workdir DIR] [--output FILE]

Jobs: 1 SGD dev vs the official scorer, 2 mwzeval (15 files x seeds 0-4), 3 MultiWOZ 2.1
strict end to end, 4 synthetic SGD scale (10k/100k/1M user turns), 5 CrossWOZ convlab vs
ConvLab-3, 6 hostile-input bombs (peak RSS < 300 MB). Targets are printed with PASS/FAIL;
a miss never makes the script fail (a failing *command* does: exit 1 naming it). See
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path

import bench_bombs
import bench_convlab_crosswoz
import bench_multiwoz_strict
import bench_mwzeval
import bench_sgd_dev
import bench_sgd_scale
from harness import ROOT, Bench, BenchError, JobReport, markdown_table, parse_args

JOBS = {"1": bench_sgd_dev.run, "2": bench_mwzeval.run, "3": bench_multiwoz_strict.run,
        "4": bench_sgd_scale.run, "5": bench_convlab_crosswoz.run, "6": bench_bombs.run}


def context(bench: Bench) -> str:
    """Machine, load and code version: the table is only meaningful with them."""
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC · code {commit} · "
            f"{platform.python_implementation()} {platform.python_version()} · "
            f"{os.cpu_count()} CPUs · load average {load} · dst-eval {bench.dst_eval} · anchors "
            f"{bench.anchors}{' · QUICK mode' if bench.quick else ''}")


PROBE = "sum(i * i for i in range(4_000_000))"
"""A fixed CPU-bound workload, timed in a fresh interpreter at the start and the end of a run:
the host's speed at that time (walls of the same binary drift by 10-60 % on a shared VM)."""


def host_probe() -> str:
    """Median wall of three runs of :data:`PROBE` (interpreter start included)."""
    walls = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", PROBE], check=True)
        walls.append(time.perf_counter() - start)
    return f"{sorted(walls)[1]:.3f} s"


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # so that temporary inputs are deleted


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _terminate)
    args = parse_args(__doc__.splitlines()[0], argv)
    extra = argparse.ArgumentParser()
    extra.add_argument("--jobs", default=",".join(JOBS))
    extra.add_argument("--output", type=Path, help="also write the Markdown here")
    more = extra.parse_known_args(argv)[0]
    try:
        bench = Bench(quick=args.quick, dry_run=args.dry_run, rounds=args.rounds,
                      workdir=args.workdir, options=vars(args))
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.dry_run:
        print(f"# dry run: commands (dst-eval = {bench.dst_eval}; every child gets "
              f"PYTHONPYCACHEPREFIX={bench.pycache}, ANCHORS_HOME={bench.anchors}, no "
              "PYTHONDONTWRITEBYTECODE/DST_EVAL_*; dst-eval cold runs a fresh empty "
              "XDG_CACHE_HOME each)")
    header = context(bench)
    probe_before = "" if args.dry_run else host_probe()
    start = time.perf_counter()
    reports: list[JobReport] = []
    try:
        for key in more.jobs.split(","):
            reports.append(JOBS[key.strip()](bench))
            if not args.dry_run:  # partial results survive an interrupted run
                bench.log(markdown_table(reports[-1].rows))
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        bench.cleanup()
    if args.dry_run:
        return 0
    rows = [row for report in reports for row in report.rows]
    took = time.perf_counter() - start
    probe = f" · host probe ({PROBE}) {probe_before} before, {host_probe()} after"
    text = "\n".join([header + f" · took {took:.0f} s" + probe, "",
                      markdown_table(rows), ""]
                     + [block + "\n" for report in reports for block in report.details])
    print(text)
    if more.output:
        more.output.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
