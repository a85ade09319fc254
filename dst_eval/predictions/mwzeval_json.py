"""The mwzeval-style JSON format: ``{dialogue_id: [turn, ...]}``.

One turn object per user turn (= per system turn), read by
:class:`~dst_eval.predictions.turns.TurnReader` (``state`` ``{domain: {slot: value}}``,
``response``, ``active_domains``, ``requested_slots``, ``active_intents``). The wrapper
``{"metadata": {...}, "predictions": {<that mapping>}}`` is accepted too; ``metadata``
goes to :attr:`PredictionSet.metadata`, but for the readers' own markers
(:data:`~dst_eval.predictions.adapted.MARKERS`: ``positional``, ``unset_marker``, ...),
which are ignored with a warning (Issue ``reserved_metadata``).

Duplicate keys, which a JSON parser merges silently (last wins), are found by a cheap
count of the keys written against the keys parsed, then located exactly
(:func:`dst_eval.jsonio.find_duplicate_keys`, keys compared decoded). A dialogue id given
twice, or two ids that differ only by case or a ``.json`` suffix, is a
:class:`PredictionError`; a key given twice inside a turn is an Issue ``duplicate_key``
(an error under ``--strict``).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from dst_eval.errors import PredictionError
from dst_eval.jsonio import count_keys, find_duplicate_keys, may_have_duplicate_keys
from dst_eval.predictions.adapted import MARKERS
from dst_eval.predictions.common import (
    check_name_length,
    check_same_dialogue,
    describe,
    show,
)
from dst_eval.predictions.model import PredictionSet, PredTurn
from dst_eval.predictions.turns import TurnReader


def _check_duplicate_keys(document: dict, data: bytes | None, wrapped: bool,
                          reader: TurnReader) -> None:
    """Report every object key the file gives twice (a JSON parser keeps the last one).

    A dialogue id given twice (compared decoded: ``"demo\\u0030001"`` is ``"demo0001"``)
    loses a whole dialogue: a :class:`PredictionError`. A key given twice inside a turn
    (a slot twice in one state, ``state`` twice) is an Issue ``duplicate_key`` naming
    dialogue and turn (an error under ``--strict``); the last value is the one read.
    """
    if not data or not may_have_duplicate_keys(data, count_keys(document)):
        return
    top = ("predictions",) if wrapped else ()
    for path, key, count in find_duplicate_keys(data):
        if path == top:
            raise PredictionError(
                f"dialogue id {show(key)} is given {count} times; a JSON object keeps only "
                "the last one, so the others would be lost silently", file=reader.file,
                dialogue=key)
        inner = path[len(top):] if path[:len(top)] == top else path
        dialogue = str(inner[0]) if inner else None
        turn = inner[1] if len(inner) > 1 and type(inner[1]) is int else None
        where = ".".join(map(str, inner[2:])) or ("the turn" if turn is not None else
                                                  ".".join(map(str, path)) or "the file")
        reader.issue("duplicate_key", f"key {show(key)} is given {count} times in {where}; "
                     "only the last value is read", dialogue, turn)


def read_mwzeval(obj: Any, data: bytes | None, reader: TurnReader) -> PredictionSet:
    """Read a parsed mwzeval-style document (``data``: its raw bytes, when read from a file)."""
    file = reader.file
    if not isinstance(obj, dict):
        raise PredictionError(f"mwzeval predictions must be a JSON object {{dialogue_id: "
                              f"[turn, ...]}}, found {describe(obj)}", file=file)
    metadata: Any = {}
    document, wrapped = obj, isinstance(obj.get("predictions"), dict)
    if wrapped:
        extra = sorted(set(obj) - {"predictions", "metadata"})
        if extra:
            raise PredictionError(f"unexpected top-level keys {', '.join(map(show, extra))} "
                                  "next to 'predictions' (only 'metadata' may go with it)",
                                  file=file)
        metadata = obj.get("metadata", {})
        if not isinstance(metadata, dict):
            raise PredictionError(f"'metadata' must be a JSON object, found "
                                  f"{describe(metadata)}", file=file)
        reserved = sorted(MARKERS & set(metadata))
        if reserved:  # the readers' own markers (positional, ...) steer the scoring
            reader.issue("reserved_metadata", f"'metadata' keys {', '.join(map(show, reserved))}"
                         " are dst-eval's own markers; ignored", None, None)
            metadata = {k: v for k, v in metadata.items() if k not in MARKERS}
        obj = obj["predictions"]
        if not obj:
            raise PredictionError("no predictions: 'predictions' is an empty object", file=file)
    seen: dict[str, str] = {}
    dialogues: dict[str, list[PredTurn]] = {}
    turn = reader.turn
    for dialogue, turns in obj.items():
        if not isinstance(dialogue, str):  # in-memory objects only: JSON keys are strings
            raise PredictionError(f"a dialogue id must be a string, found {describe(dialogue)}",
                                  file=file, dialogue=show(dialogue))
        check_name_length(dialogue, file)
        check_same_dialogue(seen, dialogue, file)
        if type(turns) is not list:
            raise PredictionError(f"expected a list of turns, found {describe(turns)}",
                                  file=file, dialogue=dialogue)
        dialogues[dialogue] = [turn(t, dialogue, i) for i, t in enumerate(turns)]
    reader.check_keys()
    _check_duplicate_keys(document, data, wrapped, reader)  # after: oversized values fail first
    return PredictionSet(file, "mwzeval", dialogues, reader.issues,
                         MappingProxyType(metadata))
