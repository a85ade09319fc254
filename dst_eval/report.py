"""The result of one evaluation: scores, signature, breakdowns, problems; and its renderings.

JSON keeps full precision (fractions in [0, 1]); the table, markdown and CSV show
percentages with two decimals. NaN (a metric with no defined value) is ``null`` in
JSON and ``n/a`` elsewhere.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from typing import Any

import orjson

from dst_eval.predictions.model import Issue
from dst_eval.signature import Signature

COUNT_KEYS = {"turns", "correct", "wrong", "missing", "extra", "errors", "dialogues"}
POINT_PREFIXES = ("bleu", "combined", "avg_", "num_", "entropy", "cond_entropy", "msttr",
                  "unique_", "distinct_")
"""Metrics reported on their own scale (BLEU 0-100, lengths, entropies); all others are
fractions shown as percentages."""


@dataclass
class Report:
    scores: dict[str, float]
    signature: Signature
    groups: dict[str, dict[str, float]] = field(default_factory=dict)
    official: dict[str, Any] | None = None
    issues: list[Issue] = field(default_factory=list)
    coverage: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    per_turn: dict[str, Any] | None = None
    gold_source: str = ""
    predictions_source: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    """Further result sections (e.g. response metrics) keyed by name."""
    table: Any = None
    """The per-turn :class:`~dst_eval.metrics.base.TurnTable` behind ``scores`` (if any)."""
    metric_objects: list[Any] = field(default_factory=list)
    """The :class:`~dst_eval.metrics.base.Metric` objects behind ``scores``."""
    outcomes: list[Any] = field(default_factory=list)
    """Per-slot outcome records (``SlotOutcome``; ``row`` indexes ``per_turn``)."""
    extra_tables: list[tuple[Any, list[Any]]] = field(default_factory=list)
    """Further ``(TurnTable, [Metric])`` pairs (response metrics: per-dialogue inform and
    success, per-segment BLEU statistics), resampled by dialogue like ``table``."""

    def stat_tables(self) -> list[tuple[Any, list[Any]]]:
        """Every ``(TurnTable, [Metric])`` pair behind ``scores``, restricted to reported
        metrics: what bootstrap intervals and paired tests resample."""
        pairs = [(self.table, self.metric_objects)] if self.table is not None else []
        pairs += self.extra_tables
        out = []
        for table, metrics in pairs:
            kept = [m for m in metrics if m.name in self.scores]
            if kept:
                out.append((table, kept))
        return out

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "signature": self.signature.format(),
            "signature_fields": self.signature.as_dict(),
            "scores": self.scores,
        }
        if self.groups:
            out["groups"] = self.groups
        if self.official is not None:
            out["official"] = self.official
        out.update(self.extra)
        out["coverage"] = self.coverage
        out["counts"] = self.counts
        out["issues"] = [
            {"kind": i.kind, "severity": i.severity, "message": i.message, "file": i.file,
             "dialogue": i.dialogue, "turn": i.turn} for i in self.issues
        ]
        out["notes"] = self.notes
        out["gold"] = self.gold_source
        out["predictions"] = self.predictions_source
        return out

    def to_json(self, *, indent: bool = True) -> str:
        option = orjson.OPT_SERIALIZE_NUMPY | (orjson.OPT_INDENT_2 if indent else 0)
        return orjson.dumps(self.to_dict(), option=option, default=_jsonable).decode()

    def to_pandas(self):
        """One row per scored turn with its per-turn statistics."""
        import pandas as pd

        if not self.per_turn:
            return pd.DataFrame()
        return pd.DataFrame(self.per_turn)

    # ---- text renderings -------------------------------------------------------------
    def rows(self) -> list[tuple[str, str]]:
        return [(name, format_value(name, value)) for name, value in self.scores.items()]

    def group_rows(self) -> list[tuple[str, dict[str, str]]]:
        return [(group, {k: format_value(k, v) for k, v in metrics.items()})
                for group, metrics in self.groups.items()]

    def to_markdown(self) -> str:
        lines = [f"`{self.signature}`", "", "| metric | score |", "|---|---:|"]
        lines += [f"| {name} | {value} |" for name, value in self.rows()]
        if self.groups:
            keys = _group_keys(self.groups)
            lines += ["", "| group | " + " | ".join(keys) + " |",
                      "|---|" + "---:|" * len(keys)]
            for group, metrics in self.group_rows():
                lines.append(f"| {group} | " + " | ".join(metrics.get(k, "") for k in keys) + " |")
        lines += [""] + [f"- {issue}" for issue in self.issues]
        lines += [f"- {note}" for note in self.notes]
        return "\n".join(lines).rstrip() + "\n"

    def to_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["group", "metric", "value", "signature"])
        for name, value in self.scores.items():
            writer.writerow(["all", name, _csv_value(value), self.signature.format()])
        for group, metrics in self.groups.items():
            for name, value in metrics.items():
                writer.writerow([group, name, _csv_value(value), self.signature.format()])
        return buffer.getvalue()

    def render(self, console) -> None:
        """Print a rich table (the CLI's default output)."""
        from rich.table import Table

        intervals = self.extra.get("confidence_intervals") or {}
        table = Table(title="dst-eval", show_lines=False)
        table.add_column("metric")
        table.add_column("score", justify="right")
        if intervals:
            table.add_column("95% CI (μ ± half-width)", justify="right")
        for name, value in self.rows():
            cells = [name, value]
            if intervals:
                ci = intervals.get(name)
                cells.append("" if not ci else f"{format_value(name, ci['mean'])} ± "
                                                f"{format_value(name, ci['half_width'])}")
            table.add_row(*cells)
        console.print(table)
        console.print(f"signature: {self.signature}", highlight=False, soft_wrap=True)
        if self.groups:
            keys = _group_keys(self.groups)
            breakdown = Table(title="breakdown")
            breakdown.add_column("group")
            for key in keys:
                breakdown.add_column(key, justify="right")
            for group, metrics in self.group_rows():
                breakdown.add_row(group, *(metrics.get(k, "") for k in keys))
            console.print(breakdown)
        cov = self.coverage
        if cov:
            console.print(
                f"coverage: {cov.get('gold_turns', 0) - cov.get('missing_turns', 0)}"
                f"/{cov.get('gold_turns', 0)} gold turns predicted, "
                f"{cov.get('missing_dialogues', 0)} dialogues missing, "
                f"{cov.get('extra_dialogues', 0)} extra"
            )
        for issue in self.issues:
            style = "red" if issue.severity == "error" else "yellow"
            console.print(f"[{style}]{issue.severity}[/{style}]: {issue}", highlight=False,
                          markup=True)
        for note in self.notes:
            console.print(f"note: {note}", highlight=False)


def format_value(name: str, value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if name in COUNT_KEYS or name.endswith("_count"):
        return f"{int(value)}"
    if name.startswith(POINT_PREFIXES) and isinstance(value, float | int):
        return f"{value:.2f}"
    if isinstance(value, float | int):
        return f"{100 * value:.2f}"
    return str(value)


def _csv_value(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def _group_keys(groups: dict[str, dict[str, float]]) -> list[str]:
    keys: list[str] = []
    for metrics in groups.values():
        keys += [k for k in metrics if k not in keys]
    return keys


def _jsonable(value: Any) -> Any:
    if isinstance(value, frozenset | set | tuple):
        return sorted(value) if isinstance(value, frozenset | set) else list(value)
    raise TypeError(f"cannot serialise {type(value).__name__}")
