"""Hostile inputs stay bounded: each bomb runs as ONE fresh ``dst-eval`` process (measured by
``launch.py`` with ``os.wait4``), and its peak RSS must stay under 300 MB.

    python benchmarks/bench_bombs.py [--workdir DIR]

Bombs (built in the work directory; gold: ``gold_samples/multiwoz22``, 4 dialogues):

- **gap bomb**: a 35 KB JSONL whose records have ``turn_index`` 10,000 (each leaves a
  10,000-turn gap) -- 2.2 GB and 17 s before issue 9; now refused (exit 3) before any gap
  is filled (more than 100 gaps per record);
- **depth bomb**: a 2 MB mwzeval file with one value nested 1,000,000 arrays deep;
- **huge strings**: a 64 MB mwzeval file of 1 MB slot values (64 of them);
- **zip bomb in a leaderboard**: a submissions directory holding a ~1 MB zip whose member
  inflates to 1 GiB (refused by its decompressed size, streamed) -- 2.1 GB before;
- **many issues**: a 30 MB mwzeval file with 600,000 hedged values (one Issue each).

Exit codes are recorded (3 = refused as invalid predictions, 0 = scored); 1 would be a
crash and fails the job. Peak RSS targets are printed PASS/FAIL.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

from harness import LAUNCHER, ROOT, Bench, BenchError, JobReport, Row, standalone

LIMIT_MB = 300
GOLD = ROOT / "gold_samples" / "multiwoz22"


def _gap(path: Path) -> None:
    lines, size, i = [], 0, 0
    while size < 35_000:
        line = json.dumps({"dialogue_id": f"gap{i:05d}", "turn_index": 10_000,
                           "state": {"hotel-area": "north"}})
        lines.append(line)
        size += len(line) + 1
        i += 1
    lines.append(json.dumps({"dialogue_id": "demo0001", "turn_index": 10_000, "state": {}}))
    path.write_text("\n".join(lines) + "\n")


def _depth(path: Path) -> None:
    depth = 1_000_000
    path.write_bytes(b'{"demo0001": [{"state": {"hotel": {"area": ' + b"[" * depth
                     + b"]" * depth + b"}}}]}")


def _strings(path: Path) -> None:
    big = "x" * 2**20
    turns = [{"state": {"hotel": {"name": big}}} for _ in range(64)]
    path.write_text(json.dumps({"demo0001": turns}))


def _many_issues(path: Path) -> None:
    state = {"hotel": {f"slot{i}": "north|south" for i in range(60)}}
    turns = [{"state": state}] * 10_000
    path.write_text(json.dumps({"demo0001": turns}))


def _zip_board(folder: Path) -> None:
    subs = folder / "subs"
    subs.mkdir(parents=True, exist_ok=True)
    with (zipfile.ZipFile(subs / "bomb.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out,
          out.open("predictions.json", "w", force_zip64=True) as member):
        block = b"\0" * (1 << 20)
        for _ in range(1024):
            member.write(block)
    (subs / "sample.json").write_bytes((GOLD / "predictions.json").read_bytes())
    (folder / "board.toml").write_text(
        '[leaderboard]\ntitle = "bombs"\ncorpus = "multiwoz22"\n'
        f'gold = {json.dumps(str(GOLD))}\n'
        f'metrics = ["joint_goal_accuracy"]\nrank_by = "joint_goal_accuracy"\n'
        f'bootstrap = 2\n[[submissions]]\ndir = {json.dumps(str(subs))}\n'
        'glob = ["*.json", "*.zip"]\n')


def _measure(bench: Bench, argv: list[str], name: str) -> tuple[int, dict]:
    result = bench.workdir / f"{name}.usage.json"
    code = subprocess.run([sys.executable, "-I", "-S", str(LAUNCHER), str(result), *argv],
                          env=bench.base_env(), cwd=bench.workdir, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL).returncode
    if not result.exists():
        raise BenchError(f"{name}: no measurement (exit {code})")
    return code, json.loads(result.read_text())


def run(bench: Bench) -> JobReport:
    bench.section("bombs: peak RSS of hostile inputs (limit 300 MB)")
    work = bench.workdir
    dst = str(bench.dst_eval)
    builders = {"gap bomb (35 KB JSONL, turn_index 10,000)": ("gap.jsonl", _gap),
                "depth bomb (1,000,000 levels)": ("depth.json", _depth),
                "huge strings (64 x 1 MB values)": ("strings.json", _strings),
                "many issues (600,000 hedged values)": ("issues.json", _many_issues)}
    report = JobReport()
    cases = []
    for label, (name, build) in builders.items():
        path = work / name
        bench.prepare(f"write {name}", lambda build=build, path=path: build(path))
        cases.append((label, [dst, str(path), "--gold", str(GOLD), "--format", "json",
                              "--output", str(work / f"{name}.out.json")], name))
    board = work / "board"
    bench.prepare("write a leaderboard with a 1 GiB zip bomb", lambda: _zip_board(board))
    cases.append(("zip bomb in a leaderboard (1 GiB member)",
                  [dst, "leaderboard", str(board / "board.toml"), "--output-dir",
                   str(board / "out")], "zip"))
    if bench.dry_run:
        for label, argv, _ in cases:
            print(f"  run: {' '.join(argv)}  # {label}")
        return report
    for label, argv, name in cases:
        code, usage = _measure(bench, argv, name)
        rss = usage["maxrss_kib"] / 1024
        verdict = "PASS" if rss < LIMIT_MB and code != 1 else "FAIL"
        bench.log(f"  {label}: exit {code}, {rss:.0f} MB, {usage['wall']:.2f} s")
        report.rows.append(Row(job="bombs", variant=label, dst_wall=f"{usage['wall']:.2f} s",
                               dst_rss=f"{rss:.0f} MB",
                               targets=f"peak RSS < {LIMIT_MB} MB, exit != 1: {verdict}",
                               numbers=f"exit {code}, CPU {usage['cpu']:.2f} s"))
    return report


if __name__ == "__main__":
    sys.exit(standalone(run, __doc__.splitlines()[0]))
