"""Read prediction files into a :class:`~dst_eval.predictions.PredictionSet`.

The public entry points (re-exported by :mod:`dst_eval.predictions`):
:func:`read_predictions` (a file, directory or zip) and :func:`predictions_from_object`
(objects already in memory). One module per input format does the work:

=======================  ================================================================
``mwzeval``              :mod:`~dst_eval.predictions.mwzeval_json`: ``{dialogue_id: [turn, ...]}``
``jsonl``                :mod:`~dst_eval.predictions.jsonl`: ``{"dialogue_id", "turn_index", ...}``
                         records, one per line or in a JSON array
``sgd``                  :mod:`~dst_eval.predictions.sgd_frames`: SGD-style dialogues with frames
``trade``                :mod:`~dst_eval.predictions.trade`: TRADE ``all_prediction_TRADE.json``
``somdst``               :mod:`~dst_eval.predictions.somdst`: SOM-DST ``preds_*.json``
``trippy``               :mod:`~dst_eval.predictions.trippy`: TripPy ``pred_res.*.json``
``simpletod``            :mod:`~dst_eval.predictions.simpletod`: SimpleTOD generated beliefs
``icdst``                :mod:`~dst_eval.predictions.icdst`: IC-DST ``running_log.json``
``ldst``                 :mod:`~dst_eval.predictions.ldst`: LDST / DST-as-prompting result lines
``convlab``              :mod:`~dst_eval.predictions.convlab_unified`: ConvLab-3 unified samples
``jmultiwoz-inference``  :mod:`~dst_eval.predictions.jmultiwoz_inference`: ``*.inference.json``
=======================  ================================================================

Several files (a glob or a directory of shards) are one submission
(:mod:`~dst_eval.predictions.shards`); the adapters' embedded gold and order-aligned
dialogues are bound to the gold by :mod:`~dst_eval.predictions.bind`.

Detection and file IO are in :mod:`~dst_eval.predictions.detect`, the turn objects of
the two JSON formats (state shapes, value rules) in :mod:`~dst_eval.predictions.turns`.

Readers parse and locate (file, dialogue, turn) and report; they never drop, strip,
case-fold or rewrite a value: ``""``, ``" "``, ``none`` and ``not mentioned`` reach the
profile as written, and each profile's normalisation policy (:mod:`dst_eval.normalize`)
decides which values leave a slot unset. Slot keys are spelled for ``corpus`` by
:mod:`dst_eval.slotkeys`.

Every problem with the file itself (empty, not JSON/UTF-8, nested too deeply, wrong
shape, duplicate dialogue ids or ``(dialogue_id, turn_index)`` records) is a
one-line :class:`PredictionError` (exit code 3) naming the file, dialogue and turn.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

from dst_eval.errors import DstEvalError, PredictionError, UsageError
from dst_eval.jsonio import read_bytes, refuse_duplicate_keys
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
from dst_eval.predictions.common import (
    FORMATS,
    MAX_NAME_CHARS,
    MAX_TURN_INDEX,
    MAX_VALUE_CHARS,
    describe,
    sgd_frames_module,
    show,
)
from dst_eval.predictions.detect import check_format, classify, detect_format, load, load_data
from dst_eval.predictions.jsonl import JSONL_PLACING, read_jsonl
from dst_eval.predictions.model import PredictionSet, PredTurn
from dst_eval.predictions.mwzeval_json import read_mwzeval
from dst_eval.predictions.shards import merge_shards, shard_files
from dst_eval.predictions.turns import TurnReader
from dst_eval.slotkeys import canonical_slot_key, key_policy, split_slot_key

__all__ = ["FORMATS", "MAX_NAME_CHARS", "MAX_TURN_INDEX", "MAX_VALUE_CHARS", "detect_format",
           "predictions_from_object", "read_predictions", "show"]


def _read_sgd(path: Path, corpus: str | None) -> PredictionSet:
    try:
        predictions = sgd_frames_module().read_sgd_frame_predictions(path)
    except DstEvalError:
        raise
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        raise PredictionError(f"unexpected structure in SGD-style predictions "
                              f"({type(exc).__name__}: {exc})", file=str(path)) from None
    if corpus is not None:
        _respell_states(predictions, corpus)
    return predictions


def _respell_states(predictions: PredictionSet, corpus: str) -> None:
    """Spell the flat state keys of frame-based predictions for ``corpus`` (values untouched)."""
    spelled: dict[str, str] = {}
    distinct = set().union(*(t.state for turns in predictions.dialogues.values()
                             for t in turns if t.state))
    for key in distinct:
        domain, slot = split_slot_key(key)
        spelled[key] = canonical_slot_key(domain, slot, corpus) if domain else key
    if all(spelled[key] == key for key in distinct):
        return  # the common case: every key is already canonical
    for turns in predictions.dialogues.values():
        for i, turn in enumerate(turns):
            if not turn.state:
                continue
            keys = [spelled[key] for key in turn.state]
            if keys != list(turn.state):
                state = MappingProxyType(dict(zip(keys, turn.state.values(), strict=True)))
                turns[i] = PredTurn(state=state, requested_slots=turn.requested_slots,
                                    active_intents=turn.active_intents, response=turn.response,
                                    active_domains=turn.active_domains, frames=turn.frames,
                                    raw_state=turn.raw_state, duplicates=turn.duplicates,
                                    extras=turn.extras)


ADAPTERS = {
    "trade": trade.read_trade, "somdst": somdst.read_somdst, "trippy": trippy.read_trippy,
    "simpletod": simpletod.read_simpletod, "icdst": icdst.read_icdst,
    "convlab": convlab_unified.read_convlab,
    "jmultiwoz-inference": jmultiwoz_inference.read_jmultiwoz,
}
"""The readers of the systems' own JSON output formats: ``(parsed, file, corpus)``."""


def _read_content(fmt: str, content: Any, data: bytes | None, source: str,
                  corpus: str | None) -> PredictionSet:
    if fmt == "ldst":
        if not isinstance(content, bytes):
            raise UsageError("LDST result lines are read from their file; pass the path")
        return ldst.read_ldst(content, source, corpus)
    adapter = ADAPTERS.get(fmt)
    if adapter is not None:
        if data:  # a system's own format: a repeated key may be a dialogue, a turn, a slot
            refuse_duplicate_keys(data, content, file=source, error=PredictionError)
        return adapter(content, source, corpus)
    if fmt == "jsonl":
        return read_jsonl(content, TurnReader(source, corpus, JSONL_PLACING), data)
    return read_mwzeval(content, data, TurnReader(source, corpus))


def read_predictions(path: str | Path, *, pred_format: str | None = None,
                     corpus: str | None = None) -> PredictionSet:
    """Read a prediction file, directory or glob of shards; keys are spelled for ``corpus``
    when given."""
    path = Path(path)
    check_format(pred_format)
    if corpus is not None:
        key_policy(corpus)  # an unknown corpus is a usage error before any reading
    shards = shard_files(path, pred_format, detect_format)
    if shards is not None:
        if len(shards) > 1:
            if (pred_format or detect_format(shards[0])) == "ldst":  # lines, not turns
                return ldst.read_ldst_files(
                    [(str(f), read_bytes(f, error=PredictionError)) for f in shards],
                    str(path), corpus)
            return merge_shards(shards, lambda shard: read_predictions(
                shard, pred_format=pred_format, corpus=corpus), str(path))
        path = shards[0]
    fmt, content, data = load(path, pred_format)
    if fmt == "sgd":
        return _read_sgd(path, corpus)
    return _read_content(fmt, content, data, str(path), corpus)


def read_predictions_data(data: bytes, *, source: str = "<stdin>",
                          pred_format: str | None = None,
                          corpus: str | None = None) -> PredictionSet:
    """Read the bytes of one JSON/JSONL prediction file (``dst-eval -``: standard input)."""
    check_format(pred_format)
    if pred_format == "sgd":
        raise UsageError("SGD-style predictions are read from their files or directory, not "
                         "from standard input")
    if corpus is not None:
        key_policy(corpus)
    fmt, content, raw = load_data(data, Path(source), pred_format)
    return _read_content(fmt, content, raw, source, corpus)


def predictions_from_object(
    obj: Any, *, source: str = "<memory>", pred_format: str | None = None,
    corpus: str | None = None,
) -> PredictionSet:
    """Read predictions already in memory (an mwzeval mapping, or a list of JSONL records).

    The same rules as :func:`read_predictions`; the caller's objects are referenced, not
    copied (``raw_state``), and never modified.
    """
    check_format(pred_format)
    if corpus is not None:
        key_policy(corpus)
    fmt = pred_format or classify(obj, source)
    if fmt == "sgd":
        raise UsageError("SGD-style predictions are read from their files or directory; "
                         "pass the path instead of the loaded objects")
    if fmt == "jsonl" and not isinstance(obj, list | dict):
        raise PredictionError(f"JSONL-style predictions must be a list of records, found "
                              f"{describe(obj)}", file=source)
    return _read_content(fmt, obj, None, source, corpus)
