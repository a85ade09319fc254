"""The JSONL format: one record ``{"dialogue_id", "turn_index", "state", ...}`` per line.

Records carry the turn keys of :mod:`~dst_eval.predictions.turns` (``turn_index`` =
0-based index among the dialogue's user turns), in any order; a JSON array of such
records (or one record object) is read alike. A turn with no record inside a dialogue
is a gap: an all-``None`` :class:`PredTurn` (alignment scores it as missing) plus ONE
Issue ``missing_turn`` per dialogue naming the gaps (so a file of a few lines with
``turn_index`` 10,000 costs pointers, not 10,000 Issues). A key given twice in a record
is an Issue ``duplicate_key`` (the last value is read; an error under ``--strict``).
Duplicate ``(dialogue_id, turn_index)`` records, ids that differ
only by case or ``.json``, ``turn_index`` values above
:data:`~dst_eval.predictions.common.MAX_TURN_INDEX`, and more gaps than
:data:`~dst_eval.predictions.common.GAP_BUDGET` per record are a :class:`PredictionError`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from dst_eval.errors import PredictionError
from dst_eval.jsonio import (
    count_keys,
    find_duplicate_keys,
    may_have_duplicate_keys,
    parse_json_bytes,
)
from dst_eval.predictions.common import (
    MAX_NAME_CHARS,
    MAX_TURN_INDEX,
    check_gap_budget,
    check_same_dialogue,
    describe,
    show,
)
from dst_eval.predictions.model import PredictionSet, PredTurn
from dst_eval.predictions.turns import TurnReader

_GAP = PredTurn()
JSONL_PLACING = frozenset({"dialogue_id", "turn_index"})
"""The keys that place a JSONL record (read here, not by :class:`TurnReader`)."""


def _records(content: Any, file: str) -> Iterator[tuple[str, Any]]:
    """Yield ``(place, record)``: ``line N`` for JSONL text, ``record N`` for a JSON array."""
    if isinstance(content, list):
        for i, record in enumerate(content):
            yield f"record {i}", record
        return
    if isinstance(content, dict):
        yield "record 0", content
        return
    for lineno, line in enumerate(content.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield f"line {lineno}", parse_json_bytes(line, file=file, error=PredictionError)
        except PredictionError as exc:
            raise PredictionError(f"line {lineno}: {exc.message}", file=file) from None


def _gaps(present: list[int]) -> list[tuple[int, int]]:
    """The missing ``(first, last)`` index ranges below the largest of ``present`` (sorted)."""
    spans, expected = [], 0
    for index in present:
        if index > expected:
            spans.append((expected, index - 1))
        expected = index + 1
    return spans


def _ranges(spans: list[tuple[int, int]]) -> str:
    """``3, 5..9`` for ``[(3, 3), (5, 9)]`` (at most five ranges shown)."""
    shown = [str(a) if a == b else f"{a}..{b}" for a, b in spans[:5]]
    return ", ".join(shown) + (", ..." if len(spans) > 5 else "")


def _check_duplicate_keys(content: Any, data: bytes | None, keys: int,
                          reader: TurnReader) -> None:
    """Issue ``duplicate_key`` for every key a record gives twice (the last one is read)."""
    if not data or not may_have_duplicate_keys(data, keys):
        return
    if isinstance(content, bytes):
        lines = [(f"line {n}", line) for n, line in enumerate(data.splitlines(), start=1)
                 if line.strip()]
    else:
        lines = [("", data)]
    for place, text in lines:
        for path, key, count in find_duplicate_keys(text):
            record: Any = None
            if place:
                try:
                    record = orjson.loads(text)
                except orjson.JSONDecodeError:
                    record = None
            elif path and type(content) is list and type(path[0]) is int:
                record = content[path[0]]
                place, path = f"record {path[0]}", path[1:]
            elif type(content) is dict:
                record, place = content, "record 0"
            dialogue = turn = None
            if type(record) is dict:
                dialogue, turn = record.get("dialogue_id"), record.get("turn_index")
            where = ".".join(map(str, path)) or "the record"
            reader.issue("duplicate_key", f"{place}: key {show(key)} is given {count} times "
                         f"in {where}; only the last value is read",
                         dialogue if type(dialogue) is str else None,
                         turn if type(turn) is int else None)


def read_jsonl(content: Any, reader: TurnReader, data: bytes | None = None) -> PredictionSet:
    """Read JSONL bytes, a list of records or one record (``data``: the file's bytes,
    when read from a file, for the duplicate-key check)."""
    file = reader.file
    if not isinstance(content, bytes | list | dict):
        raise PredictionError(f"JSONL-style predictions must be a list of records, found "
                              f"{describe(content)}", file=file)
    by_dialogue: dict[str, dict[int, PredTurn]] = {}
    places: dict[tuple[str, int], str] = {}
    seen: dict[str, str] = {}
    keys = 0
    for place, record in _records(content, file):
        if type(record) is not dict:
            raise PredictionError(f"{place}: a record must be a JSON object, found "
                                  f"{describe(record)}", file=file)
        dialogue, index = record.get("dialogue_id"), record.get("turn_index")
        if type(dialogue) is int:
            dialogue = str(dialogue)
        if type(dialogue) is not str or not dialogue.strip() or len(dialogue) > MAX_NAME_CHARS:
            raise PredictionError(f"{place}: 'dialogue_id' must be a non-empty string of at most "
                                  f"{MAX_NAME_CHARS:,} characters (or an integer, read as its "
                                  f"digits), found {show(dialogue)}", file=file)
        if type(index) is not int or not 0 <= index <= MAX_TURN_INDEX:
            raise PredictionError(f"{place}: 'turn_index' must be an integer from 0 to "
                                  f"{MAX_TURN_INDEX:,}, found {show(index)}",
                                  file=file, dialogue=dialogue)
        check_same_dialogue(seen, dialogue, file, f" ({place})")
        keys += count_keys(record)
        earlier = places.setdefault((dialogue, index), place)
        if earlier != place:
            raise PredictionError(f"duplicate record: {earlier} and {place} both predict this "
                                  "turn", file=file, dialogue=dialogue, turn=index)
        by_dialogue.setdefault(dialogue, {})[index] = reader.turn(record, dialogue, index)
    reader.check_keys()
    _check_duplicate_keys(content, data, keys, reader)
    check_gap_budget([max(turns) + 1 for turns in by_dialogue.values()], len(places), file)
    dialogues: dict[str, list[PredTurn]] = {}
    for dialogue, turns in by_dialogue.items():
        ordered = [_GAP] * (max(turns) + 1)
        for index, turn in turns.items():
            ordered[index] = turn
        if len(turns) < len(ordered):
            gaps = _gaps(sorted(turns))
            reader.issue("missing_turn", f"{len(ordered) - len(turns):,} turns without a "
                         f"record (turns {_ranges(gaps)}); they are scored as missing",
                         dialogue, gaps[0][0])
        dialogues[dialogue] = ordered
    return PredictionSet(file, "jsonl", dialogues, reader.issues)
