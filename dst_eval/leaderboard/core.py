"""``dst-eval leaderboard CONFIG``: score every submission of a leaderboard, safely, reproducibly.

A TOML config (``configs/leaderboard_example.toml``) names the gold data, the profile, the
shown metrics, the ranking metric and where submissions live. Each submission is validated
(size, paths, metadata, prediction format), scored with :func:`dst_eval.api.evaluate`
(scores cached by content hash), ranked, and rendered as ``leaderboard.md``,
``leaderboard.json`` and ``leaderboard.html`` (byte-identical on re-run).

Submissions are untrusted: the gold path comes only from the config; a glob match or a
metadata path that resolves outside its submissions directory is refused; nothing in a
submission is executed (JSON and TOML are parsed, never imported); files over the size
limit are refused before they are read; metadata strings are length-checked, URLs must be
``http(s)`` and everything is escaped in Markdown and HTML.

Statistics (all on whole dialogues, seeded, recorded in the signature ``bs:N|seed:S``):

* 95 % score interval: sacrebleu's percentile bootstrap
  (:func:`dst_eval.significance.add_bootstrap`), lo/hi = sorted resample scores at
  ``N // 40`` and ``N - N // 40 - 1``;
* rank interval: on the same N resamples (one shared index matrix) each system's rank is
  ``1 + #{systems scoring strictly better}``; its interval is the same percentile pair of
  its sorted resample ranks;
* "not significantly different from the leader": paired bootstrap of the ranking metric
  against rank 1 (:func:`dst_eval.significance.compare_reports`), ``p >= alpha``
  (default 0.05).

Cache: one JSON file per key = sha256 of (submission content, gold content, corpus, split,
profile, evaluate options, dst-eval version and a fingerprint of its source). An entry
holds the scores and the per-dialogue sums of every metric's statistic columns (the
bootstrap unit), so intervals and tests need no rescoring. Freshly scored results take the
same serialise/parse path as cached ones, which is what makes outputs byte-identical.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import importlib
import math
import os
import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from dst_eval import __version__
from dst_eval.api import evaluate
from dst_eval.corpora import load_gold
from dst_eval.errors import DstEvalError, UsageError
from dst_eval.gold import GoldSet
from dst_eval.metrics.base import Metric, TurnTable
from dst_eval.metrics.resampling import resample_counts, resample_indices
from dst_eval.predictions.model import Issue
from dst_eval.predictions.reader import read_predictions
from dst_eval.report import format_value
from dst_eval.result import Result
from dst_eval.signature import Signature
from dst_eval.significance import add_bootstrap, compare_reports

CACHE_FORMAT = 1
MB = 1_000_000
DEFAULT_MAX_MB = 50.0
MAX_MANIFEST_BYTES = 64 * 1024
MAX_TEXT = 200
MAX_AUTHORS = 30
LEVEL = 0.95
SECTION_KEYS = {"title", "corpus", "split", "gold", "profile", "metrics", "rank_by",
                "higher_is_better", "bootstrap", "seed", "alpha", "max_submission_mb",
                "cache_dir", "options"}
SOURCE_KEYS = {"dir", "glob", "label"}
PATH_OPTIONS = {"db", "goals", "references", "gold_states"}
"""evaluate() options naming response resources: relative to the config, content-hashed."""
OPTION_KEYS = {"missing", "strict", "dontcare", "normalisation", "mwzeval_rules",
               "pred_format", *PATH_OPTIONS}
"""evaluate() options a config may set (gold, profile, corpus, split have their own keys)."""
METADATA_KEYS = ("name", "authors", "paper", "code", "model_size", "description")
MANIFEST_KEYS = (*METADATA_KEYS, "predictions")
URL = re.compile(r"https?://[A-Za-z0-9._~:/?#@!$&'*+,;=%-]+")
STATE_METRIC_PREFIXES = ("joint_goal_accuracy", "slot_", "average_goal_accuracy",
                         "relative_slot_accuracy", "turn_accuracy", "flexible_goal_accuracy")
"""Metrics computed from predicted dialogue states (n/a for a submission without states)."""


# ---- configuration -------------------------------------------------------------------
@dataclass(frozen=True)
class Source:
    """A submissions directory: glob patterns inside ``root``; nothing may resolve outside."""

    root: Path
    globs: tuple[str, ...]
    label: str


@dataclass(frozen=True)
class LeaderboardConfig:
    title: str
    gold: Path
    corpus: str | None
    split: str | None
    profile: str | None
    metrics: tuple[str, ...]
    rank_by: str
    higher_is_better: bool
    sources: tuple[Source, ...]
    max_bytes: int
    bootstrap: int
    seed: int
    alpha: float
    options: Mapping[str, Any]
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
    if rank_by not in metrics:
        metrics = (rank_by, *metrics)
    options = _need(section.get("options", {}), dict, "[leaderboard.options]", file)
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
    if bootstrap < 2 or seed < 0 or not 0 < alpha < 1 or max_mb <= 0:
        raise UsageError("need bootstrap >= 2, seed >= 0, 0 < alpha < 1 and "
                         "max_submission_mb > 0", file=file)
    optional = {k: _need(section[k], str, k, file) if k in section else None
                for k in ("corpus", "split", "profile", "cache_dir")}
    return LeaderboardConfig(
        title=_need(section.get("title", "Leaderboard"), str, "title", file),
        gold=base / _need(section["gold"], str, "gold", file),
        corpus=optional["corpus"], split=optional["split"], profile=optional["profile"],
        metrics=metrics, rank_by=rank_by,
        higher_is_better=_need(section.get("higher_is_better", True), bool,
                               "higher_is_better", file),
        sources=_sources(data.get("submissions"), base, file),
        max_bytes=int(max_mb * MB), bootstrap=bootstrap, seed=seed, alpha=alpha,
        options=dict(options),
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


# ---- untrusted submissions: discovery, paths, sizes, metadata ------------------------
class Refused(Exception):
    """A submission that cannot be scored; the message is the reason shown to its author."""


@dataclass
class Candidate:
    id: str
    source: Source
    predictions: Path
    """The predictions file (or SGD-style directory), resolved."""
    manifest: dict[str, Any] | None = None
    entry: Path | None = None
    """The glob match (the metadata file, or the predictions themselves), resolved."""
    error: str | None = None
    rescore: bool = False
    """Never take this one from the cache (the ``--check`` candidate)."""


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _confined(root: Path, relative: Any, what: str, *, base: Path | None = None) -> Path:
    """``base/relative`` (default ``root/relative``) resolved, symlinks followed; Refused
    unless it stays in ``root``."""
    if not isinstance(relative, str) or not relative.strip() or "\x00" in relative:
        raise Refused(f"{what} must be a non-empty relative path")
    if Path(relative).is_absolute() or re.match(r"^[A-Za-z]:", relative):
        raise Refused(f"{what} {relative!r} is absolute; give a path inside the submissions "
                      "directory")
    resolved = ((base or root) / relative).resolve()
    if not _inside(resolved, root):
        raise Refused(f"{what} {relative!r} escapes the submissions directory")
    return resolved


def _display_id(source: Source, path: Path, several: bool) -> str:
    relative = path.relative_to(source.root).as_posix()
    return f"{source.label}/{relative}" if several else relative


def discover(config: LeaderboardConfig) -> list[Candidate]:
    """Every submission the globs name, sorted by id; refused ones carry ``error``."""
    several = len(config.sources) > 1
    found: dict[str, Candidate] = {}
    for source in config.sources:
        if not source.root.is_dir():
            raise UsageError("submissions directory not found", file=str(source.root))
        matches = sorted({m for pattern in source.globs for m in source.root.glob(pattern)
                          if not any(part.startswith(".")
                                     for part in m.relative_to(source.root).parts)})
        referenced: set[Path] = set()
        direct: list[Path] = []
        for match in matches:
            shown = _display_id(source, match, several)
            resolved = match.resolve()
            if not _inside(resolved, source.root):
                found[shown] = Candidate(shown, source, match, entry=match,
                                         error="resolves outside the submissions directory "
                                               "(a symlink?)")
            elif match.suffix == ".toml":
                found[shown] = candidate = _from_manifest(shown, source, match)
                referenced.add(candidate.predictions)
            else:
                direct.append(match)
        for match in direct:
            if match.resolve() not in referenced:
                shown = _display_id(source, match, several)
                found[shown] = Candidate(shown, source, match.resolve(),
                                         entry=match.resolve())
    return [found[key] for key in sorted(found)]


def _from_manifest(shown: str, source: Source, manifest: Path) -> Candidate:
    try:
        if manifest.stat().st_size > MAX_MANIFEST_BYTES:
            raise Refused(f"metadata file over {MAX_MANIFEST_BYTES // 1024} KiB")
        try:
            data = tomllib.loads(manifest.read_bytes().decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise Refused(f"invalid metadata TOML ({exc})") from None
        if not isinstance(data.get("predictions"), str):
            raise Refused("metadata file needs 'predictions = \"<predictions file, relative to "
                          "this file>\"'")
        target = _confined(source.root, data["predictions"], "metadata 'predictions' path",
                           base=manifest.parent)
        if not target.exists():
            raise Refused(f"metadata 'predictions' file {data['predictions']!r} not found")
        return Candidate(shown, source, target, manifest=data, entry=manifest.resolve())
    except Refused as exc:
        return Candidate(shown, source, manifest.resolve(), error=str(exc),
                         entry=manifest.resolve())


def submission_size(path: Path, root: Path) -> int:
    """Bytes of a file, or of every file under a directory (symlinks must stay in ``root``)."""
    if path.is_file():
        return path.stat().st_size
    total = 0
    for item in sorted(path.rglob("*")):
        if not _inside(item.resolve(), root):
            raise Refused(f"{item.relative_to(path).as_posix()} resolves outside the "
                          "submissions directory")
        if item.is_file():
            total += item.stat().st_size
    return total


def content_hash(path: Path) -> str:
    """sha256 of a file, or of the sorted (relative name, size, bytes) of a directory."""
    digest = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for file in files:
        if file is not path:
            name = file.relative_to(path).as_posix().encode()
            digest.update(b"%d:%s\x00" % (len(name), name))
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\x00")
    return digest.hexdigest()


def _text(value: Any, key: str, limit: int = MAX_TEXT) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool) and key == "model_size":
        value = f"{value:g}"
    if not isinstance(value, str) or not value.strip():
        raise Refused(f"metadata {key!r} must be a non-empty string")
    text = value.strip()
    if len(text) > limit or any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in text):
        raise Refused(f"metadata {key!r} must be one line of at most {limit} characters")
    return text


def clean_metadata(raw: Mapping[str, Any], *, default_name: str,
                   allowed: Sequence[str] = METADATA_KEYS) -> tuple[dict[str, Any], list[str]]:
    """Checked metadata ``{name, authors, paper, code, model_size, description}`` and notes."""
    notes = []
    ignored = sorted(k for k in raw if k not in allowed)
    if ignored:
        notes.append(f"ignored metadata keys: {', '.join(map(str, ignored))}")
    meta: dict[str, Any] = {"name": _text(raw.get("name", default_name), "name", 80),
                            "authors": []}
    authors = raw.get("authors", [])
    authors = [authors] if isinstance(authors, str) else authors
    if not isinstance(authors, list) or len(authors) > MAX_AUTHORS:
        raise Refused(f"metadata 'authors' must be a string or a list of at most "
                      f"{MAX_AUTHORS} strings")
    meta["authors"] = [_text(a, "authors", 100) for a in authors]
    for key in ("paper", "code"):
        if raw.get(key) is not None:
            url = _text(raw[key], key, 500)
            if not URL.fullmatch(url):
                raise Refused(f"metadata {key!r} must be an http(s) URL without spaces, "
                              "quotes, brackets or parentheses")
            meta[key] = url
    if raw.get("model_size") is not None:
        meta["model_size"] = _text(raw["model_size"], "model_size", 40)
    if raw.get("description") is not None:
        meta["description"] = _text(raw["description"], "description", 300)
    return meta, notes


# ---- scoring with a content-addressed cache ------------------------------------------
@cache
def harness_fingerprint() -> str:
    """dst-eval's version and a sha256 of its source and configs (the 'harness version')."""
    digest = hashlib.sha256(__version__.encode())
    roots = [Path(importlib.import_module(name).__file__).parent
             for name in ("dst_eval", "dst_eval.metrics", "dst_eval.configs")]
    for root in roots:
        for file in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml")):
            digest.update(file.relative_to(root).as_posix().encode() + b"\x00")
            digest.update(file.read_bytes())
    return f"{__version__}+{digest.hexdigest()[:16]}"


def _state_metric(name: str) -> bool:
    return name.startswith(STATE_METRIC_PREFIXES)


def _encode(value: Any) -> Any:
    """A metric's state as JSON: nested Metric objects as ``{"$metric": {module, class,
    state}}`` (dst_eval classes only); TypeError for anything else that is not JSON."""
    if isinstance(value, Metric):
        cls = type(value)
        if not cls.__module__.startswith("dst_eval.") or not hasattr(value, "__dict__"):
            raise TypeError(f"cannot cache a {cls.__qualname__}")
        state = {"name": value.name, "columns": list(value.columns), **vars(value)}
        return {"$metric": {"module": cls.__module__, "class": cls.__qualname__,
                            "state": {k: _encode(v) for k, v in state.items()}}}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _encode(v) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float):
        return value
    raise TypeError(f"cannot cache a {type(value).__name__}")


def _decode(value: Any) -> Any:
    """Inverse of :func:`_encode` (lists become tuples); only ``dst_eval`` Metric classes are
    rebuilt, by setting their attributes: nothing from the cache is executed."""
    if isinstance(value, list):
        return tuple(_decode(v) for v in value)
    if not isinstance(value, dict):
        return value
    spec = value.get("$metric")
    if spec is None or len(value) != 1:
        return {k: _decode(v) for k, v in value.items()}
    module, name = spec["module"], spec["class"]
    if not module.startswith("dst_eval.") or not name.isidentifier():
        raise TypeError(f"refusing to rebuild {module}.{name}")
    cls = getattr(importlib.import_module(module), name, None)
    if not (isinstance(cls, type) and issubclass(cls, Metric)):
        raise TypeError(f"{module}.{name} is not a Metric")
    metric = cls.__new__(cls)
    for key, item in spec["state"].items():
        setattr(metric, key, _decode(item))
    return metric


def _table_entry(table: TurnTable, metrics: Iterable[Metric]) -> dict[str, Any] | None:
    """A statistics table collapsed to per-dialogue column sums (the bootstrap unit), with
    the metrics that can be cached; None when none can."""
    encoded = []
    for metric in metrics:
        try:
            if all(c in table.columns for c in metric.columns):
                encoded.append(_encode(metric))
        except TypeError:
            continue
    if not encoded:
        return None
    names = sorted({c for spec in encoded for c in spec["$metric"]["state"]["columns"]})
    return {"dialogue_ids": list(table.dialogue_ids), "metrics": encoded,
            "columns": table.dialogue_sums(names)}


def _issue_text(issue: Issue) -> str:
    return str(dataclasses.replace(issue, file=None))


def report_entry(report: Result, metadata: Mapping[str, Any], has_states: bool) -> dict:
    """A report as a cache entry: scores, notes, per-dialogue statistic sums, metrics."""
    tables = [t for table, metrics in report.stat_tables()
              if (t := _table_entry(table, metrics)) is not None]
    entry: dict[str, Any] = {
        "format": CACHE_FORMAT,
        "signature": {"corpus": report.signature.corpus, "split": report.signature.split,
                      "profile": report.signature.profile,
                      "fields": [list(f) for f in report.signature.fields],
                      "version": report.signature.version},
        "scores": report.scores, "coverage": report.coverage,
        "warnings": [_issue_text(i) for i in report.issues], "notes": list(report.notes),
        "metadata": dict(metadata), "has_states": has_states, "tables": tables}
    return orjson.loads(orjson.dumps(entry, option=orjson.OPT_SERIALIZE_NUMPY))


def entry_report(entry: Mapping[str, Any], source: str) -> Result:
    """The cache entry as a Result whose statistics tables have one row per dialogue (the
    same per-dialogue sums, so the same bootstrap), all in ``tables``."""
    sig = entry["signature"]
    signature = Signature(sig["corpus"], sig["split"], sig["profile"],
                          tuple(tuple(f) for f in sig["fields"]), sig["version"])
    scores = {k: float("nan") if v is None else v for k, v in entry["scores"].items()}
    tables = []
    for item in entry["tables"]:
        ids = list(item["dialogue_ids"])
        table = TurnTable({k: np.asarray(v, dtype=np.float64)
                           for k, v in item["columns"].items()},
                          np.arange(len(ids), dtype=np.int64), ids)
        tables.append((table, [_decode(m) for m in item["metrics"]]))
    return Result(scores=scores, signature=signature, coverage=entry["coverage"],
                  notes=list(entry["notes"]), tables=tables, predictions_source=source)


class ScoreCache:
    """``<dir>/<sha256>.json`` entries; unreadable or foreign entries are ignored."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    def get(self, key: str) -> dict[str, Any] | None:
        if self.directory is None:
            return None
        try:
            entry = orjson.loads((self.directory / f"{key}.json").read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return None
        return entry if isinstance(entry, dict) and entry.get("format") == CACHE_FORMAT else None

    def put(self, key: str, entry: Mapping[str, Any]) -> None:
        if self.directory is None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n", encoding="utf-8")
        temporary = self.directory / f".{key}.{os.getpid()}.tmp"
        temporary.write_bytes(orjson.dumps(entry))
        os.replace(temporary, self.directory / f"{key}.json")


@dataclass
class Scorer:
    """Scores submissions against one gold set, through the cache."""

    config: LeaderboardConfig
    cache: ScoreCache
    gold: GoldSet = field(init=False)
    gold_hash: str = field(init=False)
    options_key: dict[str, Any] = field(init=False)
    """The options in the cache key, resource paths replaced by their content hashes."""
    scored: list[str] = field(default_factory=list)
    """Ids of the submissions evaluated (not taken from the cache) in this run."""

    def __post_init__(self) -> None:
        self.gold_hash = content_hash(self.config.gold) if self.config.gold.exists() else ""
        self.gold = load_gold(self.config.gold, corpus=self.config.corpus,
                              split=self.config.split)
        for key in PATH_OPTIONS & set(self.config.options):
            if not Path(self.config.options[key]).exists():
                raise UsageError(f"[leaderboard.options] {key}: not found",
                                 file=self.config.options[key])
        self.options_key = {k: content_hash(Path(v)) if k in PATH_OPTIONS else v
                            for k, v in sorted(self.config.options.items())}

    def key(self, submission_hash: str) -> str:
        fields = {"format": CACHE_FORMAT, "submission": submission_hash, "gold": self.gold_hash,
                  "corpus": self.gold.corpus, "split": self.gold.split,
                  "profile": self.config.profile, "options": self.options_key,
                  "harness": harness_fingerprint()}
        return hashlib.sha256(orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)).hexdigest()

    def entry(self, candidate: Candidate, *, use_cache: bool = True) -> dict[str, Any]:
        """The cache entry of a checked submission; Refused when it cannot be scored."""
        size = submission_size(candidate.predictions, candidate.source.root)
        if size > self.config.max_bytes:
            raise Refused(f"{size / MB:.3g} MB is over the {self.config.max_bytes / MB:g} MB "
                          "submission limit (max_submission_mb)")
        key = self.key(content_hash(candidate.predictions))
        cached = self.cache.get(key) if use_cache else None
        if cached is not None:
            return cached
        entry = self._score(candidate)
        if use_cache:
            self.cache.put(key, entry)
        return entry

    def _score(self, candidate: Candidate) -> dict[str, Any]:
        options = dict(self.config.options)
        pred_format = options.pop("pred_format", None)
        self.scored.append(candidate.id)
        try:
            predictions = read_predictions(candidate.predictions, pred_format=pred_format,
                                           corpus=self.gold.corpus)
            report = evaluate(predictions, gold=self.gold, profile=self.config.profile,
                              **options)
        except DstEvalError as exc:
            location = ", ".join(p for p in (exc.dialogue and f"dialogue {exc.dialogue}",
                                             exc.turn is not None and f"turn {exc.turn}") if p)
            raise Refused(f"{location}: {exc.message}" if location else exc.message) from None
        except Exception as exc:  # an untrusted file must not stop the other submissions
            message = " ".join(str(exc).split())[:200]
            raise Refused(f"internal error while scoring ({type(exc).__name__}: {message}); "
                          "please report it") from None
        return report_entry(report, predictions.metadata, predictions.has_states)


# ---- ranking ---------------------------------------------------------------------------
@dataclass
class Row:
    id: str
    metadata: dict[str, Any]
    report: Result
    scores: dict[str, float]
    coverage: float
    warnings: list[str]
    notes: list[str]
    rank: int | None = None
    rank_interval: tuple[int, int] | None = None
    intervals: dict[str, dict[str, float]] = field(default_factory=dict)
    p_vs_leader: float | None = None


@dataclass
class Invalid:
    id: str
    reason: str


@dataclass
class Leaderboard:
    config: LeaderboardConfig
    signature: str
    gold_name: str
    gold_hash: str
    rows: list[Row]
    invalid: list[Invalid]
    notes: list[str]
    scored: list[str]

    @property
    def ranked(self) -> list[Row]:
        return [r for r in self.rows if r.rank is not None]


def make_row(candidate: Candidate, entry: Mapping[str, Any],
             config: LeaderboardConfig) -> Row:
    """A scored submission's row (metadata checked, notes for n/a metrics); Refused if
    invalid."""
    if not entry["coverage"].get("coverage"):
        raise Refused("no prediction for any gold turn: none of its dialogue ids is in the "
                      "gold data")
    default = Path(candidate.id).stem
    if candidate.manifest is not None:
        raw, allowed = candidate.manifest, MANIFEST_KEYS
        if entry["metadata"]:
            raise Refused("metadata both in a metadata file and embedded in the predictions")
    else:
        raw, allowed = entry["metadata"], METADATA_KEYS
    metadata, notes = clean_metadata(raw, default_name=default, allowed=allowed)
    report = entry_report(entry, candidate.id)
    notes += _drop_inconsistent_statistics(report)
    absent = [m for m in config.metrics if m not in report.scores]
    stateless = [m for m in absent if not entry["has_states"] and _state_metric(m)]
    if stateless:
        notes.append(f"no dialogue states ('state') in the predictions: {', '.join(stateless)} "
                     "n/a")
    notes += [f"{name}: not computed for this submission" for name in absent
              if name not in stateless and not _explained(name, report.notes)]
    scores = {m: float(report.scores.get(m, float("nan"))) for m in config.metrics}
    return Row(candidate.id, metadata, report, scores, float(entry["coverage"]["coverage"]),
               list(entry["warnings"]), notes + list(report.notes))


def _explained(metric: str, notes: Iterable[str]) -> bool:
    """Whether a scorer note says why ``metric`` is n/a (``"a, b*: n/a (reason)"``)."""
    for note in notes:
        names, marker, _ = note.partition(": n/a")
        if marker and any(fnmatch.fnmatchcase(metric, n.strip()) for n in names.split(",")):
            return True
    return False


def _drop_inconsistent_statistics(report: Result) -> list[str]:
    """Keep a metric's statistics only if they reproduce its score (else its interval and
    tests would describe another number); notes for those dropped."""
    notes, kept_tables = [], []
    for table, metrics in report.tables:
        kept = []
        for metric in metrics:
            value, score = metric.score(table), report.scores.get(metric.name, float("nan"))
            if math.isclose(value, score, rel_tol=1e-9, abs_tol=1e-12) or (
                    math.isnan(value) and math.isnan(score)):
                kept.append(metric)
            else:
                notes.append(f"{metric.name}: no interval or test (its per-dialogue "
                             f"statistics give {value:.6g}, not the score {score:.6g})")
        if kept:
            kept_tables.append((table, kept))
    report.tables = kept_tables
    return notes


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def rank_rows(rows: list[Row], config: LeaderboardConfig) -> list[Row]:
    """Ranked rows (best first; equal scores share a rank), then unranked ones by name."""
    key = config.rank_by
    sign = 1.0 if config.higher_is_better else -1.0
    ranked = sorted((r for r in rows if _finite(r.scores[key])),
                    key=lambda r: (-sign * r.scores[key], r.metadata["name"].casefold(), r.id))
    for row in ranked:
        row.rank = 1 + sum(sign * other.scores[key] > sign * row.scores[key] for other in ranked)
    unranked = sorted((r for r in rows if not _finite(r.scores[key])),
                      key=lambda r: (r.metadata["name"].casefold(), r.id))
    return ranked + unranked


def _restricted(report: Result, names: Iterable[str],
                signature: Signature | None = None) -> Result:
    """A copy whose statistics tables keep only the metrics ``names`` (and, for a paired
    test, the leader's signature: rows of one board were scored with the same settings,
    but submissions without states lack the DST fields)."""
    names = set(names)
    tables = [(t, kept) for t, metrics in report.stat_tables()
              if (kept := [m for m in metrics if m.name in names])]
    return dataclasses.replace(report, tables=tables, confidence_intervals=None,
                               signature=signature or report.signature)


def add_statistics(rows: list[Row], config: LeaderboardConfig) -> dict[str, str]:
    """CIs of the shown metrics, rank intervals and p-values against the leader; returns
    the signature fields of the bootstrap."""
    fields: dict[str, str] = {}
    for row in rows:
        report = _restricted(row.report, config.metrics)
        if report.stat_tables():
            fields = add_bootstrap(report, config.bootstrap, config.seed)
            row.intervals = report.extra["confidence_intervals"]
    ranked = [r for r in rows if r.rank is not None]
    if not ranked or not all(_rank_statistics(r, config.rank_by) for r in ranked):
        return fields  # no per-turn statistics behind the ranking metric: no tests
    leader = _restricted(ranked[0].report, [config.rank_by])
    for row in ranked[1:]:
        system = _restricted(row.report, [config.rank_by], leader.signature)
        try:
            result = compare_reports([leader, system], test="bs", n=config.bootstrap,
                                     seed=config.seed, names=[ranked[0].id, row.id])
        except UsageError:  # e.g. missing = "skip" scored other dialogues or turns
            row.notes.append("no test against rank 1: the two were scored on different "
                             "dialogues or turns (options.missing = 'skip'?)")
            continue
        row.p_vs_leader = result["systems"][1]["scores"][config.rank_by]["p_bs"]
    _rank_intervals(ranked, config)
    return fields


def _rank_statistics(row: Row, name: str) -> tuple[TurnTable, Metric] | None:
    """The (per-dialogue table, metric) behind the ranking metric, if any."""
    return next(((table, m) for table, metrics in row.report.stat_tables() for m in metrics
                 if m.name == name), None)


def _rank_intervals(ranked: list[Row], config: LeaderboardConfig) -> None:
    statistics = [_rank_statistics(row, config.rank_by) for row in ranked]
    ids = statistics[0][0].dialogue_ids
    if any(table.dialogue_ids != ids for table, _ in statistics):
        return
    counts = resample_counts(resample_indices(len(ids), config.bootstrap, seed=config.seed),
                             len(ids))
    scores = []
    for table, metric in statistics:
        sums = table.dialogue_sums(metric.columns)
        values = metric.from_sums({c: counts @ sums[c] for c in metric.columns})
        scores.append(np.broadcast_to(np.asarray(values, dtype=float), (config.bootstrap,)))
    matrix = np.vstack(scores) * (1.0 if config.higher_is_better else -1.0)
    matrix = np.where(np.isfinite(matrix), matrix, -np.inf)
    ranks = 1 + (matrix[None, :, :] > matrix[:, None, :]).sum(axis=1)
    lower = config.bootstrap // 40
    for row, system_ranks in zip(ranked, np.sort(ranks, axis=1), strict=True):
        row.rank_interval = (int(system_ranks[lower]),
                             int(system_ranks[config.bootstrap - lower - 1]))


def _shared_notes(rows: list[Row]) -> list[str]:
    """Notes of several rows, once each (naming the rows unless all have it); each row keeps
    only its own."""
    counts = Counter(note for row in rows for note in dict.fromkeys(row.notes))
    shared = []
    for note in dict.fromkeys(note for row in rows for note in row.notes):
        holders = [row.metadata["name"] for row in rows if note in row.notes]
        if len(holders) > 1:
            shared.append(note if len(holders) == len(rows) else
                          f"{note} [{', '.join(holders)}]")
    for row in rows:
        row.notes = [note for note in row.notes if counts[note] == 1]
    return shared


def _statistics_notes(rows: list[Row], config: LeaderboardConfig) -> list[str]:
    """Say which shown metrics have no intervals (no per-dialogue statistics behind them)."""
    notes = []
    for metric in config.metrics:
        scored = [r for r in rows if _finite(r.scores[metric])]
        if scored and not any(metric in r.intervals for r in scored):
            tests = ", rank intervals or tests" if metric == config.rank_by else ""
            notes.append(f"{metric}: no intervals{tests} (its reports keep no per-dialogue "
                         "statistics)")
    return notes


def build_leaderboard(config: LeaderboardConfig, *, cache_dir: Path | None,
                      extra: Candidate | None = None) -> Leaderboard:
    """Validate, score (through the cache), rank and test every submission.

    ``extra`` adds a candidate (``--check``), replacing a discovered one with the same file.
    """
    scorer = Scorer(config, ScoreCache(cache_dir))
    candidates = discover(config)
    if extra is not None:
        candidates = [c for c in candidates if c.predictions != extra.predictions]
        if extra.id in {c.id for c in candidates}:
            extra = dataclasses.replace(extra, id=f"check/{extra.id}")
        candidates.append(extra)
    rows: list[Row] = []
    invalid: list[Invalid] = []
    roots = sorted({str(s.root) for s in config.sources}, key=len, reverse=True)
    for candidate in candidates:
        try:
            if candidate.error:
                raise Refused(candidate.error)
            entry = scorer.entry(candidate, use_cache=not candidate.rescore)
            rows.append(make_row(candidate, entry, config))
        except Refused as exc:
            invalid.append(Invalid(candidate.id, _relative_text(str(exc), roots)))
    rows = _unique_names(rows, invalid)
    _check_metric_names(rows, config)
    rows = rank_rows(rows, config)
    fields = add_statistics(rows, config) or {"bs": str(config.bootstrap),
                                              "seed": str(config.seed)}
    signature = board_signature(rows, fields)
    for row in rows:
        row.warnings = [_relative_text(w, roots) for w in row.warnings]
    notes = _shared_notes(rows) + _statistics_notes(rows, config)
    return Leaderboard(config, signature, config.gold.name, scorer.gold_hash, rows,
                       sorted(invalid, key=lambda i: i.id), notes, scorer.scored)


def board_signature(rows: list[Row], fields: Mapping[str, str]) -> str:
    """The rows' common signature plus the bootstrap fields. Submissions without states
    lack the DST fields of the others, so the fields are the union, in order, starting
    from the row with the most."""
    if not rows:
        return ""
    signatures = sorted((r.report.signature for r in rows), key=lambda s: -len(s.fields))
    merged = dict(signatures[0].fields)
    for other in signatures[1:]:
        merged.update({k: v for k, v in other.fields if k not in merged})
    return signatures[0].with_fields(**merged, **fields).format()


def _unique_names(rows: list[Row], invalid: list[Invalid]) -> list[Row]:
    """Rows whose name no other submission uses; the others become invalid."""
    by_name: dict[str, list[Row]] = {}
    for row in rows:
        by_name.setdefault(row.metadata["name"].casefold(), []).append(row)
    for group in by_name.values():
        if len(group) > 1:
            for row in group:
                invalid.append(Invalid(row.id, f"name {row.metadata['name']!r} is used by "
                                       f"{', '.join(r.id for r in group if r is not row)} "
                                       "too; names must be unique"))
    return [row for row in rows if len(by_name[row.metadata["name"].casefold()]) == 1]


def _check_metric_names(rows: list[Row], config: LeaderboardConfig) -> None:
    known = {name for row in rows for name in row.report.scores}
    unknown = [m for m in config.metrics if rows and m not in known
               and not any(_explained(m, row.report.notes) for row in rows)]
    if unknown:
        raise UsageError(f"metric {unknown[0]!r} of the config is not computed by profile "
                         f"{rows[0].report.signature.profile}; known: {', '.join(sorted(known))}")


def _relative_text(text: str, roots: Sequence[str]) -> str:
    for root in roots:
        text = text.replace(root + os.sep, "").replace(root, ".")
    return text


def check_candidate(config: LeaderboardConfig, path: Path) -> Candidate:
    """The ``--check`` submission (always rescored): the leaderboard's own when ``path`` is a
    discovered submission or the predictions file of one (then with its metadata file);
    otherwise a new one, whose own directory confines its metadata paths. A path inside a
    submissions directory that resolves outside it is refused, as in the leaderboard."""
    if not path.exists():
        raise UsageError("submission to check not found", file=str(path))
    resolved, lexical = path.resolve(), Path(os.path.abspath(path))
    for candidate in discover(config):
        if {resolved, lexical} & {candidate.entry, candidate.predictions}:
            return dataclasses.replace(candidate, rescore=True)
    several = len(config.sources) > 1
    for source in config.sources:
        if _inside(lexical, source.root) and lexical != source.root:
            shown = _display_id(source, lexical, several)
            if not _inside(resolved, source.root):
                return Candidate(shown, source, lexical, error="resolves outside the "
                                 "submissions directory (a symlink?)", rescore=True)
            break
        if _inside(resolved, source.root) and resolved != source.root:
            shown = _display_id(source, resolved, several)
            break
    else:
        source = Source(resolved.parent, (resolved.name,), "check")
        shown = resolved.name
    if resolved.suffix == ".toml":
        candidate = _from_manifest(shown, source, resolved)
    else:
        candidate = Candidate(shown, source, resolved, entry=resolved)
    return dataclasses.replace(candidate, rescore=True)


# ---- outputs ---------------------------------------------------------------------------
def _number(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _interval(ci: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not ci or not _finite(ci.get("ci_low")):
        return None
    return {k: ci[k] for k in ("ci_low", "ci_high", "mean", "half_width", "resamples")}


def leaderboard_data(board: Leaderboard) -> dict[str, Any]:
    """Everything the renderings show, JSON-ready (NaN as None): ``leaderboard.json``, in
    the layout :func:`dst_eval.html_report.render_leaderboard_html` documents."""
    config = board.config
    rows = []
    for row in board.rows:
        p = _number(row.p_vs_leader)
        rows.append({
            "rank": row.rank, "rank_interval": list(row.rank_interval or []) or None,
            "name": row.metadata["name"],
            "authors": ", ".join(row.metadata["authors"]) or None,
            **{k: row.metadata.get(k) for k in ("paper", "code", "model_size", "description")},
            "submission": row.id,
            "scores": {m: _number(row.scores[m]) for m in config.metrics},
            "ci": {m: _interval(row.intervals.get(m)) for m in config.metrics},
            "leader": row.rank is not None and row is board.rows[0],
            "p_vs_leader": p, "tied_with_leader": p is not None and p >= config.alpha,
            "coverage": row.coverage, "warnings": row.warnings, "notes": row.notes})
    return {
        "title": config.title, "signature": board.signature,
        "gold": {"file": board.gold_name, "sha256": board.gold_hash},
        "columns": list(config.metrics), "ranking_metric": config.rank_by,
        "higher_is_better": config.higher_is_better,
        "statistics": {"unit": "dialogue", "level": LEVEL, "resamples": config.bootstrap,
                       "seed": config.seed, "alpha": config.alpha,
                       "test": "paired bootstrap of the ranking metric against rank 1"},
        "rows": rows,
        "invalid": [{"file": i.id, "reason": i.reason} for i in board.invalid],
        "notes": board.notes}


def leaderboard_json(data: Mapping[str, Any]) -> str:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def score_cell(metric: str, row: Mapping[str, Any]) -> str:
    """``score [low, high]`` on the report's scale (no brackets without an interval)."""
    ci = row["ci"].get(metric)
    score = format_value(metric, row["scores"][metric])
    if not ci:
        return score
    return f"{score} [{format_value(metric, ci['ci_low'])}, {format_value(metric, ci['ci_high'])}]"


def rank_cells(row: Mapping[str, Any]) -> tuple[str, str]:
    """("2†", "1–4"): rank, † when not significantly different from rank 1; rank interval."""
    if row["rank"] is None:
        return "–", ""
    span = row["rank_interval"]
    return (f"{row['rank']}{'†' if row['tied_with_leader'] else ''}",
            f"{span[0]}–{span[1]}" if span else "")


def _p_text(row: Mapping[str, Any]) -> str:
    if row["leader"]:
        return "leader"
    return "" if row["p_vs_leader"] is None else f"{row['p_vs_leader']:.4f}"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~!&])")


def md(text: str) -> str:
    """Text safe in a Markdown table cell (no markup, links, HTML or cell breaks)."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def legend(data: Mapping[str, Any]) -> list[str]:
    stats, metric = data["statistics"], data["ranking_metric"]
    level = f"{100 * stats['level']:.0f} %"
    return [
        f"Ranked by `{metric}` ({'higher' if data['higher_is_better'] else 'lower'} is "
        f"better); equal scores share a rank. [low, high]: {level} interval of the score; "
        f"rank interval: {level} interval of the rank; both from {stats['resamples']} "
        f"bootstrap resamples of whole dialogues (seed {stats['seed']}).",
        f"† not significantly different from rank 1 on `{metric}` (paired bootstrap over "
        f"dialogues, p ≥ {stats['alpha']}); p vs #1 is that test's p-value. Fractions are "
        "shown as percentages. Coverage: share of gold turns predicted.",
    ]


def markdown_table(data: Mapping[str, Any]) -> list[str]:
    """The leaderboard table as Markdown lines (header, alignment row, one row per system)."""
    metrics = data["columns"]
    header = ["Rank", "Rank interval", "System", "Authors", "Links", "Size", "Coverage",
              *(f"`{m}`" for m in metrics), "p vs #1"]
    lines = ["| " + " | ".join(header) + " |",
             "|---:|:---:|---|---|---|---:|---:|" + "---:|" * len(metrics) + "---:|"]
    for row in data["rows"]:
        links = " · ".join(f"[{k}]({row[k]})" for k in ("paper", "code") if row.get(k))
        cells = [*rank_cells(row), f"**{md(row['name'])}**", md(row["authors"] or ""), links,
                 md(row["model_size"] or ""), format_value("coverage", row["coverage"])]
        cells += [score_cell(m, row) for m in metrics]
        lines.append("| " + " | ".join([*cells, _p_text(row)]) + " |")
    return lines


def _submission_notes(data: Mapping[str, Any]) -> list[str]:
    lines = []
    for row in data["rows"]:
        parts = list(row["notes"])
        if row["warnings"]:
            parts.append(f"{len(row['warnings'])} warning(s), listed in leaderboard.json")
        if parts:
            lines.append(f"- {md(row['name'])} (`{md(row['submission'])}`): "
                         + "; ".join(md(p) for p in parts))
    return lines


def render_markdown(data: Mapping[str, Any]) -> str:
    """``leaderboard.md``: title, gold and signature, the table, legend, notes, invalid."""
    lines = [f"# {md(data['title'])}", "",
             f"Gold `{md(data['gold']['file'])}` (sha256 `{data['gold']['sha256'][:12]}`), "
             f"signature `{data['signature']}`", "", *markdown_table(data), ""]
    lines += [f"{line}  " for line in legend(data)]
    notes = [f"- {md(n)}" for n in data["notes"]] + _submission_notes(data)
    if notes:
        lines += ["", "Notes:", "", *notes]
    if data["invalid"]:
        lines += ["", "Invalid submissions (not scored):", ""]
        lines += [f"- `{md(i['file'])}`: {md(i['reason'])}" for i in data["invalid"]]
    return "\n".join(lines) + "\n"


OUTPUTS = ("leaderboard.md", "leaderboard.json", "leaderboard.html")


def write_outputs(board: Leaderboard, directory: Path) -> list[Path]:
    """Write ``leaderboard.md``, ``.json`` and ``.html`` into ``directory``."""
    from dst_eval.html_report import render_leaderboard_html

    data = leaderboard_data(board)
    texts = (render_markdown(data), leaderboard_json(data), render_leaderboard_html(data))
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in zip(OUTPUTS, texts, strict=True):
        (directory / name).write_bytes(text.encode("utf-8"))
        paths.append(directory / name)
    return paths


def check_report(board: Leaderboard, candidate_id: str) -> tuple[bool, str]:
    """(valid, text) for ``--check``: the candidate's row and where it would rank."""
    data = leaderboard_data(board)
    for invalid in data["invalid"]:
        if invalid["file"] == candidate_id:
            return False, f"{candidate_id}: INVALID: {invalid['reason']}\n"
    row = next(r for r in data["rows"] if r["submission"] == candidate_id)
    n_ranked = sum(r["rank"] is not None for r in data["rows"])
    if row["rank"] is None:
        where = f"not ranked: no {data['ranking_metric']} score (see the notes)"
    else:
        where = f"would rank {row['rank']} of {n_ranked}"
        if row["rank_interval"]:
            where += f" (95 % rank interval {rank_cells(row)[1]})"
        if row["leader"]:
            where += "; it would be the leader"
        elif row["p_vs_leader"] is not None:
            verdict = ("not significantly different from" if row["tied_with_leader"]
                       else "significantly different from")
            where += (f"; {verdict} rank 1 ({data['rows'][0]['name']}), "
                      f"p = {row['p_vs_leader']:.4f}")
    lines = [*markdown_table({**data, "rows": [row]}), "", f"{candidate_id}: {where}"]
    lines += [f"note: {n}" for n in row["notes"]]
    lines += [f"warning: {w}" for w in row["warnings"]]
    return True, "\n".join(lines) + "\n"
