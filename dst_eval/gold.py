"""The canonical gold model shared by every corpus.

A :class:`GoldSet` is a tuple of :class:`GoldDialogue`; each dialogue is a tuple of
evaluable :class:`GoldTurn` (one per user turn after which the state is annotated).
A turn's ``state`` maps slot keys ``"domain-slot"`` to the tuple of acceptable gold
values (label variants; the first is the canonical one). Corpora with several
frames per turn (SGD, MultiWOZ 2.2) keep them in ``frames`` so that per-frame
compatibility profiles can score exactly what the official scorer scores.

Everything here is immutable: loaders build plain dicts once and freeze them with
:func:`freeze_state`; nothing downstream can mutate the gold.

The per-turn records (:class:`GoldTurn`, :class:`GoldFrame`, :class:`SlotSpan`,
:class:`GoldDialogue`) are frozen :class:`msgspec.Struct` types, not tracked by the cyclic
garbage collector (``gc=False``: they hold no cycles). A corpus has ~10^4-10^6 of them:
a frozen dataclass spends ~3 µs per construction in ``object.__setattr__`` calls, a frozen
Struct ~0.2 µs, and takes 16 bytes less. Copy one with a change with
``msgspec.structs.replace(turn, state=...)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from msgspec import Struct

from dst_eval.errors import GoldDataError

State = Mapping[str, tuple[str, ...]]
"""Gold state: ``{"domain-slot": (value, variant, ...)}``."""

_EMPTY: Mapping = MappingProxyType({})


def freeze_state(state: Mapping[str, Iterable[str]]) -> State:
    """Return an immutable copy of ``state`` with tuple values, keys sorted."""
    return MappingProxyType({k: tuple(state[k]) for k in sorted(state)})


def freeze_mapping(mapping: Mapping | None) -> Mapping:
    if not mapping:
        return _EMPTY
    return MappingProxyType(dict(mapping))


class SlotSpan(Struct, frozen=True, gc=False):
    """A non-categorical value's character span in the user utterance (SGD ``slots``)."""

    slot: str
    start: int
    end: int  # exclusive


def frame_slot_key(service: str, slot: str) -> str:
    """The key of slot ``slot`` (the corpus's own name) in a frame of ``service``:
    ``"<service>-<slot>"``, always -- also for a name that carries the prefix already
    (MultiWOZ 2.2 ``hotel-pricerange`` is ``"hotel-hotel-pricerange"`` in its frame), so two
    spellings never share a key and a slot matches a schema slot only when the names are
    equal, as in the official scorer. For SGD's names it is the slot key of the turn state,
    and a one-frame turn keeps one mapping for both."""
    return f"{service}-{slot}"


class GoldFrame(Struct, frozen=True, gc=False):
    """One service's annotation of a user turn (SGD, MultiWOZ 2.2).

    ``slot_values`` maps :func:`frame_slot_key` keys to the gold values; a one-frame SGD
    turn's state is the same mapping. ``requested_slots`` and the spans keep the corpus's
    own slot names (``"time"`` for SGD, ``"hotel-pricerange"`` for MultiWOZ 2.2), as the
    official scorer compares them.
    """

    service: str
    active_intent: str
    requested_slots: tuple[str, ...]
    slot_values: State
    spans: tuple[SlotSpan, ...] = ()


class GoldTurn(Struct, frozen=True, gc=False):
    dialogue_id: str
    turn_index: int
    """0-based index among the dialogue's evaluable (user) turns."""
    user_utterance: str
    state: State
    """Cumulative gold state after this user turn, ``{"domain-slot": variants}``."""
    requested_slots: frozenset[str] = frozenset()
    """Requested slot keys ``"domain-slot"``."""
    active_intents: Mapping[str, str] = _EMPTY
    """Active intent per service/domain (only services with an intent other than NONE)."""
    services: tuple[str, ...] = ()
    """Services/domains annotated in this turn."""
    system_response: str | None = None
    """Reference system response following this user turn, when the corpus has one."""
    frames: tuple[GoldFrame, ...] = ()
    """Per-service frames, for corpora that have them (SGD, MultiWOZ 2.2)."""
    raw_turn_index: int | None = None
    """Position of the user turn in the corpus's own turn/message list."""
    system_annotations: Mapping[str, Any] = _EMPTY
    """Read-only annotations of the following system turn that response metrics need,
    e.g. ``{"acts": ((intent, domain, slot, value), ...)}`` (CrossWOZ) or
    ``{"segmented_response": "..."}`` (RiSAWOZ). Keys are documented by each loader."""


class GoldDialogue(Struct, frozen=True, gc=False):
    dialogue_id: str
    turns: tuple[GoldTurn, ...]
    services: tuple[str, ...] = ()
    goal: Mapping | None = None
    """Corpus goal annotation (read-only), for response metrics."""
    meta: Mapping[str, str] = _EMPTY
    """Free-form metadata, e.g. CrossWOZ goal type ``{"type": "CM"}``."""


@dataclass(frozen=True, slots=True)
class ServiceSchema:
    name: str
    slots: tuple[str, ...]
    categorical: frozenset[str] = frozenset()
    intents: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GoldFile:
    """One file a loader read: the path it opened and the SHA-256 of the bytes it read."""

    path: str
    sha256: str
    size: int


@dataclass(frozen=True)
class GoldSet:
    """All gold dialogues of one corpus split, plus what the metrics need to know."""

    corpus: str
    split: str | None
    dialogues: tuple[GoldDialogue, ...]
    source: str
    slots: tuple[str, ...] = ()
    """The corpus slot list (``domain-slot``) used by slot accuracy."""
    categorical_slots: frozenset[str] = frozenset()
    schema: Mapping[str, ServiceSchema] = field(default_factory=lambda: _EMPTY)
    """Per-service schema (SGD, MultiWOZ 2.2)."""
    seen_services: frozenset[str] | None = None
    """Services present in the training schema; None when unknown."""
    files: tuple[GoldFile, ...] = ()
    """Every file whose bytes the loader read, in reading order (recorded where it is
    opened, :class:`dst_eval.corpora.layout.FileLog`); empty for gold built in memory."""
    notes: tuple[str, ...] = ()
    """What the loader decided that the user should see (e.g. the release it assumed);
    copied into every result's notes."""
    _by_key: dict[str, GoldDialogue] = field(default_factory=dict, repr=False, compare=False)
    derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    """Data computed from these dialogues alone, once per gold set, by the module that needs
    it (e.g. MultiWOZ BLEU references: ``corpora/multiwoz/response_gold.py``). Not an
    ``__init__`` field, so :func:`dataclasses.replace` (a restricted or renamed gold set)
    starts empty; nothing read from a file goes here."""

    def __post_init__(self) -> None:
        """Index the dialogues by :func:`dialogue_key`; two dialogues with one key (ids that
        differ only in case, ``.json`` or surrounding spaces) are a :class:`GoldDataError`:
        one prediction would be scored against both."""
        by_key: dict[str, GoldDialogue] = {}
        for dialogue in self.dialogues:
            first = by_key.setdefault(dialogue_key(dialogue.dialogue_id), dialogue)
            if first is not dialogue:
                raise duplicate_id_error(first.dialogue_id, dialogue.dialogue_id,
                                         file=self.source)
        self._by_key.update(by_key)

    def __iter__(self) -> Iterator[GoldDialogue]:
        return iter(self.dialogues)

    def __len__(self) -> int:
        return len(self.dialogues)

    def get(self, dialogue_id: str) -> GoldDialogue | None:
        """Look a dialogue up by id, case-insensitively, with or without ``.json``."""
        return self._by_key.get(dialogue_key(dialogue_id))

    @property
    def n_turns(self) -> int:
        return sum(len(d.turns) for d in self.dialogues)

    def turns(self) -> Iterator[GoldTurn]:
        for dialogue in self.dialogues:
            yield from dialogue.turns


def dialogue_key(dialogue_id: str) -> str:
    """Matching key of a dialogue id: lower-case, without a ``.json`` suffix."""
    key = str(dialogue_id).strip().lower()
    return key[:-5] if key.endswith(".json") else key


class UniqueIds:
    """The dialogue ids a loader has read, with their files: :meth:`add` raises
    :func:`duplicate_id_error` for an id whose :func:`dialogue_key` an earlier one has,
    naming the file of each (:meth:`GoldSet.__post_init__` can name only the gold path)."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[str, str]] = {}  # dialogue_key -> (id, file)

    def add(self, dialogue_id: str, file: str) -> None:
        key = dialogue_key(dialogue_id)
        found = self._seen.get(key)
        if found is not None:
            raise duplicate_id_error(found[0], dialogue_id, file=file, first_file=found[1])
        self._seen[key] = (dialogue_id, file)


def check_unique_ids(ids_and_files: Iterable[tuple[str, str]]) -> None:
    """:meth:`UniqueIds.add` of ``(id, file)`` pairs, in reading order."""
    ids = UniqueIds()
    for dialogue_id, file in ids_and_files:
        ids.add(dialogue_id, file)


def duplicate_id_error(first: str, second: str, *, file: str | None,
                       first_file: str | None = None) -> GoldDataError:
    """The error for gold dialogue ``second`` whose :func:`dialogue_key` an earlier one,
    ``first`` (read from ``first_file`` when that is another file), already has."""
    same = "twice" if first == second else (
        f"and {second!r} are one id (ids match ignoring case, surrounding spaces and .json)")
    also = f" (also in {first_file})" if first_file not in (None, file) else ""
    return GoldDataError(f"duplicate dialogue id: {first!r} {same}{also}", file=file,
                         dialogue=second)


def check_slot_names(dialogues: Iterable[GoldDialogue], known: Iterable[str], *,
                     corpus: str, source: str) -> None:
    """:class:`GoldDataError` naming the dialogue and turn of the first gold state key
    that is none of ``known`` (the corpus config's slots): an edited name (a trailing
    space, another case, a homoglyph) would make every turn holding it wrong without a
    word. Each state mapping is checked once (loaders share unchanged states)."""
    known = frozenset(known)
    checked: set[int] = set()
    for dialogue in dialogues:
        for turn in dialogue.turns:
            state = turn.state
            if id(state) in checked or known.issuperset(state):
                checked.add(id(state))
                continue
            key = next(k for k in state if k not in known)
            raise GoldDataError(f"slot {key!r} is not a slot of {corpus} "
                                f"(configs/{corpus}.toml); is the gold data edited?",
                                file=source, dialogue=dialogue.dialogue_id,
                                turn=turn.turn_index if turn.raw_turn_index is None
                                else turn.raw_turn_index)
