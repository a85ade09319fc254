"""LDST / DST-as-prompting result lines (WoodScene/LDST ``generate_*.py``; the index lines
of chiahsuan156/DST-as-Prompting's ``preprocess_*_prompt_by_slot.py``)::

    data.json|||PMUL1234.json|||1|||0|||hotel|||pricerange|||['cheap']
    data.json|||PMUL1234.json|||1|||0|||hotel|||area|||['NONE']

One line per user turn x slot: ``file|||dialogue|||utt_index|||frame|||domain|||slot|||
[value]``. ``utt_index`` is the utterance position in the dialogue: the system entry of
``log`` for the data.json layout (odd), the user turn of the SGD / MultiWOZ 2.2 layout
(even); either way the 0-based user turn is ``utt_index // 2``. The answer is the Python
list the generator printed (``['cheap']``); ``[]`` (a slot the run did not ask about)
predicts nothing. Every value is kept verbatim, ``NONE`` too: it is the format's literal
for an unset slot (the DST-as-prompting postprocessing skips it), declared in the
prediction set's metadata (``UNSET_MARKER``, as for TripPy's ``none``), so the profile
decides what it means. ``strict`` reads it as unset on every corpus; a compatibility
profile whose anchor scores every string as a value does so and says how many in one
warning (``api._unset_marker``). A list of several values is reported as hedged (the
first is used). A slot line given
twice for one turn is an error naming both lines. Shards are read as one stream of lines
(a turn's lines may be split across files; a line repeated in two files is an error
naming both).

The dialogue field is the dialogue id in the data.json layout. In the SGD / MultiWOZ 2.2
layouts it is the dialogue's position within ``file`` (``dialogues_001.json|||0|||...``):
such dialogues are named ``dialogues_001.json#0`` here and resolved once the gold is
loaded (:mod:`dst_eval.predictions.bind`), from the file of that name in the gold's
split directory; without that file the predictions are refused (exit 3).
"""

from __future__ import annotations

import ast
from typing import Any

from dst_eval.errors import PredictionError
from dst_eval.predictions.adapted import POSITION, POSITIONAL, UNSET_MARKER, TurnTable
from dst_eval.predictions.common import show
from dst_eval.predictions.model import PredictionSet

FORMAT = "ldst"
SEP = "|||"
FIELDS = 7
UNSET = "NONE"


def looks_like(data: bytes) -> bool:
    head = data.lstrip()[:2000].split(b"\n", 1)[0]
    return head.count(SEP.encode()) == FIELDS - 1


def _answer(raw: str, table: TurnTable, where: str) -> Any:
    try:
        value = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise table.error(f"{where}: the answer {show(raw)} is not a Python list such as "
                          "['cheap']") from None
    if type(value) is str:
        value = [value]
    if type(value) is not list:
        raise table.error(f"{where}: the answer {show(raw)} is not a list")
    return value


def read_ldst(data: bytes, file: str, corpus: str | None) -> PredictionSet:
    """Read one file of result lines."""
    return read_ldst_files([(file, data)], file, corpus)


def read_ldst_files(documents: list[tuple[str, bytes]], source: str,
                    corpus: str | None) -> PredictionSet:
    """Read result lines from one or more files (shards: a turn's lines may be split across
    them); a (dialogue, turn, domain, slot) line given twice is an error naming both places."""
    table = TurnTable(source, corpus, FORMAT)
    answers: dict[str, list] = {}  # answer text -> parsed list: most lines say ['NONE']
    turns: dict[tuple[str, int], list[tuple[str, Any]]] = {}
    places: dict[tuple[str, int], str] = {}
    seen: dict[tuple[str, int, str, str], str] = {}
    for file, data in documents:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise PredictionError(f"not valid UTF-8 ({exc})", file=file) from None
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            where = f"line {lineno}" if len(documents) == 1 else f"{file} line {lineno}"
            dialogue, turn, domain, slot, answer = _line(line, where, table)
            values = answers.get(answer)
            if values is None:
                values = answers[answer] = _answer(answer, table, where)
            earlier = seen.setdefault((dialogue, turn, domain, slot), where)
            if earlier != where:
                raise table.error(f"slot {domain}-{slot} is given twice: {earlier} and {where}",
                                  dialogue, turn)
            places.setdefault((dialogue, turn), where)
            pairs = turns.setdefault((dialogue, turn), [])
            if not values:
                continue
            pairs.append((f"{domain}-{slot}", values[0] if len(values) == 1 else list(values)))
    if not places:
        raise table.error("no result lines")
    table.metadata[UNSET_MARKER] = UNSET
    for (dialogue, turn), pairs in turns.items():
        table.add(dialogue, turn, places[(dialogue, turn)], pairs=pairs, raw_state=pairs)
    return table.build()


def _line(line: str, where: str, table: TurnTable) -> tuple[str, int, str, str, str]:
    """``(dialogue, user turn, domain, slot, answer text)`` of one result line."""
    fields = line.split(SEP, FIELDS - 1)
    if len(fields) != FIELDS:
        raise table.error(f"{where}: expected 7 '|||'-separated fields "
                          "file|||dialogue|||utt_index|||frame|||domain|||slot|||[value], "
                          f"found {len(fields)}")
    source, raw_dialogue, utt, _frame, domain, slot, answer = fields
    if raw_dialogue.isascii() and raw_dialogue.isdigit() and not source.endswith("data.json"):
        if not source.strip() or "/" in source or "\\" in source or ".." in source:
            raise table.error(f"{where}: the dialogue field {raw_dialogue!r} is a position "
                              f"in {source!r}, which is not a file name")
        dialogue = table.dialogue_id(f"{source}{POSITION}{int(raw_dialogue)}", where)
        table.metadata[POSITIONAL] = True
    else:
        dialogue = table.dialogue_id(raw_dialogue, where)
    turn = table.turn_index(utt, f"{where} utt_index", dialogue) // 2
    return dialogue, turn, domain, slot, answer
