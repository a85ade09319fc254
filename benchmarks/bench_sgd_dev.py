"""Job 1 -- SGD dev, ``--profile sgd-official`` against the official DSTC8 scorer.

Predictions: ``<shared>/reference/sgd_official/make_corrupt.py DEV PRED --mode drop --every 5``
(every 5th user frame loses its alphabetically first slot; the recipe of ``dev_drop.json``),
written to the benchmark's temporary directory.

    anchor:   <shared>/anchors/sgd_official/run.sh <shared>/corpora/sgd dev PRED anchor.json
    dst-eval: dst-eval PRED --gold <shared>/corpora/sgd --split dev --profile sgd-official
                       --format json --output dst.json

Targets (issue 8, cold): wall >= 15x, CPU >= 12x (median of the pairwise ratios), dst-eval
peak RSS <= 110 MB. The last outputs of both sides are compared (``#ALL_SERVICES``, 1e-9).

    python benchmarks/bench_sgd_dev.py [--quick] [--dry-run] [--rounds N]
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from harness import (
    Bench,
    Command,
    JobReport,
    cache_note,
    check,
    comparison_rows,
    fmt_walls,
    median,
    standalone,
)

JOB = "SGD dev, sgd-official vs official DSTC8 scorer"
TARGET_WALL, TARGET_CPU, TARGET_RSS_MB = 15.0, 12.0, 110.0


def make_predictions(bench: Bench, gold_split: Path, out: Path) -> None:
    script = bench.shared / "reference" / "sgd_official" / "make_corrupt.py"
    subprocess.run([sys.executable, str(script), str(gold_split), str(out), "--mode", "drop",
                    "--every", "5"], check=True, capture_output=True)


def same_numbers(anchor_json: Path, dst_json: Path, *, tol: float = 1e-9) -> str:
    """Compare every ``#ALL_SERVICES`` metric of the two output files."""
    anchor = json.loads(anchor_json.read_text())["#ALL_SERVICES"]
    report = json.loads(dst_json.read_text())
    mine = (report.get("official") or {}).get("#ALL_SERVICES") or report.get("scores") or {}
    common = sorted(set(anchor) & set(mine))
    if not common:
        return "could not compare (no common metric)"
    worst = max(abs(anchor[k] - mine[k]) for k in common)
    verdict = "yes" if worst <= tol else "NO"
    jga = mine.get("joint_goal_accuracy", math.nan)
    return f"{verdict}: {len(common)} metrics, max Δ {worst:.1e} (JGA {jga:.6f})"


def run(bench: Bench) -> JobReport:
    bench.section(JOB)
    sgd = bench.shared / "corpora" / "sgd"
    work = bench.workdir / "sgd_dev"
    pred = work / "pred"
    anchor_out, dst_out = work / "anchor.json", work / "dst.json"
    if not bench.dry_run:
        work.mkdir(parents=True)
    bench.prepare(f"make_corrupt.py {sgd / 'dev'} {pred} --mode drop --every 5",
                  lambda: make_predictions(bench, sgd / "dev", pred))
    anchor = Command("official", (str(bench.anchor_script("sgd_official")), str(sgd), "dev",
                                  str(pred), str(anchor_out)))
    dst = Command("dst-eval", (str(bench.dst_eval), str(pred), "--gold", str(sgd), "--split",
                               "dev", "--profile", "sgd-official", "--format", "json",
                               "--output", str(dst_out)))
    rounds = bench.rounds(5, 2)
    comp = bench.interleaved(anchor, dst, [{}] * rounds, warm_home=work / "warm-cache")
    if bench.dry_run:
        return JobReport()
    targets = {"cold": [
        check("wall", median(comp.ratios("cold", "wall")), TARGET_WALL, at_least=True),
        check("CPU", median(comp.ratios("cold", "cpu")), TARGET_CPU, at_least=True),
        check("RSS MB", max(s.rss_mb for s in comp.cold), TARGET_RSS_MB, at_least=False)]}
    numbers = same_numbers(anchor_out, dst_out)
    report = JobReport(comparison_rows("1 SGD dev sgd-official", comp, targets, numbers))
    report.details.append(
        f"SGD dev: {rounds} rounds; {cache_note(comp)}. Walls: anchor {fmt_walls(comp.anchor)}; "
        f"dst-eval cold {fmt_walls(comp.cold)}; warm {fmt_walls(comp.warm)}.")
    return report


if __name__ == "__main__":
    raise SystemExit(standalone(run, __doc__.splitlines()[0]))
