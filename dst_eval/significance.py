"""Bootstrap confidence intervals and paired significance tests on results.

Glue between reports and :mod:`dst_eval.metrics.resampling` (which holds the formulas and
sacrebleu's conventions): ``--bootstrap N`` calls :func:`add_bootstrap`, ``dst-eval compare``
calls :func:`compare_reports` and renders the result with :func:`comparison_markdown`,
:func:`comparison_json` or :func:`render_comparison` (rich).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from dst_eval.errors import UsageError
from dst_eval.escape import markdown, one_line
from dst_eval.metrics.base import Metric, TurnTable
from dst_eval.metrics.resampling import (
    DEFAULT_SEED,
    TIES,
    Seed,
    approximate_randomisation,
    bootstrap_ci,
    check_paired,
    paired_bootstrap,
    seed_label,
)
from dst_eval.report import dumps_json, format_value, markdown_name
from dst_eval.result import Result, issue_dict

TESTS = ("bs", "ar", "both")
DEFAULT_RESAMPLES = 1000
DEFAULT_TRIALS = 10000
SIGNIFICANCE_LEVEL = 0.05
FEW_DIALOGUES = 30


def _metrics_of(report: Result, label: str) -> list[tuple[TurnTable, list[Metric]]]:
    pairs = report.stat_tables()
    if not pairs:
        asked = ", ".join(report.scores) or "none"
        raise UsageError(f"{label}: no metric it reports has per-turn statistics to resample "
                         f"(reported: {asked}), so no bootstrap or significance test is "
                         "possible; ask for a DST metric (-m) or a response metric the "
                         "predictions carry")
    return pairs


def few_dialogues_note(n_dialogues: int) -> str | None:
    if n_dialogues >= FEW_DIALOGUES:
        return None
    return (f"only {n_dialogues} dialogues: resampling tests and intervals are unreliable on "
            "so few")


FEW_RESAMPLES = 40
"""Below this many resamples a 95 % percentile interval has no 2.5th and 97.5th percentile
of its own, and a p-value cannot fall far below 0.05 (its least value is 1/(N+1))."""


def few_resamples_note(n: int, *, trials: bool = False) -> str | None:
    """The note for ``n`` bootstrap resamples (or approximate-randomisation ``trials``)."""
    if n >= FEW_RESAMPLES:
        return None
    what = ("trial" if n == 1 else "trials") if trials else (
        "resample" if n == 1 else "resamples")
    useless = "" if trials else "a 95 % interval or "
    return (f"only {n} {what}: too few for {useless}a p-value below {1 / (n + 1):.3g} "
            f"(use at least {FEW_RESAMPLES})")


def add_bootstrap(report: Result, n: int, seed: Seed) -> dict[str, str]:
    """Dialogue-level bootstrap CIs of the result's metrics into
    ``result.confidence_intervals`` (``{metric: {"score", "mean", "ci_low", "ci_high",
    "half_width", "resamples"}}``); adds the signature fields ``{"bs": n, "seed": seed}``
    to ``result.signature`` and returns them."""
    if n < 2:
        raise UsageError(f"--bootstrap needs at least 2 resamples, got {n}")
    intervals: dict[str, Any] = {}
    tables = _metrics_of(report, report.predictions_source or "predictions")
    for table, metrics in tables:
        intervals.update(bootstrap_ci(table, metrics, n_samples=n, seed=seed))
    report.confidence_intervals = intervals
    notes = [few_dialogues_note(len(tables[0][0].dialogue_ids)), few_resamples_note(n)]
    report.add(notes=[note for note in notes if note])
    fields = {"bs": str(n), "seed": seed_label(seed)}
    report.signature = report.signature.with_fields(**fields)
    return fields


def format_ci(name: str, ci: dict[str, Any]) -> str:
    """sacrebleu's rendering ``score (μ = mean ± half_width)`` on the report's scale."""
    return (f"{format_value(name, ci['score'])} (μ = {format_value(name, ci['mean'])} ± "
            f"{format_value(name, ci['half_width'])})")


def compare_reports(reports: Sequence[Result], *, test: str = "bs", n: int | None = None,
                    trials: int | None = None, seed: Seed = DEFAULT_SEED,
                    names: Sequence[str] | None = None, ties: str = "include") -> dict[str, Any]:
    """Paired tests of every report against the first (the baseline), per metric.

    ``test``: ``bs`` (paired bootstrap, ``n`` resamples, default 1000), ``ar`` (approximate
    randomisation, ``trials`` shuffles, default 10000) or ``both``; ``ties="exclude"`` gives
    sacrebleu's strict p-values (:mod:`dst_eval.metrics.resampling`). Returns::

        {"signature", "test", "seed", "ties", "n"?, "trials"?, "notes"?, "metrics": [names],
         "systems": [{"name", "baseline": bool,
                      "issues": [{"kind", "severity", "message", "file", "dialogue",
                                  "turn"}],    # the report's warnings (Result.issues)
                      "notes"?: [str],         # its notes no other system has
                      "scores": {metric: {
             "score", "mean", "ci_low", "ci_high", "half_width"      (bs)
             "delta", "p_bs", "p_ar"                                 (systems)}}}]}

    ``resamples`` (with an interval), ``p_bs_resamples`` and ``p_ar_trials`` appear only when
    the metric was undefined on some resamples or shuffles (left out): how many were used.
    """
    if test not in TESTS:
        raise UsageError(f"--test must be one of {', '.join(TESTS)}, got {test!r}")
    if len(reports) < 2:
        raise UsageError("compare needs a baseline and at least one system")
    names = list(names or [r.predictions_source or f"system {i}" for i, r in enumerate(reports)])
    if len(names) != len(reports):
        raise ValueError(f"{len(names)} names for {len(reports)} reports")
    n = DEFAULT_RESAMPLES if n is None else n
    trials = DEFAULT_TRIALS if trials is None else trials
    if test != "ar" and n < 2:
        raise UsageError(f"--n must be at least 2 bootstrap resamples, got {n}")
    if test != "bs" and trials < 1:
        raise UsageError(f"--trials must be at least 1, got {trials}")
    if ties not in TIES:
        raise UsageError(f"--ties must be one of {', '.join(TIES)}, got {ties!r}")
    base = reports[0]
    groups = _common_metrics(reports, names)
    fields: dict[str, str] = {}
    if test != "ar":
        fields["bs"] = str(n)
    if test != "bs":
        fields["ar"] = str(trials)
    fields["seed"] = seed_label(seed)
    if ties != "include":
        fields["ties"] = ties
    result: dict[str, Any] = {
        "signature": base.signature.with_fields(**fields).format(), "test": test,
        "seed": seed_label(seed), "ties": ties,
        "metrics": _in_report_order(base, [m.name for _, metrics in groups for m in metrics]),
        "systems": []}
    if test != "ar":
        result["n"] = n
    if test != "bs":
        result["trials"] = trials
    notes = [note for note in (few_dialogues_note(len(groups[0][0].dialogue_ids)),
                               few_resamples_note(n) if test != "ar" else None,
                               few_resamples_note(trials, trials=True) if test != "bs" else None)
             if note]
    notes += _not_compared(reports, names, result["metrics"])
    shared = [n for n in reports[0].notes if all(n in r.notes for r in reports[1:])]
    notes += [note for note in shared if note not in notes]  # each report's, said once
    if notes:
        result["notes"] = notes

    base_scores: dict[str, dict[str, Any]] = {m.name: {"score": base.scores[m.name]}
                                              for _, metrics in groups for m in metrics}
    if test != "ar":
        for table, metrics in groups:
            for name, ci in bootstrap_ci(table, metrics, n_samples=n, seed=seed).items():
                base_scores[name] = _without_resamples(ci, n)
    result["systems"].append({"name": names[0], "baseline": True,
                              "issues": [issue_dict(i) for i in base.issues],
                              **_own_notes(base, shared), "scores": base_scores})
    for report, name in zip(reports[1:], names[1:], strict=True):
        system = _compare_one(groups, report, names[0], name, test, n, trials, seed, ties)
        result["systems"].append({"name": name, "baseline": False,
                                  "issues": [issue_dict(i) for i in report.issues],
                                  **_own_notes(report, shared), "scores": system["scores"]})
    return result


def _own_notes(report: Result, shared: Sequence[str]) -> dict[str, list[str]]:
    """``{"notes": [...]}`` with the report's notes the other systems lack (scoring the file
    alone prints them: responses scored as empty, values read as unset, ...), or ``{}``."""
    own = [note for note in report.notes if note not in shared]
    return {"notes": own} if own else {}


def _common_metrics(reports: Sequence[Result], names: Sequence[str]
                    ) -> list[tuple[TurnTable, list[Metric]]]:
    """The baseline's (table, metrics) pairs, restricted to metrics every system reports."""
    base = reports[0]
    groups = _metrics_of(base, names[0])
    signature = base.signature.as_dict()
    for report, name in zip(reports[1:], names[1:], strict=True):
        _metrics_of(report, name)  # refuses a system without per-turn statistics
        fields = report.signature.as_dict()
        # the same values for the fields both have; a field only one has belongs to a kind
        # of metric the other did not score (responses, states), which is not compared
        shared = [k for k in signature.keys() & fields.keys() if signature[k] != fields[k]]
        if shared:
            raise UsageError(f"{name} was scored differently from {names[0]}: "
                             f"{report.signature} vs {base.signature}")
        groups = [(table, [m for m in metrics if _has_value(report, m.name)])
                  for table, metrics in groups]
    groups = [(table, metrics) for table, metrics in groups if metrics]
    if not groups:
        raise UsageError("the systems share no metric to compare")
    return groups


def _not_compared(reports: Sequence[Result], names: Sequence[str],
                  compared: Sequence[str]) -> list[str]:
    """A note per metric a system reports (a ``--metrics`` name n/a in this run included)
    that is not compared: n/a with its reason, or which system lacks it."""
    notes = []
    for metric in dict.fromkeys(m for r in reports for m in r.scores):
        if metric in compared:
            continue
        lacking = [(name, r.why_not_applicable(metric)) for r, name in
                   zip(reports, names, strict=True) if not _has_value(r, metric)]
        if lacking and len(lacking) == len(reports) and lacking[0][1]:
            notes.append(f"{metric}: n/a ({lacking[0][1]})")
        elif lacking:
            notes.append(f"{metric}: not compared (" + "; ".join(
                f"{name} lacks it" + (f": {why}" if why else "") for name, why in lacking)
                + ")")
        else:
            notes.append(f"{metric}: not compared (no per-turn statistics to resample)")
    return notes


def _in_report_order(report: Result, names: list[str]) -> list[str]:
    """``names`` in the order of ``report.scores`` (with ``--metrics``: the order asked)."""
    order = {name: i for i, name in enumerate(report.scores)}
    return sorted(names, key=lambda name: order.get(name, len(order)))


def _has_value(report: Result, metric: str) -> bool:
    value = report.scores.get(metric)
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _without_resamples(ci: dict[str, Any], n: int) -> dict[str, Any]:
    """``ci`` without its resample count, kept only when fewer than ``n`` were defined (the
    metric was undefined on the others, which are left out)."""
    return {k: v for k, v in ci.items() if k != "resamples" or v < n}


def _compare_one(base_groups: list[tuple[TurnTable, list[Metric]]], report: Result,
                 base_name: str, name: str, test: str, n: int, trials: int,
                 seed: Seed, ties: str) -> dict[str, Any]:
    system_tables = {tuple(m.name for m in metrics): table
                     for table, metrics in report.stat_tables()}
    scores: dict[str, dict[str, Any]] = {}
    for base_table, metrics in base_groups:
        sys_table = next((t for names_, t in system_tables.items()
                          if all(m.name in names_ for m in metrics)), None)
        if sys_table is None:
            raise UsageError(f"{name} lacks the statistics of {base_name}")
        try:
            check_paired(base_table, sys_table)
        except ValueError as exc:
            raise UsageError(f"cannot pair {name} with {base_name}: {exc}") from None
        for m in metrics:
            base_score = m.score(base_table)
            scores[m.name] = {"score": report.scores[m.name],
                              "delta": report.scores[m.name] - base_score}
        if test != "ar":
            for metric_name, res in paired_bootstrap(base_table, sys_table, metrics,
                                                     n_samples=n, seed=seed, ties=ties).items():
                scores[metric_name].update(_without_resamples(res["system_ci"], n))
                scores[metric_name]["p_bs"] = res["p_value"]
                if res["resamples"] < n:
                    scores[metric_name]["p_bs_resamples"] = res["resamples"]
        if test != "bs":
            for metric_name, res in approximate_randomisation(base_table, sys_table, metrics,
                                                              n_trials=trials, seed=seed,
                                                              ties=ties).items():
                scores[metric_name]["p_ar"] = res["p_value"]
                if res["trials"] < trials:
                    scores[metric_name]["p_ar_trials"] = res["trials"]
    return {"name": name, "baseline": False, "scores": scores}


# ---- renderings ----------------------------------------------------------------------
def comparison_json(result: dict[str, Any]) -> str:
    """JSON with NaN as ``null``."""
    return dumps_json(_nan_to_none(result), orjson.OPT_INDENT_2) + "\n"


def _nan_to_none(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_to_none(v) for v in value]
    return value


def _p(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return f"{value:.4f}" + ("*" if value < SIGNIFICANCE_LEVEL else "")


def comparison_rows(result: dict[str, Any], name: Callable[[str], str] = one_line,
                    metric_name: Callable[[str], str] = one_line
                    ) -> tuple[list[str], list[list[str]]]:
    """Header and rows: one row per metric; per system its score (μ ± CI when bootstrapped),
    then for every non-baseline system Δ and the p-values (``*``: p < 0.05). File names go
    through ``name`` and metric names through ``metric_name`` (:mod:`dst_eval.escape`: they
    come from the command line and the gold data)."""
    header = ["metric"]
    for system, label in zip(result["systems"], _display_names(result), strict=True):
        header.append(name(label) + (" (baseline)" if system["baseline"] else ""))
        if not system["baseline"]:
            header.append("Δ")
            header += [f"p ({t})" for t in ("bs", "ar") if f"p_{t}" in _any_scores(system)]
    rows = []
    for metric in result["metrics"]:
        row = [metric_name(metric)]
        for system in result["systems"]:
            cell = system["scores"][metric]
            row.append(format_ci(metric, cell) if "mean" in cell
                       else format_value(metric, cell["score"]))
            if not system["baseline"]:
                row.append(_signed(metric, cell["delta"]))
                row += [_p(cell[f"p_{t}"]) for t in ("bs", "ar") if f"p_{t}" in cell]
        rows.append(row)
    return header, rows


def _display_names(result: dict[str, Any]) -> list[str]:
    """File names without their folders when that keeps them distinct."""
    names = [system["name"] for system in result["systems"]]
    short = [Path(name).name or name for name in names]
    return short if len(set(short)) == len(short) else names


def _any_scores(system: dict[str, Any]) -> dict[str, Any]:
    return next(iter(system["scores"].values()), {})


def _signed(metric: str, delta: float) -> str:
    text = format_value(metric, delta)
    return text if text.startswith("-") or text == "n/a" else "+" + text


def comparison_markdown(result: dict[str, Any]) -> str:
    header, rows = comparison_rows(result, markdown, markdown_name)
    from dst_eval.report import SCALE_NOTE

    lines = [f"`{result['signature']}`", "", f"Units: {SCALE_NOTE}.", "",
             "| " + " | ".join(header) + " |",
             "|---|" + "---:|" * (len(header) - 1)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines += ["", _legend(result)] + [f"- note: {markdown(note)}"
                                      for note in result.get("notes", [])]
    lines += [f"- {severity}: {markdown(text)}" for severity, text in _issues(result)]
    return "\n".join(lines) + "\n"


def _legend(result: dict[str, Any]) -> str:
    parts = []
    if "n" in result:
        parts.append(f"paired bootstrap over dialogues ({result['n']} resamples; "
                     "μ ± half-width of the 95 % interval)")
    if "trials" in result:
        trials = result["trials"]
        parts.append(f"approximate randomisation swapping dialogues ({trials} "
                     f"trial{'' if trials == 1 else 's'})")
    ties = "ties count" if result["ties"] == "include" else "ties excluded (sacrebleu)"
    return ("p-values against the baseline: " + "; ".join(parts) + f"; seed {result['seed']}; "
            f"{ties}; * p < {SIGNIFICANCE_LEVEL}.")


def _issues(result: dict[str, Any]) -> list[tuple[str, str]]:
    """``(severity, one-line text)`` of every system's issues (the warnings ``dst-eval``
    prints for that file alone); one without a file names its system."""
    from dst_eval.predictions.model import Issue

    out = []
    for system, label in zip(result["systems"], _display_names(result), strict=True):
        for fields in system.get("issues", []):
            issue = Issue(**fields)
            text = str(issue) if issue.file else f"{one_line(label)}: {issue}"
            out.append((issue.severity, text))
        out += [("note", f"{one_line(label)}: {one_line(note)}")
                for note in system.get("notes", [])]
    return out


def render_comparison(result: dict[str, Any], console) -> None:
    """Print the comparison as a rich table (the signature on a line of its own)."""
    from rich.table import Table

    from dst_eval.escape import rich
    from dst_eval.report import SCALE_NOTE, fits

    header, rows = comparison_rows(result, rich, rich)  # the other cells hold no markup
    if not fits(*comparison_rows(result), console.width):  # cells would be cut: plain text
        console.print(comparison_text(result), markup=False, highlight=False, soft_wrap=True,
                      end="")
        return
    table = Table(title="dst-eval compare", caption=SCALE_NOTE)
    for i, title in enumerate(header):
        table.add_column(title, justify="left" if i == 0 else "right", overflow="fold")
    for row in rows:
        table.add_row(*row)
    console.print(table)
    console.print(f"signature: {result['signature']}", highlight=False, soft_wrap=True,
                  markup=False)
    console.print(_legend(result), highlight=False, markup=False)
    for note in result.get("notes", []):
        console.print(f"note: {one_line(note)}", highlight=False, markup=False)
    for severity, text in _issues(result):
        style = "red" if severity == "error" else "yellow"
        console.print(f"[{style}]{severity}[/{style}]: {rich(text)}", highlight=False)


def comparison_text(result: dict[str, Any]) -> str:
    """The comparison as plain aligned text (a pipe or a log file): nothing cut, the
    signature on one line."""
    from dst_eval.report import SCALE_NOTE, aligned

    header, rows = comparison_rows(result)
    lines = [f"dst-eval compare ({SCALE_NOTE})", "",
             *aligned(header, rows, set(range(1, len(header)))), "",
             f"signature: {result['signature']}", _legend(result)]
    lines += [f"note: {one_line(note)}" for note in result.get("notes", [])]
    lines += [f"{severity}: {text}" for severity, text in _issues(result)]
    return "\n".join(lines) + "\n"
