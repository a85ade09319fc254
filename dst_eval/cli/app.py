"""The ``dst-eval`` command line: dispatch to one module per subcommand.

Exit codes: 0 ok, 2 usage, 3 invalid predictions, 4 gold data problem (1: internal
error, with a one-line message; set DST_EVAL_DEBUG=1 for the traceback).

Subcommand modules are imported only when their command runs, so ``dst-eval --help``
and a plain scoring run load neither pandas, matplotlib nor rich tables.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

from dst_eval.errors import EXIT_USAGE, DstEvalError

COMMANDS = {
    "validate": ("dst_eval.cli.validate", "run_validate"),
    "compare": ("dst_eval.cli.compare", "run_compare"),
    "report": ("dst_eval.cli.report", "run_report"),
    "leaderboard": ("dst_eval.cli.leaderboard", "run_leaderboard"),
}
"""Subcommand -> (module, function); anything else is the default ``score`` command."""


def _command(argv: list[str]):
    if argv and argv[0] in COMMANDS:
        module, function = COMMANDS[argv[0]]
        return getattr(importlib.import_module(module), function), argv[1:]
    from dst_eval.cli.score import run_score

    return run_score, argv


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv:
            from dst_eval.cli.score import build_parser

            build_parser().print_help()
            return EXIT_USAGE
        command, rest = _command(argv)
        return command(rest)
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
    """Console-script entry point (``dst-eval``, ``python -m dst_eval``)."""
    sys.exit(main())


if __name__ == "__main__":
    run()
