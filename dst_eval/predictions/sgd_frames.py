"""Read SGD-style prediction files: the gold dialogue format with user-frame ``state`` filled in.

This is what the official SGD scorer consumes: a directory's every ``*.json`` except
``*dialogues_and_metrics.json`` (its own side output) and ``schema.json``, one file, or a
``.zip`` of such files; a file holds a list of dialogues or ``{dialogue_id: dialogue}``.
One :class:`PredTurn` per USER turn, in order, carrying

* ``frames``: one :class:`PredFrame` per frame -- service, ``active_intent``,
  ``requested_slots`` (tuple: a multiset), ``slot_values`` ``{"<service>-<slot>": first
  value}`` (:func:`~dst_eval.gold.frame_slot_key`) in file order, ``spans`` (``SlotSpan``
  tuple, or None when the frame has no ``slots`` key);
* the canonical flat view: ``state`` ``{"<service>-<slot>": first value}`` (a one-frame
  turn's frame ``slot_values`` itself when its names are SGD's), ``requested_slots``
  ``{"<service>-<slot>"}``, ``active_intents`` ``{service: intent}`` (intents other than
  ``NONE``), ``active_domains`` = services.

Values are kept verbatim -- ``"none"``, ``""`` and ``" "`` are values like any other; what
a value means is the scoring profile's business. Value problems are Issues (one per kind
and file, with the count and the first place), never silent: a string instead of a list
(``non_list_value``; read as its one value), ``[]`` (``empty_value_list``; read as no
value), several values (``hedged_value``; the first is the flat value, as officially), a
non-string value (``non_string_value``; read as its ``str()``), a span without a position
(MultiWOZ 2.2 ``copy_from``; left out), two frames of a turn giving a slot different values
(``conflicting_frames``; the later one's is the flat value, as officially). Those readings
are the canonical view (``slot_values``, ``state``); the values as written stay on the frame
(:attr:`PredFrame.written`) for ``sgd-official``, which reads them as the official scorer
does. Structural problems -- not a list/object of dialogues, a dialogue predicted twice
(in two files, in one list, or a repeated key of ``{dialogue_id: dialogue}``: the official
scorer silently reads the later one), a dialogue without ``dialogue_id`` or ``turns``, a
speaker other than ``USER`` and ``SYSTEM``, a SYSTEM turn first or after another (a user
turn written otherwise would be skipped, and every later one scored against the gold turn
before it; the official scorer stops: "Speakers don't match"), a user frame without
``service`` or ``state``, a state without ``slot_values`` -- raise
:class:`PredictionError` naming file, dialogue and turn (the 0-based user-turn index, as
in the PredictionSet; the message adds the position in ``turns``).

Speed: a file is decoded in one typed pass (:mod:`msgspec`) that keeps only these fields
and skips the rest (utterances, actions, service results); a turn's ``frames`` stay JSON
text until the speaker is known, so only USER frames are ever decoded. USER frames that do
not fit the types (odd values) are parsed generically and repaired with Issues
(:meth:`_Builder._user_frames`); a file whose structure does not fit is diagnosed
(:func:`_repaired`). What repeats is shared: a frame state equal to the
previous state of its service in the dialogue, the flat state of a turn whose frames carry
the previous turn's state mappings, intent maps and service tuples
(:class:`~dst_eval.corpora.sgd.keys.TurnSets`, looked up per (service, intent, requested
slots) for a one-frame turn), and (per file) names, intents, values, requested-slot tuples
and turns' requested-slot sets.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec
from msgspec import Struct

from dst_eval.corpora.sgd.keys import SlotKeys, TurnSets
from dst_eval.errors import PredictionError
from dst_eval.gold import SlotSpan, frame_slot_key
from dst_eval.jsonio import (
    check_path,
    decode_typed,
    parse_json_bytes,
)
from dst_eval.metrics.sgd_frame import WRITTEN_NULL
from dst_eval.predictions.duplicates import DecodedKeys, may_repeat_keys, report_duplicate_keys
from dst_eval.predictions.model import PredFrame, PredictionSet, PredTurn
from dst_eval.predictions.sgd_files import prediction_documents
from dst_eval.predictions.value_tally import ValueTally

FORMAT = "sgd"
_EMPTY: Mapping = MappingProxyType({})


def looks_like_sgd_frames(obj: Any) -> bool:
    """True for a list of SGD dialogues or ``{id: dialogue}``: the first dialogue has a
    ``turns`` list whose first turn has ``speaker`` and ``frames`` (a malformed ``frames``,
    ``null`` say, is the reader's to report at its place)."""
    if isinstance(obj, dict) and obj:
        first = next(iter(obj.values()))
    elif isinstance(obj, list) and obj:
        first = obj[0]
    else:
        return False
    if not isinstance(first, dict) or not isinstance(first.get("turns"), list):
        return False
    turns = first["turns"]
    if not turns:
        return "services" in first
    turn = turns[0]
    return isinstance(turn, dict) and "speaker" in turn and "frames" in turn


# --------------------------------------------------------------------------- typed records


class _Span(Struct, gc=False):
    slot: str
    start: int | None = None
    exclusive_end: int | None = None


class _State(Struct, gc=False):
    slot_values: dict[str, tuple[str, ...]] | None = None
    active_intent: str | None | msgspec.UnsetType = msgspec.UNSET  # UNSET: no key; None: null
    requested_slots: tuple[str, ...] | None | msgspec.UnsetType = msgspec.UNSET


class _Frame(Struct, gc=False):
    service: str | None = None
    state: _State | None = None
    slots: tuple[_Span, ...] | None = None


class _Turn(Struct, gc=False):
    """``frames`` stays JSON text until the builder knows the speaker: system frames are
    skipped, never built."""

    speaker: Any = None
    frames: msgspec.Raw = msgspec.Raw(b"null")


class _Dialogue(Struct, gc=False):
    turns: tuple[_Turn, ...] | None = None
    dialogue_id: Any = None


_Document = list[_Dialogue] | dict[str, _Dialogue]
_DECODER = msgspec.json.Decoder(_Document)
_FRAMES = msgspec.json.Decoder(tuple[_Frame, ...] | None)


# --------------------------------------------------------------------------- issues


# --------------------------------------------------------------------------- building


class _Malformed(Exception):
    """A problem in one turn; :meth:`_Builder.dialogue` adds the place."""


class _Builder:
    """Typed records of one file -> ``{dialogue_id: [PredTurn, ...]}`` plus a tally."""

    def __init__(self, file: str, tally: ValueTally) -> None:
        self.file = file
        self.tally = tally
        self.strings: dict[str, str] = {}
        self.keys: dict[str, SlotKeys] = {}
        self.turn_sets = TurnSets(self.keys)
        # a one-frame turn's TurnSets by (service, intent, requested slots): a handful of
        # combinations per file, looked up in one step instead of a call per turn (SGD
        # dev's 24,363 turns: 7.1-7.9 ms, against 11.7-13.8 ms)
        self.one_frame_sets: dict[tuple, tuple] = {}
        self.values: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.decoded = DecodedKeys()

    def dialogue(self, dialogue_id: str, record: _Dialogue) -> list[PredTurn]:
        turns = record.turns
        if turns is None:
            raise PredictionError("dialogue without a 'turns' list", file=self.file,
                                  dialogue=dialogue_id)
        out: list[PredTurn] = []
        states: dict[str, tuple] = {}
        after_user = False  # a SYSTEM turn follows a USER turn (a user turn written otherwise
        # would be skipped, and every later turn scored against the gold turn before it)
        for raw_index, turn in enumerate(turns):
            speaker = turn.speaker
            if speaker != "USER":
                if speaker != "SYSTEM":
                    self._fail(dialogue_id, len(out), raw_index, "missing key 'speaker'"
                               if speaker is None else f"speaker {speaker!r} is neither USER "
                               "nor SYSTEM")
                if not after_user:
                    self._fail(dialogue_id, len(out), raw_index, "two SYSTEM turns in a row"
                               if raw_index else "the first turn is SYSTEM; a user turn "
                               "comes first")
                after_user = False
                continue
            after_user = True
            index = len(out)
            written: list[dict] | None = None  # per frame: odd values as the file wrote them
            try:
                frames_in = _FRAMES.decode(turn.frames)
            except msgspec.ValidationError:
                frames_in, written = self._user_frames(turn.frames, dialogue_id, index,
                                                       raw_index)
            if frames_in is None:
                self._fail(dialogue_id, index, raw_index, "missing key 'frames'")
            try:
                if len(frames_in) == 1:
                    frame, flat = self._frame(frames_in[0], dialogue_id, index, raw_index,
                                              states, written[0] if written else None)
                    frames: tuple[PredFrame, ...] = (frame,)
                    key = (frame.service, frame.active_intent, frame.requested_slots)
                    sets = self.one_frame_sets.get(key)
                    if sets is None:
                        sets = self.one_frame_sets[key] = self.turn_sets(frames)
                else:
                    built = [self._frame(frame, dialogue_id, index, raw_index, states,
                                         written[i] if written else None)
                             for i, frame in enumerate(frames_in)]
                    frames = tuple([frame for frame, _ in built])
                    flat = _merged([flat for _, flat in built])
                    if len(flat) < sum(len(f) for _, f in built):  # a slot in two frames
                        self.tally.add_conflicts(built, dialogue_id, index)
                    sets = self.turn_sets(frames)
            except _Malformed as exc:
                self._fail(dialogue_id, index, raw_index, str(exc))
            self.decoded.objects += len(frames)
            out.append(PredTurn(flat, sets[0], sets[1], None, sets[2], frames))
        return out

    def _user_frames(self, raw: msgspec.Raw, dialogue_id: str, index: int, raw_index: int
                     ) -> tuple[tuple[_Frame, ...] | None, list[dict]]:
        """A USER turn's ``frames`` that did not fit the typed records: parsed generically,
        their odd slot values repaired with Issues (:func:`_repair_values`), then converted;
        and per frame the odd values as written (``{slot: value}``)."""
        frames = msgspec.json.decode(raw)
        if not isinstance(frames, list):
            self._fail(dialogue_id, index, raw_index, "'frames' is not a list")
        written: list[dict] = []
        try:
            for frame in frames:
                state = frame.get("state") if isinstance(frame, dict) else None
                odd: dict = {}
                if isinstance(state, dict) and isinstance(state.get("slot_values"), dict):
                    odd = _repair_values(state["slot_values"], self.tally, dialogue_id, index)
                written.append(odd)
            return msgspec.convert(frames, tuple[_Frame, ...]), written
        except (TypeError, ValueError, AttributeError) as exc:
            detail = str(exc).replace("`$", "`frames", 1)
            self._fail(dialogue_id, index, raw_index, detail)

    def _fail(self, dialogue_id: str, index: int, raw_index: int, detail: str) -> None:
        raise PredictionError(f"malformed turn (position {raw_index} in 'turns'): {detail}",
                              file=self.file, dialogue=dialogue_id, turn=index)

    def _frame(self, frame: _Frame, dialogue_id: str, index: int, raw_index: int,
               states: dict[str, tuple], odd: dict | None = None
               ) -> tuple[PredFrame, Mapping]:
        """The predicted frame and its flat state ``{"<service>-<slot>": first value}``;
        ``odd``: the slot values :func:`_repair_values` repaired, as the file wrote them."""
        service, state = frame.service, frame.state
        if service is None or state is None:
            missing = "service" if service is None else "state"
            raise PredictionError(
                f"user frame without {missing!r} (position {raw_index} in 'turns')",
                file=self.file, dialogue=dialogue_id, turn=index)
        values = state.slot_values
        if values is None:
            raise _Malformed("missing key 'slot_values'")
        service = self.strings.setdefault(service, service)
        intent = state.active_intent  # no key: None (missing); null: WRITTEN_NULL
        intent = (None if intent is msgspec.UNSET else WRITTEN_NULL if intent is None
                  else self.strings.setdefault(intent, intent))
        requested = state.requested_slots
        if requested:
            requested = self.values.setdefault(requested, requested)
        elif requested != ():
            requested = None if requested is msgspec.UNSET else WRITTEN_NULL
        last = states.get(service)
        if last is not None and last[0] == values and last[5] == odd:
            _, mapping, flat, problems, n_strings, _, written = last
        else:
            mapping, flat, problems, n_strings, written = self._state(service, values, odd)
            states[service] = (values, mapping, flat, problems, n_strings, odd, written)
        self.decoded.strings += n_strings
        if problems or not (type(intent) is str and type(requested) is tuple):
            self.decoded.missing_intents += intent is None
            self.decoded.missing_requested += requested is None
            self.tally.frame(problems, intent, requested, service, dialogue_id, index)
        spans = frame.slots
        if spans is not None:
            spans = self._spans(spans, dialogue_id, index) if spans else ()
        return PredFrame(service, intent, requested, mapping, spans, written), flat

    def _state(self, service: str, values: dict[str, tuple[str, ...]], odd: dict | None
               ) -> tuple[Mapping, Mapping, tuple, int, Mapping | None]:
        """A frame state built: ``(frame mapping, flat state, problems, keys and values
        decoded, values as written)``. Most slots hold one value: two C-level passes
        (:func:`sum`, :func:`all`) tell so, and :func:`_kept_values` runs only otherwise
        (on SGD dev's 26,077 user-frame states 10.6 ms, against 16.2 ms for a test
        ``any(map(...))`` and a count)."""
        keys = self.keys.get(service)
        if keys is None:
            keys = self.keys[service] = SlotKeys(service)
        n_values = sum(map(len, values.values()))
        if n_values == len(values) and all(values.values()):  # one value per slot
            kept, problems = values, ()
        else:
            kept, problems = _kept_values(values)
        pooled = self.strings.setdefault  # one object per distinct string in the file
        mapping = flat = MappingProxyType(
            {keys[slot]: pooled(v[0], v[0]) for slot, v in kept.items()}) if kept else _EMPTY
        if keys.prefixed and kept and not keys.prefixed.isdisjoint(kept):  # 2.2-style names
            mapping = keys.frame_mapping((slot, pooled(v[0], v[0])) for slot, v in kept.items())
        written = None
        if odd or len(kept) != len(values):  # repaired values, or [] left out
            written = MappingProxyType({
                frame_slot_key(service, slot): odd[slot] if odd and slot in odd else []
                for slot in values if (odd and slot in odd) or not values[slot]})
        return mapping, flat, problems, len(values) + n_values, written

    def _spans(self, spans: tuple[_Span, ...], dialogue_id: str, index: int
               ) -> tuple[SlotSpan, ...]:
        out = []
        strings = self.strings
        for span in spans:
            if span.start is None or span.exclusive_end is None:
                shown = {k: v for k, v in msgspec.structs.asdict(span).items() if v is not None}
                self.tally.add("span_without_position", dialogue_id, index, f"span {shown!r}")
                continue
            out.append(SlotSpan(strings.setdefault(span.slot, span.slot), span.start,
                                span.exclusive_end))
        return tuple(out)


def _kept_values(values: dict[str, tuple[str, ...]]) -> tuple[dict, tuple]:
    """``(slot_values without empty value lists, ((issue kind, detail), ...))`` of values
    where some slot does not hold exactly one value. A hedged value's detail is formatted
    only if it is the first one (:meth:`ValueTally.add`): a system that hedges hedges
    thousands of times (SGD dev's 10,345 hedged slots: 6.1 ms formatted, 1.8 ms as
    partials)."""
    problems = []
    for slot, kept in values.items():
        if len(kept) != 1:
            if kept:
                problems.append(("hedged_value", partial(_hedged, slot, kept)))
            else:
                problems.append(("empty_value_list", f"slot {slot!r}"))
    if all(kind == "hedged_value" for kind, _ in problems):
        return values, tuple(problems)
    return {s: v for s, v in values.items() if v}, tuple(problems)


def _hedged(slot: str, values: tuple[str, ...]) -> str:
    """The detail of Issue ``hedged_value``: the slot and its first three values."""
    return f"slot {slot!r}: {list(values[:3])!r}"


def _merged(flats: list[Mapping]) -> Mapping:
    """The flat states of a turn's frames as one (a later frame wins a tie)."""
    items = [item for flat in flats for item in flat.items()]
    return MappingProxyType(dict(items)) if items else _EMPTY


# --------------------------------------------------------------------------- files


def _dialogue_items(document: Any, file: str) -> Iterator[tuple[str, _Dialogue]]:
    if isinstance(document, dict):
        yield from ((str(key), dialogue) for key, dialogue in document.items())
        return
    for dialogue in document:
        if not isinstance(dialogue.dialogue_id, str):
            raise PredictionError("dialogue without a string 'dialogue_id'", file=file)
        yield dialogue.dialogue_id, dialogue


def _read_document(data: bytes, file: str, tally: ValueTally) -> list[tuple[str, list[PredTurn]]]:
    try:
        document = decode_typed(data, _DECODER, file=file, error=PredictionError)
    except msgspec.ValidationError:
        document = _repaired(parse_json_bytes(data, file=file, error=PredictionError), file)
    builder = _Builder(file, tally)
    read = [(dialogue_id, builder.dialogue(dialogue_id, record))
            for dialogue_id, record in _dialogue_items(document, file)]
    if isinstance(document, dict) or may_repeat_keys(data, builder.decoded):
        report_duplicate_keys(data, document, tally.add, file)
    return read


_PATH = re.compile(r"at `\$(?:\[(\d+)\]|\.([^.\[`]+))")


def _repaired(document: Any, file: str) -> Any:
    """A generically parsed document that did not fit the typed records: its dialogues
    checked, then converted; a structural problem raises :class:`PredictionError`. (Odd
    slot values are repaired turn by turn: :meth:`_Builder._user_frames`.)"""
    if not isinstance(document, list | dict):
        raise PredictionError("expected a list of SGD dialogues or {dialogue_id: dialogue}",
                              file=file)
    entries = document.items() if isinstance(document, dict) else enumerate(document)
    for key, dialogue in entries:
        if not isinstance(dialogue, dict):
            raise PredictionError("expected a list of dialogue objects", file=file)
        dialogue_id = str(key) if isinstance(document, dict) else dialogue.get("dialogue_id")
        if not isinstance(dialogue_id, str):
            raise PredictionError("dialogue without a string 'dialogue_id'", file=file)
        turns = dialogue.get("turns")
        if not isinstance(turns, list):
            raise PredictionError("dialogue without a 'turns' list", file=file,
                                  dialogue=dialogue_id)
        for raw_index, turn in enumerate(turns):
            if not isinstance(turn, dict):
                raise PredictionError(f"malformed turn (position {raw_index} in 'turns'): "
                                      "not an object", file=file, dialogue=dialogue_id)
    try:  # through JSON text again: the typed records keep frames as text
        return _DECODER.decode(msgspec.json.encode(document))
    except msgspec.ValidationError as exc:
        raise _located(str(exc), document, file) from None


def _repair_values(slot_values: dict, tally: ValueTally, dialogue: str, turn: int) -> dict:
    """Give ``slot_values`` the canonical view of odd values (a list of strings: ``str()``
    of a non-string, a bare string as its one value), each with an Issue; return the odd
    values as written, ``{slot: value}`` (:attr:`PredFrame.written`)."""
    written = {}
    for slot, raw in slot_values.items():
        if type(raw) is list:
            if any(type(value) is not str for value in raw):
                bad = next(value for value in raw if type(value) is not str)
                tally.add("non_string_value", dialogue, turn, f"slot {slot!r}: {bad!r}")
                written[slot] = raw
                slot_values[slot] = [v if type(v) is str else str(v) for v in raw]
        elif type(raw) is str:
            tally.add("non_list_value", dialogue, turn, f"slot {slot!r}: {raw!r}")
            written[slot] = raw
            slot_values[slot] = [raw]
        elif raw is None or isinstance(raw, dict):
            raise TypeError(f"slot {slot!r} has {'null' if raw is None else 'an object'} "
                            "as its value list")
        else:
            tally.add("non_string_value", dialogue, turn, f"slot {slot!r}: {raw!r}")
            written[slot] = raw
            slot_values[slot] = [str(raw)]
    return written


def _located(message: str, document: Any, file: str) -> PredictionError:
    """A decoder ``message`` as a :class:`PredictionError` placed at its dialogue."""
    match = _PATH.search(message)
    dialogue = None
    if match and match.group(1) is not None:
        found = document[int(match.group(1))].get("dialogue_id")
        dialogue = found if isinstance(found, str) else None
    elif match:
        dialogue = match.group(2)
    return PredictionError(f"unexpected structure in SGD-style predictions: {message}",
                           file=file, dialogue=dialogue)


def read_sgd_frame_predictions(path: Path) -> PredictionSet:
    """Read an SGD-style prediction file, ``.zip`` or directory into a :class:`PredictionSet`."""
    path = Path(path)
    check_path(path, error=PredictionError)
    documents, issues = prediction_documents(path)
    dialogues: dict[str, list[PredTurn]] = {}
    origin: dict[str, str] = {}
    tally = ValueTally()  # one count per kind for the whole set, whatever its files
    for file, data in documents:
        tally.file = file
        read = _read_document(data, file, tally)
        for dialogue_id, turns in read:
            if dialogue_id in dialogues:  # which one was meant? (see the docstring)
                where = "earlier in this file" if origin[dialogue_id] == file else \
                    f"in {origin[dialogue_id]}"
                raise PredictionError(f"dialogue predicted twice: here and {where}; keep one",
                                      file=file, dialogue=dialogue_id)
            origin[dialogue_id] = file
            dialogues[dialogue_id] = turns
    if not dialogues:
        raise PredictionError("no dialogues in the predictions", file=str(path))
    issues.extend(tally.issues())
    return PredictionSet(source=str(path), format=FORMAT, dialogues=dialogues, issues=issues)
