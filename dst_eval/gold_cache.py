"""Loaded gold sets cached on disk, for every corpus whose loader has no cache of its own.

A :class:`~dst_eval.gold.GoldSet` is turned into plain tuples and dicts
(:func:`to_compact`), stored with :mod:`dst_eval.diskcache` keyed by every file under
the gold path (a file: the file and its sibling files, e.g. MultiWOZ's
``testListFile``), and rebuilt by :func:`from_compact` into an equal, immutable
GoldSet. Re-scoring against the same gold then skips parsing and normalising it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from . import gold as gold_module
from .diskcache import cached
from .gold import GoldDialogue, GoldFrame, GoldSet, GoldTurn, ServiceSchema, SlotSpan

FORMAT_VERSION = 1
MAX_INPUT_FILES = 5000


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return tuple(_thaw(v) for v in value)
    return value


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, tuple):
        return tuple(_freeze(v) for v in value)
    return value


def _frame(frame: GoldFrame) -> tuple:
    return (frame.service, frame.active_intent, frame.requested_slots,
            tuple(frame.slot_values.items()),
            tuple((s.slot, s.start, s.end) for s in frame.spans))


def _turn(turn: GoldTurn) -> tuple:
    return (turn.dialogue_id, turn.turn_index, turn.user_utterance, tuple(turn.state.items()),
            tuple(sorted(turn.requested_slots)), tuple(turn.active_intents.items()),
            turn.services, turn.system_response, tuple(_frame(f) for f in turn.frames),
            turn.raw_turn_index, _thaw(turn.system_annotations))


def to_compact(gold: GoldSet) -> tuple:
    """Plain (marshal-able) form of a gold set."""
    dialogues = tuple(
        (d.dialogue_id, tuple(_turn(t) for t in d.turns), d.services,
         None if d.goal is None else _thaw(d.goal), tuple(d.meta.items()))
        for d in gold.dialogues)
    schema = tuple((s.name, s.slots, tuple(sorted(s.categorical)), s.intents)
                   for s in gold.schema.values())
    seen = None if gold.seen_services is None else tuple(sorted(gold.seen_services))
    return (gold.corpus, gold.split, gold.source, gold.slots,
            tuple(sorted(gold.categorical_slots)), schema, seen, dialogues)


def from_compact(data: tuple) -> GoldSet:
    corpus, split, source, slots, categorical, schema, seen, dialogues = data
    empty: Mapping = MappingProxyType({})
    built = []
    for dialogue_id, turns, services, goal, meta in dialogues:
        gold_turns = tuple(
            GoldTurn(
                dialogue_id=t[0], turn_index=t[1], user_utterance=t[2],
                state=MappingProxyType(dict(t[3])), requested_slots=frozenset(t[4]),
                active_intents=MappingProxyType(dict(t[5])) if t[5] else empty,
                services=t[6], system_response=t[7],
                frames=tuple(GoldFrame(f[0], f[1], f[2], MappingProxyType(dict(f[3])),
                                       tuple(SlotSpan(*s) for s in f[4])) for f in t[8]),
                raw_turn_index=t[9],
                system_annotations=_freeze(t[10]) if t[10] else empty,
            ) for t in turns)
        built.append(GoldDialogue(dialogue_id, gold_turns, services,
                                  None if goal is None else _freeze(goal),
                                  MappingProxyType(dict(meta)) if meta else empty))
    return GoldSet(
        corpus=corpus, split=split, dialogues=tuple(built), source=source, slots=slots,
        categorical_slots=frozenset(categorical),
        schema=MappingProxyType({s[0]: ServiceSchema(s[0], s[1], frozenset(s[2]), s[3])
                                 for s in schema}),
        seen_services=None if seen is None else frozenset(seen),
    )


def input_files(path: Path) -> list[Path]:
    """Every file the gold may be read from: a directory's files (recursively), or a file
    with its sibling files (list files, schemas); empty when there are too many to stat."""
    base = path if path.is_dir() else path.parent
    files: list[Path] = []
    for root, dirs, names in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if path.is_dir() else []
        files += [Path(root) / n for n in sorted(names) if not n.startswith(".")]
        if len(files) > MAX_INPUT_FILES:
            return []
    return files


def _code_digest(module_file: str | None) -> str:
    """Digest of the loader's source and of the gold model: new code, new entries."""
    digest = hashlib.sha256()
    for file in (module_file, __file__, gold_module.__file__):
        if file:
            digest.update(Path(file).read_bytes())
    return digest.hexdigest()[:16]


def load_cached(corpus: str, path: Path, split: str | None, load: Callable[[], GoldSet], *,
                loader_file: str | None = None) -> GoldSet:
    """``load()``'s gold set, from the cache when nothing under ``path`` changed."""
    inputs = input_files(path)
    if not inputs:
        return load()
    version = (FORMAT_VERSION, corpus, split, str(path.resolve()), _code_digest(loader_file))
    return from_compact(cached("gold", version, inputs, lambda: to_compact(load())))
