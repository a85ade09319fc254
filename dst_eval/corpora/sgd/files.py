"""Read one SGD gold file into native :mod:`.records`, and a ``schema.json``.

A native ``dialogues_*.json`` is decoded in one typed pass. Anything else -- a Hugging
Face export (JSON list or JSONL; a record is HF when its ``turns`` is an object), or a
malformed file -- is parsed generically first and each record converted on its own, so
that an error names its record (:mod:`.diagnose`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from dst_eval.corpora.layout import FileLog
from dst_eval.corpora.sgd.diagnose import diagnose_dialogue, located
from dst_eval.corpora.sgd.records import (
    DIALOGUES,
    SCHEMA,
    Dialogue,
    FileDialogue,
    HFDialogue,
    hf_to_native,
)
from dst_eval.errors import GoldDataError
from dst_eval.gold import ServiceSchema
from dst_eval.jsonio import decode_typed, iter_jsonl, parse_json_bytes, read_bytes


def read_dialogues(path: Path, log: FileLog | None = None
                   ) -> list[Dialogue] | list[FileDialogue]:
    """The native dialogue records of gold file ``path`` (native JSON, HF JSON or JSONL);
    ``log`` records the file read."""
    file = str(path)
    if path.suffix == ".jsonl":
        if log is not None:
            return _convert(log.read_records(path), file)
        return _convert([record for _, record in iter_jsonl(path, error=GoldDataError)], file)
    data = log.read_bytes(path) if log is not None else read_bytes(path)
    try:
        return decode_typed(data, DIALOGUES, file=file)
    except msgspec.ValidationError:
        records = parse_json_bytes(data, file=file)
    if not isinstance(records, list):
        raise GoldDataError("expected a JSON list of dialogues", file=file)
    return _convert(records, file)


def _is_hf(record: Any) -> bool:
    return isinstance(record, dict) and isinstance(record.get("turns"), dict)


def _convert(records: list, file: str) -> list[Dialogue]:
    """Generically parsed records (native or HF, mixed) -> native records."""
    out = []
    for index, record in enumerate(records):
        if _is_hf(record):
            try:
                out.append(hf_to_native(msgspec.convert(record, HFDialogue)))
            except (msgspec.ValidationError, ValueError) as exc:
                raise GoldDataError(f"malformed Hugging Face record {index}: {exc}", file=file,
                                    dialogue=str(record.get("dialogue_id"))) from None
            continue
        try:
            out.append(msgspec.convert(record, Dialogue))
        except msgspec.ValidationError as exc:
            diagnose_dialogue(record, file)
            raise located(str(exc).replace("`$", f"`$[{index}]", 1), records, file) from None
    return out


# --------------------------------------------------------------------------- schema


def read_schema(path: Path, log: FileLog | None = None) -> dict[str, ServiceSchema]:
    """``{service name: ServiceSchema}`` of a ``schema.json`` (native or HF columnar);
    ``log`` records the file read."""
    file = str(path)
    data = log.read_bytes(path) if log is not None else read_bytes(path)
    try:
        services = decode_typed(data, SCHEMA, file=file)
        rows = [(s.service_name, s.slot_rows(), s.intent_names()) for s in services]
    except (msgspec.ValidationError, ValueError) as exc:
        raise GoldDataError(f"malformed schema: {exc}", file=file) from None
    return {name: ServiceSchema(name, tuple(slot.name for slot in slots),
                                frozenset(slot.name for slot in slots if slot.is_categorical),
                                intents)
            for name, slots, intents in rows}

