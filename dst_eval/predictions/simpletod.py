"""SimpleTOD generated beliefs (salesforce/simpletod ``generate_dialogue.py`` output, read by
its ``compute_joint_acc.py``)::

    {"PMUL1234.json": {"generated_turn_belief": [["hotel pricerange cheap",
                                                  "hotel book people 2"], ...],
                       "target_turn_belief": [...], ...}, ...}

One entry per user turn, in order. An item is ``domain slot value`` separated by spaces;
a slot ``book <x>`` takes two words (``hotel book people 2``), any other slot one -- the
slot names of SimpleTOD's MultiWOZ preprocessing (``pricerange``, ``leaveAt``,
``book day``, ...). The value is the rest of the item, verbatim. ``<|endoftext|>`` and
``<|endofbelief|>`` tokens and the whitespace around an item are removed (as
``compute_joint_acc.py`` does) and blank items skipped (SimpleTOD writes
``[""]`` for a turn without belief); an item of fewer than three words is reported
(Issue ``malformed_item``) and not scored.

A turn may also be the generated text itself, ``<|belief|> hotel pricerange cheap ,
hotel area north <|endofbelief|>`` (the items between the last ``<|belief|>`` and
``<|endofbelief|>`` / ``<|action|>``, split at commas, whitespace around each item
removed), in ``generated_turn_belief`` or as ``{dialogue: [belief text, ...]}``. A text
without ``<|belief|>`` predicts no state; when it holds anything but tokens and whitespace
(``hotel area east , hotel pricerange cheap``: items written without their markers), it is
reported (Issue ``no_belief_marker``), never read silently as no prediction.
``target_turn_belief`` is SimpleTOD's gold: never scored, only compared with the gold
to check the alignment.
"""

from __future__ import annotations

from typing import Any

from dst_eval.predictions.adapted import TurnTable, require, unreadable_gold
from dst_eval.predictions.common import describe, show
from dst_eval.predictions.model import PredictionSet

FORMAT = "simpletod"
GENERATED = "generated_turn_belief"
TARGET = "target_turn_belief"
BELIEF, END, ACTION = "<|belief|>", "<|endofbelief|>", "<|action|>"
TOKENS = ("<|endoftext|>", END)


def looks_like(obj: Any) -> bool:
    if type(obj) is not dict or not obj:
        return False
    first = next(iter(obj.values()))
    if type(first) is dict:
        return GENERATED in first
    return (type(first) is list and bool(first) and type(first[0]) is str
            and BELIEF in first[0])


def belief_items(text: str) -> list[str]:
    """The items of a generated ``<|belief|> ... <|endofbelief|>`` text."""
    if BELIEF not in text:
        return []
    body = text.split(BELIEF)[-1].split(ACTION)[0].split(END)[0]
    return [item.strip() for item in body.split(",")]


def _without_tokens(text: str) -> str:
    for token in (*TOKENS, ACTION):
        text = text.replace(token, "")
    return text


def _pairs(items: Any, table: TurnTable, dialogue: str, turn: int) -> list[tuple[str, str]]:
    if type(items) is str:
        text = items
        items = belief_items(text)
        if BELIEF not in text and _without_tokens(text).strip():
            table.reader.issue("no_belief_marker", f"generated text {show(text)} has no "
                               f"{BELIEF} marker: it predicts no state (write the items as "
                               f"a list, or the text with its {BELIEF} ... {END} markers)",
                               dialogue, turn)
    require(items, list, "a turn's belief", table, dialogue, turn)
    pairs = []
    for item in items:
        if type(item) is not str:
            raise table.error(f"a belief item must be a string, found {show(item)}",
                              dialogue, turn)
        for token in TOKENS:
            item = item.replace(token, "")
        item = item.strip()
        words = item.split()
        if not words:
            continue
        parts = item.split(None, 3 if len(words) > 1 and words[1] == "book" else 2)
        if len(parts) < 3 or (words[1] == "book" and len(parts) < 4):
            table.reader.issue("malformed_item", f"belief item {show(item)} is not 'domain "
                               "slot value'; it is not scored", dialogue, turn)
            continue
        slot = " ".join(parts[1:-1])
        pairs.append((f"{parts[0]}-{slot}", parts[-1]))
    return pairs


def read_simpletod(obj: Any, file: str, corpus: str | None) -> PredictionSet:
    table = TurnTable(file, corpus, FORMAT)
    require(obj, dict, "SimpleTOD output {dialogue: {'generated_turn_belief': [...]}}", table)
    for raw_dialogue, entry in obj.items():
        dialogue = table.dialogue_id(raw_dialogue, "key")
        gold = None
        if type(entry) is dict:
            if GENERATED not in entry:
                raise table.error(f"no {GENERATED!r}", dialogue)
            gold = entry.get(TARGET)
            entry = entry[GENERATED]
        require(entry, list, "the turns' beliefs", table, dialogue)
        golds = gold if type(gold) is list and len(gold) == len(entry) else None
        if gold is not None and golds is None:
            unreadable_gold(table, f"{TARGET!r} is {describe(gold)}" if type(gold) is not list
                            else f"{TARGET!r} has {len(gold)} turns for {len(entry)}",
                            dialogue, None)
        for turn, items in enumerate(entry):
            embedded = None
            if golds is not None:
                embedded = [key for key, _ in _pairs(golds[turn], table, dialogue, turn)]
            table.add(dialogue, turn, f"turn {turn}", pairs=_pairs(items, table, dialogue, turn),
                      raw_state=items, embedded=embedded)
    return table.build()
