"""The SGD gold builder's per-turn sets (``requested_slots``, ``active_intents``,
``services``), which a one-frame turn takes from a memo keyed by its frame's ``(service,
intent, requested slots)`` (:attr:`~dst_eval.corpora.sgd.build.GoldBuilder.one_frame_sets`),
against the files read with ``json``."""

from __future__ import annotations

import json
from pathlib import Path

from dst_eval.corpora.sgd import loader as sgd
from dst_eval.gold import GoldSet


def _expected(turn: dict) -> tuple[frozenset[str], dict[str, str], tuple[str, ...]]:
    frames = turn["frames"]
    return (frozenset(f"{f['service']}-{slot}" for f in frames
                      for slot in f["state"]["requested_slots"]),
            {f["service"]: f["state"]["active_intent"] for f in frames
             if f["state"]["active_intent"] != "NONE"},
            tuple(f["service"] for f in frames))


def _check(gold: GoldSet, files: list[Path]) -> int:
    """Compare every user turn's sets with ``json``'s; the number of one-frame turns."""
    turns = {(t.dialogue_id, t.turn_index): t for t in gold.turns()}
    one_frame = 0
    for path in files:
        for dialogue in json.loads(path.read_text()):
            user_turns = [t for t in dialogue["turns"] if t["speaker"] == "USER"]
            for index, turn in enumerate(user_turns):
                got = turns.pop((dialogue["dialogue_id"], index))
                requested, active, services = _expected(turn)
                assert got.requested_slots == requested
                assert dict(got.active_intents) == active
                assert got.services == services
                one_frame += len(turn["frames"]) == 1
    assert not turns
    return one_frame


def test_turn_sets_of_sgd_dev_match_the_files(shared_dir: Path, sgd_dev_gold: GoldSet) -> None:
    files = sorted((shared_dir / "corpora" / "sgd" / "dev").glob("dialogues_*.json"))
    one_frame = _check(sgd_dev_gold, files)
    assert 20_000 < one_frame < sgd_dev_gold.n_turns  # both kinds of turn are covered


def _frame(service: str, intent: str, requested: list[str], **values: list[str]) -> dict:
    return {"service": service, "slots": [], "actions": [],
            "state": {"active_intent": intent, "requested_slots": requested,
                      "slot_values": values}}


def test_one_frame_heads_repeated_across_dialogues(tmp_path: Path) -> None:
    """The same head in several dialogues and turns, heads that differ only in the intent
    (``NONE`` is not active) or in the requested slots, and a two-frame turn whose frames
    are one-frame heads elsewhere: each turn gets its own frames' sets."""
    a = _frame("Cafes_1", "FindCafe", ["city"], city=["Paris"])
    a_none = _frame("Cafes_1", "NONE", ["city"], city=["Paris"])
    a_more = _frame("Cafes_1", "FindCafe", ["city", "time"], city=["Paris"])
    b = _frame("Trains_7", "NONE", [], to=["Lyon"])
    dialogues = [
        {"dialogue_id": "d1", "services": ["Cafes_1", "Trains_7"], "turns": [
            {"speaker": "USER", "utterance": "u", "frames": [a]},
            {"speaker": "SYSTEM", "utterance": "s", "frames": []},
            {"speaker": "USER", "utterance": "u", "frames": [a, b]},
            {"speaker": "SYSTEM", "utterance": "s", "frames": []},
            {"speaker": "USER", "utterance": "u", "frames": [b]}]},
        {"dialogue_id": "d2", "services": ["Cafes_1"], "turns": [
            {"speaker": "USER", "utterance": "u", "frames": [a_none]},
            {"speaker": "SYSTEM", "utterance": "s", "frames": []},
            {"speaker": "USER", "utterance": "u", "frames": [a]},
            {"speaker": "SYSTEM", "utterance": "s", "frames": []},
            {"speaker": "USER", "utterance": "u", "frames": [a_more]},
            {"speaker": "SYSTEM", "utterance": "s", "frames": []},
            {"speaker": "USER", "utterance": "u", "frames": [b, a]}]},
    ]
    path = tmp_path / "dialogues_001.json"
    path.write_text(json.dumps(dialogues))
    gold = sgd.load(path)
    assert _check(gold, [path]) == 5
    first, again = gold.dialogues[0].turns[0], gold.dialogues[1].turns[1]
    assert first.requested_slots is again.requested_slots  # one object per distinct set
