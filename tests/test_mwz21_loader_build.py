"""MultiWOZ 2.1 ``data.json`` loader: its fast build paths against independent computations.

The loader shares work between turns and dialogues (a domain's metadata is read once per
distinct content, a turn whose metadata repeats the previous one shares its state, the first
turn is compared with the previous dialogue's first turn, services are derived once per key
set) and decodes ``span_info`` straight into tuples. Here seeded random ``data.json`` files
-- repeated and changing metadata, domains whose names clash once canonical, odd slot and
domain spellings, every kind of JSON in ``span_info`` -- are loaded and every turn is
compared with the module docstring's rules computed plainly from the parsed JSON.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from dst_eval.corpora.multiwoz import loader21
from dst_eval.errors import GoldDataError

DOMAINS = ["hotel", "train", "taxi", "Hotel ", "restaurant", "police"]
SLOTS = {  # spellings of MultiWOZ's slots per domain and part
    "hotel": {"semi": ["area", "price range", "pricerange", "Price Range"],
              "book": ["day", "stay", "people", "Day "]},
    "train": {"semi": ["leaveAt", "leave at", "day", "arriveBy"], "book": ["people"]},
    "taxi": {"semi": ["leaveAt", "destination", "departure"], "book": []},
    "restaurant": {"semi": ["food", "price range", "area"], "book": ["time", "day"]},
    "police": {"semi": [], "book": []},
}
UNKNOWN = "x-y"
"""A slot no domain has, drawn now and then: a value set there is a gold error."""
VALUES = ["", "none", "not mentioned", "Not Mentioned", "cheap", " Cheap ", "dontcare",
          "do n't care", "north|centre", "NONE ", "18:00"]
BOOKED = [[], ["ref"], "", "x", None, 0, [{"name": "a"}]]
EMPTY = {"", "not mentioned", "none"}
DONTCARE = {"dontcare", "dont care", "don't care", "do n't care", "do nt care", "do not care"}


def _domain(rng: random.Random, domain: str) -> dict[str, Any]:
    parts: dict[str, Any] = {}
    for part in rng.sample(["semi", "book"], rng.randint(0, 2)):
        names = SLOTS[domain.strip().lower()][part] + [UNKNOWN] * (rng.random() < 0.03)
        slots = {slot: rng.choice(VALUES)
                 for slot in rng.sample(names, rng.randint(0, min(4, len(names))))}
        if part == "book" and rng.random() < 0.7:
            slots["booked"] = rng.choice(BOOKED)
        parts[part] = slots
    return parts


def _metadata(rng: random.Random, previous: dict | None) -> dict[str, Any]:
    if previous is not None and rng.random() < 0.3:
        return previous  # the same metadata again
    if previous is not None and rng.random() < 0.6:  # one domain changes
        changed = dict(previous)
        domain = rng.choice(DOMAINS)
        changed[domain] = _domain(rng, domain)
        return changed
    return {domain: _domain(rng, domain) for domain in rng.sample(DOMAINS, rng.randint(0, 4))}


def _json_value(rng: random.Random, depth: int = 0) -> Any:
    kinds = ["str", "int", "big", "float", "bool", "null"] + ["list", "dict"] * (depth < 3)
    kind = rng.choice(kinds)
    if kind == "list":
        return [_json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if kind == "dict":
        return {rng.choice("abc"): _json_value(rng, depth + 1) for _ in range(rng.randint(0, 2))}
    return {"str": rng.choice(["inform", "Hotel-Area", "é", ""]), "int": rng.randint(-3, 30),
            "big": 10 ** 30, "float": rng.choice([1.5, -0.0, 1e300, 2.0]), "bool": True,
            "null": None}[kind]


def _data(rng: random.Random) -> dict[str, Any]:
    data = {}
    first = None
    for number in range(rng.randint(1, 5)):
        log = []
        metadata = first if first is not None and rng.random() < 0.5 else None
        for index in range(rng.randint(0, 5)):
            metadata = _metadata(rng, metadata)
            if index == 0:
                first = metadata
            spans = _json_value(rng) if rng.random() < 0.3 else [
                ["Inform", "Area", "east", rng.randint(0, 3), rng.randint(0, 3)]]
            system = {"text": "s", "metadata": metadata}
            if rng.random() < 0.9:
                system["span_info"] = spans
            log += [{"text": "u", "metadata": {}}, system]
        data[f"D{number}.json"] = {"goal": {}, "log": log}
    return data


def _canonical(value: str) -> str | None:
    stripped = value.strip()
    if stripped.lower() in EMPTY:
        return None
    return "dontcare" if stripped.lower() in DONTCARE else stripped


def _expected(dialogue: dict[str, Any]) -> list[dict[str, Any]] | set[str]:
    """Each turn's state, services, belief and booked domains by the docstring's rules; or
    the gold errors: ``"twice"`` when a domain sets one slot twice with different values,
    ``"unknown"`` when a value is set in a slot MultiWOZ does not have."""
    errors: set[str] = set()
    turns = []
    booked: set[str] = set()
    log = dialogue["log"]
    for system in log[1::2]:
        state: dict[str, tuple[str]] = {}
        belief = []
        for domain, parts in system["metadata"].items():
            items: dict[str, tuple[str]] = {}
            annotated = []
            for part in ("semi", "book"):
                for slot, value in parts.get(part, {}).items():
                    if part == "book" and slot == "booked":
                        if value and domain != "taxi":
                            booked.add(domain)
                        continue
                    if value in EMPTY:
                        continue
                    annotated.append(("book" + slot if part == "book" else slot, value))
                    canonical = _canonical(value)
                    if canonical is None:
                        continue
                    if slot == UNKNOWN:
                        errors.add("unknown")
                        continue
                    name = "".join(slot.split()).lower()
                    key = f"{domain.strip().lower()}-{'book' * (part == 'book')}{name}"
                    if items.setdefault(key, (canonical,)) != (canonical,):
                        errors.add("twice")
            state.update(items)
            if annotated:
                belief.append((domain, tuple(annotated)))
        keys = sorted(state)
        turns.append({
            "state": {key: state[key] for key in keys},
            "services": tuple(dict.fromkeys(key.partition("-")[0] for key in keys)),
            "belief": tuple(belief),
            "booked_domains": tuple(d for d in system["metadata"] if d in booked),
        })
    return errors or turns


def _spans(system: dict[str, Any]) -> Any:
    """``span_info`` as :data:`typing.Any` decodes it, its list and inner lists as tuples."""
    spans = system.get("span_info")
    if spans is None:
        return ()
    if type(spans) is list:
        return tuple(tuple(s) if type(s) is list else s for s in spans)
    return spans


def _same(a: Any, b: Any) -> bool:
    """Equal with the same types all the way down (``1 == 1.0 == True`` is not enough)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a == b


@pytest.mark.parametrize("seed", range(40))
def test_build_matches_the_rules_computed_plainly(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    n_loaded = 0
    for case in range(10):
        data = _data(rng)
        file = tmp_path / f"{case}.json"
        file.write_text(json.dumps(data), "utf-8")
        expected = {did: _expected(dialogue) for did, dialogue in data.items()}
        errors = {e for turns in expected.values() if isinstance(turns, set) for e in turns}
        if errors:  # the loader stops at the first one it meets
            messages = {"twice": "is set twice with different values",
                        "unknown": "that MultiWOZ does not have"}
            with pytest.raises(GoldDataError, match="|".join(messages[e] for e in errors)):
                loader21.load(file)
            continue
        n_loaded += 1
        gold = loader21.load(file)
        for did, dialogue in data.items():
            turns = gold.get(did).turns
            assert len(turns) == len(expected[did])
            for turn, want, system in zip(turns, expected[did], dialogue["log"][1::2],
                                          strict=True):
                assert list(turn.state.items()) == list(want["state"].items())
                assert turn.services == want["services"]
                notes = turn.system_annotations
                assert notes["belief"] == want["belief"]
                assert notes["booked_domains"] == want["booked_domains"]
                assert _same(notes["span_info"], _spans(system)), (did, turn.turn_index)
    assert n_loaded >= 4, n_loaded  # most files are gold without errors: the rules are compared
