"""Which files a computation read, recorded where they are opened; and their digests.

A score depends on every file the gold loader and the scorers open, not only those under
the ``gold`` path: MultiWOZ 2.2's ``schema.json`` in the split's parent, JMultiWOZ's
``split_list.json`` next to ``dialogues.json``, RiSAWOZ's split ids in the parent, a
database found next to the gold data, ... Rather than guessing them from the path,
:class:`Recording` records them as the Python runtime opens them: an audit hook
(:func:`sys.addaudithook`, installed once per process by the first recording and inert
while no recording is active) sees every ``open`` event (``open()``, ``io.open``,
``os.open``, ``pathlib``, ``zipfile``, ...) and every directory listing (``os.listdir``,
``os.scandir``, hence ``glob`` and ``Path.glob``).

Recorded while a recording is active, from any thread (recording too much only costs a
rescore, too little would let a cache serve a stale score):

* every file opened read-only, with its ``stat`` at the first open (see :func:`unchanged`);
* every directory listed (a file added to it can change what a loader reads).

Not recorded: Python code (``.py``, ``.pyc``), anything under the interpreter's and the
installed packages' directories and dst-eval's own (the harness digest covers those:
dst-eval's code and configs and its dependencies' versions), ``/proc``, ``/sys``, ``/dev``,
and jieba's tokenizer cache (``jieba.cache``, ``jieba.u<md5>.cache``) directly in the
temporary directory; any other file there (gold data fetched into ``$TMPDIR``) is recorded.

A file a loader only tests for (``Path.is_file``) leaves no trace, unless the loader asks
through :func:`dst_eval.corpora.layout.probe_file` (the database finders do: every
database file looked for is recorded, present or absent, so one added to an incomplete
``db/`` is seen); hence also :func:`neighbourhood`, the listings of the directories the
loaders search (the gold path's folder and its parent: a split list, a schema, a ``db/``
folder appearing there is seen).

Digests (:class:`Digests`): a file is ``f:`` + the sha256 of its bytes, a directory ``d:``
+ the sha256 of its sorted entry names, anything absent ``missing``.
"""

from __future__ import annotations

import hashlib
import os
import re
import site
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path
from typing import Any

from dst_eval.corpora.layout import PROBE_EVENT

FILE, DIRECTORY = "file", "dir"
MISSING = "missing"
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | getattr(os, "O_APPEND", 0) | os.O_CREAT
_CODE_SUFFIXES = (".py", ".pyc")
_TOKENIZER_CACHE = re.compile(r"jieba(\.u[0-9a-f]+)?\.cache")
"""jieba's dictionary cache, written into the temporary directory (derived from jieba's
installed dictionary, which the harness digest's dependency versions cover)."""

_active: list[Recording] = []
_lock = threading.Lock()
_installed = False
_ignored_roots: tuple[str, ...] = ()


def _roots_to_ignore() -> tuple[str, ...]:
    """Directories whose files are code or installed data, never scoring inputs."""
    import dst_eval
    import dst_eval.configs
    import dst_eval.metrics

    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages(),
             site.getusersitepackages(), "/proc", "/sys", "/dev"}
    paths |= {value for key, value in sysconfig.get_paths().items()
              if key in ("stdlib", "platstdlib", "purelib", "platlib")}
    paths |= {str(Path(module.__file__).parent)
              for module in (dst_eval, dst_eval.metrics, dst_eval.configs)}
    return tuple(sorted({os.path.realpath(p) + os.sep for p in paths if p}))


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not _active or event not in ("open", "os.listdir", "os.scandir", PROBE_EVENT):
        return
    try:  # an audit hook must never raise: it would fail the caller's operation
        if event == "open":
            path, mode, flags = args
            if mode is not None and any(c in mode for c in "wax+"):
                return
            if mode is None and isinstance(flags, int) and flags & _WRITE_FLAGS:
                return
            kind = FILE
        elif event == PROBE_EVENT:  # a file looked for: its content, or its absence
            path, kind = args[0], FILE
        else:
            path, kind = (args[0] if args else None), DIRECTORY
        if isinstance(path, int):
            return  # a file descriptor: its file was opened (and recorded) by path
        name = os.path.abspath(os.fsdecode(path if path is not None else "."))
        for recording in list(_active):
            recording.add(kind, name)
    except Exception:  # noqa: BLE001, S110 - see above
        pass


def _install() -> None:
    global _installed, _ignored_roots
    with _lock:
        if not _installed:
            _ignored_roots = _roots_to_ignore()
            sys.addaudithook(_hook)
            _installed = True


def _stat(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


Inputs = dict[tuple[str, str], "tuple[int, int, int] | None"]
"""``(kind, absolute path)`` -> the file's ``(size, mtime_ns, inode)`` when first opened
(None for a directory listing)."""


class Recording:
    """A context manager collecting what was read while it is active (:attr:`inputs`)."""

    def __init__(self) -> None:
        self.inputs: Inputs = {}
        self._temporary = os.path.realpath(tempfile.gettempdir())

    def __enter__(self) -> Recording:
        _install()
        with _lock:
            _active.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        with _lock:
            _active.remove(self)

    def add(self, kind: str, path: str) -> None:
        if (kind, path) in self.inputs:
            return
        real = os.path.realpath(path)
        if real.startswith(_ignored_roots) or (kind == FILE and (
                path.endswith(_CODE_SUFFIXES) or (
                    os.path.dirname(real) == self._temporary
                    and _TOKENIZER_CACHE.fullmatch(os.path.basename(real))))):
            return
        self.inputs[(kind, path)] = _stat(path) if kind == FILE else None


def neighbourhood(path: Path) -> Inputs:
    """The listings of the folder ``path`` is (or is in) and of its parent: where loaders
    look for files beside the gold data (a schema, a split list, a ``db/`` folder)."""
    folder = path if path.is_dir() else path.parent
    return {(DIRECTORY, os.path.abspath(d)): None for d in (folder, folder.parent)}


def excluding(inputs: Inputs, path: Path) -> Inputs:
    """``inputs`` minus ``path`` (a file or a directory, with everything in it) and the
    listing of its folder."""
    root = os.path.realpath(path)
    folder = os.path.dirname(root)

    def inside(name: str) -> bool:
        real = os.path.realpath(name)
        return real == root or real.startswith(root + os.sep)

    return {(kind, name): stat for (kind, name), stat in inputs.items()
            if not inside(name) and not (kind == DIRECTORY and
                                         os.path.realpath(name) == folder)}


def unchanged(inputs: Inputs) -> bool:
    """Whether every file still has the size, mtime and inode it had when first opened
    (else the bytes that were read and the bytes that get hashed may differ)."""
    return all(_stat(path) == before for (kind, path), before in inputs.items()
               if kind == FILE)


class Digests:
    """Content digests of files and directory listings, each computed once."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, str], str] = {}

    def __call__(self, kind: str, path: str) -> str:
        key = (kind, path)
        if key not in self._known:
            self._known[key] = file_digest(path) if kind == FILE else listing_digest(path)
        return self._known[key]


def file_digest(path: str | Path) -> str:
    """``f:`` + sha256 of the file's bytes (``missing`` when it cannot be read)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:  # noqa: PTH123
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return MISSING
    return "f:" + digest.hexdigest()


def listing_digest(path: str | Path) -> str:
    """``d:`` + sha256 of the sorted entry names of a directory (``missing`` if none)."""
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return MISSING
    digest = hashlib.sha256()
    for name in names:
        encoded = os.fsencode(name)
        digest.update(b"%d:%s" % (len(encoded), encoded))
    return "d:" + digest.hexdigest()
