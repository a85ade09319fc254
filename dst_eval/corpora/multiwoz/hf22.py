"""MultiWOZ 2.2 as the Hugging Face ``multi_woz_v22`` export writes it: columnar turns and
frames converted into the native dialogue layout that :mod:`.loader22` builds gold from.
"""

from __future__ import annotations

from typing import Any

from dst_eval.errors import GoldDataError

_HF_SPEAKERS = {0: "USER", 1: "SYSTEM", "0": "USER", "1": "SYSTEM"}


def _column(mapping: dict, key: str, length: int | None, where: dict) -> list:
    values = mapping.get(key)
    if not isinstance(values, list) or (length is not None and len(values) != length):
        expected = "a list" if length is None else f"a list of {length}"
        raise GoldDataError(f"Hugging Face layout: {key!r} must be {expected}", **where)
    return values


def _hf_slots(columns: Any, where: dict) -> list[dict]:
    """The columnar ``slots`` of one HF frame as native span dicts (span ends put in order)."""
    if isinstance(columns, list):  # already row-wise
        return columns
    if not isinstance(columns, dict):
        raise GoldDataError("Hugging Face layout: frame 'slots' must be an object", **where)
    names = _column(columns, "slot", None, where)
    n = len(names)
    values = columns.get("value") or [""] * n
    starts = columns.get("start") or [-1] * n
    ends = columns.get("exclusive_end") or [-1] * n
    copy_from = columns.get("copy_from") or [""] * n
    copy_values = columns.get("copy_from_value") or [[] for _ in range(n)]
    if not all(isinstance(c, list) and len(c) == n
               for c in (values, starts, ends, copy_from, copy_values)):
        raise GoldDataError("Hugging Face layout: frame 'slots' columns differ in length", **where)
    rows: list[dict] = []
    for j, name in enumerate(names):
        if copy_from[j]:
            rows.append({"slot": name, "copy_from": copy_from[j], "value": copy_values[j]})
            continue
        row: dict = {"slot": name, "value": values[j]}
        a, b = starts[j], ends[j]
        if isinstance(a, int) and isinstance(b, int) and a >= 0 and b >= 0:
            row["start"], row["exclusive_end"] = min(a, b), max(a, b)
        rows.append(row)
    return rows


def _hf_state(state: Any, where: dict) -> dict:
    if not isinstance(state, dict):
        raise GoldDataError("Hugging Face layout: frame state must be an object", **where)
    columns = state.get("slots_values") or {}
    if not isinstance(columns, dict):
        raise GoldDataError("Hugging Face layout: 'slots_values' must be an object", **where)
    names = _column(columns, "slots_values_name", None, where) if columns else []
    lists = _column(columns, "slots_values_list", len(names), where) if columns else []
    if len(set(names)) != len(names):
        raise GoldDataError("Hugging Face layout: a slot is named twice in 'slots_values'", **where)
    return {
        "active_intent": state.get("active_intent", "NONE"),
        "requested_slots": state.get("requested_slots", []),
        "slot_values": dict(zip(names, lists, strict=True)),
    }


def _hf_frame_row(frame: Any, where: dict) -> Any:
    """A row-wise frame whose state or slots are still in HF columnar form."""
    if not isinstance(frame, dict):
        return frame
    state = frame.get("state")
    if isinstance(state, dict) and "slots_values" in state:
        frame = {**frame, "state": _hf_state(state, where)}
    if isinstance(frame.get("slots"), dict):
        frame = {**frame, "slots": _hf_slots(frame["slots"], where)}
    return frame


def _hf_frames(columns: Any, where: dict) -> list[dict]:
    if isinstance(columns, list):  # row-wise frames
        return [_hf_frame_row(frame, where) for frame in columns]
    if not isinstance(columns, dict):
        raise GoldDataError("Hugging Face layout: a turn's frames must be an object", **where)
    services = _column(columns, "service", None, where)
    states = _column(columns, "state", len(services), where)
    slots = columns.get("slots") or [[] for _ in services]
    if not isinstance(slots, list) or len(slots) != len(services):
        raise GoldDataError(
            f"Hugging Face layout: 'slots' must be a list of {len(services)}", **where
        )
    return [
        {"service": service, "state": _hf_state(state, where), "slots": _hf_slots(spans, where)}
        for service, state, spans in zip(services, states, slots, strict=True)
    ]


def from_hf(record: dict, file: str) -> dict:
    """Rewrite one HF record as a native dialogue (system frames are not needed and dropped)."""
    dialogue_id = record.get("dialogue_id")
    where: dict = {"file": file, "dialogue": dialogue_id if isinstance(dialogue_id, str) else None}
    turns = record["turns"]
    utterances = _column(turns, "utterance", None, where)
    n = len(utterances)
    speakers = _column(turns, "speaker", n, where)
    turn_ids = turns.get("turn_id") or [str(i) for i in range(n)]
    frames = _column(turns, "frames", n, where)
    native_turns: list[dict] = []
    saw_user_frame = saw_inactive = False
    for i in range(n):
        speaker = _HF_SPEAKERS.get(speakers[i], speakers[i])
        turn: dict = {"turn_id": turn_ids[i], "speaker": speaker, "utterance": utterances[i],
                      "frames": []}
        if speaker == "USER":
            turn["frames"] = _hf_frames(frames[i], {**where, "turn": i})
            for frame in turn["frames"]:
                saw_user_frame = True
                state = frame.get("state") if isinstance(frame, dict) else None
                saw_inactive |= isinstance(state, dict) and state.get("active_intent") == "NONE"
        native_turns.append(turn)
    if saw_user_frame and not saw_inactive:
        raise GoldDataError(
            "Hugging Face 'v2.2_active_only' layout: frames without an active intent were dropped "
            "together with the state they carry over; export the 'v2.2' configuration instead",
            **where,
        )
    return {
        "dialogue_id": dialogue_id, "services": record.get("services", []), "turns": native_turns
    }


# ------------------------------------------------------------------------------- native parsing
