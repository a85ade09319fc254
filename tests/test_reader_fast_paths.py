"""The turn reader's fast paths against independent computations.

A turn object holding only ``state`` takes a shorter path than one with more keys, and
spelled slot keys are memoised per domain; seeded random states (nested, flat and mixed;
odd values, two spellings of one slot, domains spelled two ways) must read the same either
way, and plain states must equal the keys spelled one by one.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from dst_eval.errors import PredictionError
from dst_eval.predictions.reader import predictions_from_object
from dst_eval.slotkeys import canonical_slot_key, split_slot_key

DOMAINS = ["hotel", "Hotel", "train", "restaurant", " taxi"]
SLOTS = ["area", "price range", "pricerange", "leaveAt", "book day", "day", "people"]
PLAIN = ["cheap", "", "none", "dontcare", " north ", "18:00"]
ODD: list[Any] = [None, 3, 2.5, True, [], ["a"], ["a", "b"], "north|south", {"x": 1}]


def _state(rng: random.Random, odd: bool) -> dict[str, Any]:
    values = PLAIN + ODD * odd
    state: dict[str, Any] = {}
    for _ in range(rng.randint(0, 4)):
        domain = rng.choice(DOMAINS)
        if rng.random() < 0.3:  # flat
            state[f"{domain}-{rng.choice(SLOTS)}"] = rng.choice(values)
        else:
            state[domain] = {slot: rng.choice(values)
                             for slot in rng.sample(SLOTS, rng.randint(0, 3))}
    return state


def _read(doc: dict) -> Any:
    try:
        return predictions_from_object(doc, corpus="multiwoz21")
    except PredictionError as exc:
        return str(exc)


def _plain(state: dict[str, Any]) -> dict[str, str]:
    """The state of plain string values with its keys spelled one by one (first wins)."""
    out: dict[str, str] = {}
    for outer, inner in state.items():
        if type(inner) is dict:
            pairs = [(canonical_slot_key(outer, slot, "multiwoz21"), value)
                     for slot, value in inner.items()]
        else:
            pairs = [(canonical_slot_key(*split_slot_key(outer), "multiwoz21"), inner)]
        for key, value in pairs:
            out.setdefault(key, value)
    return out


@pytest.mark.parametrize("seed", range(20))
def test_state_only_turns_read_as_turns_with_more_keys(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(20):
        odd = rng.random() < 0.5
        states = {f"D{d}": [_state(rng, odd) for _ in range(rng.randint(1, 4))]
                  for d in range(3)}
        short = _read({d: [{"state": s} for s in turns] for d, turns in states.items()})
        long = _read({d: [{"state": s, "active_domains": None} for s in turns]
                      for d, turns in states.items()})
        if isinstance(short, str):
            assert short == long
            continue
        assert short.dialogues == long.dialogues
        assert short.issues == long.issues
        if not odd:
            for dialogue, turns in states.items():
                for turn, state in zip(short.dialogues[dialogue], turns, strict=True):
                    assert dict(turn.state) == _plain(state)
