"""Round trips of the output adapters on MultiWOZ 2.1 test (1,000 dialogues, 7,372 turns).

The gold is written in each system's own layout (as the format's definition says the
system writes it, with the gold where the format carries one), read back by the adapter
and scored: every format must reach JGA = slot F1 = 1.0 under ``strict`` with full
coverage, by construction. The converters below are ours, written from each format's
definition (see the adapter modules' docstrings).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dst_eval.api import evaluate
from dst_eval.corpora import load_gold
from dst_eval.errors import PredictionError
from dst_eval.gold import GoldSet
from dst_eval.predictions.reader import detect_format
from dst_eval.slotkeys import split_slot_key

N_TURNS = 7372  # MultiWOZ 2.1 test: evaluable (user) turns of the 1,000 dialogues

# our canonical slot names -> the spellings the systems write
TRADE_SLOTS = {"bookpeople": "book people", "bookday": "book day", "booktime": "book time",
               "bookstay": "book stay"}
TRIPPY_SLOTS = {"bookpeople": "book_people", "bookday": "book_day", "booktime": "book_time",
                "bookstay": "book_stay", "leaveat": "leaveAt", "arriveby": "arriveBy"}
UNIFIED_SLOTS = {"bookpeople": "book people", "bookday": "book day", "booktime": "book time",
                 "bookstay": "book stay", "leaveat": "leave at", "arriveby": "arrive by",
                 "pricerange": "price range"}


@pytest.fixture(scope="module")
def gold(shared_dir: Path) -> GoldSet:
    return load_gold(shared_dir / "corpora" / "multiwoz21" / "test.json.zip",
                     corpus="multiwoz21")


def _slots(gold: GoldSet) -> list[str]:
    return sorted({key for d in gold for t in d.turns for key in t.state})


def _items(state, names: dict[str, str], sep: str) -> list[str]:
    out = []
    for key, variants in state.items():
        domain, slot = split_slot_key(key)
        out.append(f"{domain}{sep}{names.get(slot, slot)}{sep}{variants[0]}")
    return out


def _spelled(key: str, names: dict[str, str]) -> tuple[str, str]:
    domain, slot = split_slot_key(key)
    return domain, names.get(slot, slot)


def write_trade(gold: GoldSet) -> dict:
    return {f"{d.dialogue_id}.json": {
        str(i): {"turn_belief": _items(t.state, TRADE_SLOTS, "-"),
                 "pred_bs_ptr": _items(t.state, TRADE_SLOTS, "-")}
        for i, t in enumerate(d.turns)} for d in gold}


def write_somdst(gold: GoldSet) -> dict:
    return {f"{d.dialogue_id}.json_{i}": [_items(t.state, TRADE_SLOTS, "-"),
                                          _items(t.state, TRADE_SLOTS, "-")]
            for d in gold for i, t in enumerate(d.turns)}


def write_trippy(gold: GoldSet) -> list:
    slots = _slots(gold)
    records = []
    for d in gold:
        for i, t in enumerate(d.turns):
            record: dict = {"guid": ["test", f"{d.dialogue_id}.json", str(i)]}
            for key in slots:
                name = "-".join(_spelled(key, TRIPPY_SLOTS))
                value = t.state[key][0] if key in t.state else "none"
                record[f"class_prediction_{name}"] = 2 if key in t.state else 0
                record[f"slot_prediction_{name}"] = value
                record[f"slot_groundtruth_{name}"] = value
            records.append(record)
    return records


def write_simpletod(gold: GoldSet) -> dict:
    out = {}
    for d in gold:
        beliefs = [_items(t.state, TRADE_SLOTS, " ") or [""] for t in d.turns]
        out[f"{d.dialogue_id}.json"] = {"generated_turn_belief": beliefs,
                                        "target_turn_belief": beliefs,
                                        "generated_response": ["" for _ in d.turns]}
    return out


def write_icdst(gold: GoldSet) -> list:
    records = []
    for d in gold:
        for i, t in enumerate(d.turns):
            state = {"-".join(_spelled(k, TRADE_SLOTS)): v[0] for k, v in t.state.items()}
            records.append({"ID": f"{d.dialogue_id}.json", "turn_id": i, "domains": [],
                            "pred": state, "slot_values": state, "completion": ""})
    return records


def write_ldst(gold: GoldSet) -> str:
    slots = _slots(gold)
    lines = []
    for d in gold:
        for i, t in enumerate(d.turns):
            for key in slots:
                domain, slot = _spelled(key, TRADE_SLOTS)
                value = t.state[key][0] if key in t.state else "NONE"
                lines.append(f"data.json|||{d.dialogue_id}.json|||{2 * i + 1}|||0|||{domain}"
                             f"|||{slot}|||{[value]!r}")
    return "\n".join(lines) + "\n"


def write_convlab(gold: GoldSet, *, ids: bool) -> list:
    slots = _slots(gold)
    samples = []
    for d in gold:
        for i, t in enumerate(d.turns):
            state: dict = {}
            for key in slots:
                domain, slot = _spelled(key, UNIFIED_SLOTS)
                state.setdefault(domain, {})[slot] = t.state[key][0] if key in t.state else ""
            sample: dict = {"utt_idx": 2 * i, "speaker": "user", "utterance": "",
                            "state": state, "predictions": {"state": state}}
            if ids:
                sample["dialogue_id"] = f"{d.dialogue_id}.json"
            samples.append(sample)
    return samples


def write_jmultiwoz(gold: GoldSet) -> dict:
    out = {}
    for d in gold:
        turns = []
        for i, t in enumerate(d.turns):
            belief: dict = {}
            for key, variants in t.state.items():
                domain, slot = split_slot_key(key)
                belief.setdefault(domain, {})[slot] = variants[0]
            turns.append({"turn_id": 2 * i, "speaker": "USER", "utterance": t.user_utterance})
            turns.append({"turn_id": 2 * i + 1, "speaker": "SYSTEM", "utterance": "ok",
                          "dialogue_state": {"belief_state": belief, "book_state": {}}})
        out[d.dialogue_id] = {"turns": turns}
    return out


LAYOUTS = {
    "trade": ("all_prediction_TRADE.json", write_trade),
    "somdst": ("preds_29.json", write_somdst),
    "trippy": ("pred_res.test.final.json", write_trippy),
    "simpletod": ("simpletod_test.json", write_simpletod),
    "icdst": ("running_log.json", write_icdst),
    "ldst": ("results.txt", write_ldst),
    "convlab": ("predictions.json", lambda gold: write_convlab(gold, ids=True)),
    "convlab-order": ("predictions.json", lambda gold: write_convlab(gold, ids=False)),
    "jmultiwoz-inference": ("e2e.inference.json", write_jmultiwoz),
}


def _write(tmp_path: Path, name: str, gold: GoldSet) -> Path:
    filename, writer = LAYOUTS[name]
    content = writer(gold)
    path = tmp_path / filename
    path.write_text(content if isinstance(content, str) else json.dumps(content),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_gold_in_the_systems_layout_scores_one(tmp_path, gold, name):
    path = _write(tmp_path, name, gold)
    fmt = name.removesuffix("-order")
    assert detect_format(path) == fmt
    result = evaluate(path, gold=gold)
    assert result.signature.profile == "strict"
    assert result.scores["joint_goal_accuracy"] == 1.0
    assert result.scores["slot_f1"] == 1.0
    assert result.coverage["gold_turns"] == N_TURNS
    assert result.coverage["coverage"] == 1.0
    assert result.coverage["extra_turns"] == result.coverage["extra_dialogues"] == 0
    assert not [i for i in result.issues if i.kind == "embedded_gold_mismatch"]
    forced = evaluate(path, gold=gold, pred_format=fmt)
    assert forced.scores["joint_goal_accuracy"] == 1.0


def _first_key_twice(value) -> str:
    """``value`` as JSON text whose first object (depth first) gives its first key twice
    (the second time with its value as given)."""
    if isinstance(value, dict) and value:
        first, *rest = value.items()
        return "{" + ", ".join([f"{json.dumps(first[0])}: {_first_key_twice(first[1])}",
                                f"{json.dumps(first[0])}: {json.dumps(first[1])}",
                                *(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in rest)]) + "}"
    if isinstance(value, list) and value:
        return "[" + ", ".join([_first_key_twice(value[0]),
                                *(json.dumps(v) for v in value[1:])]) + "]"
    return json.dumps(value)


@pytest.mark.parametrize("name", sorted(set(LAYOUTS) - {"ldst"}))
def test_a_key_given_twice_in_a_systems_output_is_refused(tmp_path, gold, name):
    """A repeated key of a system's own JSON output -- a dialogue, a turn or a slot, by
    format -- was read as its last copy without a word (the MultiWOZ 2.1 sample: JGA 33.33
    -> 0.00, exit 0 under --strict)."""
    filename, writer = LAYOUTS[name]
    text = _first_key_twice(writer(gold))
    path = tmp_path / filename
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PredictionError, match="is given 2 times in .*; a JSON object keeps "
                       "only the last one"):
        evaluate(path, gold=gold)


@pytest.mark.parametrize("digit", ["\u00b2", "\u0661", "\uff11"])
def test_a_turn_index_in_other_digits_is_refused(tmp_path, gold, digit):
    """``str.isdigit`` takes "²", "١" and "１": "²" ended in an internal error (exit 1), the
    others were read as turn 1 without a word."""
    trade = write_trade(gold)
    dialogue = next(iter(trade))
    turns = trade[dialogue]
    turns[digit] = turns.pop(next(iter(turns)))
    path = tmp_path / "all_prediction_TRADE.json"
    path.write_text(json.dumps(trade), encoding="utf-8")
    with pytest.raises(PredictionError, match=f"turn key '{digit}': the turn index must be"):
        evaluate(path, gold=gold)


def _null_trade(content: dict) -> None:
    next(iter(next(iter(content.values())).values()))["turn_belief"] = None


def _null_somdst(content: dict) -> None:
    next(iter(content.values()))[1] = None


def _null_simpletod(content: dict) -> None:
    next(iter(content.values()))["target_turn_belief"] = "x"


@pytest.mark.parametrize(("name", "damage"), [
    ("trade", _null_trade), ("somdst", _null_somdst), ("simpletod", _null_simpletod)])
def test_a_systems_own_gold_that_cannot_be_read_is_reported(tmp_path, gold, name, damage):
    """The gold a TRADE, SOM-DST or SimpleTOD file carries checks that the file is aligned
    with the gold data; one of another type was skipped without a word."""
    filename, writer = LAYOUTS[name]
    content = writer(gold)
    damage(content)
    path = tmp_path / filename
    path.write_text(json.dumps(content), encoding="utf-8")
    result = evaluate(path, gold=gold, pred_format=name)
    assert result.scores["joint_goal_accuracy"] == 1.0
    [issue] = [i for i in result.issues if i.kind == "embedded_gold_unreadable"]
    assert issue.message.endswith("the file's own gold for this turn is not compared with "
                                  "the gold data")


def test_order_alignment_refuses_shifted_samples(tmp_path, gold):
    samples = write_convlab(gold, ids=False)
    first = len(next(iter(gold)).turns)
    path = tmp_path / "predictions.json"
    path.write_text(json.dumps(samples[first:]), encoding="utf-8")  # first dialogue dropped
    with pytest.raises(PredictionError, match="not in the gold split's order|differs"):
        evaluate(path, gold=gold)


def test_trade_embedded_gold_shifted_by_one_turn_is_refused(tmp_path, gold):
    content = write_trade(gold)
    for turns in content.values():  # the file's gold moved one turn later: misaligned
        beliefs = [turns[str(i)]["turn_belief"] for i in range(len(turns))]
        for i in range(len(turns)):
            turns[str(i)]["turn_belief"] = beliefs[i - 1] if i else ["hotel-area-north"]
    path = tmp_path / "all_prediction_TRADE.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(PredictionError, match="not aligned with this gold"):
        evaluate(path, gold=gold)


def test_shards_of_the_gold_score_one(tmp_path, gold):
    records = write_icdst(gold)
    half = len(records) // 2
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "running_log_0.json").write_text(json.dumps(records[:half]), encoding="utf-8")
    (shards / "running_log_1.json").write_text(json.dumps(records[half:]), encoding="utf-8")
    for source in (shards, shards / "running_log_*.json"):
        result = evaluate(source, gold=gold)
        assert result.scores["joint_goal_accuracy"] == 1.0
        assert result.coverage["coverage"] == 1.0
