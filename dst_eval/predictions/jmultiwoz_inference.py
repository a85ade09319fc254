"""JMultiWOZ inference output ``<task>.inference.json`` (nu-dialogue/jmultiwoz
``inference.py``, the input of its ``evaluate.py``)::

    {"<dialogue name>": {"turns": [
        {"turn_id": 0, "speaker": "USER", "utterance": "..."},
        {"turn_id": 1, "speaker": "SYSTEM", "utterance": "<generated response>",
         "dialogue_state": {"belief_state": {"restaurant": {"area": "..."}},
                            "book_state": {"restaurant": {"people": "2"}}}}]}}

As the official scorer reads it: each SYSTEM turn is one evaluable turn (the k-th SYSTEM
turn = turn k), its ``dialogue_state`` the predicted state (``belief_state`` slots as
``domain-slot``, ``book_state`` slots as ``domain-book_slot``), its ``utterance`` the
predicted response. Values are kept verbatim (``null`` is no value; ``""`` reaches the
profile, whose unset policy decides). A SYSTEM turn without ``dialogue_state`` predicts
no state. The file carries no gold.
"""

from __future__ import annotations

from typing import Any

from dst_eval.predictions.adapted import TurnTable, require
from dst_eval.predictions.model import PredictionSet

FORMAT = "jmultiwoz-inference"
PARTS = (("belief_state", ""), ("book_state", "book_"))


def looks_like(obj: Any) -> bool:
    if type(obj) is not dict or not obj:
        return False
    first = next(iter(obj.values()))
    if type(first) is not dict or type(first.get("turns")) is not list:
        return False
    turns = [t for t in first["turns"] if type(t) is dict]
    return (any("dialogue_state" in t for t in turns)
            and not any("frames" in t for t in turns))


def read_jmultiwoz(obj: Any, file: str, corpus: str | None) -> PredictionSet:
    table = TurnTable(file, corpus, FORMAT)
    require(obj, dict, "JMultiWOZ inference output {dialogue: {'turns': [...]}}", table)
    for raw_dialogue, record in obj.items():
        dialogue = table.dialogue_id(raw_dialogue, "key")
        require(record, dict, "a dialogue", table, dialogue)
        turns = require(record.get("turns"), list, "'turns'", table, dialogue)
        index = 0
        for position, turn in enumerate(turns):
            require(turn, dict, f"turn {position} of 'turns'", table, dialogue)
            if str(turn.get("speaker", "")).upper() != "SYSTEM":
                continue
            response = turn.get("utterance")
            state = turn.get("dialogue_state")
            pairs = None
            if state is not None:
                require(state, dict, "'dialogue_state'", table, dialogue, index)
                pairs = []
                for part, prefix in PARTS:
                    domains = state.get(part) or {}
                    require(domains, dict, repr(part), table, dialogue, index)
                    for domain, slots in domains.items():
                        require(slots, dict, f"{part} of {domain!r}", table, dialogue, index)
                        pairs.extend((f"{domain}-{prefix}{slot}", value)
                                     for slot, value in slots.items())
            table.add(dialogue, index, f"turn {position} of 'turns'", pairs=pairs,
                      raw_state=state,
                      response=response if type(response) is str else None)
            index += 1
    return table.build()
