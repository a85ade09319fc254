"""Job 4 -- synthetic SGD scale: 10k, 100k and 1M user turns (wall, peak RSS, growth).

Gold and predictions are SGD dev dialogues replicated under new ids (``<id>_r<k>``), in
files of 128 dialogues: gold in ``<tmp>/sgd_scale/gold/dev`` (with dev's ``schema.json`` and
``../train/schema.json`` linked), predictions = ``make_corrupt.py --mode drop --every 5`` of
dev, replicated the same way. Whole dialogues are taken until the size is reached (the
actual user-turn count is reported). Each size is generated, measured, then deleted (1M is
about 1.15 GB gold + 1.15 GB predictions). By construction JGA = 1 - corrupted / user frames.

    dst-eval PRED --gold <tmp>/sgd_scale/gold/dev --profile sgd-official --format json
             --output dst.json

Targets (issue 8): 1M <= 30 s wall and <= 1.5 GB peak RSS; growth linear from 10k (the
report shows seconds and MB per 100k turns at each size). ``--quick`` stops at 100k;
``--scale-sizes 10000,1000000`` picks the sizes.

    python benchmarks/bench_sgd_scale.py [--quick] [--dry-run] [--rounds N]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from harness import Bench, Command, JobReport, Row, check, median, standalone

JOB = "synthetic SGD scale (replicated dev)"
SIZES = (10_000, 100_000, 1_000_000)
TARGET_SECONDS, TARGET_MB = 30.0, 1536.0
PER_FILE = 128
PLACEHOLDER = "@@BENCH_DIALOGUE_ID@@"


@dataclass
class Template:
    """One dev dialogue, serialised once, its id replaced on output."""

    dialogue_id: str
    gold: tuple[str, str]
    pred: tuple[str, str]
    user_turns: int
    frames: int
    corrupted: int


def _serialise(dialogue: dict) -> tuple[str, str]:
    text = json.dumps({**dialogue, "dialogue_id": PLACEHOLDER})
    head, tail = text.split(json.dumps(PLACEHOLDER), 1)
    return head, tail


def templates(bench: Bench, pred_dir: Path) -> list[Template]:
    """Dev dialogues and their corrupted predictions (make_corrupt.py, drop every 5th)."""
    dev = bench.shared / "corpora" / "sgd" / "dev"
    script = bench.shared / "reference" / "sgd_official" / "make_corrupt.py"
    subprocess.run([sys.executable, str(script), str(dev), str(pred_dir), "--mode", "drop",
                    "--every", "5"], check=True, capture_output=True)
    out = []
    for gold_file in sorted(dev.glob("dialogues_*.json")):
        predicted = {d["dialogue_id"]: d
                     for d in json.loads((pred_dir / gold_file.name).read_text())}
        for dialogue in json.loads(gold_file.read_text()):
            pred = predicted[dialogue["dialogue_id"]]
            frames = corrupted = users = 0
            for gold_turn, pred_turn in zip(dialogue["turns"], pred["turns"], strict=True):
                if gold_turn["speaker"] != "USER":
                    continue
                users += 1
                for g, p in zip(gold_turn["frames"], pred_turn["frames"], strict=True):
                    frames += 1
                    corrupted += g["state"]["slot_values"] != p["state"]["slot_values"]
            out.append(Template(dialogue["dialogue_id"], _serialise(dialogue), _serialise(pred),
                                users, frames, corrupted))
    return out


def generate(items: list[Template], size: int, root: Path, shared: Path) -> tuple[int, float]:
    """Write gold/dev + pred for ``size`` user turns; return (user turns, JGA by construction)."""
    gold, pred = root / "gold" / "dev", root / "pred"
    gold.mkdir(parents=True)
    pred.mkdir()
    (root / "gold" / "train").mkdir()
    sgd = shared / "corpora" / "sgd"
    os.symlink(sgd / "dev" / "schema.json", gold / "schema.json")
    os.symlink(sgd / "train" / "schema.json", root / "gold" / "train" / "schema.json")
    users = frames = corrupted = 0
    chosen: list[tuple[str, Template]] = []
    copy = 0
    while users < size:
        for item in items:
            if users >= size:
                break
            chosen.append((f"{item.dialogue_id}_r{copy}", item))
            users += item.user_turns
            frames += item.frames
            corrupted += item.corrupted
        copy += 1
    for number, start in enumerate(range(0, len(chosen), PER_FILE), 1):
        batch = chosen[start:start + PER_FILE]
        for folder, side in ((gold, "gold"), (pred, "pred")):
            parts = []
            for new_id, item in batch:
                head, tail = getattr(item, side)
                parts.append(f"{head}{json.dumps(new_id)}{tail}")
            (folder / f"dialogues_{number:05d}.json").write_text("[" + ",\n".join(parts) + "]")
    return users, 1 - corrupted / frames


def run(bench: Bench) -> JobReport:
    bench.section(JOB)
    work = bench.workdir / "sgd_scale"
    if not bench.dry_run:
        work.mkdir(parents=True)
    items = bench.prepare("make_corrupt.py dev --mode drop --every 5; dev dialogues as templates",
                          lambda: templates(bench, work / "devpred"))
    sizes = SIZES[:2] if bench.quick else SIZES
    if bench.options.get("scale_sizes"):
        sizes = tuple(int(n) for n in bench.options["scale_sizes"].split(","))
    report, lines = JobReport(), []
    rows: list[tuple[int, float, float, float]] = []
    for size in sizes:
        root = work / f"n{size}"
        made = bench.prepare(f"{size:,} user turns of replicated dev gold + predictions in {root}",
                             lambda size=size, root=root: generate(items, size, root,
                                                                   bench.shared))
        out = root / "dst.json"
        dst = Command("dst-eval", (str(bench.dst_eval), str(root / "pred"), "--gold",
                                   str(root / "gold" / "dev"), "--profile", "sgd-official",
                                   "--format", "json", "--output", str(out)))
        runs = bench.rounds(2, 1) if size >= 1_000_000 else bench.rounds(3, 2)
        comp = bench.interleaved(None, dst, [{}] * runs, warm_home=root / "warm-cache",
                                 warm=False, warmup_dst=size < 1_000_000)
        if bench.dry_run:
            continue
        users, expected = made
        jga = json.loads(out.read_text()).get("scores", {}).get("joint_goal_accuracy",
                                                                  float("nan"))
        wall = median([s.wall for s in comp.cold])
        cpu = median([s.cpu for s in comp.cold])
        rss = max(s.rss_mb for s in comp.cold)
        rows.append((users, wall, cpu, rss))
        same = "yes" if abs(jga - expected) < 1e-9 else "NO"
        targets = []
        if size >= 1_000_000:
            targets = [check("wall s", wall, TARGET_SECONDS, at_least=False),
                       check("RSS MB", rss, TARGET_MB, at_least=False)]
        report.rows.append(Row(f"4 SGD synthetic {users:,} user turns", "cold",
                               dst_wall=f"{wall:.2f} s (CPU {cpu:.2f} s)", dst_rss=f"{rss:.0f} MB",
                               targets="; ".join(targets),
                               numbers=f"{same}: JGA {jga:.6f} vs {expected:.6f} by construction"))
        shutil.rmtree(root, ignore_errors=True)
    if rows:
        lines = [f"| {u:,} | {w:.2f} s | {c:.2f} s | {r:.0f} MB | {w / u * 1e5:.2f} s | "
                 f"{c / u * 1e5:.2f} s | {r / u * 1e5:.0f} MB |" for u, w, c, r in rows]
        growth = ""
        if len(rows) >= 2:
            (u0, w0, c0, r0), (u1, w1, c1, r1) = rows[-2], rows[-1]
            growth = (f" From {u0:,} to {u1:,} turns ({u1 / u0:.1f}×): wall ×{w1 / w0:.1f}, "
                      f"CPU ×{c1 / c0:.1f}, peak RSS ×{r1 / r0:.1f}.")
        report.details.append(
            "SGD synthetic scale (sgd-official, cold, median of the runs; per-100k columns show "
            f"linearity).{growth}\n\n| user turns | wall | CPU | peak RSS | wall per 100k | "
            "CPU per 100k | RSS per 100k |\n|---|---|---|---|---|---|---|\n" + "\n".join(lines))
    return report


if __name__ == "__main__":
    raise SystemExit(standalone(run, __doc__.splitlines()[0]))
