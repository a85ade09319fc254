"""SGD slot keys: the one place ``(service, slot)`` becomes ``"<service>-<slot>"``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
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

    def frame_mapping(self, items: Iterable[tuple[str, Any]]) -> Mapping:
        """``{frame_slot_key(service, name): value}`` of ``(name, value)`` pairs: a frame's
        ``slot_values`` where a name carries the service prefix (MultiWOZ 2.2 style; else
        the frame's mapping is its state ``{self[name]: value}``, one object for both)."""
        service = self.service
        return MappingProxyType({frame_slot_key(service, name): value for name, value in items})


_EMPTY: Mapping = MappingProxyType({})
_NO_KEYS: frozenset[str] = frozenset()


class TurnSets:
    """A turn's ``(requested slot keys, active intents, services)`` from its SGD frames,
    pooled: one object per distinct combination (gold builder and SGD-style reader alike).

    ``keys``: the builder's :class:`SlotKeys` per service. Intents ``None`` (not given),
    written as null and ``"NONE"`` are not active; requested slots ``None`` or null count
    as none.
    """

    def __init__(self, keys: dict[str, SlotKeys]) -> None:
        self.keys = keys
        self.by_intents: dict[tuple, tuple] = {}
        self.requested: dict[tuple, frozenset[str]] = {}

    def __call__(self, frames: Sequence[Any]
                 ) -> tuple[frozenset[str], Mapping[str, str], tuple[str, ...]]:
        if len(frames) == 1:  # most turns: a (service, intent) pair is the key
            key: tuple = (frames[0].service, frames[0].active_intent)
        else:
            key = tuple([(frame.service, frame.active_intent) for frame in frames])
        pooled = self.by_intents.get(key)
        if pooled is None:
            pairs = (key,) if len(frames) == 1 else key
            active = {s: i for s, i in pairs if type(i) is str and i != "NONE"}  # not null
            pooled = self.by_intents[key] = (
                _NO_KEYS, MappingProxyType(active) if active else _EMPTY,
                tuple([s for s, _ in pairs]))
        for frame in frames:
            if frame.requested_slots:
                asked = tuple([(f.service, f.requested_slots) for f in frames])
                requested = self.requested.get(asked)
                if requested is None:
                    requested = self.requested[asked] = frozenset(
                        [self.keys[f.service][slot] for f in frames
                         for slot in f.requested_slots or ()])
                return requested, pooled[1], pooled[2]
        return pooled

