"""MultiWOZ 2.0 / 2.1 / 2.4 gold loader: the original ``data.json`` format.

Input: a ``.json`` file ``{dialogue_id: {"goal": {...}, "log": [turn, ...]}}`` or a ``.zip``
holding it (the single ``.json`` member, or the member named ``data.json``). ``log`` alternates
user (even positions) and system (odd positions) turns; ``log[2i+1].metadata`` =
``{domain: {"semi": {slot: value}, "book": {slot: value, "booked": [...]}}}`` is the state after
user turn ``i``. A final user turn without a following system turn has no state and is skipped.

Split: with ``split`` given and ``testListFile`` / ``valListFile`` (optionally ``.txt`` /
``.json``) next to the file (or inside the zip), only the listed dialogues are kept (``test``;
``val``/``dev``/``validation``; ``train`` = listed in neither); without list files every
dialogue in the file is loaded. A listed id missing from the file is an error.

Canonical state (keys = the MultiWOZ 2.2 names, so predictions are interchangeable):

* key ``"{domain}-{slot}"`` lower-cased, spaces removed (``leaveAt`` -> ``leaveat``,
  ``arriveBy`` -> ``arriveby``); ``book`` slots get the prefix ``book`` (``hotel-bookday``,
  ``restaurant-booktime``, ``train-bookpeople``); ``book.booked`` is ignored;
* values are stripped; ``""``, ``not mentioned`` and ``none`` (any case) mean *not set* and are
  dropped; ``dontcare``, ``dont care``, ``don't care``, ``do n't care``, ``do nt care`` and
  ``do not care`` (any case) become ``dontcare``; every other value is kept as written (the
  value-normalisation policy of :mod:`dst_eval.normalize` applies later, to gold and
  predictions alike). Each state value is a one-element tuple.

Per turn: ``requested_slots`` and ``active_intents`` are empty (2.1 has none), ``services`` =
domains present in the state, ``system_response`` = the system text, no frames.
``GoldDialogue.goal`` = the dialogue's ``goal`` (deeply read-only: mappings and tuples);
``GoldDialogue.services`` = the goal's domains with a non-empty goal, in goal order.
``GoldSet.slots`` = ``configs/multiwoz21.toml`` ``slots`` (the 30 TRADE slots); every annotated
slot stays in the state, also outside them (``hospital-department`` in 7 val turns).

Malformed gold raises :class:`~dst_eval.errors.GoldDataError` (exit 4) naming the file, the
dialogue and the turn by its position in ``log``.
"""

from __future__ import annotations

import zipfile
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from dst_eval.config import corpus_config
from dst_eval.corpora.layout import deep_freeze
from dst_eval.corpora.multiwoz.loader22 import infer_split
from dst_eval.errors import DstEvalError, GoldDataError, UsageError
from dst_eval.gold import GoldDialogue, GoldSet, GoldTurn, dialogue_key, freeze_state
from dst_eval.jsonio import parse_json_bytes, read_bytes

CORPUS = "multiwoz21"
EMPTY_VALUES = frozenset({"", "not mentioned", "none"})
DONTCARE_VALUES = frozenset(
    {"dontcare", "dont care", "don't care", "do n't care", "do nt care", "do not care"}
)
LIST_FILES = {"test": "testListFile", "dev": "valListFile"}
SPLIT_NAMES = {"test": "test", "dev": "dev", "val": "dev", "valid": "dev", "validation": "dev",
               "train": "train"}
_LIST_SUFFIXES = ("", ".txt", ".json")


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
    """True if ``path`` is a ``data.json``-style file (dialogues with ``log``) or its zip."""
    path = Path(path)
    if path.suffix not in (".json", ".zip") or not path.is_file():
        return False
    try:
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                member = _data_member(archive, path)
                data = archive.read(member)
        else:
            data = read_bytes(path)
        head = data[:1 << 20].lstrip()
        if not head.startswith(b"{") or b'"log"' not in head:
            return False
        parsed = parse_json_bytes(data, file=str(path))
    except (DstEvalError, OSError, ValueError, zipfile.BadZipFile):
        return False
    if not isinstance(parsed, dict) or not parsed:
        return False
    first = next(iter(parsed.values()))
    return isinstance(first, dict) and isinstance(first.get("log"), list)


def load(path: str | Path, *, split: str | None = None) -> GoldSet:
    """Load MultiWOZ 2.x ``data.json`` gold (see the module docstring)."""
    path = Path(path)
    if not path.exists():
        raise GoldDataError("gold path does not exist", file=str(path))
    if path.is_dir():
        raise GoldDataError("expected a data.json-style file or a .zip, found a folder",
                            file=str(path))
    if split is not None and split.lower() not in SPLIT_NAMES:
        raise UsageError(f"unknown MultiWOZ split {split!r}; use train, dev (val) or test")
    data, list_files, file = _read(path)
    if not isinstance(data, dict):
        raise GoldDataError("expected a JSON object {dialogue_id: dialogue}", file=file)
    ids = _select(data, list_files, split, file)
    dialogues = tuple(_build_dialogue(did, data[did], file) for did in ids)
    if not dialogues:
        raise GoldDataError("no dialogues", file=file)
    config = corpus_config(CORPUS)
    return GoldSet(
        corpus=CORPUS,
        split=split if split is not None else infer_split(path),
        dialogues=dialogues,
        source=str(path),
        slots=config.slots,
        categorical_slots=config.categorical_slots,
    )


# ------------------------------------------------------------------------------------- reading


def _data_member(archive: zipfile.ZipFile, path: Path) -> str:
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


def _parse_id_list(text: bytes, file: str) -> list[str]:
    try:
        lines = text.decode("utf-8").split()
    except UnicodeDecodeError:
        raise GoldDataError("list file is not valid UTF-8", file=file) from None
    return [line.strip() for line in lines if line.strip()]


def _read(path: Path) -> tuple[Any, dict[str, tuple[str, list[str]]], str]:
    """Parsed data, ``{split: (list file name, ids)}`` for list files found, and the file name."""
    lists: dict[str, tuple[str, list[str]]] = {}
    if path.suffix == ".zip":
        try:
            with zipfile.ZipFile(path) as archive:
                member = _data_member(archive, path)
                file = f"{path}:{member}"
                data = parse_json_bytes(archive.read(member), file=file)
                names = {PurePosixPath(n).name: n for n in archive.namelist()}
                for split, stem in LIST_FILES.items():
                    for suffix in _LIST_SUFFIXES:
                        if stem + suffix in names:
                            name = f"{path}:{names[stem + suffix]}"
                            ids = _parse_id_list(archive.read(names[stem + suffix]), name)
                            lists[split] = (name, ids)
                            break
        except zipfile.BadZipFile:
            raise GoldDataError("not a valid zip file", file=str(path)) from None
        return data, lists, file
    data = parse_json_bytes(read_bytes(path), file=str(path))
    for split, stem in LIST_FILES.items():
        for suffix in _LIST_SUFFIXES:
            candidate = path.parent / (stem + suffix)
            if candidate.is_file():
                ids = _parse_id_list(read_bytes(candidate), str(candidate))
                lists[split] = (str(candidate), ids)
                break
    return data, lists, str(path)


def _select(
    data: dict, lists: dict[str, tuple[str, list[str]]], split: str | None, file: str
) -> list[str]:
    """Dialogue ids to load, in file order."""
    if split is None:
        return list(data)
    wanted = SPLIT_NAMES[split.lower()]
    by_key = {dialogue_key(did): did for did in data}
    if wanted == "train":
        if len(lists) < 2:
            return list(data)
        held_out = {dialogue_key(i) for _name, ids in lists.values() for i in ids}
        return [did for did in data if dialogue_key(did) not in held_out]
    if wanted not in lists:
        return list(data)
    list_name, ids = lists[wanted]
    missing = [i for i in ids if dialogue_key(i) not in by_key]
    if missing:
        raise GoldDataError(
            f"{len(missing)} of the {len(ids)} dialogues listed in {list_name} are not in the "
            f"file (first: {missing[0]})",
            file=file,
        )
    keep = {dialogue_key(i) for i in ids}
    return [did for did in data if dialogue_key(did) in keep]


# ------------------------------------------------------------------------------------ building




_KEYS: dict[tuple[str, str, bool], str] = {}


def _state(metadata: Any, where: dict, memo: dict | None = None) -> dict[str, tuple[str]]:
    """The canonical state of one system turn's ``metadata``. ``memo`` (per dialogue) maps a
    domain to its previous ``(parts, items)``: consecutive turns mostly repeat a domain's
    metadata unchanged, and an equal dict (compared in C) gives the same items."""
    if type(metadata) is not dict:
        raise GoldDataError("system turn 'metadata' must be an object", **where)
    state: dict[str, tuple[str]] = {}
    keys = _KEYS
    for domain, parts in metadata.items():
        if type(parts) is not dict:
            raise GoldDataError(f"metadata of domain {domain!r} must be an object", **where)
        if memo is not None:
            previous = memo.get(domain)
            if previous is not None and previous[0] == parts:
                for key, value in previous[1]:
                    if key in state and state[key] != value:
                        raise GoldDataError(f"slot {key!r} is set twice with different values",
                                            **where)
                    state[key] = value
                continue
            before = set(state)
        for part in ("semi", "book"):
            slots = parts.get(part)
            if slots is None:
                continue
            if type(slots) is not dict:
                raise GoldDataError(f"metadata {domain}.{part} must be an object", **where)
            book = part == "book"
            for slot, value in slots.items():
                if type(value) is not str:
                    if book and slot == "booked":
                        continue
                    raise GoldDataError(
                        f"value of {domain}.{part}.{slot} must be a string, not "
                        f"{type(value).__name__}",
                        **where,
                    )
                if value in EMPTY_VALUES:  # fast path: most slots are "" or "not mentioned"
                    continue
                canonical = canonical_value(value)
                if canonical is None:
                    continue
                key = keys.get((domain, slot, book))
                if key is None:
                    key = keys[(domain, slot, book)] = canonical_key(domain, slot, book=book)
                if key in state and state[key] != (canonical,):
                    raise GoldDataError(f"slot {key!r} is set twice with different values", **where)
                state[key] = (canonical,)
        if memo is not None:
            memo[domain] = (parts, [(k, v) for k, v in state.items() if k not in before])
    return state


def _build_dialogue(dialogue_id: str, raw: Any, file: str) -> GoldDialogue:
    where: dict = {"file": file, "dialogue": dialogue_id}
    if not isinstance(raw, dict):
        raise GoldDataError("dialogue is not an object", **where)
    log = raw.get("log")
    if not isinstance(log, list):
        raise GoldDataError("dialogue has no 'log' list", **where)
    goal = raw.get("goal")
    if goal is not None and not isinstance(goal, dict):
        raise GoldDataError("'goal' must be an object", **where)
    turns: list[GoldTurn] = []
    memo: dict = {}
    for user_index in range(0, len(log) - 1, 2):
        user, system = log[user_index], log[user_index + 1]
        for index, entry in ((user_index, user), (user_index + 1, system)):
            if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
                raise GoldDataError("log entry needs a string 'text'", **where, turn=index)
        if user.get("metadata"):
            raise GoldDataError(
                "a user turn (even log position) carries metadata: the log does not alternate "
                "user/system",
                **where,
                turn=user_index,
            )
        state = _state(system.get("metadata"), {**where, "turn": user_index + 1}, memo)
        turns.append(GoldTurn(
            dialogue_id=dialogue_id,
            turn_index=len(turns),
            user_utterance=user["text"],
            state=freeze_state(state),
            services=tuple(dict.fromkeys(key.partition("-")[0] for key in sorted(state))),
            system_response=system["text"],
            raw_turn_index=user_index,
        ))
    services: tuple[str, ...] = ()
    if goal:
        services = tuple(d for d, g in goal.items() if isinstance(g, dict) and g)
    frozen_goal: Mapping | None = deep_freeze(goal) if goal is not None else None
    return GoldDialogue(
        dialogue_id=dialogue_id, turns=tuple(turns), services=services, goal=frozen_goal
    )
