"""MultiWOZ 2.0/2.1 gold as trade-dst builds it: the reference of the ``trade`` profile.

trade-dst (jasonwu0731/trade-dst b77fcf1) scores against its own preprocessed gold, not
against ``data.json``. This module rebuilds that gold from the same ``data.json``:

1. **Turn filter** (``create_data.py`` ``analyze_dialogue``): a dialogue is left out when
   its ``log`` has an odd length, or when any utterance, after :func:`normalize_text`, has
   more than 50 whitespace-separated words or a non-ASCII character (MultiWOZ 2.1 test:
   PMUL1455 is left out, 999 dialogues / 7368 turns remain; dev: PMUL2075).
2. **State** (``get_summary_bstate``) of user turn ``i`` = the metadata of ``log[2i+1]``,
   domains in the order taxi, restaurant, hospital, hotel, attraction, train, police;
   per domain first the ``book`` slots in sorted order (``booked`` skipped; a value is
   kept unless it is ``""``), then the ``semi`` slots in file order (``not mentioned``
   skipped; ``dont care``/``dontcare``/``don't care``/``do not care`` -> ``dontcare``;
   ``""`` skipped). Values are ``normalize(value.strip().lower(), False)``
   (:func:`normalize_text`).
3. **Label fixes** (``utils/fix_label.py`` ``fix_general_label_error``) on the 30 TRADE
   slots (:data:`TRADE_SLOTS`): the typo table (:data:`GENERAL_TYPO`: ``guesthouse`` ->
   ``guest house``, ``center`` -> ``centre``, ``not mentioned`` -> ``none``, ...) and the
   per-slot rules of :func:`fix_value`. A value fixed to ``none`` **stays in the gold** as
   the item ``slot-none`` (MultiWOZ 2.1 test: 363 items), which no TRADE prediction ever
   holds (its decoder drops ``none``): TRADE's own ceiling on 2.1 test is JGA 0.96132.
   Slots outside the 30 (``hospital-department``) stay in the state, unfixed.

Each turn's gold is a ``frozenset`` of ``"domain-slot-value"`` strings with the slot keys
spelled canonically (``hotel-book day`` -> ``hotel-bookday``: the same bijection as
predictions' keys, so every comparison is TRADE's). The tables below are the values of
trade-dst's ``utils/mapping.pair`` and ``fix_label.py``, kept as data.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from dst_eval.config import corpus_config
from dst_eval.corpora.multiwoz.loader21 import canonical_key
from dst_eval.corpora.multiwoz.rebuilt import RebuiltGold
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldSet

TRADE_DOMAINS = ("taxi", "restaurant", "hospital", "hotel", "attraction", "train", "police")
"""``get_summary_bstate``'s domain order (the state's item order)."""
TRADE_SLOTS = (
    "hotel-pricerange", "hotel-type", "hotel-parking", "hotel-book stay", "hotel-book day",
    "hotel-book people", "hotel-area", "hotel-stars", "hotel-internet", "train-destination",
    "train-day", "train-departure", "train-arriveby", "train-book people", "train-leaveat",
    "attraction-area", "restaurant-food", "restaurant-pricerange", "restaurant-area",
    "attraction-name", "restaurant-name", "attraction-type", "hotel-name", "taxi-leaveat",
    "taxi-destination", "taxi-departure", "restaurant-book time", "restaurant-book day",
    "restaurant-book people", "taxi-arriveby",
)
"""The 30 slots (TRADE spelling) ``fix_general_label_error`` fixes; TRADE's slot accuracy
divides by their number."""
MAX_WORDS = 50
DATA_JSON_CORPUS = "multiwoz21"
"""The corpus whose gold is read from ``data.json`` (MultiWOZ 2.0/2.1/2.4)."""
DONTCARE_SPELLINGS = frozenset({"dont care", "dontcare", "don't care", "do not care"})
STATE_WIDTH = 94
"""Length of TRADE's binary state summary (``assert len(summary_bstate) == 94``)."""

MAPPING_PAIRS: tuple[tuple[str, str], ...] = (
    ("it's", "it is"), ("don't", "do not"), ("doesn't", "does not"), ("didn't", "did not"),
    ("you'd", "you would"), ("you're", "you are"), ("you'll", "you will"), ("i'm", "i am"),
    ("they're", "they are"), ("that's", "that is"), ("what's", "what is"),
    ("couldn't", "could not"), ("i've", "i have"), ("we've", "we have"), ("can't", "cannot"),
    ("i'd", "i would"), ("i'd", "i would"), ("aren't", "are not"), ("isn't", "is not"),
    ("wasn't", "was not"), ("weren't", "were not"), ("won't", "will not"),
    ("there's", "there is"), ("there're", "there are"), (". .", "."),
    ("restaurants", "restaurant -s"), ("hotels", "hotel -s"), ("laptops", "laptop -s"),
    ("cheaper", "cheap -er"), ("dinners", "dinner -s"), ("lunches", "lunch -s"),
    ("breakfasts", "breakfast -s"), ("expensively", "expensive -ly"),
    ("moderately", "moderate -ly"), ("cheaply", "cheap -ly"), ("prices", "price -s"),
    ("places", "place -s"), ("venues", "venue -s"), ("ranges", "range -s"),
    ("meals", "meal -s"), ("locations", "location -s"), ("areas", "area -s"),
    ("policies", "policy -s"), ("children", "child -s"), ("kids", "kid -s"),
    ("kidfriendly", "kid friendly"), ("cards", "card -s"), ("upmarket", "expensive"),
    ("inpricey", "cheap"), ("inches", "inch -s"), ("uses", "use -s"),
    ("dimensions", "dimension -s"), ("driverange", "drive range"), ("includes", "include -s"),
    ("computers", "computer -s"), ("machines", "machine -s"), ("families", "family -s"),
    ("ratings", "rating -s"), ("constraints", "constraint -s"), ("pricerange", "price range"),
    ("batteryrating", "battery rating"), ("requirements", "requirement -s"),
    ("drives", "drive -s"), ("specifications", "specification -s"),
    ("weightrange", "weight range"), ("harddrive", "hard drive"),
    ("batterylife", "battery life"), ("businesses", "business -s"), ("hours", "hour -s"),
    ("one", "1"), ("two", "2"), ("three", "3"), ("four", "4"), ("five", "5"), ("six", "6"),
    ("seven", "7"), ("eight", "8"), ("nine", "9"), ("ten", "10"), ("eleven", "11"),
    ("twelve", "12"), ("anywhere", "any where"), ("good bye", "goodbye"),
)
"""Whole-word replacements, applied in this order (trade-dst ``utils/mapping.pair``)."""

GENERAL_TYPO: Mapping[str, str] = {
    "guesthouse": "guest house", "guesthouses": "guest house", "guest": "guest house",
    "mutiple sports": "multiple sports", "sports": "multiple sports",
    "mutliple sports": "multiple sports", "swimmingpool": "swimming pool",
    "concerthall": "concert hall", "concert": "concert hall", "pool": "swimming pool",
    "night club": "nightclub", "mus": "museum", "ol": "architecture", "colleges": "college",
    "coll": "college", "architectural": "architecture", "musuem": "museum",
    "churches": "church", "center": "centre", "center of town": "centre",
    "near city center": "centre", "in the north": "north", "cen": "centre",
    "east side": "east", "east area": "east", "west part of town": "west", "ce": "centre",
    "town center": "centre", "centre of cambridge": "centre", "city center": "centre",
    "the south": "south", "scentre": "centre", "town centre": "centre", "in town": "centre",
    "north part of town": "north", "centre of town": "centre", "cb30aq": "none",
    "mode": "moderate", "moderate -ly": "moderate", "mo": "moderate",
    "next friday": "friday", "monda": "monday", "free parking": "free",
    "free internet": "yes", "4 star": "4", "4 stars": "4", "0 star rarting": "none",
    "y": "yes", "any": "dontcare", "n": "no", "does not care": "dontcare",
    "not men": "none", "not": "none", "not mentioned": "none", "": "none",
    "not mendtioned": "none", "3 .": "3", "does not": "no", "fun": "none", "art": "none",
}
"""``fix_general_label_error``'s typo table (every one of the 30 slots)."""

_TO_NONE: Mapping[str, frozenset[str]] = {
    "hotel-type": frozenset({"nigh", "moderate -ly priced", "bed and breakfast", "centre",
                             "venetian", "intern", "a cheap -er hotel"}),
    "hotel-internet": frozenset({"4"}),
    "hotel-pricerange": frozenset({"2"}),
    "attraction-type": frozenset({"gastropub", "la raza", "galleria", "gallery", "science",
                                  "m"}),
}
_HOTEL_TYPE_TO_HOTEL = frozenset({"hotel with free parking and free wifi", "4", "3 star hotel"})
_OUT_OF_ONTOLOGY_AREA: Mapping[str, frozenset[str]] = {
    "restaurant-area": frozenset({"stansted airport", "cambridge", "silver street"}),
    "attraction-area": frozenset({"norwich", "ely", "museum", "same area as hotel"}),
}


def fix_value(slot: str, value: str) -> str:
    """One value of one of :data:`TRADE_SLOTS` after ``fix_general_label_error``:
    typo table, then the first matching slot rule, then the out-of-ontology areas."""
    value = GENERAL_TYPO.get(value, value)
    area, day = "area" in slot, "day" in slot
    if (value in _TO_NONE.get(slot, ()) or (area and value == "moderate")
            or (day and value == "t")):
        value = "none"
    elif slot == "hotel-type" and value in _HOTEL_TYPE_TO_HOTEL:
        value = "hotel"
    elif area:
        value = {"no": "north", "we": "west", "cent": "centre"}.get(value, value)
    elif day:
        value = {"we": "wednesday", "no": "none"}.get(value, value)
    elif "price" in slot and value == "ch":
        value = "cheap"
    elif "internet" in slot and value == "free":
        value = "yes"
    # (trade-dst's rule for "hotel-star" never fires: the slot is named hotel-stars.)
    if value in _OUT_OF_ONTOLOGY_AREA.get(slot, ()):
        value = "none"
    return value


# ------------------------------------------------------------------ create_data.normalize

_EDGE_SPACE = re.compile(r"^\s*|\s*$")
_FORBIDDEN = re.compile(r"[\"<>@()]")
_SPACES = re.compile(" +")
_DIGITS = re.compile(r"^\d+$")
_DIGIT = re.compile("[0-9]")


def _space_around(token: str, text: str) -> str:
    """trade-dst's ``insertSpace``, quirks included: a token between two digits is left
    alone; before it a space is inserted unless one is there (the character before
    position 0 is the *last* character); after it a space goes one character after the
    token's start (inside ``'s``)."""
    start = 0
    while (start := text.find(token, start)) != -1:
        if (start + 1 < len(text) and _DIGIT.match(text[start - 1])
                and _DIGIT.match(text[start + 1])):
            start += 1
            continue
        if text[start - 1] != " ":
            text = f"{text[:start]} {text[start:]}"
            start += 1
        if start + len(token) < len(text) and text[start + len(token)] != " ":
            text = f"{text[:start + 1]} {text[start + 1:]}"
        start += 1
    return text


def normalize_text(text: str) -> str:
    """trade-dst ``create_data.normalize(text, clean_value=False)``: lower-case, trim,
    ``b&b``/``b and b`` -> ``bed and breakfast``, curly apostrophes -> ``'``, ``;`` ->
    ``,``, ``/`` -> `` and ``, ``-`` -> space, delete ``"<>@()``, space out ``? . , !``
    and ``'s``, drop quotes at word edges, :data:`MAPPING_PAIRS` word replacements,
    single spaces, adjacent digit-only words joined (``1 2`` -> ``12``)."""
    text = _EDGE_SPACE.sub("", text.lower())
    text = text.replace("b&b", "bed and breakfast").replace("b and b", "bed and breakfast")
    text = text.replace("\u2018", "'").replace("\u2019", "'")
    text = text.replace(";", ",").replace("/", " and ").replace("-", " ")
    text = _FORBIDDEN.sub("", text)
    for token in ("?", ".", ",", "!", "'s"):
        text = _space_around(token, text)
    text = re.sub(r"'\s", " ", re.sub("'$", "", re.sub("^'", "", text)))
    text = re.sub(r"\s'", " ", text)
    for old, new in MAPPING_PAIRS:
        if old in text:  # (same result, much faster: most pairs are absent)
            text = f" {text} ".replace(f" {old} ", f" {new} ")[1:-1]
    tokens = _SPACES.sub(" ", text).split()
    i = 1
    while i < len(tokens):
        if _DIGITS.match(tokens[i]) and _DIGITS.match(tokens[i - 1]):
            tokens[i - 1] += tokens.pop(i)
        else:
            i += 1
    return " ".join(tokens)


# ------------------------------------------------------------------------------- the gold


@lru_cache(maxsize=1 << 16)
def _normalize_value(value: str) -> str:
    """:func:`normalize_text` of a stripped, lower-cased state value (values repeat turn
    after turn: computed once each)."""
    return normalize_text(value.strip().lower())


def keeps_dialogue(log: list[Any]) -> bool:
    """trade-dst's dialogue filter (module docstring, 1)."""
    if len(log) % 2:
        return False
    for entry in log:
        text = normalize_text(entry["text"])
        if len(text.split()) > MAX_WORDS or not text.isascii():
            return False
    return True


def turn_state(metadata: Mapping[str, Any], where: dict) -> dict[str, str]:
    """``{TRADE slot name: value}`` of one system turn's metadata (module docstring, 2-3)."""
    state: dict[str, str] = {}
    width = 0
    try:
        for domain in TRADE_DOMAINS:
            book, semi = metadata[domain]["book"], metadata[domain]["semi"]
            width += len(book) + 3 * len(semi) + 1
            if domain == "train":
                width += ("people" not in book) + ("ticket" not in book)
            for slot in sorted(book):
                if slot != "booked" and book[slot] != "":
                    state[f"{domain}-book {slot.strip().lower()}"] = \
                        _normalize_value(book[slot])
            for slot, value in semi.items():
                key = f"{domain}-{slot.strip().lower()}"
                if value == "not mentioned":
                    continue
                if value in DONTCARE_SPELLINGS:
                    state[key] = "dontcare"
                elif value:
                    state[key] = _normalize_value(value)
    except (KeyError, TypeError, AttributeError) as exc:
        raise GoldDataError(f"trade-dst cannot read this metadata ({type(exc).__name__}: "
                            f"{exc}); the trade profile needs all 7 MultiWOZ domains with "
                            "'book' and 'semi'", **where) from None
    if width != STATE_WIDTH:
        raise GoldDataError(f"trade-dst expects a {STATE_WIDTH}-wide state summary, this "
                            f"metadata gives {width}", **where)
    for slot in TRADE_SLOTS:
        if slot in state:
            state[slot] = fix_value(slot, state[slot])
    return state


def canonical_item(trade_key: str, value: str) -> str:
    """``("hotel-book day", "monday")`` -> ``"hotel-bookday-monday"``."""
    domain, _, slot = trade_key.partition("-")
    book = slot.startswith("book ")
    return f"{canonical_key(domain, slot[5:] if book else slot, book=book)}-{value}"


def trade_gold(data: Mapping[str, Any], dialogue_ids: Iterable[str], file: str
               ) -> dict[str, list[frozenset[str]]]:
    """``{dialogue_id: [items of turn 0, ...]}`` for the dialogues TRADE keeps among
    ``dialogue_ids`` (``data`` = the parsed ``data.json``)."""
    out: dict[str, list[frozenset[str]]] = {}
    for dialogue_id in dialogue_ids:
        log = data[dialogue_id]["log"]
        where: dict = {"file": file, "dialogue": dialogue_id}
        try:
            kept = keeps_dialogue(log)
        except (KeyError, TypeError, AttributeError):
            raise GoldDataError("log entries need a string 'text'", **where) from None
        if not kept:
            continue
        out[dialogue_id] = [
            frozenset(canonical_item(k, v) for k, v in
                      turn_state(log[i]["metadata"], {**where, "turn": i}).items())
            for i in range(1, len(log), 2)
        ]
    return out


def _built(data: Mapping[str, Any], ids: tuple[str, ...], file: str
           ) -> dict[str, tuple[frozenset[str], ...]]:
    return {d: tuple(turns) for d, turns in trade_gold(data, ids, file).items()}


_REBUILT = RebuiltGold(_built, profile="trade", anchor="trade-dst")


def load_for(gold_set: GoldSet) -> Mapping[str, tuple[frozenset[str], ...]] | None:
    """trade-dst's gold (:func:`trade_gold`, read-only) for the dialogues of ``gold_set``,
    read again from the ``data.json`` it was loaded from (its bytes checked against the
    loader's digest, kept per content: :mod:`.rebuilt`); None for MultiWOZ 2.2 gold
    (trade-dst never read 2.2: the loader's gold is scored); a 2.1 gold set from another
    layout (mwzeval states) or built in memory is an error."""
    if corpus_config(gold_set.corpus).name != DATA_JSON_CORPUS:  # 2.0 / 2.1 / 2.4
        return None
    return _REBUILT(gold_set)
