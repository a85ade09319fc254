"""``python -m dst_eval``: the ``dst-eval`` command."""

from dst_eval.cli.app import run

run()
