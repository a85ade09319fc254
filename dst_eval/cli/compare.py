"""``dst-eval compare BASE.json SYS1.json [SYS2.json ...] --gold PATH``: paired significance tests.

Every prediction file is scored with :func:`dst_eval.api.evaluate` on the same gold data and
options, then each system is tested against the first (the baseline) per metric with a
paired bootstrap and/or approximate randomisation over whole dialogues
(:mod:`dst_eval.significance`).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from dst_eval.cli.parser import (
    add_inputs,
    add_quiet,
    add_scoring,
    make_parser,
    options_from,
    read_predictions_arg,
)
from dst_eval.cli.score import (
    check_not_gold,
    check_not_resource,
    check_writable,
    resource_args,
    stdout_is_terminal,
    write_text,
)
from dst_eval.errors import EXIT_OK, UsageError
from dst_eval.options import MAX_BOOTSTRAP

MAX_TRIALS = 100_000
"""Approximate randomisation trials at most (a trials × dialogues boolean matrix)."""

FORMATS = ("table", "json", "markdown")

EXAMPLES = """\
examples:
  dst-eval compare base.json new.json --gold MultiWOZ_2.2 --split test
  dst-eval compare base.json a.json b.json --gold data/ --test both --format markdown
  SACREBLEU_SEED=7 dst-eval compare base.json new.json --gold data/ --n 2000

p-values follow sacrebleu, p = (#{resampled statistic >= |Δ|} + 1) / (N + 1), except that
ties count (identical systems: p = 1; --ties exclude gives sacrebleu's strict '>').
Seed: --seed, else $DST_EVAL_SEED, else $SACREBLEU_SEED, else 12345 ('none' = unseeded).
"""


def build_compare_parser() -> argparse.ArgumentParser:
    parser = make_parser(
        "dst-eval compare",
        "Test whether systems differ significantly from a baseline, resampling whole "
        "dialogues (paired bootstrap and/or approximate randomisation).", EXAMPLES)
    add_inputs(parser, many=True)
    add_scoring(parser, breakdowns=False, bootstrap=False, resources=False)
    parser.add_argument("--test", choices=("bs", "ar", "both"), default="bs",
                        help="paired bootstrap (bs, default), approximate randomisation (ar) "
                             "or both")
    parser.add_argument("--n", type=int, default=None,
                        help=f"bootstrap resamples (default 1000, at most {MAX_BOOTSTRAP})")
    parser.add_argument("--trials", type=int, default=None,
                        help=f"approximate randomisation trials (default 10000, at most "
                             f"{MAX_TRIALS})")
    parser.add_argument("--ties", choices=("include", "exclude"), default="include",
                        help="resampled differences equal to the real one count as extreme "
                             "(include, default) or not (exclude: sacrebleu's rule)")
    parser.add_argument("--seed", help="RNG seed, or 'none' for an unseeded run "
                                       "(default: $DST_EVAL_SEED, $SACREBLEU_SEED, 12345)")
    parser.add_argument("-f", "--format", choices=FORMATS, default="table", dest="fmt",
                        help="table (a table on a terminal, plain text otherwise; default), "
                             "json, markdown")
    parser.add_argument("-o", "--output", help="write the output to this file instead of "
                                               "stdout (\"-\": stdout)")
    add_quiet(parser)
    return parser


def run_compare(argv: Sequence[str]) -> int:
    args = build_compare_parser().parse_args(argv)
    from dst_eval.api import as_gold, evaluate, resolve_seed
    from dst_eval.options import check_resamples

    if len(args.predictions) < 2:
        raise UsageError("compare needs a baseline and at least one system prediction file")
    if args.predictions.count("-") > 1:
        raise UsageError("standard input (-) can hold one prediction file, not two")
    options = options_from(args)
    if args.n is not None and not 2 <= args.n <= MAX_BOOTSTRAP:
        raise UsageError(f"--n must be at least 2 bootstrap resamples and at most "
                         f"{MAX_BOOTSTRAP}, got {args.n}")
    if args.trials is not None and not 1 <= args.trials <= MAX_TRIALS:
        raise UsageError(f"--trials must be at least 1 and at most {MAX_TRIALS}, "
                         f"got {args.trials}")
    seed = resolve_seed(options)
    if options.profile is not None:
        check_resamples(options.profile, "compare")
    check_writable("--output", args.output, (*args.predictions, args.gold,
                                             *resource_args(args)))
    from dst_eval.progress import ProgressDisplay
    from dst_eval.significance import (
        compare_reports,
        comparison_json,
        comparison_markdown,
        comparison_text,
        render_comparison,
    )

    total = len(args.predictions) + 2
    with ProgressDisplay(quiet=args.quiet) as progress:
        progress.update("reading gold", 0, total)
        gold = as_gold(args.gold, options)
        check_not_gold("--output", args.output, gold, args)
        reports = []
        for i, path in enumerate(args.predictions):
            progress.update(f"scoring {path}", i + 1, total)
            predictions = read_predictions_arg(path, gold.corpus, options)
            reports.append(evaluate(predictions, gold=gold, options=options))
        progress.update("significance tests", total - 1, total)
        result = compare_reports(reports, test=args.test, n=args.n, trials=args.trials,
                                 seed=seed, names=args.predictions, ties=args.ties)
    for report in reports:
        check_not_resource("--output", args.output, report.resource_files)
    if args.fmt == "json":
        write_text(comparison_json(result), args.output, machine=True)
    elif args.fmt == "markdown":
        write_text(comparison_markdown(result), args.output)
    elif args.output or not stdout_is_terminal():
        write_text(comparison_text(result), args.output)
    else:
        from rich.console import Console

        render_comparison(result, Console())
    return EXIT_OK
