"""SGD slot keys: the one place ``(service, slot)`` becomes ``"<service>-<slot>"``."""

from __future__ import annotations

from functools import lru_cache


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
    """``{slot: "<service>-<slot>"}`` of one service, filled on first use (gold and
    SGD-style predictions build their keys alike)."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def __missing__(self, slot: str) -> str:
        key = self[slot] = flat_slot_key(self.service, slot)
        return key
