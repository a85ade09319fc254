"""Rendering: ``leaderboard.md``, ``leaderboard.json``, ``leaderboard.html`` and the
``--check`` report.

:func:`leaderboard_data` is everything the renderings show, JSON-ready (NaN as None); the
Markdown and the ``--check`` text are rendered here, the HTML page by
:func:`dst_eval.html_report.render_leaderboard_html` from the same data. Every
user-controlled string is escaped for Markdown (:func:`md`) or HTML. No timestamps, no
absolute paths: unchanged inputs give byte-identical files.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from dst_eval.leaderboard.board import Leaderboard, _finite
from dst_eval.leaderboard.submissions import visible
from dst_eval.report import SCALE_NOTE, format_value, shown_unit

LEVEL = 0.95


def _number(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _interval(ci: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not ci or not _finite(ci.get("ci_low")):
        return None
    return {k: ci[k] for k in ("ci_low", "ci_high", "mean", "half_width", "resamples")}


def leaderboard_data(board: Leaderboard) -> dict[str, Any]:
    """Everything the renderings show, JSON-ready (NaN as None): ``leaderboard.json``, in
    the layout :func:`dst_eval.html_report.render_leaderboard_html` documents."""
    config = board.config
    rows = []
    for row in board.rows:
        p = _number(row.p_vs_leader)
        rows.append({
            "rank": row.rank, "rank_interval": list(row.rank_interval or []) or None,
            "name": row.metadata["name"],
            "authors": ", ".join(row.metadata["authors"]) or None,
            **{k: row.metadata.get(k) for k in ("paper", "code", "model_size", "description")},
            "submission": row.id,
            "scores": {m: _number(row.scores[m]) for m in config.metrics},
            "ci": {m: _interval(row.intervals.get(m)) for m in config.metrics},
            "leader": row.rank is not None and row is board.rows[0],
            "p_vs_leader": p, "tied_with_leader": p is not None and p >= config.alpha,
            "coverage": row.coverage, "warnings": [visible(w) for w in row.warnings],
            "notes": [visible(n) for n in row.notes]})
    return {
        "title": config.title, "signature": board.signature,
        "gold": {"file": board.gold_name, "sha256": board.gold_hash},
        "columns": list(config.metrics), "ranking_metric": config.rank_by,
        "higher_is_better": config.higher_is_better,
        # what ran, never only what was configured
        "statistics": {"unit": "dialogue", "level": LEVEL, "resamples": config.bootstrap,
                       "seed": config.seed, "alpha": config.alpha,
                       "test": "paired bootstrap of the ranking metric against rank 1"
                       if tested(rows) else None}
        if board.resampled else None,
        "rows": rows,
        "invalid": [{"file": visible(i.id), "reason": visible(i.reason)}
                    for i in board.invalid],
        "notes": [visible(n) for n in board.notes]}


def leaderboard_json(data: Mapping[str, Any]) -> str:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def score_cell(metric: str, row: Mapping[str, Any]) -> str:
    """``score [low, high]`` on the report's scale (no brackets without an interval)."""
    ci = row["ci"].get(metric)
    score = format_value(metric, row["scores"][metric])
    if not ci:
        return score
    return f"{score} [{format_value(metric, ci['ci_low'])}, {format_value(metric, ci['ci_high'])}]"


def rank_cells(row: Mapping[str, Any]) -> tuple[str, str]:
    """("2†", "1–4"): rank, † when not significantly different from rank 1; rank interval."""
    if row["rank"] is None:
        return "–", ""
    span = row["rank_interval"]
    return (f"{row['rank']}{'†' if row['tied_with_leader'] else ''}",
            f"{span[0]}–{span[1]}" if span else "")


def _p_text(row: Mapping[str, Any]) -> str:
    if row["leader"]:
        return "leader"
    return "" if row["p_vs_leader"] is None else f"{row['p_vs_leader']:.4f}"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~!&])")


def md(text: str) -> str:
    """Text safe in a Markdown table cell or list item (no markup, links, HTML, cell or line
    breaks; control and bidirectional characters shown escaped)."""
    return _MD_SPECIAL.sub(r"\\\1", visible(text))


def tested(rows: list[Mapping[str, Any]]) -> bool:
    """Whether the paired test against rank 1 ran for some row (else no † and no p vs #1)."""
    return any(row["p_vs_leader"] is not None for row in rows)


def legend(data: Mapping[str, Any]) -> list[str]:
    """The legend, describing only what the board shows: the test's † and p vs #1 only
    when the test ran."""
    stats, metric = data["statistics"] or {}, data["ranking_metric"]
    resampled = data["statistics"] is not None  # Leaderboard.resampled
    level = f"{100 * stats['level']:.0f} %" if resampled else ""
    test = (f"† not significantly different from rank 1 on `{metric}` (paired bootstrap "
            f"over dialogues, p ≥ {stats['alpha']}); p vs #1 is that test's p-value. "
            if tested(data["rows"]) else "")
    return [
        f"Ranked by `{metric}` ({'higher' if data['higher_is_better'] else 'lower'} is "
        "better); equal scores share a rank." + (
            f" [low, high]: {level} interval of the score; rank interval: {level} interval of "
            f"the rank; both from {stats['resamples']} bootstrap resamples of whole dialogues "
            f"(seed {stats['seed']})." if resampled else " No resampling (no shown metric "
            "keeps per-dialogue statistics): no intervals and no tests."),
        f"{test}Each score column names its unit ({SCALE_NOTE}). Coverage (%): share of "
        "gold turns predicted.",
    ]


def markdown_table(data: Mapping[str, Any], *, with_p: bool | None = None) -> list[str]:
    """The leaderboard table as Markdown lines (header, alignment row, one row per system);
    the p vs #1 column when ``with_p`` (default: when the test ran for one of the rows)."""
    metrics = data["columns"]
    with_p = tested(data["rows"]) if with_p is None else with_p
    header = ["Rank", "Rank interval", "System", "Authors", "Links", "Size", "Coverage (%)",
              *(f"`{m}` ({shown_unit(m)})" for m in metrics), *["p vs #1"] * with_p]
    lines = ["| " + " | ".join(header) + " |",
             "|---:|:---:|---|---|---|---:|---:|" + "---:|" * (len(metrics) + with_p)]
    for row in data["rows"]:
        links = " · ".join(f"[{k}]({row[k]})" for k in ("paper", "code") if row.get(k))
        cells = [*rank_cells(row), f"**{md(row['name'])}**", md(row["authors"] or ""), links,
                 md(row["model_size"] or ""), format_value("coverage", row["coverage"])]
        cells += [score_cell(m, row) for m in metrics]
        lines.append("| " + " | ".join([*cells, *[_p_text(row)] * with_p]) + " |")
    return lines


def _submission_notes(data: Mapping[str, Any]) -> list[str]:
    lines = []
    for row in data["rows"]:
        parts = list(row["notes"])
        if row["warnings"]:
            parts.append(f"{len(row['warnings'])} warning(s), listed in leaderboard.json")
        if parts:
            lines.append(f"- {md(row['name'])} (`{md(row['submission'])}`): "
                         + "; ".join(md(p) for p in parts))
    return lines


def render_markdown(data: Mapping[str, Any]) -> str:
    """``leaderboard.md``: title, gold and signature, the table, legend, notes, invalid."""
    lines = [f"# {md(data['title'])}", "",
             f"Gold `{md(data['gold']['file'])}` (sha256 `{data['gold']['sha256'][:12]}`), "
             f"signature `{data['signature']}`", "", *markdown_table(data), ""]
    lines += [f"{line}  " for line in legend(data)]
    notes = [f"- {md(n)}" for n in data["notes"]] + _submission_notes(data)
    if notes:
        lines += ["", "Notes:", "", *notes]
    if data["invalid"]:
        lines += ["", "Invalid submissions (not scored):", ""]
        lines += [f"- `{md(i['file'])}`: {md(i['reason'])}" for i in data["invalid"]]
    return "\n".join(lines) + "\n"


OUTPUTS = ("leaderboard.md", "leaderboard.json", "leaderboard.html")


def write_outputs(board: Leaderboard, directory: Path) -> list[Path]:
    """Write ``leaderboard.md``, ``.json`` and ``.html`` into ``directory``. Each is written
    to a new file there and moved onto its name (:func:`_replace_file`): a symlink or hard
    link already standing at that name is replaced, never written through (it could point
    at the gold, a submission or a file outside the directory)."""
    from dst_eval.html_report import render_leaderboard_html

    data = leaderboard_data(board)
    texts = (render_markdown(data), leaderboard_json(data), render_leaderboard_html(data))
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in zip(OUTPUTS, texts, strict=True):
        _replace_file(directory / name, text.encode("utf-8"))
        paths.append(directory / name)
    return paths


def _replace_file(path: Path, data: bytes) -> None:
    """``data`` as the file ``path``: written to a file created anew (``O_EXCL``: no link
    followed) in the same directory, then renamed onto ``path`` (a link there is replaced,
    its target untouched)."""
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                             suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        umask = os.umask(0)  # the mode a plain write would give (mkstemp's is 0600)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def check_report(board: Leaderboard, candidate_id: str) -> tuple[bool, str]:
    """(valid, text) for ``--check``: the candidate's row and where it would rank. Every
    line is Markdown (the documented workflow appends it to ``$GITHUB_STEP_SUMMARY``), so
    every submitter-controlled string is escaped (:func:`md`) as in the table."""
    data = leaderboard_data(board)
    for invalid in data["invalid"]:
        if invalid["file"] == candidate_id:
            return False, f"{md(candidate_id)}: INVALID: {md(invalid['reason'])}\n"
    row = next(r for r in data["rows"] if r["submission"] == candidate_id)
    n_ranked = sum(r["rank"] is not None for r in data["rows"])
    if row["rank"] is None:
        where = f"not ranked: no {data['ranking_metric']} score (see the notes)"
    else:
        where = f"would rank {row['rank']} of {n_ranked}"
        if row["rank_interval"]:
            where += f" (95 % rank interval {rank_cells(row)[1]})"
        if row["leader"]:
            where += "; it would be the leader"
        elif row["p_vs_leader"] is not None:
            verdict = ("not significantly different from" if row["tied_with_leader"]
                       else "significantly different from")
            where += (f"; {verdict} rank 1 ({md(data['rows'][0]['name'])}), "
                      f"p = {row['p_vs_leader']:.4f}")
    lines = [*markdown_table({**data, "rows": [row]}, with_p=tested(data["rows"])), "",
             f"{md(candidate_id)}: {where}"]
    lines += [f"note: {md(n)}" for n in row["notes"]]
    lines += [f"warning: {md(w)}" for w in row["warnings"]]
    return True, "\n".join(lines) + "\n"
