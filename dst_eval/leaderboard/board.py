"""A leaderboard: every submission validated, scored (through the cache), ranked, tested.

:func:`build_leaderboard` discovers the submissions, scores each
(:class:`~dst_eval.leaderboard.scoring.Scorer`), turns each entry into a :class:`Row`
(metadata checked, notes for n/a metrics), refuses copies (the same bytes, or the same
predictions once read: :mod:`~dst_eval.leaderboard.content`) and duplicate names, ranks
the rows (equal scores share a rank; ties sort by name) and adds the statistics of
:mod:`dst_eval.leaderboard.statistics`: score intervals of the shown metrics, the paired
test of every ranked row against rank 1 and rank intervals.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from dst_eval.errors import UsageError
from dst_eval.leaderboard.cache import Entry, ScoreCache
from dst_eval.leaderboard.config import PATH_OPTIONS, LeaderboardConfig
from dst_eval.leaderboard.scoring import Scorer
from dst_eval.leaderboard.statistics import (
    MetricResamples,
    TableKey,
    from_bytes,
    intervals,
    paired_p_value,
    rank_intervals,
)
from dst_eval.leaderboard.submissions import (
    MANIFEST_KEYS,
    METADATA_KEYS,
    Candidate,
    GoldProblem,
    Refused,
    clean_metadata,
    discover,
    name_key,
)
from dst_eval.signature import Signature
from dst_eval.significance import few_dialogues_note, few_resamples_note

STATE_METRIC_PREFIXES = ("joint_goal_accuracy", "slot_", "average_goal_accuracy",
                         "relative_slot_accuracy", "turn_accuracy", "flexible_goal_accuracy")
"""Metrics computed from predicted dialogue states (n/a for a submission without states)."""


@dataclass
class Row:
    id: str
    metadata: dict[str, Any]
    entry: Entry
    scores: dict[str, float]
    coverage: float
    warnings: list[str]
    notes: list[str]
    statistics: dict[str, MetricResamples] = field(default_factory=dict)
    """Metric name -> its resample scores (metrics with per-dialogue statistics only)."""
    rank: int | None = None
    rank_interval: tuple[int, int] | None = None
    intervals: dict[str, dict[str, float]] = field(default_factory=dict)
    p_vs_leader: float | None = None

    @property
    def signature(self) -> Signature:
        data = self.entry.signature
        return Signature(data.corpus, data.split, data.profile,
                         tuple((k, v) for k, v in data.fields), data.version)


@dataclass
class Invalid:
    id: str
    reason: str
    gold: bool = False
    """Not the submission's fault: a problem of the board's gold (exit 4)."""


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
    cached: list[str] = field(default_factory=list)
    """Ids of the submissions whose entry the cache served (the others were scored, or
    refused before scoring)."""

    @property
    def ranked(self) -> list[Row]:
        return [r for r in self.rows if r.rank is not None]

    @property
    def resampled(self) -> bool:
        """Whether resampling ran: some row has an interval (else no shown metric keeps
        per-dialogue statistics, and there is no interval, test or rank interval)."""
        return _any_interval(self.rows)


def _any_interval(rows: list[Row]) -> bool:
    """:attr:`Leaderboard.resampled` of ``rows``."""
    return any(row.intervals for row in rows)


def _state_metric(name: str) -> bool:
    return name.startswith(STATE_METRIC_PREFIXES)


def _nan(value: float | None) -> float:
    return float("nan") if value is None else value


def entry_statistics(entry: Entry) -> dict[str, MetricResamples]:
    """The entry's resample scores by metric name."""
    tables = [TableKey(t.dialogues, t.n_dialogues, t.gold_turns) for t in entry.tables]
    return {m.name: MetricResamples(m.name, tables[m.table], _nan(m.full),
                                    from_bytes(m.resamples)) for m in entry.statistics}


def make_row(candidate: Candidate, entry: Entry, config: LeaderboardConfig) -> Row:
    """A scored submission's row (metadata checked, notes for n/a metrics); Refused if
    invalid."""
    if not entry.coverage:
        raise Refused("no prediction for any gold turn: none of its dialogue ids is in the "
                      "gold data")
    default = Path(candidate.id).stem
    if candidate.manifest is not None:
        raw, allowed = candidate.manifest, MANIFEST_KEYS
        if entry.metadata:
            raise Refused("metadata both in a metadata file and embedded in the predictions")
    else:
        raw, allowed = entry.metadata, METADATA_KEYS
    metadata, notes = clean_metadata(raw, default_name=default, allowed=allowed)
    notes += entry.statistics_notes
    absent = [m for m in config.metrics if m not in entry.scores]
    stateless = [m for m in absent if not entry.has_states and _state_metric(m)]
    if stateless:
        notes.append(f"no dialogue states ('state') in the predictions: {', '.join(stateless)} "
                     "n/a")
    notes += [f"{name}: not computed for this submission" for name in absent
              if name not in stateless and not _explained(name, entry.notes)]
    scores = {m: _nan(entry.scores.get(m)) for m in config.metrics}
    return Row(candidate.id, metadata, entry, scores, float(entry.coverage),
               list(entry.warnings), notes + list(entry.notes), entry_statistics(entry))


def _explained(metric: str, notes: Iterable[str]) -> bool:
    """Whether a scorer note says why ``metric`` is n/a (``"a, b*: n/a (reason)"``)."""
    for note in notes:
        names, marker, _ = note.partition(": n/a")
        if marker and any(fnmatch.fnmatchcase(metric, n.strip()) for n in names.split(",")):
            return True
    return False


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


def add_statistics(rows: list[Row], config: LeaderboardConfig) -> list[str]:
    """Intervals of the shown metrics, the paired test of every ranked row against rank 1
    and, when all ranked rows share their dialogues, rank intervals; returns the board's
    notes (why there are no rank intervals)."""
    for row in rows:
        row.intervals = intervals(row.statistics, config.metrics)
    ranked = [r for r in rows if r.rank is not None]
    if not ranked or not all(config.rank_by in r.statistics for r in ranked):
        return []  # no per-dialogue statistics behind the ranking metric: no tests
    leader = ranked[0].statistics[config.rank_by]
    for row in ranked[1:]:
        system = row.statistics[config.rank_by]
        if leader.table.pairs_with(system.table) is not None:
            row.notes.append("no test against rank 1: the two were scored on different "
                             "dialogues or turns (options.missing = 'skip'?)")
            continue
        row.p_vs_leader = paired_p_value(leader, system)
    systems = [row.statistics[config.rank_by] for row in ranked]
    first = systems[0].table
    if all((s.table.dialogues, s.table.n_dialogues) == (first.dialogues, first.n_dialogues)
           for s in systems):
        spans = rank_intervals(systems, higher_is_better=config.higher_is_better)
        for row, span in zip(ranked, spans, strict=True):
            row.rank_interval = span
        return []
    return ["no rank intervals: the ranked submissions were not all scored on the same "
            "dialogues (options.missing = 'skip'?), so their resamples cannot be compared"]


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
    sizes = [r.entry.tables[0].n_dialogues for r in rows if r.intervals and r.entry.tables]
    if sizes and (note := few_dialogues_note(min(sizes))) is not None:
        notes.append(note)  # as a single run and compare say it
    if sizes and (note := few_resamples_note(config.bootstrap)) is not None:
        notes.append(note)
    return notes


def build_leaderboard(config: LeaderboardConfig, *, cache_dir: Path | None,
                      extra: Candidate | None = None,
                      previous: Path | None = None,
                      progress: Callable[[str, int, int], None] | None = None) -> Leaderboard:
    """Validate, score (through the cache), rank and test every submission.

    ``extra`` adds a candidate (``--check``), replacing the discovered one of the same glob
    match (metadata file or predictions file).
    ``previous``: the ``leaderboard.json`` published before, whose rows are the existing
    submissions (without it: those served from the cache); when names clash, an existing
    submission keeps its name and the newcomers are refused. ``progress(stage, done,
    total)`` is told each submission as it is scored.
    """
    scorer = Scorer(config, ScoreCache(cache_dir))
    published = published_ids(previous)
    candidates = discover(config, keep=published or ())
    if extra is not None:
        candidates = [c for c in candidates if c.entry != extra.entry]
        if extra.id in {c.id for c in candidates}:
            extra = dataclasses.replace(extra, id=f"check/{extra.id}")
        candidates.append(extra)
    rows: list[Row] = []
    invalid: list[Invalid] = []
    roots = sorted({str(s.root) for s in config.sources}, key=len, reverse=True)
    gold_roots = _gold_roots(config)  # a gold problem's reason names files by their names
    for done, candidate in enumerate(candidates):
        if progress is not None:
            progress(f"scoring {candidate.id}", done, len(candidates))
        try:
            if candidate.error:
                raise Refused(candidate.error)
            entry = scorer.entry(candidate, use_cache=not candidate.rescore)
            rows.append(make_row(candidate, entry, config))
        except Refused as exc:
            gold = isinstance(exc, GoldProblem)
            invalid.append(Invalid(candidate.id, _relative_text(
                str(exc), gold_roots + roots if gold else roots), gold=gold))
    existing = published
    if existing is None:
        existing = {row.id for row in rows if row.id not in scorer.scored}
    if progress is not None:
        progress("ranking and significance tests", len(candidates), len(candidates))
    rows = _unique(rows, invalid, existing, lambda row: scorer.contents[row.id],
                   _same_predictions)
    rows = _unique(rows, invalid, existing, lambda row: row.entry.predictions_digest,
                   _same_predictions_read)
    rows = _unique(rows, invalid, existing, lambda row: name_key(row.metadata["name"]),
                   _name_clash)
    _check_metric_names(rows, config)
    rows = rank_rows(rows, config)
    statistics_notes = add_statistics(rows, config)
    signature = board_signature(rows, {"bs": str(config.bootstrap), "seed": str(config.seed)}
                                if _any_interval(rows) else {})
    for row in rows:
        row.warnings = [_relative_text(w, roots) for w in row.warnings]
    notes = _shared_notes(rows) + _statistics_notes(rows, config) + statistics_notes
    return Leaderboard(config, signature, config.gold.name, scorer.gold_hash, rows,
                       sorted(invalid, key=lambda i: i.id), notes, scorer.scored,
                       scorer.cached)


def board_signature(rows: list[Row], fields: Mapping[str, str]) -> str:
    """The rows' common signature plus the bootstrap fields (none when no resampling ran:
    no shown metric keeps per-dialogue statistics). Submissions without states
    lack the DST fields of the others, so the fields are the union, in order, starting
    from the row with the most."""
    if not rows:
        return ""
    signatures = sorted((r.signature for r in rows), key=lambda s: -len(s.fields))
    merged = dict(signatures[0].fields)
    for other in signatures[1:]:
        merged.update({k: v for k, v in other.fields if k not in merged})
    return signatures[0].with_fields(**merged, **fields).format()


def published_ids(path: Path | None) -> set[str] | None:
    """The submission ids of the rows of a published ``leaderboard.json`` (None when there
    is none or it cannot be read)."""
    if path is None:
        return None
    try:
        rows = orjson.loads(path.read_bytes())["rows"]
        return {str(row["submission"]) for row in rows}
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return None


def _unique(rows: list[Row], invalid: list[Invalid], existing: set[str],
            key: Callable[[Row], str], reason: Callable[[Row, list[Row], Row | None], str]
            ) -> list[Row]:
    """Rows whose ``key`` no other row shares, or that hold it as the ``existing``
    submission with it (the first by id, when a board published before this check holds
    several); the others become invalid, with ``reason(row, group, holder)``."""
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row)
    refused: set[str] = set()
    for group in groups.values():
        holders = sorted((row for row in group if row.id in existing), key=lambda r: r.id)
        holder = holders[0] if holders else None
        for row in group:
            if len(group) > 1 and row is not holder:
                refused.add(row.id)
                invalid.append(Invalid(row.id, reason(row, group, holder)))
    return [row for row in rows if row.id not in refused]


def _name_clash(row: Row, group: list[Row], holder: Row | None) -> str:
    if holder is not None:
        return (f"name {row.metadata['name']!r} is already used by {holder.id} (names must "
                "be unique, ignoring case, compatibility forms and look-alike letters of "
                "other scripts); choose another name")
    return (f"name {row.metadata['name']!r} is used by "
            f"{', '.join(r.id for r in group if r is not row)} too; names must be unique")


def _same_predictions(row: Row, group: list[Row], holder: Row | None) -> str:
    others = ", ".join(r.id for r in ([holder] if holder else group) if r is not row)
    on_board = " (already on the board)" if holder else ""
    hint = (" (a metadata file names a system's own predictions file)"
            if any(r.id.endswith(".toml") for r in group) else "")
    return (f"the same predictions as {others}{on_board}, byte for byte: one set of "
            f"predictions is one submission{hint}")


def _same_predictions_read(row: Row, group: list[Row], holder: Row | None) -> str:
    others = ", ".join(r.id for r in ([holder] if holder else group) if r is not row)
    on_board = " (already on the board)" if holder else ""
    return (f"the same predictions as {others}{on_board} once read (other bytes, the same "
            "input to every profile on every gold turn): one set of predictions is one "
            "submission")


def _check_metric_names(rows: list[Row], config: LeaderboardConfig) -> None:
    known = {name for row in rows for name in row.entry.scores}
    unknown = [m for m in config.metrics if rows and m not in known
               and not any(_explained(m, row.entry.notes) for row in rows)]
    if unknown:
        raise UsageError(f"metric {unknown[0]!r} of the config is not computed by profile "
                         f"{rows[0].entry.signature.profile}; known: {', '.join(sorted(known))}")


def _gold_roots(config: LeaderboardConfig) -> list[str]:
    """The folders of the board's gold and its resource options, longest first: no absolute
    path of the server's in a published reason."""
    paths = [config.gold, *(Path(str(v)) for k, v in config.options.items()
                            if k in PATH_OPTIONS and v)]
    folders = {str(f) for p in paths for f in (p.parent, p.resolve().parent)}
    folders |= {str(p) for p in paths if p.is_dir()} | {str(p.resolve()) for p in paths
                                                         if p.is_dir()}
    return sorted(folders, key=len, reverse=True)


def _relative_text(text: str, roots: Sequence[str]) -> str:
    for root in roots:
        text = text.replace(root + os.sep, "").replace(root, ".")
    return text
