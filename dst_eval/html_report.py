"""Self-contained HTML pages: one evaluation report, and a leaderboard.

``render_report_html(report)`` renders a :class:`~dst_eval.result.Result` (best from
``evaluate(..., by=("domain", "slot", "depth"))`` with the strict profile, whose
``Result.outcomes`` feed the error analysis): summary and signature, headline scores,
joint goal accuracy by turn depth, per-domain and per-slot tables, error types
(wrong value / missing / extra), the most frequent wrong values, issues and notes.

``render_leaderboard_html(data)`` renders the ``leaderboard.json`` structure that
:func:`dst_eval.leaderboard.leaderboard_data` writes (keys marked ``?`` may be absent)::

    {"title": str, "signature": str,
     "gold"?: {"file": str, "sha256": str},
     "columns": [metric, ...],              # shown metrics, in order (keys of Result.scores)
     "ranking_metric"?: str,                # default columns[0]
     "higher_is_better"?: bool,
     "statistics"?: {"level": 0.95, "resamples": int, "seed": ..., "alpha": 0.05, ...},
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

import html
import io
import math
import re
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from dst_eval import __version__
from dst_eval.metrics.error_analysis import OUTCOMES, error_counts, frequent_wrong_values
from dst_eval.profiles.strict import DEPTH_CAP, domain_of
from dst_eval.report import COUNT_KEYS, POINT_PREFIXES, format_value
from dst_eval.result import Result

TOP_SLOTS = 30
"""Slots shown in the per-slot error plot (the table lists every slot)."""
TOP_WRONG = 20
"""Rows of the most-frequent-wrong-values table (the plot shows the first 15)."""
MAX_ISSUES = 200
ERROR_COLOURS = {"wrong": "#D55E00", "missing": "#0072B2", "extra": "#E69F00"}
"""Okabe-Ito colours (distinguishable with colour-vision deficiencies)."""
NO_PLOTS = ("Plots are omitted: matplotlib is not installed "
            "(<code>pip install 'dst-eval[report]'</code>). The tables below hold every number.")
CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
       "base-uri 'none'; form-action 'none'")

CSS = """
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--zebra:#f6f8fa;--accent:#0b5cad}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",
"Liberation Sans",Arial,sans-serif;color:var(--fg);background:#fff}
main{max-width:1280px;margin:0 auto;padding:20px 28px 40px}
h1{font-size:1.6em;margin:.2em 0 .3em}h2{font-size:1.25em;margin:1.6em 0 .5em;
border-bottom:1px solid var(--line);padding-bottom:.2em}h3{font-size:1.05em;margin:1.2em 0 .4em}
code,.sig{font:13px/1.4 ui-monospace,"DejaVu Sans Mono","Liberation Mono",monospace}
.sig{display:block;background:var(--zebra);border:1px solid var(--line);border-radius:6px;
padding:8px 10px;overflow-wrap:anywhere}
nav{font-size:.92em;color:var(--muted)}nav a{color:var(--accent);margin-right:.9em}
.meta{color:var(--muted);font-size:.92em}.note{background:#fff8c5;border:1px solid #d4a72c;
border-radius:6px;padding:8px 12px}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.3em 0 1em;font-size:.93em}
th,td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
th{background:var(--zebra);font-weight:600}tbody tr:nth-child(even){background:#fbfcfd}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:.6em 0}
.card{border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:150px}
.card b{display:block;font-size:1.5em}.card span{color:var(--muted);font-size:.85em}
.row{display:flex;flex-wrap:wrap;gap:12px 36px;align-items:flex-start}
figure{margin:.6em 0 1.2em;max-width:100%}figure svg{max-width:100%;height:auto;display:block}
figcaption{color:var(--muted);font-size:.88em}
.tied{color:#1a7f37;font-weight:600}.ci{color:var(--muted);font-size:.85em}
ul.issues{padding-left:1.2em}.error{color:#cf222e}.warning{color:#9a6700}
footer{margin-top:2em;color:var(--muted);font-size:.85em}
"""


# ---- small HTML helpers ----------------------------------------------------------------
def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *,
           numeric: Iterable[int] = ()) -> str:
    """An HTML table (no header row when every header is empty); cells are escaped unless
    wrapped in :class:`_Raw`."""
    numeric = set(numeric)
    head = "".join(f'<th{" class=n" if i in numeric else ""}>{_e(h).replace("_", "_<wbr>")}</th>'
                   for i, h in enumerate(headers))
    body = []
    for row in rows:
        cells = "".join(
            f'<td{" class=n" if i in numeric else ""}>'
            f'{cell.html if isinstance(cell, _Raw) else _e(cell)}</td>'
            for i, cell in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    thead = f"<thead><tr>{head}</tr></thead>" if any(headers) else ""
    return f'<div class="scroll"><table>{thead}<tbody>{"".join(body)}</tbody></table></div>'


class _Raw:
    """Already-escaped HTML for a table cell."""

    __slots__ = ("html",)

    def __init__(self, markup: str) -> None:
        self.html = markup


def _page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta name="generator" content="dst-eval {_e(__version__)}">\n'
            f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
            f"{body}\n<footer>Generated by dst-eval {_e(__version__)}. This page is one "
            "self-contained file: it loads nothing from the network.</footer>\n"
            "</main>\n</body>\n</html>\n")


def _section(anchor: str, title: str, content: str) -> str:
    return f'<section id="{anchor}">\n<h2>{_e(title)}</h2>\n{content}\n</section>'


def _figure(svg: str | None, caption: str) -> str:
    if svg is None:
        return ""
    return f'<figure class="plot">{svg}<figcaption>{_e(caption)}</figcaption></figure>'


def _scale(metric: str) -> float:
    """100 for metrics shown as percentages, 1 for counts and point-scale metrics."""
    if metric in COUNT_KEYS or metric.endswith("_count") or metric.startswith(POINT_PREFIXES):
        return 1.0
    return 100.0


def _safe_url(url: Any) -> str | None:
    if isinstance(url, str) and re.match(r"https?://[^\s\"'<>]+$", url.strip()):
        return url.strip()
    return None


# ---- plots (matplotlib, optional) -------------------------------------------------------
def _matplotlib_available() -> bool:
    try:
        import matplotlib  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        return False
    return True


_RC = {"svg.fonttype": "none", "svg.hashsalt": "dst-eval", "text.parse_math": False,
       "font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"], "font.size": 9,
       "axes.spines.top": False, "axes.spines.right": False, "axes.axisbelow": True}


def _svg(fig: Any, prefix: str, label: str) -> str:
    """The figure as inline SVG: no XML prologue, ids prefixed (unique in the page)."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buffer, format="svg", bbox_inches="tight",
                    metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', text)
    text = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", text)
    text = re.sub(r'xlink:href="#([^"]+)"', rf'xlink:href="#{prefix}-\1"', text)
    text = text.replace("<svg ", f'<svg role="img" aria-label="{_e(label)}" ', 1)
    return text.strip()


def _new_figure(width: float, height: float) -> Any:
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(width, height))
        ax = fig.add_subplot()
    ax.grid(axis="both", color="#e1e4e8", linewidth=0.6)
    return fig, ax


def _short(text: str, limit: int = 44) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plot_depth(rows: list[tuple[str, float, int]]) -> str:
    import matplotlib

    with matplotlib.rc_context(_RC):
        fig, ax = _new_figure(7.0, 3.0)
        labels = [r[0] for r in rows]
        values = [100 * r[1] if r[1] is not None and not math.isnan(r[1]) else 0.0 for r in rows]
        bars = ax.bar(labels, values, color="#0b5cad", width=0.7)
        for bar, (_, _, n) in zip(bars, rows, strict=True):
            ax.annotate(f"n={n}", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                        ha="center", va="bottom", fontsize=7, color="#57606a",
                        xytext=(0, 2), textcoords="offset points")
        ax.set_ylim(0, 105)
        ax.set_xlabel("turn depth (0 = first user turn)")
        ax.set_ylabel("joint goal accuracy (%)")
        ax.grid(axis="x", visible=False)
    return _svg(fig, "depth", "Joint goal accuracy by turn depth")


def _plot_slot_errors(counts: dict[str, dict[str, float]]) -> str:
    import matplotlib
    from matplotlib.ticker import MaxNLocator

    slots = [s for s in sorted(counts, key=lambda s: (-counts[s]["errors"], s))
             if counts[s]["errors"]][:TOP_SLOTS]
    slots.reverse()  # largest at the top
    with matplotlib.rc_context(_RC):
        fig, ax = _new_figure(6.6, 0.9 + 0.2 * len(slots))
        left = [0.0] * len(slots)
        for kind in ("wrong", "missing", "extra"):
            values = [counts[s][kind] for s in slots]
            ax.barh([_short(s, 36) for s in slots], values, left=left, height=0.72,
                    color=ERROR_COLOURS[kind], label=kind if kind != "wrong" else "wrong value")
            left = [a + b for a, b in zip(left, values, strict=True)]
        ax.set_xlabel("errors (slot-turns)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(axis="y", visible=False)
        ax.legend(loc="lower right", frameon=False, fontsize=8)
        ax.margins(y=0.01)
    return _svg(fig, "slots", "Errors per slot: wrong value, missing, extra")


def _plot_wrong_values(confusions: list[tuple[str, str, str, int]]) -> str:
    import matplotlib
    from matplotlib.ticker import MaxNLocator

    shown = list(reversed(confusions[:15]))
    with matplotlib.rc_context(_RC):
        fig, ax = _new_figure(7.5, 0.9 + 0.24 * len(shown))
        labels = [_short(f"{s}: {g or '∅'} → {p or '∅'}", 60) for s, g, p, _ in shown]
        ax.barh(range(len(shown)), [c for *_, c in shown], color=ERROR_COLOURS["wrong"],
                height=0.72)
        ax.set_yticks(range(len(shown)), labels)
        ax.set_xlabel("slot-turns with this confusion")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(axis="y", visible=False)
        ax.margins(y=0.01)
    return _svg(fig, "wrong", "Most frequent wrong values (gold → predicted)")


def _plot_leaderboard(metric: str, rows: list[dict[str, Any]]) -> str | None:
    import matplotlib

    scale = _scale(metric)
    points = [(str(r.get("name", "")), _value(r, metric), _ci(r, metric),
               _tied(r) or bool(r.get("leader", r.get("rank") == 1))) for r in rows]
    points = [p for p in points if p[1] is not None][:40]
    if not points:
        return None
    points.reverse()
    with matplotlib.rc_context(_RC):
        fig, ax = _new_figure(7.5, 0.9 + 0.26 * len(points))
        ys = range(len(points))
        values = [scale * p[1] for p in points]
        colours = ["#1a7f37" if p[3] else "#0b5cad" for p in points]
        ax.barh(ys, values, color=colours, height=0.65)
        for y, (_, value, ci, _) in zip(ys, points, strict=True):
            if ci is not None:
                ax.errorbar(scale * value, y, xerr=[[scale * (value - ci[0])],
                                                    [scale * (ci[1] - value)]],
                            color="#1b1f24", capsize=2.5, linewidth=0.9)
        ax.set_yticks(list(ys), [_short(p[0], 40) for p in points])
        ax.set_xlabel(f"{metric}{' (%)' if scale == 100 else ''}")
        ax.grid(axis="y", visible=False)
        ax.margins(y=0.01)
    return _svg(fig, "board", f"{metric} per system with 95% intervals")


def _plots(render: Any, *args: Any) -> str | None:
    """Call a plot function with matplotlib's glyph warnings silenced (CJK labels are
    drawn by the browser: the SVG keeps text as text)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return render(*args)


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
    facts += [(k, f"{v:,}" if isinstance(v, int) else format_value(k, v))
              for k, v in report.counts.items()]
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


def _row(*parts: str) -> str:
    """Side by side when the page is wide enough."""
    return '<div class="row">' + "".join(f"<div>{p}</div>" for p in parts if p) + "</div>"


def _scores(report: Result) -> str:
    intervals = report.confidence_intervals or {}
    headers = ["metric", "score"] + (["95% CI", "μ ± half-width"] if intervals else [])
    rows = []
    for name, value in report.scores.items():
        row = [name, format_value(name, value)]
        if intervals:
            ci = intervals.get(name)
            row += (["", ""] if not ci else
                    [f"[{format_value(name, ci['ci_low'])}, {format_value(name, ci['ci_high'])}]",
                     f"{format_value(name, ci['mean'])} ± {format_value(name, ci['half_width'])}"])
        rows.append(row)
    return (_table(headers, rows, numeric=range(1, len(headers)))
            + '<p class="meta">Fractions are shown as percentages.</p>')


def _group_table(groups: dict[str, dict[str, Any]], label: str) -> str:
    keys: list[str] = []
    for metrics in groups.values():
        keys += [k for k in metrics if k not in keys]
    rows = [[name] + [format_value(k, m[k]) if k in m else "" for k in keys]
            for name, m in groups.items()]
    return _table([label] + keys, rows, numeric=range(1, len(keys) + 1))


def _depth_section(report: Result, plots: bool) -> str:
    rows, source = _depth_rows(report)
    if not rows:
        return '<p class="meta">No per-turn depth information for this profile.</p>'
    svg = _plots(_plot_depth, rows) if plots else None
    return _row(_figure(svg, f"Joint goal accuracy at each turn depth ({source}); "
                             f"depths ≥ {DEPTH_CAP} share one bar; n = scored turns."),
                _table(["depth", "joint_goal_accuracy", "turns"],
                       [(d, format_value("joint_goal_accuracy", v), n) for d, v, n in rows],
                       numeric=(1, 2)))


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
    sections = [("summary", "Summary", _summary(report)),
                ("depth", "Joint goal accuracy by turn depth", _depth_section(report, plots)),
                ("domains", "Per-domain scores", _domain_section(report))]
    if slot_counts:
        sections += [("errors", "Error types", _error_types(report, slot_counts)),
                     ("slots", "Per-slot errors", _slot_section(slot_counts, plots))]
    else:
        sections.append(("errors", "Error types", '<p class="meta">This profile keeps no '
                         "per-slot outcomes; use the strict profile for error analysis.</p>"))
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


# ---- leaderboard ------------------------------------------------------------------------
def _value(row: dict[str, Any], metric: str) -> float | None:
    value = (row.get("scores") or {}).get(metric, row.get(metric))
    if not _is_number(value) or math.isnan(value):
        return None
    return float(value)


def _ci(row: dict[str, Any], metric: str) -> tuple[float, float] | None:
    ci = (row.get("ci") or {}).get(metric)
    if not isinstance(ci, dict):
        return None
    low, high = ci.get("ci_low"), ci.get("ci_high")
    if _is_number(low) and _is_number(high):
        return float(low), float(high)
    return None


def _tied(row: dict[str, Any]) -> bool:
    leader = row.get("leader", row.get("rank") == 1)
    return bool(row.get("tied_with_leader")) and not leader


def _rank_cell(row: dict[str, Any]) -> _Raw:
    rank = row.get("rank")
    if rank is None:
        return _Raw("–")
    text = _e(rank) + ('<span class="tied" title="not significantly different from rank 1">'
                       "†</span>" if _tied(row) else "")
    span = row.get("rank_interval")
    if isinstance(span, list | tuple) and len(span) == 2:
        text += f'<br><span class="ci">{_e(span[0])}–{_e(span[1])}</span>'
    return _Raw(text)


def _system_cell(row: dict[str, Any]) -> _Raw:
    text = f"<b>{_e(row.get('name', ''))}</b>"
    if row.get("description"):
        text += f'<div class="ci">{_e(row["description"])}</div>'
    return _Raw(text)


def _submission_notes(rows: list[dict[str, Any]]) -> list[str]:
    items = []
    for row in rows:
        parts = [_e(n) for n in row.get("notes") or []]
        if row.get("warnings"):
            parts.append(f'<span class="warning">{len(row["warnings"])} warning(s), listed in '
                         "leaderboard.json</span>")
        if parts:
            items.append(f"<li><b>{_e(row.get('name', ''))}</b>: {'; '.join(parts)}</li>")
    return items


def _links_cell(row: dict[str, Any]) -> _Raw:
    links = [f'<a href="{_e(url)}" rel="noopener noreferrer">{key}</a>'
             for key in ("paper", "code") if (url := _safe_url(row.get(key)))]
    return _Raw(" · ".join(links))


def _metric_cell(row: dict[str, Any], metric: str) -> _Raw:
    text = _e(format_value(metric, _value(row, metric)))
    ci = _ci(row, metric)
    if ci is not None:
        text += (f'<br><span class="ci">[{_e(format_value(metric, ci[0]))}, '
                 f'{_e(format_value(metric, ci[1]))}]</span>')
    return _Raw(text)


def _p_cell(row: dict[str, Any]) -> str:
    if row.get("leader"):
        return "leader"
    p = row.get("p_vs_leader")
    return f"{p:.4f}" if _is_number(p) else ""


def _legend(data: dict[str, Any], ranking: str, rows: list[dict[str, Any]]) -> str:
    stats = data.get("statistics") or {}
    level = f"{100 * stats['level']:.0f}%" if _is_number(stats.get("level")) else "95%"
    direction = {True: " (higher is better)", False: " (lower is better)"}.get(
        data.get("higher_is_better"), "")
    parts = [f"Ranked by <code>{_e(ranking)}</code>{direction}"]
    if any(_ci(row, m) for row in rows for m in data.get("columns") or []):
        source = (f" from {_e(stats['resamples'])} bootstrap resamples of whole dialogues "
                  f"(seed {_e(stats.get('seed'))})" if stats.get("resamples") else "")
        parts.append(f"[low, high]: {level} interval of the score{source}")
    if any(_tied(row) for row in rows):
        alpha = _e(stats.get("alpha", 0.05))
        parts.append(f'<span class="tied">†</span> not significantly different from rank 1 '
                     f"(paired bootstrap over dialogues, p ≥ {alpha})")
    return f'<p class="meta">{"; ".join(parts)}. Fractions are shown as percentages.</p>'


def render_leaderboard_html(data: dict[str, Any]) -> str:
    """The ``leaderboard.json`` structure (module docstring) as one self-contained page."""
    title = str(data.get("title") or "dst-eval leaderboard")
    columns = [str(c) for c in data.get("columns") or []]
    ranking = str(data.get("ranking_metric") or (columns[0] if columns else ""))
    rows = list(data.get("rows") or [])
    body = [f"<h1>{_e(title)}</h1>"]
    gold = data.get("gold")
    if isinstance(gold, dict) and gold.get("file"):
        body.append(f'<p class="meta">Gold <code>{_e(gold["file"])}</code>'
                    + (f' (sha256 <code>{_e(str(gold["sha256"])[:12])}</code>)'
                       if gold.get("sha256") else "") + "</p>")
    if data.get("signature"):
        body.append(f'<code class="sig" id="signature">{_e(data["signature"])}</code>')
    body.append(_legend(data, ranking, rows))
    optional = [(name, cell) for name, cell, shown in (
        ("authors", lambda r: r.get("authors") or "", any(r.get("authors") for r in rows)),
        ("links", _links_cell, any(_safe_url(r.get(k)) for r in rows for k in ("paper", "code"))),
        ("size", lambda r: r.get("model_size") or "", any(r.get("model_size") for r in rows)),
    ) if shown]
    with_coverage = any(_is_number(row.get("coverage")) for row in rows)
    with_p = any("p_vs_leader" in row for row in rows)
    headers = ["rank", "system", *(name for name, _ in optional)]
    first_number = len(headers)
    headers += ["coverage"] * with_coverage + columns + ["p vs #1"] * with_p
    table_rows = []
    for row in rows:
        cells: list[Any] = [_rank_cell(row), _system_cell(row)]
        cells += [cell(row) for _, cell in optional]
        if with_coverage:
            cells.append(format_value("coverage", row.get("coverage")))
        cells += [_metric_cell(row, m) for m in columns]
        if with_p:
            cells.append(_p_cell(row))
        table_rows.append(cells)
    body.append(_table(headers, table_rows, numeric=[0, *range(first_number, len(headers))]))
    if ranking and rows:
        if _matplotlib_available():
            body.append(_figure(_plots(_plot_leaderboard, ranking, rows),
                                f"{ranking} per system with its interval; green: rank 1 "
                                "and the systems not significantly different from it."))
        else:
            body.append(f'<p class="note" id="no-plots">{NO_PLOTS}</p>')
    invalid = data.get("invalid") or []
    if invalid:
        body.append("<h2>Invalid submissions (not scored)</h2>" + _table(
            ["file", "reason"], [(i.get("file", ""), i.get("reason", "")) for i in invalid]))
    notes = [f"<li>{_e(n)}</li>" for n in data.get("notes") or []] + _submission_notes(rows)
    if notes:
        body.append(f'<h2>Notes</h2><ul class="issues">{"".join(notes)}</ul>')
    return _page(title, "\n".join(body))
