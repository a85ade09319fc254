"""MultiWOZ 2.2 gold loader (native SGD-style files and the Hugging Face ``multi_woz_v22`` layout).

Accepted inputs (``load(path, split=...)``):

* a directory holding ``dialogues_*.json`` (``schema.json`` in it or in its parent);
* the corpus root holding ``train/ dev/ test/`` -- ``split`` chooses the folder
  (``val``/``valid``/``validation`` mean ``dev``);
* one ``dialogues_*.json`` file (``schema.json`` next to it or one folder up);
* a ``.zip`` of any of these (``split`` chooses the folder when it holds several);
* the Hugging Face ``datasets`` records of ``multi_woz_v22`` (config ``v2.2``) exported as
  JSON (an array of records) or JSONL (``Dataset.to_json``). Records are columnar:
  ``turns = {turn_id: [...], speaker: [0|1 ...], utterance: [...], frames: [{service: [...],
  state: [{active_intent, requested_slots, slots_values: {slots_values_name: [...],
  slots_values_list: [[...]]}}], slots: [{slot: [...], value: [...], start: [...],
  exclusive_end: [...], copy_from: [...], copy_from_value: [[...]]}]} per turn]}``. The HF
  script stores each span's end in ``start`` and its start in ``exclusive_end``; the loader
  orders the pair. The default HF config ``v2.2_active_only`` drops every frame whose intent is
  ``NONE`` together with the state it carries over, so it is refused (GoldDataError).

Canonical form (one :class:`~dst_eval.gold.GoldTurn` per USER turn):

* ``state`` = union of the 8 frames' ``state.slot_values``: ``{"hotel-area": (variants...)}``,
  value lists kept in corpus order (first = canonical), values not rewritten (``dontcare`` is an
  ordinary value; normalisation happens later in :mod:`dst_eval.normalize`); a slot with an empty
  value list is dropped; the same slot with different values in two frames is an error.
  ``copy_from`` slots need nothing special: the state already holds the copied values.
* ``requested_slots`` = union of the frames' ``requested_slots`` (``"hotel-phone"``);
  ``active_intents`` = ``{service: intent}`` for intents other than ``NONE``;
  ``services`` = services whose frame is active or has a state, in frame order;
  ``system_response`` = the following SYSTEM utterance; ``raw_turn_index`` = position in ``turns``.
* ``frames`` = the turn's frames as :class:`~dst_eval.gold.GoldFrame` (corpus slot names,
  spans from ``slots`` entries with ``start``/``exclusive_end``; ``copy_from`` entries skipped).

``GoldSet.schema`` comes from ``schema.json`` (8 services, 61 slots, 21 categorical);
``GoldSet.slots`` = ``configs/multiwoz22.toml`` ``slots`` (the 35 slots the 2.2 README lists as
tracked); ``categorical_slots`` from the schema (the config's list when no schema is found).

Malformed gold, and a frame of a service ``schema.json`` lacks (:mod:`.schema22`), raise
:class:`~dst_eval.errors.GoldDataError` (exit 4) naming the file, the dialogue and the turn index.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any

from dst_eval.config import corpus_config
from dst_eval.corpora.layout import SPLIT_WORDS, FileLog, split_in_name, split_label_note
from dst_eval.corpora.multiwoz.hf22 import from_hf
from dst_eval.corpora.multiwoz.schema22 import SERVICES, check_schema, check_services
from dst_eval.errors import DstEvalError, GoldDataError, UsageError
from dst_eval.gold import (
    GoldDialogue,
    GoldFrame,
    GoldSet,
    GoldTurn,
    ServiceSchema,
    SlotSpan,
    UniqueIds,
    frame_slot_key,
    freeze_mapping,
    freeze_state,
)
from dst_eval.jsonio import ZipBudget, iter_jsonl, parse_json_bytes, read_bytes, read_declared

CORPUS = "multiwoz22"
_DIALOGUES_FILE = re.compile(r"^dialogues_[^/]*\.json$")
_NO_INTENT = ("NONE", "")

Blob = tuple[str, Any]  # (file name for messages, parsed JSON)


# ----------------------------------------------------------------------------------- public API


def infer_split(path: Path) -> str | None:
    """``train``/``dev``/``test`` from a file or folder name (``val``/``validation`` -> ``dev``):
    the real (symlink-resolved) names first, then the names given."""
    real = path.resolve()
    return split_in_name(real.name, real.parent.name, path.name, path.parent.name)


def sniff(path: str | Path) -> bool:
    """True if ``path`` looks like MultiWOZ 2.2 (native or HF layout); reads one dialogue file."""
    path = Path(path)
    try:
        if path.is_dir():
            files = _dialogue_files(path)
            if not files:
                folders = [path / f for f in ("test", "dev", "train") if (path / f).is_dir()]
                files = next((_dialogue_files(f) for f in folders if _dialogue_files(f)), [])
            return bool(files) and _looks_like_dialogues(_parsed_if_turn_ids(files[0]))
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                names = sorted(n for n in archive.namelist() if _is_dialogues_member(n))
                if not names:
                    return False
                ZipBudget(path.stat().st_size, file=str(path), error=GoldDataError).take(
                    archive.getinfo(names[0]))  # a zip bomb is not sniffed: not 2.2
                data = read_declared(archive, archive.getinfo(names[0]))
            return _looks_like_dialogues(parse_json_bytes(data, file=f"{path}:{names[0]}"))
        if path.suffix == ".jsonl":
            for _lineno, record in iter_jsonl(path):
                return _looks_like_dialogues([record])
            return False
        if path.suffix == ".json" and path.name != "schema.json":
            data = read_bytes(path)
            head = data[:1 << 20]
            if not head.lstrip().startswith(b"[") or b'"turns"' not in head:
                return False
            return _looks_like_dialogues(parse_json_bytes(data, file=str(path)))
    except (DstEvalError, OSError, ValueError, zipfile.BadZipFile):
        return False
    return False


def load(path: str | Path, *, split: str | None = None) -> GoldSet:
    """Load MultiWOZ 2.2 gold from ``path`` (see the module docstring for the accepted layouts)."""
    path = Path(path)
    if not path.exists():
        raise GoldDataError("gold path does not exist", file=str(path))
    if split is not None and split.lower() not in SPLIT_WORDS:
        raise UsageError(f"unknown MultiWOZ 2.2 split {split!r}; use train, dev or test")
    log = FileLog()
    if path.is_dir():
        blobs, schema_blob, inferred = _collect_directory(path, split, log)
    elif path.suffix == ".zip":
        blobs, schema_blob, inferred = _collect_zip(path, split, log)
    else:
        blobs, schema_blob, inferred = _collect_file(path, log)
    if split is not None and inferred is not None and SPLIT_WORDS[split.lower()] != inferred:
        raise GoldDataError(f"--split {split}: the gold holds the {inferred} split",
                            file=str(path))
    schema = _parse_schema(*schema_blob) if schema_blob else {}
    check_schema(schema, schema_blob[0] if schema_blob else "")
    dialogues = _build_dialogues(blobs, schema, schema_blob[0] if schema_blob else "")
    config = corpus_config(CORPUS)
    categorical = (
        frozenset(s for service in schema.values() for s in service.categorical)
        if schema else config.categorical_slots
    )
    return GoldSet(
        corpus=CORPUS,
        split=split if split is not None else inferred,
        dialogues=dialogues,
        source=str(path),
        slots=config.slots,
        categorical_slots=categorical,
        schema=MappingProxyType(schema),
        seen_services=frozenset(schema) if schema else None,
        files=log.files,
        notes=(split_label_note(split),) if split is not None and inferred is None else (),
    )


# ------------------------------------------------------------------------------ finding the files


def _dialogue_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and _DIALOGUES_FILE.match(p.name))


def _is_dialogues_member(name: str) -> bool:
    if name.startswith("__MACOSX/"):
        return False
    return bool(_DIALOGUES_FILE.match(PurePosixPath(name).name))


def _schema_near(folder: Path, log: FileLog) -> Blob | None:
    for candidate in (folder / "schema.json", folder.parent / "schema.json"):
        if candidate.is_file():
            return str(candidate), log.read_json(candidate)
    return None


def _collect_directory(path: Path, split: str | None, log: FileLog
                       ) -> tuple[list[Blob], Blob | None, str | None]:
    files = _dialogue_files(path)
    folder = path
    if not files:
        present = [name for name in ("train", "dev", "test") if (path / name).is_dir()]
        if not present:
            raise GoldDataError(
                "no dialogues_*.json files and no train/ dev/ test/ folders here", file=str(path)
            )
        if split is None:
            if len(present) > 1:
                raise UsageError(
                    f"{path} holds several splits ({', '.join(present)}); choose one with --split"
                )
            split_folder = present[0]
        else:
            split_folder = SPLIT_WORDS[split.lower()]
            if split_folder not in present:
                raise GoldDataError(
                    f"no {split_folder}/ folder for split {split!r}", file=str(path)
                )
        folder = path / split_folder
        files = _dialogue_files(folder)
        if not files:
            raise GoldDataError("no dialogues_*.json files", file=str(folder))
    blobs = [(str(f), log.read_json(f)) for f in files]
    return blobs, _schema_near(folder, log), infer_split(folder)


def _collect_zip(path: Path, split: str | None, log: FileLog
                 ) -> tuple[list[Blob], Blob | None, str | None]:
    try:
        with log.open_zip(path) as archive:
            members = sorted(n for n in archive.namelist() if _is_dialogues_member(n))
            folders = sorted({str(PurePosixPath(n).parent) for n in members})
            if not members:
                raise GoldDataError("no dialogues_*.json in the zip", file=str(path))
            if split is not None:
                wanted = SPLIT_WORDS[split.lower()]
                named = [f for f in folders if PurePosixPath(f).name in SPLIT_WORDS]
                folders = [f for f in named if SPLIT_WORDS[PurePosixPath(f).name] == wanted] or (
                    folders if not named and len(folders) == 1 else []
                )
                if len(folders) != 1:
                    raise GoldDataError(f"no single {wanted}/ folder in the zip", file=str(path))
            elif len(folders) > 1:
                names = ", ".join(PurePosixPath(f).name for f in folders)
                raise UsageError(f"{path} holds several splits ({names}); choose one with --split")
            folder = PurePosixPath(folders[0])
            members = [n for n in members if PurePosixPath(n).parent == folder]
            blobs = [
                (archive.name(n), archive.read_json(n))
                for n in members
            ]
            schema_blob = None
            for candidate in (folder / "schema.json", folder.parent / "schema.json"):
                name = str(candidate).removeprefix("./")
                if name in archive.namelist():
                    schema_blob = (archive.name(name), archive.read_json(name))
                    break
    except zipfile.BadZipFile:
        raise GoldDataError("not a valid zip file", file=str(path)) from None
    inferred = SPLIT_WORDS.get(folder.name) or infer_split(path)
    return blobs, schema_blob, inferred


def _collect_file(path: Path, log: FileLog) -> tuple[list[Blob], Blob | None, str | None]:
    if path.name == "schema.json":
        raise GoldDataError(
            "this is the schema; give a dialogues file, its folder or the corpus root",
            file=str(path),
        )
    blob: Blob = (str(path), log.read_records(path))
    return [blob], _schema_near(path.parent, log), infer_split(path)


# ------------------------------------------------------------------------------------- sniffing


def _parsed_if_turn_ids(path: Path) -> Any:
    """``path`` parsed; None, unparsed, when no ``turn_id`` key can be in it (neither the
    name nor a ``\\u`` escape): no 2.2 file (SGD gold's first file: ~5-7 ms not parsed)."""
    data = read_bytes(path)
    if b'"turn_id"' not in data and b"\\u" not in data:
        return None
    return parse_json_bytes(data, file=str(path))


def _looks_like_dialogues(obj: Any) -> bool:
    if not isinstance(obj, list) or not obj or not isinstance(obj[0], dict):
        return False
    turns = obj[0].get("turns")
    if isinstance(turns, dict):  # Hugging Face columnar layout
        frames = turns.get("frames")
        if "turn_id" not in turns or not isinstance(frames, list):
            return False
        services = [s for f in frames if isinstance(f, dict) for s in f.get("service", []) or []]
        return bool(services) and set(services) <= SERVICES
    if not (isinstance(turns, list) and turns and isinstance(turns[0], dict)
            and "turn_id" in turns[0]):
        return False
    frames = [f for t in turns if isinstance(t, dict) for f in t.get("frames", []) or []
              if isinstance(f, dict)]
    services = [f.get("service") for f in frames]
    keys = [k for f in frames for k in ((f.get("state") or {}).get("slot_values") or {})]
    return bool(services) and set(services) <= SERVICES and all("-" in k for k in keys)


# ------------------------------------------------------------------------- Hugging Face records


def _iter_raw_dialogues(blobs: list[Blob]) -> Iterator[tuple[str, int, Any]]:
    for file, data in blobs:
        if not isinstance(data, list):
            raise GoldDataError("expected a JSON array of dialogues", file=file)
        for position, raw in enumerate(data):
            if isinstance(raw, dict) and isinstance(raw.get("turns"), dict):
                raw = from_hf(raw, file)
            yield file, position, raw


def _build_dialogues(blobs: list[Blob], schema: dict, schema_file: str) -> tuple[GoldDialogue, ...]:
    dialogues: list[GoldDialogue] = []
    ids = UniqueIds()
    for file, position, raw in _iter_raw_dialogues(blobs):
        dialogue = _build_dialogue(raw, file, position)
        check_services(dialogue, file, schema, schema_file)
        ids.add(dialogue.dialogue_id, file)
        dialogues.append(dialogue)
    if not dialogues:
        raise GoldDataError("no dialogues", file=blobs[0][0] if blobs else None)
    return tuple(dialogues)


def _str_list(value: Any, what: str, where: dict) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GoldDataError(f"{what} must be a list of strings", **where)
    return value


def _build_frame(frame: Any, where: dict) -> tuple[GoldFrame, dict[str, tuple[str, ...]]]:
    """The frame (``slot_values`` keyed :func:`~dst_eval.gold.frame_slot_key`) and its
    values by the corpus's slot names (the turn state's keys)."""
    if not isinstance(frame, dict):
        raise GoldDataError("a frame is not an object", **where)
    service = frame.get("service")
    if not isinstance(service, str):
        raise GoldDataError("a frame has no string 'service'", **where)
    state = frame.get("state")
    if not isinstance(state, dict):
        raise GoldDataError(f"frame {service!r} of a user turn has no 'state' object", **where)
    intent = state.get("active_intent", "NONE")
    if not isinstance(intent, str):
        raise GoldDataError(f"frame {service!r}: active_intent must be a string", **where)
    requested = _str_list(
        state.get("requested_slots", []), f"frame {service!r} requested_slots", where
    )
    raw_values = state.get("slot_values", {})
    if not isinstance(raw_values, dict):
        raise GoldDataError(f"frame {service!r}: slot_values must be an object", **where)
    slot_values: dict[str, list[str]] = {}
    for slot, values in raw_values.items():
        values = _str_list(values, f"frame {service!r} slot {slot!r} values", where)
        if values:
            slot_values[slot] = values
    spans: list[SlotSpan] = []
    raw_spans = frame.get("slots", [])
    if not isinstance(raw_spans, list):
        raise GoldDataError(f"frame {service!r}: 'slots' must be a list", **where)
    for span in raw_spans:
        if not isinstance(span, dict) or not isinstance(span.get("slot"), str):
            raise GoldDataError(f"frame {service!r}: a 'slots' entry has no string 'slot'", **where)
        if "copy_from" in span or "start" not in span:
            continue
        start, end = span.get("start"), span.get("exclusive_end")
        if type(start) is not int or type(end) is not int or not 0 <= start <= end:
            raise GoldDataError(
                f"frame {service!r}: span of {span['slot']!r} needs integers 0 <= start <= "
                f"exclusive_end (got {start!r}, {end!r})",
                **where,
            )
        spans.append(SlotSpan(span["slot"], start, end))
    by_name = {slot: tuple(values) for slot, values in slot_values.items()}
    return GoldFrame(
        service=service,
        active_intent=intent,
        requested_slots=tuple(requested),
        slot_values=freeze_state({frame_slot_key(service, slot): values
                                  for slot, values in by_name.items()}),
        spans=tuple(spans),
    ), by_name


def _build_turn(
    raw_turns: list, raw_index: int, turn_index: int, dialogue_id: str, file: str
) -> GoldTurn:
    where = {"file": file, "dialogue": dialogue_id, "turn": raw_index}
    turn = raw_turns[raw_index]
    if "frames" not in turn:  # never an empty state by default: the annotation is missing
        raise GoldDataError("user turn without 'frames'", **where)
    frames_raw = turn["frames"]
    if not isinstance(frames_raw, list):
        raise GoldDataError("'frames' must be a list", **where)
    built = [_build_frame(f, where) for f in frames_raw]
    frames = tuple(frame for frame, _ in built)
    state: dict[str, tuple[str, ...]] = {}
    owner: dict[str, str] = {}
    requested: set[str] = set()
    intents: dict[str, str] = {}
    services: list[str] = []
    for frame, by_name in built:
        for slot, values in by_name.items():
            if slot in state and state[slot] != values:
                raise GoldDataError(
                    f"slot {slot!r} has different values in frames {owner[slot]!r} and "
                    f"{frame.service!r}",
                    **where,
                )
            state[slot], owner[slot] = values, frame.service
        requested.update(frame.requested_slots)
        if frame.active_intent not in _NO_INTENT:
            intents[frame.service] = frame.active_intent
        if (frame.active_intent not in _NO_INTENT or frame.slot_values) and (
            frame.service not in services
        ):
            services.append(frame.service)
    response = None
    if raw_index + 1 < len(raw_turns):
        following = raw_turns[raw_index + 1]
        if isinstance(following, dict) and following.get("speaker") == "SYSTEM":
            response = following.get("utterance")
    return GoldTurn(
        dialogue_id=dialogue_id,
        turn_index=turn_index,
        user_utterance=turn["utterance"],
        state=freeze_state(state),
        requested_slots=frozenset(requested),
        active_intents=freeze_mapping(intents),
        services=tuple(services),
        system_response=response,
        frames=frames,
        raw_turn_index=raw_index,
    )


def _build_dialogue(raw: Any, file: str, position: int) -> GoldDialogue:
    if not isinstance(raw, dict):
        raise GoldDataError(f"dialogue #{position} is not an object", file=file)
    dialogue_id = raw.get("dialogue_id")
    if not isinstance(dialogue_id, str) or not dialogue_id.strip():
        raise GoldDataError(f"dialogue #{position} has no string 'dialogue_id'", file=file)
    where: dict = {"file": file, "dialogue": dialogue_id}
    raw_turns = raw.get("turns")
    if not isinstance(raw_turns, list):
        raise GoldDataError("'turns' must be a list", **where)
    services = _str_list(raw.get("services", []), "'services'", where)
    turns: list[GoldTurn] = []
    for raw_index, turn in enumerate(raw_turns):
        turn_where = {**where, "turn": raw_index}
        if not isinstance(turn, dict):
            raise GoldDataError("turn is not an object", **turn_where)
        speaker = turn.get("speaker")
        if speaker not in ("USER", "SYSTEM"):
            raise GoldDataError(f"speaker must be USER or SYSTEM, not {speaker!r}", **turn_where)
        if not isinstance(turn.get("utterance"), str):
            raise GoldDataError("turn has no string 'utterance'", **turn_where)
        if speaker == "USER":
            turns.append(_build_turn(raw_turns, raw_index, len(turns), dialogue_id, file))
    return GoldDialogue(dialogue_id=dialogue_id, turns=tuple(turns), services=tuple(services))


# ------------------------------------------------------------------------------------- schema


def _parse_schema(file: str, data: Any) -> dict[str, ServiceSchema]:
    if not isinstance(data, list):
        raise GoldDataError("schema must be a JSON array of services", file=file)
    schema: dict[str, ServiceSchema] = {}
    for position, service in enumerate(data):
        name = service.get("service_name") if isinstance(service, dict) else None
        if not isinstance(name, str):
            raise GoldDataError(
                f"schema service #{position} has no string 'service_name'", file=file
            )
        slots, intents = service.get("slots", []), service.get("intents", [])
        if not isinstance(slots, list) or not all(
            isinstance(s, dict) and isinstance(s.get("name"), str) for s in slots
        ):
            raise GoldDataError(f"schema service {name!r}: every slot needs a 'name'", file=file)
        if not isinstance(intents, list) or not all(
            isinstance(i, dict) and isinstance(i.get("name"), str) for i in intents
        ):
            raise GoldDataError(f"schema service {name!r}: every intent needs a 'name'", file=file)
        schema[name] = ServiceSchema(
            name=name,
            slots=tuple(s["name"] for s in slots),
            categorical=frozenset(s["name"] for s in slots if s.get("is_categorical") is True),
            intents=tuple(i["name"] for i in intents),
        )
    return schema
