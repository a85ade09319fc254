"""Pausing Python's cyclic garbage collector while many small acyclic objects are built.

Parsing a corpus or a prediction file creates millions of dicts, lists and strings, none
of them in a reference cycle; every automatic collection would walk the whole growing
document again. Pausing the collector while they are built makes loading and scoring two
to five times faster; reference counting still frees everything as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block (re-entrant; restores the old state)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
