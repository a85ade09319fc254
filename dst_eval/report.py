"""Renderings of a :class:`~dst_eval.result.Result`: JSON, Markdown, CSV and a rich table.

JSON keeps full precision (fractions in [0, 1]); the table, markdown and CSV show
percentages with two decimals. NaN (a metric with no defined value) is ``null`` in
JSON and ``n/a`` elsewhere.
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any, Protocol

import orjson

COUNT_KEYS = {"turns", "correct", "wrong", "missing", "extra", "errors", "dialogues"}
POINT_PREFIXES = ("bleu", "combined", "avg_", "num_", "entropy", "cond_entropy", "msttr",
                  "unique_", "distinct_")
"""Metrics reported on their own scale (BLEU 0-100, lengths, entropies); all others are
fractions shown as percentages."""


class Result(Protocol):
    """What the renderings read of a :class:`dst_eval.result.Result` (which calls them), so
    that this module depends on no result type."""

    scores: dict[str, Any]
    groups: dict[str, dict[str, Any]]
    signature: Any
    issues: list[Any]
    notes: list[str]
    coverage: dict[str, Any]
    confidence_intervals: dict[str, dict[str, Any]] | None

    def to_dict(self) -> dict[str, Any]: ...


def to_json(result: Result, *, indent: bool = True) -> str:
    option = orjson.OPT_SERIALIZE_NUMPY | (orjson.OPT_INDENT_2 if indent else 0)
    return orjson.dumps(result.to_dict(), option=option, default=_jsonable).decode()


def rows(result: Result) -> list[tuple[str, str]]:
    return [(name, format_value(name, value)) for name, value in result.scores.items()]


def group_rows(result: Result) -> list[tuple[str, dict[str, str]]]:
    return [(group, {k: format_value(k, v) for k, v in metrics.items()})
            for group, metrics in result.groups.items()]


def to_markdown(result: Result) -> str:
    lines = [f"`{result.signature}`", "", "| metric | score |", "|---|---:|"]
    lines += [f"| {name} | {value} |" for name, value in rows(result)]
    if result.groups:
        keys = _group_keys(result.groups)
        lines += ["", "| group | " + " | ".join(keys) + " |",
                  "|---|" + "---:|" * len(keys)]
        for group, metrics in group_rows(result):
            lines.append(f"| {group} | " + " | ".join(metrics.get(k, "") for k in keys) + " |")
    lines += [""] + [f"- {issue}" for issue in result.issues]
    lines += [f"- {note}" for note in result.notes]
    return "\n".join(lines).rstrip() + "\n"


def to_csv(result: Result) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["group", "metric", "value", "signature"])
    for name, value in result.scores.items():
        writer.writerow(["all", name, _csv_value(value), result.signature.format()])
    for group, metrics in result.groups.items():
        for name, value in metrics.items():
            writer.writerow([group, name, _csv_value(value), result.signature.format()])
    return buffer.getvalue()


def render(result: Result, console) -> None:
    """Print a rich table (the CLI's default output)."""
    from rich.table import Table

    intervals = result.confidence_intervals or {}
    table = Table(title="dst-eval", show_lines=False)
    table.add_column("metric")
    table.add_column("score", justify="right")
    if intervals:
        table.add_column("95% CI (μ ± half-width)", justify="right")
    for name, value in rows(result):
        cells = [name, value]
        if intervals:
            ci = intervals.get(name)
            cells.append("" if not ci else f"{format_value(name, ci['mean'])} ± "
                                            f"{format_value(name, ci['half_width'])}")
        table.add_row(*cells)
    console.print(table)
    console.print(f"signature: {result.signature}", highlight=False, soft_wrap=True)
    if result.groups:
        keys = _group_keys(result.groups)
        breakdown = Table(title="breakdown")
        breakdown.add_column("group")
        for key in keys:
            breakdown.add_column(key, justify="right")
        for group, metrics in group_rows(result):
            breakdown.add_row(group, *(metrics.get(k, "") for k in keys))
        console.print(breakdown)
    cov = result.coverage
    if cov:
        console.print(
            f"coverage: {cov.get('gold_turns', 0) - cov.get('missing_turns', 0)}"
            f"/{cov.get('gold_turns', 0)} gold turns predicted, "
            f"{cov.get('missing_dialogues', 0)} dialogues missing, "
            f"{cov.get('extra_dialogues', 0)} extra"
        )
    for issue in result.issues:
        style = "red" if issue.severity == "error" else "yellow"
        console.print(f"[{style}]{issue.severity}[/{style}]: {issue}", highlight=False,
                      markup=True)
    for note in result.notes:
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
