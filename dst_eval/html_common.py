"""Shared pieces of dst-eval's self-contained HTML pages (:mod:`dst_eval.html_report`,
:mod:`dst_eval.html_leaderboard`): escaping, tables, the page shell with its
Content-Security-Policy, and the optional matplotlib plots as inline SVG.

Every text is HTML-escaped, links accept only ``http(s)`` URLs, and the output is
deterministic (no dates, fixed SVG ids), so re-rendering gives identical bytes.
"""

from __future__ import annotations

import io
import math
import re
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from dst_eval import __version__
from dst_eval.escape import html, one_line
from dst_eval.report import FRACTION, unit_of

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
    """``value`` as HTML text (:func:`dst_eval.escape.html`: control and bidirectional
    characters shown as ``\\x1b``, ``\\u202e``)."""
    return html("" if value is None else str(value))


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
    return 100.0 if unit_of(metric) == FRACTION else 1.0


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
            ax.barh([_short(one_line(s), 36) for s in slots], values, left=left, height=0.72,
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
        labels = [_short(one_line(f"{s}: {g or '∅'} → {p or '∅'}"), 60)
                  for s, g, p, _ in shown]
        ax.barh(range(len(shown)), [c for *_, c in shown], color=ERROR_COLOURS["wrong"],
                height=0.72)
        ax.set_yticks(range(len(shown)), labels)
        ax.set_xlabel("slot-turns with this confusion")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(axis="y", visible=False)
        ax.margins(y=0.01)
    return _svg(fig, "wrong", "Most frequent wrong values (gold → predicted)")


def _plots(render: Any, *args: Any) -> str | None:
    """Call a plot function with matplotlib's glyph warnings silenced (CJK labels are
    drawn by the browser: the SVG keeps text as text)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return render(*args)


