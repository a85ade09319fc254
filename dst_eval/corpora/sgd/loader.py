"""Schema-Guided Dialogue (SGD, DSTC8) gold loader.

Accepted inputs:

* a split directory (``dev/`` with ``dialogues_*.json`` and ``schema.json``);
* the corpus root (``train/ dev/ test/``) plus ``split`` (``validation`` = ``dev``);
* one ``dialogues_*.json`` file (its directory's ``schema.json`` is used);
* the Hugging Face ``schema_guided_dstc8`` export (JSON list or JSONL of records whose
  ``turns`` and ``frames`` are columnar, ``speaker`` 0/1), as a file or a directory
  holding ``<split>.jsonl``/``<split>.json``; a ``schema.json`` next to it (native or HF
  layout) is used when present.

One :class:`GoldTurn` per USER turn: ``state`` is the union over the turn's frames of
``{"<service>-<slot>": values}`` (SGD user frames exist only for active services and
are cumulative within their service), ``frames`` keeps the frames with the corpus slot
names (``"time"``) and spans, ``system_response`` is the following SYSTEM utterance.
``GoldSet.schema``/``slots``/``categorical_slots`` come from the split's ``schema.json``
(empty when there is none), ``seen_services`` from ``<root>/train/schema.json``.
Malformed gold raises :class:`GoldDataError` naming the file, the dialogue and the turn
by its position in ``turns``.

Speed: files are parsed in this process and one forked worker (:func:`parallel_map`,
``DST_EVAL_WORKERS=1`` for none), and a parsed split is cached in compact form under
``$XDG_CACHE_HOME/dst-eval`` (exactness rules in :func:`_cached_extract`;
``DST_EVAL_NO_CACHE=1`` turns the cache off). The SGD prediction reader
(:mod:`dst_eval.formats.sgd_frames`) shares :func:`parallel_map` and :func:`gc_paused`.
"""

from __future__ import annotations

import dataclasses
import marshal
import os
import re
import select
import signal
import tempfile
import threading
from collections.abc import Callable, Sequence
from contextlib import suppress
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from dst_eval import errors
from dst_eval.diskcache import cached
from dst_eval.errors import DstEvalError, GoldDataError, UsageError
from dst_eval.gold import GoldDialogue, GoldFrame, GoldSet, GoldTurn, ServiceSchema, SlotSpan
from dst_eval.jsonio import iter_jsonl, parse_json_bytes, read_bytes

LOADER_VERSION = 2
PARALLEL_MIN_BYTES = 4 << 20
"""Inputs smaller than this are parsed in one process (forking costs more than it saves)."""
SPLITS = ("train", "dev", "test")
SPLIT_ALIASES = {"validation": "dev", "valid": "dev", "val": "dev"}
_EMPTY_STATE: MappingProxyType = MappingProxyType({})

# Compact form of one parsed file (plain tuples: cheap to marshal, to cache and to send
# between processes), ready to be wrapped into gold objects:
#   file     = (states, flats, (dialogue, ...))
#   states   = (((slot, (value, ...)), ...), ...)  distinct frame states, slots sorted
#   flats    = ((("service-slot", (value, ...)), ...), ...)  distinct turn states, sorted
#   dialogue = (dialogue_id, (service, ...), (turn, ...))
#   turn     = (raw_index, utterance, system_response | None, (frame, ...), flat_id,
#               ("service-slot" requested, ...), ((service, intent), ...))
#   frame    = (service, intent, (requested, ...), state_id, ((slot, start, end), ...))
#   schema   = ((service, (slot, ...), (categorical slot, ...), (intent, ...)), ...)


@lru_cache(maxsize=1 << 16)
def flat_slot_key(service: str, slot: str) -> str:
    """``"<service>-<slot>"``; a slot already named ``"<service>-..."`` (MultiWOZ 2.2) is kept.
    Cached: the same few hundred (service, slot) pairs recur in every frame."""
    if slot.startswith(service) and slot[len(service):len(service) + 1] == "-":
        return slot
    return f"{service}-{slot}"




FRAME_FIELDS = ("service", "active_intent", "requested_slots", "slot_values", "spans")
"""Fields of :class:`GoldFrame` and :class:`~dst_eval.predictions.PredFrame`, in order."""


def slot_setters(cls: type, names: tuple[str, ...]) -> tuple[Callable, ...] | None:
    """The slot setters of frozen slots dataclass ``cls``, in the order of ``names``, for
    building many instances without its generated ``__init__`` (which goes through
    ``object.__setattr__`` field by field: twice as slow); None when the fields of ``cls``
    are not exactly ``names`` or it has a ``__post_init__`` (build with ``cls`` then)."""
    if (tuple(f.name for f in dataclasses.fields(cls)) != names
            or hasattr(cls, "__post_init__")):
        return None
    try:
        return tuple(cls.__dict__[name].__set__ for name in names)
    except (KeyError, AttributeError):
        return None


def frame_builder(cls: type) -> Callable:
    """A positional constructor of frame class ``cls`` (:data:`FRAME_FIELDS`) that sets the
    slots directly, or ``cls`` itself when that is not possible (:func:`slot_setters`)."""
    setters = slot_setters(cls, FRAME_FIELDS)
    if setters is None:
        return cls
    set_service, set_intent, set_requested, set_values, set_spans = setters
    new = object.__new__

    def build(service: str, active_intent: Any, requested_slots: Any, slot_values: Any,
              spans: Any) -> Any:
        frame = new(cls)
        set_service(frame, service)
        set_intent(frame, active_intent)
        set_requested(frame, requested_slots)
        set_values(frame, slot_values)
        set_spans(frame, spans)
        return frame

    return build


def _gold_turn_builder() -> Callable:
    """Positional constructor of :class:`GoldTurn` (all fields but ``system_annotations``,
    which keeps its default) setting the slots directly, or a plain call of the class."""
    names = ("dialogue_id", "turn_index", "user_utterance", "state", "requested_slots",
             "active_intents", "services", "system_response", "frames", "raw_turn_index",
             "system_annotations")
    setters = slot_setters(GoldTurn, names)
    factory = GoldTurn.__dataclass_fields__["system_annotations"].default_factory
    if setters is None or factory is dataclasses.MISSING or factory() is not factory():
        return GoldTurn
    annotations = factory()
    (set_id, set_index, set_utterance, set_state, set_requested, set_intents, set_services,
     set_response, set_frames, set_raw, set_annotations) = setters
    new = object.__new__

    def build(dialogue_id: str, turn_index: int, user_utterance: str, state: Any,
              requested_slots: Any, active_intents: Any, services: Any, system_response: Any,
              frames: Any, raw_turn_index: Any) -> GoldTurn:
        turn = new(GoldTurn)
        set_id(turn, dialogue_id)
        set_index(turn, turn_index)
        set_utterance(turn, user_utterance)
        set_state(turn, state)
        set_requested(turn, requested_slots)
        set_intents(turn, active_intents)
        set_services(turn, services)
        set_response(turn, system_response)
        set_frames(turn, frames)
        set_raw(turn, raw_turn_index)
        set_annotations(turn, annotations)
        return turn

    return build


def span_builder() -> Callable:
    """Positional constructor of :class:`SlotSpan` setting the slots directly (or the class)."""
    setters = slot_setters(SlotSpan, ("slot", "start", "end"))
    if setters is None:
        return SlotSpan
    set_slot, set_start, set_end = setters
    new = object.__new__

    def build(slot: str, start: int, end: int) -> SlotSpan:
        span = new(SlotSpan)
        set_slot(span, slot)
        set_start(span, start)
        set_end(span, end)
        return span

    return build


_gold_frame = frame_builder(GoldFrame)
_span = span_builder()
_gold_turn = _gold_turn_builder()


# --------------------------------------------------------------------------- sniffing

_SLOT_KEY = re.compile(rb'"slot_values"\s*:\s*\{\s*"((?:[^"\\]|\\.)*)"')
_HF_SLOT_NAME = re.compile(rb'"slot_name"\s*:\s*\[\s*"((?:[^"\\]|\\.)*)"')
_SNIFF_BYTES = 1 << 20


def _sniff_bytes(head: bytes) -> bool:
    if b'"services"' not in head or b'"turns"' not in head:
        return False
    keys = _SLOT_KEY.findall(head) + _HF_SLOT_NAME.findall(head)
    return bool(keys) and not any(b"-" in key for key in keys)


def _head(path: Path) -> bytes:
    with path.open("rb") as fh:
        return fh.read(_SNIFF_BYTES)


def sniff(path: Path) -> bool:
    """SGD dialogues (native or HF export) whose slot names carry no ``domain-`` prefix."""
    path = Path(path)
    if path.is_file():
        return path.suffix in (".json", ".jsonl") and _sniff_bytes(_head(path))
    if not path.is_dir():
        return False
    candidates = sorted(path.glob("dialogues_*.json"))
    for split in SPLITS:
        candidates += sorted((path / split).glob("dialogues_*.json"))[:1]
    candidates += sorted(path.glob("*.jsonl"))[:1]
    return any(_sniff_bytes(_head(candidate)) for candidate in candidates[:1])


# --------------------------------------------------------------------------- locating


class _Source:
    """Where a split's gold comes from."""

    def __init__(self, files: list[Path], split: str | None, schema: Path | None,
                 train_schema: Path | None, shown: str) -> None:
        self.files = files
        self.split = split
        self.schema = schema
        self.train_schema = train_schema
        self.shown = shown


def _canonical_split(split: str | None) -> str | None:
    if split is None:
        return None
    return SPLIT_ALIASES.get(split.lower(), split.lower())


def _existing(path: Path) -> Path | None:
    return path if path.is_file() else None


def _hf_files(directory: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for candidate in sorted(directory.glob("*.json*")):
        if candidate.suffix not in (".json", ".jsonl") or candidate.stem == "schema":
            continue
        found.setdefault(_canonical_split(candidate.stem.split("-")[0]) or "", candidate)
    return found


def _locate(path: Path, split: str | None) -> _Source:
    split = _canonical_split(split)
    if path.is_file():
        own_split = _canonical_split(path.parent.name)
        return _Source([path], split or (own_split if own_split in SPLITS else None),
                       _existing(path.parent / "schema.json"),
                       _existing(path.parent.parent / "train" / "schema.json"), str(path))
    if not path.is_dir():
        raise GoldDataError("gold path does not exist", file=str(path))
    files = sorted(path.glob("dialogues_*.json"))
    if files:
        own = _canonical_split(path.name)
        if split and own in SPLITS and split != own:
            raise UsageError(f"{path} is the {own!r} split but split {split!r} was requested")
        return _Source(files, split or (own if own in SPLITS else None),
                       _existing(path / "schema.json"),
                       _existing(path.parent / "train" / "schema.json"), str(path))
    available = [s for s in SPLITS if sorted((path / s).glob("dialogues_*.json"))]
    if available:
        if split is None:
            raise UsageError(f"{path} holds the splits {', '.join(available)}; "
                             "name one with --split")
        if split not in available:
            raise UsageError(f"split {split!r} not found in {path} "
                             f"(available: {', '.join(available)})")
        return _Source(sorted((path / split).glob("dialogues_*.json")), split,
                       _existing(path / split / "schema.json"),
                       _existing(path / "train" / "schema.json"), str(path / split))
    hf = _hf_files(path)
    if hf:
        if split is None and len(hf) > 1:
            raise UsageError(f"{path} holds the splits {', '.join(sorted(hf))}; "
                             "name one with --split")
        key = split if split is not None else next(iter(hf))
        if key not in hf:
            raise UsageError(f"split {split!r} not found in {path} "
                             f"(available: {', '.join(sorted(hf))})")
        return _Source([hf[key]], key or None, _existing(path / "schema.json"),
                       None, str(hf[key]))
    raise GoldDataError("no SGD dialogues_*.json files found", file=str(path))


# --------------------------------------------------------------------------- extraction


def _check_strings(values: Any, what: str) -> None:
    if type(values) is not list:
        raise TypeError(f"{what} is not a list")
    for value in values:
        if type(value) is not str:
            raise TypeError(f"{what} holds a non-string value {value!r}")


def _extract_spans(spans: Any, intern: Callable) -> tuple:
    """``slots`` -> ``((slot, start, exclusive_end), ...)``; spans without ``start``
    (MultiWOZ 2.2 ``copy_from``) carry no position and are left out."""
    out = []
    for span in spans:
        if "start" not in span:
            continue
        slot, start, end = span["slot"], span["start"], span["exclusive_end"]
        if type(slot) is not str or type(start) is not int or type(end) is not int:
            raise TypeError(f"malformed slot span {span!r}")
        out.append((intern(slot, slot), start, end))
    return tuple(out)


class _Extractor:
    """Parsed SGD dialogues of one file -> the compact form above, validating as it goes.

    Cumulative states repeat from turn to turn (half of the SGD dev frames), so frame and
    turn states are stored once per file and referred to by index.
    """

    def __init__(self, file: str, error: type[DstEvalError] = GoldDataError) -> None:
        self.file = file
        self.error = error
        self.pool: dict[str, str] = {}
        self.states: list[tuple] = []
        self.state_ids: dict[tuple, int] = {}
        self.flats: list[tuple] = []
        self.flat_ids: dict[tuple, int] = {}
        self.key = flat_slot_key

    def result(self, dialogues: list[tuple]) -> tuple:
        return (tuple(self.states), tuple(self.flats), tuple(dialogues))

    def dialogue(self, dialogue: Any) -> tuple:
        """One native SGD dialogue -> compact tuple (USER turns only)."""
        error, file = self.error, self.file
        if not isinstance(dialogue, dict):
            raise error("a dialogue is not a JSON object", file=file)
        dialogue_id = dialogue.get("dialogue_id")
        if not isinstance(dialogue_id, str):
            raise error("dialogue without a string 'dialogue_id'", file=file)
        turns = dialogue.get("turns")
        if not isinstance(turns, list):
            raise error("dialogue without a 'turns' list", file=file, dialogue=dialogue_id)
        services = dialogue.get("services", ())
        if not isinstance(services, list | tuple) or not all(type(s) is str for s in services):
            raise error("'services' is not a list of strings", file=file, dialogue=dialogue_id)
        intern = self.pool.setdefault
        out_turns = []
        for raw_index, turn in enumerate(turns):
            try:
                speaker = turn["speaker"]
                if speaker != "USER":
                    if speaker != "SYSTEM":
                        raise ValueError(f"speaker {speaker!r} is neither USER nor SYSTEM")
                    continue
                out_turns.append(self._turn(turns, raw_index, intern))
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                detail = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
                raise error(f"malformed turn: {detail}", file=file, dialogue=dialogue_id,
                            turn=raw_index) from None
        return (dialogue_id, tuple([intern(s, s) for s in services]), tuple(out_turns))

    def _turn(self, turns: list, raw_index: int, intern: Callable) -> tuple:
        turn = turns[raw_index]
        utterance = turn["utterance"]
        if type(utterance) is not str:
            raise TypeError("'utterance' is not a string")
        key = self.key
        frames = []
        flat: list[tuple[str, tuple[str, ...]]] = []
        requested_keys: list[str] = []
        intents: list[tuple[str, str]] = []
        for frame in turn["frames"]:
            service = frame["service"]
            state = frame["state"]
            intent = state["active_intent"]
            if type(service) is not str or type(intent) is not str:
                raise TypeError("'service' and 'active_intent' must be strings")
            service, intent = intern(service, service), intern(intent, intent)
            requested = state["requested_slots"]
            _check_strings(requested, "'requested_slots'")
            slot_values = []
            for slot, values in state["slot_values"].items():
                _check_strings(values, f"slot {slot!r}")
                slot_values.append((intern(slot, slot), tuple([intern(v, v) for v in values])))
            slot_values.sort()
            items = tuple(slot_values)
            state_id = self.state_ids.get(items)
            if state_id is None:
                state_id = self.state_ids[items] = len(self.states)
                self.states.append(items)
            flat.extend([(key(service, slot), values) for slot, values in items])
            requested_keys.extend([key(service, slot) for slot in requested])
            if intent != "NONE":
                intents.append((service, intent))
            spans = frame.get("slots")
            frames.append((service, intent, tuple(requested), state_id,
                           _extract_spans(spans, intern) if spans else ()))
        if len(frames) > 1:
            flat.sort()
        flat_items = tuple(flat)
        flat_id = self.flat_ids.get(flat_items)
        if flat_id is None:
            flat_id = self.flat_ids[flat_items] = len(self.flats)
            self.flats.append(flat_items)
        response = None
        if raw_index + 1 < len(turns):
            following = turns[raw_index + 1]
            if isinstance(following, dict) and following.get("speaker") == "SYSTEM":
                response = following.get("utterance")
        return (raw_index, utterance, response, tuple(frames), flat_id, tuple(requested_keys),
                tuple(intents))


def _columns(mapping: Any, keys: Sequence[str], what: str) -> list[dict]:
    """HF columnar ``{key: [..]}`` -> list of row dicts."""
    if not isinstance(mapping, dict):
        raise TypeError(f"{what} is not a columnar object")
    columns = [mapping.get(k, []) for k in keys]
    n = len(columns[0]) if columns else 0
    if any(len(c) != n for c in columns):
        raise ValueError(f"{what} columns have different lengths")
    return [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)]


def hf_to_native(record: Any) -> dict:
    """A Hugging Face ``schema_guided_dstc8`` record -> the native SGD dialogue layout."""
    turns_in = record["turns"]
    speakers = ["USER" if s in (0, "USER") else "SYSTEM" if s in (1, "SYSTEM") else s
                for s in turns_in["speaker"]]
    turns = []
    for speaker, utterance, frames in zip(speakers, turns_in["utterance"],
                                          turns_in["frames"], strict=True):
        native_frames = []
        for row in _columns(frames, ("service", "slots", "state"), "frames"):
            frame: dict[str, Any] = {"service": row["service"]}
            if row["slots"] is not None:
                frame["slots"] = _columns(row["slots"], ("slot", "start", "exclusive_end"),
                                          "slots")
            state = row["state"]
            if speaker == "USER" and state is not None:
                pairs = _columns(state.get("slot_values") or {"slot_name": [],
                                                              "slot_value_list": []},
                                 ("slot_name", "slot_value_list"), "slot_values")
                frame["state"] = {
                    "active_intent": state["active_intent"],
                    "requested_slots": state["requested_slots"],
                    "slot_values": {p["slot_name"]: p["slot_value_list"] for p in pairs},
                }
            native_frames.append(frame)
        turns.append({"speaker": speaker, "utterance": utterance, "frames": native_frames})
    return {"dialogue_id": record["dialogue_id"], "services": record.get("services", []),
            "turns": turns}


def _is_hf_record(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("turns"), dict)


def extract_file(path_str: str) -> tuple:
    """Parse one gold file (native dialogues, or HF records: JSON list or JSONL) and return
    its compact dialogues; a record is HF columnar when its ``turns`` is an object."""
    return _extract_file(Path(path_str))


def _extract_file(path: Path) -> tuple:
    file = str(path)
    if path.suffix == ".jsonl":
        records = [record for _, record in iter_jsonl(path, error=GoldDataError)]
    else:
        records = parse_json_bytes(read_bytes(path), file=file)
        if not isinstance(records, list):
            raise GoldDataError("expected a JSON list of dialogues", file=file)
    extractor = _Extractor(file)
    out = []
    for index, record in enumerate(records):
        if _is_hf_record(record):
            try:
                record = hf_to_native(record)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise GoldDataError(f"malformed Hugging Face record {index}: {exc}", file=file,
                                    dialogue=str(record.get("dialogue_id"))) from None
        out.append(extractor.dialogue(record))
    return extractor.result(out)


def _schema_rows(data: Any, file: str) -> tuple:
    if not isinstance(data, list):
        raise GoldDataError("schema is not a list of services", file=file)
    rows = []
    for service in data:
        try:
            name = service["service_name"]
            slots = service["slots"]
            intents = service.get("intents", [])
            if isinstance(slots, dict):  # HF columnar schema export
                slots = _columns(slots, ("name", "is_categorical"), "slots")
            if isinstance(intents, dict):
                intents = _columns(intents, ("name",), "intents")
            rows.append((name, tuple(s["name"] for s in slots),
                         tuple(s["name"] for s in slots if s["is_categorical"]),
                         tuple(i["name"] for i in intents)))
        except (KeyError, TypeError, ValueError) as exc:
            raise GoldDataError(f"malformed schema entry: {exc}", file=file) from None
    return tuple(rows)


def _read_schema(path: Path) -> tuple:
    if path.suffix == ".jsonl":
        return _schema_rows([r for _, r in iter_jsonl(path)], str(path))
    return _schema_rows(parse_json_bytes(read_bytes(path), file=str(path)), str(path))


# --------------------------------------------------------------------------- parallelism


def _worker_count() -> int:
    """2 (this process + one forked worker) unless ``DST_EVAL_WORKERS=1``, a single CPU, no
    ``fork`` or other threads running (forking a threaded process can deadlock the child)."""
    try:
        wanted = int(os.environ.get("DST_EVAL_WORKERS", "2"))
    except ValueError:
        wanted = 2
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return 1
    return max(1, min(wanted, os.cpu_count() or 1))


def _identity(result: Any) -> Any:
    return result


def _split_jobs(sizes: Sequence[int], share: float) -> tuple[list[int], list[int]]:
    """Job indices for this process (about ``share`` of the bytes) and for the worker."""
    total = sum(sizes)
    targets = (share * total, (1.0 - share) * total)
    load = [0, 0]
    sides: tuple[list[int], list[int]] = ([], [])
    for i in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
        side = 0 if targets[0] - load[0] >= targets[1] - load[1] else 1
        load[side] += sizes[i]
        sides[side].append(i)
    return sides


def parallel_map(func: Callable, jobs: Sequence[tuple], sizes: Sequence[int], *,
                 then: Callable = _identity, share: float = 0.5) -> list:
    """``[then(func(*job)) for job in jobs]``, with part of the ``func`` calls in a worker.

    One forked worker runs ``func`` on jobs worth about ``1 - share`` of the ``sizes``
    while this process runs the rest and applies ``then`` to its own results at once
    (building objects while the worker still parses). The worker's
    results come back marshalled through a pipe, so ``func`` must return marshal-able data
    (tuples, lists, dicts, str, int, float, None). A :class:`DstEvalError` raised in the
    worker is re-raised here; any other worker failure falls back to doing its jobs here.
    Serial when there is one job, less than :data:`PARALLEL_MIN_BYTES` of input, or no
    worker is allowed (:func:`_worker_count`).
    """
    if len(jobs) < 2 or sum(sizes) < PARALLEL_MIN_BYTES or _worker_count() < 2:
        return [then(func(*job)) for job in jobs]
    mine, theirs = _split_jobs(sizes, share)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # worker
        os.close(read_fd)
        status = 0
        try:
            try:
                payload = ("ok", [func(*jobs[i]) for i in theirs])
            except DstEvalError as exc:
                payload = ("error", (type(exc).__name__, exc.message, exc.file,
                                     exc.dialogue, exc.turn))
            data = marshal.dumps(payload)
            with os.fdopen(write_fd, "wb") as fh:
                fh.write(data)
        except BaseException:  # noqa: BLE001 - the parent falls back to doing the work
            status = 1
        finally:
            os._exit(status)
    os.close(write_fd)
    results: dict[int, Any] = {}
    try:
        for i in sorted(mine):
            results[i] = then(func(*jobs[i]))
    finally:  # always reap the worker, even when a job of ours failed
        with os.fdopen(read_fd, "rb") as fh:
            data = fh.read()
        _, wait_status = os.waitpid(pid, 0)
    payload = None
    if os.waitstatus_to_exitcode(wait_status) == 0 and data:
        try:
            payload = marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            payload = None
    if payload is None:
        for i in theirs:
            results[i] = then(func(*jobs[i]))
    elif payload[0] == "error":
        name, message, file, dialogue, turn = payload[1]
        error_class = getattr(errors, name, DstEvalError)
        raise error_class(message, file=file, dialogue=dialogue, turn=turn)
    else:
        for i, result in zip(theirs, payload[1], strict=True):
            results[i] = then(result)
    return [results[i] for i in range(len(jobs))]


class Prefetch:
    """``func(*job)`` for every job, started NOW in a forked worker, collected later.

    Jobs are handed out through a queue (a pipe pre-filled with job numbers): the worker
    takes them from the moment it is forked, while the caller does other work -- loading
    the gold while the worker parses the predictions; then :meth:`collect` processes the
    worker's results as they arrive and takes queued jobs itself whenever none is
    waiting, so neither process idles while work remains. The worker stores each result
    marshalled in an anonymous temporary file (so it never waits for the caller) and
    announces it through a pipe. Same error rules as :func:`parallel_map`: the error of
    the first failing job (in job order) is raised, a :class:`DstEvalError` from the
    worker re-created here; any other worker failure means its undelivered jobs are
    computed here. Without a worker (:func:`_worker_count`, less than
    :data:`PARALLEL_MIN_BYTES` of input) everything is computed here. :meth:`close` ends
    an unconsumed worker (call it in a ``finally``).
    """

    _NOTE = 24  # bytes per announcement: job number, offset and size of its result
    _JOB = 4  # bytes per queued job number

    def __init__(self, func: Callable, jobs: Sequence[tuple], sizes: Sequence[int]) -> None:
        self.func, self.jobs = func, list(jobs)
        self.pid: int | None = None
        self._notes: int | None = None
        self._store: Any = None
        self._queue: int | None = None
        if (sum(sizes) < PARALLEL_MIN_BYTES or _worker_count() < 2
                or len(self.jobs) * self._JOB > 4096):  # the queue must fit in a pipe
            return
        try:
            store = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        except OSError:
            return
        queue_read, queue_write = os.pipe()
        os.write(queue_write, b"".join(i.to_bytes(self._JOB, "little")
                                       for i in range(len(self.jobs))))
        os.close(queue_write)
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # worker
            os.close(read_fd)
            self._work(queue_read, write_fd, store.fileno())
        os.close(write_fd)
        self.pid = pid
        self._queue = queue_read
        self._notes = read_fd
        self._store = store

    def _work(self, queue: int, write_fd: int, store: int) -> None:
        status, offset = 0, 0
        try:
            while len(claim := os.read(queue, self._JOB)) == self._JOB:
                index = int.from_bytes(claim, "little")
                try:
                    payload: tuple = ("ok", self.func(*self.jobs[index]))
                except DstEvalError as exc:
                    payload = ("error", (type(exc).__name__, exc.message, exc.file,
                                         exc.dialogue, exc.turn))
                data = memoryview(marshal.dumps(payload))
                written = 0
                while written < len(data):
                    written += os.pwrite(store, data[written:], offset + written)
                os.write(write_fd, b"".join(n.to_bytes(8, "little")
                                            for n in (index, offset, len(data))))
                offset += len(data)
                if payload[0] == "error":
                    break
        except BaseException:  # noqa: BLE001 - the parent computes what it did not get
            status = 1
        finally:
            os._exit(status)

    def _claim(self) -> int | None:
        """The next queued job number (taken from the worker), or None."""
        if self._queue is None:
            return None
        claim = os.read(self._queue, self._JOB)
        return int.from_bytes(claim, "little") if len(claim) == self._JOB else None

    def _receive(self, wait: bool) -> tuple[int, tuple] | None:
        """The worker's next ``(job, payload)``; None when none is ready (``wait=False``) or
        the worker has no more to give (then ``self._notes`` becomes None)."""
        notes = self._notes
        if notes is None or (not wait and not select.select([notes], [], [], 0)[0]):
            return None
        try:
            note = os.read(notes, self._NOTE)  # one whole note: written at once, < PIPE_BUF
            if len(note) == self._NOTE:
                index, offset, size = (int.from_bytes(note[i:i + 8], "little")
                                       for i in (0, 8, 16))
                data = os.pread(self._store.fileno(), size, offset)
                if len(data) == size:
                    return index, marshal.loads(data)
        except (OSError, EOFError, ValueError, TypeError):
            pass
        os.close(notes)  # the worker is done or gone: what it did not deliver is done here
        self._notes = None
        return None

    def _compute(self, index: int) -> tuple:
        try:
            return ("ok", self.func(*self.jobs[index]))
        except Exception as exc:  # noqa: BLE001 - raised when its turn comes, in job order
            return ("raise", exc)

    def collect(self, then: Callable = _identity) -> list:
        """``[then(result) for every job]`` in job order. ``then`` runs on each result as
        soon as it is here; this process computes a queued job itself only when no result
        of the worker is waiting, so that the two share the work and neither idles."""
        done: dict[int, tuple] = {}
        try:
            while len(done) < len(self.jobs):
                received = self._receive(wait=False)
                if received is None:
                    claimed = self._claim()
                    if claimed is not None:
                        received = claimed, self._compute(claimed)
                    elif self._notes is not None:
                        received = self._receive(wait=True)
                    if received is None:
                        if self._notes is None and self._claim() is None:
                            for i in range(len(self.jobs)):  # jobs the worker did not deliver
                                if i not in done:
                                    done[i] = self._applied(self._compute(i), then)
                        continue
                index, payload = received
                done[index] = self._applied(payload, then)
            out = []
            for index in range(len(self.jobs)):
                kind, value = done[index]
                if kind == "raise":
                    raise value
                if kind == "error":
                    name, message, file, dialogue, turn = value
                    error_class = getattr(errors, name, DstEvalError)
                    raise error_class(message, file=file, dialogue=dialogue, turn=turn)
                out.append(value)
            return out
        finally:
            self.close()

    @staticmethod
    def _applied(payload: tuple, then: Callable) -> tuple:
        if payload[0] != "ok":
            return payload
        try:
            return ("ok", then(payload[1]))
        except Exception as exc:  # noqa: BLE001 - raised when its turn comes, in job order
            return ("raise", exc)

    def close(self) -> None:
        """Stop and reap the worker (if still running); release the pipes and the file."""
        if self._store is not None:
            self._store.close()
            self._store = None
        if self._notes is not None:
            os.close(self._notes)
            self._notes = None
        if self._queue is not None:
            os.close(self._queue)
            self._queue = None
        if self.pid is not None:
            pid, self.pid = self.pid, None
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with suppress(ChildProcessError):
                os.waitpid(pid, 0)


# --------------------------------------------------------------------------- cache


def _cached_extract(source: _Source, use_cache: bool | None) -> tuple:
    """``(schema rows | None, train services | None, compact files)`` for ``source``,
    cached exactly by :mod:`dst_eval.diskcache` (keyed by the loader version and every
    input file's identity)."""
    inputs = [*source.files, source.schema, source.train_schema]

    def build() -> tuple:
        jobs = [(str(f),) for f in source.files]
        sizes = [f.stat().st_size for f in source.files]
        per_file = tuple(parallel_map(extract_file, jobs, sizes))
        schema = _read_schema(source.schema) if source.schema else None
        train = (tuple(row[0] for row in _read_schema(source.train_schema))
                 if source.train_schema else None)
        return (schema, train, per_file)

    return cached("sgd", LOADER_VERSION, inputs, build, use_cache=use_cache)


# --------------------------------------------------------------------------- building


def _build_file(compact: tuple) -> list[GoldDialogue]:
    """Wrap one file's compact form into frozen gold objects (shared states are shared)."""
    states, flats, dialogues = compact
    state_maps = [MappingProxyType(dict(items)) if items else _EMPTY_STATE for items in states]
    flat_maps = [MappingProxyType(dict(items)) if items else _EMPTY_STATE for items in flats]
    out = []
    gold_frame, gold_turn, span = _gold_frame, _gold_turn, _span
    intent_maps: dict[tuple, MappingProxyType] = {(): _EMPTY_STATE}  # shared: read-only
    for dialogue_id, services, turns in dialogues:
        gold_turns = []
        for index, (raw_index, utterance, response, frames, flat_id, requested,
                    intents) in enumerate(turns):
            gold_frames = []
            for service, intent, requested_slots, state_id, spans in frames:
                if spans:
                    spans = tuple([span(*item) for item in spans])
                gold_frames.append(gold_frame(service, intent, requested_slots,
                                              state_maps[state_id], spans))
            active = intent_maps.get(intents)
            if active is None:
                active = intent_maps[intents] = MappingProxyType(dict(intents))
            gold_turns.append(gold_turn(
                dialogue_id, index, utterance, flat_maps[flat_id], frozenset(requested), active,
                tuple([f.service for f in gold_frames]), response, tuple(gold_frames),
                raw_index,
            ))
        out.append(GoldDialogue(dialogue_id, tuple(gold_turns), services=services))
    return out


def _check_services(dialogues: list[GoldDialogue], schema: dict, file: str) -> None:
    for dialogue in dialogues:
        for turn in dialogue.turns:
            for service in turn.services:
                if service not in schema:
                    raise GoldDataError(f"service {service!r} is not in the schema", file=file,
                                        dialogue=dialogue.dialogue_id, turn=turn.raw_turn_index)


def build_schema(rows: tuple) -> dict[str, ServiceSchema]:
    return {name: ServiceSchema(name, slots, frozenset(categorical), intents)
            for name, slots, categorical, intents in rows}


def load(path: Path, *, split: str | None = None, use_cache: bool | None = None) -> GoldSet:
    """Load an SGD split (see the module docstring for the accepted layouts)."""
    source = _locate(Path(path), split)
    return _load(source, use_cache)


def _load(source: _Source, use_cache: bool | None) -> GoldSet:
    schema_rows, train_services, files = _cached_extract(source, use_cache)
    schema = build_schema(schema_rows) if schema_rows is not None else {}
    dialogues: list[GoldDialogue] = []
    seen: set[str] = set()
    for compact in files:
        for dialogue in _build_file(compact):
            if dialogue.dialogue_id in seen:
                raise GoldDataError("duplicate dialogue id", file=source.shown,
                                    dialogue=dialogue.dialogue_id)
            seen.add(dialogue.dialogue_id)
            dialogues.append(dialogue)
    if schema:
        _check_services(dialogues, schema, source.shown)
    slots = tuple(flat_slot_key(s.name, slot) for s in schema.values() for slot in s.slots)
    categorical = frozenset(flat_slot_key(s.name, slot) for s in schema.values()
                            for slot in s.categorical)
    return GoldSet(
        corpus="sgd",
        split=source.split,
        dialogues=tuple(dialogues),
        source=source.shown,
        slots=slots,
        categorical_slots=categorical,
        schema=MappingProxyType(schema),
        seen_services=frozenset(train_services) if train_services is not None else None,
    )
