"""Open a prediction file, directory or zip and tell its format.

Formats are detected from the content (``pred_format`` overrides the detection):
an object whose first value is a list, or ``{"predictions": {...}}``, is ``mwzeval``;
records with ``dialogue_id`` and ``turn_index`` (one per line, or a JSON array) are
``jsonl``; SGD dialogues with frames (files or a directory) are ``sgd``. A ``.zip``
holding one such JSON file (or SGD-style files) is read alike; a UTF-8 byte order mark
is ignored. Every problem is a one-line :class:`PredictionError` naming the file.

The systems' own output formats (:data:`JSON_ADAPTERS`, checked before the generic
layouts, and ``ldst`` result lines) are detected by their distinctive keys: TRADE
``pred_bs_ptr`` turns, SOM-DST ``"<dialogue>_<turn>": [predicted, gold]``, TripPy
``guid`` + ``slot_prediction_*`` records, SimpleTOD ``generated_turn_belief``, IC-DST
``ID``/``turn_id``/``pred`` records, ConvLab-3 ``utt_idx`` + ``predictions`` samples,
JMultiWOZ dialogues whose turns carry ``dialogue_state`` (no ``frames``), and lines of
seven ``|||``-separated fields.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dst_eval.errors import PredictionError, UsageError
from dst_eval.jsonio import check_path, iter_zip_bytes, parse_json_bytes, read_bytes
from dst_eval.predictions import (
    convlab_unified,
    icdst,
    jmultiwoz_inference,
    ldst,
    simpletod,
    somdst,
    trade,
    trippy,
)
from dst_eval.predictions.common import FORMATS, describe, looks_like_sgd, show

JSON_ADAPTERS = (
    ("trade", trade.looks_like), ("somdst", somdst.looks_like),
    ("trippy", trippy.looks_like), ("simpletod", simpletod.looks_like),
    ("icdst", icdst.looks_like), ("convlab", convlab_unified.looks_like),
    ("jmultiwoz-inference", jmultiwoz_inference.looks_like),
)
"""``(format, test)`` of the JSON output formats, tried in this order on a parsed file."""

_BOM = b"\xef\xbb\xbf"
_EXPECTED = (
    "expected an mwzeval-style object {dialogue_id: [turn, ...]}, JSONL records "
    '{"dialogue_id", "turn_index", "state"} (one per line or in a JSON array), or '
    "SGD dialogues with frames, or a DST system's own output (trade, somdst, trippy, "
    "simpletod, icdst, ldst, convlab, jmultiwoz-inference); name the format with "
    "--pred-format if it is one of these"
)


def check_format(pred_format: str | None) -> None:
    """A usage error for a format name that is not one of :data:`FORMATS`."""
    if pred_format is not None and pred_format not in FORMATS:
        raise UsageError(f"unknown prediction format {pred_format!r}; known: "
                         f"{', '.join(FORMATS)}")


def classify(obj: Any, file: str) -> str:
    """Name the format of a parsed JSON document, or raise a PredictionError saying why not."""
    if not (isinstance(obj, dict) and isinstance(obj.get("predictions"), dict)):
        for name, looks_like in JSON_ADAPTERS:
            if looks_like(obj):
                return name
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
        if looks_like_sgd(obj):
            return "sgd"
        raise PredictionError(
            f"cannot tell the prediction format: found a JSON object whose first value "
            f"(key {show(next(iter(obj)))}) is {describe(first)}; {_EXPECTED}", file=file)
    if isinstance(obj, list):
        if not obj:
            raise PredictionError("no predictions: the file holds an empty list", file=file)
        first = obj[0]
        if isinstance(first, dict) and "turn_index" in first and "dialogue_id" in first:
            return "jsonl"
        if looks_like_sgd(obj):
            return "sgd"
    raise PredictionError(f"cannot tell the prediction format: found {describe(obj)}; "
                          f"{_EXPECTED}", file=file)


def _parse_document(path: Path, data: bytes) -> tuple[str, Any]:
    """Parse ``data`` as one JSON document, falling back to JSONL; return (format, content)."""
    file = str(path)
    try:
        obj = parse_json_bytes(data, file=file, error=PredictionError)
    except PredictionError:
        if ldst.looks_like(data):
            return "ldst", data
        lines = [line for line in data.splitlines() if line.strip()]
        if len(lines) > 1:
            try:
                head = parse_json_bytes(lines[0], file=file, error=PredictionError)
            except PredictionError:
                head = None
            if isinstance(head, dict):
                return "jsonl", data
        raise
    return classify(obj, file), obj


def load(path: Path, forced: str | None) -> tuple[str, Any, bytes | None]:
    """Return ``(format, parsed content, raw bytes)``; content is bytes for JSONL files,
    None for SGD-style predictions (their reader opens the files itself)."""
    check_format(forced)
    check_path(path, error=PredictionError)  # not found, broken symlink, FIFO, device
    if path.is_dir():
        if forced not in (None, "sgd"):
            raise PredictionError(f"a directory holds SGD-style files, not {forced!r} "
                                  "predictions", file=str(path))
        return "sgd", None, None
    if forced == "sgd":
        return "sgd", None, None
    if path.suffix.lower() == ".zip":
        members = list(iter_zip_bytes(path, error=PredictionError))
        first = (parse_json_bytes(members[0][1], file=f"{path}:{members[0][0]}",
                                  error=PredictionError) if members else None)
        if len(members) != 1:  # several files: only SGD-style predictions come like that
            if members and looks_like_sgd(first):
                return "sgd", None, None
            raise PredictionError(f"expected one JSON file in the zip, found {len(members)}",
                                  file=str(path))
        # the member's bytes go along: the duplicate-key check reads them
        return (forced or classify(first, str(path))), first, members[0][1]
    return load_data(read_bytes(path, error=PredictionError), path, forced)


def load_data(data: bytes, path: Path, forced: str | None) -> tuple[str, Any, bytes | None]:
    """:func:`load` for the bytes of one file (``path`` names it; ``-``: standard input)."""
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    if forced == "jsonl" or (forced is None and path.suffix.lower() == ".jsonl"):
        if not data.strip():
            raise PredictionError("file is empty", file=str(path))
        if data.lstrip().startswith(b"["):  # a JSON array of records
            return "jsonl", parse_json_bytes(data, file=str(path), error=PredictionError), data
        return "jsonl", data, data
    if forced == "ldst":
        return "ldst", data, data
    if forced is not None and forced not in ("mwzeval", "jsonl", "sgd"):
        return forced, parse_json_bytes(data, file=str(path), error=PredictionError), data
    if forced == "mwzeval":
        return "mwzeval", parse_json_bytes(data, file=str(path), error=PredictionError), data
    fmt, content = _parse_document(path, data)
    return fmt, content, data


def detect_format(path: str | Path) -> str:
    """The format of a prediction file or directory (one of :data:`FORMATS`)."""
    return load(Path(path), None)[0]
