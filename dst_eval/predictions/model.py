"""The canonical prediction model produced by the readers (:mod:`dst_eval.predictions`).

A prediction is one value per slot: ``PredTurn.state`` maps ``"domain-slot"`` to a
single string, exactly as the file wrote it (``""``, ``" "``, ``none`` and
``not mentioned`` included: what a value means -- e.g. that it leaves the slot unset --
is decided by the scoring profile, :mod:`dst_eval.normalize`). Anything the reader had
to convert or could not take (non-string values, hedged values such as
``north|centre``, a slot given twice) is recorded as an :class:`Issue` so alignment can
report it; nothing is dropped silently.

:class:`PredTurn` and :class:`PredFrame` are frozen :class:`msgspec.Struct` records without
cyclic-GC tracking, like the gold turns (:mod:`dst_eval.gold`: one per turn, cheap to build).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from msgspec import Struct

from dst_eval.escape import one_line
from dst_eval.gold import dialogue_key

_EMPTY: Mapping = MappingProxyType({})


class PredFrame(Struct, frozen=True, gc=False):
    """A predicted SGD-style frame, as the official SGD scorer consumes it.

    ``slot_values`` maps :func:`~dst_eval.gold.frame_slot_key` keys to the ONE predicted
    value (the first of the file's list, as the official scorer reads it; more are reported
    as hedged); a one-frame turn whose slot names are SGD's has one mapping for this and
    its ``state``. ``requested_slots`` and ``spans`` keep the file's slot names.
    """

    service: str
    active_intent: str | None
    requested_slots: tuple[str, ...] | None
    slot_values: Mapping[str, str]
    spans: tuple | None = None  # tuple[SlotSpan, ...] when the frame has ``slots``
    written: Mapping[str, object] | None = None
    """The slot values that were not a non-empty list of strings, as the file wrote them
    (``[]``, a bare string, a list holding a number, a number), keyed like
    ``slot_values``; None when there are none. ``slot_values`` holds their canonical
    reading (reported as Issues by the reader); a profile whose anchor reads the file as
    it is (``sgd-official``) reads these."""


class PredTurn(Struct, frozen=True, gc=False):
    state: Mapping[str, str] | None = None
    """Predicted cumulative state ``{"domain-slot": value}``; None when not given."""
    requested_slots: frozenset[str] | None = None
    active_intents: Mapping[str, str] | None = None
    response: str | None = None
    """The response as written: a value that is not a string (reported by the reader,
    ``bad_response``) is kept, and the response scorers score it as ``""``."""
    active_domains: tuple[str, ...] | None = None
    frames: tuple[PredFrame, ...] | None = None
    raw_state: Mapping | None = None
    """The state as the file gave it (before canonicalisation), for diagnostics."""
    duplicates: Mapping[str, tuple[str, ...]] | None = None
    """Slots the file gave more than once (two spellings of one slot, e.g. ``price range``
    and ``pricerange``): ``{key: (later values, in file order)}``; ``state`` holds the
    first. A profile that reads the first as unset scores the next one it does not
    (:meth:`dst_eval.normalize.Unset.items`). None when no slot was repeated."""
    respelled: Mapping[str, str] | None = None
    """State keys that alignment spelled as the gold does (they differed only by case):
    ``{gold spelling: key as written}``; a profile whose anchor looks keys up exactly
    (``convlab``) does not find them. None when no key was re-spelled."""
    extras: Mapping | None = None
    """Fields of a system's own output that a compatibility profile replays, as written
    (TripPy: ``slot_prediction_<slot>`` with its ``§§`` marks and ``class_prediction_<slot>``,
    for ``--profile trippy``); never a state, never read by another profile."""


@dataclass(frozen=True, slots=True)
class Issue:
    """Something wrong or suspicious in the predictions, with its exact place."""

    kind: str
    message: str
    file: str | None = None
    dialogue: str | None = None
    turn: int | None = None
    severity: str = "warning"  # "warning" or "error"
    unlisted: int = 0
    """For the Issue that ends a capped list (a reader keeps the first 100 of a kind): how
    many more problems of its kind it stands for, whose places are not kept."""

    def __str__(self) -> str:
        where = [p for p in (self.file, self.dialogue and f"dialogue {self.dialogue}") if p]
        if self.turn is not None:
            where.append(f"turn {self.turn}")
        prefix = ", ".join(where)
        text = f"{prefix}: {self.message}" if prefix else self.message
        return one_line(text)  # ids with newlines or bidi characters cannot forge a line


@dataclass
class PredictionSet:
    """Predictions for a set of dialogues, keyed by the dialogue id as given."""

    source: str
    format: str
    dialogues: dict[str, list[PredTurn]]
    issues: list[Issue] = field(default_factory=list)
    metadata: Mapping = field(default_factory=lambda: _EMPTY)
    _by_key: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_key = {dialogue_key(d): d for d in self.dialogues}

    def get(self, dialogue_id: str) -> list[PredTurn] | None:
        original = self._by_key.get(dialogue_key(dialogue_id))
        return None if original is None else self.dialogues[original]

    def keys(self) -> set[str]:
        return set(self._by_key)

    @property
    def has_states(self) -> bool:
        return any(t.state is not None for turns in self.dialogues.values() for t in turns)
