"""The optional per-turn columns of :func:`~.state_compare.turn_table`: requested slots
(``req_tp``, ``req_fp``, ``req_fn``, ``req_f1``) and active intents (``intent_correct``,
``intent_n``), also the tables of :mod:`.requested_slots` and :mod:`.intent_accuracy`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np


def requested_columns(requested_true: Sequence[Iterable[str]],
                       requested_pred: Sequence[Iterable[str] | None],
                       present: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Requested-slot columns; a row with ``present`` False has every requested slot a
    miss and per-turn F1 0 (also when nothing is requested)."""
    n = len(requested_true)
    tp, fp, fn, f1 = (np.zeros(n) for _ in range(4))
    for row, (gold_iter, pred_iter) in enumerate(zip(requested_true, requested_pred, strict=True)):
        gold, pred = set(gold_iter), set(pred_iter or ())
        hits = len(gold & pred)
        tp[row], fp[row], fn[row] = hits, len(pred) - hits, len(gold) - hits
        if not gold and not pred:
            f1[row] = 1.0
        elif hits:
            f1[row] = 2 * hits / (len(gold) + len(pred))
    if present is not None and not present.all():
        absent = ~present
        tp[absent] = fp[absent] = f1[absent] = 0.0
        fn[absent] = [len(set(requested_true[row])) for row in np.flatnonzero(absent)]
    return {"req_tp": tp, "req_fp": fp, "req_fn": fn, "req_f1": f1}


def intent_columns(intents_true: Sequence[Mapping[str, str]],
                    intents_pred: Sequence[Mapping[str, str] | None],
                    present: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Intent columns; a row with ``present`` False and a gold intent is wrong."""
    n = len(intents_true)
    correct, counted = np.zeros(n), np.zeros(n)
    for row, (gold, pred) in enumerate(zip(intents_true, intents_pred, strict=True)):
        if not gold:
            continue
        counted[row] = 1
        pred = pred or {}
        correct[row] = all(pred.get(service) == intent for service, intent in gold.items())
    if present is not None:
        correct[~present] = 0.0
    return {"intent_correct": correct, "intent_n": counted}
