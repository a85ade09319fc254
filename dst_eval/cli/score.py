"""``dst-eval PRED --gold PATH [options]``: score predictions (the default command)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from dst_eval import __version__
from dst_eval.cli.parser import add_inputs, add_scoring, add_strict, make_parser, options_from
from dst_eval.errors import EXIT_OK, UsageError
from dst_eval.result import Result

FORMATS = ("table", "json", "markdown", "csv")

EXAMPLES = """\
examples:
  dst-eval gold_samples/multiwoz22/predictions.json --gold gold_samples/multiwoz22
  dst-eval preds.json --gold MultiWOZ_2.2 --split test --by domain,depth
  dst-eval preds_dir/ --gold dstc8-schema-guided-dialogue --split dev \\
      --profile sgd-official --format json --output metrics.json
  dst-eval preds.jsonl --gold CrossWOZ/test.json.zip --profile trade
  dst-eval validate preds.json --gold gold_samples/multiwoz22
  dst-eval preds.json --gold MultiWOZ_2.2 --split test --bootstrap 1000
  dst-eval compare base.json system.json --gold MultiWOZ_2.2 --split test --test both
  dst-eval report preds.json --gold MultiWOZ_2.2 --split test --html report.html
  dst-eval leaderboard configs/leaderboard_example.toml --output-dir leaderboard

profiles: strict (default), sgd-official, sgd-official-multiwoz, mwzeval, convlab,
  trade (CrossWOZ), official (JMultiWOZ).  exit codes: 0 ok, 2 usage,
  3 invalid predictions, 4 gold data problem.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = make_parser(
        "dst-eval",
        "Score dialogue-state-tracking and response predictions against gold data, with "
        "numbers identical to the official scorers (compat profiles) or the strict default. "
        "Other commands: validate, compare, report, leaderboard (see 'dst-eval COMMAND "
        "--help').", EXAMPLES)
    parser.add_argument("--version", action="version", version=f"dst-eval {__version__}")
    add_inputs(parser)
    add_strict(parser)
    add_scoring(parser)
    parser.add_argument("--format", choices=FORMATS, default="table", dest="fmt",
                        help="output format (default: a table)")
    parser.add_argument("--output", help="write the output to this file instead of stdout")
    parser.add_argument("--report", help="with --format table: where to write the JSON report "
                                         "(default: <predictions name>.report.json here)")
    parser.add_argument("--no-report", action="store_true",
                        help="with --format table: do not write the JSON report")
    return parser


def run_score(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    options = options_from(args)  # every bad option is refused here, before any work
    for flag, target in (("--output", args.output), ("--report", args.report)):
        if target and Path(target).is_dir():
            raise UsageError(f"{flag} {target}: is a directory; give a file name")
    from dst_eval.api import evaluate

    with _progress("scoring…"):
        result = evaluate(args.predictions, gold=args.gold, options=options)
    write_result(result, args)
    return EXIT_OK


def _progress(description: str):
    """A delayed spinner on a terminal (rich is imported only then)."""
    from dst_eval.progress import stage

    console = None
    if _stderr_may_be_terminal():
        from rich.console import Console

        console = Console(stderr=True)
    return stage(console, description)


def _stderr_may_be_terminal() -> bool:
    """False when rich would not call stderr a terminal either (no spinner: rich unneeded)."""
    if any(name in os.environ for name in ("TTY_COMPATIBLE", "FORCE_COLOR")):
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return True  # let rich decide


def write_text(text: str, output: str | None) -> None:
    if output:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write --output {output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def write_result(result: Result, args: argparse.Namespace) -> None:
    if args.fmt == "json":
        write_text(result.to_json(), args.output)
    elif args.fmt == "markdown":
        write_text(result.to_markdown(), args.output)
    elif args.fmt == "csv":
        write_text(result.to_csv(), args.output)
    else:
        from rich.console import Console

        if args.output:
            with open(args.output, "w", encoding="utf-8") as handle:
                result.render(Console(file=handle, width=120))
        else:
            result.render(Console())
        if not args.no_report:
            target = Path(args.report or f"{Path(args.predictions).name}.report.json")
            target.write_text(result.to_json(), encoding="utf-8")
            Console(stderr=True).print(f"JSON report written to {target}", highlight=False)
