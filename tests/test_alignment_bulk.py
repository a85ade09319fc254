"""The bulk check of alignment's common case (dst_eval.alignment_bulk) against the
turn-by-turn checks: the same pairs, issues and errors on random inputs (fixed seeds)
that mix fitting predictions with every kind of problem the checks report."""

from __future__ import annotations

import random
from types import MappingProxyType

import msgspec
import pytest

import dst_eval.alignment as alignment_module
import dst_eval.alignment_bulk as alignment_bulk
from dst_eval.alignment import align
from dst_eval.alignment_bulk import turns_to_check
from dst_eval.errors import PredictionError
from dst_eval.gold import GoldDialogue, GoldFrame, GoldSet, GoldTurn, freeze_state
from dst_eval.predictions.model import Issue, PredFrame, PredictionSet, PredTurn

GOLD_KEYS = ("hotel-area", "hotel-name", "train-day")
PRED_KEYS = (*GOLD_KEYS, "Hotel-area", "hotel-foo", "taxi-leave")
GOLD_VALUES = ("north", "a|b", "x")
PRED_VALUES = ("north", "a|b", " A|B ", "n|s", "x", 3, ["x", "y"], None)
SERVICES = ("hotel", "train", "Hotel", "taxi")


def _gold_turn(dialogue: str, index: int, state: dict, services: tuple) -> GoldTurn:
    frozen = freeze_state({k: (v,) for k, v in state.items()})
    frames = tuple(GoldFrame(s, "NONE", (), MappingProxyType({}), ()) for s in services)
    return GoldTurn(dialogue, index, "user", frozen, frames=frames)


def _gold_set(rng: random.Random) -> GoldSet:
    dialogues = []
    for n in range(rng.randint(1, 3)):
        turns = tuple(_gold_turn(
            f"d{n}", i,
            {k: rng.choice(GOLD_VALUES) for k in rng.sample(GOLD_KEYS, rng.randint(0, 2))},
            tuple(rng.sample(("hotel", "train"), rng.randint(0, 2))))
            for i in range(rng.randint(1, 3)))
        dialogues.append(GoldDialogue(f"d{n}", turns))
    return GoldSet(corpus="multiwoz22", split="test", source="hand-made",
                   dialogues=tuple(dialogues))


def _pred_turn(rng: random.Random, plain: bool) -> PredTurn:
    """A random predicted turn; ``plain``: mostly turns that have nothing to report."""
    if not plain and rng.random() < 0.1:
        return PredTurn()
    keys, values = (GOLD_KEYS, GOLD_VALUES) if plain and rng.random() < 0.9 else (
        PRED_KEYS, PRED_VALUES)
    state = {k: rng.choice(values) for k in rng.sample(keys, rng.randint(0, 3))}
    requested = rng.choice((None, frozenset(rng.sample(keys, rng.randint(0, 2)))))
    intents = rng.choice((None, MappingProxyType(
        {d: "find" for d in rng.sample(SERVICES[:2] if plain else SERVICES, rng.randint(0, 2))})))
    frames = rng.choice((None, tuple(PredFrame(s, None, None, MappingProxyType({}))
                                     for s in rng.sample(SERVICES, rng.randint(0, 2)))))
    return PredTurn(state=MappingProxyType(state), requested_slots=requested,
                    active_intents=intents, frames=frames)


def _case(rng: random.Random) -> tuple[GoldSet, PredictionSet]:
    gold = _gold_set(rng)
    plain = rng.random() < 0.5
    predicted = {}
    for dialogue in gold:
        if not plain and rng.random() < 0.1:
            continue  # a missing dialogue
        count = len(dialogue.turns) + (rng.choice((-1, 1)) if rng.random() < 0.15 else 0)
        name = dialogue.dialogue_id.upper() if rng.random() < 0.3 else dialogue.dialogue_id
        turns = [_pred_turn(rng, plain) for _ in range(count)]
        if plain and rng.random() < 0.7:  # frames of the gold turn's services
            turns = [msgspec.structs.replace(p, frames=tuple(
                PredFrame(f.service, None, None, MappingProxyType({})) for f in g.frames))
                for p, g in zip(turns, dialogue.turns, strict=False)]
        predicted[name] = turns
    if rng.random() < 0.1:
        predicted["extra"] = [PredTurn(state=MappingProxyType({}))]
    issues = [Issue("hedged_value", "slot hotel-area: held '|'", file="p", dialogue="d0",
                    turn=0)] if rng.random() < 0.3 else []
    return gold, PredictionSet("p.json", "mwzeval", predicted, issues)


def _outcome(gold: GoldSet, predictions: PredictionSet, strict: bool):
    try:
        a = align(gold, predictions, strict=strict)
    except PredictionError as error:
        return str(error)
    return (a.pairs.predicted, a.issues, a.issue_details, a.missing_dialogues,
            a.extra_dialogues, a.n_missing_turns, a.n_extra_turns)


@pytest.mark.parametrize("block", [alignment_bulk._BLOCK, 2])  # 2: many blocks
@pytest.mark.parametrize("seed", range(4))
def test_bulk_path_equals_turn_by_turn_path(seed, block, monkeypatch):
    monkeypatch.setattr(alignment_bulk, "_BLOCK", block)
    rng = random.Random(seed)
    for _ in range(300):
        gold, predictions = _case(rng)
        strict = rng.random() < 0.3
        fast = _outcome(gold, predictions, strict)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(alignment_module, "turns_to_check", lambda *args: None)
            slow = _outcome(gold, predictions, strict)
        assert fast == slow


def test_turns_to_check_names_the_turns_holding_a_pipe():
    rng = random.Random(7)
    for _ in range(300):
        states = [{k: rng.choice(("north", "a|b", "", "|", "x|")) for k in
                   rng.sample(GOLD_KEYS, rng.randint(0, 3))} for _ in range(rng.randint(0, 6))]
        preds = [PredTurn(state=MappingProxyType(s)) for s in states]
        gold = [GoldTurn("d", i, "u", MappingProxyType({})) for i in range(len(states))]
        flagged = turns_to_check(gold, preds, frozenset(GOLD_KEYS), frozenset(), True)
        assert flagged == [i for i, s in enumerate(states) if any("|" in v for v in s.values())]


def test_turns_to_check_over_several_blocks():
    """Flags keep their place across blocks of turns; a problem in any block is None."""
    n = 2 * alignment_bulk._BLOCK + 5
    piped = {3, alignment_bulk._BLOCK - 1, alignment_bulk._BLOCK, n - 1}
    preds = [PredTurn(state=MappingProxyType({"hotel-area": "a|b" if i in piped else "x"}))
             for i in range(n)]
    gold = [GoldTurn("d", i, "u", MappingProxyType({})) for i in range(n)]
    known = frozenset(GOLD_KEYS)
    assert turns_to_check(gold, preds, known, frozenset(), True) == sorted(piped)
    preds[n - 2] = PredTurn(state=MappingProxyType({"hotel-foo": "x"}))
    assert turns_to_check(gold, preds, known, frozenset(), True) is None


def test_turns_to_check_refuses_what_needs_a_report():
    gold = [GoldTurn("d", 0, "u", MappingProxyType({}),
                     frames=(GoldFrame("hotel", "NONE", (), MappingProxyType({}), ()),))]
    known = frozenset(GOLD_KEYS)

    def check(**fields) -> list[int] | None:
        fields.setdefault("state", MappingProxyType({"hotel-area": "north"}))
        return turns_to_check(gold, [PredTurn(**fields)], known, frozenset(["hotel"]), True)

    assert check() == []
    assert check(frames=(PredFrame("hotel", None, None, MappingProxyType({})),)) == []
    assert check(state=None) is None
    assert check(state=MappingProxyType({"Hotel-area": "north"})) is None
    assert check(state=MappingProxyType({"hotel-area": 3})) is None
    assert check(requested_slots=frozenset(["hotel-foo"])) is None
    assert check(active_intents=MappingProxyType({"Hotel": "find"})) is None
    assert check(frames=(PredFrame("Hotel", None, None, MappingProxyType({})),)) is None
    assert check(frames=()) is None
