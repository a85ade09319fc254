"""The mwzeval-style JSON format: ``{dialogue_id: [turn, ...]}``.

One turn object per user turn (= per system turn), read by
:class:`~dst_eval.predictions.turns.TurnReader` (``state`` ``{domain: {slot: value}}``,
``response``, ``active_domains``, ``requested_slots``, ``active_intents``). The wrapper
``{"metadata": {...}, "predictions": {<that mapping>}}`` is accepted too; ``metadata``
goes to :attr:`PredictionSet.metadata`.

Duplicate keys in the top-level object, which a JSON parser merges silently, are found
by a scan of the raw text for keys whose value is a list (ids written with backslash
escapes are not covered by that scan). Dialogue ids that differ only by case or a
``.json`` suffix are duplicates too. Both are a :class:`PredictionError`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from dst_eval.errors import PredictionError
from dst_eval.predictions.common import (
    check_name_length,
    check_same_dialogue,
    describe,
    show,
)
from dst_eval.predictions.model import PredictionSet, PredTurn
from dst_eval.predictions.turns import TurnReader

# A key whose value is a list, right after a list value and a comma: the top-level keys
# of an mwzeval file but its first (plus a few inner keys, filtered out by the caller).
_LIST_KEY = re.compile(rb'\]\s*,\s*"([^"\\]*)"\s*:\s*\[')


def _check_top_level_duplicates(data: bytes | None, ids: Sequence[str], file: str) -> None:
    """Fail on a top-level key given twice (the JSON parser kept only its last value).

    Every occurrence of a dialogue id but the file's first key follows the list value of
    the previous one (``], "id": [``); the first key, first in the parsed dict's order
    too, follows ``{`` and is counted once without scanning.
    """
    if not data:
        return
    wanted = set(ids)
    counts = Counter(m.decode("utf-8", "replace") for m in _LIST_KEY.findall(data))
    if ids:
        counts[ids[0]] += 1
    for key, count in counts.items():
        if count > 1 and key in wanted:
            raise PredictionError(
                f"dialogue id {show(key)} is given {count} times; a JSON object keeps only "
                "the last one, so the others would be lost silently", file=file, dialogue=key)


def read_mwzeval(obj: Any, data: bytes | None, reader: TurnReader) -> PredictionSet:
    """Read a parsed mwzeval-style document (``data``: its raw bytes, when read from a file)."""
    file = reader.file
    if not isinstance(obj, dict):
        raise PredictionError(f"mwzeval predictions must be a JSON object {{dialogue_id: "
                              f"[turn, ...]}}, found {describe(obj)}", file=file)
    metadata: Any = {}
    if isinstance(obj.get("predictions"), dict):
        extra = sorted(set(obj) - {"predictions", "metadata"})
        if extra:
            raise PredictionError(f"unexpected top-level keys {', '.join(map(show, extra))} "
                                  "next to 'predictions' (only 'metadata' may go with it)",
                                  file=file)
        metadata = obj.get("metadata", {})
        if not isinstance(metadata, dict):
            raise PredictionError(f"'metadata' must be a JSON object, found "
                                  f"{describe(metadata)}", file=file)
        obj = obj["predictions"]
        if not obj:
            raise PredictionError("no predictions: 'predictions' is an empty object", file=file)
    _check_top_level_duplicates(data, list(obj), file)
    seen: dict[str, str] = {}
    dialogues: dict[str, list[PredTurn]] = {}
    turn = reader.turn
    for dialogue, turns in obj.items():
        check_name_length(dialogue, file)
        check_same_dialogue(seen, dialogue, file)
        if type(turns) is not list:
            raise PredictionError(f"expected a list of turns, found {describe(turns)}",
                                  file=file, dialogue=dialogue)
        dialogues[dialogue] = [turn(t, dialogue, i) for i, t in enumerate(turns)]
    return PredictionSet(file, "mwzeval", dialogues, reader.issues,
                         MappingProxyType(metadata))
