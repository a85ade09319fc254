"""``dst-eval report PRED --gold PATH --html OUT``: the visual, self-contained HTML report.

Scores like ``dst-eval PRED`` with the breakdowns the page shows (``by=("domain", "slot",
"depth")``; a profile that lacks one of them gets the others and a note) and writes
:func:`~dst_eval.html_report.render_report_html`'s page to ``OUT``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from dst_eval.cli.parser import (
    add_inputs,
    add_quiet,
    add_scoring,
    add_strict,
    make_parser,
    options_from,
    read_predictions_arg,
)
from dst_eval.cli.score import (
    check_not_gold,
    check_not_resource,
    check_writable,
    resource_args,
    write_text,
)
from dst_eval.errors import EXIT_OK, UsageError
from dst_eval.gold import GoldSet
from dst_eval.options import EvalOptions
from dst_eval.predictions.model import PredictionSet
from dst_eval.result import Result

BREAKDOWNS = ("domain", "slot", "depth")

EXAMPLES = """\
examples:
  dst-eval report gold_samples/multiwoz22/predictions.json --gold gold_samples/multiwoz22 \\
      --html report.html
  dst-eval report preds.json --gold MultiWOZ_2.1/test.json.zip --html report.html --bootstrap 1000
"""


def build_report_parser() -> argparse.ArgumentParser:
    parser = make_parser(
        "dst-eval report",
        "Score predictions and write a self-contained HTML report (summary, per-domain and "
        "per-slot tables, error types, plots; works offline). Plots need matplotlib "
        "(pip install 'dst-eval[report]').", EXAMPLES)
    add_inputs(parser)
    add_strict(parser)
    parser.add_argument("--html", required=True, metavar="OUT",
                        help='where to write the HTML page ("-": stdout)')
    add_scoring(parser, breakdowns=False)
    parser.add_argument("--title", help="page title (default: from the predictions file name)")
    add_quiet(parser)
    return parser


def report_with_breakdowns(predictions: PredictionSet, gold: GoldSet,
                           options: EvalOptions) -> Result:
    """``evaluate`` with those of :data:`BREAKDOWNS` the profile computes (a note names
    the others)."""
    from dst_eval.api import evaluate
    from dst_eval.config import corpus_config
    from dst_eval.profiles import breakdowns_of

    profile = options.profile or corpus_config(gold.corpus).default_profile
    offered = breakdowns_of(profile)
    by = tuple(b for b in BREAKDOWNS if b in offered)
    dropped = [b for b in BREAKDOWNS if b not in offered]
    result = evaluate(predictions, gold=gold, options=options, by=by)
    if dropped:
        result.add(notes=[f"profile {profile} has no breakdown by {', '.join(dropped)}"])
    return result


def run_report(argv: Sequence[str]) -> int:
    args = build_report_parser().parse_args(argv)
    options = options_from(args)
    target = Path(args.html)
    check_writable("--html", args.html, (args.predictions, args.gold, *resource_args(args)))
    from dst_eval.api import as_gold
    from dst_eval.html_report import render_report_html
    from dst_eval.progress import ProgressDisplay

    with ProgressDisplay(quiet=args.quiet) as progress:
        progress.update("reading gold", 0, 4)
        gold = as_gold(args.gold, options)
        check_not_gold("--html", args.html, gold, args)
        progress.update("reading predictions", 1, 4)
        predictions = read_predictions_arg(args.predictions, gold.corpus, options)
        progress.update("scoring", 2, 4)
        report = report_with_breakdowns(predictions, gold, options)
        progress.update("rendering", 3, 4)
        page = render_report_html(report, title=args.title)
    check_not_resource("--html", args.html, report.resource_files)
    if args.html == "-":  # standard output, as for -o and --report
        write_text(page, None, machine=True)
        return EXIT_OK
    try:
        target.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write --html {target}: {exc.strerror or exc}") from exc
    if not args.quiet:
        print(f"HTML report written to {target} ({len(page.encode()) / 1024:.0f} KiB)",
              file=sys.stderr)
    return EXIT_OK
