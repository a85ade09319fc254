"""TripPy predictions: ``pred_res.<split>.<step>.json`` written by TripPy's ``run_dst.py``
(``predict_and_format``) and read by its ``metric_bert_dst.py``::

    [{"guid": ["test", "PMUL1234.json", "0"],
      "slot_prediction_hotel-pricerange": "cheap", "slot_groundtruth_hotel-pricerange": "cheap",
      "class_prediction_hotel-pricerange": 2, ...}, ...]

One record per user turn: ``guid`` = ``[split, dialogue id, turn]`` (a ``-``-joined
string is accepted too; a dialogue id holding ``-`` is rejoined), the turn the 0-based
user turn. ``slot_prediction_<slot>`` is TripPy's running dialogue state for the slot
(``dialog_state``, carried over turns), ``none`` where it is unset: kept as a value, the
profile's unset policy decides (``strict`` reads ``none`` as unset on MultiWOZ). TripPy
marks values taken from the system's informs with a ``§§`` prefix (``"§§cheap"``, also
``"§§ cheap"``): that marker is format markup and is removed, the value after it kept
verbatim (``metric_bert_dst.py`` does the same before comparing). TripPy's
spellings (``true``/``false`` of its boolean classes, its tokenisation such as
``12 : 00``) are kept verbatim too: mapping them is a profile's business.
``PredTurn.extras`` keeps every ``slot_prediction_<slot>`` as written (``§§`` marks
included) and every ``class_prediction_<slot>``: the ``trippy`` profile replays TripPy's
metric on them; no other profile reads them (``raw_state`` is None: the state is the
canonical one above). ``start_*``, ``end_*`` and ``refer_*`` fields are ignored.
``slot_groundtruth_<slot>`` is TripPy's gold: never scored, only compared with the gold
to check the alignment.
"""

from __future__ import annotations

from typing import Any

from dst_eval.predictions.adapted import UNSET_MARKER, TurnTable, require
from dst_eval.predictions.common import show
from dst_eval.predictions.model import PredictionSet

FORMAT = "trippy"
PREDICTION = "slot_prediction_"
CLASS_PREDICTION = "class_prediction_"
GROUNDTRUTH = "slot_groundtruth_"
INFORM_MARK = "§§"


def looks_like(obj: Any) -> bool:
    if type(obj) is not list or not obj or type(obj[0]) is not dict:
        return False
    first = obj[0]
    return "guid" in first and any(k.startswith(PREDICTION) for k in first)


def _unmarked(value: Any) -> Any:
    if type(value) is str and value.startswith(INFORM_MARK):
        value = value[len(INFORM_MARK):]
        return value[1:] if value.startswith(" ") else value
    return value


def _guid(raw: Any, table: TurnTable, place: str) -> tuple[str, str]:
    parts = raw.split("-") if type(raw) is str else raw
    if (type(parts) is not list or len(parts) < 3
            or not all(type(p) in (str, int) for p in parts)):
        raise table.error(f"{place}: 'guid' must be [split, dialogue id, turn], found "
                          f"{show(raw)}")
    return "-".join(str(p) for p in parts[1:-1]), str(parts[-1])


class _Layout:
    """The fields of a record that are read, found by one scan of a record's keys and
    reused for the next records with the same keys in the same order (TripPy writes ~10
    fields per slot, alike in every record): ``(slot, key)`` of its predictions, classes
    and gold, in file order."""

    __slots__ = ("keys", "predictions", "classes", "gold")

    def __init__(self, record: dict) -> None:
        self.keys = tuple(record)
        self.predictions: list[tuple[str, str]] = []
        self.classes: list[str] = []
        self.gold: list[tuple[str, str]] = []
        for key in record:
            head = key[:5]  # "slot_" or "class": the fields read; the rest are skipped
            if head == "slot_":
                if key.startswith(PREDICTION):
                    self.predictions.append((key[len(PREDICTION):], key))
                elif key.startswith(GROUNDTRUTH):
                    self.gold.append((key[len(GROUNDTRUTH):], key))
            elif head == "class" and key.startswith(CLASS_PREDICTION):
                self.classes.append(key)

    def fits(self, record: dict) -> bool:
        return len(record) == len(self.keys) and tuple(record) == self.keys


def read_trippy(obj: Any, file: str, corpus: str | None) -> PredictionSet:
    table = TurnTable(file, corpus, FORMAT)
    table.metadata[UNSET_MARKER] = "none"  # run_dst.py: every slot, "none" when unset
    require(obj, list, "TripPy predictions (a list of per-turn records)", table)
    layout: _Layout | None = None
    for n, record in enumerate(obj):
        place = f"record {n}"
        require(record, dict, place, table)
        raw_dialogue, raw_turn = _guid(record.get("guid"), table, place)
        dialogue = table.dialogue_id(raw_dialogue, place)
        turn = table.turn_index(raw_turn, place, dialogue)
        if layout is None or not layout.fits(record):
            layout = _Layout(record)  # in the record's own key order
        if not layout.predictions:
            raise table.error(f"{place}: no '{PREDICTION}<slot>' fields", dialogue, turn)
        pairs = [(slot, _unmarked(record[key])) for slot, key in layout.predictions]
        extras = {key: record[key] for _, key in layout.predictions}
        extras.update({key: record[key] for key in layout.classes})
        embedded = [slot for slot, key in layout.gold
                    if type(value := record[key]) is str and value.strip() and value != "none"]
        table.add(dialogue, turn, place, pairs=pairs, extras=extras,
                  embedded=embedded if layout.gold else None)
    return table.build()
