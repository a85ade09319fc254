"""One turn object of a JSON prediction file -> :class:`~dst_eval.predictions.PredTurn`.

Shared by the mwzeval-style JSON and the JSONL readers. A turn object may hold
``state``, ``response``, ``active_domains``, ``requested_slots`` (a list of
``"domain-slot"``) and ``active_intents`` / ``active_intent`` (``{domain: intent}``).

A ``state`` is nested ``{domain: {slot: value}}`` or flat ``{"domain-slot": value}``
(mixed within one state too); keys are spelled for the corpus by
:func:`dst_eval.slotkeys.canonical_slot_key` (the one place slot-name spellings are
resolved). :attr:`PredTurn.raw_state` keeps the state object as the file gave it.

Value rules (a prediction is ONE string per slot; the reader never strips, case-folds,
drops or rewrites a string -- what a value *means* is the profile's policy):

* a string is kept verbatim: ``""``, ``" "``, ``"none"``, ``"not mentioned"`` too;
* ``null``: the slot is not in the state (JSON's "no value"), Issue ``null_value``;
* numbers and booleans: ``str(value)``, Issue ``non_string_value`` (an integral number of
  2^53 or more is an error: JSON parsing may have lost its digits);
* a list: Issue ``hedged_value`` (two or more values) or ``non_string_value`` (one
  value) and the first element is used; ``[]`` is no value, Issue ``empty_value_list``;
* a string holding ``|`` (``north|centre``) is kept as ONE value with Issue
  ``hedged_value``: the strict profile scores it as one (wrong) value, only the
  ``convlab`` compatibility profile splits it;
* two spellings of one slot in a turn (``price range`` and ``pricerange``): the first
  value is in ``state``, the later ones in :attr:`PredTurn.duplicates`; different
  values give Issue ``duplicate_slot``;
* Issues: at most :data:`MAX_ISSUES_PER_KIND` per kind keep their place, one more Issue
  counts the rest (a file with a million hedged values stays small in memory);
* a key of the turn object that is none of these (nor a key the format uses to place the
  turn, such as JSONL's ``dialogue_id``/``turn_index``): one Issue ``unknown_key`` per
  file naming each such key with its count (a state under ``belief_state`` is not read);
  a file whose turn objects hold keys but never one of these is a
  :class:`PredictionError` (MTTOD/UBAR raw ``bspn_gen``/``resp_gen`` output, say);
* an object or any other JSON type, or a value longer than
  :data:`~dst_eval.predictions.common.MAX_VALUE_CHARS` characters (a response longer than
  :data:`~dst_eval.predictions.common.MAX_RESPONSE_CHARS`):
  :class:`PredictionError` (so are slot keys longer than
  :data:`~dst_eval.predictions.common.MAX_NAME_CHARS` characters, and, in objects given in
  memory, slot, domain and dialogue keys that are not strings).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from dst_eval.errors import PredictionError
from dst_eval.predictions.common import (
    MAX_NAME_CHARS,
    MAX_VALUE_CHARS,
    check_response_length,
    describe,
    show,
)
from dst_eval.predictions.model import Issue, PredTurn
from dst_eval.slotkeys import canonical_domain, canonical_slot_key, split_slot_key

_STR_TYPE = frozenset({str})
TURN_KEYS = frozenset({"state", "response", "active_domains", "requested_slots",
                       "active_intents", "active_intent"})
"""The keys of a turn object that are read."""
MAX_ISSUES_PER_KIND = 100
"""Issues of one kind kept with their place; the rest of that kind are counted."""
UNCAPPED = frozenset({"missing_turn"})
"""Kinds kept whole: one per dialogue at most (a reader names a dialogue's gaps in one
Issue), and the alignment tells a reader's gaps from empty records by them."""


def listed_keys(unknown: dict[str, list], limit: int = 8) -> tuple[str, Any, Any]:
    """The keys of ``unknown`` (``key -> [count, dialogue, turn]`` of its first turn), most
    frequent first, as ``'k' (3 turns), ...`` (``limit`` of them, then how many more), and
    the dialogue and turn of the most frequent one."""
    found = sorted(unknown.items(), key=lambda item: (-item[1][0], item[0]))
    listed = ", ".join(f"{show(key)} ({count:,} turn{'s' * (count != 1)})"
                       for key, (count, _, _) in found[:limit])
    if len(found) > limit:
        listed += f" and {len(found) - limit:,} more"
    _, dialogue, turn = found[0][1]
    return listed, dialogue, turn


class TurnReader:
    """Turns one turn object into a :class:`PredTurn`, recording Issues as it goes.

    Spelled slot keys are memoised per domain, then per slot (no key tuple per slot), and a
    turn object holding only ``state`` skips the lookups of the other keys: the 7,372 turns
    of a MultiWOZ 2.1 test prediction file read in 15.8 ms instead of 18.6 ms.
    """

    def __init__(self, file: str, corpus: str | None,
                 placing: frozenset[str] = frozenset()) -> None:
        """``placing``: keys the format uses to place a turn (not :data:`TURN_KEYS`, not
        unknown)."""
        self.file = file
        self.corpus = corpus
        self._known = TURN_KEYS | placing
        self._read_a_key = False  # some turn object holds a key of TURN_KEYS
        self._unknown: dict[str, list] = {}  # key -> [count, dialogue, turn] of its first turn
        self._issues: list[Issue] = []
        self._counts: dict[str, int] = {}
        self._nested: dict[str, dict[str, str]] = {}  # domain -> slot -> spelled key
        self._flat: dict[str, str] = {}
        self._repeated: dict[str, list[str]] | None = None

    def error(self, message: str, dialogue: str | None, turn: int | None) -> PredictionError:
        return PredictionError(message, file=self.file, dialogue=dialogue, turn=turn)

    def issue(self, kind: str, message: str, dialogue: str | None, turn: int | None) -> None:
        count = self._counts[kind] = self._counts.get(kind, 0) + 1
        if count <= MAX_ISSUES_PER_KIND or kind in UNCAPPED:
            self._issues.append(Issue(kind, message, file=self.file, dialogue=dialogue,
                                      turn=turn))

    @property
    def issues(self) -> list[Issue]:
        """The Issues recorded: at most :data:`MAX_ISSUES_PER_KIND` of each kind, then one
        Issue per kind counting the rest (memory bounded whatever the number of problems)."""
        more = [Issue(kind, f"{count - MAX_ISSUES_PER_KIND:,} more {kind} problems in this "
                      f"file (only the first {MAX_ISSUES_PER_KIND} are listed)", file=self.file,
                      unlisted=count - MAX_ISSUES_PER_KIND)
                for kind, count in self._counts.items()
                if count > MAX_ISSUES_PER_KIND and kind not in UNCAPPED]
        return self._issues + more if more else self._issues

    # keys
    def check_name(self, name: str, what: str, dialogue: str, turn: int) -> None:
        if len(name) > MAX_NAME_CHARS:
            raise self.error(f"{what} {show(name)} of {len(name):,} characters exceeds the "
                             f"{MAX_NAME_CHARS:,}-character limit", dialogue, turn)

    def nested_key(self, domain: str, slot: str, dialogue: str, turn: int) -> str:
        slots = self._nested.get(domain)
        key = None if slots is None else slots.get(slot)
        if key is None:
            for name in (domain, slot):  # in-memory objects only: JSON keys are strings
                if not isinstance(name, str):
                    raise self.error(f"state key {show(domain)}: {show(slot)}: a domain or "
                                     f"slot name must be a string, found {describe(name)}",
                                     dialogue, turn)
            if not domain.strip() or not slot.strip():
                raise self.error(f"empty domain or slot name in state key "
                                 f"{show(domain)}: {show(slot)}", dialogue, turn)
            self.check_name(domain + "-" + slot, "slot key", dialogue, turn)
            key = canonical_slot_key(domain, slot, self.corpus)
            self._nested.setdefault(domain, {})[slot] = key
        return key

    def flat_key(self, raw: str, dialogue: str, turn: int, what: str = "state key") -> str:
        key = self._flat.get(raw)
        if key is None:
            if not isinstance(raw, str):  # in-memory objects only: JSON keys are strings
                raise self.error(f"{what} {show(raw)}: a slot key must be a string, found "
                                 f"{describe(raw)}", dialogue, turn)
            domain, slot = split_slot_key(raw)
            if not domain.strip() or not slot.strip():
                detail = (" (and its value is not a {slot: value} object)"
                          if what == "state key" else "")
                raise self.error(f"{what} {show(raw)} is not 'domain-slot'{detail}", dialogue,
                                 turn)
            self.check_name(raw, "slot key", dialogue, turn)
            key = self._flat[raw] = canonical_slot_key(domain, slot, self.corpus)
        return key

    # values
    def value(self, value: Any, key: str, dialogue: str, turn: int) -> str | None:
        """The one string a JSON value gives (verbatim for strings); None for no value."""
        kind = type(value)
        if kind is str:
            if len(value) > MAX_VALUE_CHARS:
                raise self.error(f"slot {key}: value of {len(value):,} characters exceeds the "
                                 f"{MAX_VALUE_CHARS:,}-character limit", dialogue, turn)
            if "|" in value:
                self.issue("hedged_value", f"slot {key}: value {show(value)} holds '|'-joined "
                           "alternatives; it is scored as ONE value (a prediction must be a "
                           "single value; label variants belong to the gold)", dialogue, turn)
            return value
        if value is None:
            self.issue("null_value", f"slot {key}: null, read as no value", dialogue, turn)
            return None
        if kind is float and value.is_integer() and abs(value) >= 2 ** 53:
            raise self.error(f"slot {key}: the number {value!r} cannot be read exactly (a JSON "
                             "integer this large loses digits); write the value as a string",
                             dialogue, turn)
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
                                 f"{describe(value)}", dialogue, turn)
            if len(value) > 1:
                self.issue("hedged_value", f"slot {key}: {len(value)} values {show(value)}; "
                           f"only the first, {show(first)}, is used (a prediction is one "
                           "value)", dialogue, turn)
            else:
                self.issue("non_string_value", f"slot {key}: a list with one value "
                           f"{show(value)}, read as its element", dialogue, turn)
            return self.value(first, key, dialogue, turn)
        raise self.error(f"slot {key}: a value must be a string, found {describe(value)} "
                         "(states are {domain: {slot: value}} or {\"domain-slot\": value})",
                         dialogue, turn)

    def put(self, state: dict[str, str], key: str, value: Any, dialogue: str, turn: int) -> None:
        text = self.value(value, key, dialogue, turn)
        if text is None:
            return
        old = state.get(key)
        if old is None:
            state[key] = text
            return
        if self._repeated is None:
            self._repeated = {}
        self._repeated.setdefault(key, []).append(text)
        if old != text:
            self.issue("duplicate_slot", f"slot {key} is given twice with different values "
                       f"({show(old)} and {show(text)}); the first is used (the next one "
                       "where a profile reads the first as unset; trade counts both "
                       "items, as trade-dst does)", dialogue, turn)

    def state(self, raw: Any, dialogue: str, turn: int
              ) -> tuple[MappingProxyType, MappingProxyType | None]:
        """``(state, duplicates)`` of a raw state object."""
        if type(raw) is not dict:
            raise self.error(f"state must be a JSON object ({{domain: {{slot: value}}}} or "
                             f"{{\"domain-slot\": value}}), found {describe(raw)}",
                             dialogue, turn)
        state: dict[str, str] = {}
        nested, flat = self._nested, self._flat
        self._repeated = None
        for outer, inner in raw.items():
            if type(inner) is not dict:  # flat: "domain-slot": value
                key = flat.get(outer) or self.flat_key(outer, dialogue, turn)
                if (type(inner) is str and len(inner) <= MAX_VALUE_CHARS and "|" not in inner
                        and key not in state):  # fast path, as below
                    state[key] = inner
                else:
                    self.put(state, key, inner, dialogue, turn)
                continue
            slots = nested.get(outer) or {}  # this domain's spelled keys
            for slot, value in inner.items():
                key = slots.get(slot) or self.nested_key(outer, slot, dialogue, turn)
                # fast path: an ordinary string for a slot not seen yet in this state
                if (type(value) is str and len(value) <= MAX_VALUE_CHARS and "|" not in value
                        and key not in state):
                    state[key] = value
                    continue
                self.put(state, key, value, dialogue, turn)
        repeated = self._repeated
        if repeated is None:
            return MappingProxyType(state), None
        self._repeated = None
        return MappingProxyType(state), MappingProxyType(
            {key: tuple(values) for key, values in repeated.items()})

    def strings(self, raw: Any, what: str, dialogue: str, turn: int) -> list[str]:
        if type(raw) is not list or not _STR_TYPE.issuperset(map(type, raw)):
            raise self.error(f"{what} must be a list of strings, found {describe(raw)}",
                             dialogue, turn)
        return raw

    def turn(self, obj: Any, dialogue: str, turn: int) -> PredTurn:
        if type(obj) is not dict:
            hint = ("; SimpleTOD generated text? --pred-format simpletod reads it"
                    if type(obj) is str and "<|" in obj else "")
            raise self.error(f"a turn must be a JSON object, found {describe(obj)}{hint}",
                             dialogue, turn)
        if not self._known.issuperset(obj):
            self._unknown_keys(obj, dialogue, turn)
        if not self._read_a_key:
            self._read_a_key = not TURN_KEYS.isdisjoint(obj)
        get = obj.get
        raw_state = get("state")
        if raw_state is not None and len(obj) == 1:  # the common turn: a state only
            state, duplicates = self.state(raw_state, dialogue, turn)
            return PredTurn(state=state, raw_state=raw_state, duplicates=duplicates)
        state = duplicates = None
        if raw_state is not None:
            state, duplicates = self.state(raw_state, dialogue, turn)
        response = get("response")
        if response is not None and type(response) is not str:
            # reported and kept as written: the response scorers score it as an empty one
            # and count it as not a string; never a crash
            self.issue("bad_response", f"response must be a string, found {describe(response)}; "
                       "scored as an empty response", dialogue, turn)
        check_response_length(response, self.error, dialogue, turn)
        domains = get("active_domains")
        if domains is not None:
            domains = tuple(self.strings(domains, "active_domains", dialogue, turn))
        requested = get("requested_slots")
        if requested is not None:
            requested = frozenset(
                self._flat.get(raw) or self.flat_key(raw, dialogue, turn, "requested slot")
                for raw in self.strings(requested, "requested_slots", dialogue, turn))
        intents = get("active_intents")
        if intents is None:
            intents = get("active_intent")
        if intents is not None:
            intents = self.intents(intents, dialogue, turn)
        return PredTurn(state=state, requested_slots=requested, active_intents=intents,
                        response=response, active_domains=domains,
                        raw_state=raw_state if state is not None else None,
                        duplicates=duplicates)

    def _unknown_keys(self, obj: dict, dialogue: str, turn: int) -> None:
        for key in obj:
            if key not in self._known:
                seen = self._unknown.get(key)
                if seen is None:
                    self._unknown[key] = [1, dialogue, turn]
                else:
                    seen[0] += 1

    def check_keys(self) -> None:
        """After the last turn: the Issue ``unknown_key`` naming every key of turn objects
        that is not read, or a :class:`PredictionError` when no turn object held a key that
        is (nothing in the file would be scored)."""
        if not self._unknown:
            return
        listed, dialogue, turn = listed_keys(self._unknown)
        reads = ", ".join(sorted(TURN_KEYS))
        if not self._read_a_key:
            raise PredictionError(f"no turn object holds a key dst-eval reads ({reads}); "
                                  f"found {listed}: convert the file (a state goes under "
                                  "'state', a response under 'response')", file=self.file)
        self.issue("unknown_key", f"turn keys that are not read: {listed} (read: {reads})",
                   dialogue, turn)

    def intents(self, raw: Any, dialogue: str, turn: int) -> MappingProxyType:
        if type(raw) is not dict:
            raise self.error(f"active_intents must be an object {{domain: intent}}, found "
                             f"{describe(raw)}", dialogue, turn)
        out = {}
        for domain, intent in raw.items():
            if not isinstance(domain, str):  # in-memory objects only: JSON keys are strings
                raise self.error(f"active_intents key {show(domain)}: a domain name must be a "
                                 f"string, found {describe(domain)}", dialogue, turn)
            if intent is None:
                self.issue("null_intent", f"active intent of {show(domain)}: null, read as no "
                           "intent", dialogue, turn)
                continue
            if type(intent) is not str:
                raise self.error(f"active intent of {show(domain)} must be a string, found "
                                 f"{describe(intent)}", dialogue, turn)
            out[canonical_domain(domain, self.corpus)] = intent
        return MappingProxyType(out)
