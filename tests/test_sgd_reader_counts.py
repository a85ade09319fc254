"""The SGD-style reader's cheap counts against independent computations.

:mod:`dst_eval.predictions.duplicates` counts the quotes of the ``slot_values`` objects with
one count over their joined texts, the reader tells a state with one value per slot by
two C-level passes, and :class:`ValueTally` formats a detail given as a callable only for
the first problem of its kind. Each is compared here with the plain per-item computation
on seeded random inputs that exercise its edge cases (escaped quotes, backslashes, braces
and the name ``slot_values`` inside values, empty and hedged value lists).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from dst_eval.predictions.duplicates import _raw_slot_values
from dst_eval.predictions.sgd_frames import read_sgd_frame_predictions
from dst_eval.predictions.value_tally import ValueTally

_PIECES = list('ab }{"\\:,[]é\u2028') + ["slot_values", '"slot_values"']


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(_PIECES) for _ in range(rng.randrange(6)))


def _per_chunk(data: bytes) -> tuple[int, int]:
    """The count as first written: per object, quotes up to its first ``}``; -1 when an
    escaped backslash is among them (the count could not tell a closing quote)."""
    chunks = data.split(b'"slot_values"')
    quotes = 0
    for chunk in chunks[1:]:
        end = chunk.find(b"}")
        if b"\\\\" in chunk[:end]:
            return len(chunks) - 1, -1
        here = chunk.count(b'"', 0, end) - chunk.count(b'\\"', 0, end)
        if here % 2:  # cut inside a string
            return len(chunks) - 1, -1
        quotes += here
    return len(chunks) - 1, quotes


@pytest.mark.parametrize(("states", "first", "repeated"), [
    # a "}" inside a string cuts its object's counted text inside that string (an odd
    # number of quotes): two such cuts (odd + odd) made up for a repeated slot and its value
    ([{"a}": ["x"]}, {"b": ["z}"]}], '{"a}": ["x"]}', '{"y": ["1"], "y": ["2"], "a}": ["x"]}'),
    # four values ending in "\\" looked like four escaped quotes to the cheap count
    ([{f"x{i}": ["end\\"]} for i in range(4)], '{"x0": ["end\\\\"]}',
     '{"x0": ["end\\\\"], "y": ["1"], "y": ["2"]}'),
])
def test_a_repeated_slot_is_not_hidden_from_the_cheap_count(tmp_path: Path, states: list,
                                                            first: str, repeated: str) -> None:
    """The first value of the repeated slot was dropped without a ``duplicate_key``."""
    turns = [{"speaker": "USER", "utterance": "u", "frames": [
        {"service": "s", "state": {"slot_values": values}}]} for values in states]
    text = json.dumps([{"dialogue_id": "d1", "turns": turns}]).replace(first, repeated, 1)
    assert text.count('"y"') == 2
    path = tmp_path / "p.json"
    path.write_text(text, encoding="utf-8")
    [issue] = [i for i in read_sgd_frame_predictions(path).issues if i.kind == "duplicate_key"]
    assert (issue.dialogue, issue.turn) == ("d1", 0)


def test_slot_value_quotes_match_the_per_object_count() -> None:
    for seed in range(300):
        rng = random.Random(seed)
        states = [{_text(rng): [_text(rng) for _ in range(rng.randrange(3))]
                   for _ in range(rng.randrange(4))} for _ in range(rng.randrange(5))]
        document = [{"dialogue_id": _text(rng), "turns": [
            {"speaker": "USER", "utterance": _text(rng),
             "frames": [{"service": "s", "state": {"slot_values": values}}]}
            for values in states]}]
        data = json.dumps(document, ensure_ascii=rng.random() < 0.5,
                          indent=2 if rng.random() < 0.3 else None).encode()
        assert _raw_slot_values(data) == _per_chunk(data), seed


@pytest.mark.parametrize("first", range(0, 100, 10))
def test_states_hedges_and_empty_lists(tmp_path: Path, first: int) -> None:
    for seed in range(first, first + 10):
        _check_states(tmp_path / f"{seed}.json", random.Random(seed))


def _check_states(path: Path, rng: random.Random) -> None:
    """Random states of one dialogue read back: flat states, ``written`` and issues."""
    states = [{slot: [rng.choice(["x", "y", ""]) for _ in range(rng.choice([0, 1, 1, 1, 2, 3]))]
               for slot in rng.sample("abcd", rng.randrange(5))}
              for _ in range(rng.randrange(1, 7))]
    path.write_text(json.dumps([{"dialogue_id": "d", "turns": [
        {"speaker": "USER", "frames": [{"service": "S", "state": {
            "slot_values": values, "active_intent": "I", "requested_slots": []}}]}
        for values in states]}]))
    read = read_sgd_frame_predictions(path)
    for values, turn in zip(states, read.dialogues["d"], strict=True):
        assert dict(turn.state) == {f"S-{slot}": v[0] for slot, v in values.items() if v}
        written = turn.frames[0].written
        empty = {f"S-{slot}": [] for slot, v in values.items() if not v}
        assert (dict(written) if written is not None else {}) == empty
    issues = {issue.kind: issue for issue in read.issues}
    hedged = [(i, slot, v) for i, values in enumerate(states) for slot, v in values.items()
              if len(v) > 1]
    empty = [slot for values in states for slot, v in values.items() if not v]
    assert ("hedged_value" in issues) == bool(hedged)
    assert ("empty_value_list" in issues) == bool(empty)
    if hedged:
        turn, slot, values = hedged[0]
        issue = issues["hedged_value"]
        assert issue.turn == turn
        assert issue.message.startswith(f"{len(hedged):,} slots with several")
        assert issue.message.endswith(f"first: slot {slot!r}: {list(values[:3])!r}")


def test_a_callable_detail_is_formatted_for_the_first_problem_only() -> None:
    calls: list[int] = []

    def detail(n: int):
        return lambda: calls.append(n) or f"detail {n}"

    lazy, eager = ValueTally(), ValueTally()
    for tally in (lazy, eager):
        tally.file = "f.json"
    for n, (dialogue, turn) in enumerate([("a", 0), ("a", 0), ("a", 1), ("b", 0)]):
        lazy.add("hedged_value", dialogue, turn, detail(n))
        eager.add("hedged_value", dialogue, turn, f"detail {n}")
    assert calls == [0]
    assert lazy.issues() == eager.issues()
