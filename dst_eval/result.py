"""``Result``: the one object a run fills — DST scores, response scores, their provenance.

:func:`dst_eval.evaluate` creates it with the signature of the run (corpus and split from
the gold, profile from the options); the DST profile and the corpus response scorer then
each call :meth:`Result.add` on that same object. Nothing is merged afterwards.

Scales: rates are fractions in [0, 1]; BLEU and lengths are on their own scale (BLEU
0–100; ``combined`` = 0.5·(100·inform + 100·success) + BLEU, in points). Percentages
appear only when a result is displayed (:mod:`dst_eval.report`). NaN (a metric with no
defined value) is ``null`` in JSON and ``n/a`` elsewhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from dst_eval.report import COUNT, as_count, unit_of, units
from dst_eval.signature import Signature


@dataclass
class Result:
    signature: Signature = field(default_factory=lambda: Signature("-", None, "-"))
    """What the numbers were computed with: corpus, split, profile, then the fields the
    scorers add (normalisation policy, matching, missing-turn policy, bootstrap, ...)."""
    scores: dict[str, float] = field(default_factory=dict)
    """Headline metrics ``{name: value}``, DST first, then responses; with ``--metrics``
    the names asked, in that order, NaN for one without a value (:meth:`keep_metrics`)."""
    not_applicable: dict[str, str] = field(default_factory=dict)
    """Metric name -> why this corpus or run has no value for it (shown as ``n/a``)."""
    groups: dict[str, dict[str, float]] = field(default_factory=dict)
    """Breakdowns ``{"domain:hotel": {"joint_goal_accuracy": ...}}``."""
    official: dict[str, Any] | None = None
    """The anchor scorer's own output structure, for diffing (compat profiles)."""
    issues: list[Any] = field(default_factory=list)
    """Prediction problems found while aligning (:class:`~dst_eval.predictions.model.Issue`)."""
    coverage: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, Any] = field(default_factory=dict)
    per_turn: dict[str, Any] | None = None
    """Per-turn columns (equal-length lists/arrays): ``dialogue_id``, ``turn_index``, stats."""
    gold_source: str = ""
    predictions_source: str = ""
    tables: list[tuple[Any, list[Any]]] = field(default_factory=list)
    """``(TurnTable, [Metric])`` pairs behind ``scores`` (the DST per-turn table first, then
    per-dialogue inform/success and per-segment BLEU statistics); bootstrap intervals and
    paired tests resample them by dialogue."""
    outcomes: list[Any] = field(default_factory=list)
    """Per-slot :class:`~dst_eval.metrics.state_compare.SlotOutcome` records (row = index
    into ``per_turn``), for error analysis: kept by the strict profile when it scores with
    the breakdown by slot (``by=("slot",)``, as the HTML report does), empty otherwise."""
    confidence_intervals: dict[str, dict[str, Any]] | None = None
    """``--bootstrap N``: ``{metric: {"score", "mean", "ci_low", "ci_high", "half_width",
    "resamples"}}``."""
    turns: list[tuple[Any, Any]] = field(default_factory=list, repr=False)
    """The aligned ``(GoldTurn, PredTurn | None)`` pairs of the run, in gold order: the
    identifying columns and response texts of :meth:`to_pandas`."""
    resource_files: list[str] = field(default_factory=list, repr=False)
    """The response resources read (database tables, goals, references, gold states: what
    ``res:`` digests), so that no output is written over one."""
    compared: tuple[list, list] | None = field(default=None, repr=False)
    """The per-turn ``({key: gold variants}, {key: predicted value})`` a profile compared
    when its gold is not the loader's (``trade`` and ``trippy`` rebuild their anchors'):
    the surface-form diagnostic (:mod:`dst_eval.surface`) tests these, not the loader's."""

    # ---- filling -----------------------------------------------------------------------
    def add(self, scores: Mapping[str, float] | None = None, *,
            signature_fields: Mapping[str, Any] | None = None,
            not_applicable: Mapping[str, str] | None = None,
            groups: Mapping[str, Mapping[str, float]] | None = None,
            official: Mapping[str, Any] | None = None,
            notes: Iterable[str] = (),
            counts: Mapping[str, Any] | None = None,
            per_turn: dict[str, Any] | None = None,
            table: Any = None, metric_objects: Iterable[Any] = (),
            tables: Iterable[tuple[Any, list[Any]]] = (),
            outcomes: list[Any] | None = None,
            compared: tuple[list, list] | None = None,
            resource_files: Iterable[str] = ()) -> Result:
        """Record what one scorer computed; returns ``self``.

        ``scores`` are appended after those already recorded; ``signature_fields`` extend
        the signature; ``not_applicable`` names metrics without a value (one note per
        reason); ``table`` with ``metric_objects`` (and any further ``tables``) are the
        statistics behind the scores."""
        self.scores.update(scores or {})
        if signature_fields:
            self.signature = self.signature.with_fields(**signature_fields)
        if not_applicable:
            self.not_applicable.update(not_applicable)
            by_reason: dict[str, list[str]] = {}
            for name, why in not_applicable.items():
                by_reason.setdefault(why, []).append(name)
            self.notes += [f"{', '.join(names)}: n/a ({why})" for why, names in by_reason.items()]
        for group, metrics in (groups or {}).items():
            self.groups.setdefault(group, {}).update(
                {k: as_count(v) if unit_of(k) == COUNT else v for k, v in metrics.items()})
        if official is not None:
            self.official = {**(self.official or {}), **official}
        self.notes += list(notes)
        self.counts.update(_integral(counts or {}))
        if per_turn is not None:
            self.per_turn = per_turn
        metric_objects = list(metric_objects)
        if table is not None and metric_objects:
            self.tables.append((table, metric_objects))
        self.tables += list(tables)
        if outcomes:
            self.outcomes += outcomes
        if compared is not None:
            self.compared = compared
        self.resource_files += list(resource_files)
        return self

    # ---- reading -----------------------------------------------------------------------
    @property
    def table(self) -> Any:
        """The first statistics table (the DST per-turn table when DST was scored)."""
        return self.tables[0][0] if self.tables else None

    @property
    def metric_objects(self) -> list[Any]:
        """The :class:`~dst_eval.metrics.base.Metric` objects of :attr:`table`."""
        return self.tables[0][1] if self.tables else []

    @property
    def signature_fields(self) -> dict[str, str]:
        """The signature's fields beyond corpus, split, profile and version."""
        return dict(self.signature.fields)

    @property
    def extra(self) -> dict[str, Any]:
        """Optional JSON sections (``not_applicable``, ``confidence_intervals``); read-only."""
        out: dict[str, Any] = {}
        if self.not_applicable:
            out["not_applicable"] = dict(self.not_applicable)
        if self.confidence_intervals is not None:
            out["confidence_intervals"] = self.confidence_intervals
        return out

    def keep_metrics(self, names: Iterable[str] | None,
                     unscored: Callable[[str], str | None] | None = None) -> Result:
        """Restrict :attr:`scores`, the breakdown columns (counts stay) and intervals to
        ``names`` (``--metrics``); None keeps all. Returns ``self``.

        :attr:`scores` follow the order asked (``-b`` prints one line per name asked, in
        that order). A requested metric without a value stays as NaN (``n/a``) when it is
        in :attr:`not_applicable` or
        ``unscored(name)`` gives a reason (recorded there); any other is not computed by
        this run at all (a profile without it, a domain the gold lacks): a
        :class:`~dst_eval.errors.UsageError`."""
        if names:
            wanted = set(names)
            scores = {k: v for k, v in self.scores.items() if k in wanted}
            lacking = [n for n in dict.fromkeys(names) if n not in scores]
            known = {n: self.why_not_applicable(n) for n in lacking}
            new = {n: unscored(n) for n, why in known.items() if not why and unscored}
            absent = [n for n in lacking if not known[n] and not new.get(n)]
            if absent:
                from dst_eval.errors import UsageError

                raise UsageError(
                    f"--metrics {', '.join(absent)}: not computed by the "
                    f"{self.signature.profile} profile on {self.signature.corpus} (neither a "
                    "score nor n/a in this run); leave it out or choose another profile")
            self.not_applicable.update({n: why for n, why in known.items() if why})
            self.add(not_applicable={n: why for n, why in new.items() if why})  # + a note
            self.scores = {n: scores.get(n, math.nan) for n in dict.fromkeys(names)}
            self.groups = {g: {k: v for k, v in m.items() if k in wanted or unit_of(k) == COUNT}
                           for g, m in self.groups.items()}
            if self.confidence_intervals is not None:
                self.confidence_intervals = {k: v for k, v in self.confidence_intervals.items()
                                             if k in wanted}
        return self

    def why_not_applicable(self, name: str) -> str | None:
        """The reason ``name`` has no value in this run: :attr:`not_applicable`, else a
        scorer's note ``"a, family_*: n/a (reason)"`` naming it; None when neither does."""
        if name in self.not_applicable:
            return self.not_applicable[name]
        for note in self.notes:
            names, marker, why = note.partition(": n/a")
            if marker and any(fnmatchcase(name, n.strip()) for n in names.split(",")):
                return why.strip().removeprefix("(").removesuffix(")") or "n/a"
        return None

    def stat_tables(self) -> list[tuple[Any, list[Any]]]:
        """Every ``(TurnTable, [Metric])`` pair behind ``scores``, restricted to reported
        metrics: what bootstrap intervals and paired tests resample."""
        out = []
        for table, metrics in self.tables:
            kept = [m for m in metrics if m.name in self.scores]
            if kept:
                out.append((table, kept))
        return out

    # ---- renderings (dst_eval.report) --------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "signature": self.signature.format(),
            "signature_fields": self.signature.as_dict(),
            "scores": self.scores,
            "units": units(self),
        }
        if self.groups:
            out["groups"] = self.groups
        if self.official is not None:
            out["official"] = self.official
        out.update(self.extra)
        out["coverage"] = self.coverage
        out["counts"] = self.counts
        out["issues"] = [issue_dict(i) for i in self.issues]
        out["notes"] = self.notes
        out["gold"] = self.gold_source
        out["predictions"] = self.predictions_source
        return out

    def to_json(self, *, indent: bool = True) -> str:
        from dst_eval.report import to_json

        return to_json(self, indent=indent)

    def to_pandas(self):
        """One row per scored turn, in one schema under every profile
        (:mod:`dst_eval.frame`, documented in the README)."""
        from dst_eval.frame import turn_frame

        return turn_frame(self)

    def to_markdown(self) -> str:
        from dst_eval.report import to_markdown

        return to_markdown(self)

    def to_csv(self) -> str:
        from dst_eval.report import to_csv

        return to_csv(self)

    def render(self, console) -> None:
        """Print a rich table (the CLI's default output)."""
        from dst_eval.report import render

        render(self, console)


def issue_dict(issue: Any) -> dict[str, Any]:
    """An :class:`~dst_eval.predictions.model.Issue` as its JSON object."""
    return {"kind": issue.kind, "severity": issue.severity, "message": issue.message,
            "file": issue.file, "dialogue": issue.dialogue, "turn": issue.turn}


def _integral(counts: Mapping[str, Any]) -> dict[str, Any]:
    """Counts as integers (nested ``{"responses": {...}}`` sections too)."""
    return {k: _integral(v) if isinstance(v, Mapping) else as_count(v)
            for k, v in counts.items()}
