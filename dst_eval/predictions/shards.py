"""Shards: several prediction files read as one submission.

A data-parallel generation run writes one file per worker. ``--predictions`` may name
them by a glob (``'out/preds_*.json'``, quoted so the shell leaves it alone) or by a
directory holding them (``*.json``, ``*.jsonl``, ``*.txt``, ``*.idx``; hidden files
skipped; a directory of SGD-style dialogue files keeps meaning SGD predictions). Every
file is read by its format's reader (detected per file, or ``--pred-format``); all
must have the same format. A dialogue may be split across shards, but a turn predicted
in two files is an error (exit 3) naming the dialogue, the turn and both files; so is a
dialogue id given in two spellings that match (``PMUL1234.json`` / ``pmul1234``) for the
same turn. Turns no shard predicts are gaps (Issue ``missing_turn``), exactly as in one
file. LDST result lines are one stream of lines over all shards
(:func:`~dst_eval.predictions.ldst.read_ldst_files`). Samples aligned by order
(ConvLab-3 without ``dialogue_id``) cannot be sharded.
"""

from __future__ import annotations

import glob
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType

from dst_eval.errors import PredictionError
from dst_eval.gold import dialogue_key
from dst_eval.jsonio import special_reason
from dst_eval.predictions.adapted import EMBEDDED_GOLD, GAP, ORDER_ALIGNED, POSITIONAL
from dst_eval.predictions.model import Issue, PredictionSet, PredTurn

GLOB_CHARS = frozenset("*?[")
SUFFIXES = (".json", ".jsonl", ".txt", ".idx")


def shard_files(path: Path, forced: str | None,
                detect: Callable[[Path], str]) -> list[Path] | None:
    """The shard files ``path`` names, or None when it is one file / an SGD directory."""
    text = str(path)
    if not path.exists() and GLOB_CHARS & set(text):
        matches = _readable(sorted(Path(p) for p in glob.glob(text)))
        if not matches:
            raise PredictionError("no prediction file matches this pattern", file=text)
        return matches
    if not path.is_dir() or forced == "sgd":
        return None
    files = _readable(sorted(p for p in path.iterdir() if not p.name.startswith(".")
                             and p.suffix.lower() in SUFFIXES))
    if not files:
        return None
    try:
        detected = detect(files[0])
    except PredictionError:
        if forced is None:
            raise
        detected = forced  # the forced format's reader names the problem
    return None if detected == "sgd" else files


def _readable(paths: list[Path]) -> list[Path]:
    """The files among ``paths`` (folders left out); anything else a shard could be -- a
    FIFO, a socket, a device, a broken symbolic link -- is exit 3 naming it, never skipped:
    a shard left out would leave its turns unpredicted without a word."""
    files = []
    for path in paths:
        if path.is_dir():
            continue
        reason = special_reason(path)
        if reason is not None:
            raise PredictionError(f"{reason}: a shard must be a regular file", file=str(path))
        files.append(path)
    return files


def merge_shards(files: list[Path], read: Callable[[Path], PredictionSet],
                 source: str) -> PredictionSet:
    """One :class:`PredictionSet` from the shards (see the module doc for the rules)."""
    turns: dict[str, list[PredTurn]] = {}
    origin: dict[str, list[str | None]] = {}
    names: dict[str, str] = {}
    issues: list[Issue] = []
    embedded: dict = {}
    positional = False
    fmt = None
    for path in files:
        part = read(path)
        if fmt is None:
            fmt = part.format
        elif part.format != fmt:
            raise PredictionError(f"shard format {part.format!r} differs from {fmt!r} of "
                                  f"{files[0]}; all shards must have one format",
                                  file=str(path))
        if part.metadata.get(ORDER_ALIGNED):
            raise PredictionError("samples without dialogue ids are aligned by their order "
                                  "and cannot be combined from shards", file=str(path))
        issues.extend(i for i in part.issues if i.kind != "missing_turn")
        embedded.update(part.metadata.get(EMBEDDED_GOLD) or {})
        positional = positional or bool(part.metadata.get(POSITIONAL))
        for dialogue, predicted in part.dialogues.items():
            key = dialogue_key(dialogue)
            name = names.setdefault(key, dialogue)
            merged = turns.setdefault(name, [])
            where = origin.setdefault(name, [])
            for index, turn in enumerate(predicted):
                if turn == GAP:
                    continue
                if index >= len(merged):
                    merged.extend([GAP] * (index + 1 - len(merged)))
                    where.extend([None] * (index + 1 - len(where)))
                if where[index] is not None:
                    raise PredictionError(f"this turn is predicted in two shards: "
                                          f"{where[index]} and {path}", file=str(path),
                                          dialogue=dialogue, turn=index)
                merged[index], where[index] = turn, str(path)
    for dialogue, merged in turns.items():
        for index, turn in enumerate(merged):
            if turn == GAP:
                issues.append(Issue("missing_turn", "no shard predicts this turn; it is "
                                    "scored as missing", file=source, dialogue=dialogue,
                                    turn=index))
    metadata: dict = {EMBEDDED_GOLD: MappingProxyType(embedded)} if embedded else {}
    if positional:
        metadata[POSITIONAL] = True
    return PredictionSet(source, fmt or "", turns, issues, MappingProxyType(metadata))
