"""Duplicate object keys in SGD-style prediction files (a JSON parser keeps the last one);
the systems' own output formats are refused by :func:`dst_eval.jsonio.refuse_duplicate_keys`
(:mod:`dst_eval.predictions.reader`).

The typed decoder of :mod:`~dst_eval.predictions.sgd_frames` skips every field it does
not read, so the generic count of :func:`dst_eval.jsonio.may_have_duplicate_keys` is not
available. The cheap check here counts in the raw bytes the ``slot_values`` objects and
the quotes inside them (two per key and per value), and the ``active_intent`` and
``requested_slots`` keys, and compares them with what was decoded: a key written more
often than decoded may have been merged (a repeated ``dialogue_id``, ``turns``,
``frames`` or ``state`` key drops ``slot_values`` objects, so it is caught too; a
``slot_values`` field name spelled with ``\\uXXXX`` escapes is not counted, a slot name
inside it is). Only then, or for a ``{dialogue_id: dialogue}`` document (its top-level
keys are ids), is the file parsed again to locate every duplicate exactly
(:func:`dst_eval.jsonio.find_duplicate_keys`). Each one is counted as Issue
``duplicate_key`` (an error under ``--strict``) at its dialogue and user turn, except a
repeated top-level id, which would lose a dialogue: :class:`PredictionError` (exit 3).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from typing import Any

from dst_eval.errors import PredictionError
from dst_eval.jsonio import find_duplicate_keys

_NAMES = (b'"active_intent"', b'"requested_slots"')


def _raw_slot_values(data: bytes) -> tuple[int, int]:
    """``(slot_values objects, quotes inside them)`` written in ``data``: every key and
    every string value brings two quotes, whatever the whitespace (escaped quotes are not
    counted). Each object's text is taken up to its first ``}``: a ``}`` inside a string
    cuts it inside that string, where it holds an odd number of quotes; then, or when an
    escaped backslash (``\\\\``) could make a closing quote look escaped (four values
    ending in one made up for a repeated key and its value), the count is -1, which sends
    the file to the exact check."""
    chunks = data.split(b'"slot_values"')
    # each object's text up to its first "}"; the counts over all of them joined, and per
    # object only for the parity (no escape spans two texts: in valid JSON a text never
    # starts with a quote)
    texts = [chunk[:chunk.find(b"}")] for chunk in chunks[1:]]
    inside = b"".join(texts)
    if b"\\\\" in inside:
        return len(chunks) - 1, -1
    quotes = list(map(bytes.count, texts, repeat(b'"')))
    escaped = inside.count(b'\\"')
    if escaped:  # rare: per object
        quotes = [n - e for n, e in zip(quotes, map(bytes.count, texts, repeat(b'\\"')),
                                          strict=True)]
    if any(map((1).__and__, quotes)):  # a cut inside a string: the objects were not all counted
        return len(chunks) - 1, -1
    return len(chunks) - 1, sum(quotes)


class DecodedKeys:
    """What the reader decoded, counted as it builds the turns: ``slot_values`` objects
    (one per user frame), the keys and values in them, and the frames without an active
    intent or a requested-slot list (rare: counting those, not the others, spares the
    reader a method call per frame; SGD dev's 26,077 frames: 0.7 ms, against 3.1 ms)."""

    def __init__(self) -> None:
        self.objects = self.strings = self.missing_intents = self.missing_requested = 0


def may_repeat_keys(data: bytes, decoded: DecodedKeys) -> bool:
    """False only when no key the reader uses can have been given twice in ``data``."""
    if _raw_slot_values(data) != (decoded.objects, 2 * decoded.strings):
        return True
    return (data.count(_NAMES[0]) > decoded.objects - decoded.missing_intents
            or data.count(_NAMES[1]) > decoded.objects - decoded.missing_requested)


def report_duplicate_keys(data: bytes, document: Any,
                          add: Callable[[str, str | None, int | None, str], None],
                          file: str) -> None:
    """Call ``add("duplicate_key", dialogue, user turn, detail)`` for each duplicate key; a
    dialogue id given twice in a ``{dialogue_id: dialogue}`` document raises
    :class:`PredictionError` (a dialogue would be lost)."""
    for path, key, count in find_duplicate_keys(data):
        if not path and isinstance(document, dict):
            raise PredictionError(f"dialogue id {key!r} is given {count} times; a JSON object "
                                  "keeps only the last one, so the others would be lost "
                                  "silently", file=file, dialogue=key)
        dialogue = turn = None
        if path and isinstance(document, dict):
            dialogue, record = str(path[0]), document.get(str(path[0]))
        elif path and type(path[0]) is int and path[0] < len(document):
            record = document[path[0]]
            dialogue = record.dialogue_id if isinstance(record.dialogue_id, str) else None
        else:
            record = None
        if (record is not None and len(path) > 2 and path[1] == "turns"
                and type(path[2]) is int and record.turns is not None):
            turn = sum(1 for t in record.turns[:path[2]] if t.speaker == "USER")
        where = ".".join(map(str, path)) or "the top-level object"
        add("duplicate_key", dialogue, turn, f"key {key!r} given {count} times in {where}")
