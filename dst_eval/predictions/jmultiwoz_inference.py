"""JMultiWOZ inference output ``<task>.inference.json`` (nu-dialogue/jmultiwoz
``inference.py``, the input of its ``evaluate.py``)::

    {"<dialogue name>": {"turns": [
        {"turn_id": 0, "speaker": "USER", "utterance": "..."},
        {"turn_id": 1, "speaker": "SYSTEM", "utterance": "<generated response>",
         "dialogue_state": {"belief_state": {"restaurant": {"area": "..."}},
                            "book_state": {"restaurant": {"people": "2"}}}}]}}

As the official scorer reads it: each SYSTEM turn is one evaluable turn, joined with the
gold SYSTEM turn of the same ``turn_id`` (``TURN_IDS`` metadata; the binding to the gold,
:mod:`dst_eval.predictions.bind`, places it -- a turn_id the gold lacks is reported and
ignored, one given twice refuses the file: the official join would score it twice; a
dialogue without turn ids is read in order, the k-th SYSTEM turn as turn k), its
``dialogue_state`` the predicted state (``belief_state`` slots as ``domain-slot``,
``book_state`` slots as ``domain-book_slot``), its ``utterance`` the predicted response. The
``dialogue_state`` as written is kept for ``--profile official`` (``PredTurn.extras``); the
state as written for mwzeval's readers (``raw_state``) is its ``{domain: {slot: value}}``
view, booking slots unprefixed as mwzeval writes them. A speaker other than ``USER`` or
``SYSTEM``, and a ``belief_state``/``book_state`` that is not an object (``null``: none),
refuse the file (exit 3). Values are kept verbatim (``null`` is no value; ``""`` reaches
the profile, whose unset policy decides). A SYSTEM turn without ``dialogue_state``
predicts no state. The file carries no gold.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from dst_eval.predictions.adapted import TURN_IDS, TurnTable, require
from dst_eval.predictions.common import describe
from dst_eval.predictions.model import PredictionSet

DIALOGUE_STATE = "dialogue_state"
"""``PredTurn.extras`` key: the turn's ``dialogue_state`` as written (``belief_state`` and
``book_state``), which ``--profile official`` compares as JMultiWOZ's script does."""

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
    turn_ids: dict[str, tuple[int, ...]] = {}
    for raw_dialogue, record in obj.items():
        dialogue = table.dialogue_id(raw_dialogue, "key")
        require(record, dict, "a dialogue", table, dialogue)
        turns = require(record.get("turns"), list, "'turns'", table, dialogue)
        index = 0
        ids: dict[int, int] = {}  # turn_id -> position in 'turns'
        for position, turn in enumerate(turns):
            require(turn, dict, f"turn {position} of 'turns'", table, dialogue)
            speaker = turn.get("speaker")
            if speaker != "SYSTEM":
                if speaker != "USER":  # a SYSTEM turn written otherwise would be skipped,
                    # and the turns after it placed one turn early
                    raise table.error(f"turn {position} of 'turns': speaker {speaker!r} is "
                                      "neither USER nor SYSTEM", dialogue, index)
                continue
            turn_id = _turn_id(turn, ids, index, position, table, dialogue)
            if turn_id is not None:
                ids[turn_id] = position
            response = turn.get("utterance")
            state = turn.get("dialogue_state")
            pairs = nested = None
            if state is not None:
                require(state, dict, "'dialogue_state'", table, dialogue, index)
                pairs, nested = [], {}
                for part, prefix in PARTS:
                    domains = state.get(part)
                    if domains is None:  # absent or null: no slot of this part
                        continue
                    require(domains, dict, repr(part), table, dialogue, index)
                    for domain, slots in domains.items():
                        require(slots, dict, f"{part} of {domain!r}", table, dialogue, index)
                        pairs.extend((f"{domain}-{prefix}{slot}", value)
                                     for slot, value in slots.items())
                        _nest(nested.setdefault(domain, {}), slots, domain, table, dialogue,
                              index)
            if response is not None and type(response) is not str:  # kept as written
                table.reader.issue("bad_response", f"'utterance' must be a string, found "
                                   f"{describe(response)}; scored as an empty response",
                                   dialogue, index)
            # the dialogue_state as written is replayed by the official profile; the state
            # as written for mwzeval's readers is its {domain: {slot: value}} view
            table.add(dialogue, index, f"turn {position} of 'turns'", pairs=pairs,
                      raw_state=nested,
                      extras={DIALOGUE_STATE: state} if state is not None else None,
                      response=response)
            index += 1
        if ids:
            turn_ids[dialogue] = tuple(ids)
    table.metadata[TURN_IDS] = MappingProxyType(turn_ids)
    return table.build()


def _nest(target: dict, slots: dict, domain: Any, table: TurnTable, dialogue: str,
          index: int) -> None:
    """Add a domain's ``belief_state`` or ``book_state`` slots to its ``{slot: value}`` view
    (mwzeval's nested state: booking slots unprefixed, as mwzeval writes them); a slot in
    both with different values keeps the belief's, with an Issue."""
    for slot, value in slots.items():
        if slot in target and target[slot] != value:
            table.reader.issue("duplicate_slot", f"slot {domain}-{slot} has different values "
                               "in belief_state and book_state; mwzeval's view reads the "
                               "belief_state's", dialogue, index)
            continue
        target[slot] = value


def _turn_id(turn: dict, ids: dict[int, int], index: int, position: int, table: TurnTable,
             dialogue: str) -> int | None:
    """The SYSTEM turn's ``turn_id``; None when the dialogue gives none. A dialogue gives
    one to every SYSTEM turn or to none; an id given twice, or not an integer, refuses the
    file (exit 3)."""
    turn_id = turn.get("turn_id")
    where = f"turn {position} of 'turns'"
    if turn_id is None:
        if ids:
            raise table.error(f"{where} has no turn_id and earlier SYSTEM turns have one",
                              dialogue, index)
        return None
    if not isinstance(turn_id, int) or isinstance(turn_id, bool):
        raise table.error(f"{where}: turn_id must be an integer, found {turn_id!r}",
                          dialogue, index)
    if index and not ids:
        raise table.error(f"{where} has a turn_id and earlier SYSTEM turns have none",
                          dialogue, index)
    if turn_id in ids:
        raise table.error(f"turn_id {turn_id} is given to two SYSTEM turns (positions "
                          f"{ids[turn_id]} and {position} in 'turns')", dialogue, index)
    return turn_id
