"""Value problems of an SGD-style prediction set, counted per kind over all its files.

One Issue per kind for the whole set (``hedged_value``: "10,345 slots with several
predicted values in 6,755 turns of 1,596 dialogues; first: ..."), at the first place it
occurs: the counts are the set's, whatever the files it is split into. Turns and
dialogues are counted as the reader meets them (a turn's problems come together), in
constant memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from dst_eval.metrics.sgd_frame import WRITTEN_NULL
from dst_eval.predictions.model import Issue

VALUE_ISSUES = {
    "non_list_value": "slot values given as a string instead of a list (read as one value; "
                      "sgd-official reads its first character, as the official scorer does)",
    "empty_value_list": "slot values given as an empty list (read as no value; under "
                        "sgd-official a predicted slot, and where the gold has the slot the "
                        "official scorer crashes)",
    "hedged_value": "slots with several predicted values (the first is used, as the "
                    "official scorer does)",
    "non_string_value": "non-string slot values (read as their str(); sgd-official compares "
                        "them as written, as the official scorer does)",
    "span_without_position": "slot spans without start/exclusive_end (left out)",
    "missing_intent": "user frames without state.active_intent (left out of intent "
                      "accuracy)",
    "missing_requested_slots": "user frames without state.requested_slots (left out of "
                               "requested-slot scores)",
    "null_intent": "user frames with state.active_intent null (left out of intent accuracy; "
                   "sgd-official scores it as a wrong intent, as the official scorer does)",
    "null_requested_slots": "user frames with state.requested_slots null (left out of "
                            "requested-slot scores; sgd-official reads none, as the official "
                            "scorer does)",
    "duplicate_key": "object keys given more than once (the last value is read)",
    "conflicting_frames": "slots with different values in two frames of one service in one "
                          "turn (the later frame's is used, as the official scorer reads "
                          "a service's last frame)",
}


class ValueTally:
    """Counts value problems per kind; :attr:`file` is the file being read."""

    def __init__(self) -> None:
        self.file: str | None = None
        # kind -> [count, turns, dialogues, last turn, last dialogue, last file]
        self._counts: dict[str, list] = {}
        self._first: dict[str, tuple[str | None, str | None, int | None, str]] = {}

    def frame(self, problems: Iterable[tuple[str, str]], intent: Any, requested: Any,
              service: str, dialogue: str, turn: int) -> None:
        """Count a user frame's value ``problems`` (``(kind, detail)``) and its intent and
        requested slots when they are missing (None) or written as null (WRITTEN_NULL)."""
        where = f"service {service!r}"
        if intent is None or intent is WRITTEN_NULL:
            self.add("missing_intent" if intent is None else "null_intent", dialogue, turn,
                     where)
        if requested is None or requested is WRITTEN_NULL:
            self.add("missing_requested_slots" if requested is None
                     else "null_requested_slots", dialogue, turn, where)
        for kind, detail in problems:
            self.add(kind, dialogue, turn, detail)

    def add(self, kind: str, dialogue: str | None, turn: int | None,
            detail: str | Callable[[], str]) -> None:
        """Count one problem; ``detail`` (or what it returns, called only for the first
        of its kind: a reader that meets a problem thousands of times formats it once)
        describes it."""
        counts = self._counts.get(kind)
        if counts is None:
            counts = self._counts[kind] = [0, 0, 0, None, None, None]
            self._first[kind] = (self.file, dialogue, turn,
                                 detail if isinstance(detail, str) else detail())
        counts[0] += 1
        if counts[4] is not dialogue or counts[5] is not self.file:  # a dialogue's problems
            counts[2] += 1                                           # come together
            counts[3], counts[4], counts[5] = None, dialogue, self.file
        if counts[3] != turn:
            counts[1] += 1
            counts[3] = turn

    def add_conflicts(self, frames: Iterable[tuple[Any, Mapping[str, str]]],
                      dialogue: str, turn: int) -> None:
        """Count ``conflicting_frames`` for each slot that two of a turn's ``(frame, flat
        state)`` pairs (frames of one service) give different values: the later frame's
        is the turn's, as the official scorer reads the last frame of a service."""
        seen: dict[str, str] = {}
        for frame, flat in frames:
            for key, value in flat.items():
                if key in seen and seen[key] != value:
                    self.add("conflicting_frames", dialogue, turn,
                             f"slot {key!r}: {seen[key]!r} in one frame of service "
                             f"{frame.service!r}, {value!r} in a later one")
                seen[key] = value

    def issues(self) -> list[Issue]:
        out = []
        for kind, (count, turns, dialogues, *_) in self._counts.items():
            file, dialogue, turn, detail = self._first[kind]
            where = (f" in {turns:,} turn{'s' * (turns != 1)} of {dialogues:,} "
                     f"dialogue{'s' * (dialogues != 1)}" if dialogue is not None else "")
            out.append(Issue(kind, f"{count:,} {VALUE_ISSUES[kind]}{where}; first: {detail}",
                             file=file, dialogue=dialogue, turn=turn))
        return out
