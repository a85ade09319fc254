"""JMultiWOZ (nu-dialogue/jmultiwoz): ``dialogues.json`` + ``split_list.json``, or the HF layout.

The state lives on SYSTEM turns only (SCORERS.md §6, §10): ``turn["dialogue_state"] =
{"belief_state": {domain: {slot: value | null}}, "book_state": {domain: {slot: value |
null}}, ...}`` is the state after the preceding user turn. Each SYSTEM turn is one
evaluable turn, as in the official ``evaluate.py``; trailing USER turns are not.

Canonical keys (documented in ``configs/jmultiwoz.toml``): belief slots
``"restaurant-name"``, ``"general-active_domain"``, ``"general-city"``; booking slots
``"restaurant-book_people"`` (the official state string writes them ``restaurant people
2``; the config maps the bare names ``restaurant-people`` to them for predictions).
Unset slots -- ``null``, ``""`` or any other falsy value, exactly what the official
``state_dict2str`` skips -- are dropped; every other value is kept raw (no stripping, no
width folding: the official profile compares raw strings). Booking slots are taken for
every domain of ``book_state``; the official scorer takes them for the domains listed in
``belief_state``, which in the release lists every domain.

``GoldTurn.user_utterance`` is the user turn just before the system turn (``""`` when the
system turn is not preceded by one), ``system_response`` the system turn's utterance,
``raw_turn_index`` the position of that user turn in ``turns`` (of the system turn when
there is none) and ``system_annotations["turn_id"]`` the system turn's ``turn_id`` (its
position when it has none): predictions are joined on it, as the official ``evaluate.py``
joins them.

Accepted inputs: the release directory (``dialogues.json``, ``split_list.json``,
``ontology.json``; also one level down in ``JMultiWOZ_1.0/``), its zip, ``dialogues.json``
itself, or the HF layout: a JSON list or JSONL of dialogue records whose states are lists
of ``{"domain", "slot", "value"}`` (or the same as columns), turns possibly as columns.
``split`` (``train``, ``dev``, ``test``) selects dialogues through ``split_list.json``
when there is one; with a ``split_list.json`` naming several splits it is required (a
usage error without, as for MultiWOZ's list files and SGD's split folders); a split that
``split_list.json`` does not name dialogues for is a gold data error listing those it does. A
split naming a dialogue twice, or two splits naming one dialogue, is a gold data error too.
In a zip, only the ``split_list.json`` in the folder of ``dialogues.json`` is read (as for
MultiWOZ zips' list files), and a zip holding two ``dialogues.json`` is refused.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from dst_eval.config import corpus_config
from dst_eval.corpora.layout import (
    FileLog,
    columns_to_rows,
    deep_freeze,
    parse_literal,
    read_head,
    split_from_name,
)
from dst_eval.errors import GoldDataError, UsageError
from dst_eval.gold import (
    GoldDialogue,
    GoldSet,
    GoldTurn,
    check_slot_names,
    check_unique_ids,
    freeze_state,
)

CORPUS = "jmultiwoz"
SPLITS = ("train", "dev", "test")
SPLIT_ALIASES = {"val": "dev", "valid": "dev", "validation": "dev"}
RELEASE_DIR = "JMultiWOZ_1.0"
BOOK_PREFIX = "book_"


# ---------------------------------------------------------------- locating the data

def _release_dir(path: Path) -> Path | None:
    """The folder holding ``dialogues.json``: ``path`` or its ``JMultiWOZ_1.0``; both
    holding one is a :class:`GoldDataError` (which copy was meant? they may differ)."""
    found = [folder for folder in (path, path / RELEASE_DIR)
             if (folder / "dialogues.json").is_file()]
    if len(found) > 1:
        raise GoldDataError(f"the folder holds dialogues.json and {RELEASE_DIR}/"
                            "dialogues.json; give the one you mean as --gold", file=str(path))
    return found[0] if found else None


def _zip_members(path: Path) -> list[str]:
    """The members named ``dialogues.json`` of a release zip."""
    with zipfile.ZipFile(path) as archive:
        return _dialogue_members(archive.namelist())


def _dialogue_members(names: list[str]) -> list[str]:
    return [n for n in names if not n.startswith("__MACOSX/")
            and n.rsplit("/", 1)[-1] == "dialogues.json"]


def _member_names(names: list[str], path: Path) -> dict[str, str]:
    """``{"dialogues.json": member, "split_list.json": member}`` of a release zip: the one
    ``dialogues.json`` (two are refused: which one is the gold?) and the ``split_list.json``
    in its folder, if any (one elsewhere in the zip, say an old release's, is not read)."""
    found = _dialogue_members(names)
    if len(found) > 1:
        raise GoldDataError(f"the zip holds {len(found)} dialogues.json ({', '.join(found)}); "
                            "unzip it and pass the folder of the one to score", file=str(path))
    if not found:
        return {}
    folder = found[0][:-len("dialogues.json")]
    split_list = f"{folder}split_list.json"
    return {"dialogues.json": found[0],
            **({"split_list.json": split_list} if split_list in names else {})}


def _looks_like_jmultiwoz(head: str) -> bool:
    return '"dialogue_name"' in head and ('"turns"' in head or '"speaker"' in head)


def sniff(path: Path) -> bool:
    """True for the release directory/zip, ``dialogues.json`` or an HF-layout file."""
    path = Path(path)
    try:
        if path.is_dir():
            folder = _release_dir(path)
            return folder is not None and _looks_like_jmultiwoz(read_head(folder /
                                                                          "dialogues.json"))
        if not path.is_file():
            return False
        if path.suffix == ".zip" and _zip_members(path):
            return True
        return _looks_like_jmultiwoz(read_head(path))
    except (OSError, zipfile.BadZipFile):
        return False


def _read_release(path: Path, log: FileLog) -> tuple[Any, Any, str, str]:
    """``(dialogues, split_list or None, source, split_list's source)`` from whatever
    ``path`` is."""
    if path.is_dir():
        folder = _release_dir(path)
        if folder is None:
            raise GoldDataError("no dialogues.json in this directory (JMultiWOZ)", file=str(path))
        split_file = folder / "split_list.json"
        split_list = log.read_json(split_file) if split_file.is_file() else None
        return (log.read_json(folder / "dialogues.json"), split_list,
                str(folder / "dialogues.json"), str(split_file))
    if path.suffix == ".zip":
        with log.open_zip(path) as archive:
            members = _member_names(archive.namelist(), path)
            if "dialogues.json" in members:
                def member(name: str) -> Any:
                    return archive.read_json(members[name])
                split_list = member("split_list.json") if "split_list.json" in members else None
                return (member("dialogues.json"), split_list,
                        archive.name(members["dialogues.json"]),
                        archive.name(members.get("split_list.json", "split_list.json")))
    split_file = path.parent / "split_list.json"
    split_list = log.read_json(split_file) if path.name == "dialogues.json" and \
        split_file.is_file() else None
    return log.read_records(path), split_list, str(path), str(split_file)


# ---------------------------------------------------------------- loading

def load(path: Path, *, split: str | None = None) -> GoldSet:
    path = Path(path)
    if split is not None:
        split = SPLIT_ALIASES.get(split.lower(), split.lower())
    log = FileLog()
    data, split_list, source, split_source = _read_release(path, log)
    records = dict(_iter_records(data, source))
    if split_list is not None:
        _check_split_list(split_list, split_source)
        split = split or _only_split(split_list, str(path))
        names = _split_names(split_list, split, source)
        missing = [n for n in names if n not in records]
        if missing:
            raise GoldDataError(f"{len(missing)} dialogues of the {split} split are not in "
                                f"dialogues.json, e.g. {missing[0]}", file=source)
        chosen = [(n, records[n]) for n in names]
    else:
        named = split_from_name(path, SPLITS, SPLIT_ALIASES)
        if split is not None and split != named:
            holds = f"holds the {named} split" if named else "names no split"
            raise GoldDataError(f"--split {split} given, but {path.name} {holds} (and there "
                                "is no split_list.json)", file=str(path))
        split = split or named
        chosen = list(records.items())
    check_unique_ids((name, source) for name, _ in chosen)
    dialogues = tuple(_dialogue(name, record, source=source) for name, record in chosen)
    if not dialogues:
        raise GoldDataError("no JMultiWOZ dialogues found", file=source)
    config = corpus_config(CORPUS)
    check_slot_names(dialogues, config.slots, corpus=CORPUS, source=source)
    return GoldSet(
        corpus=CORPUS,
        split=split,
        dialogues=dialogues,
        source=str(path),
        slots=config.slots,
        categorical_slots=config.categorical_slots,
        files=log.files,
    )


def _only_split(split_list: Any, source: str) -> str:
    """The one split ``split_list.json`` names dialogues for; several are a usage error."""
    _check_split_list(split_list, source)
    held = [str(name) for name, names in split_list.items() if names]
    if len(held) != 1:
        raise UsageError(f"{source} holds the splits {', '.join(held) or 'none'} (by "
                         "split_list.json); name one with --split")
    return held[0]


def _check_split_list(split_list: Any, source: str) -> None:
    """``split_list.json`` (``source``) is ``{split: [dialogue names]}``: a string entry
    would be read character by character, an object by its keys; a name given twice in a
    split would be scored twice, and one given in two splits scored in both."""
    if not isinstance(split_list, Mapping):
        raise GoldDataError("split_list.json is not an object {split: [dialogue names]}",
                            file=source)
    split_of: dict[str, str] = {}  # dialogue name -> the split listing it
    for split, names in split_list.items():
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise GoldDataError(f"split {str(split)!r} is not a list of dialogue names",
                                file=source)
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise GoldDataError(f"split {str(split)!r} names this dialogue twice",
                                    file=source, dialogue=name)
            seen.add(name)
            if name in split_of:  # scored in either split: train/test leakage
                raise GoldDataError(f"this dialogue is listed in two splits, {split_of[name]!r} "
                                    f"and {str(split)!r}", file=source, dialogue=name)
            split_of[name] = str(split)


def _split_names(split_list: Any, split: str, source: str) -> list[str]:
    _check_split_list(split_list, source)
    if not split_list.get(split):  # a gold problem (exit 4), as for CrossWOZ and RiSAWOZ
        held = [str(name) for name, names in split_list.items() if names]
        raise GoldDataError(f"no JMultiWOZ {split!r} split: split_list.json holds the splits "
                            f"{', '.join(held) or 'none'}", file=source)
    return [str(n) for n in split_list[split]]


def _iter_records(data: Any, source: str) -> Iterator[tuple[str, Mapping]]:
    if isinstance(data, Mapping):
        items = list(data.items())
    elif isinstance(data, list):
        items = [(None, record) for record in data]
    else:
        raise GoldDataError("expected a JSON object or list of JMultiWOZ dialogues", file=source)
    seen: set[str] = set()
    for position, (key, record) in enumerate(items):
        if not isinstance(record, Mapping) or "turns" not in record:
            raise GoldDataError(f"record {key if key is not None else position} is not a "
                                "JMultiWOZ dialogue (no 'turns')", file=source)
        name = record.get("dialogue_name") or key
        if name in (None, ""):
            raise GoldDataError(f"record {position} has no 'dialogue_name'", file=source)
        name = str(name)
        if name in seen:
            raise GoldDataError("duplicate dialogue name", file=source, dialogue=name)
        seen.add(name)
        yield name, record


def _turns(record: Mapping, *, source: str, name: str) -> list[Mapping]:
    turns = record["turns"]
    if isinstance(turns, Mapping):  # HF columns
        turns = columns_to_rows(turns, what="turns", file=source, dialogue=name)
    if not isinstance(turns, list):
        raise GoldDataError("'turns' is not a list", file=source, dialogue=name)
    last = None
    for index, turn in enumerate(turns):
        if not isinstance(turn, Mapping) or str(turn.get("speaker", "")).upper() not in (
                "USER", "SYSTEM"):
            raise GoldDataError(f"turns[{index}] has no speaker USER or SYSTEM", file=source,
                                dialogue=name, turn=index)
        turn_id = turn.get("turn_id")
        if isinstance(turn_id, int) and not isinstance(turn_id, bool):
            # predictions are joined on turn_id (as the official script joins them): a
            # turn_id given twice, or turns out of order, would pair them with other turns
            if last is not None and turn_id <= last:
                raise GoldDataError(f"turns[{index}] has turn_id {turn_id} after turn_id "
                                    f"{last}: turn ids must increase", file=source,
                                    dialogue=name, turn=index)
            last = turn_id
    return turns


def _slot_entries(raw: Any, *, what: str, source: str, name: str,
                  turn: int) -> Iterator[tuple[str, str, Any]]:
    """``(domain, slot, value)`` triples of one state part.

    Accepts ``{domain: {slot: value}}`` or the HF list ``[{domain, slot, value}]``
    (also as columns), possibly stringified.
    """
    if isinstance(raw, str) and raw.strip()[:1] in ("{", "["):
        raw = parse_literal(raw, what=what, file=source, dialogue=name, turn=turn)
    if raw is None:
        return
    if isinstance(raw, Mapping) and {"domain", "slot", "value"} <= set(raw) and isinstance(
            raw["domain"], list):
        raw = columns_to_rows(raw, what=what, file=source, dialogue=name)
    if isinstance(raw, list):
        for item in raw:
            if not isinstance(item, Mapping) or not {"domain", "slot"} <= set(item):
                raise GoldDataError(f"{what}: entry {item!r:.60} is not {{domain, slot, value}}",
                                    file=source, dialogue=name, turn=turn)
            yield str(item["domain"]), str(item["slot"]), item.get("value")
        return
    if not isinstance(raw, Mapping):
        raise GoldDataError(f"{what} is a {type(raw).__name__}, expected an object",
                            file=source, dialogue=name, turn=turn)
    for domain, slots in raw.items():
        if slots is None:
            continue
        if not isinstance(slots, Mapping):
            raise GoldDataError(f"{what}[{domain!r}] is not an object", file=source,
                                dialogue=name, turn=turn)
        for slot, value in slots.items():
            yield str(domain), str(slot), value


def _value(value: Any, key: str, *, source: str, name: str, turn: int) -> str | None:
    """The official ``if not value: skip``; scalars kept raw as text."""
    if not value:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):  # bool included: str(True) as the official f-string
        return str(value)
    raise GoldDataError(f"value of {key} is a {type(value).__name__}, expected a string",
                        file=source, dialogue=name, turn=turn)


def gold_state(dialogue_state: Any, *, source: str, name: str,
               turn: int) -> dict[str, tuple[str, ...]]:
    """System-turn ``dialogue_state`` -> ``{"domain-slot": (value,)}``; booking slots ``book_*``."""
    if isinstance(dialogue_state, str) and dialogue_state.strip()[:1] == "{":
        dialogue_state = parse_literal(dialogue_state, what="dialogue_state", file=source,
                                       dialogue=name, turn=turn)
    if not isinstance(dialogue_state, Mapping) or "belief_state" not in dialogue_state:
        raise GoldDataError("SYSTEM turn has no dialogue_state.belief_state", file=source,
                            dialogue=name, turn=turn)
    state: dict[str, tuple[str, ...]] = {}
    parts = (("belief_state", ""), ("book_state", BOOK_PREFIX))
    for part, prefix in parts:
        entries = _slot_entries(dialogue_state.get(part), what=part, source=source, name=name,
                                turn=turn)
        for domain, slot, raw_value in entries:
            key = f"{domain}-{prefix}{slot}"
            value = _value(raw_value, key, source=source, name=name, turn=turn)
            if value is not None:
                state[key] = (value,)
    return state


def _dialogue(name: str, record: Mapping, *, source: str) -> GoldDialogue:
    turns = _turns(record, source=source, name=name)
    gold_turns: list[GoldTurn] = []
    for index, turn in enumerate(turns):
        if str(turn["speaker"]).upper() != "SYSTEM":
            continue
        state = gold_state(turn.get("dialogue_state"), source=source, name=name, turn=index)
        previous = turns[index - 1] if index > 0 else None
        after_user = previous is not None and str(previous["speaker"]).upper() == "USER"
        active = state.get("general-active_domain", ())
        gold_turns.append(GoldTurn(
            dialogue_id=name,
            turn_index=len(gold_turns),
            user_utterance=str(previous.get("utterance") or "") if after_user else "",
            state=freeze_state(state),
            services=tuple(active),
            system_response=str(turn.get("utterance") or ""),
            raw_turn_index=index - 1 if after_user else index,
            system_annotations=_turn_id(turn, index),
        ))
    goal = record.get("goal")
    if isinstance(goal, list):
        goal = _goal_from_hf(goal)
    services = tuple(d for d in goal if d != "general") if isinstance(goal, Mapping) else ()
    meta = {k: str(record[k]) for k in ("dialogue_id", "system_name", "user_name")
            if record.get(k) not in (None, "")}
    return GoldDialogue(
        dialogue_id=name,
        turns=tuple(gold_turns),
        services=services,
        goal=deep_freeze(goal) if isinstance(goal, Mapping) else None,
        meta=MappingProxyType(meta),
    )


def _turn_id(turn: Mapping, position: int) -> Mapping[str, int]:
    """``{"turn_id": ...}`` of a SYSTEM turn: its own ``turn_id`` (an integer), else its
    position in ``turns`` -- what the official ``evaluate.py`` joins predictions on."""
    turn_id = turn.get("turn_id")
    valid = isinstance(turn_id, int) and not isinstance(turn_id, bool)
    return MappingProxyType({"turn_id": turn_id if valid else position})


def _goal_from_hf(entries: list) -> dict[str, dict[str, Any]]:
    """HF ``[{domain, task, slot, value}]`` -> the release's ``{domain: {task: {slot: value}}}``.

    ``reqt`` (requested slots) becomes a list of slot names, as in ``dialogues.json``.
    """
    goal: dict[str, dict[str, Any]] = {}
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        domain, task = str(entry.get("domain")), str(entry.get("task"))
        tasks = goal.setdefault(domain, {})
        if task == "reqt":
            tasks.setdefault(task, []).append(entry.get("slot"))
        else:
            tasks.setdefault(task, {})[str(entry.get("slot"))] = entry.get("value")
    return goal
