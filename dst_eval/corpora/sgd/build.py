"""Native SGD records (:mod:`.records`) -> the canonical gold objects.

One :class:`GoldTurn` per USER turn (``raw_turn_index`` = its position in ``turns``):

* ``frames``: one :class:`GoldFrame` per frame: its ``slot_values`` sorted by slot and keyed
  :func:`~dst_eval.gold.frame_slot_key` (``"<service>-<slot>"``), ``requested_slots`` as
  given, and the spans that carry a position (``SlotSpan(slot, start, exclusive_end)``),
  with the corpus's slot names;
* ``state``: the union over the frames of ``{"<service>-<slot>": values}`` (SGD user frames
  exist only for active services and are cumulative within their service): a one-frame
  turn's frame ``slot_values`` itself (SGD's names), else sorted by key;
* ``requested_slots`` (``"<service>-<slot>"``), ``active_intents`` (services whose intent is
  not ``NONE``), ``services`` (the frames' services, in order);
* ``system_response``: the following SYSTEM utterance, if any.

What repeats is shared, not copied: a frame state equal to the previous state of its
service in the dialogue is the same mapping (cumulative states repeat from turn to turn),
a turn whose frames carry the same state mappings as the previous turn's shares its flat
state, and intent maps, service tuples and turns' requested-slot sets
(:class:`~dst_eval.corpora.sgd.keys.TurnSets`), names, value tuples and requested-slot
tuples are pooled (one object per distinct value in the gold set: ~0.3 KB less per user
turn).

Malformed gold raises :class:`GoldDataError` naming the file, the dialogue and the turn:
a USER turn without ``utterance`` or ``frames``, a user frame without ``service`` or
``state``, a speaker other than USER/SYSTEM, speakers that do not alternate USER, SYSTEM,
USER, ... from the first turn (two USER or two SYSTEM turns in a row, a dialogue starting
with SYSTEM), a span without an end, a service missing from the schema, a slot (of
``slot_values`` or ``requested_slots``) its service's schema does not declare (spelled
exactly; checked once per distinct name), a slot with different values in two frames of a
turn (two frames of one service; frames that agree are merged); and a dialogue without
turns (nothing to score), naming the dialogue.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from types import MappingProxyType

from msgspec import Raw, ValidationError, json

from dst_eval.corpora.sgd.diagnose import describe, diagnose_frames
from dst_eval.corpora.sgd.keys import SlotKeys, TurnSets
from dst_eval.corpora.sgd.records import FRAMES, Dialogue, FileDialogue, Frame, Span
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldDialogue, GoldFrame, GoldTurn, ServiceSchema, SlotSpan

_EMPTY: Mapping = MappingProxyType({})


class _Malformed(Exception):
    """A problem in one turn; :meth:`GoldBuilder.dialogue` adds the place."""


class _SchemaKeys(SlotKeys):
    """The :class:`SlotKeys` of a service of the schema: a slot (of ``slot_values`` or
    ``requested_slots``) the service does not declare raises :class:`_Malformed`, checked
    once per distinct name."""

    def __init__(self, service: str, schema: ServiceSchema) -> None:
        super().__init__(service)
        self.declared = frozenset(schema.slots)

    def __missing__(self, slot: str) -> str:
        if slot not in self.declared:
            raise _Malformed(f"slot {slot!r} is not in the schema of service {self.service!r}")
        return super().__missing__(slot)


class GoldBuilder:
    """Builds :class:`GoldDialogue` objects from native records, for one gold set.

    ``schema``: the split's services (empty: not checked).
    """

    def __init__(self, schema: Mapping[str, ServiceSchema]) -> None:
        self.schema = schema
        self.names: dict[str, str] = {}
        self.keys: dict[str, SlotKeys] = {}
        self.turn_sets = TurnSets(self.keys)
        self.one_frame_sets: dict[tuple, tuple] = {}
        """A one-frame turn's :attr:`turn_sets` by its frame's ``(service, intent, requested
        slots)``: one look-up instead of a :class:`TurnSets` call (5 ms of the 0.13 s that
        building the SGD dev gold takes, in-process best of 25)."""
        self.values: dict[tuple[str, ...], tuple[str, ...]] = {}

    def dialogue(self, record: Dialogue | FileDialogue, file: str) -> GoldDialogue:
        dialogue_id = record.dialogue_id
        turns = record.turns
        names = self.names
        out: list[GoldTurn] = []
        states: dict[str, tuple[dict, Mapping, Mapping]] = {}
        n_turns = len(turns)
        one_frame_sets = self.one_frame_sets
        for raw_index in range(0, n_turns, 2):  # USER, SYSTEM, USER, ...
            turn = turns[raw_index]
            if turn.speaker != "USER":
                raise _order_error(turn.speaker, file, dialogue_id, raw_index)
            try:
                if turn.utterance is None:
                    raise _Malformed("missing key 'utterance'")
                frames_in = turn.frames
                if type(frames_in) is Raw:
                    try:
                        frames_in = FRAMES.decode(frames_in)
                    except ValidationError:
                        frames_in = _decoded_frames(frames_in)  # raises, saying what is wrong
                if frames_in is None:
                    raise _Malformed("missing key 'frames'")
                if len(frames_in) == 1:
                    frame, flat = self._frame(frames_in[0], states)
                    frames: tuple[GoldFrame, ...] = (frame,)
                    head = (frame.service, frame.active_intent, frame.requested_slots)
                    sets = one_frame_sets.get(head)
                    if sets is None:
                        sets = one_frame_sets[head] = self.turn_sets(frames)
                else:
                    built = [self._frame(frame, states) for frame in frames_in]
                    frames = tuple([frame for frame, _ in built])
                    flat = _merged(built)
                    sets = self.turn_sets(frames)
                requested, active, services = sets
            except _Malformed as exc:
                raise GoldDataError(f"malformed turn: {exc}", file=file, dialogue=dialogue_id,
                                    turn=raw_index) from None
            response = None
            if raw_index + 1 < n_turns:
                following = turns[raw_index + 1]
                if following.speaker != "SYSTEM":
                    raise _order_error(following.speaker, file, dialogue_id, raw_index + 1)
                response = following.utterance
            out.append(GoldTurn(dialogue_id, len(out), turn.utterance, flat, requested, active,
                                services, response, frames, raw_index))
        if not out:
            raise GoldDataError("the dialogue has no turns: nothing to score", file=file,
                                dialogue=dialogue_id)
        services = tuple([names.setdefault(s, s) for s in record.services])
        return GoldDialogue(dialogue_id, tuple(out), services=services)

    def _frame(self, frame: Frame, states: dict[str, tuple[dict, Mapping, Mapping]]
               ) -> tuple[GoldFrame, Mapping]:
        """The gold frame and its flat state ``{"<service>-<slot>": values}``."""
        service, state = frame.service, frame.state
        if service is None:
            raise _Malformed("missing key 'service'")
        if state is None:
            raise _Malformed("missing key 'state'")
        names = self.names
        service = names.setdefault(service, service)
        values = state.slot_values
        last = states.get(service)
        if last is not None and last[0] == values:
            mapping, flat = last[1], last[2]
        else:
            if self.schema and service not in self.schema:
                raise _Malformed(f"service {service!r} is not in the schema")
            keys = self.keys.get(service)
            if keys is None:
                keys = self.keys[service] = (_SchemaKeys(service, self.schema[service])
                                             if self.schema else SlotKeys(service))
            pooled = self.values.setdefault  # one tuple per distinct value list
            items = sorted(values.items())
            keyed: dict[str, tuple[str, ...]] = {}
            for slot, v in items:  # a loop, not a comprehension: 3 ms less (Python 3.11)
                keyed[keys[slot]] = pooled(v, v)
            mapping = flat = MappingProxyType(keyed) if keyed else _EMPTY
            if keys.prefixed and not keys.prefixed.isdisjoint(values):  # 2.2-style names
                mapping = keys.frame_mapping((slot, pooled(v, v)) for slot, v in items)
            states[service] = (values, mapping, flat)
        intent = state.active_intent
        requested = state.requested_slots
        if requested:
            requested = self.values.setdefault(requested, requested)
        spans = frame.slots
        return GoldFrame(service, names.setdefault(intent, intent), requested,
                         mapping, _spans(spans, names) if spans else ()), flat


def _order_error(speaker: str, file: str, dialogue_id: str, raw_index: int
                 ) -> GoldDataError:
    """The error for ``speaker`` at ``raw_index``, where the other speaker was due."""
    if speaker not in ("USER", "SYSTEM"):
        problem = f"malformed turn: speaker {speaker!r} is neither USER nor SYSTEM"
    elif raw_index == 0:
        problem = "the first turn is SYSTEM; speakers alternate USER, SYSTEM, starting with USER"
    else:
        problem = (f"two {speaker} turns in a row; speakers alternate USER, SYSTEM, "
                   "starting with USER")
    return GoldDataError(problem, file=file, dialogue=dialogue_id, turn=raw_index)


def _decoded_frames(raw: Raw) -> tuple[Frame, ...] | None:
    """A USER turn's ``frames`` (:attr:`~.records.FileTurn.frames`), decoded; a malformed
    one raises :class:`_Malformed` saying what is wrong (:func:`.diagnose.diagnose_frames`)."""
    try:
        return FRAMES.decode(raw)
    except ValidationError as exc:
        try:
            diagnose_frames(json.decode(raw))
        except (KeyError, TypeError, ValueError, AttributeError) as found:
            raise _Malformed(describe(found)) from None
        raise _Malformed(str(exc)) from None


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


def _merged(built: list[tuple[GoldFrame, Mapping]]) -> Mapping:
    """The flat states of a turn's frames as one, sorted by key; a slot in two frames (of
    one service) with different values raises :class:`_Malformed`, as in MultiWOZ 2.2."""
    items = sorted([item for _, flat in built for item in flat.items()])
    merged = dict(items)
    if len(merged) < len(items):  # a slot in two frames: one value list, or contradictory
        for (key, values), (other, other_values) in pairwise(items):
            if key == other and values != other_values:
                owners = [frame.service for frame, flat in built if key in flat]
                raise _Malformed(f"slot {key!r} has different values in frames {owners[0]!r} "
                                 f"and {owners[1]!r}")
    return MappingProxyType(merged) if merged else _EMPTY
