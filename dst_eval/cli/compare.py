"""``dst-eval compare BASE.json SYS1.json [SYS2.json ...] --gold PATH``: paired significance tests.

Every prediction file is scored with :func:`dst_eval.api.evaluate` on the same gold data and
options, then each system is tested against the first (the baseline) per metric with a
paired bootstrap and/or approximate randomisation over whole dialogues
(:mod:`dst_eval.significance`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from dst_eval.errors import EXIT_OK, UsageError

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


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit code 2, no usage dump
        raise UsageError(f"{message} (see dst-eval compare --help)")


def build_compare_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dst-eval compare",
        description="Test whether systems differ significantly from a baseline, resampling "
                    "whole dialogues (paired bootstrap and/or approximate randomisation).",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("predictions", nargs="+",
                        help="prediction files; the first is the baseline")
    parser.add_argument("--gold", help="gold data: corpus file, split directory or corpus root")
    parser.add_argument("--corpus", help="corpus name (detected from --gold when omitted)")
    parser.add_argument("--split", help="split to use when --gold is a corpus root")
    parser.add_argument("--profile", help="scoring profile (default: the corpus's, strict); it "
                                          "must keep per-turn statistics")
    parser.add_argument("--pred-format", choices=("mwzeval", "jsonl", "sgd"),
                        help="prediction format (detected when omitted)")
    parser.add_argument("--metrics", help="comma-separated metric names to compare")
    parser.add_argument("--missing", choices=("wrong", "skip"), default="wrong",
                        help="missing dialogues/turns: score as wrong (default) or skip")
    parser.add_argument("--dontcare", choices=("value", "ignore"), default="value")
    parser.add_argument("--norm", help="value normalisation policy (strict profile)")
    parser.add_argument("--test", choices=("bs", "ar", "both"), default="bs",
                        help="paired bootstrap (bs, default), approximate randomisation (ar) "
                             "or both")
    parser.add_argument("--n", type=int, default=None,
                        help="bootstrap resamples (default 1000)")
    parser.add_argument("--trials", type=int, default=None,
                        help="approximate randomisation trials (default 10000)")
    parser.add_argument("--ties", choices=("include", "exclude"), default="include",
                        help="resampled differences equal to the real one count as extreme "
                             "(include, default) or not (exclude: sacrebleu's rule)")
    parser.add_argument("--seed", help="RNG seed, or 'none' for an unseeded run "
                                       "(default: $DST_EVAL_SEED, $SACREBLEU_SEED, 12345)")
    parser.add_argument("--format", choices=FORMATS, default="table", dest="fmt")
    parser.add_argument("--output", help="write the output to this file instead of stdout")
    return parser


def run_compare(argv: Sequence[str]) -> int:
    args = build_compare_parser().parse_args(argv)
    from rich.console import Console

    from dst_eval.api import as_gold, evaluate, resolve_seed
    from dst_eval.options import EvalOptions
    from dst_eval.progress import stage
    from dst_eval.significance import (
        compare_reports,
        comparison_json,
        comparison_markdown,
        render_comparison,
    )

    if len(args.predictions) < 2:
        raise UsageError("compare needs a baseline and at least one system prediction file")
    options = EvalOptions.from_args(args)
    seed = resolve_seed(options)
    console = Console(stderr=True)
    with stage(console, "scoring…"):
        gold = as_gold(args.gold, options)
        reports = [evaluate(path, gold=gold, options=options) for path in args.predictions]
    with stage(console, "testing…"):
        result = compare_reports(reports, test=args.test, n=args.n, trials=args.trials,
                                 seed=seed, names=args.predictions, ties=args.ties)
    if args.fmt == "json":
        _write(comparison_json(result), args.output)
    elif args.fmt == "markdown":
        _write(comparison_markdown(result), args.output)
    elif args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            render_comparison(result, Console(file=handle, width=160))
    else:
        render_comparison(result, Console())
    return EXIT_OK


def _write(text: str, output: str | None) -> None:
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
