"""SOM-DST predictions: ``preds_<epoch>.json`` written by clovaai/som-dst ``evaluation.py``::

    {"PMUL1234.json_0": [["hotel-pricerange-cheap"], ["hotel-pricerange-cheap"]], ...}

The key is ``<dialogue id>_<turn_idx>`` (split at the LAST ``_``; ``turn_idx`` is the
0-based user turn), the value ``[predicted, gold]``: the predicted cumulative state as
``domain-slot-value`` strings and SOM-DST's own gold. Values are kept verbatim. The gold
(second element) is never scored; it only checks the alignment
(:mod:`dst_eval.predictions.bind`).
"""

from __future__ import annotations

from typing import Any

from dst_eval.predictions.adapted import TurnTable, require, split_items, unreadable_gold
from dst_eval.predictions.common import describe
from dst_eval.predictions.model import PredictionSet

FORMAT = "somdst"


def looks_like(obj: Any) -> bool:
    if type(obj) is not dict or not obj:
        return False
    key, first = next(iter(obj.items()))
    return (type(first) is list and len(first) == 2 and all(type(x) is list for x in first)
            and "_" in key and key.rsplit("_", 1)[1].isascii()
            and key.rsplit("_", 1)[1].isdigit())


def read_somdst(obj: Any, file: str, corpus: str | None) -> PredictionSet:
    table = TurnTable(file, corpus, FORMAT)
    require(obj, dict, "SOM-DST predictions {\"<dialogue>_<turn>\": [predicted, gold]}", table)
    for key, entry in obj.items():
        dialogue_part, sep, turn_part = key.rpartition("_")
        if not sep or not dialogue_part:
            raise table.error(f"key {key!r} is not '<dialogue id>_<turn>'")
        dialogue = table.dialogue_id(dialogue_part, f"key {key!r}")
        turn = table.turn_index(turn_part, f"key {key!r}", dialogue)
        if type(entry) is not list or len(entry) != 2 or type(entry[0]) is not list:
            raise table.error("expected [predicted belief list, gold belief list]",
                              dialogue, turn)
        pairs = split_items(entry[0], "-", table, dialogue, turn, "predicted")
        embedded = None
        if type(entry[1]) is list:
            embedded = [k for k, _ in split_items(entry[1], "-", table, dialogue, turn, "gold")]
        else:
            unreadable_gold(table, f"the gold belief is {describe(entry[1])}", dialogue, turn)
        table.add(dialogue, turn, f"key {key!r}", pairs=pairs, raw_state=entry[0],
                  embedded=embedded)
    return table.build()
