"""What every prediction reader shares: size limits, short value descriptions for
messages, and the dialogue-id checks.

Nothing here looks at what a slot value means: readers parse and locate, profiles
decide (see :mod:`dst_eval.normalize`).
"""

from __future__ import annotations

import reprlib
from typing import Any

from dst_eval.errors import PredictionError, UsageError
from dst_eval.gold import dialogue_key

FORMATS = ("mwzeval", "jsonl", "sgd", "trade", "somdst", "trippy", "simpletod", "icdst", "ldst",
           "convlab", "jmultiwoz-inference")
POSITIONAL_TURN_FORMATS = frozenset({"mwzeval", "simpletod", "sgd"})
"""Formats that number a dialogue's turns by their position (a list of turns; SGD-style
files: the USER turns in order), not by an index written with each: a turn left out
anywhere shifts the turns after it (:mod:`dst_eval.alignment` says so)."""
MAX_VALUE_CHARS = 10_000
"""Longest accepted predicted value (longer ones make fuzzy matching pathological)."""
MAX_RESPONSE_CHARS = 10_000
"""Longest accepted predicted response (BLEU's tokenisation takes longer than linear time
on long text: jieba on 80,000 characters of Chinese, 16 s)."""
MAX_TURN_INDEX = 10_000
"""Largest accepted JSONL ``turn_index`` (gaps are filled, so it bounds memory)."""
GAP_BUDGET = 100
"""Turns without a record a file may leave per record it gives (at least
:data:`MIN_GAP_BUDGET` in all): gaps are filled, so this bounds the memory of a file by its
size (700 records at ``turn_index`` 10,000 would be 7 million turns)."""
MIN_GAP_BUDGET = 10_000
MAX_NAME_CHARS = 1_000
"""Longest accepted dialogue id, domain or slot name (they appear in every message)."""

_KIND_NAMES = {bool: "boolean", dict: "JSON object", list: "list", str: "string",
               int: "number", float: "number", type(None): "null"}


def describe(obj: Any) -> str:
    """Describe a JSON value's type for an error message (``a list of numbers``)."""
    name = _KIND_NAMES.get(type(obj), type(obj).__name__)
    if type(obj) is list:
        if not obj:
            return "an empty list"
        inner = {_KIND_NAMES.get(type(x), type(x).__name__) for x in obj[:20]}
        return "a list of " + (inner.pop() + "s" if len(inner) == 1 else "mixed values")
    if name == "null":
        return name
    return ("an " if name[0] in "aeiou" else "a ") + name


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict = 2, 4, 4
_REPR.maxstring = _REPR.maxother = 60


def show(value: Any, limit: int = 60) -> str:
    """A short repr for messages: bounded in depth and length, whatever ``value`` holds."""
    text = _REPR.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def sgd_frames_module():  # the SGD frame reader lives in its own module, imported on demand
    try:
        from dst_eval.predictions import sgd_frames
    except ImportError as exc:
        raise UsageError("SGD-style prediction files are not supported by this version") from exc
    return sgd_frames


def looks_like_sgd(obj: Any) -> bool:
    """True when ``obj`` is shaped like SGD dialogues with frames."""
    try:
        return bool(sgd_frames_module().looks_like_sgd_frames(obj))
    except UsageError:
        return False


def check_name_length(dialogue: str, file: str) -> None:
    if len(dialogue) > MAX_NAME_CHARS:
        raise PredictionError(f"dialogue id {show(dialogue)} of {len(dialogue):,} characters "
                              f"exceeds the {MAX_NAME_CHARS:,}-character limit", file=file)


def check_same_dialogue(seen: dict[str, str], dialogue: str, file: str, where: str = "") -> None:
    """Fail when ``dialogue`` and an id seen before differ only by case or ``.json``."""
    key = dialogue_key(dialogue)
    other = seen.setdefault(key, dialogue)
    if other != dialogue:
        raise PredictionError(
            f"dialogue ids {show(other)} and {show(dialogue)}{where} name the same dialogue "
            "(ids match case-insensitively, with or without .json)", file=file, dialogue=dialogue)


def check_gap_budget(lengths: list[int], records: int, file: str) -> None:
    """Refuse (exit 3) a file whose dialogues, filled up to their largest turn index
    (``lengths``), would hold more than :data:`GAP_BUDGET` turns without a record per
    record given: a turn-index bomb, not predictions (checked before any gap is filled)."""
    gaps = sum(lengths) - records
    allowed = max(MIN_GAP_BUDGET, GAP_BUDGET * records)
    if gaps > allowed:
        raise PredictionError(
            f"turn indexes leave {gaps:,} turns without a record for {records:,} records (at "
            f"most {allowed:,}: {GAP_BUDGET} per record); are the turn indexes right?",
            file=file)


def check_response_length(response: Any, error: Any, dialogue: str, turn: int) -> None:
    """Raise ``error(message, dialogue, turn)`` for a response over
    :data:`MAX_RESPONSE_CHARS` characters."""
    if type(response) is str and len(response) > MAX_RESPONSE_CHARS:
        raise error(f"response of {len(response):,} characters exceeds the "
                    f"{MAX_RESPONSE_CHARS:,}-character limit", dialogue, turn)
