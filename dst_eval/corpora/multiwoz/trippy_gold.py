"""MultiWOZ 2.0/2.1 gold as TripPy builds it: the reference of the ``trippy`` profile.

TripPy (trippy-public ``dataset_multiwoz21.py`` ``create_examples``) scores against its
own labels, written into its prediction files as ``slot_groundtruth_<slot>``; dst-eval
never reads those (they come from the submission) and rebuilds the labels from the same
``data.json`` instead:

1. **Changes** per system turn (the metadata after the user turn), domains and then
   ``book`` before ``semi`` slots in file order: a slot's value is
   :func:`normalize_label` of the annotation (``""``/``not mentioned`` -> ``none``;
   times by :func:`normalize_time`; ``guesthouse`` -> ``guest house`` in type, name,
   departure and destination slots; ``hotel-parking``/``-internet`` ``yes``/``free`` ->
   ``true``, ``no`` -> ``false``; ``hotel-type`` ``hotel`` -> ``true``, ``guest house``
   -> ``false``), a ``name`` in the domain's ``booked`` entry taking precedence; a slot of
   :data:`~.trippy_labels.SLOTS` changed when its value differs from the last one.
2. **Labels** of user turn ``t``: per slot (in :data:`~.trippy_labels.SLOTS` order) the
   last changed value that was not ``none``. A slot set back to ``none`` keeps its old
   label, as in TripPy. With ``label_value_repetitions`` (TripPy's published MultiWOZ
   setting, ``DO.example.advanced``; always on here) a changed value that occurs in the
   user utterance (TripPy's tokens, or a variant's) while two or more slots already hold
   it is not taken (MultiWOZ 2.1 dev: 5 labels; test: none).
3. A dialogue whose log stops alternating user/system (a system turn with empty
   metadata) ends there, as TripPy's reader stops.

Labels are TripPy's strings (``none`` when unset); :func:`load_for` returns them per
dialogue and turn, for the dialogues of a loaded gold set, read again from its
``data.json`` (bytes checked against the loader's digest, as the ``trade`` gold is).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from dst_eval.config import corpus_config
from dst_eval.corpora.multiwoz.rebuilt import RebuiltGold
from dst_eval.corpora.multiwoz.trade_gold import DATA_JSON_CORPUS
from dst_eval.corpora.multiwoz.trippy_labels import LABEL_MAPS, SLOTS
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldSet

NONE = "none"
_SPLIT = re.compile(r"(\W+)")
_TIME_RULES: tuple[tuple[re.Pattern, Any], ...] = (
    (re.compile(r"(\d{1})(a\.?m\.?|p\.?m\.?)"), r"\1 \2"),
    (re.compile(r"(^| )(\d{1,2}) (a\.?m\.?|p\.?m\.?)"), r"\1\2:00 \3"),
    (re.compile(r"(^| )(at|from|by|until|after) ?(\d{1,2}) ?(\d{2})([^0-9]|$)"),
     r"\1\2 \3:\4\5"),
    (re.compile(r"(^| )(\d{2})[;.,](\d{2})"), r"\1\2:\3"),
    (re.compile(r"(^| )(at|from|by|until|after) ?(\d{1,2})([;., ]|$)"), r"\1\2 \3:00\4"),
    (re.compile(r"(^| )(\d{1}:\d{2})"), r"\g<1>0\2"),
    (re.compile(r"(\d{2})(:\d{2}) ?p\.?m\.?"),
     lambda m: str(int(m.group(1)) + 12 if int(m.group(1)) < 12 else int(m.group(1)))
     + m.group(2)),
    (re.compile(r"(^| )24:(\d{2})"), r"\g<1>00:\2"),
)
_STARS = tuple((re.compile(rf"(^| ){word}(-| )star([s.,? ]|$)"), rf"\g<1>{digit} star\3")
               for digit, word in enumerate(("zero", "one", "two", "three", "four", "five")))
_TEXT_RULES: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile("n't"), " not"),
    *_STARS,
    (re.compile("archaelogy"), "archaeology"),
    (re.compile("guesthouse"), "guest house"),
    (re.compile(r"(^| )b ?& ?b([.,? ]|$)"), r"\1bed and breakfast\2"),
    (re.compile("bed & breakfast"), "bed and breakfast"),
)


def normalize_time(text: str) -> str:
    """TripPy's time normalisation (``normalize_time``): ``7pm`` -> ``19:00``, ``at 5`` ->
    ``at 05:00``, ``24:15`` -> ``00:15``, ..."""
    for pattern, repl in _TIME_RULES:
        text = pattern.sub(repl, text)
    return text


def normalize_text(text: str) -> str:
    """TripPy's utterance normalisation (``normalize_text``): times, ``n't``, star
    counts, two typos and ``b&b`` spellings."""
    text = normalize_time(text)
    for pattern, repl in _TEXT_RULES:
        text = pattern.sub(repl, text)
    return text


def split_tokens(text: str) -> list[str]:
    """Words and runs of non-word characters, stripped, empty ones dropped (TripPy's
    ``re.split("(\\W+)")`` tokenisation)."""
    return [token for token in map(str.strip, _SPLIT.split(text)) if token]


def utterance_tokens(text: str) -> list[str]:
    """An utterance as TripPy's reader tokenises it: lower-cased, normalised, split."""
    return split_tokens(normalize_text(text.lower()))


def normalize_label(slot: str, value: Any) -> Any:
    """TripPy's ``normalize_label`` of one annotated value (``slot`` in TripPy spelling)."""
    if value == "" or value == "not mentioned":
        return NONE
    if "leaveAt" in slot or "arriveBy" in slot or slot == "restaurant-book_time":
        return normalize_time(value)
    if "type" in slot or "name" in slot or "destination" in slot or "departure" in slot:
        value = value.replace("guesthouse", "guest house")
    if slot in ("hotel-parking", "hotel-internet"):
        if value in ("yes", "free"):
            return "true"
        if value == "no":
            return "false"
    if slot == "hotel-type":
        if value == "hotel":
            return "true"
        if value == "guest house":
            return "false"
    return value


def has_run(tokens: list[str], wanted: list[str]) -> bool:
    """``wanted`` as a run of consecutive ``tokens`` (an empty run is in every list): TripPy's
    ``get_token_pos`` / ``is_in_list`` test."""
    width = len(wanted)
    return any(tokens[i:i + width] == wanted for i in range(len(tokens) + 1 - width))


def _occurs(tokens: list[str], value: str) -> bool:
    """``value`` (or one of its label variants) as a token run in ``tokens``."""
    return any(has_run(tokens, split_tokens(candidate))
               for candidate in (value, *LABEL_MAPS.get(value, ())))


_SLOT_SET = frozenset(SLOTS)


def _changes(metadata: Mapping[str, Any], last: dict[str, Any]) -> dict[str, Any]:
    """The slots of one system turn's metadata whose normalised value changed."""
    changed: dict[str, Any] = {}
    for domain, parts in metadata.items():
        booked = parts["book"]["booked"]
        booked_values = ({slot: normalize_label(f"{domain}-{slot}", value)
                          for slot, value in booked[0].items()} if booked != [] else {})
        for part in ("book", "semi"):
            for slot, raw in parts[part].items():
                key = f"{domain}-book_{slot}" if part == "book" else f"{domain}-{slot}"
                value = normalize_label(key, raw)
                if slot in booked_values:
                    value = booked_values[slot]
                if key in _SLOT_SET and last[key] != value:
                    changed[key] = value
                    last[key] = value
    return changed


def dialogue_labels(log: list[Any]) -> list[dict[str, str]]:
    """TripPy's labels ``{slot: value or "none"}`` of each user turn of one ``log``."""
    last = dict.fromkeys(SLOTS, NONE)
    turns: list[tuple[str, dict[str, Any]]] = []
    expect_system = False
    for entry in log:
        is_system = entry["metadata"] != {}
        if is_system != expect_system:
            break  # TripPy: "Wrong order of system and user utterances", rest skipped
        if is_system:
            turns[-1] = (turns[-1][0], _changes(entry["metadata"], last))
        else:
            turns.append((entry["text"], {}))
        expect_system = not expect_system
    if expect_system and turns:  # a user turn without its system turn is no TripPy turn
        turns.pop()
    seen: dict[str, str] = dict.fromkeys(SLOTS, NONE)
    mentioned: set[str] = set()
    out: list[dict[str, str]] = []
    for text, changed in turns:
        tokens: list[str] | None = None
        for slot in SLOTS:  # an unchanged slot keeps its label; a cleared one (none) too
            if slot not in changed or changed[slot] == NONE:
                continue
            value = changed[slot]
            if slot in mentioned and value not in ("dontcare", "true", "false"):
                if tokens is None:
                    tokens = utterance_tokens(text)
                if (_occurs(tokens, value)
                        and sum(1 for v in seen.values() if v == value) > 1):
                    continue  # label_value_repetitions: the value is not taken
            mentioned.add(slot)
            seen[slot] = value
        out.append(dict(seen))
    return out


def trippy_gold(data: Mapping[str, Any], dialogue_ids: Iterable[str], file: str
                ) -> dict[str, tuple[Mapping[str, str], ...]]:
    """``{dialogue_id: (labels of turn 0, ...)}`` (``data`` = the parsed ``data.json``)."""
    out: dict[str, tuple[Mapping[str, str], ...]] = {}
    for dialogue_id in dialogue_ids:
        try:
            labels = dialogue_labels(data[dialogue_id]["log"])
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            raise GoldDataError(f"TripPy's reader cannot read this dialogue ({exc!r})",
                                file=file, dialogue=dialogue_id) from None
        out[dialogue_id] = tuple(MappingProxyType(turn) for turn in labels)
    return out


_REBUILT = RebuiltGold(trippy_gold, profile="trippy", anchor="TripPy")


def load_for(gold_set: GoldSet) -> Mapping[str, tuple[Mapping[str, str], ...]]:
    """TripPy's labels for the dialogues of ``gold_set``, read again from the
    MultiWOZ 2.0/2.1/2.4 ``data.json`` it was loaded from (bytes checked against the
    loader's digest, kept per content: :mod:`.rebuilt`); other gold is an error."""
    if corpus_config(gold_set.corpus).name != DATA_JSON_CORPUS:
        raise GoldDataError("the trippy profile rebuilds TripPy's labels from a MultiWOZ "
                            "2.0/2.1/2.4 data.json; this gold is another corpus",
                            file=gold_set.source)
    return _REBUILT(gold_set)
