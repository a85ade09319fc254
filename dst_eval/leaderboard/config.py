"""The leaderboard TOML config: its schema, parsed and checked once.

Every problem is a :class:`~dst_eval.errors.UsageError` (exit 2) naming the config file,
raised before any submission is read. Relative paths are relative to the config file.
See ``configs/leaderboard_example.toml`` and ``docs/leaderboard.md`` for the keys.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dst_eval.errors import UsageError
from dst_eval.options import MAX_BOOTSTRAP, MAX_SEED, EvalOptions

MB = 1_000_000
DEFAULT_MAX_MB = 50.0
SECTION_KEYS = {"title", "corpus", "split", "gold", "profile", "metrics", "rank_by",
                "higher_is_better", "bootstrap", "seed", "alpha", "max_submission_mb",
                "cache_dir", "options"}
SOURCE_KEYS = {"dir", "glob", "label"}
PATH_OPTIONS = {"db", "goals", "references", "gold_states"}
"""evaluate() options naming response resources: relative to the config, content-hashed."""
OPTION_KEYS = {"missing", "strict", "dontcare", "normalisation", "mwzeval_rules",
               "pred_format", "min_coverage", *PATH_OPTIONS}
"""evaluate() options a config may set (gold, profile, corpus, split have their own keys)."""


@dataclass(frozen=True)
class Source:
    """A submissions directory: glob patterns inside ``root``; nothing may resolve outside."""

    root: Path
    globs: tuple[str, ...]
    label: str


@dataclass(frozen=True)
class LeaderboardConfig:
    """A checked ``[leaderboard]`` table with its ``[[submissions]]`` sources."""

    title: str
    gold: Path
    corpus: str | None
    split: str | None
    profile: str | None
    metrics: tuple[str, ...]
    """Shown columns, the ranking metric first when it was not listed."""
    rank_by: str
    higher_is_better: bool
    sources: tuple[Source, ...]
    max_bytes: int
    bootstrap: int
    seed: int
    alpha: float
    options: Mapping[str, Any]
    """Further evaluate() options; resource paths made absolute."""
    cache_dir: Path | None


def _need(value: Any, kind: type | tuple[type, ...], key: str, file: str) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise UsageError(f"{key} must be a {names}, found {value!r}", file=file)
    return value


def _string_list(value: Any, key: str, file: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(
            isinstance(v, str) and v.strip() for v in items):
        raise UsageError(f"{key} must be a non-empty string or list of strings", file=file)
    return tuple(v.strip() for v in items)


def load_config(path: str | Path) -> LeaderboardConfig:
    """Read and check a leaderboard TOML; relative paths are relative to the config file."""
    path = Path(path)
    file = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError("leaderboard config not found", file=file) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the leaderboard config ({exc})", file=file) from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"invalid TOML ({exc})", file=file) from None
    base = path.resolve().parent
    section = data.get("leaderboard")
    if not isinstance(section, dict):
        raise UsageError("missing [leaderboard] table", file=file)
    unknown = sorted(set(section) - SECTION_KEYS)
    if unknown:
        raise UsageError(f"unknown [leaderboard] keys: {', '.join(unknown)}", file=file)
    for key in ("gold", "rank_by"):
        if key not in section:
            raise UsageError(f"[leaderboard] needs {key!r}", file=file)
    rank_by = _need(section["rank_by"], str, "rank_by", file)
    metrics = _string_list(section.get("metrics", [rank_by]), "metrics", file)
    repeated = sorted({m for m in metrics if metrics.count(m) > 1})
    if repeated:  # as for -m: a column shown twice is a mistake
        raise UsageError(f"[leaderboard] metrics: {', '.join(repeated)} given twice", file=file)
    if rank_by not in metrics:
        metrics = (rank_by, *metrics)
    options = dict(_need(section.get("options", {}), dict, "[leaderboard.options]", file))
    unknown = sorted(set(options) - OPTION_KEYS)
    if unknown:
        raise UsageError(f"unknown [leaderboard.options] keys: {', '.join(unknown)} "
                         f"(known: {', '.join(sorted(OPTION_KEYS))})", file=file)
    for key in PATH_OPTIONS & set(options):
        options[key] = str(base / _need(options[key], str, key, file))
    bootstrap = _need(section.get("bootstrap", 1000), int, "bootstrap", file)
    seed = _need(section.get("seed", 12345), int, "seed", file)
    alpha = float(_need(section.get("alpha", 0.05), (int, float), "alpha", file))
    max_mb = float(_need(section.get("max_submission_mb", DEFAULT_MAX_MB), (int, float),
                         "max_submission_mb", file))
    if (not 2 <= bootstrap <= MAX_BOOTSTRAP or not 0 <= seed <= MAX_SEED
            or not 0 < alpha < 1 or not 0 < max_mb < math.inf):
        raise UsageError(f"need 2 <= bootstrap <= {MAX_BOOTSTRAP}, 0 <= seed <= {MAX_SEED}, "
                         "0 < alpha < 1 and a finite max_submission_mb > 0", file=file)
    optional = {k: _need(section[k], str, k, file) if k in section else None
                for k in ("corpus", "split", "profile", "cache_dir")}
    try:  # the scoring options, validated as evaluate() will: a usage error before any work
        EvalOptions.build(corpus=optional["corpus"], split=optional["split"],
                          profile=optional["profile"], **options)
    except UsageError as exc:
        raise UsageError(f"[leaderboard] options: {exc.message}", file=file) from None
    return LeaderboardConfig(
        title=_need(section.get("title", "Leaderboard"), str, "title", file),
        gold=base / _need(section["gold"], str, "gold", file),
        corpus=optional["corpus"], split=optional["split"], profile=optional["profile"],
        metrics=metrics, rank_by=rank_by,
        higher_is_better=_need(section.get("higher_is_better", True), bool,
                               "higher_is_better", file),
        sources=_sources(data.get("submissions"), base, file),
        max_bytes=int(max_mb * MB), bootstrap=bootstrap, seed=seed, alpha=alpha,
        options=options,
        cache_dir=base / optional["cache_dir"] if optional["cache_dir"] else None)


def _sources(value: Any, base: Path, file: str) -> tuple[Source, ...]:
    tables = [value] if isinstance(value, dict) else value
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise UsageError("missing [submissions] table (dir = ..., glob = ...)", file=file)
    sources = []
    for table in tables:
        unknown = sorted(set(table) - SOURCE_KEYS)
        if unknown or "dir" not in table:
            raise UsageError(f"[submissions] needs 'dir' (and 'glob', 'label'); unknown keys: "
                             f"{', '.join(unknown) or 'none'}", file=file)
        root = (base / _need(table["dir"], str, "submissions.dir", file)).resolve()
        globs = _string_list(table.get("glob", "*.json"), "submissions.glob", file)
        for pattern in globs:
            if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
                raise UsageError(f"submissions.glob {pattern!r} must stay inside 'dir'",
                                 file=file)
        label = _need(table.get("label", root.name), str, "submissions.label", file)
        sources.append(Source(root, globs, label))
    if len({s.label for s in sources}) != len(sources):
        raise UsageError("several [[submissions]] share a label; give each a distinct 'label'",
                         file=file)
    return tuple(sources)
