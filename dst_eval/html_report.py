"""Self-contained HTML pages: one evaluation report, and a leaderboard.

``render_report_html(report)`` renders a :class:`~dst_eval.result.Result` (best from
``evaluate(..., by=("domain", "slot", "depth"))`` with the strict profile, whose
``Result.outcomes`` feed the error analysis): summary and signature, headline scores,
joint goal accuracy by turn depth (left out when ``--metrics`` leaves JGA out), per-domain
and per-slot tables, error types (wrong value / missing / extra), the most frequent wrong
values, issues and notes.

``render_leaderboard_html(data)`` renders the ``leaderboard.json`` structure that
:func:`dst_eval.leaderboard.leaderboard_data` writes (keys marked ``?`` may be absent)::

    {"title": str, "signature": str,
     "gold"?: {"file": str, "sha256": str},
     "columns": [metric, ...],              # shown metrics, in order (keys of Result.scores)
     "ranking_metric"?: str,                # default columns[0]
     "higher_is_better"?: bool,
     "statistics"?: {"level": 0.95, "resamples": int, "seed": ..., "alpha": 0.05,
                     "test": str | None, ...}  # test None: no paired test ran
                   | None,                # None: no resampling ran (no interval, no test)
     "rows": [{"rank": int | None,          # None: not ranked (no ranking score)
               "rank_interval"?: [low, high] | None,
               "name": str, "authors": str | None, "model_size": str | None,
               "paper"?: str | None, "code"?: str | None,   # links: http(s) URLs only
               "description"?: str | None,
               "scores": {metric: float | None},  # Result.scores' scale; a metric value
                                                  # directly in the row is read too
               "ci": {metric: {"ci_low", "ci_high", ...} | None},
               "leader"?: bool,             # default: rank == 1
               "tied_with_leader": bool,    # not significantly different from the leader
               "p_vs_leader"?: float | None, "coverage"?: float,
               "notes"?: [str], "warnings"?: [str]}],
     "invalid": [{"file": str, "reason": str}],
     "notes"?: [str]}

Values are shown as :func:`~dst_eval.report.format_value` shows them (fractions as
percentages). Both pages are one file that works offline: inline CSS, plots as inline SVG
(matplotlib, the optional ``[report]`` extra; without it the pages hold the tables and a
visible note), no script, and a Content-Security-Policy that forbids loading anything.
Every text from the data is HTML-escaped, links accept only ``http(s)`` URLs, and the output
is deterministic (no dates, fixed SVG ids), so re-rendering gives identical bytes.
"""

from __future__ import annotations

import math
from typing import Any

from dst_eval.html_common import (
    MAX_ISSUES,
    NO_PLOTS,
    TOP_SLOTS,
    TOP_WRONG,
    _e,
    _figure,
    _is_number,
    _matplotlib_available,
    _page,
    _plot_depth,
    _plot_slot_errors,
    _plot_wrong_values,
    _plots,
    _Raw,
    _section,
    _table,
)
from dst_eval.html_leaderboard import render_leaderboard_html
from dst_eval.metrics.error_analysis import OUTCOMES, error_counts, frequent_wrong_values
from dst_eval.profiles.strict import DEPTH_CAP, domain_of
from dst_eval.report import SCALE_NOTE, format_value, shown_unit
from dst_eval.result import Result

__all__ = ["render_leaderboard_html", "render_report_html"]


# ---- report data ------------------------------------------------------------------------
def _groups(report: Result, kind: str) -> dict[str, dict[str, Any]]:
    prefix = f"{kind}:"
    return {k[len(prefix):]: v for k, v in report.groups.items() if k.startswith(prefix)}


def _depth_rows(report: Result) -> tuple[list[tuple[str, float, int]], str]:
    """``[(depth label, JGA, turns)]`` from the depth breakdown, else from per-turn columns."""
    groups = _groups(report, "depth")
    if groups:
        def order(label: str) -> int:
            return int(label.rstrip("+"))
        return ([(d, groups[d].get("joint_goal_accuracy", math.nan), int(groups[d]["turns"]))
                 for d in sorted(groups, key=order)], "depth breakdown of the profile")
    per_turn = report.per_turn or {}
    column = next((c for c in ("jga", "joint_goal_accuracy") if c in per_turn), None)
    if "turn_index" not in per_turn or column is None:
        return [], ""
    sums: dict[int, list[float]] = {}
    for index, jga in zip(per_turn["turn_index"], per_turn[column], strict=True):
        if _is_number(jga) or hasattr(jga, "dtype"):
            if math.isnan(float(jga)):
                continue
            bucket = sums.setdefault(min(int(index), DEPTH_CAP), [0.0, 0])
            bucket[0] += float(jga)
            bucket[1] += 1
    return ([(f"{d}+" if d == DEPTH_CAP else str(d), s / n, n)
             for d, (s, n) in sorted(sums.items())],
            f"mean of the profile's per-turn {column} column")


def _slot_counts(report: Result) -> dict[str, dict[str, float]]:
    if report.outcomes:
        return error_counts(report.outcomes)
    groups = _groups(report, "slot")
    if groups and all(set(OUTCOMES) <= set(v) for v in groups.values()):
        return {slot: {**v, "errors": v.get("errors", v["wrong"] + v["missing"] + v["extra"])}
                for slot, v in groups.items()}
    return {}


def _first_seen(report: Result) -> dict[tuple[str, str, str], str]:
    """Where each (slot, gold, predicted) confusion first occurs: ``"dialogue turn N"``."""
    per_turn = report.per_turn or {}
    ids, turns = per_turn.get("dialogue_id"), per_turn.get("turn_index")
    where: dict[tuple[str, str, str], str] = {}
    if ids is None or turns is None:
        return where
    for o in report.outcomes:
        if o.outcome == "wrong":
            key = (o.slot, o.gold[0] if o.gold else "", o.pred or "")
            if key not in where:
                where[key] = f"{ids[o.row]} turn {turns[o.row]}"
    return where


# ---- report sections --------------------------------------------------------------------
def _summary(report: Result) -> str:
    sig = report.signature
    cov = report.coverage or {}
    cards = []
    for name in ("joint_goal_accuracy", "slot_f1", "average_goal_accuracy", "turn_accuracy"):
        if name in report.scores:
            cards.append(f'<div class="card"><b>{_e(format_value(name, report.scores[name]))}'
                         f"</b><span>{_e(name)}</span></div>")
    facts = [("predictions", report.predictions_source), ("gold", report.gold_source),
             ("corpus", sig.corpus), ("split", sig.split or "-"), ("profile", sig.profile)]
    facts += [(k, _fact(k, v)) for k, v in report.counts.items()]
    if cov:
        predicted = cov.get("gold_turns", 0) - cov.get("missing_turns", 0)
        facts.append(("coverage", f"{predicted}/{cov.get('gold_turns', 0)} gold turns "
                                  f"predicted, {cov.get('missing_dialogues', 0)} dialogues "
                                  f"missing, {cov.get('extra_dialogues', 0)} extra"))
    return (f'<code class="sig" id="signature">{_e(sig.format())}</code>\n'
            f'<div class="cards">{"".join(cards)}</div>\n'
            + _row("<h3>run</h3>" + _table(["", ""], [(k, v) for k, v in facts
                                                      if v not in ("", None)]),
                   '<h3 id="scores">scores</h3>' + _scores(report)))


def _fact(name: str, value: Any) -> Any:
    """A ``counts`` entry for the run table: a nested section (``responses``) as a table."""
    if isinstance(value, dict):
        return _Raw(_table(["", ""], [(k, _fact(k, v)) for k, v in value.items()]))
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    return format_value(name, value)


def _row(*parts: str) -> str:
    """Side by side when the page is wide enough."""
    return '<div class="row">' + "".join(f"<div>{p}</div>" for p in parts if p) + "</div>"


def _scores(report: Result) -> str:
    intervals = report.confidence_intervals or {}
    headers = ["metric", "score", "unit"] + (["95% CI", "μ ± half-width"] if intervals else [])
    rows = []
    for name, value in report.scores.items():
        row = [name, format_value(name, value), shown_unit(name)]
        if intervals:
            ci = intervals.get(name)
            row += (["", ""] if not ci else
                    [f"[{format_value(name, ci['ci_low'])}, {format_value(name, ci['ci_high'])}]",
                     f"{format_value(name, ci['mean'])} ± {format_value(name, ci['half_width'])}"])
        rows.append(row)
    return (_table(headers, rows, numeric=[1, *range(3, len(headers))])
            + f'<p class="meta">Units: {_e(SCALE_NOTE)}.</p>')


def _group_table(groups: dict[str, dict[str, Any]], label: str) -> str:
    keys: list[str] = []
    for metrics in groups.values():
        keys += [k for k in metrics if k not in keys]
    rows = [[name] + [format_value(k, m[k]) if k in m else "" for k in keys]
            for name, m in groups.items()]
    return (_table([label] + keys, rows, numeric=range(1, len(keys) + 1))
            + _units_line(keys))


def _units_line(keys: list[str]) -> str:
    """Which columns of a table are percentages, points, values or counts."""
    by_unit: dict[str, list[str]] = {}
    for key in keys:
        by_unit.setdefault(shown_unit(key), []).append(key)
    if len(by_unit) == 1:
        parts = [f"all columns in {next(iter(by_unit))}"]
    else:
        parts = [f"{', '.join(names)}: {unit}" for unit, names in by_unit.items()]
    return (f'<p class="meta">Units: {_e("; ".join(parts))} (% = fraction × 100; counts '
            "are integers).</p>")


def _depth_section(report: Result, plots: bool) -> str:
    rows, source = _depth_rows(report)
    if not rows:
        return '<p class="meta">No per-turn depth information for this profile.</p>'
    svg = _plots(_plot_depth, rows) if plots else None
    return _row(_figure(svg, f"Joint goal accuracy at each turn depth ({source}); "
                             f"depths ≥ {DEPTH_CAP} share one bar; n = scored turns."),
                _table(["depth", "joint_goal_accuracy", "turns"],
                       [(d, format_value("joint_goal_accuracy", v), n) for d, v, n in rows],
                       numeric=(1, 2)) + _units_line(["joint_goal_accuracy", "turns"]))


def _domain_section(report: Result) -> str:
    parts = []
    for kind, label in (("domain", "domain"), ("service", "service"), ("seen", "services")):
        groups = _groups(report, kind)
        if groups:
            parts.append(f"<h3>by {label}</h3>" + _group_table(groups, label))
    return "".join(parts) or '<p class="meta">No domain breakdown for this profile.</p>'


def _error_types(report: Result, slot_counts: dict[str, dict[str, float]]) -> str:
    totals = {k: sum(c[k] for c in slot_counts.values()) for k in OUTCOMES}
    errors = totals["wrong"] + totals["missing"] + totals["extra"]
    explain = {"correct": "gold slot predicted with an acceptable value",
               "wrong": "slot in gold and prediction, value not a gold variant",
               "missing": "gold slot not predicted",
               "extra": "predicted slot not in the gold state"}
    rows = [(kind, explain[kind], int(totals[kind]),
             "" if kind == "correct" or not errors else f"{100 * totals[kind] / errors:.2f}")
            for kind in OUTCOMES]
    overall = "<h3>all slots</h3>" + _table(["outcome", "meaning", "slot-turns",
                                             "% of errors"], rows, numeric=(2, 3))
    if not report.outcomes:
        return overall
    by_domain = error_counts(report.outcomes, key=domain_of(report.signature.corpus))
    return _row(overall, "<h3>by domain</h3>" + _table(
        ["domain", *OUTCOMES, "errors"],
        [(d, *(int(c[k]) for k in (*OUTCOMES, "errors"))) for d, c in by_domain.items()],
        numeric=range(1, 6)))


def _slot_section(slot_counts: dict[str, dict[str, float]], plots: bool) -> str:
    with_errors = sum(1 for c in slot_counts.values() if c["errors"])
    svg = _plots(_plot_slot_errors, slot_counts) if plots and with_errors else None
    shown = min(TOP_SLOTS, with_errors)
    caption = (f"The {shown} slots with most errors"
               + (f" (of {with_errors} slots with errors)" if with_errors > shown else "")
               + ", stacked by error type.")
    rows = [(slot, *(int(c[k]) for k in (*OUTCOMES, "errors")),
             format_value("slot_f1", c["slot_f1"]) if "slot_f1" in c else "")
            for slot, c in sorted(slot_counts.items())]
    return _row(_figure(svg, caption), _table(["slot", *OUTCOMES, "errors", "slot_f1"], rows,
                                              numeric=range(1, 7)))


def _wrong_values_section(report: Result, plots: bool) -> str:
    confusions = frequent_wrong_values(report.outcomes, top=TOP_WRONG)
    if not confusions:
        return '<p class="meta">No wrong values.</p>'
    svg = _plots(_plot_wrong_values, confusions) if plots else None
    where = _first_seen(report)
    rows = [(s, g, p, c, where.get((s, g, p), "")) for s, g, p, c in confusions]
    return (_figure(svg, "The most frequent (slot, gold value, predicted value) confusions, "
                         "after normalisation.")
            + _table(["slot", "gold value", "predicted value", "count", "first seen at"], rows,
                     numeric=(3,)))


def _issues_section(report: Result) -> str:
    items = [f'<li><span class="{_e(i.severity)}">{_e(i.severity)}</span> '
             f"<code>{_e(i.kind)}</code>: {_e(i)}</li>" for i in report.issues[:MAX_ISSUES]]
    if len(report.issues) > MAX_ISSUES:
        items.append(f"<li>… and {len(report.issues) - MAX_ISSUES} more issues (see the JSON "
                     "report)</li>")
    items += [f"<li>note: {_e(n)}</li>" for n in report.notes]
    return f'<ul class="issues">{"".join(items)}</ul>' if items else "<p>No issues.</p>"


def render_report_html(report: Result, *, title: str | None = None) -> str:
    """The report as one self-contained HTML page (see the module docstring)."""
    plots = _matplotlib_available()
    slot_counts = _slot_counts(report)
    name = report.predictions_source.rstrip("/").rsplit("/", 1)[-1] or "predictions"
    title = title or f"dst-eval report: {name}"
    sections = [("summary", "Summary", _summary(report))]
    if "joint_goal_accuracy" in report.scores:  # -m without it: show only the metrics kept
        sections.append(("depth", "Joint goal accuracy by turn depth",
                         _depth_section(report, plots)))
    sections.append(("domains", "Per-domain scores", _domain_section(report)))
    if slot_counts:
        sections += [("errors", "Error types", _error_types(report, slot_counts)),
                     ("slots", "Per-slot errors", _slot_section(slot_counts, plots))]
    else:
        why = ("This run kept no per-slot outcomes: the strict profile keeps them when it "
               'scores with the breakdown by slot (<code>by=("slot",)</code>, '
               "<code>--by slot</code>)." if report.signature.profile == "strict" else
               "This profile keeps no per-slot outcomes; use the strict profile for error "
               "analysis.")
        sections.append(("errors", "Error types", f'<p class="meta">{why}</p>'))
        if _groups(report, "slot"):
            sections.append(("slots", "Per-slot scores",
                             _group_table(_groups(report, "slot"), "slot")))
    if report.outcomes:
        sections.append(("wrong-values", "Most frequent wrong values",
                         _wrong_values_section(report, plots)))
    sections.append(("issues", "Issues and notes", _issues_section(report)))
    nav = "".join(f'<a href="#{a}">{_e(t)}</a>' for a, t, _ in sections)
    body = [f"<h1>{_e(title)}</h1>", f"<nav>{nav}</nav>"]
    if not plots:
        body.append(f'<p class="note" id="no-plots">{NO_PLOTS}</p>')
    body += [_section(a, t, c) for a, t, c in sections]
    return _page(title, "\n".join(body))


