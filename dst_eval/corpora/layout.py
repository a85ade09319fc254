"""Helpers shared by loaders of JSON / zipped JSON / JSONL corpus layouts (incl. the
Hugging Face/GEM columnar layouts): file heads for sniffing, safe literal parsing,
read-only copies, columns to rows, split names, and :class:`FileLog`, through which a
loader reads every gold file so that ``GoldSet.files`` names each file and the SHA-256
of the bytes it read.
"""

from __future__ import annotations

import ast
import hashlib
import io
import os
import re
import struct
import sys
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any

from dst_eval.corpora.digests import PendingDigest, gold_file, resolved
from dst_eval.errors import DstEvalError, GoldDataError
from dst_eval.gold import GoldFile
from dst_eval.jsonio import (
    ZipBudget,
    parse_json_bytes,
    read_bytes,
    read_declared,
    refuse_duplicate_keys,
)

HEAD_BYTES = 1 << 16
ErrorType = type[DstEvalError]


VERSION_NOTE = "release not named"
"""How a loader's note starts when neither ``--corpus`` nor the gold path names the release
it read (MultiWOZ 2.0/2.1/2.4 share one layout); ``--corpus`` replaces the note."""

class FileLog:
    """Reads a loader's gold files and records each one it read (``GoldSet.files``).

    Every read goes through :meth:`read_bytes`, which reads the whole file once and records
    ``GoldFile(path as opened, sha256 of the bytes, size)``; parsing works on those bytes, so
    what is hashed is exactly what is parsed (a zip is hashed as a whole, its members parsed
    from memory). A file read twice is recorded once. The SHA-256 of a large file is
    computed on a helper thread while the loader parses it (:mod:`.digests`); :attr:`files`
    waits for it. Sniffing (:func:`read_head`) is not recorded: it decides the format, not
    the content. Use one log per ``load`` call::

        log = FileLog()
        data = log.read_records(path)
        ...
        return GoldSet(..., files=log.files)
    """

    def __init__(self, *, error: ErrorType = GoldDataError) -> None:
        self._error = error
        self._files: dict[str, GoldFile | PendingDigest] = {}

    @property
    def files(self) -> tuple[GoldFile, ...]:
        """The files read so far, in reading order (waits for their digests)."""
        return tuple(resolved(record) for record in self._files.values())

    def read_bytes(self, path: str | Path) -> bytes:
        """All bytes of ``path`` (recorded); a missing or unreadable file is ``error``."""
        data = read_bytes(Path(path), error=self._error)
        key = str(path)
        if key not in self._files:
            self._files[key] = gold_file(key, data)
        return data

    def extend(self, files: Iterable[GoldFile]) -> None:
        """Record files another log read (a loader called for a resource, e.g. the
        ``--goals`` data), after those recorded so far; one recorded already is kept once."""
        for record in files:
            self._files.setdefault(record.path, record)

    def open_zip(self, path: str | Path) -> GoldZip:
        """The zip archive at ``path``, read into memory (recorded)."""
        return GoldZip(path, self.read_bytes(path), error=self._error)

    def read_json(self, path: str | Path) -> Any:
        """Parse one JSON file, or the single ``.json`` member of a ``.zip`` (as
        :func:`dst_eval.jsonio.read_json`)."""
        data, shown = self.read_json_bytes(path)
        return _parsed_once(data, shown, self._error)

    def read_json_bytes(self, path: str | Path) -> tuple[bytes, str]:
        """The bytes of one JSON file, or of the single ``.json`` member of a ``.zip``, and
        the name errors give them (``archive.zip:member.json``), for a typed decoder."""
        path = Path(path)
        if path.suffix != ".zip":
            return self.read_bytes(path), str(path)
        with self.open_zip(path) as archive:
            names = sorted(n for n in archive.namelist()
                           if n.endswith(".json") and not n.startswith("__MACOSX/"))
            if len(names) != 1:
                raise self._error(f"expected one JSON file in the zip, found {len(names)}",
                                  file=str(path))
            outer, inner = split_in_name(path.name), split_in_name(PurePosixPath(names[0]).name)
            if outer and inner and outer != inner:  # which split is it?
                raise self._error(f"the zip is named for the {outer} split, the file in it "
                                  f"({names[0]}) for the {inner} split; rename one",
                                  file=str(path))
            return archive.read(names[0]), archive.name(names[0])

    def read_records(self, path: str | Path) -> Any:
        """Parsed content of a ``.json``, ``.json.zip`` or ``.jsonl`` file (JSONL -> list,
        blank lines skipped)."""
        path = Path(path)
        if path.suffix != ".jsonl":
            return self.read_json(path)
        data = self.read_bytes(path)
        if not data.strip():
            raise self._error("file is empty", file=str(path))
        records = []
        for lineno, line in enumerate(data.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(_parsed_once(line, str(path), self._error))
            except DstEvalError as exc:
                raise self._error(f"line {lineno}: {exc.message}", file=str(path)) from None
        return records


def _parsed_once(data: bytes | bytearray, file: str, error: ErrorType) -> Any:
    """Parsed gold JSON; a key given twice (a dialogue id, a split of a split list, a slot
    of a state: a parser would keep the last one without a word) is ``error``."""
    parsed = parse_json_bytes(data, file=file, error=error)
    refuse_duplicate_keys(data, parsed, file=file, error=error)
    return parsed


class GoldZip:
    """A gold zip held in memory (:meth:`FileLog.open_zip`): its member names, and members
    read whole -- within one :class:`~dst_eval.jsonio.ZipBudget`, so a zip bomb is refused
    unread, and inflated in one call (:func:`read_member`). A context manager, as
    :class:`zipfile.ZipFile` is."""

    def __init__(self, path: str | Path, data: bytes, *, error: ErrorType) -> None:
        self.path, self._error = str(path), error
        try:
            self._archive = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile:
            raise error("not a valid zip file", file=self.path) from None
        self._budget = ZipBudget(len(data), file=self.path, error=error)

    def __enter__(self) -> GoldZip:
        return self

    def __exit__(self, *exc: object) -> None:
        self._archive.close()

    def namelist(self) -> list[str]:
        return self._archive.namelist()

    def name(self, member: str) -> str:
        """How messages name ``member``: ``archive.zip:member``."""
        return f"{self.path}:{member}"

    def read(self, member: str) -> bytes | bytearray:
        """The bytes of ``member`` (a KeyError when there is none)."""
        self._budget.take(self._archive.getinfo(member))
        return read_member(self._archive, member)

    def read_json(self, member: str) -> Any:
        """The parsed JSON of ``member``."""
        return _parsed_once(self.read(member), self.name(member), self._error)


_LOCAL_HEADER = struct.Struct("<4s2xH18xHH")
"""A zip member's local header: signature, flags, name length, extra field length."""
_READ_BY_ZIPFILE = 0x1 | 0x20 | 0x40
"""Flags of members :func:`read_member` leaves to zipfile: encrypted, patched data."""
_MAX_DEFLATE_RATIO = 1032
"""Deflate expands data at most ~1032-fold: a larger recorded size is not allocated."""


def read_member(archive: zipfile.ZipFile, name: str) -> bytes | bytearray:
    """``archive.read(name)`` for an archive held in memory (:class:`GoldZip`), without
    zipfile's extra copy of the content, and never inflating more than the member declares.

    zipfile inflates into blocks that grow and joins them at the end: one more copy of the
    content, in fresh memory. A deflated member is inflated here into one buffer of its
    recorded size (:func:`_inflate_into`) and checked as zipfile checks it (the local
    header's signature and name, the size, the CRC-32); any other member, and any mismatch,
    is read by zipfile within its declared size
    (:func:`~dst_eval.jsonio.read_declared`, with zipfile's own errors). The 27 MB member
    of the MultiWOZ 2.1 test zip: 21 ms, against 30-47 ms for ``archive.read``.
    """
    info = archive.getinfo(name)
    fp = archive.fp
    if (info.compress_type != zipfile.ZIP_DEFLATED or info.flag_bits & _READ_BY_ZIPFILE
            or type(fp) is not io.BytesIO
            or info.file_size > _MAX_DEFLATE_RATIO * info.compress_size + 64):
        return read_declared(archive, info)
    with fp.getbuffer() as data:
        content = _inflate(data, info, archive.metadata_encoding or "cp437")
    if content is None or len(content) != info.file_size or zlib.crc32(content) != info.CRC:
        return read_declared(archive, info)  # zipfile's errors, within the declared size
    return content


def _inflate(data: memoryview, info: zipfile.ZipInfo, encoding: str) -> bytearray | None:
    """The inflated data of member ``info`` of the zip ``data``; None when its local header
    does not match (no signature, another name) or the data does not inflate."""
    start = info.header_offset + _LOCAL_HEADER.size
    header = data[info.header_offset:start]
    if len(header) != _LOCAL_HEADER.size:
        return None
    magic, flags, name_length, extra_length = _LOCAL_HEADER.unpack(header)
    try:
        name = bytes(data[start:start + name_length]).decode(
            "utf-8" if flags & 0x800 else encoding)
    except UnicodeDecodeError:
        return None
    if magic != b"PK\x03\x04" or name != info.orig_filename:
        return None
    begin = start + name_length + extra_length
    try:
        return _inflate_into(data[begin:begin + info.compress_size], info.file_size)
    except zlib.error:
        return None


_INFLATE_STEP = 1 << 20
"""Bytes inflated per call by :func:`_inflate_into` (256 KiB to 4 MiB time alike)."""


def _inflate_into(compressed: memoryview, size: int) -> bytearray | None:
    """The raw deflate stream ``compressed`` inflated into one buffer of ``size`` bytes, a
    step at a time: None when it holds more (a member under-declaring its size: never more
    memory than it declares) or less. One buffer of the recorded size, filled in place: the
    27 MB member of the MultiWOZ 2.1 test zip in 21 ms and 52 MB peak, against 41 ms and
    72 MB for one bounded ``decompress`` call (blocks joined at the end) and 14 ms for an
    unbounded one."""
    out = bytearray(size)
    inflater = zlib.decompressobj(-15)
    pending, filled = compressed, 0
    while True:
        chunk = inflater.decompress(pending, _INFLATE_STEP)
        if filled + len(chunk) > size:
            return None
        out[filled:filled + len(chunk)] = chunk
        filled += len(chunk)
        pending = inflater.unconsumed_tail
        if inflater.eof or not chunk:
            break
    return out if filled == size and inflater.eof else None


PROBE_EVENT = "dst_eval.probe"
"""Audit event (:func:`sys.audit`) of :func:`probe_file`, argument the path looked for."""


def probe_file(path: Path) -> bool:
    """``path.is_file()``, announced as the audit event :data:`PROBE_EVENT`: a lookup leaves
    no other trace, so a recording of what a computation read
    (:mod:`dst_eval.leaderboard.reads`) sees the file it looked for, present or absent (a
    database file added later makes a cached score stale)."""
    sys.audit(PROBE_EVENT, os.fspath(path))
    return path.is_file()


def files_digest(files: Iterable[GoldFile]) -> str:
    """SHA-256 (hex) over the content digests of ``files`` in reading order, independent of
    paths: the same bytes read in the same order give the same digest wherever they live.
    The order counts: dialogues are scored in the order read (float sums, the bootstrap's
    dialogue draws), so SGD files renamed into another order are another gold."""
    joined = "\n".join(f.sha256 for f in files)
    return hashlib.sha256(joined.encode("ascii")).hexdigest()

def read_head(path: Path, n_bytes: int = HEAD_BYTES) -> str:
    """The first ``n_bytes`` of a file, or of the first ``.json`` member of a zip, as text;
    ``""`` for anything but a regular file (a FIFO would block: never opened here)."""
    if not path.is_file():
        return ""
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            names = sorted(n for n in archive.namelist()
                           if n.endswith((".json", ".jsonl")) and not n.startswith("__MACOSX/"))
            if not names:
                return ""
            with archive.open(names[0]) as member:
                data = member.read(n_bytes)
    else:
        with path.open("rb") as fh:
            data = fh.read(n_bytes)
    return data.decode("utf-8-sig", errors="ignore")  # a byte order mark is no content


def parse_literal(text: str, *, what: str, file: str, dialogue: str | None = None,
                  turn: int | None = None) -> Any:
    """Parse a stringified Python/JSON literal (``"['a', 'b']"``, ``"{'k': 'v'}"``) safely."""
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise GoldDataError(f"{what} is a string that is not a valid literal: {text[:80]!r}",
                            file=file, dialogue=dialogue, turn=turn) from None


def deep_freeze(value: Any) -> Any:
    """Read-only copy: dicts become mapping proxies, lists become tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: deep_freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(deep_freeze(v) for v in value)
    return value


def columns_to_rows(columns: Mapping[str, Any], *, what: str, file: str,
                    dialogue: str | None = None) -> list[dict[str, Any]]:
    """HF columnar ``{"a": [..], "b": [..]}`` -> ``[{"a": .., "b": ..}, ...]``."""
    lengths = {len(v) for v in columns.values() if isinstance(v, list)}
    if len(lengths) > 1 or any(not isinstance(v, list) for v in columns.values()):
        raise GoldDataError(f"{what} columns have different lengths or are not lists",
                            file=file, dialogue=dialogue)
    n = lengths.pop() if lengths else 0
    return [{k: v[i] for k, v in columns.items()} for i in range(n)]


SPLIT_WORDS = {"train": "train", "dev": "dev", "val": "dev", "valid": "dev",
               "validation": "dev", "test": "test"}
"""Split words of file and folder names, and the canonical split each names."""
_SPLIT_WORD = re.compile(r"(?<![a-z])(train|dev|val|valid|validation|test)(?![a-z])")


def split_in_name(*names: str) -> str | None:
    """The canonical split (:data:`SPLIT_WORDS`) the first of ``names`` (file or folder
    names, not paths) that names one says, as a word with digits or punctuation around it:
    ``test.json.zip`` and ``all_test600_new.json`` -> ``test``, ``val.json`` -> ``dev``;
    None for ``data.json``, ``latest_export.json`` or ``contest``."""
    for name in names:
        found = _SPLIT_WORD.search(name.lower())
        if found:
            return SPLIT_WORDS[found.group(1)]
    return None


def split_from_name(path: Path, known: Iterable[str], aliases: Mapping[str, str]) -> str | None:
    """``test`` for ``test.json.zip``, ``val`` for ``dev.jsonl`` (via aliases), else None."""
    stem = path.name.split(".")[0].lower()
    stem = aliases.get(stem, stem)
    return stem if stem in known else None


def split_label_note(split: str) -> str:
    """The note of gold whose layout does not say its split: the split is the user's label."""
    return (f"split {split!r} is the --split label: the gold's folder and file names do not "
            "say which split it holds (the gold digest in the signature identifies it)")
