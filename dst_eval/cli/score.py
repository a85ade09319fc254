"""``dst-eval PRED --gold PATH [options]``: score predictions (the default command).

The reporting flags follow sacrebleu's meanings: ``-b/--score-only`` prints only the
number(s), ``-w/--width`` the decimals, ``-f/--format`` the output format, ``-m/--metrics``
the metrics, ``-q/--quiet`` silences stderr, ``-`` reads the predictions from standard
input. Nothing is written to a file unless asked (``-o/--output``, ``--report``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from dst_eval.cli.parser import (
    add_inputs,
    add_quiet,
    add_scoring,
    add_strict,
    make_parser,
    options_from,
    read_predictions_arg,
)
from dst_eval.errors import EXIT_OK, UsageError
from dst_eval.result import Result

if TYPE_CHECKING:
    from dst_eval.gold import GoldSet

FORMATS = ("table", "text", "json", "markdown", "csv")
MAX_WIDTH = 12

EXAMPLES = """\
examples:
  dst-eval gold_samples/multiwoz22/predictions.json --gold gold_samples/multiwoz22
  dst-eval gold_samples/multiwoz22/predictions.json --gold gold_samples/multiwoz22 \\
      -m joint_goal_accuracy -b -w 4
  cat gold_samples/sgd/predictions.json | dst-eval - --gold gold_samples/sgd -f json
  dst-eval preds.json --gold MultiWOZ_2.2 --split test --by domain,depth
  dst-eval preds_dir/ --gold dstc8-schema-guided-dialogue --split dev \\
      --profile sgd-official --format json --output metrics.json
  dst-eval preds.jsonl --gold CrossWOZ/test.json.zip --profile trade
  dst-eval pred_res.test.final.json --gold MULTIWOZ2.1/data.json --split test --profile trippy
  dst-eval validate preds.json --gold gold_samples/multiwoz22
  dst-eval preds.json --gold MultiWOZ_2.2 --split test --bootstrap 1000
  dst-eval compare base.json system.json --gold MultiWOZ_2.2 --split test --test both
  dst-eval report preds.json --gold MultiWOZ_2.2 --split test --html report.html
  dst-eval leaderboard configs/leaderboard_example.toml --output-dir leaderboard

scales: JSON and CSV hold fractions in [0, 1]; the table, text, markdown and -b show them
  as percentages; BLEU and combined are in points (0-100); counts are integers.
profiles: strict (default), sgd-official, sgd-official-multiwoz, mwzeval, convlab,
  trade (MultiWOZ 2.0/2.1/2.2, CrossWOZ), trippy (TripPy pred_res files on MultiWOZ 2.0/2.1),
  official (JMultiWOZ).  exit codes: 0 ok, 2 usage,
  3 invalid predictions, 4 gold data problem.
environment: OPENBLAS_NUM_THREADS / MKL_NUM_THREADS (default 1 in this command),
  DST_EVAL_DEBUG=1 (traceback of an internal error).
"""


def build_parser() -> argparse.ArgumentParser:
    parser = make_parser(
        "dst-eval",
        "Score dialogue-state-tracking and response predictions against gold data, with "
        "numbers identical to the official scorers (compat profiles) or the strict default. "
        "Other commands: validate, compare, report, leaderboard (see 'dst-eval COMMAND "
        "--help').", EXAMPLES)
    parser.add_argument("-V", "--version", action=MetadataVersion, nargs=0,
                        help="print the installed distribution's version and exit")
    add_inputs(parser)
    add_strict(parser)
    add_scoring(parser)
    out = parser.add_argument_group("reporting (sacrebleu's flags)")
    out.add_argument("-f", "--format", choices=FORMATS, default="table", dest="fmt",
                     help="output format: table (a table on a terminal, plain aligned text "
                          "otherwise; default), text, json, markdown, csv")
    out.add_argument("-b", "--score-only", action="store_true",
                     help="print only the score(s), one per line in the order of the table "
                          "(a JSON list with -f json), on the table's scale")
    out.add_argument("-w", "--width", default=None, metavar="N",
                     help="decimals of displayed scores (default 2)")
    out.add_argument("-o", "--output", help="write the output to this file instead of stdout "
                     "(\"-\": stdout)")
    out.add_argument("--report", metavar="FILE",
                     help="also write the JSON report to FILE (nothing is written otherwise)")
    out.add_argument("--no-report", action="store_true", help=argparse.SUPPRESS)
    add_quiet(out)
    return parser


def parse_width(value: str | None) -> int:
    """``-w/--width``: 0 to :data:`MAX_WIDTH` decimals (default 2)."""
    if value is None:
        return 2
    try:
        width = int(value)
    except ValueError:
        width = -1
    if not 0 <= width <= MAX_WIDTH:
        raise UsageError(f"--width {value!r}: give a number of decimals from 0 to {MAX_WIDTH}")
    return width


class MetadataVersion(argparse.Action):
    """``-V/--version``: the installed distribution's version, read from its metadata only
    when asked (importing ``importlib.metadata`` costs ~45 ms; signatures use
    ``dst_eval.__version__``, which the metadata is built from)."""

    def __call__(self, parser: argparse.ArgumentParser, *_args: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        from dst_eval import __version__

        try:
            installed = version("dst-eval")
        except PackageNotFoundError:  # a source tree that was never installed
            installed = f"{__version__} (not installed)"
        sys.stdout.write(f"dst-eval {installed}\n")
        parser.exit()


def run_score(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    options = options_from(args)  # every bad option is refused here, before any work
    if options.bootstrap:
        from dst_eval.api import resolve_seed

        resolve_seed(options)  # a bad $DST_EVAL_SEED too
    width = parse_width(args.width)
    if args.score_only and args.fmt not in ("table", "text", "json"):
        raise UsageError(f"--score-only prints numbers (as text or a JSON list), not "
                         f"--format {args.fmt}")
    outputs = (("--output", args.output), ("--report", args.report))
    for flag, target in outputs:
        check_writable(flag, target, (args.predictions, args.gold, *resource_args(args)))
    if args.output and args.report and same_file(Path(args.output), Path(args.report)):
        raise UsageError("--output and --report name the same file")
    from dst_eval.api import as_gold, evaluate
    from dst_eval.progress import ProgressDisplay

    with ProgressDisplay(quiet=args.quiet) as progress:
        progress.update("reading gold", 0, 3)
        gold = as_gold(args.gold, options)
        for flag, target in outputs:
            check_not_gold(flag, target, gold, args)
        progress.update("reading predictions", 1, 3)
        predictions = read_predictions_arg(args.predictions, gold.corpus, options)
        progress.update("scoring", 2, 3)
        result = evaluate(predictions, gold=gold, options=options)
        progress.update("done", 3, 3)
    for flag, target in outputs:
        check_not_resource(flag, target, result.resource_files)
    write_result(result, args, width)
    return EXIT_OK


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file: the same path once resolved (a symlink is its
    target), or, when both exist, the same file on disk (hard links)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def check_writable(flag: str, target: str | None, inputs: Sequence[str | None] = ()) -> None:
    """A usage error, before any work, when ``target`` cannot be an output file: a
    directory, in a missing directory, one of ``inputs`` (the predictions and gold paths
    given) or inside one that is a directory (a later run would read it, or the write
    would destroy an input)."""
    if not target or target == "-":  # "-": standard output
        return
    path = Path(target)
    if path.is_dir() or target.endswith(("/", os.sep)):
        raise UsageError(f"{flag} {target}: is a directory; give a file name")
    if not path.absolute().parent.is_dir():
        raise UsageError(f"{flag} {target}: the directory {path.absolute().parent} does not "
                         "exist")
    resolved = path.resolve()
    for given in inputs:
        if not given or given == "-":
            continue
        source = Path(given).resolve()
        inside = source.is_dir() and (source in resolved.parents or (path.exists() and any(
            same_file(path, member) for member in source.iterdir() if member.is_file())))
        if same_file(path, source) or inside:
            raise UsageError(f"{flag} {target}: would write over or into the input {given}; "
                             "write it elsewhere")


def resource_args(args: argparse.Namespace) -> list[str | None]:
    """The response resources given as options (``--db``, ``--goals``, ``--references``,
    ``--gold-states``): inputs that no output may overwrite."""
    return [getattr(args, name, None) for name in ("db", "goals", "references", "gold_states")]


def database_inputs(gold: GoldSet, args: argparse.Namespace, target: str | None) -> list[str]:
    """The response database folder found next to the gold (``database_folder`` of the
    corpus's responses module, when it has one), whether or not this run reads it: an input
    no output may write into. Looked up only for a target near the gold (databases are
    found in the gold's folder or the one above; ``--db`` is checked with the other
    options), so other runs do not load the responses module."""
    if not target or getattr(args, "db", None) is not None:
        return []
    source = Path(gold.source)
    base = (source if source.is_dir() else source.parent).resolve()
    if not {base, base.parent} & set(Path(target).resolve().parents):
        return []
    from dst_eval import corpora

    finder = getattr(corpora.get(gold.corpus).responses_module(), "database_folder", None)
    folder = finder(gold, None) if finder is not None else None
    return [str(folder)] if folder is not None else []


def check_not_resource(flag: str, target: str | None, read: Sequence[str]) -> None:
    """A usage error when ``target`` is a response resource the run read (a database table
    found next to the gold, say), before anything is written."""
    if target and any(same_file(Path(path), Path(target)) for path in read):
        raise UsageError(f"{flag} {target}: is a resource file the scoring read (database, "
                         "goals, references); write it elsewhere")


def check_not_gold(flag: str, target: str | None, gold: GoldSet,
                   args: argparse.Namespace) -> None:
    """A usage error when ``target`` is a file the gold loader read (a list file or schema
    next to the gold path, say): writing it would change the gold; a file of the response
    database found next to the gold (:func:`database_inputs`); or, for a gold file, any
    file in its folder (as given and, for a symbolic link, its target's), whose neighbours
    loaders read."""
    if target and any(same_file(Path(f.path), Path(target)) for f in gold.files):
        raise UsageError(f"{flag} {target}: is a file of the gold data; write it elsewhere")
    check_writable(flag, target, database_inputs(gold, args, target))
    source = Path(gold.source)
    folders = {source.absolute().parent, source.resolve().parent}
    if target and target != "-" and source.is_file() and (
            folders & {Path(target).absolute().parent, Path(target).resolve().parent}):
        raise UsageError(f"{flag} {target}: is in the folder of the gold file {gold.source}, "
                         "whose neighbours the loaders read (list files, schemas, split ids, "
                         "databases); write it elsewhere")


def write_text(text: str, output: str | None, flag: str = "--output", *,
               machine: bool = False) -> None:
    """``text`` to the file ``output`` (UTF-8) or to stdout. ``machine`` (JSON, CSV):
    stdout gets UTF-8 bytes too, whatever the locale; human formats follow the terminal's
    encoding, a character it lacks shown escaped (``\\xd7``; :func:`.app.main`)."""
    if output and output != "-":  # "-": standard output, as without the option
        try:
            # backslashreplace: a lone surrogate (a non-UTF-8 file name) as \udcff
            Path(output).write_text(text, encoding="utf-8", errors="backslashreplace")
        except OSError as exc:
            raise UsageError(f"cannot write {flag} {output}: {exc.strerror or exc}") from None
    else:
        text = text if text.endswith("\n") else text + "\n"
        buffer = getattr(sys.stdout, "buffer", None)
        if machine and buffer is not None:
            sys.stdout.flush()
            buffer.write(text.encode("utf-8", "backslashreplace"))
            buffer.flush()
        else:
            sys.stdout.write(text)


def stdout_is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def write_result(result: Result, args: argparse.Namespace, width: int = 2) -> None:
    from dst_eval import report

    if args.report:
        write_text(result.to_json(), args.report, "--report")
        if not args.quiet and args.report != "-":
            print(f"JSON report written to {args.report}", file=sys.stderr)
    if args.score_only:
        write_text(report.score_only(result, width, as_json=args.fmt == "json"), args.output,
                   machine=args.fmt == "json")
        if not args.quiet:  # the numbers alone do not say why one is n/a
            from dst_eval.escape import one_line

            for name in result.scores:
                why = result.not_applicable.get(name)
                if why:
                    print(f"note: {name}: n/a ({one_line(why)})", file=sys.stderr)
    elif args.fmt == "json":
        write_text(result.to_json(), args.output, machine=True)
    elif args.fmt == "markdown":
        write_text(report.to_markdown(result, width), args.output)
    elif args.fmt == "csv":
        write_text(result.to_csv(), args.output, machine=True)
    elif args.fmt == "text" or args.output or not stdout_is_terminal():
        write_text(report.to_text(result, width), args.output)
    else:
        from rich.console import Console

        report.render(result, Console(), width)
