"""Read SGD-style prediction files: the gold dialogue format with user-frame ``state`` filled in.

This is what the official SGD scorer consumes: a directory's every ``*.json`` except
``*dialogues_and_metrics.json`` (its own side output), or one file; a file holds a
list of dialogues or ``{dialogue_id: dialogue}``. One :class:`PredTurn` per USER turn,
in order, carrying

* ``frames``: one :class:`PredFrame` per frame -- service, ``active_intent``,
  ``requested_slots`` (tuple: a multiset), ``slot_values`` ``{slot: (values...)}``,
  ``spans`` (``SlotSpan`` tuple, or None when the frame has no ``slots`` key);
* the canonical flat view: ``state`` ``{"<service>-<slot>": first value}``,
  ``requested_slots`` ``{"<service>-<slot>"}``, ``active_intents``
  ``{service: intent}`` (intents other than ``NONE``), ``active_domains`` = services.

Value problems are Issues (one per kind and file, with the count and the first place),
never silent: a string instead of a list (``non_list_value``; the official scorer
would silently use its first character, we take the whole string), ``[]``
(``empty_value_list``; the slot counts as absent, the official scorer crashes), several
values (``hedged_value``; the first is used, as officially), a non-string value
(``non_string_value``; ``str()`` of it), a span without a position (MultiWOZ 2.2
``copy_from``; left out). Structural problems -- not a list/object of dialogues, a
dialogue without ``dialogue_id`` or ``turns``, a user frame without ``service`` or
``state``, a state without ``slot_values`` -- raise :class:`PredictionError` naming
file, dialogue and turn (the 0-based user-turn index, as in the PredictionSet; the
message adds the position in ``turns``). User utterances are not
checked here (there is no gold at this point).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType
from typing import Any

from dst_eval.corpora.sgd.loader import (
    Prefetch,
    flat_slot_key,
    frame_builder,
    parallel_map,
    slot_setters,
    span_builder,
)
from dst_eval.errors import DstEvalError, PredictionError
from dst_eval.jsonio import iter_zip_json, parse_json_bytes, read_bytes
from dst_eval.predictions.model import Issue, PredFrame, PredictionSet, PredTurn

FORMAT = "sgd"
SIDE_OUTPUT = "dialogues_and_metrics.json"
_VALUE_ISSUES = {
    "non_list_value": "slot values given as a string instead of a list (the whole string "
                      "is used; the official scorer would use its first character)",
    "empty_value_list": "slot values given as an empty list (the slot counts as absent; "
                        "the official scorer crashes)",
    "hedged_value": "slots with several predicted values (the first is used, as the "
                    "official scorer does)",
    "non_string_value": "non-string slot values (converted with str())",
    "span_without_position": "slot spans without start/exclusive_end (left out)",
    "missing_intent": "user frames without state.active_intent (left out of intent "
                      "accuracy)",
    "missing_requested_slots": "user frames without state.requested_slots (left out of "
                               "requested-slot scores)",
}


def looks_like_sgd_frames(obj: Any) -> bool:
    """True for a list of SGD dialogues or ``{id: dialogue}``: the first dialogue has a
    ``turns`` list whose first turn has ``speaker`` and a ``frames`` list."""
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
    return isinstance(turn, dict) and "speaker" in turn and isinstance(turn.get("frames"), list)


# --------------------------------------------------------------------------- extraction


class _Tally:
    """Counts value issues per kind, remembering the first place of each."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.first: dict[str, tuple[str, int, str]] = {}

    def add(self, kind: str, dialogue: str, turn: int, detail: str) -> None:
        if kind not in self.counts:
            self.counts[kind] = 0
            self.first[kind] = (dialogue, turn, detail)
        self.counts[kind] += 1


def _values(raw: Any, tally: _Tally, dialogue: str, turn: int, slot: str) -> tuple | None:
    if type(raw) is list:
        if not raw:
            tally.add("empty_value_list", dialogue, turn, f"slot {slot!r}")
            return None
        if len(raw) > 1:
            tally.add("hedged_value", dialogue, turn, f"slot {slot!r}: {raw[:3]!r}")
        for value in raw:
            if type(value) is not str:
                tally.add("non_string_value", dialogue, turn, f"slot {slot!r}: {value!r}")
                return tuple(v if type(v) is str else str(v) for v in raw)
        return tuple(raw)
    if type(raw) is str:
        tally.add("non_list_value", dialogue, turn, f"slot {slot!r}: {raw!r}")
        return (raw,)
    if raw is None or isinstance(raw, dict):
        raise TypeError(f"slot {slot!r} has {'null' if raw is None else 'an object'} "
                        "as its value list")
    tally.add("non_string_value", dialogue, turn, f"slot {slot!r}: {raw!r}")
    return (str(raw),)


def _spans(raw: Any, tally: _Tally, dialogue: str, turn: int) -> tuple:
    if not isinstance(raw, list):
        raise TypeError("'slots' is not a list")
    out = []
    for span in raw:
        if "start" not in span or "exclusive_end" not in span:
            tally.add("span_without_position", dialogue, turn, f"span {span!r}")
            continue
        slot, start, end = span["slot"], span["start"], span["exclusive_end"]
        if type(slot) is not str or type(start) is not int or type(end) is not int:
            raise TypeError(f"malformed slot span {span!r}")
        out.append((slot, start, end))
    return tuple(out)


class _Extractor:
    """Parsed prediction dialogues -> compact, ready-to-wrap tuples (marshal-able, so a
    worker process can do this part).

    Per user turn: ``(frames, flat state items, requested keys, intents, services)``, a
    frame being ``(service, intent, requested, state index, spans)``; ``states`` holds each
    distinct ``((slot, values), ...)`` once (cumulative states repeat from turn to turn).
    """

    def __init__(self, file: str) -> None:
        self.file = file
        self.tally = _Tally()
        self.states: list[tuple] = []
        self.state_index: dict[tuple, int] = {}
        self.key = flat_slot_key

    def dialogue(self, dialogue_id: str, dialogue: Any) -> tuple:
        """One predicted dialogue -> ``(dialogue_id, (turn, ...))`` (USER turns only)."""
        file = self.file
        if not isinstance(dialogue, dict):
            raise PredictionError("a dialogue is not a JSON object", file=file,
                                  dialogue=dialogue_id)
        turns = dialogue.get("turns")
        if not isinstance(turns, list):
            raise PredictionError("dialogue without a 'turns' list", file=file,
                                  dialogue=dialogue_id)
        out: list[tuple] = []
        for raw_index, turn in enumerate(turns):
            try:
                if turn["speaker"] != "USER":
                    continue
                out.append(self._turn(turn, dialogue_id, len(out), raw_index))
            except PredictionError:
                raise
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                detail = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
                raise PredictionError(
                    f"malformed turn (position {raw_index} in 'turns'): {detail}",
                    file=file, dialogue=dialogue_id, turn=len(out)) from None
        return (dialogue_id, tuple(out))

    def _turn(self, turn: dict, dialogue_id: str, index: int, raw_index: int) -> tuple:
        tally, key = self.tally, self.key
        frames = []
        flat: list[tuple[str, str]] = []
        requested_keys: list[str] = []
        intents: list[tuple[str, str]] = []
        for frame in turn["frames"]:
            if "service" not in frame or "state" not in frame:
                missing = "service" if "service" not in frame else "state"
                raise PredictionError(
                    f"user frame without {missing!r} (position {raw_index} in 'turns')",
                    file=self.file, dialogue=dialogue_id, turn=index)
            service, state = frame["service"], frame["state"]
            if type(service) is not str or not isinstance(state, dict):
                raise TypeError("'service' must be a string and 'state' an object")
            intent = state.get("active_intent")
            if intent is None:
                tally.add("missing_intent", dialogue_id, index, f"service {service!r}")
            elif type(intent) is not str:
                raise TypeError(f"'active_intent' is {intent!r}, not a string")
            elif intent != "NONE":
                intents.append((service, intent))
            requested = state.get("requested_slots")
            if requested is None:
                tally.add("missing_requested_slots", dialogue_id, index, f"service {service!r}")
            else:
                if type(requested) is not list or not all(type(r) is str for r in requested):
                    raise TypeError("'requested_slots' is not a list of strings")
                requested = tuple(requested)
                requested_keys.extend([key(service, slot) for slot in requested])
            slot_values = state["slot_values"]
            if not isinstance(slot_values, dict):
                raise TypeError("'slot_values' is not an object")
            values = []
            for slot, raw in slot_values.items():
                if type(raw) is list and len(raw) == 1 and type(raw[0]) is str:
                    values.append((slot, (raw[0],)))  # the common case, inlined
                    continue
                kept = _values(raw, tally, dialogue_id, index, slot)
                if kept is not None:
                    values.append((slot, kept))
            values_key = tuple(values)
            state_id = self.state_index.get(values_key)
            if state_id is None:
                state_id = self.state_index[values_key] = len(self.states)
                self.states.append(values_key)
            flat.extend([(key(service, slot), variants[0]) for slot, variants in values])
            spans = frame.get("slots")
            if spans is not None:
                spans = _spans(spans, tally, dialogue_id, index)
            frames.append((service, intent, requested, state_id, spans))
        return (tuple(frames), tuple(flat), tuple(requested_keys), tuple(intents),
                tuple([f[0] for f in frames]))


def extract_document(data: Any, file: str) -> tuple:
    """A parsed prediction document -> ``(file, dialogues, states, tally counts, tally
    firsts)`` (see :class:`_Extractor`)."""
    if isinstance(data, dict):
        items = list(data.items())
    elif isinstance(data, list):
        items = []
        for dialogue in data:
            if not isinstance(dialogue, dict):
                raise PredictionError("expected a list of dialogue objects", file=file)
            dialogue_id = dialogue.get("dialogue_id")
            if not isinstance(dialogue_id, str):
                raise PredictionError("dialogue without a string 'dialogue_id'", file=file)
            items.append((dialogue_id, dialogue))
    else:
        raise PredictionError("expected a list of SGD dialogues or {dialogue_id: dialogue}",
                              file=file)
    extractor = _Extractor(file)
    dialogues = [extractor.dialogue(str(key), dialogue) for key, dialogue in items]
    return file, dialogues, extractor.states, extractor.tally.counts, extractor.tally.first


def extract_file(path_str: str) -> tuple:
    data = parse_json_bytes(read_bytes(Path(path_str), error=PredictionError),
                            file=path_str, error=PredictionError)
    return extract_document(data, path_str)


# --------------------------------------------------------------------------- building


def _prediction_files(path: Path) -> tuple[list[Path], list[Issue]]:
    if not path.is_dir():
        return [path], []
    files, issues = [], []
    for candidate in sorted(path.glob("*.json")):
        if SIDE_OUTPUT in candidate.name:
            issues.append(Issue("skipped_file", f"skipped the SGD scorer's side output "
                                f"{candidate.name}", file=str(candidate)))
            continue
        if candidate.name == "schema.json":
            issues.append(Issue("skipped_file", "skipped schema.json", file=str(candidate)))
            continue
        files.append(candidate)
    if not files:
        raise PredictionError("no *.json prediction files in the directory", file=str(path))
    return files, issues


def _build(extracted: tuple) -> tuple:
    """One file's :func:`extract_file` result -> ``(file, issues, [(dialogue_id, turns)])``."""
    file, compact, states, counts, first = extracted
    return file, _issues(counts, first, file), _build_dialogues(compact, states)


def _turn_builder() -> Callable:
    """``(state, requested_slots, active_intents, active_domains, frames) -> PredTurn`` (the
    other fields None), setting the slots directly when possible (see ``slot_setters``)."""
    setters = slot_setters(PredTurn, ("state", "requested_slots", "active_intents", "response",
                                      "active_domains", "frames", "raw_state"))
    if setters is None:
        def plain(state: Any, requested: Any, intents: Any, domains: Any, frames: Any
                  ) -> PredTurn:
            return PredTurn(state=state, requested_slots=requested, active_intents=intents,
                            active_domains=domains, frames=frames)
        return plain
    (set_state, set_requested, set_intents, set_response, set_domains, set_frames,
     set_raw) = setters
    new = object.__new__

    def build(state: Any, requested: Any, intents: Any, domains: Any, frames: Any) -> PredTurn:
        turn = new(PredTurn)
        set_state(turn, state)
        set_requested(turn, requested)
        set_intents(turn, intents)
        set_response(turn, None)
        set_domains(turn, domains)
        set_frames(turn, frames)
        set_raw(turn, None)
        return turn

    return build


_pred_turn = _turn_builder()
_pred_frame = frame_builder(PredFrame)
_span = span_builder()


def _build_dialogues(compact: list, states: list) -> list[tuple[str, list[PredTurn]]]:
    """Wrap one file's compact dialogues (see :class:`_Extractor`) into PredTurns."""
    mappings = [MappingProxyType(dict(values)) for values in states]
    pred_turn, pred_frame, span = _pred_turn, _pred_frame, _span
    out = []
    for dialogue_id, turns in compact:
        pred_turns = []
        for frames, flat, requested, intents, services in turns:
            pred_turns.append(pred_turn(
                dict(flat), frozenset(requested), dict(intents), services,
                tuple([
                    pred_frame(service, intent, req, mappings[state_id],
                               None if spans is None else tuple([span(*s) for s in spans]))
                    for service, intent, req, state_id, spans in frames]),
            ))
        out.append((dialogue_id, pred_turns))
    return out


def _issues(counts: dict, first: dict, file: str) -> list[Issue]:
    issues = []
    for kind, count in counts.items():
        dialogue, turn, detail = first[kind]
        issues.append(Issue(kind, f"{count} {_VALUE_ISSUES[kind]}; first: {detail}",
                            file=file, dialogue=dialogue, turn=turn))
    return issues


class PendingRead:
    """A prediction directory whose files a worker process is parsing (:func:`start_reading`)."""

    def __init__(self, path: Path, files: list[Path], issues: list[Issue],
                 prefetch: Prefetch) -> None:
        self.path = path
        self.files = files
        self.issues = issues
        self.prefetch = prefetch

    def close(self) -> None:
        """Stop the worker if its results were not consumed."""
        self.prefetch.close()


def start_reading(path: Path) -> PendingRead | None:
    """Start parsing the files of prediction directory ``path`` in a worker process, so
    that the caller can load the gold meanwhile; pass the result to
    :func:`read_sgd_frame_predictions`. None when ``path`` is not a directory of
    prediction files (any problem is then reported by the real read)."""
    path = Path(path)
    try:
        if not path.is_dir():
            return None
        files, issues = _prediction_files(path)
        sizes = [f.stat().st_size for f in files]
    except (DstEvalError, OSError):
        return None
    return PendingRead(path, files, issues,
                       Prefetch(extract_file, [(str(f),) for f in files], sizes))


def read_sgd_frame_predictions(path: Path, pending: PendingRead | None = None) -> PredictionSet:
    """Read an SGD-style prediction file, ``.zip`` or directory into a :class:`PredictionSet`
    (``pending``: that directory's :func:`start_reading`, when it was started earlier)."""
    path = Path(path)
    if not path.exists():
        raise PredictionError("prediction path does not exist", file=str(path))
    if pending is not None and pending.path == path:
        issues = list(pending.issues)
        built = pending.prefetch.collect(_build)
    elif path.suffix.lower() == ".zip":
        issues = []
        built = [_build(extract_document(doc, f"{path}:{name}"))
                 for name, doc in iter_zip_json(path, error=PredictionError)
                 if SIDE_OUTPUT not in name]
    else:
        files, issues = _prediction_files(path)
        # this process parses half of the bytes, wrapping each file into PredTurns as soon
        # as it is parsed, while the worker parses the other half; then it wraps that half
        built = parallel_map(extract_file, [(str(f),) for f in files],
                             [f.stat().st_size for f in files], then=_build)
    dialogues: dict[str, list[PredTurn]] = {}
    origin: dict[str, str] = {}
    for file, file_issues, file_dialogues in built:
        issues.extend(file_issues)
        for dialogue_id, turns in file_dialogues:
            if dialogue_id in dialogues:
                issues.append(Issue(
                    "duplicate_dialogue",
                    f"dialogue also predicted in {origin[dialogue_id]}; the later one is "
                    "used (as the official scorer does)", file=file, dialogue=dialogue_id,
                    severity="error"))
            origin[dialogue_id] = file
            dialogues[dialogue_id] = turns
    if not dialogues:
        raise PredictionError("no dialogues in the predictions", file=str(path))
    return PredictionSet(source=str(path), format=FORMAT, dialogues=dialogues, issues=issues)
