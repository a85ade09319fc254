"""Typed records of the SGD gold files: only the fields scoring needs.

:mod:`msgspec` decodes a gold file straight into these records, skipping everything else
(``actions``, ``service_call``, ``service_results`` -- most of the bytes); values arrive as
tuples, ready to be shared by the gold objects. The records are not tracked by the cyclic
garbage collector (``gc=False``: they hold no cycles).

Native layout (``dialogues_*.json``)::

    [{"dialogue_id": str, "services": [str], "turns": [
        {"speaker": "USER" | "SYSTEM", "utterance": str, "frames": [
            {"service": str,
             "slots": [{"slot": str, "start": int, "exclusive_end": int}],
             "state": {"active_intent": str, "requested_slots": [str],
                       "slot_values": {slot: [value, ...]}}}]}]}]

``state`` exists on USER frames only; a span without ``start`` (MultiWOZ 2.2
``copy_from``) carries no position. A native file is decoded into :class:`FileDialogue`
records whose turns keep ``frames`` as JSON text: the builder decodes USER frames only
(:data:`FRAMES`), so system frames are skipped (about a fifth of the loading time).
Which USER-turn fields must be present is checked by the builder (:mod:`.build`), which
knows the speaker.

Hugging Face ``schema_guided_dstc8`` export: the same content with columnar ``turns``
(``{"speaker": [0 | 1], "utterance": [...], "frames": [...]}``), columnar ``frames``,
``slots`` and ``slot_values`` (``{"slot_name": [...], "slot_value_list": [[...]]}``)
-- :func:`hf_to_native`.

Schema (``schema.json``): ``[{"service_name", "slots": [{"name", "is_categorical"}],
"intents": [{"name"}]}]``, or with columnar ``slots``/``intents`` (HF ``schema`` config).
"""

from __future__ import annotations

import msgspec
from msgspec import Struct

# --------------------------------------------------------------------------- native dialogues


class Span(Struct, gc=False):
    slot: str
    start: int | None = None
    exclusive_end: int | None = None


class State(Struct, gc=False):
    active_intent: str
    requested_slots: tuple[str, ...]
    slot_values: dict[str, tuple[str, ...]]


class Frame(Struct, gc=False):
    service: str | None = None
    slots: tuple[Span, ...] | None = None
    state: State | None = None


class Turn(Struct, gc=False):
    speaker: str
    utterance: str | None = None
    frames: tuple[Frame, ...] | None = None


class Dialogue(Struct, gc=False):
    dialogue_id: str
    turns: tuple[Turn, ...]
    services: tuple[str, ...] = ()


NO_FRAMES = msgspec.Raw(b"null")


class FileTurn(Struct, gc=False):
    """A turn as a native file is first decoded: ``frames`` stays JSON text until the builder
    knows the speaker, so system frames (actions, service calls and results, spans) are
    skipped, never built."""

    speaker: str
    utterance: str | None = None
    frames: msgspec.Raw = NO_FRAMES


class FileDialogue(Struct, gc=False):
    dialogue_id: str
    turns: tuple[FileTurn, ...]
    services: tuple[str, ...] = ()


DIALOGUES = msgspec.json.Decoder(list[FileDialogue])
"""Decoder of a native gold file (:class:`FileDialogue` records)."""

FRAMES = msgspec.json.Decoder(tuple[Frame, ...] | None)
"""Decoder of one USER turn's ``frames`` (:attr:`FileTurn.frames`)."""

# --------------------------------------------------------------------------- Hugging Face


class HFSpans(Struct, gc=False):
    slot: list[str] = []
    start: list[int] = []
    exclusive_end: list[int] = []


class HFSlotValues(Struct, gc=False):
    slot_name: list[str] = []
    slot_value_list: list[tuple[str, ...]] = []


class HFState(Struct, gc=False):
    active_intent: str
    requested_slots: tuple[str, ...]
    slot_values: HFSlotValues | None = None


class HFFrames(Struct, gc=False):
    service: list[str] = []
    slots: list[HFSpans | None] = []
    state: list[HFState | None] = []


class HFTurns(Struct, gc=False):
    speaker: list[int | str]
    utterance: list[str]
    frames: list[HFFrames]


class HFDialogue(Struct, gc=False):
    dialogue_id: str
    turns: HFTurns
    services: tuple[str, ...] = ()


def _same_lengths(what: str, *columns: list) -> None:
    if len({len(column) for column in columns}) > 1:
        raise ValueError(f"{what} columns have different lengths")


def _hf_frame(frames: HFFrames, i: int, user: bool) -> Frame:
    spans = frames.slots[i]
    slots = None
    if spans is not None:
        _same_lengths("slots", spans.slot, spans.start, spans.exclusive_end)
        rows = zip(spans.slot, spans.start, spans.exclusive_end, strict=True)
        slots = tuple(Span(*row) for row in rows)
    state = frames.state[i]
    native_state = None
    if user and state is not None:
        values = state.slot_values or HFSlotValues()
        _same_lengths("slot_values", values.slot_name, values.slot_value_list)
        native_state = State(state.active_intent, state.requested_slots,
                             dict(zip(values.slot_name, values.slot_value_list, strict=True)))
    return Frame(frames.service[i], slots, native_state)


def hf_to_native(record: HFDialogue) -> Dialogue:
    """A Hugging Face record -> the native record (speaker 0/1 -> ``USER``/``SYSTEM``);
    ValueError when columns of one table differ in length."""
    turns = record.turns
    _same_lengths("turns", turns.speaker, turns.utterance, turns.frames)
    native = []
    rows = zip(turns.speaker, turns.utterance, turns.frames, strict=True)
    for speaker, utterance, frames in rows:
        name = ("USER" if speaker in (0, "USER") else "SYSTEM" if speaker in (1, "SYSTEM")
                else str(speaker))
        _same_lengths("frames", frames.service, frames.slots, frames.state)
        native.append(Turn(name, utterance, tuple(
            _hf_frame(frames, i, name == "USER") for i in range(len(frames.service)))))
    return Dialogue(record.dialogue_id, tuple(native), record.services)


# --------------------------------------------------------------------------- schema


class SchemaSlot(Struct, gc=False):
    name: str
    is_categorical: bool = False


class SchemaSlotColumns(Struct, gc=False):
    name: list[str]
    is_categorical: list[bool]


class SchemaIntent(Struct, gc=False):
    name: str


class SchemaIntentColumns(Struct, gc=False):
    name: list[str]


class SchemaService(Struct, gc=False):
    service_name: str
    slots: list[SchemaSlot] | SchemaSlotColumns
    intents: list[SchemaIntent] | SchemaIntentColumns = []

    def slot_rows(self) -> list[SchemaSlot]:
        slots = self.slots
        if isinstance(slots, SchemaSlotColumns):
            _same_lengths("slots", slots.name, slots.is_categorical)
            return [SchemaSlot(*row) for row in zip(slots.name, slots.is_categorical, strict=True)]
        return slots

    def intent_names(self) -> tuple[str, ...]:
        intents = self.intents
        if isinstance(intents, SchemaIntentColumns):
            return tuple(intents.name)
        return tuple(intent.name for intent in intents)


SCHEMA = msgspec.json.Decoder(list[SchemaService])
