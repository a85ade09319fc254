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

from pathlib import Path
from typing import Any

from ..errors import PredictionError
from ..gold import SlotSpan
from ..jsonio import iter_zip_json, parse_json_bytes, read_bytes
from ..loaders.sgd import flat_slot_key, gc_paused, parallel_map
from ..predictions import Issue, PredFrame, PredictionSet, PredTurn

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


def _dialogue(dialogue_id: str, dialogue: Any, tally: _Tally, file: str) -> tuple:
    """One predicted dialogue -> ``(dialogue_id, ((frame, ...) per user turn))``."""
    if not isinstance(dialogue, dict):
        raise PredictionError("a dialogue is not a JSON object", file=file, dialogue=dialogue_id)
    turns = dialogue.get("turns")
    if not isinstance(turns, list):
        raise PredictionError("dialogue without a 'turns' list", file=file,
                              dialogue=dialogue_id)
    out = []
    for raw_index, turn in enumerate(turns):
        try:
            if turn["speaker"] != "USER":
                continue
            frames = []
            for frame in turn["frames"]:
                if "service" not in frame or "state" not in frame:
                    missing = "service" if "service" not in frame else "state"
                    raise PredictionError(
                        f"user frame without {missing!r} (position {raw_index} in 'turns')",
                        file=file, dialogue=dialogue_id, turn=len(out))
                service, state = frame["service"], frame["state"]
                if type(service) is not str or not isinstance(state, dict):
                    raise TypeError("'service' must be a string and 'state' an object")
                intent = state.get("active_intent")
                if intent is None:
                    tally.add("missing_intent", dialogue_id, len(out), f"service {service!r}")
                elif type(intent) is not str:
                    raise TypeError(f"'active_intent' is {intent!r}, not a string")
                requested = state.get("requested_slots")
                if requested is None:
                    tally.add("missing_requested_slots", dialogue_id, len(out),
                              f"service {service!r}")
                else:
                    if type(requested) is not list or not all(type(r) is str for r in requested):
                        raise TypeError("'requested_slots' is not a list of strings")
                    requested = tuple(requested)
                slot_values = state["slot_values"]
                if not isinstance(slot_values, dict):
                    raise TypeError("'slot_values' is not an object")
                values = []
                for slot, raw in slot_values.items():
                    kept = _values(raw, tally, dialogue_id, len(out), slot)
                    if kept is not None:
                        values.append((slot, kept))
                spans = frame.get("slots")
                if spans is not None:
                    spans = _spans(spans, tally, dialogue_id, len(out))
                frames.append((service, intent, requested, tuple(values), spans))
            out.append(tuple(frames))
        except PredictionError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            detail = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
            raise PredictionError(f"malformed turn (position {raw_index} in 'turns'): {detail}",
                                  file=file, dialogue=dialogue_id, turn=len(out)) from None
    return (dialogue_id, tuple(out))


def extract_document(data: Any, file: str) -> tuple:
    """A parsed prediction document -> ``(compact dialogues, tally counts, tally firsts)``."""
    tally = _Tally()
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
    with gc_paused():
        dialogues = [_dialogue(str(key), dialogue, tally, file) for key, dialogue in items]
    return dialogues, tally.counts, tally.first


def extract_file(path_str: str) -> tuple:
    with gc_paused():
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


def _build_turn(frames: tuple, key_cache: dict) -> PredTurn:
    pred_frames = []
    state: dict[str, str] = {}
    requested: list[str] = []
    intents: dict[str, str] = {}
    for service, intent, req, values, spans in frames:
        for slot, variants in values:
            key = key_cache.get((service, slot))
            if key is None:
                key = key_cache[(service, slot)] = flat_slot_key(service, slot)
            state[key] = variants[0]
        if req:
            requested.extend(flat_slot_key(service, s) for s in req)
        if intent is not None and intent != "NONE":
            intents[service] = intent
        pred_frames.append(PredFrame(
            service, intent, req, dict(values),
            None if spans is None else tuple([SlotSpan(*s) for s in spans]),
        ))
    return PredTurn(state=state, requested_slots=frozenset(requested),
                    active_intents=intents, active_domains=tuple(f.service for f in pred_frames),
                    frames=tuple(pred_frames))


def _issues(counts: dict, first: dict, file: str) -> list[Issue]:
    issues = []
    for kind, count in counts.items():
        dialogue, turn, detail = first[kind]
        issues.append(Issue(kind, f"{count} {_VALUE_ISSUES[kind]}; first: {detail}",
                            file=file, dialogue=dialogue, turn=turn))
    return issues


def read_sgd_frame_predictions(path: Path) -> PredictionSet:
    """Read an SGD-style prediction file, ``.zip`` or directory into a :class:`PredictionSet`."""
    path = Path(path)
    if not path.exists():
        raise PredictionError("prediction path does not exist", file=str(path))
    if path.suffix.lower() == ".zip":
        parts = [(name, extract_document(doc, f"{path}:{name}"))
                 for name, doc in iter_zip_json(path, error=PredictionError)
                 if SIDE_OUTPUT not in name]
        issues: list[Issue] = []
    else:
        files, issues = _prediction_files(path)
        results = parallel_map(extract_file, [(str(f),) for f in files],
                               [f.stat().st_size for f in files])
        parts = [(str(f), r) for f, r in zip(files, results, strict=True)]
    dialogues: dict[str, list[PredTurn]] = {}
    origin: dict[str, str] = {}
    key_cache: dict = {}
    with gc_paused():
        for file, (compact, counts, first) in parts:
            issues.extend(_issues(counts, first, file))
            for dialogue_id, turns in compact:
                if dialogue_id in dialogues:
                    issues.append(Issue(
                        "duplicate_dialogue",
                        f"dialogue also predicted in {origin[dialogue_id]}; the later one is "
                        "used (as the official scorer does)", file=file, dialogue=dialogue_id,
                        severity="error"))
                origin[dialogue_id] = file
                dialogues[dialogue_id] = [_build_turn(frames, key_cache) for frames in turns]
    if not dialogues:
        raise PredictionError("no dialogues in the predictions", file=str(path))
    return PredictionSet(source=str(path), format=FORMAT, dialogues=dialogues, issues=issues)
