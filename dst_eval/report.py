"""Renderings of a :class:`~dst_eval.result.Result`: JSON, Markdown, CSV, plain text and a
rich table.

Every value has one unit (:func:`unit_of`), and every rendering says which:

* ``fraction`` — rates in [0, 1] (JGA, F1, Inform, ...): JSON and CSV keep the fraction,
  the table, plain text, Markdown and HTML show it as a percentage (unit ``%``);
* ``points`` — BLEU and Combined, on their own 0–100 scale everywhere;
* ``value`` — other quantities on their own scale (mean lengths, entropies, MSTTR);
* ``count`` — integers everywhere (turns, dialogues, tp/fp/fn, distinct n-grams).

NaN (a metric with no defined value) is ``null`` in JSON, empty in CSV and ``n/a``
elsewhere. The signature is always printed on one line of its own, never wrapped.
"""

from __future__ import annotations

import csv
import io
import math
import re
import unicodedata
from typing import Any, Protocol

import orjson

from dst_eval.escape import json_safe, markdown, one_line, rich

FRACTION, POINTS, VALUE, COUNT = "fraction", "points", "value", "count"
COUNT_KEYS = frozenset({
    "turns", "correct", "wrong", "missing", "extra", "errors", "dialogues", "frames", "tp",
    "fp", "fn", "slots_in_list", "joint_matches", "num_unigrams", "num_bigrams",
    "num_trigrams", "resamples",
})
COUNT_PREFIXES = ("num_", "n_", "unique_", "missing_", "turns_")
POINT_PREFIXES = ("bleu", "combined", "response_bleu")
VALUE_NAMES = frozenset({"avg_lengths", "entropy", "cond_entropy", "msttr"})
VALUE_PREFIXES = ("avg_", "distinct_")
DEFAULT_WIDTH = 2
"""Decimals shown (``-w/--width``)."""
SCALE_NOTE = ("% = fraction × 100; BLEU and combined in points (0-100); counts are "
              "integers")


def unit_of(name: str) -> str:
    """The unit of metric/statistic ``name``: ``fraction``, ``points``, ``value`` or
    ``count`` (see the module docstring)."""
    if name in COUNT_KEYS or name.endswith("_count") or name.startswith(COUNT_PREFIXES):
        return COUNT
    if name.startswith(POINT_PREFIXES):
        return POINTS
    if name in VALUE_NAMES or name.startswith(VALUE_PREFIXES):
        return VALUE
    return FRACTION


def shown_unit(name: str) -> str:
    """The unit as displayed (a fraction is shown as a percentage)."""
    unit = unit_of(name)
    return "%" if unit == FRACTION else unit


def as_count(value: Any) -> Any:
    """An integral count as ``int`` (NaN/None and non-integral values unchanged)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        try:
            import numpy as np

            if isinstance(value, np.integer | np.floating):
                value = value.item()
            else:
                return value
        except ImportError:  # pragma: no cover
            return value
    if isinstance(value, float) and (math.isnan(value) or not value.is_integer()):
        return value
    return int(value)


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
    return dumps_json(result.to_dict(), option)


def dumps_json(data: Any, option: int) -> str:
    """``data`` as JSON text; a string that UTF-8 cannot encode (a file name's undecodable
    byte, held as a lone surrogate) is written as :func:`~dst_eval.escape.json_safe` shows
    it (``\\udcff``)."""
    try:
        return orjson.dumps(data, option=option, default=_jsonable).decode()
    except orjson.JSONEncodeError as exc:
        if "surrogates" not in str(exc):
            raise
        return orjson.dumps(json_safe(data), option=option, default=_jsonable).decode()


def units(result: Result) -> dict[str, str]:
    """``{name: unit}`` of every score and breakdown column (the JSON ``units`` section)."""
    names = list(result.scores)
    for metrics in result.groups.values():
        names += [k for k in metrics if k not in names]
    return {name: unit_of(name) for name in names}


def rows(result: Result, width: int = DEFAULT_WIDTH) -> list[tuple[str, str]]:
    return [(name, format_value(name, value, width)) for name, value in result.scores.items()]


def group_rows(result: Result, width: int = DEFAULT_WIDTH) -> list[tuple[str, dict[str, str]]]:
    return [(group, {k: format_value(k, v, width) for k, v in metrics.items()})
            for group, metrics in result.groups.items()]


_PLAIN_NAME = re.compile(r"[a-z0-9_]+")


def markdown_name(name: str) -> str:
    """Metric ``name`` for a Markdown cell: a fixed name (``joint_goal_accuracy``) as it is,
    the part after its first ``:`` (a gold domain or service, as in
    ``domain_joint_goal_accuracy:taxi``) escaped as group names are."""
    head, colon, tail = name.partition(":")
    return head + colon + markdown(tail) if _PLAIN_NAME.fullmatch(head) else markdown(name)


def _header(key: str) -> str:
    return f"{key} ({shown_unit(key)})"


def _coverage_line(result: Result) -> str | None:
    cov = result.coverage
    if not cov:
        return None
    return (f"coverage: {cov.get('gold_turns', 0) - cov.get('missing_turns', 0)}"
            f"/{cov.get('gold_turns', 0)} gold turns predicted, "
            f"{cov.get('missing_dialogues', 0)} dialogues missing, "
            f"{cov.get('extra_dialogues', 0)} extra")


def to_markdown(result: Result, width: int = DEFAULT_WIDTH) -> str:
    intervals = result.confidence_intervals or {}
    ci_head, ci_rule = (" 95% CI (mean ± half-width) |", "---:|") if intervals else ("", "")
    lines = [f"`{result.signature}`", "", f"Scale: {SCALE_NOTE}.", "",
             f"| metric | score | unit |{ci_head}", f"|---|---:|---|{ci_rule}"]
    lines += [f"| {markdown_name(name)} | {value} | {shown_unit(name)} |"
              + (f" {_ci_cell(name, intervals.get(name), width)} |" if intervals else "")
              for name, value in rows(result, width)]
    if result.groups:
        keys = _group_keys(result.groups)
        heads = [f"{markdown_name(k)} ({shown_unit(k)})" for k in keys]
        lines += ["", "| group | " + " | ".join(heads) + " |",
                  "|---|" + "---:|" * len(keys)]
        for group, metrics in group_rows(result, width):
            lines.append(f"| {markdown(group)} | " + " | ".join(metrics.get(k, "") for k in keys)
                         + " |")
    lines += [""] + [f"- {markdown(str(issue))}" for issue in result.issues]
    lines += [f"- {markdown(note)}" for note in result.notes]
    return "\n".join(lines).rstrip() + "\n"


def to_csv(result: Result) -> str:
    """One row per value: ``group,metric,value,unit,signature``; fractions stay fractions
    (unit ``fraction``), counts are integers. With bootstrap intervals, three more columns
    ``ci_low,ci_high,ci_mean`` (filled on the ``all`` rows)."""
    intervals = result.confidence_intervals or {}
    ci_columns = {"ci_low": "ci_low", "ci_high": "ci_high", "ci_mean": "mean"} if intervals \
        else {}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["group", "metric", "value", "unit", "signature", *ci_columns])
    signature = result.signature.format()
    for name, value in result.scores.items():
        ci = intervals.get(name) or {}
        cells = [_csv_value(name, ci[k]) if k in ci else "" for k in ci_columns.values()]
        writer.writerow(["all", name, _csv_value(name, value), unit_of(name), signature,
                         *cells])
    for group, metrics in result.groups.items():
        for name, value in metrics.items():
            writer.writerow([group, name, _csv_value(name, value), unit_of(name), signature])
    return buffer.getvalue()


def text_width(text: str) -> int:
    """Terminal columns of ``text``: 2 for a wide or fullwidth (CJK) character, 0 for a
    combining mark, 1 otherwise."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(c) else
               2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fits(header: list[str], body: list[list[str]], columns: int) -> bool:
    """Whether a rich table of these cells fits ``columns`` terminal columns without
    folding a cell: each column as wide as its widest cell or header (:func:`text_width`),
    plus a space on each side and a border."""
    if not header:
        return True
    widths = [max(text_width(one_line(r[i])) for r in [header, *body])
              for i in range(len(header))]
    return sum(widths) + 3 * len(widths) + 1 <= columns


def aligned(header: list[str], body: list[list[str]], right: set[int]) -> list[str]:
    """Plain columns separated by two spaces, never truncated, padded to the display
    width of their widest cell (:func:`text_width`)."""
    widths = [max(text_width(r[i]) for r in [header, *body]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        pads = [" " * (w - text_width(c)) for c, w in zip(cells, widths, strict=True)]
        parts = [pad + c if i in right else c + pad
                 for i, (c, pad) in enumerate(zip(cells, pads, strict=True))]
        return "  ".join(parts).rstrip()
    return [line(header), line(["-" * w for w in widths]), *map(line, body)]


def to_text(result: Result, width: int = DEFAULT_WIDTH) -> str:
    """Plain aligned text (what a log file or a pipe gets): no box characters, no cut
    cell, the signature on one line."""
    intervals = result.confidence_intervals or {}
    header = ["metric", "score", "unit"] + (["95% CI (mean ± half-width)"] if intervals else [])
    body = []
    for name, value in rows(result, width):
        row = [one_line(name), value, shown_unit(name)]
        if intervals:
            row.append(_ci_cell(name, intervals.get(name), width))
        body.append(row)
    lines = [f"dst-eval ({SCALE_NOTE})", ""] + aligned(header, body, {1})
    lines += ["", f"signature: {result.signature}"]
    if result.groups:
        keys = _group_keys(result.groups)
        lines += ["", "breakdown"]
        lines += aligned(["group", *(one_line(_header(k)) for k in keys)],
                          [[one_line(g), *(m.get(k, "") for k in keys)] for g, m in
                           group_rows(result, width)],
                          set(range(1, len(keys) + 1)))
    coverage = _coverage_line(result)
    lines += [""] if coverage or result.issues or result.notes else []
    lines += [coverage] if coverage else []
    lines += [f"{issue.severity}: {one_line(str(issue))}" for issue in result.issues]
    lines += [f"note: {one_line(note)}" for note in result.notes]
    return "\n".join(lines) + "\n"


def _ci_cell(name: str, ci: dict[str, Any] | None, width: int) -> str:
    if not ci:
        return ""
    return (f"{format_value(name, ci['mean'], width)} ± "
            f"{format_value(name, ci['half_width'], width)}")


def render(result: Result, console, width: int = DEFAULT_WIDTH) -> None:
    """Print rich tables (the CLI's output on a terminal), and the signature unwrapped (the
    terminal soft-wraps it). A terminal too narrow for the table's names and numbers gets the
    plain text instead (:func:`to_text`, soft-wrapped): a table there would cut names and
    split numbers across lines."""
    from rich.table import Table

    intervals = result.confidence_intervals or {}
    shown = [(name, value, shown_unit(name),
              _ci_cell(name, intervals.get(name), width) if intervals else "")
             for name, value in rows(result, width)]
    header = ["metric", "score", "unit", *(["95% CI (μ ± half-width)"] if intervals else [])]
    grouped = group_rows(result, width) if result.groups else []
    keys = _group_keys(result.groups) if grouped else []
    wide = fits(["group", *map(_header, keys)],
                [[g, *(m.get(k, "") for k in keys)] for g, m in grouped], console.width)
    long = fits(["group", "metric", "value", "unit"],
                [[g, k, m[k], shown_unit(k)] for g, m in grouped for k in keys if k in m],
                console.width)
    if not shown or not fits(header, [list(c[:len(header)]) for c in shown], console.width) \
            or (grouped and not wide and not long):
        console.print(to_text(result, width), markup=False, highlight=False, soft_wrap=True,
                      end="")
        return
    table = Table(title="dst-eval", caption=SCALE_NOTE, show_lines=False)
    table.add_column("metric", overflow="fold")
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("unit", no_wrap=True)
    if intervals:
        table.add_column("95% CI (μ ± half-width)", justify="right", overflow="fold")
    for name, value, unit, ci in shown:
        table.add_row(*([rich(name), value, unit, ci] if intervals else [rich(name), value,
                                                                          unit]))
    console.print(table)
    console.print(f"signature: {result.signature}", highlight=False, soft_wrap=True,
                  markup=False)
    if grouped:
        if wide:
            breakdown = Table(title="breakdown")
            breakdown.add_column("group", overflow="fold")
            for key in keys:
                breakdown.add_column(rich(_header(key)), justify="right", overflow="fold")
            for group, metrics in grouped:
                breakdown.add_row(rich(group), *(metrics.get(k, "") for k in keys))
        else:  # too wide for the terminal: one row per value rather than folded cells
            breakdown = Table(title="breakdown")
            for name, justify in (("group", "left"), ("metric", "left"), ("value", "right"),
                                  ("unit", "left")):
                breakdown.add_column(name, justify=justify, overflow="fold")
            for group, metrics in grouped:
                for key in keys:
                    if key in metrics:
                        breakdown.add_row(rich(group), rich(key), metrics[key],
                                          shown_unit(key))
        console.print(breakdown)
    coverage = _coverage_line(result)
    if coverage:
        console.print(coverage, highlight=False, markup=False)
    for issue in result.issues:
        style = "red" if issue.severity == "error" else "yellow"
        console.print(f"[{style}]{issue.severity}[/{style}]: {rich(str(issue))}",
                      highlight=False)
    for note in result.notes:
        console.print(f"note: {one_line(note)}", highlight=False, markup=False)


def score_only(result: Result, width: int = DEFAULT_WIDTH, *, as_json: bool = False) -> str:
    """``-b/--score-only``: only the numbers, one per line in the order of the scores (with
    ``-m``: the order asked, as sacrebleu prints several metrics), on the displayed scale
    (% for fractions); with
    ``as_json`` a JSON list of them. A metric without a value (a ``--metrics`` name that is
    n/a in this run) prints ``n/a``, ``null`` in JSON."""
    values = [format_value(name, value, width) for name, value in result.scores.items()]
    if as_json:
        numbers = [None if v == "n/a" else (int(v) if "." not in v else float(v))
                   for v in values]
        return orjson.dumps(numbers).decode() + "\n"
    return "".join(f"{v}\n" for v in values)


def format_value(name: str, value: Any, width: int = DEFAULT_WIDTH) -> str:
    """``value`` of ``name`` as displayed: a percentage for a fraction, an integer for a
    count, ``width`` decimals otherwise; ``n/a`` for None/NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if not isinstance(value, int | float) or isinstance(value, bool):
        try:
            value = float(value)  # numpy scalars
        except (TypeError, ValueError):
            return str(value)
        if math.isnan(value):
            return "n/a"
    unit = unit_of(name)
    if unit == COUNT:
        return f"{round(value)}"
    if unit == FRACTION:
        return f"{100 * value:.{width}f}"
    return f"{value:.{width}f}"


def _csv_value(name: str, value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if unit_of(name) == COUNT:
        value = as_count(value)
    return repr(float(value)) if isinstance(value, float) else str(value)


def _group_keys(groups: dict[str, dict[str, float]]) -> list[str]:
    keys: list[str] = []
    for metrics in groups.values():
        keys += [k for k in metrics if k not in keys]
    return keys


def _jsonable(value: Any) -> Any:
    if isinstance(value, frozenset | set | tuple):
        return sorted(value) if isinstance(value, frozenset | set) else list(value)
    raise TypeError(f"cannot serialise {type(value).__name__}")
