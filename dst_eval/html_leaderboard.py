"""The leaderboard page: ``render_leaderboard_html(data)`` (layout documented in
:mod:`dst_eval.html_report`)."""

from __future__ import annotations

import math
from typing import Any

from dst_eval.html_common import (
    _RC,
    NO_PLOTS,
    _e,
    _figure,
    _is_number,
    _matplotlib_available,
    _new_figure,
    _page,
    _plots,
    _Raw,
    _safe_url,
    _scale,
    _short,
    _svg,
    _table,
)
from dst_eval.report import SCALE_NOTE, format_value, shown_unit


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
    units = _units([str(c) for c in data.get("columns") or []])
    return f'<p class="meta">{"; ".join(parts)}. Units: {_e(units)}.</p>'


def _units(columns: list[str]) -> str:
    """The unit of each shown column (coverage and fractions as percentages)."""
    by_unit: dict[str, list[str]] = {"%": ["coverage"]}
    for column in columns:
        by_unit.setdefault(shown_unit(column), []).append(column)
    return "; ".join(f"{', '.join(names)} in {unit}" for unit, names in by_unit.items()) + (
        f" ({SCALE_NOTE})")


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
    intervals = " with 95% intervals" * any(p[2] is not None for p in points)
    return _svg(fig, "board", f"{metric} per system{intervals}")


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
    with_p = any(_is_number(row.get("p_vs_leader")) for row in rows)  # the test ran
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
            interval = " with its interval" * any(_ci(row, ranking) for row in rows)
            tied = " and the systems not significantly different from it" * with_p
            body.append(_figure(_plots(_plot_leaderboard, ranking, rows),
                                f"{ranking} per system{interval}; green: rank 1{tied}."))
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

