"""The score cache: plain-data entries that cannot outlive what they were computed from.

``<cache-dir>/<key>.json``, one entry per scored submission.

* **key** = sha256 of (cache format; the submission: a file's name and the sha256 of its
  bytes, or a directory's files, each relative name, size and sha256 framed unambiguously
  (:func:`~dst_eval.leaderboard.submissions.submission_key`); the gold path's content hash
  and every file and listing the gold load read (path and content digest, so another gold
  copy never shares a key); corpus, split,
  profile; the evaluate() options, resource files by content; the bootstrap N and seed; the
  harness digest :func:`harness_fingerprint`).
* **inputs**: an entry lists every file the run read while loading the gold data and
  scoring (recorded where files are opened, :mod:`dst_eval.leaderboard.reads`), each with
  its content digest, and every directory listing those reads depended on. An entry is
  served only when every one of them still has that digest (contents, not sizes or
  times): a gold file edited in place, a split list or database beside the gold data, a
  new file in a directory a loader listed — each makes the entry stale, and it is
  recomputed and overwritten.
* **plain data only**: scores, coverage, notes, warnings, the submission's embedded
  metadata, the signature fields, the digest of what its predictions say
  (:mod:`dst_eval.leaderboard.content`), and for every metric with statistics its N bootstrap
  resample scores as float64 bytes (:mod:`dst_eval.leaderboard.statistics`). Nothing is
  imported, unpickled or rebuilt from an entry; it is decoded into the typed
  :class:`Entry` (msgspec), and one that fails to decode, belongs to another key, or does
  not match the statistics asked for is ignored (rescored).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import os
import platform
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Literal

import msgspec

from dst_eval import __version__

CACHE_FORMAT = 3


class Input(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """A file (``kind="file"``) or directory listing (``"dir"``) the entry depends on."""

    kind: Literal["file", "dir"]
    path: str
    digest: str


class SignatureData(msgspec.Struct, forbid_unknown_fields=True):
    corpus: str
    split: str | None
    profile: str
    fields: list[tuple[str, str]]
    version: str


class TableData(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """:class:`~dst_eval.leaderboard.statistics.TableKey` as data."""

    dialogues: str
    n_dialogues: int
    gold_turns: str | None


class MetricData(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    """:class:`~dst_eval.leaderboard.statistics.MetricResamples` as data (``table`` indexes
    :attr:`Entry.tables`; ``full`` None when NaN)."""

    name: str
    table: int
    full: float | None
    resamples: bytes


class Entry(msgspec.Struct, forbid_unknown_fields=True):
    """One scored submission, everything ranking and rendering need (module docstring)."""

    format: int
    key: str
    signature: SignatureData
    scores: dict[str, float | None]
    """Every reported score (None: NaN, n/a)."""
    coverage: float | None
    """Share of gold turns predicted."""
    warnings: list[str]
    notes: list[str]
    """The scorer's notes."""
    statistics_notes: list[str]
    """Metrics whose statistics do not reproduce their score (they have none here)."""
    metadata: dict[str, Any]
    """Metadata embedded in the predictions file, unchecked (checked when ranked)."""
    has_states: bool
    predictions_digest: str
    """What the predictions give every gold turn, whatever their bytes
    (:func:`dst_eval.leaderboard.content.predictions_digest`): one digest, one submission."""
    tables: list[TableData]
    statistics: list[MetricData]
    inputs: list[Input] = []

    def well_formed(self, n_resamples: int) -> bool:
        """Whether the statistics are those of ``n_resamples`` resamples, consistently."""
        names = [m.name for m in self.statistics]
        return len(set(names)) == len(names) and all(
            0 <= m.table < len(self.tables) and len(m.resamples) == 8 * n_resamples
            for m in self.statistics)


_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(Entry)


def encode(entry: Entry) -> bytes:
    return _ENCODER.encode(entry)


def decode(data: bytes) -> Entry | None:
    """The entry, or None when ``data`` is not a well-typed entry of this format."""
    try:
        entry = _DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return entry if entry.format == CACHE_FORMAT else None


class ScoreCache:
    """``<dir>/<key>.json`` entries; see the module docstring for when one is served."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    def get(self, key: str, digest: Callable[[str, str], str], n_resamples: int
            ) -> Entry | None:
        """The entry for ``key`` if it decodes, is for this key and these statistics, and
        every input still has its recorded digest (``digest(kind, path)``); else None."""
        if self.directory is None:
            return None
        try:
            data = (self.directory / f"{key}.json").read_bytes()
        except OSError:
            return None
        entry = decode(data)
        if entry is None or entry.key != key or not entry.well_formed(n_resamples):
            return None
        if any(digest(item.kind, item.path) != item.digest for item in entry.inputs):
            return None
        return entry

    def put(self, key: str, entry: Entry) -> None:
        """Write atomically (a temporary file renamed), with a ``.gitignore`` of ``*``."""
        if self.directory is None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n", encoding="utf-8")
        temporary = self.directory / f".{key}.{os.getpid()}.tmp"
        temporary.write_bytes(encode(entry))
        os.replace(temporary, self.directory / f"{key}.json")


def code_roots() -> list[Path]:
    """The installed package's directories: dst-eval's code, its metrics and its configs."""
    return [Path(importlib.import_module(name).__file__).parent
            for name in ("dst_eval", "dst_eval.metrics", "dst_eval.configs")]


def dependency_versions() -> list[tuple[str, str]]:
    """``(name, version)`` of dst-eval's required (not optional) dependencies: tokenizers,
    numpy's random generator, BLEU and the JSON parsers change numbers too."""
    try:
        requirements = importlib.metadata.requires("dst-eval") or []
    except importlib.metadata.PackageNotFoundError:
        requirements = []
    out = []
    for requirement in requirements:
        match = re.match(r"[A-Za-z0-9._-]+", requirement)
        if match is None or "extra ==" in requirement:
            continue
        try:
            version = importlib.metadata.version(match.group())
        except importlib.metadata.PackageNotFoundError:
            version = "absent"
        out.append((match.group().lower(), version))
    return sorted(out)


@cache
def harness_fingerprint() -> str:
    """``<version>+<16 hex>``: dst-eval's version and a sha256 of its installed source and
    configs (``*.py``, ``*.toml`` under :func:`code_roots`, each relative name and its bytes
    length-prefixed), its
    dependencies' versions and the Python version."""
    digest = hashlib.sha256(__version__.encode())
    for root in code_roots():
        for file in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml")):
            name, data = file.relative_to(root).as_posix().encode(), file.read_bytes()
            digest.update(b"%d:%s%d:%s" % (len(name), name, len(data), data))
    for name, version in dependency_versions():
        digest.update(f"{name}=={version}\x00".encode())
    digest.update(platform.python_version().encode())
    return f"{__version__}+{digest.hexdigest()[:16]}"
