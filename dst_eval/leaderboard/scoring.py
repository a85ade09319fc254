"""Scoring submissions against one gold set, through the score cache.

:class:`Scorer` loads the gold data once (recording every file the loader reads), then for
each submission: checks its size, computes its cache key
(:mod:`dst_eval.leaderboard.cache`), serves a valid entry or scores it with
:func:`dst_eval.evaluate` (recording what that reads) and turns the result into a
plain-data :class:`~dst_eval.leaderboard.cache.Entry`. A fresh entry takes the same
encode/decode path as a cached one, which is what makes a fresh build and a cached build
byte-identical.

An entry's inputs are every file and listing recorded in this run so far (the gold load,
this scoring and the scorings before it, whose in-process caches this one may reuse) plus
the inputs of the entries served in this run, minus the submission itself (its bytes are
in the key). No entry is written when a recorded file changed while the run read it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from dst_eval import evaluate
from dst_eval.corpora import load_gold
from dst_eval.errors import CoverageError, DstEvalError, GoldDataError, UsageError
from dst_eval.gold import GoldSet
from dst_eval.leaderboard.cache import (
    CACHE_FORMAT,
    Entry,
    Input,
    MetricData,
    ScoreCache,
    SignatureData,
    TableData,
    decode,
    encode,
    harness_fingerprint,
)
from dst_eval.leaderboard.config import MB, PATH_OPTIONS, LeaderboardConfig
from dst_eval.leaderboard.content import predictions_digest
from dst_eval.leaderboard.reads import (
    Digests,
    Inputs,
    Recording,
    excluding,
    neighbourhood,
    unchanged,
)
from dst_eval.leaderboard.statistics import resample_statistics, to_bytes
from dst_eval.leaderboard.submissions import (
    Candidate,
    GoldProblem,
    Refused,
    content_hash,
    submission_key,
    submission_size,
)
from dst_eval.options import DEFAULT_MIN_COVERAGE
from dst_eval.predictions.adapted import MARKERS
from dst_eval.predictions.reader import read_predictions


def _number(value: Any) -> float | None:
    """A score as a finite float, or None (NaN, infinite, not a number)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _issue_text(issue: Any) -> str:
    return str(dataclasses.replace(issue, file=None))


def result_entry(result: Any, key: str, metadata: Any, has_states: bool,
                 n_resamples: int, seed: int, predictions_digest: str) -> Entry:
    """A :class:`~dst_eval.result.Result` (or the older ``Report``) as a cache entry."""
    statistics, statistics_notes = resample_statistics(result, n_resamples, seed)
    tables: list[TableData] = []
    positions: dict[Any, int] = {}
    metrics = []
    for item in statistics:
        if item.table not in positions:
            positions[item.table] = len(tables)
            tables.append(TableData(item.table.dialogues, item.table.n_dialogues,
                                    item.table.gold_turns))
        metrics.append(MetricData(item.name, positions[item.table], _number(item.full),
                                  to_bytes(item.resamples)))
    signature = result.signature
    return Entry(
        format=CACHE_FORMAT, key=key,
        signature=SignatureData(signature.corpus, signature.split, signature.profile,
                                [(str(k), str(v)) for k, v in signature.fields],
                                signature.version),
        scores={str(name): _number(value) for name, value in result.scores.items()},
        coverage=_number((result.coverage or {}).get("coverage")),
        warnings=[_issue_text(issue) for issue in result.issues],
        notes=[str(note) for note in result.notes], statistics_notes=statistics_notes,
        metadata=orjson.loads(orjson.dumps(dict(metadata))), has_states=bool(has_states),
        predictions_digest=predictions_digest, tables=tables, statistics=metrics)


@dataclass
class Scorer:
    """Scores submissions against one gold set, through the cache."""

    config: LeaderboardConfig
    cache: ScoreCache
    gold: GoldSet = field(init=False)
    gold_hash: str = field(init=False)
    gold_inputs: list[list[str]] = field(init=False)
    """Every file and listing the gold load read, ``[kind, path, digest]``: in the key, so
    an entry computed on another gold copy (another split list, schema, ``db/``) is never
    served, whatever its own inputs say."""
    options_key: dict[str, Any] = field(init=False)
    """The options in the cache key, resource paths replaced by their content hashes."""
    scored: list[str] = field(default_factory=list)
    """Ids of the submissions evaluated (not taken from the cache) in this run."""
    cached: list[str] = field(default_factory=list)
    """Ids of the submissions whose entry the cache served in this run."""
    reads: Inputs = field(init=False)
    """Everything read in this run while loading the gold data and scoring (but the
    submissions themselves)."""
    served: set[tuple[str, str]] = field(default_factory=set)
    """Inputs of the entries served from the cache in this run."""
    digests: Digests = field(default_factory=Digests)
    contents: dict[str, str] = field(default_factory=dict)
    """Submission id -> the content hash of its predictions (a file's or a directory's:
    :func:`~dst_eval.leaderboard.submissions.content_hash`), for every submission checked."""

    def __post_init__(self) -> None:
        self.gold_hash = content_hash(self.config.gold) if self.config.gold.exists() else ""
        with Recording() as recording:
            self.gold = load_gold(self.config.gold, corpus=self.config.corpus,
                                  split=self.config.split)
        self.reads = {**recording.inputs, **neighbourhood(self.config.gold)}
        self.gold_inputs = [[kind, path, self.digests(kind, path)]
                            for kind, path in sorted(self.reads)]
        for key in PATH_OPTIONS & set(self.config.options):
            if not Path(self.config.options[key]).exists():
                raise UsageError(f"[leaderboard.options] {key}: not found",
                                 file=self.config.options[key])
        self.options_key = {k: content_hash(Path(v)) if k in PATH_OPTIONS else v
                            for k, v in sorted(self.config.options.items())}

    def key(self, submission: Any) -> str:
        fields = {"format": CACHE_FORMAT, "submission": submission, "gold": self.gold_hash,
                  "gold_inputs": self.gold_inputs,
                  "corpus": self.gold.corpus, "split": self.gold.split,
                  "profile": self.config.profile, "options": self.options_key,
                  "bootstrap": self.config.bootstrap, "seed": self.config.seed,
                  "harness": harness_fingerprint()}
        return hashlib.sha256(orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)).hexdigest()

    def entry(self, candidate: Candidate, *, use_cache: bool = True) -> Entry:
        """The entry of a checked submission; Refused when it cannot be scored."""
        size = submission_size(candidate.predictions, candidate.source.root,
                               limit=self.config.max_bytes)
        if size > self.config.max_bytes:
            path = candidate.predictions
            zipped = path.suffix.lower() == ".zip" or (
                path.is_dir() and any(p.suffix.lower() == ".zip" for p in path.rglob("*")))
            limit = f"{self.config.max_bytes / MB:g} MB submission limit (max_submission_mb)"
            if zipped:  # measuring stopped at the limit
                raise Refused(f"over the {limit} once decompressed")
            raise Refused(f"{size / MB:.3g} MB is over the {limit}")
        files: list[str] = []
        identity = submission_key(candidate.predictions, files)
        self.contents[candidate.id] = identity[-1]
        gold = next((f for f in self.gold.files if f.sha256 in files  # a file, or one of
                     and Path(f.path).name != "schema.json"), None)  # a folder's (SGD's:
        if gold is not None:  # its reader skips the schema.json prediction folders carry)
            raise Refused(f"holds a copy of the board's gold file {Path(gold.path).name}: a "
                          "submission holds a system's predictions")
        key = self.key(identity)
        if use_cache:
            cached = self.cache.get(key, self.digests, self.config.bootstrap)
            if cached is not None:
                self.served.update((i.kind, i.path) for i in cached.inputs)
                self.cached.append(candidate.id)
                return cached
        with Recording() as recording:
            try:
                entry = self._score(candidate, key)
            finally:
                self.reads.update(excluding(recording.inputs, candidate.predictions))
        entry.inputs = [Input(kind, path, self.digests(kind, path))
                        for kind, path in sorted(set(self.reads) | self.served)]
        data = encode(entry)
        if use_cache and unchanged(self.reads):
            self.cache.put(key, entry)
        fresh = decode(data)
        assert fresh is not None  # noqa: S101 - what was just encoded decodes
        return fresh

    def _score(self, candidate: Candidate, key: str) -> Entry:
        options = dict(self.config.options)
        pred_format = options.pop("pred_format", None)
        self.scored.append(candidate.id)
        try:
            predictions = read_predictions(candidate.predictions, pred_format=pred_format,
                                           corpus=self.gold.corpus)
            result = evaluate(predictions, gold=self.gold, profile=self.config.profile,
                              **options)
            embedded = {k: v for k, v in predictions.metadata.items() if k not in MARKERS}
            return result_entry(result, key, embedded, predictions.has_states,
                                self.config.bootstrap, self.config.seed,
                                predictions_digest(result.turns))
        except CoverageError as exc:  # the leaderboard's knob, not the command line's
            where = exc.message.split(";")[0]
            raise Refused(f"{where}, fewer than options.min_coverage "
                          f"({self.config.options.get('min_coverage', DEFAULT_MIN_COVERAGE):g}) "
                          f"of them; min_coverage = {exc.accepts:.2f} or lower in "
                          "[leaderboard.options] accepts it") from None
        except GoldDataError as exc:  # the board's gold (or its resources): not blamed on
            # the submission, and not allowed to stop the others' scoring (a submission with
            # responses makes the scorer read goals that a DST-only one never touches)
            raise GoldProblem(f"not scored: a problem with the board's gold data, not with "
                              f"this submission: {exc}") from None
        except DstEvalError as exc:
            location = ", ".join(p for p in (exc.dialogue and f"dialogue {exc.dialogue}",
                                             exc.turn is not None and f"turn {exc.turn}") if p)
            raise Refused(f"{location}: {exc.message}" if location else exc.message) from None
        except Exception as exc:  # an untrusted file must not stop the other submissions
            message = " ".join(str(exc).split())[:200]
            raise Refused(f"internal error while scoring ({type(exc).__name__}: {message}); "
                          "please report it") from None
