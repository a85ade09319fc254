"""RiSAWOZ (terryqj0107/RiSAWOZ, GEM/RiSAWOZ): original and GEM layouts.

A dialogue is ``{"dialogue_id", "goal", "domains", "dialogue": [turn, ...]}``; each turn
pairs a user and a system utterance and carries ``belief_state = {"inform slot-values":
{"旅游景点-景点类型": "水乡 古镇"}, "turn_inform": {...}, "turn request": ["特点"]}``, the
cumulative gold state after the user utterance (SCORERS.md §10). Every turn is evaluable.

Keys are kept as ``"domain-slot"`` and split on the first ``-`` only (``医院-3.0T MRI``).
Values stay as annotated (word-segmented with spaces: ``"15   ~   20"``); only values
that are empty or whitespace-only are dropped, and non-string scalars become ``str(v)``.
The ``despace`` policy (the RiSAWOZ default) removes whitespace on both sides at scoring.

Accepted inputs: a JSON list of dialogues, a ``{dialogue_id: dialogue}`` object, JSONL, a
zipped JSON file, or a directory of such files (merged, with a note naming the files
when the scored dialogues come from several; the ontology and the split-id file are
skipped). The GEM/HF layout adds ``gem_id`` and may give ``dialogue`` as columns
(``{"turn_id": [...], "belief_state": [...], ...}``) and belief states, slot maps or
request lists as stringified Python literals; those are parsed with
:func:`ast.literal_eval`. ``split`` (``train``, ``dev``, ``test``, ``single_test``,
``multi_test``) keeps the dialogues listed for it in ``dataset_split_ids_dict.json`` when
that file is next to the data (or one directory up); that file is read with or without
``split`` and checks file names, several splits and partial splits (:mod:`.splits`).

``GoldTurn.system_annotations`` (read-only) of a turn holds, when the turn has it:

* ``"segmented_response"`` -- the turn's ``segmented_system_utterance`` string as given (the
  corpus's own word segmentation of ``system_utterance``, tokens separated by spaces); used
  as the reference of the ``bleu_segmented`` variant of :mod:`dst_eval.corpora.risawoz.responses`.
  Absent when the field is missing or not a string.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from dst_eval.config import corpus_config
from dst_eval.corpora.layout import FileLog, columns_to_rows, parse_literal, read_head
from dst_eval.corpora.risawoz import splits
from dst_eval.errors import GoldDataError
from dst_eval.gold import (
    GoldDialogue,
    GoldSet,
    GoldTurn,
    check_slot_names,
    check_unique_ids,
    freeze_state,
)

CORPUS = "risawoz"
SPLIT_ID_FILE = splits.SPLIT_ID_FILE
SPLIT_ALIASES = {"val": "dev", "valid": "dev", "validation": "dev"}
_MARKERS = ('"inform slot-values"', '"turn_inform"', '"segmented_user_utterance"')
_GENERAL_DOMAIN = "通用"
SEGMENTED_FIELD = "segmented_system_utterance"
_NO_ANNOTATIONS: Mapping[str, Any] = MappingProxyType({})


def _looks_like_risawoz(head: str) -> bool:
    return any(marker in head for marker in _MARKERS)


def _data_files(directory: Path, skipped: list[str] | None = None) -> list[Path]:
    """The RiSAWOZ dialogue files of ``directory``. ``skipped``: receives the other
    ``.json``/``.jsonl``/``.json.zip`` files (a database, an ontology: not dialogues, or a
    first record too long to tell); given (loading, not sniffing), a file that cannot be
    read -- a broken link, a damaged zip -- is a :class:`GoldDataError`: it may be gold."""
    files = []
    for child in sorted(directory.iterdir()):
        if child.name == SPLIT_ID_FILE or not child.name.endswith(
                (".json", ".jsonl", ".json.zip")):
            continue
        try:
            if not child.is_file():
                raise OSError("not a readable file (a broken link or a folder)")
            found = _looks_like_risawoz(read_head(child))
        except (OSError, zipfile.BadZipFile, NotImplementedError) as exc:
            if skipped is None:
                continue
            raise GoldDataError(f"cannot read {child.name} in the gold folder "
                                f"({exc.strerror or exc if isinstance(exc, OSError) else exc}); "
                                "it may hold gold: remove it or give the file you mean",
                                file=str(child)) from None
        if found:
            files.append(child)
        elif skipped is not None:
            skipped.append(child.name)
    return files


def sniff(path: Path) -> bool:
    """True for a RiSAWOZ dialogue file (original or GEM) or a directory holding one."""
    path = Path(path)
    if path.is_dir():
        return bool(_data_files(path))
    if not path.is_file():
        return False
    try:
        return _looks_like_risawoz(read_head(path))
    except (OSError, zipfile.BadZipFile, NotImplementedError):
        return False


def load(path: Path, *, split: str | None = None) -> GoldSet:
    path = Path(path)
    if split is not None:
        split = SPLIT_ALIASES.get(split.lower(), split.lower())
    skipped: list[str] = []
    files = _data_files(path, skipped) if path.is_dir() else [path]
    if not files:
        raise GoldDataError("no RiSAWOZ dialogue file in this directory", file=str(path))
    id_file = splits.split_id_file(path)
    files, named = splits.files_for(path, files, split, id_file)
    dialogues: dict[str, GoldDialogue] = {}
    raw_by_id: dict[str, Any] = {}
    file_of: dict[str, str] = {}  # dialogue id -> the file it was read from
    ids_of: dict[str, list[str]] = {}  # file -> the dialogue ids it holds
    log = FileLog()
    for file_path in files:
        source = str(file_path)
        for dialogue_id, record in _iter_records(log.read_records(file_path), source):
            ids_of.setdefault(source, []).append(dialogue_id)
            if dialogue_id in raw_by_id:
                if raw_by_id[dialogue_id] == record:
                    continue  # the same dialogue in two files
                also = f" (also in {file_of[dialogue_id]})" if file_of[dialogue_id] != source \
                    else ""
                raise GoldDataError(f"duplicate dialogue id with different content{also}",
                                    file=source, dialogue=dialogue_id)
            raw_by_id[dialogue_id] = record
            file_of[dialogue_id] = source
            dialogues[dialogue_id] = _dialogue(dialogue_id, record, source=source)
    if id_file is not None:
        table = splits.check_table(log.read_json(id_file), id_file)
        splits.check_named_files(ids_of, table, id_file)
        dialogues, split, notes = splits.select(dialogues, file_of, table, split=split,
                                                named=named, path=path)
    else:
        split, notes = named, splits.merged_note(dialogues, file_of)
    check_unique_ids((dialogue_id, file_of[dialogue_id]) for dialogue_id in dialogues)
    config = corpus_config(CORPUS)
    check_slot_names(dialogues.values(), config.slots, corpus=CORPUS, source=str(path))
    if skipped:
        notes = (*notes, f"not read as gold: {', '.join(skipped[:5])}"
                         f"{', ...' if len(skipped) > 5 else ''} in the gold folder (no RiSAWOZ "
                         "dialogues at their start)")
    return GoldSet(
        corpus=CORPUS,
        split=split,
        dialogues=tuple(dialogues.values()),
        source=str(path),
        slots=config.slots,
        categorical_slots=config.categorical_slots,
        files=log.files,
        notes=notes,
    )


def _iter_records(data: Any, source: str) -> Iterator[tuple[str, Mapping]]:
    if isinstance(data, Mapping) and "dialogue" in data and "dialogue_id" in data:
        data = [data]
    if isinstance(data, Mapping):
        for key, record in data.items():
            if not isinstance(record, Mapping) or "dialogue" not in record:
                raise GoldDataError("expected {dialogue_id: {..., 'dialogue': [...]}} (RiSAWOZ)",
                                    file=source, dialogue=str(key))
            yield str(record.get("dialogue_id") or key), record
        return
    if not isinstance(data, list):
        raise GoldDataError("expected a JSON list of RiSAWOZ dialogues", file=source)
    for position, record in enumerate(data):
        if not isinstance(record, Mapping) or "dialogue" not in record:
            raise GoldDataError(f"record {position} is not a RiSAWOZ dialogue (no 'dialogue')",
                                file=source)
        if record.get("dialogue_id") in (None, ""):
            raise GoldDataError(f"record {position} has no 'dialogue_id'", file=source)
        yield str(record["dialogue_id"]), record


def _literal(value: Any, *, what: str, source: str, dialogue_id: str, turn: int) -> Any:
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        return parse_literal(value, what=what, file=source, dialogue=dialogue_id, turn=turn)
    return value


def _slot_values(raw: Any, *, what: str, source: str, dialogue_id: str,
                 turn: int) -> dict[str, Any]:
    """A slot map given as a dict, a stringified dict, ``[[slot, value]]`` or HF columns."""
    raw = _literal(raw, what=what, source=source, dialogue_id=dialogue_id, turn=turn)
    if raw is None:
        return {}
    if isinstance(raw, Mapping) and set(raw) == {"slot", "value"} and isinstance(
            raw["slot"], list):
        if not isinstance(raw["value"], list) or len(raw["value"]) != len(raw["slot"]):
            raise GoldDataError(f"{what}: the 'slot' and 'value' columns have different "
                                "lengths", file=source, dialogue=dialogue_id, turn=turn)
        raw = list(zip(raw["slot"], raw["value"], strict=True))
    if isinstance(raw, list):
        pairs: dict[str, Any] = {}
        for item in raw:
            if isinstance(item, Mapping) and "slot" in item:
                slot, value = str(item["slot"]), item.get("value")
            elif isinstance(item, list | tuple) and len(item) == 2:
                slot, value = str(item[0]), item[1]
            else:
                raise GoldDataError(f"{what}: cannot read {item!r:.60} as a slot-value pair",
                                    file=source, dialogue=dialogue_id, turn=turn)
            if slot in pairs and pairs[slot] != value:
                raise GoldDataError(f"{what}: slot {slot!r} is given twice, with different "
                                    "values", file=source, dialogue=dialogue_id, turn=turn)
            pairs[slot] = value
        return pairs
    if not isinstance(raw, Mapping):
        raise GoldDataError(f"{what} is a {type(raw).__name__}, expected an object",
                            file=source, dialogue=dialogue_id, turn=turn)
    return dict(raw)


def gold_state(inform: Mapping[str, Any], *, source: str, dialogue_id: str,
               turn: int) -> dict[str, tuple[str, ...]]:
    """``inform slot-values`` -> ``{"domain-slot": (value,)}`` without empty values."""
    state: dict[str, tuple[str, ...]] = {}
    for key, value in inform.items():
        domain, sep, slot = str(key).partition("-")
        if not sep or not domain or not slot:
            raise GoldDataError(f"slot key {key!r} is not 'domain-slot'", file=source,
                                dialogue=dialogue_id, turn=turn)
        if value is None:
            continue
        if isinstance(value, list | dict | tuple):
            raise GoldDataError(f"value of {key} is a {type(value).__name__}, expected a string",
                                file=source, dialogue=dialogue_id, turn=turn)
        text = value if isinstance(value, str) else str(value)
        if text.strip():
            state[str(key)] = (text,)
    return state


def _requested(turn: Mapping, belief: Mapping, *, source: str, dialogue_id: str,
               index: int) -> frozenset[str]:
    slots = _literal(belief.get("turn request") or [], what="turn request", source=source,
                     dialogue_id=dialogue_id, turn=index)
    if not slots:
        return frozenset()
    if not isinstance(slots, list | tuple):
        raise GoldDataError("'turn request' is not a list", file=source, dialogue=dialogue_id,
                            turn=index)
    acts = _literal(turn.get("user_actions") or [], what="user_actions", source=source,
                    dialogue_id=dialogue_id, turn=index)
    by_slot = {str(a[2]): str(a[1]) for a in acts
               if isinstance(a, list | tuple) and len(a) >= 3 and a[0] == "Request"}
    domains = [d for d in _domains(turn) if d != _GENERAL_DOMAIN]
    out = set()
    for slot in slots:
        slot = str(slot)
        domain = by_slot.get(slot) or (domains[0] if domains else "")
        out.add(f"{domain}-{slot}" if domain else slot)
    return frozenset(out)


def _domains(turn: Mapping) -> list[str]:
    return _names(turn.get("turn_domain"), "turn_domain")


def _names(domains: Any, what: str) -> list[str]:
    """A list of domain names (a string: one; absent or null: none); another type raises
    :class:`_NotNames` (the caller places it)."""
    if domains is None or domains == "":
        return []
    if isinstance(domains, str):
        return [domains]
    if not isinstance(domains, list | tuple):
        raise _NotNames(f"{what!r} must be a list of domain names, found "
                        f"{type(domains).__name__}")
    return [str(d) for d in domains]


class _NotNames(ValueError):
    """A domains field that is no list of names."""


def _turns(record: Mapping, *, source: str, dialogue_id: str) -> list[Mapping]:
    turns = record["dialogue"]
    if isinstance(turns, Mapping):  # HF columns
        turns = columns_to_rows(turns, what="dialogue", file=source, dialogue=dialogue_id)
    if not isinstance(turns, list):
        raise GoldDataError("'dialogue' is not a list of turns", file=source,
                            dialogue=dialogue_id)
    return turns


def _system_annotations(turn: Mapping) -> Mapping[str, Any]:
    """``{"segmented_response": ...}`` when the turn has the segmentation (docstring)."""
    segmented = turn.get(SEGMENTED_FIELD)
    if not isinstance(segmented, str):
        return _NO_ANNOTATIONS
    return MappingProxyType({"segmented_response": segmented})


def _dialogue(dialogue_id: str, record: Mapping, *, source: str) -> GoldDialogue:
    gold_turns: list[GoldTurn] = []
    for index, turn in enumerate(_turns(record, source=source, dialogue_id=dialogue_id)):
        if not isinstance(turn, Mapping):
            raise GoldDataError(f"dialogue[{index}] is not an object", file=source,
                                dialogue=dialogue_id, turn=index)
        belief = _literal(turn.get("belief_state"), what="belief_state", source=source,
                          dialogue_id=dialogue_id, turn=index)
        if not isinstance(belief, Mapping) or "inform slot-values" not in belief:
            raise GoldDataError("turn has no belief_state['inform slot-values']", file=source,
                                dialogue=dialogue_id, turn=index)
        inform = _slot_values(belief["inform slot-values"], what="inform slot-values",
                              source=source, dialogue_id=dialogue_id, turn=index)
        try:
            services = tuple(d for d in _domains(turn) if d != _GENERAL_DOMAIN)
        except _NotNames as exc:
            raise GoldDataError(str(exc), file=source, dialogue=dialogue_id,
                                turn=index) from None
        state = gold_state(inform, source=source, dialogue_id=dialogue_id, turn=index)
        gold_turns.append(GoldTurn(
            dialogue_id=dialogue_id,
            turn_index=len(gold_turns),
            user_utterance=str(turn.get("user_utterance") or ""),
            state=freeze_state(state),
            requested_slots=_requested(turn, belief, source=source, dialogue_id=dialogue_id,
                                       index=index),
            services=services,
            system_response=str(turn.get("system_utterance") or ""),
            raw_turn_index=index,
            system_annotations=_system_annotations(turn),
        ))
    domains = record.get("domains")
    if isinstance(domains, str):
        domains = _literal(domains, what="domains", source=source, dialogue_id=dialogue_id,
                           turn=0)
    try:
        domains = _names(domains, "domains")
    except _NotNames as exc:
        raise GoldDataError(str(exc), file=source, dialogue=dialogue_id) from None
    meta = {"n_domains": str(len(domains))}
    if record.get("gem_id"):
        meta["gem_id"] = str(record["gem_id"])
    return GoldDialogue(
        dialogue_id=dialogue_id,
        turns=tuple(gold_turns),
        services=tuple(str(d) for d in domains),
        goal=MappingProxyType({"goal": str(record.get("goal") or "")}),
        meta=MappingProxyType(meta),
    )
