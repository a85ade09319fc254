"""Job 2 -- mwzeval: one full evaluation of one prediction file, per file, over hash seeds 0-4.

For each of the 15 files of ``<shared>/reference/mwzeval/predictions`` (``--quick``: 3) and
each ``PYTHONHASHSEED`` in 0-4 (``--quick``: 0-1; ``--mwzeval-files/-seeds N``; mwzeval's run
time depends on it: its database keys are a ``set``; the same seed is given to dst-eval),
one round of interleaved processes:

    anchor:   <shared>/anchors/mwzeval/run.sh FILE anchor.json        (BLEU, Inform/Success,
              richness: mwzeval's ``evaluate.py -b -s -r``)
    dst-eval: dst-eval FILE --gold <shared>/corpora/multiwoz21/test.json.zip --corpus multiwoz21
              --split test --profile mwzeval --missing skip
              --references <ref>/approx_references_mwz21_test.json
              --gold-states <ref>/approx_gold_states_mwz21_test.json --format json --output dst.json

These are the arguments with which ``tests/test_published_leaderboard.py`` reproduces
mwzeval's numbers (``reference_outputs.json``): the anchor's data folder holds the same
approximate references and states. dst-eval also scores DST when a file carries states
(mwzeval's ``-d`` is not asked for), so it does more work than the anchor.

Targets (issue 8): median pairwise wall ratio >= 8x cold (>= 20x warm, if a cache is kept),
dst-eval peak RSS <= mwzeval's. Numbers compared per file: BLEU (1e-9), Inform and Success
totals (exact), richness (1e-9).

    python benchmarks/bench_mwzeval.py [--quick] [--dry-run] [--rounds N]
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import (
    Bench,
    Command,
    Comparison,
    JobReport,
    cache_note,
    check,
    comparison_rows,
    fmt_mb,
    fmt_ratio,
    fmt_seconds,
    median,
    standalone,
)

JOB = "mwzeval: each file x PYTHONHASHSEED 0-4"
SYSTEMS = ("labes", "damd", "augpt", "mintl", "soloist", "dots", "pptod", "bort", "galaxy-e2e",
           "uniconv", "hdsa", "lava", "hdno", "marco", "galaxy-policy")
QUICK_SYSTEMS = ("hdsa", "pptod", "galaxy-e2e")  # no states / states / the largest file
TARGET_COLD, TARGET_WARM = 8.0, 20.0


def same_numbers(anchor_json: Path, dst_json: Path) -> list[str]:
    """Differences between mwzeval's output and dst-eval's ``official`` block (empty: same)."""
    anchor = json.loads(anchor_json.read_text())
    mine = json.loads(dst_json.read_text()).get("official") or {}
    problems = []
    try:
        if abs(anchor["bleu"]["mwz22"] - mine["bleu"]["mwz22"]) > 1e-9:
            problems.append("bleu")
        for kind in ("inform", "success"):
            if anchor["success"][kind]["total"] != mine["success"][kind]["total"]:
                problems.append(kind)
        for key, value in anchor["richness"].items():
            if abs(value - mine["richness"][key]) > 1e-9:
                problems.append(f"richness.{key}")
    except (KeyError, TypeError) as error:
        problems.append(f"missing {error}")
    return problems


def run(bench: Bench) -> JobReport:
    bench.section(JOB)
    ref = bench.shared / "reference" / "mwzeval"
    gold = bench.shared / "corpora" / "multiwoz21" / "test.json.zip"
    work = bench.workdir / "mwzeval"
    if not bench.dry_run:
        work.mkdir(parents=True)
    anchor_out, dst_out = work / "anchor.json", work / "dst.json"
    systems = QUICK_SYSTEMS if bench.quick else SYSTEMS
    if bench.options.get("mwzeval_files"):
        systems = (QUICK_SYSTEMS + tuple(s for s in SYSTEMS if s not in QUICK_SYSTEMS))[
            :bench.options["mwzeval_files"]]
    seeds = range(bench.options.get("mwzeval_seeds") or bench.rounds(5, 2))
    total, per_file, differ = Comparison(), [], []
    for index, name in enumerate(systems):
        pred = ref / "predictions" / f"{name}.json"
        anchor = Command("mwzeval", (str(bench.anchor_script("mwzeval")), str(pred),
                                     str(anchor_out)))
        dst = Command("dst-eval", (
            str(bench.dst_eval), str(pred), "--gold", str(gold), "--corpus", "multiwoz21",
            "--split", "test", "--profile", "mwzeval", "--missing", "skip",
            "--references", str(ref / "approx_references_mwz21_test.json"),
            "--gold-states", str(ref / "approx_gold_states_mwz21_test.json"),
            "--format", "json", "--output", str(dst_out)))
        bench.log(f"  {name}")
        # bytecode and OS cache: one anchor warm-up for the job; the dst-eval warm-up per file
        # fills a per-job warm cache (should dst-eval keep one keyed by the file)
        comp = bench.interleaved(anchor, dst, [{"PYTHONHASHSEED": str(s)} for s in seeds],
                                 warm_home=work / "warm-cache", warmup_anchor=index == 0)
        if bench.dry_run:
            continue
        problems = same_numbers(anchor_out, dst_out)
        if problems:
            differ.append(f"{name} ({', '.join(problems)})")
        total.extend(comp)
        same = "no: " + ", ".join(problems) if problems else "yes"
        per_file.append(
            f"| {name} | {fmt_seconds([s.wall for s in comp.anchor])} | "
            f"{fmt_seconds([s.wall for s in comp.cold])} | "
            f"{fmt_ratio(comp.ratios('cold', 'wall'))} | "
            f"{fmt_ratio(comp.ratios('warm', 'wall'))} | "
            f"{fmt_ratio(comp.ratios('cold', 'cpu'))} | {fmt_mb(comp.anchor)} | "
            f"{fmt_mb(comp.cold)} | {same} |")
    if bench.dry_run:
        return JobReport()
    dst_rss = max(s.rss_mb for s in total.cold)
    anchor_rss = max(s.rss_mb for s in total.anchor)
    targets = {
        "cold": [check("wall", median(total.ratios("cold", "wall")), TARGET_COLD, at_least=True),
                 check("RSS MB vs mwzeval's", dst_rss, round(anchor_rss), at_least=False)],
        "warm": [check("wall", median(total.ratios("warm", "wall")), TARGET_WARM, at_least=True)
                 if total.warm_cache_files else "wall ≥ 20 only with a cache: none kept (empty)"],
    }
    numbers = "yes, every file" if not differ else "NO: " + "; ".join(differ)
    report = JobReport(comparison_rows(f"2 mwzeval ({len(systems)} files × seeds 0–"
                                       f"{len(seeds) - 1})", total, targets, numbers))
    worst = min(median(r) for r in (_file_ratios(total, len(seeds), i)
                                    for i in range(len(systems))))
    report.details.append(
        f"mwzeval per file ({len(seeds)} seeds each; ratios are pairwise per seed; "
        f"{cache_note(total)}; worst per-file median cold wall "
        f"ratio {worst:.1f}×):\n\n"
        "| file | mwzeval wall | dst-eval cold wall | wall ratio cold | wall ratio warm | "
        "CPU ratio cold | mwzeval RSS | dst-eval RSS | same numbers |\n"
        "|---|---|---|---|---|---|---|---|---|\n" + "\n".join(per_file))
    return report


def _file_ratios(total: Comparison, seeds: int, index: int) -> list[float]:
    ratios = total.ratios("cold", "wall")
    return ratios[index * seeds:(index + 1) * seeds]


if __name__ == "__main__":
    raise SystemExit(standalone(run, __doc__.splitlines()[0]))
