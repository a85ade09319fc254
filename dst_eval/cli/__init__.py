"""The ``dst-eval`` command: one module per subcommand."""

from __future__ import annotations

from .app import main, run

__all__ = ["main", "run"]
