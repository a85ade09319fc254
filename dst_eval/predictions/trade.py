"""TRADE predictions: ``all_prediction_TRADE.json`` / ``prediction_TRADE_*.json``.

Written by ``models/TRADE.py`` ``evaluate`` of jasonwu0731/trade-dst (and the TRADE-
lineage systems that kept it)::

    {"PMUL1234.json": {"0": {"turn_belief": ["hotel-pricerange-cheap"],
                             "pred_bs_ptr": ["hotel-pricerange-cheap"]}, ...}, ...}

One entry per user turn (``turn`` = the 0-based ``turn_idx`` of TRADE's dialogues, a
string key once dumped); ``pred_bs_ptr`` is the predicted cumulative state as
``domain-slot-value`` strings (TRADE's decoder already dropped ``none``). Values are
kept verbatim: TRADE-preprocessed spellings (``guest house``) are for the ``trade``
profile to judge. ``turn_belief`` is TRADE's own gold: never scored, only compared with
the gold to check the alignment (:mod:`dst_eval.predictions.bind`). Any other key of a
turn record (a ``state`` next to ``pred_bs_ptr``, say) is not read: one Issue
``unknown_key`` names each with its count and first turn.
"""

from __future__ import annotations

from typing import Any

from dst_eval.predictions.adapted import TurnTable, require, split_items, unreadable_gold
from dst_eval.predictions.common import describe
from dst_eval.predictions.model import PredictionSet
from dst_eval.predictions.turns import listed_keys

FORMAT = "trade"
PREDICTED = "pred_bs_ptr"
EMBEDDED = "turn_belief"
READ = frozenset({PREDICTED, EMBEDDED})


def looks_like(obj: Any) -> bool:
    if type(obj) is not dict or not obj:
        return False
    first = next(iter(obj.values()))
    if type(first) is not dict or not first:
        return False
    turn = next(iter(first.values()))
    return type(turn) is dict and PREDICTED in turn


def read_trade(obj: Any, file: str, corpus: str | None) -> PredictionSet:
    table = TurnTable(file, corpus, FORMAT)
    require(obj, dict, "TRADE predictions {dialogue_id: {turn: {...}}}", table)
    unread: dict[str, list] = {}  # key -> [count, dialogue, turn] of its first record
    for raw_dialogue, turns in obj.items():
        dialogue = table.dialogue_id(raw_dialogue, "key")
        require(turns, dict, "the turns {turn: {...}}", table, dialogue)
        for raw_turn, record in turns.items():
            turn = table.turn_index(raw_turn, f"turn key {raw_turn!r}", dialogue)
            require(record, dict, "a turn", table, dialogue, turn)
            if PREDICTED not in record:
                raise table.error(f"turn has no {PREDICTED!r} (the predicted belief)",
                                  dialogue, turn)
            for key in record.keys() - READ:
                unread.setdefault(key, [0, dialogue, turn])[0] += 1
            items = require(record[PREDICTED], list, PREDICTED, table, dialogue, turn)
            pairs = split_items(items, "-", table, dialogue, turn, PREDICTED)
            gold = record.get(EMBEDDED)
            embedded = None
            if type(gold) is list:
                embedded = [k for k, _ in split_items(gold, "-", table, dialogue, turn, EMBEDDED)]
            elif EMBEDDED in record:
                unreadable_gold(table, f"{EMBEDDED!r} is {describe(gold)}", dialogue, turn)
            table.add(dialogue, turn, f"turn {raw_turn!r}", pairs=pairs, raw_state=items,
                      embedded=embedded)
    if unread:
        listed, dialogue, turn = listed_keys(unread, 5)
        table.reader.issue("unknown_key", f"keys of turn records that are not read: {listed}; "
                           f"TRADE's prediction is {PREDICTED!r}", dialogue, turn)
    return table.build()
