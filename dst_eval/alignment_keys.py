"""Gold spellings of predicted keys, for :mod:`dst_eval.alignment`: the slot keys a gold set
knows (:func:`known_slot_keys`), its ``|`` values (:class:`GoldPipeValues`), the decision per
predicted key (:class:`SlotChecker`) and a turn re-spelled as the gold spells it
(:func:`respelled`, which also says where one slot was written in two spellings with two
values)."""

from __future__ import annotations

from itertools import chain
from types import MappingProxyType

import msgspec

from dst_eval.gold import GoldSet, State
from dst_eval.predictions.model import PredTurn
from dst_eval.slotkeys import GoldSpellings, split_slot_key

# --------------------------------------------------------------------------- known slots


def known_slot_keys(gold: GoldSet) -> set[str]:
    """Slot keys the gold knows: ``GoldSet.slots`` ∪ schema slots ∪ every gold state key."""
    keys = set(gold.slots)
    for name, service in gold.schema.items():
        service_name = service.name or name
        prefix = service_name.lower() + "-"
        for slot in service.slots:
            keys.add(slot if slot.lower().startswith(prefix) else f"{service_name}-{slot}")
    keys.update(chain.from_iterable(_distinct_states(gold)))
    return keys


def _distinct_states(gold: GoldSet) -> list[State]:
    """The gold turn states, each state object once (loaders share repeated states);
    listed once per gold set (``GoldSet.derived``)."""
    states = gold.derived.get("distinct_states")
    if states is None:
        states = gold.derived["distinct_states"] = list(
            {id(turn.state): turn.state for dialogue in gold for turn in dialogue.turns}
            .values())
    return states


class GoldPipeValues:
    """The gold values holding ``|`` (``18|8 Fine Men's Salons``) of each slot, lower-cased
    and stripped: such a predicted value is a real value, not a hedge. Looked up per slot
    key on demand (only a predicted value holding ``|`` needs them): one slot's scan of
    the distinct gold states costs ≈ 0.5-1 ms on SGD dev, where listing every slot's ``|``
    values up front cost ≈ 10-12 ms (5 ms on MultiWOZ 2.1 test, now none) on every run."""

    def __init__(self, gold: GoldSet) -> None:
        self._gold = gold
        self._found: dict[str, set[str]] = {}

    def get(self, key: str) -> set[str]:
        """The ``|`` values of slot ``key`` in the gold states (empty if none)."""
        found = self._found.get(key)
        if found is None:  # ``key in state``, then ``state[key]``: 4x faster than .get
            found = self._found[key] = {
                value.strip().lower() for state in _distinct_states(self._gold)
                if key in state for value in state[key] if "|" in value}
        return found


class SlotChecker:
    """Decides, once per distinct predicted key, whether the gold knows it and how it spells it
    (the spelling itself: :class:`dst_eval.slotkeys.GoldSpellings`)."""

    def __init__(self, gold: GoldSet) -> None:
        known = known_slot_keys(gold)
        self.active = bool(known)
        self.spellings = GoldSpellings(known, (s.name or n for n, s in gold.schema.items()))
        self.known = self.spellings.keys
        self.domains = self.spellings.domains
        self._decided: dict[str, tuple[str, str | None]] = {}

    def decide(self, key: str) -> tuple[str, str | None]:
        """``(gold spelling of key, None)`` or ``(key, "unknown_slot"/"unknown_domain")``."""
        decided = self._decided.get(key)
        if decided is None:
            spelled = self.spellings.key(key)
            if spelled is not None:
                decided = (spelled, None)
            elif self.spellings.has_domain(split_slot_key(key)[0]):
                decided = (key, "unknown_slot")
            else:
                decided = (key, "unknown_domain")
            self._decided[key] = decided
        return decided

    def domain(self, domain: str) -> str:
        return self.spellings.domain(domain)


def respelled(turn: PredTurn, checker: SlotChecker, state_differs: bool
              ) -> tuple[PredTurn, list[tuple[str, str, str]]]:
    """``turn`` with keys that differ from the gold's only by case spelled as the gold does
    (:attr:`PredTurn.respelled` records how they were written), and the clashes: ``(gold
    key, key whose value is read, key whose value is not)`` for a slot written in two
    spellings with different values (the gold's own spelling is read, else the first)."""
    changes: dict = {}
    clashes: list[tuple[str, str, str]] = []
    if state_differs:
        state: dict[str, object] = {}
        written: dict[str, str] = {}  # gold spelling -> the key as written, where they differ
        for key, value in turn.state.items():
            spelled = checker.decide(key)[0]
            if spelled in state and state[spelled] != value:
                kept = written.get(spelled, spelled)
                clashes.append((spelled, key, kept) if key == spelled else
                               (spelled, kept, key))
            if spelled not in state or key == spelled:
                state[spelled] = value
                if key != spelled:
                    written[spelled] = key
                else:
                    written.pop(spelled, None)
        changes["state"] = MappingProxyType(state)
        if written:
            changes["respelled"] = MappingProxyType(written)
    if turn.requested_slots and not checker.known.issuperset(turn.requested_slots) and any(
            checker.decide(k)[0] != k for k in turn.requested_slots):
        changes["requested_slots"] = frozenset(checker.decide(k)[0]
                                               for k in turn.requested_slots)
    if turn.active_intents and not checker.domains.issuperset(turn.active_intents) and any(
            checker.domain(d) != d for d in turn.active_intents):
        changes["active_intents"] = MappingProxyType(
            {checker.domain(d): i for d, i in turn.active_intents.items()})
    return (msgspec.structs.replace(turn, **changes) if changes else turn), clashes


