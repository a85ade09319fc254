"""``dst-eval report PRED --gold PATH --html OUT``: the visual, self-contained HTML report.

Scores like ``dst-eval PRED`` with the breakdowns the page shows (``by=("domain", "slot",
"depth")``; a profile that lacks one of them gets the others and a note) and writes
:func:`~dst_eval.html_report.render_report_html`'s page to ``OUT``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from dst_eval.errors import EXIT_OK, UsageError
from dst_eval.gold import GoldSet
from dst_eval.predictions.model import PredictionSet
from dst_eval.report import Report

BREAKDOWNS = ("domain", "slot", "depth")

EXAMPLES = """\
examples:
  dst-eval report gold_samples/multiwoz22/predictions.json --gold gold_samples/multiwoz22 \\
      --html report.html
  dst-eval report preds.json --gold MultiWOZ_2.1/test.json.zip --html report.html --bootstrap 1000
"""


def build_report_parser() -> argparse.ArgumentParser:
    from dst_eval.cli.app import _common, _Parser

    parser = _Parser(prog="dst-eval report",
                     description="Score predictions and write a self-contained HTML report "
                                 "(summary, per-domain and per-slot tables, error types, "
                                 "plots; works offline). Plots need matplotlib "
                                 "(pip install 'dst-eval[report]').",
                     epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(parser)
    parser.add_argument("--html", required=True, metavar="OUT",
                        help="where to write the HTML page")
    parser.add_argument("--profile", help="scoring profile (default: the corpus's, strict; "
                                          "error analysis needs strict)")
    parser.add_argument("--missing", choices=("wrong", "skip"), default="wrong",
                        help="missing dialogues/turns: score as wrong (default) or skip them")
    parser.add_argument("--norm", help="value normalisation policy (strict profile)")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N",
                        help="95%% confidence intervals from N dialogue-level resamples")
    parser.add_argument("--seed", help="resampling seed (default $SACREBLEU_SEED or 12345)")
    parser.add_argument("--title", help="page title (default: from the predictions file name)")
    return parser


def report_with_breakdowns(predictions: PredictionSet, gold: GoldSet,
                           args: argparse.Namespace) -> Report:
    """``evaluate`` with as many of :data:`BREAKDOWNS` as the profile offers."""
    from dst_eval.api import evaluate

    by = list(BREAKDOWNS)
    dropped: list[str] = []
    while True:
        try:
            report = evaluate(predictions, gold=gold, corpus=args.corpus, profile=args.profile,
                              strict=args.strict, missing=args.missing,
                              normalisation=args.norm, by=by, bootstrap=args.bootstrap,
                              seed=args.seed)
        except UsageError as exc:
            if "breakdown" not in str(exc) or not by:
                raise
            dropped.insert(0, by.pop())
            continue
        if dropped:
            report.notes.append(f"profile {report.signature.profile} has no breakdown by "
                                f"{', '.join(dropped)}")
        return report


def run_report(argv: Sequence[str]) -> int:
    args = build_report_parser().parse_args(argv)
    from rich.console import Console

    from dst_eval.api import _as_gold, _as_predictions
    from dst_eval.html_report import render_report_html
    from dst_eval.progress import stage

    console = Console(stderr=True)
    target = Path(args.html)
    if target.is_dir():
        raise UsageError(f"--html {target}: is a directory; give a file name")
    with stage(console, "scoring…"):
        gold = _as_gold(args.gold, args.corpus, args.split)
        predictions = _as_predictions(args.predictions, gold.corpus, args.pred_format)
        report = report_with_breakdowns(predictions, gold, args)
    page = render_report_html(report, title=args.title)
    try:
        target.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write --html {target}: {exc.strerror or exc}") from exc
    console.print(f"HTML report written to {target} ({len(page.encode()) / 1024:.0f} KiB)",
                  highlight=False, soft_wrap=True)
    return EXIT_OK
