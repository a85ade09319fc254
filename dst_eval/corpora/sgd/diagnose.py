"""Say exactly what is wrong with a gold file that the typed decoder rejected.

The typed decoder (:mod:`.records`) names a JSON path (``$[3].turns[0].frames[0]``); a user
needs the dialogue id, the turn and the slot. :func:`diagnose_dialogue` walks a generically parsed
record with the same rules and raises :class:`GoldDataError` at the first violation;
:func:`located` turns a decoder message that the walk did not explain into an error
located by the path's dialogue and turn. Only ever called on malformed input.
"""

from __future__ import annotations

import re
from typing import Any

from dst_eval.errors import GoldDataError

_PATH = re.compile(r"at `\$\[(\d+)\](?:\.turns\[(\d+)\])?")


def _strings(values: Any, what: str) -> None:
    if type(values) is not list:
        raise TypeError(f"{what} is not a list")
    for value in values:
        if type(value) is not str:
            raise TypeError(f"{what} holds a non-string value {value!r}")


def _frame(frame: Any) -> None:
    if not isinstance(frame, dict):
        raise TypeError("a frame is not an object")
    if type(frame["service"]) is not str:
        raise TypeError("'service' must be a string")
    state = frame["state"]
    if not isinstance(state, dict) or type(state["active_intent"]) is not str:
        raise TypeError("'state' must be an object with a string 'active_intent'")
    _strings(state["requested_slots"], "'requested_slots'")
    slot_values = state["slot_values"]
    if not isinstance(slot_values, dict):
        raise TypeError("'slot_values' is not an object")
    for slot, values in slot_values.items():
        _strings(values, f"slot {slot!r}")
    for span in frame.get("slots") or ():
        if not isinstance(span, dict):
            raise TypeError(f"malformed slot span {span!r}")
        if "start" in span and (type(span["slot"]) is not str or type(span["start"]) is not int
                                or type(span["exclusive_end"]) is not int):
            raise TypeError(f"malformed slot span {span!r}")


def _turn(turn: Any) -> None:
    if not isinstance(turn, dict):
        raise TypeError("a turn is not an object")
    speaker = turn["speaker"]
    if speaker != "USER":
        if speaker != "SYSTEM":
            raise ValueError(f"speaker {speaker!r} is neither USER nor SYSTEM")
        return
    if type(turn["utterance"]) is not str:
        raise TypeError("'utterance' is not a string")
    diagnose_frames(turn["frames"])


def diagnose_frames(frames: Any) -> None:
    """Raise TypeError, KeyError or ValueError at the first violation in one USER turn's
    generically parsed ``frames``."""
    if type(frames) is not list:
        raise TypeError("'frames' is not a list")
    for frame in frames:
        _frame(frame)


def diagnose_dialogue(dialogue: Any, file: str) -> None:
    """Raise :class:`GoldDataError` at the first violation in one generically parsed native
    dialogue; return when none is found."""
    if not isinstance(dialogue, dict):
        raise GoldDataError("a dialogue is not a JSON object", file=file)
    dialogue_id = dialogue.get("dialogue_id")
    if not isinstance(dialogue_id, str):
        raise GoldDataError("dialogue without a string 'dialogue_id'", file=file)
    turns = dialogue.get("turns")
    if not isinstance(turns, list):
        raise GoldDataError("dialogue without a 'turns' list", file=file, dialogue=dialogue_id)
    services = dialogue.get("services", [])
    if not isinstance(services, list) or not all(type(s) is str for s in services):
        raise GoldDataError("'services' is not a list of strings", file=file,
                            dialogue=dialogue_id)
    for raw_index, turn in enumerate(turns):
        try:
            _turn(turn)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise GoldDataError(f"malformed turn: {describe(exc)}", file=file,
                                dialogue=dialogue_id, turn=raw_index) from None


def describe(exc: Exception) -> str:
    return f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)


def located(message: str, records: Any, file: str) -> GoldDataError:
    """A :class:`GoldDataError` for a typed-decoder ``message``, placed at the dialogue and
    turn its JSON path names (when ``records`` lets us find the dialogue's id)."""
    match = _PATH.search(message)
    dialogue = turn = None
    if match:
        index = int(match.group(1))
        if isinstance(records, list) and index < len(records) and isinstance(
                records[index], dict):
            found = records[index].get("dialogue_id")
            dialogue = found if isinstance(found, str) else None
        turn = int(match.group(2)) if match.group(2) is not None else None
    return GoldDataError(f"malformed gold data: {message}", file=file, dialogue=dialogue,
                         turn=turn)
