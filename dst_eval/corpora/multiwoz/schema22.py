"""MultiWOZ 2.2 gold against its ``schema.json``: every frame's service must be a service
of the schema (when one is found), as in the SGD loader; a frame of a service the schema
lacks has no slot list, categorical split or intents to be scored by."""

from __future__ import annotations

from collections.abc import Mapping

from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldDialogue, ServiceSchema


def check_services(dialogue: GoldDialogue, file: str, schema: Mapping[str, ServiceSchema],
                   schema_file: str) -> None:
    """Raise :class:`GoldDataError` naming ``file``, the dialogue, the turn and the service
    for the first frame whose service ``schema`` (read from ``schema_file``) does not hold;
    an empty ``schema`` (none found) checks nothing."""
    if not schema:
        return
    for turn in dialogue.turns:
        for frame in turn.frames:
            if frame.service not in schema:
                raise GoldDataError(f"service {frame.service!r} is not in the schema "
                                    f"({schema_file})", file=file,
                                    dialogue=dialogue.dialogue_id, turn=turn.raw_turn_index)
