"""What the output adapters share: a table of predicted turns built from any layout.

The adapters (:mod:`.trade`, :mod:`.somdst`, :mod:`.trippy`, :mod:`.simpletod`,
:mod:`.icdst`, :mod:`.ldst`, :mod:`.convlab_unified`, :mod:`.jmultiwoz_inference`)
parse a system's own output file and hand each turn's ``(slot key, value)`` pairs to a
:class:`TurnTable`, which

* spells slot keys for the corpus (:class:`~dst_eval.predictions.turns.TurnReader`);
* keeps every value verbatim (the reader's value rules: strings as written, ``null``
  no value, lists and numbers reported), so ``none``, ``NONE`` or ``not mentioned``
  reach the profile, whose unset policy decides what they mean;
* refuses a turn given twice (one line naming both places, exit 3);
* fills turns with no record inside a dialogue as gaps (Issue ``missing_turn``);
* keeps the gold a file carries (TRADE ``turn_belief``, SOM-DST's second element,
  TripPy ``slot_groundtruth_*``, IC-DST ``slot_values``, ConvLab ``state``) apart, in
  :data:`EMBEDDED_GOLD` of the metadata: it is never scored, only compared with the
  real gold by :func:`dst_eval.predictions.bind.bind_to_gold` to check the alignment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from dst_eval.errors import PredictionError
from dst_eval.predictions.common import (
    MAX_TURN_INDEX,
    MAX_VALUE_CHARS,
    check_gap_budget,
    check_name_length,
    check_response_length,
    check_same_dialogue,
    show,
)
from dst_eval.predictions.model import PredictionSet, PredTurn
from dst_eval.predictions.turns import TurnReader

EMBEDDED_GOLD = "embedded_gold"
"""Metadata key: ``{(dialogue, turn): frozenset of slot keys the file's own gold fills}``."""
ORDER_ALIGNED = "order_aligned"
"""Metadata key: dialogues are positions (``#0``, ``#1``, ...) in the gold split's order."""
POSITIONAL = "positional"
"""Metadata key: some dialogues are named ``<gold file><POSITION><index in that file>``."""
UNSET_MARKER = "unset_marker"
"""Metadata key: the literal a format writes for every unset slot (TripPy: ``none``, LDST:
``NONE``); the value stays a value: ``strict`` reads it as unset on every corpus
(``profiles.strict.unset_for``), a profile that scores it as one says so
(``api._unset_marker``)."""
TURN_IDS = "turn_ids"
"""Metadata key: ``{dialogue: (turn id of each predicted turn, in order)}``; the binding
to the gold joins them on the gold turns' ``system_annotations["turn_id"]``
(JMultiWOZ's official ``evaluate.py`` joins on ``turn_id``)."""
MARKERS = frozenset({EMBEDDED_GOLD, ORDER_ALIGNED, POSITIONAL, UNSET_MARKER, TURN_IDS})
"""The metadata keys the readers set: they steer the binding to the gold and the profiles,
so no file's own ``metadata`` may set them, and they are never a submission's metadata."""
POSITION = "#"
GAP = PredTurn()


def unreadable_gold(table: TurnTable, detail: str, dialogue: str, turn: int | None) -> None:
    """Issue ``embedded_gold_unreadable``: the gold a system's file carries for a turn
    cannot be read, so the turn is not checked against the gold data (a misaligned file
    would go unnoticed there); no score uses it."""
    table.reader.issue("embedded_gold_unreadable", f"{detail}: the file's own gold for this "
                       "turn is not compared with the gold data", dialogue, turn)


class TurnTable:
    """Predicted turns of one file, keyed ``(dialogue, turn index)``."""

    def __init__(self, file: str, corpus: str | None, fmt: str) -> None:
        self.file = file
        self.format = fmt
        self.reader = TurnReader(file, corpus)
        self.turns: dict[str, dict[int, PredTurn]] = {}
        self.places: dict[tuple[str, int], str] = {}
        self.seen: dict[str, str] = {}
        self.embedded: dict[tuple[str, int], frozenset[str]] = {}
        self.metadata: dict[str, Any] = {}

    def error(self, message: str, dialogue: str | None = None,
              turn: int | None = None) -> PredictionError:
        return PredictionError(message, file=self.file, dialogue=dialogue, turn=turn)

    def dialogue_id(self, raw: Any, place: str) -> str:
        """A dialogue id from the file (numbers accepted as their digits)."""
        if type(raw) is int:
            raw = str(raw)
        if type(raw) is not str or not raw.strip():
            raise self.error(f"{place}: the dialogue id must be a non-empty string, found "
                             f"{show(raw)}")
        check_name_length(raw, self.file)
        return raw

    def turn_index(self, raw: Any, place: str, dialogue: str) -> int:
        """A 0-based turn index from the file (digit strings accepted: JSON keys)."""
        if type(raw) is str and raw.strip().isascii() and raw.strip().isdigit():
            raw = int(raw)  # ASCII digits only: "²" or "١" is no index
        if type(raw) is not int or not 0 <= raw <= MAX_TURN_INDEX:
            raise self.error(f"{place}: the turn index must be an integer from 0 to "
                             f"{MAX_TURN_INDEX:,}, found {show(raw)}", dialogue)
        return raw

    def state(self, pairs: Iterable[tuple[str, Any]], dialogue: str, turn: int
              ) -> tuple[Mapping[str, str], Mapping[str, tuple[str, ...]] | None]:
        """``(state, duplicates)`` from flat ``("domain-slot", value)`` pairs."""
        reader = self.reader
        flat = reader._flat  # the reader's cache of spelled keys (filled by flat_key)
        state: dict[str, str] = {}
        repeated: dict[str, list[str]] = {}
        for raw_key, raw_value in pairs:
            key = flat.get(raw_key) or reader.flat_key(raw_key, dialogue, turn)
            if (type(raw_value) is str and len(raw_value) <= MAX_VALUE_CHARS
                    and "|" not in raw_value):
                value = raw_value  # the common case: a plain string, kept verbatim
            else:
                value = reader.value(raw_value, key, dialogue, turn)
            if value is None:
                continue
            old = state.get(key)
            if old is None:
                state[key] = value
                continue
            repeated.setdefault(key, []).append(value)
            if old != value:
                reader.issue("duplicate_slot", f"slot {key} is given twice with different "
                             f"values ({show(old)} and {show(value)}); the first is used (trade "
                             "counts both items, as trade-dst does)",
                             dialogue, turn)
        duplicates = (MappingProxyType({k: tuple(v) for k, v in repeated.items()})
                      if repeated else None)
        return MappingProxyType(state), duplicates

    def add(self, dialogue: str, turn: int, place: str, *,
            pairs: Iterable[tuple[str, Any]] | None = None, raw_state: Any = None,
            response: str | None = None, embedded: Iterable[str] | None = None,
            extras: Mapping | None = None) -> None:
        """Record one predicted turn (``pairs``: its state as flat key/value pairs)."""
        if dialogue not in self.turns:
            check_same_dialogue(self.seen, dialogue, self.file, f" ({place})")
        earlier = self.places.setdefault((dialogue, turn), place)
        if earlier != place:
            raise self.error(f"turn given twice: {earlier} and {place} both predict it",
                             dialogue, turn)
        check_response_length(response, self.error, dialogue, turn)
        state = duplicates = None
        if pairs is not None:
            state, duplicates = self.state(pairs, dialogue, turn)
        self.turns.setdefault(dialogue, {})[turn] = PredTurn(
            state=state, response=response, duplicates=duplicates,
            raw_state=raw_state if state is not None else None,
            extras=extras if state is not None else None)
        if embedded is not None:
            reader = self.reader
            flat = reader._flat
            self.embedded[(dialogue, turn)] = frozenset(
                [flat.get(key) or reader.flat_key(key, dialogue, turn) for key in embedded])

    def build(self) -> PredictionSet:
        if not self.turns:
            raise self.error("no predictions in the file")
        check_gap_budget([max(turns) + 1 for turns in self.turns.values()],
                         sum(map(len, self.turns.values())), self.file)
        dialogues: dict[str, list[PredTurn]] = {}
        for dialogue, turns in self.turns.items():
            ordered = []
            for index in range(max(turns) + 1):
                turn = turns.get(index)
                if turn is None:
                    self.reader.issue("missing_turn", "no record for this turn; it is scored "
                                      "as missing", dialogue, index)
                    turn = GAP
                ordered.append(turn)
            dialogues[dialogue] = ordered
        metadata = dict(self.metadata)
        if self.embedded:
            metadata[EMBEDDED_GOLD] = MappingProxyType(self.embedded)
        return PredictionSet(self.file, self.format, dialogues, self.reader.issues,
                             MappingProxyType(metadata))


def split_items(items: list, sep: str, table: TurnTable, dialogue: str, turn: int,
                what: str) -> list[tuple[str, str]]:
    """:func:`split_item` of every item of a list (plain items on a fast path)."""
    pairs = []
    for item in items:
        parts = item.split(sep, 2) if type(item) is str else ()
        if len(parts) == 3 and parts[0].strip() and parts[1].strip():
            pairs.append((f"{parts[0]}-{parts[1]}", parts[2]))
        else:
            pairs.append(split_item(item, sep, table, dialogue, turn, what))  # raises
    return pairs


def split_item(item: Any, sep: str, table: TurnTable, dialogue: str, turn: int,
               what: str) -> tuple[str, str]:
    """``"domain-slot-value"`` -> ``("domain-slot", "value")`` (the value kept verbatim).

    Slot names of these formats hold no ``-``; the value is everything after the second
    separator, so values holding ``-`` survive.
    """
    if type(item) is not str:
        raise table.error(f"{what}: a belief item must be a string "
                          f"'domain{sep}slot{sep}value', found {show(item)}", dialogue, turn)
    parts = item.split(sep, 2)
    if len(parts) != 3 or not parts[0].strip() or not parts[1].strip():
        raise table.error(f"{what}: belief item {show(item)} is not "
                          f"'domain{sep}slot{sep}value'", dialogue, turn)
    return f"{parts[0]}-{parts[1]}", parts[2]


def require(obj: Any, kind: type, what: str, table: TurnTable, dialogue: str | None = None,
            turn: int | None = None) -> Any:
    if type(obj) is not kind:
        from dst_eval.predictions.common import describe

        raise table.error(f"{what} must be a {'JSON object' if kind is dict else kind.__name__}"
                          f", found {describe(obj)}", dialogue, turn)
    return obj
