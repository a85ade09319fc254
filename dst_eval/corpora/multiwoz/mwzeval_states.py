"""Read an mwzeval gold-states file into a MultiWOZ 2.2 :class:`~dst_eval.gold.GoldSet`.

mwzeval builds its DST gold (``gold_states.json``) from MultiWOZ 2.2 on first use and
caches it; ``reference/mwzeval/approx_gold_states_mwz21_test.json`` is the same format
built from MultiWOZ 2.1. The format is one list per dialogue, one state per *system*
turn (= per user turn), already mwzeval-normalised::

    {"sng0073": [{"taxi": {"destination": "pizza hut fenditton", "leave": "17:15"}}, ...], ...}

Mapping to the canonical gold model:

* dialogue ids are kept as given (mwzeval: lower-case, no ``.json``; matching with
  predictions is case-insensitive anyway); ``turn_index`` = position in the list;
  ``user_utterance`` is ``""`` (the file has no text);
* keys become canonical MultiWOZ 2.2 keys ``"domain-slot"``: the slot name goes through
  mwzeval's key normalisation (lower-case, spaces removed) and then back to the 2.2
  spelling -- ``leave`` -> ``leaveat``, ``arrive`` -> ``arriveby``; every other name is
  already the 2.2 one (``bookday``, ``bookpeople``, ``bookstay``, ``booktime``, ``day``,
  ``pricerange`` ...). The ``mwzeval`` profile maps them back exactly, so
  ``--gold <file> --profile mwzeval`` reproduces mwzeval's DST;
* each value becomes a one-variant tuple, kept exactly as written (the file holds
  mwzeval-normalised values; the mwzeval rules are idempotent on them). mwzeval
  already dropped ``dontcare`` slots from its gold, so such a file cannot tell the
  strict profile about them;
* ``services`` = the domains with a non-empty state; ``GoldSet.corpus`` is
  ``"multiwoz22"``; the file does not say its split, so ``split`` is a label
  (train/dev/test, ``val`` = dev; noted in the result) and ``GoldSet.files`` holds the file
  for the signature's gold digest.

The module exposes the loader interface (``sniff(path)``, ``load(path, *, split=None)``).
Malformed input raises :class:`~dst_eval.errors.GoldDataError` naming file, dialogue, turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from dst_eval.corpora.layout import SPLIT_WORDS, FileLog, split_label_note
from dst_eval.corpora.multiwoz.mwzeval_rules import canonical_slot_name, normalize_slot_name
from dst_eval.errors import GoldDataError, UsageError
from dst_eval.gold import GoldDialogue, GoldSet, GoldTurn, freeze_state
from dst_eval.jsonio import read_json

CORPUS = "multiwoz22"
_SNIFF_TURNS = 50


def canonical_key(domain: str, mwzeval_slot: str) -> str:
    """Canonical 2.2 key of an mwzeval ``(domain, slot)``: (train, leave) -> ``train-leaveat``."""
    return f"{domain}-{canonical_slot_name(normalize_slot_name(mwzeval_slot))}"


def looks_like_mwzeval_states(data: Any) -> bool:
    """True for ``{id: [{domain: {slot: str}}]}``; False for mwzeval *predictions* (turns with
    ``response``/``state`` keys) and anything else. Looks at the first dialogues only."""
    if not isinstance(data, dict) or not data:
        return False
    seen_slot = False
    checked = 0
    for turns in data.values():
        if not isinstance(turns, list):
            return False
        for turn in turns:
            if not isinstance(turn, dict):
                return False
            for domain_state in turn.values():
                if not isinstance(domain_state, dict):
                    return False  # e.g. a prediction turn's "response" string
                if any(not isinstance(v, str) for v in domain_state.values()):
                    return False
                seen_slot = seen_slot or bool(domain_state)
            checked += 1
            if checked >= _SNIFF_TURNS and seen_slot:
                return True
    return seen_slot


def sniff(path: str | Path) -> bool:
    path = Path(path)
    if not path.is_file() or path.suffix not in (".json", ".zip"):
        return False
    try:
        return looks_like_mwzeval_states(read_json(path))
    except GoldDataError:
        return False


def load(path: str | Path, *, split: str | None = None) -> GoldSet:
    """Read the file at ``path`` (``.json`` or a ``.zip`` holding one) into a GoldSet."""
    path = Path(path)
    if split is not None:
        if split.lower() not in SPLIT_WORDS:
            raise UsageError(f"unknown MultiWOZ split {split!r}; use train, dev (val) or test")
        split = SPLIT_WORDS[split.lower()]
    log = FileLog()
    gold = states_to_goldset(log.read_json(path), source=str(path), split=split)
    return replace(gold, files=log.files,
                   notes=(split_label_note(split),) if split is not None else ())


def states_to_goldset(data: Any, *, source: str, split: str | None = None) -> GoldSet:
    """Convert already-parsed mwzeval states ``{id: [{domain: {slot: value}}]}``."""
    if not isinstance(data, dict):
        raise GoldDataError(
            f"expected an mwzeval states object {{dialogue_id: [states]}}, "
            f"found a JSON {type(data).__name__}", file=source,
        )
    if not data:
        raise GoldDataError("the mwzeval states file holds no dialogue", file=source)
    dialogues = []
    for dialogue_id, turns in data.items():
        if not isinstance(turns, list):
            raise GoldDataError(
                f"expected a list of turn states, found a JSON {type(turns).__name__}",
                file=source, dialogue=dialogue_id,
            )
        gold_turns = tuple(
            _turn(turn, source, dialogue_id, index) for index, turn in enumerate(turns)
        )
        services = sorted({s for t in gold_turns for s in t.services})
        dialogues.append(GoldDialogue(dialogue_id, gold_turns, services=tuple(services)))
    return GoldSet(corpus=CORPUS, split=split, dialogues=tuple(dialogues), source=source)


def _turn(turn: Any, source: str, dialogue_id: str, index: int) -> GoldTurn:
    if not isinstance(turn, Mapping):
        raise GoldDataError(
            f"a turn state must be an object {{domain: {{slot: value}}}}, "
            f"found a JSON {type(turn).__name__}", file=source, dialogue=dialogue_id, turn=index,
        )
    state: dict[str, tuple[str, ...]] = {}
    services = []
    for domain, slots in turn.items():
        if not isinstance(slots, Mapping):
            raise GoldDataError(
                f"domain {domain!r}: expected an object {{slot: value}}, "
                f"found a JSON {type(slots).__name__}", file=source, dialogue=dialogue_id,
                turn=index,
            )
        if "-" in domain:
            raise GoldDataError(
                f"domain name {domain!r} contains '-'", file=source, dialogue=dialogue_id,
                turn=index,
            )
        if slots:
            services.append(domain)
        for slot, value in slots.items():
            if not isinstance(value, str):
                raise GoldDataError(
                    f"slot {domain}-{slot}: value must be a string, "
                    f"found a JSON {type(value).__name__}", file=source, dialogue=dialogue_id,
                    turn=index,
                )
            key = canonical_key(domain, slot)
            if key in state:
                raise GoldDataError(
                    f"slot {domain}-{slot} repeats {key} (two spellings of one slot)",
                    file=source, dialogue=dialogue_id, turn=index,
                )
            state[key] = (value,)
    return GoldTurn(
        dialogue_id=dialogue_id, turn_index=index, user_utterance="",
        state=freeze_state(state), services=tuple(services),
    )
