"""``dst-eval leaderboard CONFIG``: build a leaderboard, or ``--check FILE`` one submission.

Exit codes: 0 ok; 3 when any submission is invalid (the valid ones are still scored and
the outputs written) or, with ``--check``, when the checked submission is invalid; 2 for a
bad config or arguments; 4 for a gold data problem.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from dst_eval.errors import EXIT_GOLD_PROBLEM, EXIT_INVALID_PREDICTIONS, EXIT_OK, UsageError

EXAMPLES = """\
examples:
  dst-eval leaderboard configs/leaderboard_example.toml
  dst-eval leaderboard board.toml --output-dir site/ --cache-dir ~/.cache/board
  dst-eval leaderboard board.toml --check submissions/new-system.json

Scores are cached by the content hash of (submission, gold, profile and options, dst-eval
version and source): re-running after one new submission rescores only that one.
The outputs (leaderboard.md, .json, .html) are byte-identical on re-run.
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit code 2, no usage dump
        raise UsageError(f"{message} (see dst-eval leaderboard --help)")


def build_leaderboard_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dst-eval leaderboard",
        description="Validate, score and rank every submission named by a leaderboard TOML "
                    "config; write leaderboard.md, leaderboard.json and leaderboard.html.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", help="leaderboard TOML config (see "
                                       "configs/leaderboard_example.toml)")
    parser.add_argument("--output-dir", default="leaderboard",
                        help="where to write the outputs (default: leaderboard/)")
    parser.add_argument("--cache-dir", help="score cache (default: the config's cache_dir, "
                                            "else <output-dir>/.cache/); not in a "
                                            "submissions or gold folder")
    parser.add_argument("--no-cache", action="store_true", help="score everything afresh and "
                                                                "write no cache")
    parser.add_argument("--check", metavar="FILE",
                        help="validate and score one submission (a predictions file or a "
                             ".toml metadata file), print its row and where it would rank; "
                             "writes no outputs")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress display and no summary on stderr (errors and "
                             "invalid submissions excepted)")
    return parser


def run_leaderboard(argv: Sequence[str]) -> int:
    args = build_leaderboard_parser().parse_args(argv)
    from dst_eval.leaderboard import (
        build_leaderboard,
        check_candidate,
        check_report,
        load_config,
        write_outputs,
    )
    from dst_eval.progress import ProgressDisplay

    config = load_config(args.config)
    output_dir = Path(args.output_dir)
    if not args.check:  # a usage error before any work, not a traceback after the scoring
        _outside_submissions(output_dir, config)
        _outside_gold(output_dir, config, "--output-dir")
        _writable_directory(output_dir)
    cache_dir = None if args.no_cache else Path(
        args.cache_dir or config.cache_dir or output_dir / ".cache")
    if cache_dir is not None:
        option = "--cache-dir" if args.cache_dir else "cache_dir"
        _outside_submissions(cache_dir, config, option)
        _outside_gold(cache_dir, config, option)
        try:  # a usage error before any work, not a traceback after the scoring
            cache_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cache directory {cache_dir}: {exc.strerror or exc}") from None
    if args.check:
        candidate = check_candidate(config, Path(args.check))
        with ProgressDisplay(quiet=args.quiet) as progress:
            board = build_leaderboard(config, cache_dir=cache_dir, extra=candidate,
                                      previous=output_dir / "leaderboard.json",
                                      progress=progress.update)
        candidate_id = board_id(board, candidate.id)
        valid, text = check_report(board, candidate_id)
        sys.stdout.write(text)
        if any(i.gold and i.id == candidate_id for i in board.invalid):
            return EXIT_GOLD_PROBLEM
        return EXIT_OK if valid else EXIT_INVALID_PREDICTIONS
    with ProgressDisplay(quiet=args.quiet) as progress:
        board = build_leaderboard(config, cache_dir=cache_dir,
                                  previous=output_dir / "leaderboard.json",
                                  progress=progress.update)
    try:
        paths = write_outputs(board, output_dir)
    except OSError as exc:
        raise UsageError(f"output directory {output_dir}: {exc.strerror or exc}") from None
    ranked = len(board.ranked)
    if not args.quiet:
        print(f"{len(board.rows) + len(board.invalid)} submissions: {ranked} ranked, "
              f"{len(board.rows) - ranked} unranked, {len(board.invalid)} invalid; "
              f"{len(board.scored)} scored, {len(board.cached)} from the cache", file=sys.stderr)
        print("wrote " + ", ".join(str(p) for p in paths), file=sys.stderr)
    for invalid in board.invalid:
        print(f"invalid: {invalid.id}: {invalid.reason}", file=sys.stderr)
    if any(invalid.gold for invalid in board.invalid):
        return EXIT_GOLD_PROBLEM  # the board's gold, whatever the submissions
    return EXIT_INVALID_PREDICTIONS if board.invalid else EXIT_OK


def _writable_directory(directory: Path) -> None:
    """Create ``directory`` if needed; UsageError unless it is a directory we can write."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = "not a directory" if isinstance(exc, FileExistsError) else \
            exc.strerror or str(exc)
        raise UsageError(f"--output-dir {directory}: {reason}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError(f"--output-dir {directory}: not writable")


def _outside_submissions(directory: Path, config, option: str = "--output-dir") -> None:
    """A usage error when ``directory`` is a submissions folder or inside one: the outputs
    (``leaderboard.json``, cache entries) would be read as submissions by the next build,
    and a submission of that name overwritten."""
    resolved = directory.resolve()
    for source in config.sources:
        root = Path(source.root).resolve()
        if resolved == root or root in resolved.parents:
            raise UsageError(f"{option} {directory}: is in the submissions folder "
                             f"{source.root}; put it elsewhere")


def _outside_gold(directory: Path, config, option: str) -> None:
    """A usage error when ``directory`` is the gold folder or inside it, or the folder of a
    gold file (whose neighbours loaders read: list files, schemas, ``db/``): what is written
    there would change the gold every build, or be read as gold."""
    gold = Path(config.gold).resolve()
    folder = gold if gold.is_dir() else gold.parent
    resolved = directory.resolve()
    if resolved == folder or (gold.is_dir() and folder in resolved.parents):
        raise UsageError(f"{option} {directory}: is in the gold's folder {folder}; put it "
                         "elsewhere")


def board_id(board, wanted: str) -> str:
    """The candidate's id in the board (``check/<name>`` when it clashed with another)."""
    ids = {row.id for row in board.rows} | {i.id for i in board.invalid}
    return f"check/{wanted}" if f"check/{wanted}" in ids else wanted
