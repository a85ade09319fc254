"""Delexicalised responses as mwzeval compares them (SCORERS.md §1.2) and BLEU references.

**Normalisation** (:func:`normalize_response`, hypotheses and references alike):

1. lower-case;
2. each placeholder ``[name]`` (word/space characters) with an optional suffix ``es``,
   ``s``, ``-s`` or ``-es`` becomes its bare upper-case category word
   (:data:`PLACEHOLDER_CATEGORIES`: ``[value_price]s`` -> ``PRICE``); an **unknown name
   becomes ''** (mwzeval prints a message; we return the names for the report);
3. delete every substring ``-s``, then every ``-ly``;
4. sacremoses ``MosesTokenizer('en').tokenize`` then ``MosesDetokenizer('en').detokenize``
   (``9:30`` -> ``9: 30``).

The Moses objects are created once (the tokenizer with set-based character-class tests,
:class:`_MosesTokenizer`) and results are cached per distinct raw text.

**References** -- mwzeval builds them from MultiWOZ 2.2 system utterances and
``dialog_acts.json`` ``span_info`` (character offsets, end exclusive):
:func:`delexicalize_char_spans`. Spans sorted by start; a span is skipped if it starts
before the end of the last inserted span or its value is ``dontcare``; its text becomes
``[<2.2 slot name>]``; then the normalisation above.

From MultiWOZ 2.1 (:func:`turn_reference` of a loaded 2.1 turn, what
``approx_references_mwz21_test.json`` holds, reproduced exactly): ``span_info`` entries
``[act, slot, value, first, last]`` index
*words* of ``text.split(' ')`` (``last`` inclusive); the same skipping rules; the 2.1 slot
name is mapped to its 2.2 name (:data:`SLOT_NAMES_21_TO_22`: ``Addr`` -> ``address``,
``Leave`` -> ``leaveat``, ...); the 2.1 clitic split is undone (``do n't`` -> ``don't``,
``you 're`` -> ``you're``: :data:`CLITIC_JOIN`) because 2.2 utterances are untokenised;
then the normalisation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from sacremoses import MosesDetokenizer, MosesTokenizer

from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldTurn
from dst_eval.jsonio import read_json

_CATEGORY_NAMES: Mapping[str, tuple[str, ...]] = {
    "ADDRESS": ("address", "value_address", "attraction_address", "hospital_address",
                "hotel_address", "police_address", "restaurant_address"),
    "AREA": ("area", "value_area", "attraction_area", "restaurant_area", "hotel_area"),
    "TIME": ("time", "booktime", "value_time", "duration", "value_duration", "train_duration",
             "arriveby", "arrive by", "value_arrive", "taxi_arriveby", "train_arriveby",
             "train_arrive", "leaveat", "leave at", "value_leave", "train_leaveat",
             "taxi_leaveat", "train_leave"),
    "DAY": ("day", "value_day", "bookday", "train_day"),
    "PLACE": ("destination", "departure", "value_destination", "value_departure", "value_place",
              "train_departure", "train_destination", "taxi_departure", "taxi_destination"),
    "FOOD": ("food", "value_food", "restaurant_food"),
    "NAME": ("name", "value_name", "attraction_name", "hospital_name", "hotel_name",
             "police_name", "restaurant_name"),
    "PHONE": ("phone", "value_phone", "attraction_phone", "hospital_phone", "hotel_phone",
              "police_phone", "restaurant_phone", "taxi_phone"),
    "POST": ("postcode", "value_postcode", "attraction_postcode", "hospital_postcode",
             "hotel_postcode", "restaurant_postcode", "police_postcode"),
    "PRICE": ("price", "value_price", "train_price", "attraction_price", "entrancefee",
              "entrance fee", "attraction_entrancefee", "pricerange", "price range",
              "value_pricerange", "restaurant_pricerange", "hotel_pricerange",
              "attraction_pricerange"),
    "REFERENCE": ("ref", "reference", "value_reference", "attraction_reference",
                  "hotel_reference", "restaurant_reference", "train_reference"),
    "COUNT": ("stars", "value_stars", "hotel_stars", "bookstay", "stay", "value_stay",
              "bookpeople", "people", "value_people", "choice", "value_choice", "value_count",
              "attraction_choice", "hotel_choice", "restaurant_choice", "train_choice"),
    "TYPE": ("type", "value_type", "taxi_type", "restaurant_type", "hotel_type",
             "attraction_type", "car", "value_car", "taxi_car"),
    "TRAINID": ("trainid", "train_id", "value_id", "id", "train", "train_trainid"),
    "INTERNET": ("internet", "hotel_internet"),
    "PARKING": ("parking", "hotel_parking"),
    "ID": ("hospital_id", "attraction_id", "restaurant_id"),
    "DEPARTMENT": ("department", "value_department", "hospital_department"),
    "OPEN": ("openhours",),
}

PLACEHOLDER_CATEGORIES: Mapping[str, str] = {
    name: category for category, names in _CATEGORY_NAMES.items() for name in names
}
"""Lower-cased placeholder name -> category word (mwzeval 7f19ee0 ``normalize_slot_name``)."""

PLACEHOLDER = re.compile(r"\[([\w\s\d]+)\](es|s|-s|-es|)")
"""A placeholder with its optional plural suffix, as mwzeval matches it."""

SLOT_NAMES_21_TO_22: Mapping[str, str] = {
    "Addr": "address", "Area": "area", "Arrive": "arriveby", "Car": "type", "Choice": "choice",
    "Day": "day", "Department": "department", "Depart": "departure", "Dest": "destination",
    "Fee": "entrancefee", "Food": "food", "Id": "trainid", "Leave": "leaveat", "Name": "name",
    "Open": "openhours", "People": "bookpeople", "Phone": "phone", "Post": "postcode",
    "Price": "pricerange", "Ref": "ref", "Stars": "stars", "Stay": "bookstay",
    "Ticket": "price", "Time": "booktime", "Type": "type",
}
"""MultiWOZ 2.1 ``span_info`` slot name -> 2.2 span slot name (unknown names: lower-cased)."""

CLITIC_JOIN = re.compile(r" (n't|'s|'re|'m|'d|'ve|'ll)\b")
"""A clitic the 2.1 tokenisation split off its word (``do n't``); joined back to it."""



class _MosesTokenizer(MosesTokenizer):
    """sacremoses' English tokenizer with its two character-class tests on sets built once.

    sacremoses rebuilds a set of its 2,253 lower-case (10,862 alphabetic) characters on
    every call of ``islower`` / ``isanyalpha`` -- a third of the tokenisation time of
    lower-cased responses. Same answers: ``islower(t)`` = every character of ``t`` is
    lower-case, ``isanyalpha(t)`` = some character is alphabetic.
    """

    def __init__(self) -> None:
        super().__init__(lang="en")
        self._lower_chars = frozenset(self.IsLower)
        self._alpha_chars = frozenset(self.IsAlpha)

    def islower(self, text: str) -> bool:
        return self._lower_chars.issuperset(text)

    def isanyalpha(self, text: str) -> bool:
        return not self._alpha_chars.isdisjoint(text)


_MOSES_TOKENIZER = _MosesTokenizer()
_MOSES_DETOKENIZER = MosesDetokenizer(lang="en")


def _category(match: re.Match, unknown: list[str]) -> str:
    name = match.group(1).lower()
    category = PLACEHOLDER_CATEGORIES.get(name)
    if category is None:
        unknown.append(name)
        return ""
    return category


@lru_cache(maxsize=1 << 17)
def normalize_response(text: str) -> tuple[str, tuple[str, ...]]:
    """mwzeval's normalised text of one response, and the unknown placeholder names it deleted.

    >>> normalize_response("[value_count] trains leave at [value_time].")
    ('COUNT trains leave at TIME.', ())
    >>> normalize_response("I booked the [hotel].")
    ('i booked the.', ('hotel',))
    """
    unknown: list[str] = []
    text = PLACEHOLDER.sub(lambda m: _category(m, unknown), text.lower())
    return _moses_round_trip(text.replace("-s", "").replace("-ly", "")), tuple(unknown)


@lru_cache(maxsize=1 << 17)
def _moses_round_trip(text: str) -> str:
    """Moses tokenisation then detokenisation (cached: different raw texts often meet here)."""
    return _MOSES_DETOKENIZER.detokenize(_MOSES_TOKENIZER.tokenize(text))


def _spans(spans: Any, *, file: str | None, dialogue: str, turn: int) -> list[tuple]:
    if not isinstance(spans, list):
        raise GoldDataError("'span_info' is not a list", file=file, dialogue=dialogue, turn=turn)
    out = []
    for span in spans:
        if (not isinstance(span, list | tuple) or len(span) != 5
                or not all(isinstance(i, int) and not isinstance(i, bool) for i in span[3:])):
            raise GoldDataError(
                f"malformed span {span!r} (expected [act, slot, value, start, end])",
                file=file, dialogue=dialogue, turn=turn)
        out.append(tuple(span))
    return sorted(out, key=lambda s: s[3])


def delexicalize_char_spans(utterance: str, spans: Sequence[Sequence[Any]]) -> str:
    """Replace 2.2 character spans ``[act, slot, value, start, end)`` by ``[slot]``.

    Spans are taken in start order; one starting before the end of the last replaced span,
    or with value ``dontcare``, is skipped.
    """
    pieces: list[str] = []
    previous_end = 0
    for _act, slot, value, start, end in sorted(spans, key=lambda s: s[3]):
        if start < previous_end or value == "dontcare":
            continue
        pieces.append(utterance[previous_end:start])
        pieces.append(f"[{slot}]")
        previous_end = end
    pieces.append(utterance[previous_end:])
    return "".join(pieces)


def delexicalize_word_spans(text: str, spans: Sequence[Sequence[Any]]) -> str:
    """Replace 2.1 word spans ``[act, slot, value, first, last]`` (words of
    ``text.split(' ')``, ``last`` inclusive) by ``[<2.2 slot name>]``, then join clitics."""
    words = text.split(" ")
    pieces: list[str] = []
    previous_end = 0
    for _act, slot, value, first, last in sorted(spans, key=lambda s: s[3]):
        if first < previous_end or value == "dontcare":
            continue
        pieces.extend(words[previous_end:first])
        pieces.append(f"[{SLOT_NAMES_21_TO_22.get(slot, str(slot).lower())}]")
        previous_end = last + 1
    pieces.extend(words[previous_end:])
    return CLITIC_JOIN.sub(r"\1", " ".join(pieces))


def turn_reference(turn: GoldTurn, *, file: str | None = None) -> str:
    """The normalised reference of a gold turn: its ``system_response`` delexicalised by
    ``system_annotations["span_info"]`` (``span_unit`` ``word``: 2.1 word spans, with the
    2.1 slot names mapped and clitics joined; ``char``: 2.2 character spans), normalised."""
    text = turn.system_response
    notes = turn.system_annotations
    if not isinstance(text, str) or "span_info" not in notes:
        raise GoldDataError("system turn without a text and span annotations", file=file,
                            dialogue=turn.dialogue_id, turn=turn.turn_index)
    raw = notes["span_info"]
    spans = _spans(list(raw) if isinstance(raw, tuple) else raw, file=file,
                   dialogue=turn.dialogue_id, turn=turn.turn_index)
    if notes.get("span_unit") == "char":
        return normalize_response(delexicalize_char_spans(text, spans))[0]
    return normalize_response(delexicalize_word_spans(text, spans))[0]


def references_from_mwz22(dialogues: Sequence[Mapping[str, Any]],
                          dialog_acts: Mapping[str, Mapping[str, Any]], *,
                          file: str | None = None) -> dict[str, list[str]]:
    """Normalised references per system turn from 2.2 dialogues + ``dialog_acts.json``,
    exactly as mwzeval builds them (system turns = odd turn positions)."""
    references: dict[str, list[str]] = {}
    for dialogue in dialogues:
        raw_id = dialogue.get("dialogue_id") if isinstance(dialogue, dict) else None
        if not isinstance(raw_id, str) or not isinstance(dialogue.get("turns"), list):
            raise GoldDataError("expected a 2.2 dialogue with 'dialogue_id' and 'turns'",
                                file=file)
        acts = dialog_acts.get(raw_id)
        if not isinstance(acts, dict):
            raise GoldDataError("dialogue missing from dialog_acts.json", file=file,
                                dialogue=raw_id)
        turns = []
        for position, turn in enumerate(dialogue["turns"]):
            if position % 2 == 0:
                continue
            index = position // 2
            act = acts.get(str(turn.get("turn_id")))
            if not isinstance(act, dict) or not isinstance(turn.get("utterance"), str):
                raise GoldDataError("system turn without an utterance or dialogue acts",
                                    file=file, dialogue=raw_id, turn=index)
            spans = _spans(act.get("span_info", []), file=file, dialogue=raw_id, turn=index)
            turns.append(normalize_response(delexicalize_char_spans(turn["utterance"], spans))[0])
        references[raw_id.split(".")[0].lower()] = turns
    return references


def load_mwz22_references(split_dir: str | Path,
                          dialog_acts: str | Path | None = None) -> dict[str, list[str]]:
    """mwzeval's references from a MultiWOZ 2.2 split folder (``dialogues_*.json``) and
    ``dialog_acts.json`` (default: in the folder's parent, the 2.2 repository layout)."""
    split_dir = Path(split_dir)
    acts_path = Path(dialog_acts or split_dir.parent / "dialog_acts.json")
    files = sorted(split_dir.glob("dialogues_*.json"))
    if not files:
        raise GoldDataError("no dialogues_*.json files", file=str(split_dir))
    acts = read_json(acts_path, error=GoldDataError)
    if not isinstance(acts, dict):
        raise GoldDataError("expected an object {dialogue id: {turn id: acts}}",
                            file=str(acts_path))
    references: dict[str, list[str]] = {}
    for path in files:
        dialogues = read_json(path, error=GoldDataError)
        if not isinstance(dialogues, list):
            raise GoldDataError("expected a list of dialogues", file=str(path))
        references.update(references_from_mwz22(dialogues, acts, file=str(path)))
    return references
