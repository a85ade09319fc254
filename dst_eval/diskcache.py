"""A small, exact on-disk cache for parsed corpus data (``$XDG_CACHE_HOME/dst-eval``).

An entry is keyed by what it was built from: a namespace, a format version, the Python
version and, for every input file, its resolved path, size, mtime_ns, ctime_ns and inode.
Entries are ``marshal`` data (plain tuples, dicts and strings only) behind a BLAKE2
checksum; an entry whose key or checksum does not match is ignored and rewritten. Writes
are atomic (temporary file + rename) and skipped when an input changed while it was read
or when the cache directory is not writable. ``DST_EVAL_NO_CACHE=1`` turns caching off.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any


def cache_dir() -> Path | None:
    """The cache directory, or None when caching is off."""
    if os.environ.get("DST_EVAL_NO_CACHE") == "1":
        return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: the XDG default
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dst-eval"


def stat_key(paths: Sequence[Path | None]) -> tuple:
    """Identity of the inputs: resolved path, size, mtime_ns, ctime_ns and inode of each."""
    key = []
    for path in paths:
        if path is None:
            key.append(None)
            continue
        st = path.stat()
        key.append((str(path.resolve()), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
    return tuple(key)


def entry_file(directory: Path, namespace: str, key: tuple) -> Path:
    """One entry per input set (paths only: a changed file replaces its entry)."""
    paths = tuple(entry[0] if entry else None for entry in key[-1])
    name = hashlib.sha256(repr((key[:-1], paths)).encode()).hexdigest()[:32]
    return directory / f"{namespace}-{name}.marshal"


def read_entry(file: Path, key: tuple) -> Any:
    """The cached payload for ``key``, or None (absent, corrupt or stale)."""
    try:
        data = file.read_bytes()
    except OSError:
        return None
    digest, body = data[:32], data[32:]
    if hashlib.blake2b(body, digest_size=32).digest() != digest:
        return None
    try:
        stored_key, payload = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None
    return payload if stored_key == key else None


def write_entry(file: Path, key: tuple, payload: Any) -> None:
    """Write atomically (temporary file + rename); a cache that cannot be written is skipped."""
    tmp: str | None = None
    try:
        body = marshal.dumps((key, payload))
        file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=".tmp-", suffix=".marshal")
        with os.fdopen(fd, "wb") as fh:
            fh.write(hashlib.blake2b(body, digest_size=32).digest() + body)
        os.replace(tmp, file)
    except (OSError, ValueError):
        if tmp is not None:
            with suppress(OSError):
                os.unlink(tmp)


def cached(namespace: str, version: Any, inputs: Sequence[Path | None],
           build: Callable[[], Any], *, use_cache: bool | None = None) -> Any:
    """``build()``'s marshal-able payload, from the cache when ``inputs`` are unchanged."""
    directory = cache_dir() if use_cache is not False else None
    if directory is None:
        return build()
    key = (namespace, version, sys.version_info[:2], stat_key(inputs))
    file = entry_file(directory, namespace, key)
    payload = read_entry(file, key)
    if payload is not None:
        return payload
    payload = build()
    if stat_key(inputs) == key[-1]:  # written only if no input changed while it was read
        write_entry(file, key, payload)
    return payload
