"""Native SGD records (:mod:`.records`) -> the canonical gold objects.

One :class:`GoldTurn` per USER turn (``raw_turn_index`` = its position in ``turns``):

* ``frames``: one :class:`GoldFrame` per frame, with the corpus slot names, the frame's
  ``slot_values`` sorted by slot, ``requested_slots`` as given, and the spans that carry a
  position (``SlotSpan(slot, start, exclusive_end)``);
* ``state``: the union over the frames of ``{"<service>-<slot>": values}`` (SGD user frames
  exist only for active services and are cumulative within their service), sorted by key
  when the turn has several frames;
* ``requested_slots`` (``"<service>-<slot>"``), ``active_intents`` (services whose intent is
  not ``NONE``), ``services`` (the frames' services, in order);
* ``system_response``: the following SYSTEM utterance, if any.

What repeats is shared, not copied: a frame state equal to the previous state of its
service in the dialogue is the same mapping (cumulative states repeat from turn to turn),
a turn whose frames carry the same state mappings as the previous turn's shares its flat
state, and intent maps, service tuples and names are pooled.

A USER turn without ``utterance`` or ``frames``, a user frame without ``service`` or
``state``, a speaker other than USER/SYSTEM, a span without an end or a service missing
from the schema raises :class:`GoldDataError` naming the file, the dialogue and the turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from dst_eval.corpora.sgd.keys import flat_slot_key
from dst_eval.corpora.sgd.records import Dialogue, Frame, Span
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldDialogue, GoldFrame, GoldTurn, ServiceSchema, SlotSpan

_EMPTY: Mapping = MappingProxyType({})
_NO_KEYS: frozenset[str] = frozenset()


class _Malformed(Exception):
    """A problem in one turn; :meth:`GoldBuilder.dialogue` adds the place."""


class GoldBuilder:
    """Builds :class:`GoldDialogue` objects from native records, for one gold set.

    ``schema``: the split's services (empty: not checked).
    """

    def __init__(self, schema: Mapping[str, ServiceSchema]) -> None:
        self.schema = schema
        self.names: dict[str, str] = {}
        self.turn_sets: dict[tuple, tuple] = {}

    def dialogue(self, record: Dialogue, file: str) -> GoldDialogue:
        dialogue_id = record.dialogue_id
        turns = record.turns
        names = self.names
        out: list[GoldTurn] = []
        states: dict[str, tuple[dict, Mapping]] = {}
        last_maps: tuple = ()
        last_flat: Mapping = _EMPTY
        n_turns = len(turns)
        for raw_index, turn in enumerate(turns):
            speaker = turn.speaker
            if speaker != "USER":
                if speaker != "SYSTEM":
                    raise GoldDataError(f"malformed turn: speaker {speaker!r} is neither USER "
                                        "nor SYSTEM", file=file, dialogue=dialogue_id,
                                        turn=raw_index)
                continue
            try:
                if turn.utterance is None:
                    raise _Malformed("missing key 'utterance'")
                if turn.frames is None:
                    raise _Malformed("missing key 'frames'")
                frames = tuple([self._frame(frame, states) for frame in turn.frames])
            except _Malformed as exc:
                raise GoldDataError(f"malformed turn: {exc}", file=file, dialogue=dialogue_id,
                                    turn=raw_index) from None
            maps = tuple([frame.slot_values for frame in frames])
            if len(maps) != len(last_maps) or any(
                    a is not b for a, b in zip(maps, last_maps, strict=True)):
                last_flat = _flat_state(frames)
                last_maps = maps
            response = None
            if raw_index + 1 < n_turns:
                following = turns[raw_index + 1]
                if following.speaker == "SYSTEM":
                    response = following.utterance
            out.append(GoldTurn(dialogue_id, len(out), turn.utterance, last_flat,
                                *self._turn_sets(frames), response, frames, raw_index))
        services = tuple([names.setdefault(s, s) for s in record.services])
        return GoldDialogue(dialogue_id, tuple(out), services=services)

    def _turn_sets(self, frames: tuple[GoldFrame, ...]
                   ) -> tuple[frozenset[str], Mapping[str, str], tuple[str, ...]]:
        """``(requested slot keys, active intents, services)`` of a turn, pooled."""
        services = tuple([frame.service for frame in frames])
        key = (services, tuple([frame.active_intent for frame in frames]))
        pooled = self.turn_sets.get(key)
        if pooled is None:
            active = MappingProxyType({s: i for s, i in zip(*key, strict=True) if i != "NONE"})
            pooled = self.turn_sets[key] = (_NO_KEYS, active or _EMPTY, services)
        if any(frame.requested_slots for frame in frames):
            requested = frozenset([flat_slot_key(frame.service, slot) for frame in frames
                                   for slot in frame.requested_slots])
            return requested, pooled[1], pooled[2]
        return pooled

    def _frame(self, frame: Frame, states: dict[str, tuple[dict, Mapping]]) -> GoldFrame:
        service, state = frame.service, frame.state
        if service is None:
            raise _Malformed("missing key 'service'")
        if state is None:
            raise _Malformed("missing key 'state'")
        names = self.names
        service = names.setdefault(service, service)
        if self.schema and service not in self.schema:
            raise _Malformed(f"service {service!r} is not in the schema")
        values = state.slot_values
        last = states.get(service)
        if last is not None and last[0] == values:
            mapping = last[1]
        else:
            mapping = MappingProxyType(dict(sorted(values.items()))) if values else _EMPTY
            states[service] = (values, mapping)
        intent = state.active_intent
        spans = frame.slots
        return GoldFrame(service, names.setdefault(intent, intent), state.requested_slots,
                         mapping, _spans(spans, names) if spans else ())


def _spans(spans: tuple[Span, ...], names: dict[str, str]) -> tuple[SlotSpan, ...]:
    """Spans with a position; one without ``start`` (MultiWOZ 2.2 ``copy_from``) is left out."""
    out = []
    for span in spans:
        if span.start is None:
            continue
        if span.exclusive_end is None:
            raise _Malformed(f"malformed slot span {span!r}")
        out.append(SlotSpan(names.setdefault(span.slot, span.slot), span.start,
                            span.exclusive_end))
    return tuple(out)


def _flat_state(frames: list[GoldFrame]) -> Mapping:
    """``{"<service>-<slot>": values}`` over the frames (sorted when there are several)."""
    items = [(flat_slot_key(frame.service, slot), values)
             for frame in frames for slot, values in frame.slot_values.items()]
    if not items:
        return _EMPTY
    if len(frames) > 1:
        items.sort()
    return MappingProxyType(dict(items))
