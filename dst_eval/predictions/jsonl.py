"""The JSONL format: one record ``{"dialogue_id", "turn_index", "state", ...}`` per line.

Records carry the turn keys of :mod:`~dst_eval.predictions.turns` (``turn_index`` =
0-based index among the dialogue's user turns), in any order; a JSON array of such
records (or one record object) is read alike. A turn with no record inside a dialogue
is a gap: an all-``None`` :class:`PredTurn` plus an Issue ``missing_turn`` (alignment
scores it as missing). Duplicate ``(dialogue_id, turn_index)`` records, ids that differ
only by case or ``.json``, and ``turn_index`` values above
:data:`~dst_eval.predictions.common.MAX_TURN_INDEX` are a :class:`PredictionError`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dst_eval.errors import PredictionError
from dst_eval.jsonio import parse_json_bytes
from dst_eval.predictions.common import (
    MAX_NAME_CHARS,
    MAX_TURN_INDEX,
    check_same_dialogue,
    describe,
    show,
)
from dst_eval.predictions.model import PredictionSet, PredTurn
from dst_eval.predictions.turns import TurnReader

_GAP = PredTurn()


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


def read_jsonl(content: Any, reader: TurnReader) -> PredictionSet:
    """Read JSONL bytes, a list of records or one record."""
    file = reader.file
    if not isinstance(content, bytes | list | dict):
        raise PredictionError(f"JSONL-style predictions must be a list of records, found "
                              f"{describe(content)}", file=file)
    by_dialogue: dict[str, dict[int, PredTurn]] = {}
    places: dict[tuple[str, int], str] = {}
    seen: dict[str, str] = {}
    for place, record in _records(content, file):
        if type(record) is not dict:
            raise PredictionError(f"{place}: a record must be a JSON object, found "
                                  f"{describe(record)}", file=file)
        dialogue, index = record.get("dialogue_id"), record.get("turn_index")
        if type(dialogue) is int:
            dialogue = str(dialogue)
        if type(dialogue) is not str or not dialogue.strip() or len(dialogue) > MAX_NAME_CHARS:
            raise PredictionError(f"{place}: 'dialogue_id' must be a non-empty string of at most "
                                  f"{MAX_NAME_CHARS:,} characters, found {show(dialogue)}",
                                  file=file)
        if type(index) is not int or not 0 <= index <= MAX_TURN_INDEX:
            raise PredictionError(f"{place}: 'turn_index' must be an integer from 0 to "
                                  f"{MAX_TURN_INDEX:,}, found {show(index)}",
                                  file=file, dialogue=dialogue)
        check_same_dialogue(seen, dialogue, file, f" ({place})")
        earlier = places.setdefault((dialogue, index), place)
        if earlier != place:
            raise PredictionError(f"duplicate record: {earlier} and {place} both predict this "
                                  "turn", file=file, dialogue=dialogue, turn=index)
        by_dialogue.setdefault(dialogue, {})[index] = reader.turn(record, dialogue, index)
    dialogues: dict[str, list[PredTurn]] = {}
    for dialogue, turns in by_dialogue.items():
        ordered = []
        for index in range(max(turns) + 1):
            turn = turns.get(index)
            if turn is None:
                reader.issue("missing_turn", "no record for this turn; it is scored as missing",
                             dialogue, index)
                turn = _GAP
            ordered.append(turn)
        dialogues[dialogue] = ordered
    return PredictionSet(file, "jsonl", dialogues, reader.issues)
