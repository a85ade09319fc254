"""MultiWOZ 2.0 / 2.1 / 2.4 gold loader: the original ``data.json`` format.

Input: a ``.json`` file ``{dialogue_id: {"goal": {...}, "log": [turn, ...]}}`` or a ``.zip``
holding it (the single ``.json`` member, or the member named ``data.json``). ``log`` alternates
user (even positions) and system (odd positions) turns; ``log[2i+1].metadata`` =
``{domain: {"semi": {slot: value}, "book": {slot: value, "booked": [...]}}}`` is the state after
user turn ``i``. A final user turn without a following system turn has no state and is skipped.

Split: with ``split`` given and ``testListFile`` / ``valListFile`` (optionally ``.txt`` /
``.json``) next to the file (in a zip: in the folder of its data member; list files in other
folders of the zip are ignored), only the listed dialogues are kept (``test``;
``val``/``dev``/``validation``; ``train`` = listed in neither, needs both lists). A file
named for its split (``test.json.zip``; its own name, never a folder's) holds that split,
whole: a dialogue its list file does not name, or one it names missing from the file, is an
error (a zip without list files beside its data member is checked with those beside the
zip: the per-split folder). ``split`` must name a split the gold holds (a list file for it,
or the file's own name), else :class:`GoldDataError` listing the splits it holds; without
``split``, a file named for its split loads whole, and a file whose list files show it
holds training dialogues too (the full ``data.json``) is refused (choose one). A listed id
missing from the file, a dialogue in both list files, and a listed id matching a dialogue
only after Unicode normalisation are errors (:mod:`.splits21`).

Canonical state (keys = the MultiWOZ 2.2 names, so predictions are interchangeable):

* key ``"{domain}-{slot}"`` lower-cased, spaces removed (``leaveAt`` -> ``leaveat``,
  ``arriveBy`` -> ``arriveby``); ``book`` slots get the prefix ``book`` (``hotel-bookday``,
  ``restaurant-booktime``, ``train-bookpeople``); ``book.booked`` (of any type) is ignored;
* values are stripped; ``""``, ``not mentioned`` and ``none`` (any case) mean *not set* and are
  dropped; ``dontcare``, ``dont care``, ``don't care``, ``do n't care``, ``do nt care`` and
  ``do not care`` (any case) become ``dontcare``; every other value is kept as written (the
  value policy of :mod:`dst_eval.normalize` applies later, to gold and predictions alike).
  Each state value is a one-element tuple.

Per turn: ``requested_slots`` and ``active_intents`` are empty (2.1 has none), ``services`` =
domains present in the state, ``system_response`` = the system text, no frames.
``system_annotations`` (what MultiWOZ response scoring needs, :mod:`.response_gold`):
``span_info`` (the system turn's ``[act, slot, value, first word, last word]`` spans, as
tuples), ``span_unit`` = ``"word"``, ``booked_domains`` (domains whose ``book.booked`` was
non-empty at this turn or before, metadata order, taxi excluded) and ``belief``
(``((domain, ((slot, value), ...)), ...)``: every annotated slot in metadata order, ``semi``
then ``book`` (as ``book<slot>``), values as written except ``""``, ``none`` and
``not mentioned``).

Speed: a zip member inflated in one buffer (:func:`~dst_eval.corpora.layout.read_member`);
typed decoding (msgspec) of only ``goal`` and ``log[*].text/metadata/span_info`` (``span_info``
straight into the tuples a turn keeps); each domain's metadata stays raw JSON, parsed once
per distinct content (:class:`_Memo`). A turn whose metadata repeats the previous turn's
shares its state, services and belief; a domain whose metadata repeats the previous turn's
(for the first turn: the previous dialogue's first turn's) is not looked up again; a slot
value's items and a key set's services are derived once. 2.1 test split (7,372 turns):
building 85 -> 64 ms, the ``dst-eval`` gold stage 241 -> 202 ms (CPU, medians).
``GoldDialogue.goal`` = the dialogue's ``goal`` (deeply read-only: mappings and tuples; each
entry parsed on first access, so an entry that does not parse -- invalid UTF-8 -- is a
:class:`~dst_eval.errors.GoldDataError` naming file and dialogue when responses are scored);
``GoldDialogue.services`` = the goal's domains with a non-empty goal, in goal order.
``GoldSet.slots`` = ``configs/multiwoz21.toml`` ``slots`` (the 30 TRADE slots); every annotated
slot stays in the state, also outside them (``hospital-department`` in 7 val turns).

Malformed gold raises :class:`~dst_eval.errors.GoldDataError` (exit 4) naming the file, the
dialogue and the turn by its position in ``log`` (e.g. a ``semi`` or ``book`` that is present
but not an object, ``null`` included; an absent one is an empty part). Two dialogue ids that
match as one (:func:`~dst_eval.gold.dialogue_key`) are refused by :class:`GoldSet`.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any

import msgspec
import orjson

from dst_eval.config import corpus_config
from dst_eval.corpora.layout import SPLIT_WORDS, FileLog, GoldZip, deep_freeze, split_in_name
from dst_eval.corpora.multiwoz.splits21 import (
    LIST_FILES,
    LIST_SUFFIXES,
    Lists,
    lists_beside,
    parse_id_list,
    resolve,
)
from dst_eval.errors import DstEvalError, GoldDataError, UsageError
from dst_eval.gold import GoldDialogue, GoldSet, GoldTurn
from dst_eval.jsonio import decode_typed, parse_json_bytes

CORPUS = "multiwoz21"
NOT_A_SLOT = frozenset({"train-bookticket"})  # in the metadata; every preprocessing drops it
EMPTY_VALUES = frozenset({"", "not mentioned", "none"})
DONTCARE_VALUES = frozenset(
    {"dontcare", "dont care", "don't care", "do n't care", "do nt care", "do not care"}
)
NOT_BOOKABLE_FOR_REFERENCE = frozenset({"taxi"})
"""Domains whose booking gives no reference number: not in ``booked_domains`` (mwzeval)."""
_SNIFF_BYTES = 1 << 20
_LOG_LIST = re.compile(rb'"log"\s*:\s*\[')
"""A ``log`` list, looked for in the first :data:`_SNIFF_BYTES` of a JSON object."""


def canonical_value(value: str) -> str | None:
    """The loader's value rule: stripped value, ``dontcare`` unified, None when not set."""
    stripped = value.strip()
    folded = stripped.lower()
    if folded in EMPTY_VALUES:
        return None
    if folded in DONTCARE_VALUES:
        return "dontcare"
    return stripped


@lru_cache(maxsize=4096)
def canonical_key(domain: str, slot: str, *, book: bool) -> str:
    """``("train", "leaveAt")`` -> ``"train-leaveat"``; book slots -> ``"hotel-bookday"``."""
    name = "".join(slot.split()).lower()
    return f"{domain.strip().lower()}-{'book' if book else ''}{name}"


# ----------------------------------------------------------------------------------- public API


def sniff(path: str | Path) -> bool:
    """True if ``path`` is a ``data.json``-style file (dialogues with ``log``) or its zip.

    Looks at the first MiB only (no parse): a JSON object with a ``log`` list in it.
    """
    path = Path(path)
    if path.suffix not in (".json", ".zip") or not path.is_file():
        return False
    try:
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                member = _data_member(archive, path)
                with archive.open(member) as stream:
                    head = stream.read(_SNIFF_BYTES)
        else:
            with path.open("rb") as stream:
                head = stream.read(_SNIFF_BYTES)
    except (DstEvalError, OSError, ValueError, zipfile.BadZipFile):
        return False
    return (head.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"{")
            and _LOG_LIST.search(head) is not None)


def load(path: str | Path, *, split: str | None = None, whole: bool = False) -> GoldSet:
    """Load MultiWOZ 2.x ``data.json`` gold (see the module docstring); ``whole``: every
    dialogue of the file, whatever its list files say (``--goals`` data)."""
    path = Path(path)
    if not path.exists():
        raise GoldDataError("gold path does not exist", file=str(path))
    if path.is_dir():
        raise GoldDataError("expected a data.json-style file or a .zip, found a folder",
                            file=str(path))
    if split is not None and split.lower() not in SPLIT_WORDS:
        raise UsageError(f"unknown MultiWOZ split {split!r}; use train, dev (val) or test")
    log = FileLog()
    named = split_in_name(path.resolve().name, path.name)  # the file's own name only
    data, list_files, file = _read(path, log, named)
    if whole:
        ids = list(data)
    else:
        split, ids = resolve(data, list_files, split, named, file)
    config = corpus_config(CORPUS)
    memo = _Memo(frozenset((*config.slots, *config.unified_slots)))
    dialogues = tuple(_build_dialogue(did, data[did], file, memo) for did in ids)
    if not dialogues:
        raise GoldDataError("no dialogues", file=file)
    return GoldSet(
        corpus=CORPUS,
        split=split,
        dialogues=dialogues,
        source=str(path),
        slots=config.slots,
        categorical_slots=config.categorical_slots,
        files=log.files,
    )


# ------------------------------------------------------------------------------------- reading


def _data_member(archive: GoldZip | zipfile.ZipFile, path: Path) -> str:
    members = [n for n in archive.namelist()
               if n.endswith(".json") and not n.startswith("__MACOSX/")]
    if len(members) == 1:
        return members[0]
    named = [n for n in members if PurePosixPath(n).name == "data.json"]
    if len(named) == 1:
        return named[0]
    raise GoldDataError(
        f"expected one .json member (or one data.json) in the zip, found {len(members)}",
        file=str(path),
    )


def _read(path: Path, log: FileLog, named: str | None
          ) -> tuple[dict[str, _Dialogue], Lists, str]:
    """Parsed data, ``{split: (list file name, ids)}`` for list files found, and the file name
    (every file read recorded in ``log``). A zip with no list file beside its data member
    takes those beside the zip, as a ``data.json`` does; for a zip named for its split
    (``test.json.zip`` of a per-split folder) they are read to check it, not recorded (they
    select nothing in a file named for its split)."""
    if path.suffix != ".zip":
        return _decode(log.read_bytes(path), str(path)), lists_beside(path, log), str(path)
    lists: Lists = {}
    try:
        with log.open_zip(path) as archive:
            member = _data_member(archive, path)
            file = archive.name(member)
            data = _decode(archive.read(member), file)
            folder = PurePosixPath(member).parent  # list files next to the data only
            names = {PurePosixPath(n).name: n for n in archive.namelist()
                     if PurePosixPath(n).parent == folder}
            for split, stem in LIST_FILES.items():
                for suffix in LIST_SUFFIXES:
                    if stem + suffix in names:
                        name = archive.name(names[stem + suffix])
                        lists[split] = (name, parse_id_list(archive.read(names[stem + suffix]),
                                                             name))
                        break
    except zipfile.BadZipFile:
        raise GoldDataError("not a valid zip file", file=str(path)) from None
    if not lists:  # the list files beside the zip, as beside a data.json
        lists = lists_beside(path, None if named is not None else log)
    return data, lists, file


# ------------------------------------------------------------------------------------ building


_Json = dict[str, Any] | str | int | float | bool | None
_Spans = tuple[tuple[Any, ...] | _Json, ...] | _Json
"""``span_info`` as :data:`typing.Any` decodes it, but its list and the lists in it decoded
straight into the tuples a turn keeps: no list built and copied per span (3 ms, 2.1 test)."""


class _LogEntry(msgspec.Struct):
    """A ``log`` entry, decoded lazily: ``metadata`` stays raw JSON per domain, so a domain
    whose metadata repeats the previous turn's (most of them) is never parsed again."""

    text: Any = None
    metadata: dict[str, msgspec.Raw] | None = None
    span_info: _Spans = None


class _Dialogue(msgspec.Struct):
    goal: dict[str, msgspec.Raw] | None = None
    log: list[_LogEntry] | None = None


_EMPTY_OBJECT = re.compile(rb"\{\s*\}")
_MISSING = object()


class _Goal(Mapping):
    """A dialogue's ``goal``, read-only: each entry is parsed (and deep-frozen) on first
    access -- only response scoring reads goals, DST never pays for them. An entry that
    does not parse (invalid UTF-8) is a :class:`GoldDataError` naming file and dialogue."""

    __slots__ = ("_raw", "_parsed", "_where")

    def __init__(self, raw: dict[str, bytes], where: dict[str, str]) -> None:
        self._raw = raw
        self._parsed: dict[str, Any] = {}
        self._where = where

    def __getitem__(self, key: str) -> Any:
        value = self._parsed.get(key, _MISSING)
        if value is _MISSING:
            try:
                parsed = orjson.loads(self._raw[key])
            except orjson.JSONDecodeError as exc:
                raise GoldDataError(f"goal entry {key!r} is not valid JSON ({exc.msg})",
                                    **self._where) from None
            value = self._parsed[key] = deep_freeze(parsed)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __repr__(self) -> str:
        return f"_Goal({dict(self.items())!r})"


_DECODER = msgspec.json.Decoder(dict[str, _Dialogue])

_DomainRead = tuple[tuple[tuple[str, tuple[str]], ...], tuple[tuple[str, str], ...], bool]
"""One domain's metadata read: canonical ``(key, (value,))`` items, the ``belief`` items
``(slot, value)`` (see :func:`_read_domain`) and whether ``book.booked`` is non-empty."""


class _Memo:
    """What building computes once per distinct input within one :func:`load`: ``domains``
    (domain -> metadata bytes -> :func:`_read_domain` of them), ``slot_values`` (``(domain,
    part, slot, value)`` -> its belief item and canonical item), ``services`` (a state's
    sorted keys -> its services) and ``first_turn`` (the last dialogue's first metadata and
    its reads)."""

    __slots__ = ("domains", "first_turn", "known", "services", "slot_values")

    def __init__(self, known: frozenset[str]) -> None:
        self.known = known  # the slots a value may be set in (the config's)
        self.domains: dict[str, dict[bytes, _DomainRead]] = {}
        self.slot_values: dict[tuple[str, str, str, str], tuple[tuple, tuple | None]] = {}
        self.services: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.first_turn: tuple[Mapping, dict[str, _DomainRead]] = ({}, {})


def _decode(data: bytes, file: str) -> dict[str, _Dialogue]:
    """Typed decoding of only what the loader needs; on a shape error the generic parse
    names the dialogue and turn (:func:`_shape_error`)."""
    try:  # invalid JSON or UTF-8 (in a dialogue id, say): one line naming the file
        decoded = decode_typed(data, _DECODER, file=file)
    except msgspec.ValidationError as exc:
        raw = parse_json_bytes(data, file=file)  # invalid JSON: its own one-line error
        _shape_error(raw, file)
        raise GoldDataError(f"unexpected data.json structure ({exc})", file=file) from None
    return decoded


def _shape_error(raw: Any, file: str) -> None:
    """Raise the precise error for a structure the typed decoder rejected."""
    if not isinstance(raw, dict):
        raise GoldDataError("expected a JSON object {dialogue_id: dialogue}", file=file)
    for dialogue_id, dialogue in raw.items():
        where: dict = {"file": file, "dialogue": dialogue_id}
        if not isinstance(dialogue, dict):
            raise GoldDataError("dialogue is not an object", **where)
        if dialogue.get("goal") is not None and not isinstance(dialogue["goal"], dict):
            raise GoldDataError("'goal' must be an object", **where)
        log = dialogue.get("log")
        if log is not None and not isinstance(log, list):
            raise GoldDataError("dialogue has no 'log' list", **where)
        for index, entry in enumerate(log or ()):
            if not isinstance(entry, dict):
                raise GoldDataError("log entry needs a string 'text'", **where, turn=index)
            metadata = entry.get("metadata")
            if metadata is not None and not isinstance(metadata, dict):
                if index % 2:
                    raise GoldDataError("system turn 'metadata' must be an object", **where,
                                        turn=index)
                raise GoldDataError("a user turn (even log position) carries metadata: the "
                                    "log does not alternate user/system", **where, turn=index)


def _read_domain(domain: str, raw: bytes, where: dict, memo: _Memo) -> _DomainRead:
    """Canonical items, belief items and the booked flag of one domain's metadata.

    ``belief`` keeps every slot as annotated -- ``semi`` slots then ``book`` slots
    (named ``book`` + slot), values as written -- except the values ``""``, ``none`` and
    ``not mentioned`` (exact spellings): the input of mwzeval's gold states
    (:func:`dst_eval.corpora.multiwoz.goals.mwzeval_state`). A slot set to a value that is
    none of the corpus's slots (``memo.known``: an edited or converted file, a homoglyph)
    raises :class:`GoldDataError`: it would make every turn wrong without a word.
    """
    slot_values = memo.slot_values
    try:
        parts = orjson.loads(raw)
    except orjson.JSONDecodeError:
        parts = parse_json_bytes(raw, file=where["file"])  # raises, with the usual message
    if type(parts) is not dict:
        raise GoldDataError(f"metadata of domain {domain!r} must be an object", **where)
    items: list[tuple[str, tuple[str]]] = []
    belief: list[tuple[str, str]] = []
    booked = False
    for part in ("semi", "book"):
        slots = parts.get(part, _MISSING)
        if slots is _MISSING:  # absent; a present null is a wrong type
            continue
        if type(slots) is not dict:
            raise GoldDataError(f"metadata {domain}.{part} must be an object", **where)
        book = part == "book"
        for slot, value in slots.items():
            if book and slot == "booked":  # never a slot, whatever its type
                booked = bool(value)
                continue
            if type(value) is not str:
                raise GoldDataError(
                    f"value of {domain}.{part}.{slot} must be a string, not "
                    f"{type(value).__name__}",
                    **where,
                )
            if value in EMPTY_VALUES:  # fast path: most slots are "" or "not mentioned"
                continue
            entry = slot_values.get((domain, part, slot, value))
            if entry is None:
                canonical = canonical_value(value)
                key = canonical_key(domain, slot, book=book)
                if key in NOT_A_SLOT:
                    canonical = None  # annotated (mwzeval's view), never scored
                elif canonical and key not in memo.known:
                    raise GoldDataError(
                        f"{domain}.{part}.{slot} = {value!r} is a slot ({key!r}) that MultiWOZ "
                        f"does not have (configs/{CORPUS}.toml); is the file edited?", **where)
                entry = slot_values[domain, part, slot, value] = (
                    (f"book{slot}" if book else slot, value), canonical and (key, (canonical,)))
            belief.append(entry[0])
            if entry[1]:
                items.append(entry[1])
    keys: dict[str, tuple[str]] = {}
    for key, value in items:  # two spellings of one slot (keys hold the domain: no clash
        if keys.setdefault(key, value) != value:  # across domains)
            raise GoldDataError(f"slot {key!r} is set twice with different values", **where)
    return tuple(items), tuple(belief), booked


def _build_dialogue(dialogue_id: str, raw: _Dialogue, file: str, memo: _Memo) -> GoldDialogue:
    """One dialogue; ``memo`` holds what is computed once per distinct input."""
    where: dict = {"file": file, "dialogue": dialogue_id}
    log = raw.log
    if log is None:
        raise GoldDataError("dialogue has no 'log' list", **where)
    goal = raw.goal
    domains, services_of = memo.domains, memo.services
    turns: list[GoldTurn] = []
    booked: set[str] = set()
    # the previous system turn's metadata and domain -> its read there; for the first turn,
    # the previous dialogue's first turn (most domains are empty there alike)
    last, reads = memo.first_turn[0], dict(memo.first_turn[1])
    frozen = services = belief = booked_now = None
    for user_index in range(0, len(log) - 1, 2):
        user = log[user_index]
        system = log[user_index + 1]
        if type(user.text) is not str:
            raise GoldDataError("log entry needs a string 'text'", **where, turn=user_index)
        if type(system.text) is not str:
            raise GoldDataError("log entry needs a string 'text'", **where, turn=user_index + 1)
        if user.metadata:
            raise GoldDataError("a user turn (even log position) carries metadata: the log "
                                "does not alternate user/system", **where, turn=user_index)
        metadata = system.metadata
        if metadata is None:
            raise GoldDataError("system turn 'metadata' must be an object", **where,
                                turn=user_index + 1)
        if frozen is None or metadata != last:  # msgspec.Raw compare bytes
            state: dict[str, tuple[str]] = {}
            belief_items = []
            for domain, value in metadata.items():
                if last.get(domain) == value:  # unchanged since the previous turn
                    read = reads[domain]
                else:
                    by_bytes = domains.get(domain)
                    if by_bytes is None:
                        by_bytes = domains[domain] = {}
                    content = bytes(value)
                    read = by_bytes.get(content)
                    if read is None:
                        read = by_bytes[content] = _read_domain(
                            domain, content, {**where, "turn": user_index + 1}, memo)
                    reads[domain] = read
                items, domain_belief, is_booked = read
                if items:
                    state.update(items)  # checked per domain read (_read_domain)
                if domain_belief:
                    belief_items.append((domain, domain_belief))
                if is_booked and domain not in NOT_BOOKABLE_FOR_REFERENCE:
                    booked.add(domain)
            ordered = dict(sorted(state.items()))  # keys are unique: values never compared
            frozen = MappingProxyType(ordered)
            keys = tuple(ordered)
            services = services_of.get(keys)
            if services is None:
                services = services_of[keys] = tuple(
                    dict.fromkeys(key.partition("-")[0] for key in keys))
            belief = tuple(belief_items)
            booked_now = tuple(domain for domain in metadata if domain in booked) if booked else ()
            if not turns:
                memo.first_turn = (metadata, dict(reads))
            last = metadata
        spans = system.span_info
        turns.append(GoldTurn(
            dialogue_id=dialogue_id,
            turn_index=len(turns),
            user_utterance=user.text,
            state=frozen,
            services=services,
            system_response=system.text,
            raw_turn_index=user_index,
            system_annotations=MappingProxyType({
                "span_info": () if spans is None else spans, "span_unit": "word",
                "booked_domains": booked_now, "belief": belief,
            }),
        ))
    # the goal's entries as bytes copies: a msgspec.Raw would keep the whole file alive
    texts = {d: bytes(g) for d, g in goal.items()} if goal is not None else None
    services_goal: tuple[str, ...] = ()
    if texts:  # entries that are non-empty objects
        services_goal = tuple(d for d, g in texts.items() if g[:1] == b"{"
                              and not _EMPTY_OBJECT.fullmatch(g))
    frozen_goal = MappingProxyType(_Goal(texts, where)) if texts is not None else None
    return GoldDialogue(
        dialogue_id=dialogue_id, turns=tuple(turns), services=services_goal, goal=frozen_goal
    )
