"""Where an SGD split's gold comes from: the accepted layouts, and sniffing.

* a split directory (``dev/`` with ``dialogues_*.json`` and ``schema.json``);
* the corpus root (``train/ dev/ test/``) plus ``split`` (``validation`` = ``dev``);
* one ``dialogues_*.json`` file (its directory's ``schema.json`` is used);
* the Hugging Face ``schema_guided_dstc8`` export (JSON list or JSONL of records), as a
  file or a directory holding ``<split>.jsonl``/``<split>.json``; a ``schema.json`` next
  to it is used when present.

The training schema (for seen/unseen services) is ``<root>/train/schema.json``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from dst_eval.errors import GoldDataError, UsageError

SPLITS = ("train", "dev", "test")
SPLIT_ALIASES = {"validation": "dev", "valid": "dev", "val": "dev"}


@dataclass(frozen=True)
class Source:
    """The files of one split: dialogues, its schema and the training schema."""

    files: tuple[Path, ...]
    split: str | None
    schema: Path | None
    train_schema: Path | None
    shown: str
    """How the gold is named in messages and in ``GoldSet.source``."""
    split_is_label: bool = False
    """``split`` came from the caller only: the layout does not say it."""


# --------------------------------------------------------------------------- sniffing

_SLOT_KEY = re.compile(rb'"slot_values"\s*:\s*\{\s*"((?:[^"\\]|\\.)*)"')
_HF_SLOT_NAME = re.compile(rb'"slot_name"\s*:\s*\[\s*"((?:[^"\\]|\\.)*)"')
_SNIFF_BYTES = 1 << 20


def _sniff_bytes(head: bytes) -> bool:
    if b'"services"' not in head or b'"turns"' not in head:
        return False
    keys = _SLOT_KEY.findall(head) + _HF_SLOT_NAME.findall(head)
    return bool(keys) and not any(b"-" in key for key in keys)


def _head(path: Path) -> bytes:
    if not path.is_file():  # a FIFO would block: never opened here
        return b""
    with path.open("rb") as fh:
        return fh.read(_SNIFF_BYTES)


def sniff(path: Path) -> bool:
    """SGD dialogues (native or HF export) whose slot names carry no ``domain-`` prefix."""
    path = Path(path)
    if path.is_file():
        return path.suffix in (".json", ".jsonl") and _sniff_bytes(_head(path))
    if not path.is_dir():
        return False
    candidates = sorted(path.glob("dialogues_*.json"))
    for split in SPLITS:
        candidates += sorted((path / split).glob("dialogues_*.json"))[:1]
    candidates += sorted(path.glob("*.jsonl"))[:1]
    return any(_sniff_bytes(_head(candidate)) for candidate in candidates[:1])


# --------------------------------------------------------------------------- locating


def canonical_split(split: str | None) -> str | None:
    if split is None:
        return None
    return SPLIT_ALIASES.get(split.lower(), split.lower())


def _existing(path: Path) -> Path | None:
    return path if path.is_file() else None


def _hf_files(directory: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for candidate in sorted(directory.glob("*.json*")):
        if candidate.suffix not in (".json", ".jsonl") or candidate.stem == "schema":
            continue
        found.setdefault(canonical_split(candidate.stem.split("-")[0]) or "", candidate)
    return found


def _named_split(path: Path, *, stem: bool = False) -> str | None:
    """The split ``path``'s name says (``stem``: a Hugging Face file's, ``test.jsonl``,
    ``validation-00000-of-00001.json``): the real (symlink-resolved) name first, then the
    name given; None when neither names one."""
    for candidate in (path.resolve(), path):
        name = candidate.stem.split("-")[0] if stem else candidate.name
        split = canonical_split(name)
        if split in SPLITS:
            return split
    return None


def _check_label(split: str | None) -> None:
    """``split`` labels gold whose layout does not say its split: one of :data:`SPLITS`."""
    if split is not None and split not in SPLITS:
        raise UsageError(f"unknown SGD split {split!r}; use train, dev (validation) or test")


def locate(path: Path, split: str | None) -> Source:
    """The :class:`Source` of ``path`` (any accepted layout) and ``split``. Where the layout
    does not say the split (a folder or file not named for one), ``split`` is its label and
    must be one of :data:`SPLITS`."""
    split = canonical_split(split)
    if path.is_file() and path.suffix not in (".json", ".jsonl"):
        raise GoldDataError("SGD gold is a split folder, a dialogues_*.json file or a Hugging "
                            f"Face .json/.jsonl export, not a {path.suffix or 'suffix-less'} "
                            "file (unpack an archive first)", file=str(path))
    if path.is_file():
        hf_file = not path.name.startswith("dialogues_")
        own_split = (_named_split(path, stem=True) if hf_file else None) or _named_split(
            path.parent)
        if split and own_split is not None and split != own_split:
            raise GoldDataError(f"--split {split}: the file's name or folder says it holds the "
                                f"{own_split!r} split", file=str(path))
        _check_label(split)
        return Source((path,), split or own_split,
                      _existing(path.parent / "schema.json"),
                      _existing(path.parent.parent / "train" / "schema.json"), str(path),
                      split is not None and own_split is None)
    if not path.is_dir():
        raise GoldDataError("gold path does not exist", file=str(path))
    files = sorted(path.glob("dialogues_*.json"))
    if files:
        own = _named_split(path)
        if split and own is not None and split != own:
            raise GoldDataError(f"{path} is the {own!r} split but split {split!r} was requested")
        _check_label(split)
        return Source(tuple(files), split or own,
                      _existing(path / "schema.json"),
                      _existing(path.parent / "train" / "schema.json"), str(path),
                      split is not None and own is None)
    available = [s for s in SPLITS if sorted((path / s).glob("dialogues_*.json"))]
    if available:
        if split is None:
            raise UsageError(f"{path} holds the splits {', '.join(available)}; "
                             "name one with --split")
        if split not in available:
            raise GoldDataError(f"split {split!r} not found in {path} "
                             f"(available: {', '.join(available)})")
        real = _named_split(path / split)
        if real != split:  # a symlinked split folder: its real name says another split
            raise GoldDataError(f"{path / split} is the {real!r} split (it links to "
                                f"{(path / split).resolve()}) but split {split!r} was requested")
        return Source(tuple(sorted((path / split).glob("dialogues_*.json"))), split,
                      _existing(path / split / "schema.json"),
                      _existing(path / "train" / "schema.json"), str(path / split))
    hf = _hf_files(path)
    if hf:
        if split is None and len(hf) > 1:
            raise UsageError(f"{path} holds the splits {', '.join(sorted(hf))}; "
                             "name one with --split")
        key = split if split is not None else next(iter(hf))
        if key not in hf:
            raise GoldDataError(f"split {split!r} not found in {path} "
                             f"(available: {', '.join(sorted(hf))})")
        return Source((hf[key],), key or None, _existing(path / "schema.json"), None,
                      str(hf[key]))
    raise GoldDataError("no SGD dialogues_*.json files found", file=str(path))
