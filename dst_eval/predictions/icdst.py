"""IC-DST running logs: ``running_log.json`` written by Yushi-Hu/IC-DST
``run_codex_experiment.py`` (and its GPT-Neo/CodeGen/zero-shot variants)::

    [{"ID": "PMUL1234.json", "turn_id": 0, "pred": {"hotel-pricerange": "cheap"},
      "slot_values": {"hotel-pricerange": "cheap"}, "completion": "...", ...}, ...]

One record per user turn (``turn_id`` 0-based); ``pred`` is the predicted cumulative
state ``{"domain-slot": value}`` (IC-DST already merged the turn's SQL into the previous
prediction and kept the first of ``|``-joined values); values are kept verbatim.
``slot_values`` is IC-DST's gold: never scored, only compared with the gold to check the
alignment.
"""

from __future__ import annotations

from typing import Any

from dst_eval.predictions.adapted import TurnTable, require
from dst_eval.predictions.model import PredictionSet

FORMAT = "icdst"


def looks_like(obj: Any) -> bool:
    if type(obj) is not list or not obj or type(obj[0]) is not dict:
        return False
    return {"ID", "turn_id", "pred"} <= obj[0].keys()


def read_icdst(obj: Any, file: str, corpus: str | None) -> PredictionSet:
    table = TurnTable(file, corpus, FORMAT)
    require(obj, list, "an IC-DST running log (a list of turn records)", table)
    for n, record in enumerate(obj):
        place = f"record {n}"
        require(record, dict, place, table)
        dialogue = table.dialogue_id(record.get("ID"), f"{place} 'ID'")
        turn = table.turn_index(record.get("turn_id"), f"{place} 'turn_id'", dialogue)
        if "pred" not in record:
            raise table.error(f"{place}: no 'pred' (the predicted state)", dialogue, turn)
        pred = require(record["pred"], dict, "'pred'", table, dialogue, turn)
        gold = record.get("slot_values")
        embedded = [k for k, v in gold.items() if v not in (None, "", "none")] \
            if type(gold) is dict else None
        table.add(dialogue, turn, place, pairs=pred.items(), raw_state=pred, embedded=embedded)
    return table.build()
