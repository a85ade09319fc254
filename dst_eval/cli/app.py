"""The ``dst-eval`` command line.

Exit codes: 0 ok, 2 usage, 3 invalid predictions, 4 gold data problem (1: internal
error, with a one-line message; set DST_EVAL_DEBUG=1 for the traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dst_eval import __version__
from dst_eval.cli.leaderboard import run_leaderboard
from dst_eval.cli.report import run_report
from dst_eval.errors import EXIT_OK, EXIT_USAGE, DstEvalError, UsageError

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


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit code 2, no usage dump
        raise UsageError(f"{message} (see dst-eval --help)")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("predictions", help="prediction file (JSON/JSONL) or SGD-style directory")
    parser.add_argument("--gold", help="gold data: corpus file, split directory or corpus root")
    parser.add_argument("--corpus", help="multiwoz22, multiwoz21, sgd, crosswoz, risawoz, "
                                         "jmultiwoz (detected from --gold when omitted)")
    parser.add_argument("--split", help="split to use when --gold is a corpus root (dev, test)")
    parser.add_argument("--pred-format", choices=("mwzeval", "jsonl", "sgd"),
                        help="prediction format (detected when omitted)")
    parser.add_argument("--strict", action="store_true",
                        help="turn every prediction problem into an error (exit 3)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dst-eval",
        description="Score dialogue-state-tracking and response predictions against gold "
                    "data, with numbers identical to the official scorers (compat profiles) "
                    "or the strict default. Other commands: validate, compare, report, "
                    "leaderboard (see 'dst-eval COMMAND --help').",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"dst-eval {__version__}")
    _common(parser)
    parser.add_argument("--profile", help="scoring profile (default: the corpus's, strict)")
    parser.add_argument("--metrics", help="comma-separated metric names to report")
    parser.add_argument("--by", default="",
                        help="comma-separated breakdowns: domain, slot, service, seen, depth")
    parser.add_argument("--format", choices=FORMATS, default="table", dest="fmt",
                        help="output format (default: a table)")
    parser.add_argument("--output", help="write the output to this file instead of stdout")
    parser.add_argument("--report", help="with --format table: where to write the JSON report "
                                         "(default: <predictions name>.report.json here)")
    parser.add_argument("--no-report", action="store_true",
                        help="with --format table: do not write the JSON report")
    parser.add_argument("--missing", choices=("wrong", "skip"), default="wrong",
                        help="missing dialogues/turns: score as wrong (default) or skip them "
                             "as the official scorers silently do")
    parser.add_argument("--dontcare", choices=("value", "ignore"), default="value",
                        help="dontcare is an ordinary value (default) or removed on both sides")
    parser.add_argument("--mwzeval-rules", choices=("7f19ee0", "cd3f0ee"), default="7f19ee0",
                        help="mwzeval profile: rule tables of the published leaderboard "
                             "(7f19ee0, default) or of the latest mwzeval (cd3f0ee)")
    resources = parser.add_argument_group("response metrics (used when predictions carry "
                                          "responses)")
    resources.add_argument("--db", help="database directory (MultiWOZ db/ with *_db.json; "
                                        "default: db/ next to the gold)")
    resources.add_argument("--goals", help="MultiWOZ 2.1 data.json or zip with the user goals "
                                           "(needed for Inform/Success on MultiWOZ 2.2 gold)")
    resources.add_argument("--references", help="reference responses file (mwzeval format) "
                                                "instead of the gold corpus's")
    resources.add_argument("--gold-states", help="gold states file (mwzeval format) for the "
                                                 "policy-optimisation setting")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N",
                        help="95%% confidence intervals from N dialogue-level resamples")
    parser.add_argument("--seed", help="resampling seed (default $SACREBLEU_SEED or 12345; "
                                       "'none' for unseeded)")
    parser.add_argument("--norm", help="value normalisation policy (strict profile), e.g. "
                                       "basic, exact, despace, nfkc+despace")
    return parser


def build_validate_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dst-eval validate",
                     description="Check a prediction file against the gold data and list "
                                 "every problem; exit 3 if any problem is an error.")
    _common(parser)
    return parser


def _split_list(value: str | None) -> tuple[str, ...]:
    return tuple(v.strip() for v in (value or "").split(",") if v.strip())


def _write(text: str, output: str | None) -> None:
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def run_score(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    from dst_eval.options import EvalOptions

    options = EvalOptions.from_args(args)
    report = _score(args, options)
    _output(args, report)
    return EXIT_OK


def _stderr_may_be_terminal() -> bool:
    """False when rich would not call stderr a terminal either (no spinner: rich unneeded)."""
    if any(name in os.environ for name in ("TTY_COMPATIBLE", "FORCE_COLOR")):
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return True  # let rich decide


def _score(args: argparse.Namespace, options: Any) -> Any:
    from dst_eval.api import evaluate
    from dst_eval.progress import stage

    console = None
    if _stderr_may_be_terminal():
        from rich.console import Console

        console = Console(stderr=True)
    with stage(console, "scoring…"):
        return evaluate(args.predictions, gold=args.gold, options=options)


def _output(args: argparse.Namespace, report: Any) -> None:
    if args.fmt == "json":
        _write(report.to_json(), args.output)
    elif args.fmt == "markdown":
        _write(report.to_markdown(), args.output)
    elif args.fmt == "csv":
        _write(report.to_csv(), args.output)
    else:
        from rich.console import Console

        if args.output:
            with open(args.output, "w", encoding="utf-8") as handle:
                report.render(Console(file=handle, width=120))
        else:
            report.render(Console())
        if not args.no_report:
            target = Path(args.report or f"{Path(args.predictions).name}.report.json")
            target.write_text(report.to_json(), encoding="utf-8")
            Console(stderr=True).print(f"JSON report written to {target}", highlight=False)


def run_validate(argv: Sequence[str]) -> int:
    args = build_validate_parser().parse_args(argv)
    from dst_eval.alignment import align
    from dst_eval.api import as_gold, as_predictions
    from dst_eval.options import EvalOptions

    options = EvalOptions.from_args(args)
    if not args.gold:
        raise UsageError("validate needs --gold PATH to check the predictions against")
    gold = as_gold(args.gold, options)
    predictions = as_predictions(args.predictions, gold.corpus, options)
    alignment = align(gold, predictions, strict=args.strict)
    summary = alignment.summary()
    print(f"{predictions.source}: {predictions.format} format, "
          f"{len(predictions.dialogues)} dialogues; gold {gold.corpus}"
          f"{'/' + gold.split if gold.split else ''}: {summary['gold_dialogues']} dialogues, "
          f"{summary['gold_turns']} turns; coverage {100 * summary['coverage']:.2f}%")
    for issue in alignment.issues:
        print(f"{issue.severity}: {issue}")
    if not alignment.issues:
        print("no problems found")
    return EXIT_OK


def run_compare(argv: Sequence[str]) -> int:
    from dst_eval.cli.compare import run_compare as compare

    return compare(argv)


COMMANDS = {"validate": run_validate, "compare": run_compare, "report": run_report,
            "leaderboard": run_leaderboard}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in COMMANDS:
            return COMMANDS[argv[0]](argv[1:])
        if not argv:
            build_parser().print_help()
            return EXIT_USAGE
        return run_score(argv)
    except DstEvalError as exc:
        print(f"dst-eval: {exc.kind}: {exc}", file=sys.stderr)
        return exc.exit_code
    except SystemExit as exc:  # --help / --version
        return int(exc.code or 0)
    except KeyboardInterrupt:
        print("dst-eval: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # never a traceback for users
        if os.environ.get("DST_EVAL_DEBUG") == "1":
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"dst-eval: internal error: {type(exc).__name__}: {message} "
              "(set DST_EVAL_DEBUG=1 for details and please report it)", file=sys.stderr)
        return 1


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    run()
