"""SGD slot keys: the one place ``(service, slot)`` becomes ``"<service>-<slot>"``."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from dst_eval.gold import frame_slot_key


@lru_cache(maxsize=1 << 16)
def flat_slot_key(service: str, slot: str) -> str:
    """``"<service>-<slot>"``; a slot already named ``"<service>-..."`` (MultiWOZ 2.2) is kept.

    Cached: the same few hundred ``(service, slot)`` pairs recur in every frame, and every
    state then shares one key string per slot.
    """
    if slot.startswith(service) and slot[len(service):len(service) + 1] == "-":
        return slot
    return f"{service}-{slot}"


class SlotKeys(dict):
    """``{slot: "<service>-<slot>"}`` of one service (:func:`flat_slot_key`), filled on first
    use (gold and SGD-style predictions build their keys alike). ``prefixed``: the names
    seen that carry the service prefix already (MultiWOZ 2.2 style), whose frame key
    (:func:`~dst_eval.gold.frame_slot_key`) is not their state key."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service
        self.prefixed: set[str] = set()

    def __missing__(self, slot: str) -> str:
        key = self[slot] = flat_slot_key(self.service, slot)
        if key == slot:
            self.prefixed.add(slot)
        return key

    def frame_and_state(self, values: Mapping[str, Any]) -> tuple[Mapping, Mapping]:
        """``(frame slot_values, state)`` of one frame's ``{slot: value}`` (``values`` in
        their order): one read-only mapping for both when no name carries the prefix
        (SGD), else the frame's keyed :func:`~dst_eval.gold.frame_slot_key` and the state's
        :func:`flat_slot_key` (a prefixed spelling and a plain one of a slot give one state
        key: the later value is kept)."""
        state = MappingProxyType({self[slot]: value for slot, value in values.items()})
        if self.prefixed.isdisjoint(values):
            return state, state
        service = self.service
        frame = MappingProxyType({frame_slot_key(service, slot): value
                                  for slot, value in values.items()})
        return frame, state
