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


EXIT_BROKEN_PIPE = 141
"""Exit status when standard output is closed before dst-eval has written it (``| head``):
the shell's status of a process killed by SIGPIPE (128 + 13), with no message."""


def _quiet_stdout() -> None:
    """Point standard output at /dev/null, so that flushing it at exit raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (a test's captured stream)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):  # a character the terminal lacks: shown escaped
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
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
    except BrokenPipeError:  # `dst-eval ... | head`: the reader closed the pipe
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except Exception as exc:  # never a traceback for users
        if os.environ.get("DST_EVAL_DEBUG") == "1":
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"dst-eval: internal error: {type(exc).__name__}: {message} "
              "(set DST_EVAL_DEBUG=1 for details and please report it)", file=sys.stderr)
        return 1


GC_THRESHOLD = (100_000, 50, 1000)
"""Generation-0 threshold of long-lived processes that load corpora (the test workers,
``tests/conftest.py``): with Python's default (700, 10, 10) the cyclic collector re-scans
the millions of acyclic objects of a loaded corpus over and over. Measured on SGD dev,
``--profile sgd-official`` (interleaved, 3 runs each, 2 loaded cores): CPU user time
4.61-4.79 s with the default, 2.46-3.12 s with this threshold."""

BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""numpy's BLAS thread pool of the command's process, unless the user's environment sets
it. dst-eval's only matrix products are bootstrap sums (1,000 x 1,000 dialogues: ~10 ms
either way); with one thread per core, OpenBLAS starts busy-waiting threads at ``import
numpy``. Measured on SGD dev, ``--profile sgd-official`` (8 interleaved runs each, 2 cores):
CPU user + sys 1.10 s with the default, 0.955 s with one thread; wall 1.00 s vs 0.96 s."""


def run() -> None:
    """Console-script entry point (``dst-eval``, ``python -m dst_eval``): :func:`main` in a
    short-lived process whose BLAS does not start a thread pool (:data:`BLAS_THREADS`; set
    before numpy loads) and that runs without the cyclic collector.

    One run builds millions of acyclic objects, which even :data:`GC_THRESHOLD` scans once
    each, and leaves almost no cyclic garbage: a ``gc.collect()`` after a whole run finds
    497-684 objects (SGD dev ``sgd-official``; MultiWOZ 2.1 strict, also with ``--bootstrap
    1000``; mwzeval pptod). Measured against :data:`GC_THRESHOLD` (interleaved, median wall,
    2 cores): SGD dev 0.935 -> 0.885 s (12 runs each), SGD 100,000 user turns 3.19 -> 2.91 s,
    MultiWOZ 2.1 strict 0.615 -> 0.58 s, mwzeval hdsa 1.20 -> 1.17 s (8 runs each); peak
    RSS equal within 1 MB. ``tests/test_collector_off.py`` checks that a run's cyclic garbage
    does not grow with the input (a cycle per turn would fail it).

    After :func:`main` returns, ``gc.freeze()`` moves every object still alive (the modules
    and what they hold) out of the collector's generations: interpreter shutdown runs the
    collector over them although the process is about to end. The output files are closed
    by then and standard streams are flushed as always. Measured from :func:`main`'s return
    to the process's end (MultiWOZ 2.1 strict, 4 interleaved runs each): 31-33 ms -> 15 ms;
    whole runs (12 interleaved each, median wall): MultiWOZ 2.1 strict 0.445 -> 0.415 s, SGD
    dev ``sgd-official`` 0.825 -> 0.785 s.
    """
    import gc

    for name, value in BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    gc.disable()
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
