"""A progress indicator that appears only when a stage takes over a second, on a terminal."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

DELAY_SECONDS = 1.0


@contextmanager
def stage(console, description: str, *, delay: float = DELAY_SECONDS) -> Iterator[None]:
    """Show a spinner with ``description`` if the block is still running after ``delay`` s."""
    if console is None or not console.is_terminal:
        yield
        return
    status = console.status(description, spinner="dots")
    lock = threading.Lock()
    state = {"started": False, "done": False}

    def start() -> None:
        with lock:
            if not state["done"]:
                status.start()
                state["started"] = True

    timer = threading.Timer(delay, start)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            state["done"] = True
            timer.cancel()
            if state["started"]:
                status.stop()
