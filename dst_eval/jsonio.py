"""Reading JSON, JSONL and zipped JSON safely, with one-line errors naming the file.

Used by every loader (errors -> :class:`GoldDataError`, exit 4) and by the
prediction reader (errors -> :class:`PredictionError`, exit 3). orjson parses
strictly (UTF-8 only, nesting limited to 1024 levels), so hostile input gives a
clear error, never a RecursionError or a silently mangled string.

:func:`decode_typed` decodes into typed records (a :class:`msgspec.json.Decoder`),
parsing only the fields the records name; its syntax errors are reported exactly as
:func:`parse_json_bytes` reports them, and a :class:`msgspec.ValidationError` (valid
JSON of another shape) is left to the caller, who knows what the shape means.
"""

from __future__ import annotations

import json
import os
import re
import stat
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import orjson

from dst_eval.errors import DstEvalError, GoldDataError

ErrorType = type[DstEvalError]
BOM = b"\xef\xbb\xbf"


def _describe(exc: orjson.JSONDecodeError, data: bytes) -> str:
    msg = str(exc)
    if "recursion" in msg.lower() or "depth" in msg.lower():
        return "JSON nested too deeply (more than 1024 levels)"
    if "utf-8" in msg.lower() or "surrogate" in msg.lower():
        return f"not valid UTF-8 ({msg})"
    return f"invalid JSON ({msg})"


def parse_json_bytes(data: bytes, *, file: str, error: ErrorType = GoldDataError) -> Any:
    if data[:3] == BOM:  # a UTF-8 byte order mark is accepted (and ignored) everywhere
        data = data[3:]
    if not data.strip():
        raise error("file is empty", file=file)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise error(_describe(exc, data), file=file) from None


def decode_typed(data: bytes, decoder: msgspec.json.Decoder, *, file: str,
                 error: ErrorType = GoldDataError) -> Any:
    """``decoder.decode(data)``; a syntax problem (empty file, invalid JSON or UTF-8, nesting
    too deep) raises ``error`` naming ``file``; :class:`msgspec.ValidationError` propagates."""
    if data[:3] == BOM:
        data = data[3:]
    try:
        return decoder.decode(data)
    except msgspec.ValidationError:
        raise
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        parse_json_bytes(data, file=file, error=error)  # raises with the usual message
        raise error(f"invalid JSON ({exc})", file=file) from None


_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def special_reason(path: str | Path) -> str | None:
    """Why ``path`` cannot be read as input, or None for a regular file or a directory.

    Reading a FIFO or a device would block forever (or never end), so anything that is
    not a regular file or a directory (after symlinks) is refused, and so is a broken
    symbolic link or a path that does not exist.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if os.path.lexists(path):
            return "broken symbolic link (its target does not exist)"
        return "file not found"
    except OSError as exc:
        return f"cannot read ({exc.strerror})"
    except ValueError:  # a NUL character in the path
        return "invalid path (it holds a NUL character)"
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "a special file")
    return f"not a regular file or directory but {kind}; refused"


def check_path(path: str | Path, *, error: ErrorType = GoldDataError) -> None:
    """Raise ``error`` (one line naming ``path``) unless it is a regular file or directory."""
    reason = special_reason(path)
    if reason is not None:
        raise error(reason, file=str(path))


def read_bytes(path: Path, *, error: ErrorType = GoldDataError) -> bytes:
    """The bytes of a regular file, without a UTF-8 byte order mark (accepted everywhere)."""
    check_path(path, error=error)
    try:
        data = path.read_bytes()
        return data[3:] if data[:3] == BOM else data
    except FileNotFoundError:
        raise error("file not found", file=str(path)) from None
    except IsADirectoryError:
        raise error("expected a file, found a directory", file=str(path)) from None
    except OSError as exc:
        raise error(f"cannot read file ({exc.strerror})", file=str(path)) from None


def read_json(path: str | Path, *, error: ErrorType = GoldDataError) -> Any:
    """Parse one JSON file, or the single ``.json`` member of a ``.zip``."""
    path = Path(path)
    if path.suffix == ".zip":
        members = list(iter_zip_json(path, error=error))
        if len(members) != 1:
            raise error(f"expected one JSON file in the zip, found {len(members)}", file=str(path))
        return members[0][1]
    return parse_json_bytes(read_bytes(path, error=error), file=str(path), error=error)


def iter_zip_json(
    path: str | Path, *, error: ErrorType = GoldDataError
) -> Iterator[tuple[str, Any]]:
    """Yield ``(member name, parsed JSON)`` for every ``.json`` member of a zip, in name order."""
    for name, data in iter_zip_bytes(path, error=error):
        yield name, parse_json_bytes(data, file=f"{path}:{name}", error=error)


ZIP_EXPANSION = 200
"""A zip's JSON members may expand to :data:`ZIP_EXPANSION` times the archive's size (JSON
compresses 5-30 times; a zip bomb a thousand times and more) ..."""
ZIP_MIN_LIMIT = 1 << 28
"""... or to 256 MiB, whichever is more."""


class ZipBudget:
    """What the members read from one zip may expand to in all: :data:`ZIP_EXPANSION` times
    the archive's size, at least :data:`ZIP_MIN_LIMIT`, by their declared sizes. A member
    beyond it is refused unread (``error``): a zip bomb. A member is then inflated no
    further than its declared size (:func:`read_declared`), so a member that under-declares
    its size cannot expand beyond the budget either. Every zip member dst-eval reads whole
    is taken from one (predictions, gold)."""

    def __init__(self, archive_size: int, *, file: str, error: ErrorType) -> None:
        self.left = max(ZIP_MIN_LIMIT, ZIP_EXPANSION * archive_size)
        self.file, self.error = file, error

    def take(self, info: zipfile.ZipInfo) -> None:
        """Count member ``info`` in; ``error`` when it does not fit."""
        if info.file_size > self.left:
            raise self.error(f"member {info.filename} would take the members read to more "
                             f"than {ZIP_EXPANSION} times the archive's size (and over "
                             f"{ZIP_MIN_LIMIT >> 20} MiB): refused as a zip bomb",
                             file=self.file)
        self.left -= info.file_size


def read_declared(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The bytes of member ``info``, inflated no further than its declared size: zipfile
    inflates at most what it is asked for and checks the CRC-32 once the declared size is
    reached, so a member whose data goes on (a bomb declaring a small size) or differs is
    :class:`zipfile.BadZipFile` ("Bad CRC-32"), never more memory. (``archive.read`` asks
    for everything: a member declaring 200 bytes of a 1 GiB stream took 2 GB.)"""
    with archive.open(info) as member:
        data = member.read(info.file_size) if info.file_size else b""
    if len(data) != info.file_size:
        raise zipfile.BadZipFile(f"member {info.filename} is shorter than it declares")
    return data


def iter_zip_bytes(
    path: str | Path, *, error: ErrorType = GoldDataError
) -> Iterator[tuple[str, bytes]]:
    """Yield ``(member name, bytes)`` for every ``.json`` member of a zip, in name order,
    within a :class:`ZipBudget`."""
    path = Path(path)
    check_path(path, error=error)
    budget = ZipBudget(path.stat().st_size, file=str(path), error=error)
    try:
        with zipfile.ZipFile(path) as archive:
            names = sorted(
                n for n in archive.namelist()
                if n.endswith(".json") and not n.startswith("__MACOSX/")
            )
            for name in names:
                info = archive.getinfo(name)
                budget.take(info)
                data = read_declared(archive, info)
                yield name, data[3:] if data[:3] == BOM else data
    except zipfile.BadZipFile:
        raise error("not a valid zip file", file=str(path)) from None


def iter_jsonl(path: str | Path, *, error: ErrorType = GoldDataError) -> Iterator[tuple[int, Any]]:
    """Yield ``(line number, parsed record)`` for each non-blank line of a JSONL file."""
    path = Path(path)
    data = read_bytes(path, error=error)
    if not data.strip():
        raise error("file is empty", file=str(path))
    for lineno, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield lineno, orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise error(f"line {lineno}: {_describe(exc, line)}", file=str(path)) from None


# --------------------------------------------------------------------------- duplicate keys

_KEY_END = re.compile(rb'"\s*:')
_SPACED_KEY = re.compile(rb'"[ \t\r\n]+:')


def count_keys(obj: Any) -> int:
    """``"\":"`` occurrences in the compact re-serialisation of a parsed document: its keys,
    plus any ``":`` inside its strings (one C pass, no Python walk)."""
    try:
        return orjson.dumps(obj).count(b'":')
    except (TypeError, orjson.JSONEncodeError):
        return -1  # not re-serialisable: let the exact check decide


_ESCAPED_QUOTE_OR_COLON = (b"\\u0022", b"\\u003a", b"\\u003A")


def may_have_duplicate_keys(data: bytes, parsed_keys: int) -> bool:
    """A cheap check: False only when ``data`` certainly has no object key twice.

    Every key ends with an unescaped ``"`` followed by ``:`` (whitespace allowed), so the
    ``":`` occurrences in the raw text are the keys written plus those inside strings;
    ``parsed_keys`` (:func:`count_keys`) counts the same for what the parser kept. A key
    given twice makes the raw count larger (keys spelled with ``\\uXXXX`` escapes end alike).
    Raw text that could count less (``"key" : value``, a quote or colon escaped as
    ``\\u0022``, ``\\u003a``: a string holding ``":`` only once decoded would hide a
    repeated key) is counted by a regular expression, or sent to the exact check.
    """
    if parsed_keys < 0 or any(escape in data for escape in _ESCAPED_QUOTE_OR_COLON):
        return True
    raw = data.count(b'":')
    if _SPACED_KEY.search(data):  # keys written as "key" : value
        raw = len(_KEY_END.findall(data))
    return raw != parsed_keys


def refuse_duplicate_keys(data: bytes | bytearray, parsed: Any, *, file: str,
                          error: ErrorType = GoldDataError) -> None:
    """``error`` for the first object key ``data`` gives twice (``parsed``: what a parser
    made of it, keeping the last one, for the cheap count first; None: the exact check
    only): the place is its path of keys and indexes, and the dialogue its first key when
    that is a string (a ``{dialogue_id: ...}`` document), the key itself at the top level."""
    if parsed is not None and not may_have_duplicate_keys(data, count_keys(parsed)):
        return
    for path, key, count in find_duplicate_keys(bytes(data)):
        where = ".".join(map(str, path)) or "the top-level object"
        dialogue = path[0] if path and isinstance(path[0], str) else (key if not path else None)
        record = (parsed[path[0]] if isinstance(parsed, list) and path
                  and isinstance(path[0], int) and path[0] < len(parsed) else parsed)
        if isinstance(record, dict) and isinstance(record.get("dialogue_id"), str):
            dialogue = record["dialogue_id"]  # a list of dialogues, or one record (JSONL)
        raise error(f"key {key!r} is given {count} times in {where}; a JSON object keeps "
                    "only the last one, so the others would be lost silently", file=file,
                    dialogue=dialogue)


def find_duplicate_keys(data: bytes | str) -> list[tuple[tuple, str, int]]:
    """Every object key given more than once, as ``(path, decoded key, count)``.

    ``path`` is the tuple of keys and list indexes leading to the object (``()`` for the
    top level). Keys are compared decoded, so ``"demo\\u0030001"`` and ``"demo0001"`` are
    the same key. Slow (the standard parser with a hook): call it only when
    :func:`may_have_duplicate_keys` says so.
    """
    found: dict[int, list[tuple[str, int]]] = {}

    def hook(pairs: list[tuple[str, Any]]) -> dict:
        out = dict(pairs)
        if len(out) != len(pairs):
            counts: dict[str, int] = {}
            for key, _ in pairs:
                counts[key] = counts.get(key, 0) + 1
            found[id(out)] = [(k, c) for k, c in counts.items() if c > 1]
        return out

    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        if text.startswith("\ufeff"):
            text = text[1:]
        tree = json.loads(text, object_pairs_hook=hook)
    except (ValueError, RecursionError):
        return []
    if not found:
        return []
    out: list[tuple[tuple, str, int]] = []
    stack: list[tuple[tuple, Any]] = [((), tree)]
    while stack:
        path, x = stack.pop()
        if type(x) is dict:
            for key, count in found.get(id(x), ()):
                out.append((path, key, count))
            stack.extend((path + (k,), v) for k, v in x.items())
        elif type(x) is list:
            stack.extend((path + (i,), v) for i, v in enumerate(x))
    out.sort(key=lambda item: [str(p) for p in item[0]])
    return out
