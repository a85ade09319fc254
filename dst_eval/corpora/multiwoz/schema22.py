"""MultiWOZ 2.2 gold against its ``schema.json``: every frame's service must be a service
of the schema (when one is found), as in the SGD loader; a frame of a service the schema
lacks has no slot list, categorical split or intents to be scored by. The schema's services,
or without a schema the frames', must be MultiWOZ 2.2's (:data:`SERVICES`): SGD gold read
as MultiWOZ 2.2 (``--corpus multiwoz22``) is refused, not scored against slot names it
does not have."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldDialogue, ServiceSchema, frame_slot_key

SERVICES = frozenset(
    {"attraction", "bus", "hospital", "hotel", "police", "restaurant", "taxi", "train"}
)
"""The services of MultiWOZ 2.2."""


def check_schema(schema: Mapping[str, ServiceSchema], schema_file: str) -> None:
    """Raise :class:`GoldDataError` naming ``schema_file`` when ``schema`` has a service
    MultiWOZ 2.2 does not have."""
    foreign = sorted(set(schema) - SERVICES)
    if foreign:
        raise GoldDataError(f"not a MultiWOZ 2.2 schema: service(s) {', '.join(foreign[:3])}"
                            f"{', ...' if len(foreign) > 3 else ''} (MultiWOZ 2.2 has "
                            f"{', '.join(sorted(SERVICES))}); is this gold another corpus?",
                            file=schema_file)


def check_services(dialogue: GoldDialogue, file: str, schema: Mapping[str, ServiceSchema],
                   schema_file: str) -> None:
    """Raise :class:`GoldDataError` naming ``file``, the dialogue, the turn and the service
    for the first frame whose service ``schema`` (read from ``schema_file``) does not hold,
    or, with an empty ``schema`` (none found), that MultiWOZ 2.2 does not have; and, with a
    schema, for a slot (of ``slot_values`` or ``requested_slots``) its service does not
    declare, spelled exactly, as in the SGD loader: an edited name (a trailing space, a
    homoglyph) would make every turn wrong without a word."""
    known = schema or SERVICES
    checked: set[int] = set()  # cumulative states repeat: each mapping is checked once
    for turn in dialogue.turns:
        for frame in turn.frames:
            if frame.service not in known:
                where = f"the schema ({schema_file})" if schema else "MultiWOZ 2.2"
                raise GoldDataError(f"service {frame.service!r} is not in {where}", file=file,
                                    dialogue=dialogue.dialogue_id, turn=turn.raw_turn_index)
            if not schema:
                continue
            keys = _frame_keys(frame.service, schema[frame.service].slots)
            unknown = [s for s in frame.requested_slots or () if s not in keys.values()]
            if id(frame.slot_values) not in checked:
                checked.add(id(frame.slot_values))
                unknown += [k.removeprefix(f"{frame.service}-") for k in frame.slot_values
                            if k not in keys]
            if unknown:
                raise GoldDataError(f"slot {unknown[0]!r} is not in the schema of service "
                                    f"{frame.service!r} ({schema_file})", file=file,
                                    dialogue=dialogue.dialogue_id, turn=turn.raw_turn_index)


@cache
def _frame_keys(service: str, declared: tuple[str, ...]) -> dict[str, str]:
    """``{frame slot key: slot}`` of a service's declared slots."""
    return {frame_slot_key(service, slot): slot for slot in declared}
