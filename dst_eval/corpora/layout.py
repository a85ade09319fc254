"""Helpers shared by loaders of JSON / zipped JSON / JSONL corpus layouts (incl. the
Hugging Face/GEM columnar layouts): file heads for sniffing, safe literal parsing,
read-only copies, columns to rows, split names.
"""

from __future__ import annotations

import ast
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from dst_eval.errors import GoldDataError
from dst_eval.jsonio import iter_jsonl, read_json

HEAD_BYTES = 1 << 16

def read_head(path: Path, n_bytes: int = HEAD_BYTES) -> str:
    """The first ``n_bytes`` of a file, or of the first ``.json`` member of a zip, as text."""
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
    return data.decode("utf-8", errors="ignore")


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


def read_records(path: Path) -> Any:
    """Parsed content of a ``.json``, ``.json.zip`` or ``.jsonl`` file (JSONL -> list)."""
    if path.suffix == ".jsonl":
        return [record for _, record in iter_jsonl(path)]
    return read_json(path)


def split_from_name(path: Path, known: Iterable[str], aliases: Mapping[str, str]) -> str | None:
    """``test`` for ``test.json.zip``, ``val`` for ``dev.jsonl`` (via aliases), else None."""
    stem = path.name.split(".")[0].lower()
    stem = aliases.get(stem, stem)
    return stem if stem in known else None
