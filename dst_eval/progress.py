"""The progress display of the commands: stage, items done/total and elapsed time on stderr.

It appears only when stderr is a terminal, only once a run has taken longer than
:data:`DELAY_SECONDS`, and never with ``-q/--quiet``; it is transient (erased when the run
ends), so nothing of it reaches a log file or the standard output. rich is imported only
when the display can appear.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any

DELAY_SECONDS = 1.0


def stderr_is_terminal() -> bool:
    """Whether rich would treat stderr as a terminal (``FORCE_COLOR``/``TTY_COMPATIBLE``
    force it, as in rich)."""
    if os.environ.get("TTY_COMPATIBLE") == "0":
        return False
    if any(os.environ.get(name) for name in ("TTY_COMPATIBLE", "FORCE_COLOR")):
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class ProgressDisplay:
    """``with ProgressDisplay(quiet=...) as progress: progress.update("scoring", 1, 3)``.

    ``update(stage, done, total)`` names the current stage and how many of its ``total``
    items are done; the display shows ``stage  ━━━━━━━  done/total  0:00:12``.
    """

    def __init__(self, *, quiet: bool = False, delay: float = DELAY_SECONDS,
                 console: Any = None, first: str = "starting") -> None:
        self.enabled = not quiet and (console is not None or stderr_is_terminal())
        self.delay = delay
        self._console = console
        self._progress: Any = None
        self._task: Any = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._shown = False
        self._done = False
        self.started = time.monotonic()
        self._first = first

    def __enter__(self) -> ProgressDisplay:
        if not self.enabled:
            return self
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        console = self._console or Console(stderr=True)
        if not console.is_terminal:
            self.enabled = False
            return self
        self._progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                  MofNCompleteColumn(), TimeElapsedColumn(),
                                  console=console, transient=True)
        self._task = self._progress.add_task(self._first, total=1)
        self._timer = threading.Timer(self.delay, self._show)
        self._timer.daemon = True
        self._timer.start()
        return self

    def _show(self) -> None:
        with self._lock:
            if not self._done:
                self._progress.start()
                self._shown = True

    def update(self, stage: str, done: int, total: int) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=stage, completed=done,
                                  total=max(total, 1))

    @property
    def shown(self) -> bool:
        """Whether the display appeared (the run outlasted the delay)."""
        return self._shown

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._done = True
            if self._timer is not None:
                self._timer.cancel()
            if self._shown:
                self._progress.stop()


def stage(console: Any, description: str, *, delay: float = DELAY_SECONDS,
          quiet: bool = False) -> ProgressDisplay:
    """A one-stage display (``description``, 0/1 until done) for commands with no finer
    progress information; ``console`` None: decided from stderr."""
    return ProgressDisplay(quiet=quiet, delay=delay, console=console, first=description)
