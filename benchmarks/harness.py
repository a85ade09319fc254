"""Side-by-side benchmark harness: the official scorers (anchors) against the ``dst-eval`` command.

Every measured run is ONE fresh process started exactly as a user starts it: the anchor's
``run.sh`` (from ``<shared>/anchors``, built under ``$ANCHORS_HOME``) or the ``dst-eval``
console script of the active environment. Runs are interleaved per round
(anchor, dst-eval cold, dst-eval warm, anchor, ...), so both sides see the same machine load,
and a job reports the **pairwise** ratios ``anchor / dst-eval`` of each round (median and min):
never a ratio to a stored time.

Per process (``os.wait4`` of the child, in ``launch.py``: a few-MB launcher process started
by the harness spawns the command, so the harness's own memory cannot leak into the child's
``ru_maxrss`` -- Linux counts a child's pre-``exec`` address space in it):

* wall = ``perf_counter`` from spawn to reaping (in the launcher);
* CPU = ``ru_utime + ru_stime`` of the command and of every descendant (the launcher is a
  child subreaper: a forked worker left behind is reaped and counted too);
* peak RSS = ``ru_maxrss``: the largest single process of the run (a *max*, not a sum,
  should the command fork workers). Each ``run.sh``
  ``exec``\\ s its Python, so the wrapper's PID *is* the scorer process.

Variants of the dst-eval side:

* **cold**: a fresh, empty ``XDG_CACHE_HOME`` per run (so no on-disk dst-eval cache can be
  used); files dst-eval writes there are counted and reported (there should be none);
* **warm**: one ``XDG_CACHE_HOME`` kept for the whole job and filled by the warm-up run, so a
  cache (if dst-eval kept one) would be warm.

Both sides: the OS file cache is warm after the warm-up (inputs were just read);
``PYTHONDONTWRITEBYTECODE`` is removed and ``PYTHONPYCACHEPREFIX`` points to one benchmark
directory, so bytecode is compiled by the warm-up and cached for both sides (the anchors'
folders are read-only, so this is the only way they get cached bytecode). ``DST_EVAL_*``
variables are removed from the children's environment (a user's default).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BYTES_PER_MB = 1024 * 1024
LAUNCHER = Path(__file__).resolve().parent / "launch.py"


class BenchError(RuntimeError):
    """A measured command failed or a prerequisite is missing."""


def shared_dir() -> Path:
    """``$DST_EVAL_SHARED``, else ``../shared`` next to the repository (or its worktree root)."""
    env = os.environ.get("DST_EVAL_SHARED")
    candidates = [Path(env)] if env else []
    candidates += [ROOT.parent / "shared", ROOT.parent.parent / "shared"]
    for candidate in candidates:
        if (candidate / "anchors").is_dir():
            return candidate.resolve()
    raise BenchError("shared folder not found: set DST_EVAL_SHARED (or put it at ../shared)")


def anchors_home() -> Path:
    """Where ``setup.sh`` built the anchors (the same default as the ``run.sh`` scripts)."""
    env = os.environ.get("ANCHORS_HOME")
    if env:
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "dst-eval-anchors"


def dst_eval_command() -> Path:
    """The ``dst-eval`` console script of the active environment (the interpreter's bin/)."""
    here = Path(sys.executable).parent / "dst-eval"
    if here.exists():
        return here
    found = shutil.which("dst-eval")
    if found:
        return Path(found)
    raise BenchError("no dst-eval command: install dst-eval in this environment (pip install -e .)")


@dataclass(frozen=True)
class Command:
    """One process to start: argv, extra environment, working directory."""

    label: str
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    cwd: Path | None = None

    def with_env(self, **extra: str) -> Command:
        return Command(self.label, self.argv, self.env + tuple(extra.items()), self.cwd)

    def shell(self) -> str:
        prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env)
        cd = f"(cd {shlex.quote(str(self.cwd))}) " if self.cwd else ""
        return f"{cd}{prefix + ' ' if prefix else ''}{shlex.join(self.argv)}"


@dataclass(frozen=True)
class Sample:
    """One measured process."""

    wall: float
    cpu: float
    rss_mb: float
    stdout: str = ""
    orphans: int = 0  # processes the command left running at its exit (reaped by launch.py)


@dataclass
class Comparison:
    """Interleaved runs of one job: anchor[i], cold[i], warm[i] belong to round i."""

    anchor: list[Sample] = field(default_factory=list)
    cold: list[Sample] = field(default_factory=list)
    warm: list[Sample] = field(default_factory=list)
    cache_files: int = 0  # files dst-eval wrote under a cold run's XDG_CACHE_HOME
    warm_cache_files: int = 0  # files in the warm variant's XDG_CACHE_HOME at the end

    def extend(self, other: Comparison) -> None:
        self.anchor += other.anchor
        self.cold += other.cold
        self.warm += other.warm
        self.cache_files += other.cache_files
        self.warm_cache_files = max(self.warm_cache_files, other.warm_cache_files)

    def ratios(self, variant: str, what: str) -> list[float]:
        """Pairwise ``anchor / dst-eval`` of ``what`` (wall or cpu) per round."""
        mine = self.cold if variant == "cold" else self.warm
        return [getattr(a, what) / getattr(b, what) for a, b in zip(self.anchor, mine, strict=True)]


def count_files(folder: Path) -> int:
    return sum(len(files) for _, _, files in os.walk(folder))


def cache_note(comp: Comparison) -> str:
    """How many files dst-eval left in its cache dirs (``XDG_CACHE_HOME``): 0 = no cache."""
    left = sum(s.orphans > 0 for s in comp.cold + comp.warm)
    return (f"dst-eval wrote {comp.cache_files} file(s) into its cold runs' cache dirs, "
            f"{comp.warm_cache_files} into the warm one"
            + (f"; {left} dst-eval run(s) left processes behind (counted in CPU/RSS)"
               if left else ""))


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


class Bench:
    """Runs (or, with ``dry_run``, lists) the measured commands of the jobs."""

    def __init__(self, *, quick: bool = False, dry_run: bool = False, rounds: int | None = None,
                 workdir: Path | None = None, verbose: bool = True,
                 options: dict[str, Any] | None = None) -> None:
        self.quick, self.dry_run, self.verbose = quick, dry_run, verbose
        self.options = options or {}  # job-specific command-line options
        self.rounds_override = rounds
        self.shared = shared_dir()
        self.anchors = anchors_home()
        self.dst_eval = dst_eval_command() if not dry_run else (
            Path(sys.executable).parent / "dst-eval")
        parent = workdir or Path(tempfile.gettempdir())
        if dry_run:
            self.workdir = parent / "dst-eval-bench-XXXX"
        else:
            parent.mkdir(parents=True, exist_ok=True)
            self.workdir = Path(tempfile.mkdtemp(prefix="dst-eval-bench-", dir=parent))
        self.pycache = self.workdir / "pycache"
        self._cold_count = 0
        self.listed: set[str] = set()

    # ------------------------------------------------------------------ setup
    def rounds(self, full: int, quick: int) -> int:
        if self.rounds_override:
            return self.rounds_override
        return quick if self.quick else full

    def anchor_script(self, name: str) -> Path:
        script = self.shared / "anchors" / name / "run.sh"
        if not self.dry_run:
            built = {"sgd_official": "sgd_official/venv/bin/python",
                     "mwzeval": "mwzeval/venv/bin/python",
                     "convlab": "convlab/evaluate_unified_datasets.py"}[name]
            if not (self.anchors / built).exists():
                raise BenchError(f"anchor {name} not built in {self.anchors}: run "
                                 f"bash {self.shared / 'anchors' / 'setup.sh'}")
        return script

    def base_env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("DST_EVAL_") and k not in (
                   "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONPYCACHEPREFIX")}
        env["PYTHONPYCACHEPREFIX"] = str(self.pycache)
        env["ANCHORS_HOME"] = str(self.anchors)
        return env

    def section(self, title: str) -> None:
        if self.dry_run:
            print(f"\n## {title}")
        else:
            self.log(f"# {title}")

    def log(self, message: str) -> None:
        if self.verbose:
            print(message, file=sys.stderr, flush=True)

    def prepare(self, description: str, action: Callable[[], Any]) -> Any:
        """Build an input (predictions, synthetic data); only described in a dry run."""
        if self.dry_run:
            print(f"  prepare: {description}")
            return None
        self.log(f"  preparing: {description}")
        start = time.perf_counter()
        value = action()
        self.log(f"    ({time.perf_counter() - start:.1f} s)")
        return value

    # ------------------------------------------------------------------ running
    def run(self, command: Command, *, cache_home: Path | None = None,
            capture: bool = False) -> Sample | None:
        """Start ``command`` as a fresh process via ``launch.py``, which measures it with
        ``os.wait4``; exit != 0 raises."""
        if self.dry_run:
            text = command.shell()
            if text not in self.listed:
                self.listed.add(text)
                print(f"  run: {text}")
            return None
        env = self.base_env()
        env.update(command.env)
        if cache_home is not None:
            env["XDG_CACHE_HOME"] = str(cache_home)
        logs = self.workdir / "logs"
        logs.mkdir(exist_ok=True)
        out_path, err_path = logs / "stdout.txt", logs / "stderr.txt"
        result = logs / "usage.json"
        result.unlink(missing_ok=True)
        with out_path.open("wb") as out, err_path.open("wb") as err:
            code = subprocess.run([sys.executable, "-I", "-S", str(LAUNCHER), str(result),
                                   *command.argv], env=env, cwd=command.cwd or self.workdir,
                                  stdout=out, stderr=err, stdin=subprocess.DEVNULL).returncode
        if code != 0 or not result.exists():
            tail = err_path.read_text(errors="replace")[-2000:]
            raise BenchError(f"exit {code}: {command.shell()}\n{tail}")
        usage = json.loads(result.read_text())
        stdout = out_path.read_text(errors="replace") if capture else ""
        return Sample(usage["wall"], usage["cpu"], usage["maxrss_kib"] * 1024 / BYTES_PER_MB,
                      stdout, usage.get("orphans", 0))

    def cold_home(self) -> Path:
        self._cold_count += 1
        home = self.workdir / "cold-cache" / str(self._cold_count)
        home.mkdir(parents=True)
        return home

    def interleaved(self, anchor: Command | None, dst: Command, rounds: Iterable[dict[str, str]],
                    *, warm_home: Path, warmup_anchor: bool = True, warmup_dst: bool = True,
                    warm: bool = True, capture: bool = False) -> Comparison:
        """Warm-up, then per round (its extra env): anchor, dst-eval cold, dst-eval warm.

        ``warm_home`` is the warm variant's ``XDG_CACHE_HOME`` (kept between calls of a job).
        """
        result = Comparison()
        rounds = list(rounds)
        first = rounds[0] if rounds else {}
        if self.dry_run:
            print(f"  warm-up, then {len(rounds)} round(s) of [{'anchor, ' if anchor else ''}"
                  f"dst-eval cold{', dst-eval warm' if warm else ''}]; per-round env: "
                  f"{[r for r in rounds] if any(rounds) else 'none'}")
            if anchor is not None:
                print(f"  anchor:   {anchor.shell()}")
            print(f"  dst-eval: {dst.shell()}")
            return result
        if warmup_anchor and anchor is not None:
            self.run(anchor.with_env(**first))
        if not self.dry_run:
            warm_home.mkdir(parents=True, exist_ok=True)
        if warmup_dst:
            self.run(dst.with_env(**first), cache_home=warm_home)
        for extra in rounds:
            if anchor is not None:
                sample = self.run(anchor.with_env(**extra), capture=capture)
                if sample:
                    result.anchor.append(sample)
            home = self.cold_home() if not self.dry_run else Path("<fresh-empty-dir>")
            sample = self.run(dst.with_env(**extra), cache_home=home, capture=capture)
            if sample:
                result.cold.append(sample)
                result.cache_files += count_files(home)
                shutil.rmtree(home, ignore_errors=True)
            if warm:
                sample = self.run(dst.with_env(**extra), cache_home=warm_home, capture=capture)
                if sample:
                    result.warm.append(sample)
        result.warm_cache_files = count_files(warm_home)
        return result

    def cleanup(self) -> None:
        if not self.dry_run:
            shutil.rmtree(self.workdir, ignore_errors=True)


# ---------------------------------------------------------------------- reporting
def fmt_ratio(values: Sequence[float]) -> str:
    if not values:
        return "–"
    return f"{median(values):.1f}× (min {min(values):.1f}×)"


def fmt_walls(samples: Sequence[Sample]) -> str:
    """Every run's wall time, in order (the raw data behind a median)."""
    return ", ".join(f"{s.wall:.2f}" for s in samples) + " s" if samples else "–"


def fmt_seconds(values: Sequence[float]) -> str:
    if not values:
        return "–"
    return f"{median(values):.2f} s"


def fmt_mb(samples: Sequence[Sample]) -> str:
    if not samples:
        return "–"
    return f"{max(s.rss_mb for s in samples):.0f} MB"


def check(label: str, value: float, target: float, *, at_least: bool) -> str:
    """``label value PASS/FAIL (target)``: a miss is reported, never raised."""
    if value != value:  # nan: not measured
        return f"{label}: not measured"
    ok = value >= target if at_least else value <= target
    sign = "≥" if at_least else "≤"
    return f"{label} {sign} {target:g}: {'PASS' if ok else 'FAIL'}"


@dataclass
class Row:
    """One line of the summary table."""

    job: str
    variant: str
    anchor_wall: str = "–"
    dst_wall: str = "–"
    wall_ratio: str = "–"
    cpu_ratio: str = "–"
    anchor_rss: str = "–"
    dst_rss: str = "–"
    targets: str = ""
    numbers: str = ""


HEADER = ("job", "variant", "anchor wall (median)", "dst-eval wall (median)",
          "wall ratio anchor/dst-eval: median (min)", "CPU ratio: median (min)",
          "anchor peak RSS", "dst-eval peak RSS", "targets", "same numbers")


def comparison_rows(job: str, comp: Comparison, targets: dict[str, list[str]],
                    numbers: str = "") -> list[Row]:
    rows = []
    for variant, samples in (("cold", comp.cold), ("warm", comp.warm)):
        if not samples:
            continue
        rows.append(Row(
            job, variant,
            anchor_wall=fmt_seconds([s.wall for s in comp.anchor]),
            dst_wall=fmt_seconds([s.wall for s in samples]),
            wall_ratio=fmt_ratio(comp.ratios(variant, "wall")) if comp.anchor else "–",
            cpu_ratio=fmt_ratio(comp.ratios(variant, "cpu")) if comp.anchor else "–",
            anchor_rss=fmt_mb(comp.anchor), dst_rss=fmt_mb(samples),
            targets="; ".join(targets.get(variant, [])), numbers=numbers))
    return rows


def markdown_table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for row in rows:
        cells = (row.job, row.variant, row.anchor_wall, row.dst_wall, row.wall_ratio,
                 row.cpu_ratio, row.anchor_rss, row.dst_rss, row.targets or "–",
                 row.numbers or "–")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


@dataclass
class JobReport:
    """What a job hands back: summary rows and free Markdown details."""

    rows: list[Row] = field(default_factory=list)
    details: list[str] = field(default_factory=list)


def standalone(job: Callable[[Bench], JobReport], description: str,
               argv: Sequence[str] | None = None) -> int:
    """``main`` of a single-job script: the same options as ``run.py``."""
    args = parse_args(description, argv)
    bench = Bench(quick=args.quick, dry_run=args.dry_run, rounds=args.rounds,
                  workdir=args.workdir, options=vars(args))
    try:
        report = job(bench)
    finally:
        bench.cleanup()
    if not args.dry_run:
        print(markdown_table(report.rows))
        for block in report.details:
            print("\n" + block)
    return 0


def parse_args(description: str, argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: few rounds, 3 mwzeval files, no 1M synthetic set")
    parser.add_argument("--dry-run", action="store_true",
                        help="list the commands that would run, run nothing")
    parser.add_argument("--rounds", type=int, help="rounds per job (overrides the defaults)")
    parser.add_argument("--mwzeval-files", type=int,
                        help="job 2: the first N of the 15 files (default 15, --quick 3)")
    parser.add_argument("--mwzeval-seeds", type=int,
                        help="job 2: PYTHONHASHSEED 0..N-1 (default 5, --quick 2)")
    parser.add_argument("--scale-sizes",
                        help="job 4: comma-separated user-turn counts (default 10000,100000,"
                             "1000000; --quick without 1000000)")
    parser.add_argument("--workdir", type=Path,
                        help="where temporary inputs go (default: the system temp dir); "
                             "deleted afterwards")
    return parser.parse_known_args(argv)[0]
