"""Read prediction files into a :class:`~dst_eval.predictions.PredictionSet`.

Formats (detected from the content; ``pred_format`` overrides the detection):

``mwzeval``
    ``{dialogue_id: [turn, ...]}``, one turn object per user turn (= per system turn),
    with ``state`` ``{domain: {slot: value}}``, ``response``, ``active_domains`` and,
    optionally, ``requested_slots`` (a list of ``"domain-slot"``) and
    ``active_intents`` / ``active_intent`` (``{domain: intent}``). The wrapper
    ``{"metadata": {...}, "predictions": {<that mapping>}}`` is accepted too;
    ``metadata`` goes to :attr:`PredictionSet.metadata`.
``jsonl``
    One record per line ``{"dialogue_id", "turn_index", "state", ...}`` with the same
    optional keys (``turn_index`` = 0-based index among the dialogue's user turns), in
    any order; a JSON array of such records is read alike. A turn with no record
    inside a dialogue is a gap: an all-``None`` :class:`PredTurn` plus an Issue
    ``missing_turn`` (alignment scores it as missing).
``sgd``
    SGD-style dialogue files or directories with frames filled in, read by
    :mod:`dst_eval.formats.sgd_frames`.

A ``.zip`` holding one such JSON file (or SGD-style files) is read alike; a UTF-8 byte
order mark is ignored.

A ``state`` is nested ``{domain: {slot: value}}`` or flat ``{"domain-slot": value}``
(mixed within one state too); keys are canonicalised for the corpus by
:func:`dst_eval.slotkeys.canonical_slot_key`. :attr:`PredTurn.raw_state` keeps the
state object as the file gave it.

Value rules (a prediction is ONE string per slot):

* ``""`` or whitespace only, and ``null``: the slot is unset (dropped).
  For MultiWOZ (``corpus`` ``multiwoz21``/``multiwoz22``) also ``none`` and
  ``not mentioned`` (any case): the 2.1 ``metadata`` spelling of an unset slot.
  ``dontcare`` is an ordinary value and kept.
* numbers and booleans: ``str(value)``, Issue ``non_string_value``.
* a list: Issue ``hedged_value`` (two or more values) or ``non_string_value``
  (one value) and the first element is used; ``[]`` is unset with Issue
  ``empty_value_list``.
* a string holding ``|`` (``north|centre``) is kept as ONE value with Issue
  ``hedged_value``: the strict profile scores it as one (wrong) value, only the
  ``convlab`` compatibility profile splits it.
* two spellings of one slot in a turn (``price range`` and ``pricerange``) with
  different values: the first is kept, Issue ``duplicate_slot``.
* an object or any other JSON type, or a value longer than 10,000 characters:
  :class:`PredictionError` (so are dialogue ids and slot keys longer than 1,000
  characters, and JSONL ``turn_index`` values above 10,000).

Every problem with the file itself (empty, not JSON/UTF-8, nested too deeply, wrong
shape, duplicate dialogue ids or ``(dialogue_id, turn_index)`` records) is a
one-line :class:`PredictionError` (exit code 3) naming the file, dialogue and turn.
Duplicate keys in the top-level object, which a JSON parser merges silently, are
found by a scan of the raw text for keys whose value is a list (ids written with
backslash escapes are not covered by that scan). Dialogue ids that differ only by
case or a ``.json`` suffix are duplicates too.
"""

from __future__ import annotations

import re
import reprlib
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from dst_eval.errors import DstEvalError, PredictionError, UsageError
from dst_eval.gold import dialogue_key
from dst_eval.jsonio import iter_zip_json, parse_json_bytes, read_bytes
from dst_eval.predictions.model import Issue, PredictionSet, PredTurn
from dst_eval.slotkeys import canonical_domain, canonical_slot_key, key_policy, split_slot_key

FORMATS = ("mwzeval", "jsonl", "sgd")
MAX_VALUE_CHARS = 10_000
"""Longest accepted predicted value (longer ones make fuzzy matching pathological)."""
MAX_TURN_INDEX = 10_000
"""Largest accepted JSONL ``turn_index`` (gaps are filled, so it bounds memory)."""
MAX_NAME_CHARS = 1_000
"""Longest accepted dialogue id, domain or slot name (they appear in every message)."""

_MULTIWOZ = frozenset({"multiwoz21", "multiwoz22"})
_MULTIWOZ_UNSET = frozenset({"none", "not mentioned"})
_BOM = b"\xef\xbb\xbf"
_GAP = PredTurn()
_STR_TYPE = frozenset({str})
_EXPECTED = (
    "expected an mwzeval-style object {dialogue_id: [turn, ...]}, JSONL records "
    '{"dialogue_id", "turn_index", "state"} (one per line or in a JSON array), or '
    "SGD dialogues with frames; name the format with --pred-format if it is one of these"
)
# A key whose value is a list, right after a list value and a comma: the top-level keys
# of an mwzeval file but its first (plus a few inner keys, filtered out by the caller).
_LIST_KEY = re.compile(rb'\]\s*,\s*"([^"\\]*)"\s*:\s*\[')


_KIND_NAMES = {bool: "boolean", dict: "JSON object", list: "list", str: "string",
               int: "number", float: "number", type(None): "null"}


def _kind(obj: Any) -> str:
    """Describe a JSON value's type for an error message (``a list of numbers``)."""
    name = _KIND_NAMES.get(type(obj), type(obj).__name__)
    if type(obj) is list:
        if not obj:
            return "an empty list"
        inner = {_KIND_NAMES.get(type(x), type(x).__name__) for x in obj[:20]}
        return "a list of " + (inner.pop() + "s" if len(inner) == 1 else "mixed values")
    if name == "null":
        return name
    return ("an " if name[0] in "aeiou" else "a ") + name


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict = 2, 4, 4
_REPR.maxstring = _REPR.maxother = 60


def show(value: Any, limit: int = 60) -> str:
    """A short repr for messages: bounded in depth and length, whatever ``value`` holds."""
    text = _REPR.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _sgd_frames():  # the SGD frame reader lives in its own module, imported on demand
    try:
        from dst_eval.predictions import sgd_frames
    except ImportError as exc:
        raise UsageError("SGD-style prediction files are not supported by this version") from exc
    return sgd_frames


def _looks_like_sgd(obj: Any) -> bool:
    try:
        return bool(_sgd_frames().looks_like_sgd_frames(obj))
    except UsageError:
        return False


# --------------------------------------------------------------------------- detection


def _classify(obj: Any, file: str) -> str:
    """Name the format of a parsed JSON document, or raise a PredictionError saying why not."""
    if isinstance(obj, dict):
        if not obj:
            raise PredictionError("no predictions: the file holds an empty JSON object", file=file)
        if isinstance(obj.get("predictions"), dict):
            return "mwzeval"
        if "dialogue_id" in obj and "turn_index" in obj:
            return "jsonl"
        first = next(iter(obj.values()))
        if isinstance(first, list):
            return "mwzeval"
        if _looks_like_sgd(obj):
            return "sgd"
        raise PredictionError(
            f"cannot tell the prediction format: found a JSON object whose first value "
            f"(key {show(next(iter(obj)))}) is {_kind(first)}; {_EXPECTED}", file=file)
    if isinstance(obj, list):
        if not obj:
            raise PredictionError("no predictions: the file holds an empty list", file=file)
        first = obj[0]
        if isinstance(first, dict) and "turn_index" in first and "dialogue_id" in first:
            return "jsonl"
        if _looks_like_sgd(obj):
            return "sgd"
    raise PredictionError(f"cannot tell the prediction format: found {_kind(obj)}; {_EXPECTED}",
                          file=file)


def _parse_document(path: Path, data: bytes) -> tuple[str, Any]:
    """Parse ``data`` as one JSON document, falling back to JSONL; return (format, content)."""
    file = str(path)
    try:
        obj = parse_json_bytes(data, file=file, error=PredictionError)
    except PredictionError:
        lines = [line for line in data.splitlines() if line.strip()]
        if len(lines) > 1:
            try:
                head = parse_json_bytes(lines[0], file=file, error=PredictionError)
            except PredictionError:
                head = None
            if isinstance(head, dict):
                return "jsonl", data
        raise
    return _classify(obj, file), obj


def _load(path: Path, forced: str | None) -> tuple[str, Any, bytes | None]:
    """Return ``(format, parsed content, raw bytes)``; content is bytes for JSONL files."""
    if forced is not None and forced not in FORMATS:
        raise UsageError(f"unknown prediction format {forced!r}; known: {', '.join(FORMATS)}")
    if not path.exists():
        raise PredictionError("file not found", file=str(path))
    if path.is_dir():
        if forced not in (None, "sgd"):
            raise PredictionError(f"a directory holds SGD-style files, not {forced!r} "
                                  "predictions", file=str(path))
        return "sgd", None, None
    if forced == "sgd":
        return "sgd", None, None
    if path.suffix.lower() == ".zip":
        members = list(iter_zip_json(path, error=PredictionError))
        if len(members) != 1:  # several files: only SGD-style predictions come like that
            if members and (forced == "sgd" or _looks_like_sgd(members[0][1])):
                return "sgd", None, None
            raise PredictionError(f"expected one JSON file in the zip, found {len(members)}",
                                  file=str(path))
        obj = members[0][1]
        return (forced or _classify(obj, str(path))), obj, None
    data = read_bytes(path, error=PredictionError)
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    if forced == "jsonl" or (forced is None and path.suffix.lower() == ".jsonl"):
        if not data.strip():
            raise PredictionError("file is empty", file=str(path))
        if data.lstrip().startswith(b"["):  # a JSON array of records
            return "jsonl", parse_json_bytes(data, file=str(path), error=PredictionError), data
        return "jsonl", data, data
    if forced == "mwzeval":
        return "mwzeval", parse_json_bytes(data, file=str(path), error=PredictionError), data
    fmt, content = _parse_document(path, data)
    return fmt, content, data


def detect_format(path: str | Path) -> str:
    """The format of a prediction file or directory: ``mwzeval``, ``jsonl`` or ``sgd``."""
    return _load(Path(path), None)[0]


# --------------------------------------------------------------------------- turns


class _TurnReader:
    """Turns one turn object into a :class:`PredTurn`, recording Issues as it goes."""

    def __init__(self, file: str, corpus: str | None) -> None:
        self.file = file
        self.corpus = corpus
        self.issues: list[Issue] = []
        self.unset_lower = _MULTIWOZ_UNSET if corpus in _MULTIWOZ else frozenset()
        self._nested: dict[tuple[str, str], str] = {}
        self._flat: dict[str, str] = {}

    def error(self, message: str, dialogue: str | None, turn: int | None) -> PredictionError:
        return PredictionError(message, file=self.file, dialogue=dialogue, turn=turn)

    def issue(self, kind: str, message: str, dialogue: str, turn: int) -> None:
        self.issues.append(Issue(kind, message, file=self.file, dialogue=dialogue, turn=turn))

    # keys
    def check_name(self, name: str, what: str, dialogue: str, turn: int) -> None:
        if len(name) > MAX_NAME_CHARS:
            raise self.error(f"{what} {show(name)} of {len(name):,} characters exceeds the "
                             f"{MAX_NAME_CHARS:,}-character limit", dialogue, turn)

    def nested_key(self, domain: str, slot: str, dialogue: str, turn: int) -> str:
        key = self._nested.get((domain, slot))
        if key is None:
            if not domain.strip() or not slot.strip():
                raise self.error(f"empty domain or slot name in state key "
                                 f"{show(domain)}: {show(slot)}", dialogue, turn)
            self.check_name(domain + "-" + slot, "slot key", dialogue, turn)
            key = self._nested[(domain, slot)] = canonical_slot_key(domain, slot, self.corpus)
        return key

    def flat_key(self, raw: str, dialogue: str, turn: int) -> str:
        key = self._flat.get(raw)
        if key is None:
            domain, slot = split_slot_key(raw)
            if not domain.strip() or not slot.strip():
                raise self.error(f"state key {show(raw)} is not 'domain-slot' (and its value "
                                 "is not a {slot: value} object)", dialogue, turn)
            self.check_name(raw, "slot key", dialogue, turn)
            key = self._flat[raw] = canonical_slot_key(domain, slot, self.corpus)
        return key

    # values
    def value(self, value: Any, key: str, dialogue: str, turn: int) -> str | None:
        kind = type(value)
        if kind is str:
            if len(value) > MAX_VALUE_CHARS:
                raise self.error(f"slot {key}: value of {len(value):,} characters exceeds the "
                                 f"{MAX_VALUE_CHARS:,}-character limit", dialogue, turn)
            stripped = value.strip()
            if not stripped or (self.unset_lower and len(stripped) < 14
                                and stripped.lower() in self.unset_lower):
                return None
            if "|" in value:
                self.issue("hedged_value", f"slot {key}: value {show(value)} holds '|'-joined "
                           "alternatives; it is scored as ONE value (a prediction must be a "
                           "single value; label variants belong to the gold)", dialogue, turn)
            return value
        if value is None:
            return None
        if kind is int or kind is float or kind is bool:
            self.issue("non_string_value", f"slot {key}: value {show(value)} is a "
                       f"{'boolean' if kind is bool else 'number'}, read as {str(value)!r}",
                       dialogue, turn)
            return str(value)
        if kind is list:
            if not value:
                self.issue("empty_value_list", f"slot {key}: empty list of values, read as unset",
                           dialogue, turn)
                return None
            first = value[0]
            if isinstance(first, (list, dict)):
                raise self.error(f"slot {key}: a value must be a string, found "
                                 f"{_kind(value)}", dialogue, turn)
            if len(value) > 1:
                self.issue("hedged_value", f"slot {key}: {len(value)} values {show(value)}; "
                           f"only the first, {show(first)}, is used (a prediction is one "
                           "value)", dialogue, turn)
            else:
                self.issue("non_string_value", f"slot {key}: a list with one value "
                           f"{show(value)}, read as its element", dialogue, turn)
            return self.value(first, key, dialogue, turn)
        raise self.error(f"slot {key}: a value must be a string, found {_kind(value)} "
                         "(states are {domain: {slot: value}} or {\"domain-slot\": value})",
                         dialogue, turn)

    def put(self, state: dict[str, str], key: str, value: Any, dialogue: str, turn: int) -> None:
        text = self.value(value, key, dialogue, turn)
        if text is None:
            return
        old = state.get(key)
        if old is None:
            state[key] = text
        elif old != text:
            self.issue("duplicate_slot", f"slot {key} is given twice with different values "
                       f"({show(old)} and {show(text)}); the first is used", dialogue, turn)

    def state(self, raw: Any, dialogue: str, turn: int) -> MappingProxyType:
        if type(raw) is not dict:
            raise self.error(f"state must be a JSON object ({{domain: {{slot: value}}}} or "
                             f"{{\"domain-slot\": value}}), found {_kind(raw)}", dialogue, turn)
        state: dict[str, str] = {}
        nested, flat, unset = self._nested, self._flat, self.unset_lower
        for outer, inner in raw.items():
            pairs = inner.items() if type(inner) is dict else (((None, inner)),)
            for slot, value in pairs:
                if slot is None:
                    key = flat.get(outer) or self.flat_key(outer, dialogue, turn)
                else:
                    key = nested.get((outer, slot)) or self.nested_key(outer, slot, dialogue, turn)
                # fast path: an ordinary string for a slot not seen yet in this state
                if (type(value) is str and len(value) <= MAX_VALUE_CHARS and "|" not in value
                        and key not in state):
                    stripped = value.strip()
                    if stripped and not (unset and len(stripped) < 14
                                         and stripped.lower() in unset):
                        state[key] = value
                    continue
                self.put(state, key, value, dialogue, turn)
        return MappingProxyType(state)

    def strings(self, raw: Any, what: str, dialogue: str, turn: int) -> list[str]:
        if type(raw) is not list or not _STR_TYPE.issuperset(map(type, raw)):
            raise self.error(f"{what} must be a list of strings, found {_kind(raw)}",
                             dialogue, turn)
        return raw

    def turn(self, obj: Any, dialogue: str, turn: int) -> PredTurn:
        if type(obj) is not dict:
            raise self.error(f"a turn must be a JSON object, found {_kind(obj)}", dialogue, turn)
        get = obj.get
        raw_state = get("state")
        state = None if raw_state is None else self.state(raw_state, dialogue, turn)
        response = get("response")
        if response is not None and type(response) is not str:
            # a bad response is reported and scored as an empty one; never a crash
            self.issue("bad_response", f"response must be a string, found {_kind(response)}; "
                       "scored as an empty response", dialogue, turn)
            response = ""
        domains = get("active_domains")
        if domains is not None:
            domains = tuple(self.strings(domains, "active_domains", dialogue, turn))
        requested = get("requested_slots")
        if requested is not None:
            requested = frozenset(
                self._flat.get(raw) or self.flat_key(raw, dialogue, turn)
                for raw in self.strings(requested, "requested_slots", dialogue, turn))
        intents = get("active_intents")
        if intents is None:
            intents = get("active_intent")
        if intents is not None:
            intents = self.intents(intents, dialogue, turn)
        return PredTurn(state=state, requested_slots=requested, active_intents=intents,
                        response=response, active_domains=domains,
                        raw_state=raw_state if state is not None else None)

    def intents(self, raw: Any, dialogue: str, turn: int) -> MappingProxyType:
        if type(raw) is not dict:
            raise self.error(f"active_intents must be an object {{domain: intent}}, found "
                             f"{_kind(raw)}", dialogue, turn)
        out = {}
        for domain, intent in raw.items():
            if intent is None:
                continue
            if type(intent) is not str:
                raise self.error(f"active intent of {show(domain)} must be a string, found "
                                 f"{_kind(intent)}", dialogue, turn)
            out[canonical_domain(domain, self.corpus)] = intent
        return MappingProxyType(out)


# --------------------------------------------------------------------------- formats


def _check_top_level_duplicates(data: bytes | None, ids: Sequence[str], file: str) -> None:
    """Fail on a top-level key given twice (the JSON parser kept only its last value).

    Every occurrence of a dialogue id but the file's first key follows the list value of
    the previous one (``], "id": [``); the first key, first in the parsed dict's order
    too, follows ``{`` and is counted once without scanning.
    """
    if not data:
        return
    wanted = set(ids)
    counts = Counter(m.decode("utf-8", "replace") for m in _LIST_KEY.findall(data))
    if ids:
        counts[ids[0]] += 1
    for key, count in counts.items():
        if count > 1 and key in wanted:
            raise PredictionError(
                f"dialogue id {show(key)} is given {count} times; a JSON object keeps only "
                "the last one, so the others would be lost silently", file=file, dialogue=key)


def _check_same_dialogue(seen: dict[str, str], dialogue: str, file: str, where: str = "") -> None:
    key = dialogue_key(dialogue)
    other = seen.setdefault(key, dialogue)
    if other != dialogue:
        raise PredictionError(
            f"dialogue ids {show(other)} and {show(dialogue)}{where} name the same dialogue "
            "(ids match case-insensitively, with or without .json)", file=file, dialogue=dialogue)


def _read_mwzeval(obj: dict, data: bytes | None, reader: _TurnReader) -> PredictionSet:
    file = reader.file
    metadata: Any = {}
    if isinstance(obj.get("predictions"), dict):
        extra = sorted(set(obj) - {"predictions", "metadata"})
        if extra:
            raise PredictionError(f"unexpected top-level keys {', '.join(map(show, extra))} "
                                  "next to 'predictions' (only 'metadata' may go with it)",
                                  file=file)
        metadata = obj.get("metadata", {})
        if not isinstance(metadata, dict):
            raise PredictionError(f"'metadata' must be a JSON object, found {_kind(metadata)}",
                                  file=file)
        obj = obj["predictions"]
        if not obj:
            raise PredictionError("no predictions: 'predictions' is an empty object", file=file)
    _check_top_level_duplicates(data, list(obj), file)
    seen: dict[str, str] = {}
    dialogues: dict[str, list[PredTurn]] = {}
    for dialogue, turns in obj.items():
        if len(dialogue) > MAX_NAME_CHARS:
            raise PredictionError(f"dialogue id {show(dialogue)} of {len(dialogue):,} characters "
                                  f"exceeds the {MAX_NAME_CHARS:,}-character limit", file=file)
        _check_same_dialogue(seen, dialogue, file)
        if type(turns) is not list:
            raise PredictionError(f"expected a list of turns, found {_kind(turns)}",
                                  file=file, dialogue=dialogue)
        dialogues[dialogue] = [reader.turn(t, dialogue, i) for i, t in enumerate(turns)]
    return PredictionSet(file, "mwzeval", dialogues, reader.issues,
                         MappingProxyType(metadata))


def _jsonl_records(content: Any, file: str) -> Iterator[tuple[str, Any]]:
    """Yield ``(place, record)``: ``line N`` for JSONL text, ``record N`` for a JSON array."""
    if isinstance(content, list):
        for i, record in enumerate(content):
            yield f"record {i}", record
        return
    if isinstance(content, dict):
        yield "record 0", content
        return
    for lineno, line in enumerate(content.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield f"line {lineno}", parse_json_bytes(line, file=file, error=PredictionError)
        except PredictionError as exc:
            raise PredictionError(f"line {lineno}: {exc.message}", file=file) from None


def _read_jsonl(content: Any, reader: _TurnReader) -> PredictionSet:
    file = reader.file
    by_dialogue: dict[str, dict[int, PredTurn]] = {}
    places: dict[tuple[str, int], str] = {}
    seen: dict[str, str] = {}
    for place, record in _jsonl_records(content, file):
        if type(record) is not dict:
            raise PredictionError(f"{place}: a record must be a JSON object, found "
                                  f"{_kind(record)}", file=file)
        dialogue, index = record.get("dialogue_id"), record.get("turn_index")
        if type(dialogue) is int:
            dialogue = str(dialogue)
        if type(dialogue) is not str or not dialogue.strip() or len(dialogue) > MAX_NAME_CHARS:
            raise PredictionError(f"{place}: 'dialogue_id' must be a non-empty string of at most "
                                  f"{MAX_NAME_CHARS:,} characters, found {show(dialogue)}",
                                  file=file)
        if type(index) is not int or not 0 <= index <= MAX_TURN_INDEX:
            raise PredictionError(f"{place}: 'turn_index' must be an integer from 0 to "
                                  f"{MAX_TURN_INDEX:,}, found {show(index)}",
                                  file=file, dialogue=dialogue)
        _check_same_dialogue(seen, dialogue, file, f" ({place})")
        earlier = places.setdefault((dialogue, index), place)
        if earlier != place:
            raise PredictionError(f"duplicate record: {earlier} and {place} both predict this "
                                  "turn", file=file, dialogue=dialogue, turn=index)
        by_dialogue.setdefault(dialogue, {})[index] = reader.turn(record, dialogue, index)
    dialogues: dict[str, list[PredTurn]] = {}
    for dialogue, turns in by_dialogue.items():
        ordered = []
        for index in range(max(turns) + 1):
            turn = turns.get(index)
            if turn is None:
                reader.issue("missing_turn", "no record for this turn; it is scored as missing",
                             dialogue, index)
                turn = _GAP
            ordered.append(turn)
        dialogues[dialogue] = ordered
    return PredictionSet(file, "jsonl", dialogues, reader.issues)


def _read_sgd(path: Path, corpus: str | None, prefetched: Any = None) -> PredictionSet:
    module = _sgd_frames()
    try:
        predictions = module.read_sgd_frame_predictions(path)
    except DstEvalError:
        raise
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        raise PredictionError(f"unexpected structure in SGD-style predictions "
                              f"({type(exc).__name__}: {exc})", file=str(path)) from None
    if corpus is not None:
        _respell_states(predictions, corpus)
    return predictions


def _respell_states(predictions: PredictionSet, corpus: str) -> None:
    """Canonicalise the flat state keys of frame-based predictions for ``corpus``."""
    spelled: dict[str, str] = {}
    distinct = set().union(*(t.state for turns in predictions.dialogues.values()
                             for t in turns if t.state))
    for key in distinct:
        domain, slot = split_slot_key(key)
        spelled[key] = canonical_slot_key(domain, slot, corpus) if domain else key
    if all(spelled[key] == key for key in distinct):
        return  # the common case: every key is already canonical
    for turns in predictions.dialogues.values():
        for i, turn in enumerate(turns):
            if not turn.state:
                continue
            keys = []
            for key in turn.state:
                if key not in spelled:
                    domain, slot = split_slot_key(key)
                    spelled[key] = canonical_slot_key(domain, slot, corpus) if domain else key
                keys.append(spelled[key])
            if keys != list(turn.state):
                new_state = MappingProxyType(dict(zip(keys, turn.state.values(), strict=True)))
                turns[i] = _replace_state(turn, new_state)


def _replace_state(turn: PredTurn, state: MappingProxyType) -> PredTurn:
    return PredTurn(state=state, requested_slots=turn.requested_slots,
                    active_intents=turn.active_intents, response=turn.response,
                    active_domains=turn.active_domains, frames=turn.frames,
                    raw_state=turn.raw_state)




def _read_content(fmt: str, content: Any, data: bytes | None, source: str,
                  corpus: str | None) -> PredictionSet:
    reader = _TurnReader(source, corpus)
    if fmt == "jsonl":
        return _read_jsonl(content, reader)
    if not isinstance(content, dict):
        raise PredictionError(f"mwzeval predictions must be a JSON object {{dialogue_id: "
                              f"[turn, ...]}}, found {_kind(content)}", file=source)
    return _read_mwzeval(content, data, reader)


class PrefetchedPredictions:
    """Predictions whose reading started in a worker process (:func:`prefetch_predictions`);
    :func:`read_predictions` and :func:`dst_eval.evaluate` accept it."""

    def __init__(self, path: Path, pred_format: str | None, pending: Any) -> None:
        self.path = path
        self.pred_format = pred_format
        self.pending = pending

    def close(self) -> None:
        """Stop the worker if the predictions were not read (safe to call twice)."""
        self.pending.close()


def prefetch_predictions(path: str | Path,
                         pred_format: str | None = None) -> PrefetchedPredictions | None:
    """Start parsing an SGD-style prediction directory in a worker process now, so that the
    caller can load the gold meanwhile; None for anything else (nothing is started and
    nothing is checked: problems are reported by the real read)."""
    return None  # the SGD reader has no worker process any more: nothing to start early


def read_predictions(
    path: str | Path, *, pred_format: str | None = None, corpus: str | None = None,
    prefetched: PrefetchedPredictions | None = None,
) -> PredictionSet:
    """Read a prediction file or directory; keys are canonicalised for ``corpus`` when given
    (``prefetched``: the :func:`prefetch_predictions` of this path, when started earlier)."""
    path = Path(path)
    try:
        if corpus is not None:
            key_policy(corpus)  # an unknown corpus is a usage error before any reading
        fmt, content, data = _load(path, pred_format)
        if fmt == "sgd":
            pending = prefetched.pending if prefetched is not None else None
            return _read_sgd(path, corpus, pending)
        return _read_content(fmt, content, data, str(path), corpus)
    finally:
        if prefetched is not None:
            prefetched.close()


def predictions_from_object(
    obj: Any, *, source: str = "<memory>", pred_format: str | None = None,
    corpus: str | None = None,
) -> PredictionSet:
    """Read predictions already in memory (an mwzeval mapping, or a list of JSONL records).

    The same rules as :func:`read_predictions`; the caller's objects are referenced, not
    copied (``raw_state``), and never modified.
    """
    if pred_format is not None and pred_format not in FORMATS:
        raise UsageError(f"unknown prediction format {pred_format!r}; known: "
                         f"{', '.join(FORMATS)}")
    if corpus is not None:
        key_policy(corpus)
    fmt = pred_format or _classify(obj, source)
    if fmt == "sgd":
        raise UsageError("SGD-style predictions are read from their files or directory; "
                         "pass the path instead of the loaded objects")
    if fmt == "jsonl" and not isinstance(obj, list | dict):
        raise PredictionError(f"JSONL-style predictions must be a list of records, found "
                              f"{_kind(obj)}", file=source)
    return _read_content(fmt, obj, None, source, corpus)
