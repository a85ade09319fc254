"""CrossWOZ (thu-coai/CrossWOZ): original ``{split}.json(.zip)`` and the GEM/HF layout.

Gold state of user message *i* (SCORERS.md §10): the following system message's
``sys_state_init`` (the wizard's first DB query = the user's target constraints),
without ``selectedResults``; empty and whitespace-only values are dropped. Keys are
``"餐馆-推荐菜"`` (domain, first ``-``, slot). No value is rewritten: the leading/trailing
spaces and tabs of 11 test values (``'3小时 '``), full/half-width parentheses, inner
spaces and the unordered space-separated lists of ``推荐菜``/``酒店设施`` stay as
annotated; the scoring profiles normalise them (strict: ``nfkc`` (with ``strip``),
``collapse-space``, ``multi-value-sort``; convlab: ``despace+lower``; trade and
``--norm exact`` compare them as annotated).

Accepted inputs

* ``test.json`` / ``val.json`` / ``train.json``, or the same zipped (``.json.zip``):
  ``{dialogue_id: {"sys-usr", "goal", "messages": [...], "final_goal", "task description",
  "type"}}``;
* a directory holding those files (``split`` picks one; a directory holding several
  needs it: a usage error without, as for the other corpora; one file is its split; a
  split given as ``test.json`` and ``test.json.zip`` is read from ``test.json``, as in
  MultiWOZ per-split folders, with a note naming both);
* the GEM/HF layout: a JSON list or JSONL of records ``{"dialog_id", "messages":
  {"content": [...], "role": [...], "dialog_act": [...], "sys_state_init": [...], ...},
  "goal": [[id, domain, slot, value, mentioned], ...], "type", ...}`` where goal values
  and flags are strings (``"['美食街']"``, ``"True"``); stringified literals are parsed
  with :func:`ast.literal_eval`, never ``eval``.

Each user message followed by a system message is one evaluable turn (test: 4,238,
val: 4,229); ``raw_turn_index`` is the user message's position in ``messages``.

``GoldTurn.system_annotations`` (read-only) of a turn holds, from the system message that
answers it:

* ``"acts"`` -- its ``dialog_act`` as a tuple of ``(intent, domain, slot, value)`` string
  tuples, in corpus order (acts with fewer than 3 parts are dropped, a missing value is
  ``""``, non-string parts become ``str(part)``); used by the entity inform rate of
  :mod:`dst_eval.corpora.crosswoz.responses`.
``GoldDialogue.meta["type"]`` is the goal type code (S, M, M+T, CM, CM+T).
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec

from dst_eval.config import corpus_config
from dst_eval.corpora.layout import (
    FileLog,
    columns_to_rows,
    parse_literal,
    read_head,
    split_from_name,
    split_label_note,
)
from dst_eval.errors import GoldDataError, UsageError
from dst_eval.gold import GoldDialogue, GoldSet, GoldTurn, check_slot_names, freeze_state
from dst_eval.jsonio import decode_typed, parse_json_bytes, refuse_duplicate_keys

CORPUS = "crosswoz"
SPLITS = ("train", "val", "test")
SPLIT_ALIASES = {"dev": "val", "valid": "val", "validation": "val"}
GOAL_TYPES = {
    "单领域": "S",
    "独立多领域": "M",
    "独立多领域+交通": "M+T",
    "不独立多领域": "CM",
    "不独立多领域+交通": "CM+T",
}
_MARKERS = ('"sys-usr"', '"sys_state_init"', '"task description"')
_SUFFIXES = (".json", ".json.zip", ".jsonl")
"""In order of preference: a folder holding ``test.json`` and ``test.json.zip`` is read from
``test.json`` (as MultiWOZ per-split folders are), with a note naming both."""


# ---------------------------------------------------------------- records


class _Message(msgspec.Struct, gc=False):
    """What the loader reads of a message (``user_state``/``sys_state``, most of the
    bytes, are skipped); values are checked where they are read."""

    role: Any = None
    content: Any = None
    dialog_act: Any = None
    sys_state_init: Any = None


class _Record(msgspec.Struct, gc=False, rename={"task_description": "task description",
                                                "sys_usr": "sys-usr"}):
    """A dialogue record of either layout (``messages``: a list of :class:`_Message`, or
    the GEM layout's columns or literal string until :func:`_messages` reads it)."""

    messages: Any
    goal: Any = None
    final_goal: Any = None
    task_description: Any = None
    type: Any = None
    sys_usr: Any = None
    sys_id: Any = None
    usr_id: Any = None
    gem_id: Any = None


class _FileRecord(_Record, gc=False):
    messages: list[_Message]


_ORIGINAL = msgspec.json.Decoder(dict[str, _FileRecord])
"""Typed decoder of the original layout ``{dialogue_id: record}``; anything it rejects
(the GEM layout, malformed files) is parsed generically, and checked record by record."""


# ---------------------------------------------------------------- CrossWOZ

def _looks_like_crosswoz(head: str) -> bool:
    return any(marker in head for marker in _MARKERS)


def _split_files(directory: Path) -> dict[str, Path]:
    return {split: files[0] for split, files in _split_candidates(directory).items()}


def _split_candidates(directory: Path) -> dict[str, list[Path]]:
    """``{split: [its files in the folder, preferred first]}`` (:data:`_SUFFIXES`). A split
    file that is no readable file (a broken link, a folder) is a :class:`GoldDataError`:
    left out, the folder would be scored as the other split."""
    found: dict[str, list[Path]] = {}
    for split in SPLITS:
        for suffix in _SUFFIXES:
            candidate = directory / f"{split}{suffix}"
            if candidate.is_file():
                found.setdefault(split, []).append(candidate)
            elif candidate.is_symlink() or candidate.exists():
                raise GoldDataError(f"{candidate.name} in the gold folder is not a readable "
                                    "file (a broken link or a folder)", file=str(candidate))
    return found


def _choice_note(files: list[Path]) -> tuple[str, ...]:
    """The note of a split given by several files: which one was read."""
    if len(files) < 2:
        return ()
    others = " and ".join(f.name for f in files[1:])
    return (f"{files[0].parent} holds {files[0].name} and {others} for one split: read "
            f"{files[0].name}, not {others} (they may differ); pass the file as --gold to "
            "choose",)


def sniff(path: Path) -> bool:
    """True for a CrossWOZ file (original or GEM layout) or a directory holding split files."""
    path = Path(path)
    try:
        if path.is_dir():
            return any(_looks_like_crosswoz(read_head(p)) for p in _split_files(path).values())
        return path.is_file() and _looks_like_crosswoz(read_head(path))
    except (OSError, zipfile.BadZipFile):
        return False


def _resolve(path: Path, split: str | None) -> tuple[Path, str | None, tuple[str, ...]]:
    """The file to read, its split and the note of a split given by several files."""
    if split is not None:
        split = SPLIT_ALIASES.get(split.lower(), split.lower())
    if path.is_dir():
        candidates = _split_candidates(path)
        files = {name: found[0] for name, found in candidates.items()}
        if split is None and len(files) > 1:
            raise UsageError(f"{path} holds the splits {', '.join(files)}; name one with "
                             "--split")
        wanted = split or next(iter(files), "test")
        if wanted not in files:
            have = ", ".join(files) or "none"
            raise GoldDataError(f"no CrossWOZ {wanted!r} split file (test.json[.zip], "
                                f"val.json[.zip], train.json[.zip]) in {path}; found: {have}")
        return files[wanted], wanted, _choice_note(candidates[wanted])
    named = split_from_name(path, SPLITS, SPLIT_ALIASES)
    if split is not None and named is not None and split != named:
        raise GoldDataError(f"--split {split} given, but {path.name} holds the {named} split",
                            file=str(path))
    return path, split or named, ()  # a name without a split: the records' gem_id, if any


def load(path: Path, *, split: str | None = None) -> GoldSet:
    path = Path(path)
    file_path, split, notes = _resolve(path, split)
    return _load_file(file_path, split, notes)


def _load_file(file_path: Path, split: str | None, notes: tuple[str, ...] = ()) -> GoldSet:
    source = str(file_path)
    log = FileLog()
    if file_path.suffix == ".jsonl":
        records = list(_iter_records(log.read_records(file_path), source))
    else:
        data, shown = log.read_json_bytes(file_path)
        try:
            decoded = decode_typed(data, _ORIGINAL, file=shown)
            # a dialogue id given twice? (the typed decoder keeps the last; the count takes
            # 12 ms on the test set, a generic parse 250; "\u00..." could spell the key)
            if data.count(b'"messages"') > len(decoded) or b"\\u00" in data:
                refuse_duplicate_keys(data, None, file=shown)
            records = [(dialogue_id, record, False) for dialogue_id, record in decoded.items()]
        except msgspec.ValidationError:
            parsed = parse_json_bytes(data, file=shown)
            refuse_duplicate_keys(data, parsed, file=shown)
            records = list(_iter_records(parsed, source))
    if not records:
        raise GoldDataError("no CrossWOZ dialogues found", file=source)
    dialogues = []
    seen: set[str] = set()
    # the split is confirmed by the file's name (a zip's, or its member's), or by gem_ids
    confirmed = split_from_name(file_path, SPLITS, SPLIT_ALIASES) is not None
    if not confirmed and file_path.suffix == ".zip":
        member = split_from_name(Path(shown.rsplit(":", 1)[-1]), SPLITS, SPLIT_ALIASES)
        if split is not None and member not in (None, split):
            raise GoldDataError(f"--split {split} given, but the zip holds "
                                f"{shown.rsplit(':', 1)[-1]}, of the {member} split",
                                file=source)
        confirmed, split = member is not None, split or member
    for dialogue_id, record, gem in records:
        if dialogue_id in seen:
            raise GoldDataError("duplicate dialogue id", file=source, dialogue=dialogue_id)
        seen.add(dialogue_id)
        dialogues.append(_dialogue(dialogue_id, record, gem=gem, source=source))
        recorded = _split_from_gem_id(record.gem_id) if gem else None
        confirmed = confirmed or recorded is not None
        if split is None:
            split = recorded
        elif recorded is not None and recorded != split:  # a file renamed for another split
            raise GoldDataError(f"the record's gem_id {record.gem_id!r} is of the {recorded} "
                                f"split, not {split}", file=source, dialogue=dialogue_id)
    if split is not None and not confirmed:
        notes = (*notes, split_label_note(split))
    config = corpus_config(CORPUS)
    check_slot_names(dialogues, config.slots, corpus=CORPUS, source=source)
    return GoldSet(
        corpus=CORPUS,
        split=split,
        dialogues=tuple(dialogues),
        source=source,
        slots=config.slots,
        categorical_slots=config.categorical_slots,
        files=log.files,
        notes=notes,
    )


def _split_from_gem_id(gem_id: Any) -> str | None:
    # "GEM-CrossWOZ-test-0"
    parts = str(gem_id or "").split("-")
    if len(parts) >= 3:
        name = SPLIT_ALIASES.get(parts[-2].lower(), parts[-2].lower())
        return name if name in SPLITS else None
    return None


def _iter_records(data: Any, source: str) -> Iterator[tuple[str, _Record, bool]]:
    """Yield ``(dialogue id, record, is_gem_layout)`` of generically parsed ``data``."""
    if isinstance(data, Mapping):
        for dialogue_id, record in data.items():
            if not isinstance(record, Mapping) or "messages" not in record:
                raise GoldDataError("expected {dialogue_id: {..., 'messages': [...]}} (CrossWOZ)",
                                    file=source, dialogue=str(dialogue_id))
            yield (str(dialogue_id), _as_record(record),
                   not isinstance(record["messages"], list))
        return
    if isinstance(data, list):
        for position, record in enumerate(data):
            if not isinstance(record, Mapping) or "messages" not in record:
                raise GoldDataError(f"record {position} is not a CrossWOZ dialogue "
                                    "(no 'messages')", file=source)
            dialogue_id = next((record[k] for k in ("dialog_id", "dialogue_id", "id")
                                if record.get(k) not in (None, "")), None)
            if dialogue_id is None:
                raise GoldDataError(f"record {position} has no 'dialog_id'", file=source)
            yield str(dialogue_id), _as_record(record), True
        return
    raise GoldDataError("expected a JSON object or list of CrossWOZ dialogues", file=source)


def _as_record(record: Mapping) -> _Record:
    """A generically parsed record as a :class:`_Record` (fields kept as parsed)."""
    return msgspec.convert(record, _Record)


def _messages(record: _Record, *, dialogue_id: str, source: str) -> list[_Message]:
    """The record's messages as :class:`_Message` (the typed layout is one already; a GEM
    record's literal string or columns are read first), every role checked."""
    messages = record.messages
    if not isinstance(record, _FileRecord):
        messages = _generic_messages(messages, dialogue_id=dialogue_id, source=source)
    for index, message in enumerate(messages):
        if message.role not in ("usr", "sys"):
            raise GoldDataError(f"messages[{index}] has role {message.role!r}, "
                                "expected 'usr' or 'sys'", file=source,
                                dialogue=dialogue_id, turn=index)
    return messages


def _generic_messages(messages: Any, *, dialogue_id: str, source: str) -> list[_Message]:
    if isinstance(messages, str):
        messages = parse_literal(messages, what="messages", file=source, dialogue=dialogue_id)
    if isinstance(messages, Mapping):  # GEM/HF: columns of equal length
        messages = columns_to_rows(messages, what="messages", file=source, dialogue=dialogue_id)
    if not isinstance(messages, list):
        raise GoldDataError("'messages' is not a list", file=source, dialogue=dialogue_id)
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise GoldDataError(f"messages[{index}] is not an object", file=source,
                                dialogue=dialogue_id, turn=index)
    return [_Message(m.get("role"), m.get("content"), m.get("dialog_act"),
                     m.get("sys_state_init")) for m in messages]


def _maybe_literal(value: Any, *, what: str, source: str, dialogue_id: str, turn: int) -> Any:
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        return parse_literal(value, what=what, file=source, dialogue=dialogue_id, turn=turn)
    return value


def gold_state(sys_state_init: Any, *, source: str, dialogue_id: str,
               turn: int) -> dict[str, tuple[str, ...]]:
    """``sys_state_init`` -> ``{"domain-slot": (value,)}``.

    ``selectedResults`` and empty or whitespace-only values are dropped; every other value
    is kept exactly as annotated (``'3小时 '``, ``'\\t中国古动物馆'``).
    """
    state_in = _maybe_literal(sys_state_init, what="sys_state_init", source=source,
                              dialogue_id=dialogue_id, turn=turn)
    if not isinstance(state_in, Mapping):
        raise GoldDataError("the system message after this user message has no "
                            "'sys_state_init' object", file=source, dialogue=dialogue_id,
                            turn=turn)
    state: dict[str, tuple[str, ...]] = {}
    for domain, slots in state_in.items():
        if type(slots) is not dict:
            slots = _maybe_literal(slots, what=f"sys_state_init[{domain!r}]", source=source,
                                   dialogue_id=dialogue_id, turn=turn)
            if not isinstance(slots, Mapping):
                raise GoldDataError(f"sys_state_init[{domain!r}] is not an object", file=source,
                                    dialogue=dialogue_id, turn=turn)
        state.update(_domain_items(domain, slots, source=source, dialogue_id=dialogue_id,
                                   turn=turn))
    return state


def _domain_items(domain: str, slots: Mapping, *, source: str, dialogue_id: str,
                  turn: int) -> list[tuple[str, tuple[str, ...]]]:
    items = []
    for slot, value in slots.items():
        if type(value) is str:  # fast path: nearly every value
            if slot != "selectedResults" and value.strip():  # kept as annotated
                items.append((f"{domain}-{slot}", (value,)))
            continue
        if slot == "selectedResults" or value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise GoldDataError(f"value of {domain}-{slot} is a {type(value).__name__}, "
                                "expected a string", file=source, dialogue=dialogue_id,
                                turn=turn)
        items.append((f"{domain}-{slot}", (str(value),)))
    return items


def _acts(message: _Message, *, source: str, dialogue_id: str, turn: int) -> list:
    acts = _maybe_literal(message.dialog_act or [], what="dialog_act", source=source,
                          dialogue_id=dialogue_id, turn=turn)
    if not isinstance(acts, list):
        raise GoldDataError("dialog_act is not a list", file=source, dialogue=dialogue_id,
                            turn=turn)
    return [a for a in acts if isinstance(a, list | tuple) and len(a) >= 3]


def _system_annotations(reply: _Message, *, source: str, dialogue_id: str,
                        turn: int) -> Mapping[str, Any]:
    """``{"acts": ((intent, domain, slot, value), ...)}`` of a system message (docstring)."""
    acts = tuple((str(a[0]), str(a[1]), str(a[2]), str(a[3]) if len(a) > 3 else "")
                 for a in _acts(reply, source=source, dialogue_id=dialogue_id, turn=turn))
    return MappingProxyType({"acts": acts})


def _dialogue(dialogue_id: str, record: _Record, *, gem: bool, source: str) -> GoldDialogue:
    messages = _messages(record, dialogue_id=dialogue_id, source=source)
    turns: list[GoldTurn] = []
    for index, message in enumerate(messages):
        if message.role != "usr":
            continue
        if index + 1 >= len(messages) or messages[index + 1].role != "sys":
            raise GoldDataError(f"user messages[{index}] is not followed by a system message, "
                                "so it has no annotated state", file=source,
                                dialogue=dialogue_id, turn=index)
        reply = messages[index + 1]
        state = gold_state(reply.sys_state_init, source=source, dialogue_id=dialogue_id,
                           turn=index)
        acts = _acts(message, source=source, dialogue_id=dialogue_id, turn=index)
        requested = frozenset(f"{a[1]}-{a[2]}" for a in acts if a[0] == "Request")
        domains = list(dict.fromkeys(str(a[1]) for a in acts if a[0] != "General"))
        turns.append(GoldTurn(
            dialogue_id=dialogue_id,
            turn_index=len(turns),
            user_utterance=str(message.content or ""),
            state=freeze_state(state),
            requested_slots=requested,
            services=tuple(domains),
            system_response=str(reply.content or ""),
            raw_turn_index=index,
            system_annotations=_system_annotations(reply, source=source,
                                                   dialogue_id=dialogue_id, turn=index + 1),
        ))
    goal = _goal(record.goal, gem=gem, source=source, dialogue_id=dialogue_id)
    final_goal = _goal(record.final_goal, gem=gem, source=source, dialogue_id=dialogue_id)
    services = tuple(dict.fromkeys(str(entry[1]) for entry in goal if len(entry) > 1))
    type_name = str(record.type or "")
    meta = {"type": GOAL_TYPES.get(type_name, type_name), "type_name": type_name}
    if isinstance(record.sys_usr, list | tuple):
        meta["sys_id"], meta["usr_id"] = (str(x) for x in list(record.sys_usr)[:2])
    for key in ("sys_id", "usr_id", "gem_id"):
        if getattr(record, key) not in (None, ""):
            meta[key] = str(getattr(record, key))
    return GoldDialogue(
        dialogue_id=dialogue_id,
        turns=tuple(turns),
        services=services,
        goal=MappingProxyType({
            "goal": goal,
            "final_goal": final_goal,
            "task_description": _task_description(record.task_description, source,
                                                  dialogue_id),
        }),
        meta=MappingProxyType(meta),
    )


_FLAGS = {"True": True, "False": False, "true": True, "false": False}


def _goal(goal: Any, *, gem: bool, source: str, dialogue_id: str) -> tuple[tuple, ...]:
    """Goal tuples ``(id, domain, slot, value, mentioned)`` with GEM strings parsed back.

    List values (``推荐菜``, ``周边景点``) become tuples, so the goal is read-only.
    """
    if goal is None:
        return ()
    if isinstance(goal, str):
        goal = parse_literal(goal, what="goal", file=source, dialogue=dialogue_id)
    if not isinstance(goal, list):
        raise GoldDataError("goal is not a list", file=source, dialogue=dialogue_id)
    if not gem and all(type(e) is list and len(e) >= 4 for e in goal):
        # original layout: typed already; only make list values read-only
        return tuple(tuple(e) if type(e[3]) is not list else (*e[:3], tuple(e[3]), *e[4:])
                     for e in goal)
    out: list[tuple] = []
    for entry in goal:
        if not isinstance(entry, list | tuple) or len(entry) < 4:
            raise GoldDataError(f"goal entry {entry!r:.60} is not [id, domain, slot, value, ...]",
                                file=source, dialogue=dialogue_id)
        entry = list(entry)
        if isinstance(entry[0], str) and entry[0].isascii() and entry[0].isdigit():
            entry[0] = int(entry[0])
        value = entry[3]
        if isinstance(value, str) and value.strip()[:1] == "[":
            entry[3] = parse_literal(value, what="goal value", file=source, dialogue=dialogue_id)
        if len(entry) > 4 and isinstance(entry[4], str) and entry[4] in _FLAGS:
            entry[4] = _FLAGS[entry[4]]
        if isinstance(entry[3], list):
            entry[3] = tuple(entry[3])
        out.append(tuple(entry))
    return tuple(out)


def _task_description(value: Any, source: str, dialogue_id: str) -> tuple:
    """The ``task description`` lines (absent or null: none); another type than a list is
    a gold error."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise GoldDataError(f"'task description' must be a list, found {type(value).__name__}",
                            file=source, dialogue=dialogue_id)
    return tuple(value)
