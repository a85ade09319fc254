"""``--profile trade`` on MultiWOZ 2.1: trade-dst's own gold and ``evaluate_metrics``.

Expected numbers: trade-dst (jasonwu0731/trade-dst b77fcf1) run unmodified on
``../shared/corpora/multiwoz21`` (test and val dialogues as ``data/multi-woz/data.json``,
the list files as ``testListFile.json``/``valListFile.json``, an empty
``dialogue_acts.json``): ``create_data.py`` wrote ``test_dials.json``/``dev_dials.json``
(999 / 998 dialogues: PMUL1455 and PMUL2075 left out); the gold of each turn is
``utils/fix_label.py`` ``fix_general_label_error(belief_state, False, SLOTS)`` with the 30
``get_slot_information`` slots, exactly as ``utils/utils_multiWOZ_DST.py`` ``read_langs``
builds ``turn_belief``; the scores are ``models/TRADE.py`` ``evaluate_metrics`` (with
``compute_acc``/``compute_prf``, extracted unchanged) on the prediction sets below, built
by the same rules from trade-dst's gold. Only the resulting numbers are stored here.

Prediction sets (per turn, from the turn's gold items; ``v`` = an item's value):

* ``oracle``: every gold item except the literal ``none`` ones (what a perfect TRADE
  model writes: its decoder drops ``none``);
* ``raw21``: the MultiWOZ 2.1 values as written (stripped, ``dontcare`` unified: the
  loader's gold), e.g. ``guesthouse`` where trade-dst has ``guest house``;
* ``dropped``: ``oracle`` without the items where ``(turn + len(v)) % 3 == 1``;
* ``extra``: ``oracle`` plus, with ``h = sum(map(ord, dialogue_id)) + turn``:
  ``hotel-area=north`` when ``h % 2 == 0`` and the gold has no hotel-area,
  ``taxi-leaveat=""`` (an empty decoded value) when ``h % 5 == 0`` and the gold has no
  taxi-leaveat, ``hospital-department=cardiology`` when ``h % 7 == 0`` and the gold has
  none, and ``x`` appended to the value that sorts first when ``h % 3 == 0`` and it is unique.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dst_eval import evaluate
from dst_eval.api import gold_digest
from dst_eval.corpora import load_gold
from dst_eval.corpora.multiwoz import trade_gold
from dst_eval.gold import GoldSet

EXPECTED = {
    "test": {
        "oracle": (0.9613192182410424, 0.9983577633007542, 0.9957026830492073),
        "raw21": (0.8293973941368078, 0.9935034382916864, 0.9702562900272644),
        "dropped": (0.18431053203040174, 0.93539178429239, 0.7705455677559659),
        "extra": (0.2949239956568947, 0.9655220774519929, 0.8488590187496523),
    },
    "dev": {
        "oracle": (0.972131593257205, 0.9988444806960264, 0.9957782570183548),
        "raw21": (0.8196030451332246, 0.9932572050026908, 0.9655684476814838),
        "dropped": (0.19371941272430668, 0.9367998912451975, 0.771322104361384),
        "extra": (0.2955410549211528, 0.966295087910041, 0.8463494926401505),
    },
}
"""(Joint Acc, Turn Acc, Joint F1) from trade-dst's ``evaluate_metrics`` (module docstring)."""
TURNS = {"test": 7368, "dev": 7356}
GOLD_ITEMS = {"test": (42198, 363), "dev": (41234, 255)}
"""trade-dst's gold: items, of which literal ``none`` values."""
FILES = {"test": "test.json.zip", "dev": "val.json.zip"}


def _value(item: str, key: str) -> str:
    return item[len(key) + 1:]


def _key(item: str) -> str:
    domain, slot, _ = item.split("-", 2)
    return f"{domain}-{slot}"


def _perturb(kind: str, dialogue_id: str, turn: int, items: frozenset[str],
             raw_state: dict[str, str]) -> dict[str, str]:
    if kind == "raw21":
        return dict(raw_state)
    state = {_key(i): _value(i, _key(i)) for i in items}
    state = {k: v for k, v in state.items() if v != "none"}
    if kind == "dropped":
        return {k: v for k, v in state.items() if (turn + len(v)) % 3 != 1}
    if kind == "extra":
        h = sum(map(ord, dialogue_id)) + turn
        keys = {_key(i) for i in items}
        if h % 2 == 0 and "hotel-area" not in keys:
            state["hotel-area"] = "north"
        if h % 5 == 0 and "taxi-leaveat" not in keys:
            state["taxi-leaveat"] = ""
        if h % 7 == 0 and "hospital-department" not in keys:
            state["hospital-department"] = "cardiology"
        values = sorted(state.values())
        if h % 3 == 0 and values and values.count(values[0]) == 1:
            key = next(k for k, v in state.items() if v == values[0])
            state[key] += "x"
    return state


@pytest.fixture(scope="module", params=["test", "dev"])
def split_gold(request, shared_dir: Path) -> tuple[str, GoldSet, dict]:
    split = request.param
    gold = load_gold(shared_dir / "corpora/multiwoz21" / FILES[split], split=split)
    return split, gold, trade_gold.load_for(gold)


def test_trade_gold_matches_trade_dst_counts(split_gold) -> None:
    split, gold, built = split_gold
    assert len(built) == len(gold) - 1
    assert sum(len(t) for t in built.values()) == TURNS[split]
    items = [i for turns in built.values() for t in turns for i in t]
    assert (len(items), sum(i.endswith("-none") for i in items)) == GOLD_ITEMS[split]
    assert {"PMUL1455", "PMUL2075"} & set(d.dialogue_id for d in gold) - set(built)


@pytest.mark.parametrize("kind", ["oracle", "raw21", "dropped", "extra"])
def test_trade_profile_reproduces_evaluate_metrics(split_gold, kind: str,
                                                   tmp_path: Path) -> None:
    split, gold, built = split_gold
    predictions = {}
    for dialogue in gold:
        turns = built.get(dialogue.dialogue_id)
        predictions[dialogue.dialogue_id] = [
            {"state": _perturb(kind, dialogue.dialogue_id, t.turn_index,
                               turns[t.turn_index] if turns else frozenset(),
                               {k: v[0] for k, v in t.state.items()})}
            for t in dialogue.turns]
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(predictions), "utf-8")
    result = evaluate(path, gold=gold, profile="trade")
    joint, slot_acc, f1 = EXPECTED[split][kind]
    assert result.official["Joint Acc"] == pytest.approx(joint, abs=1e-12)
    assert result.official["Turn Acc"] == pytest.approx(slot_acc, abs=1e-12)
    assert result.official["Joint F1"] == pytest.approx(f1, abs=1e-12)
    assert result.counts["turns"] == TURNS[split]
    assert result.counts["trade_left_out"] == 1
    assert result.signature.as_dict()["gold-as"] == "trade-dst-b77fcf1"
    assert result.signature.as_dict()["gold"] == gold_digest(gold)  # the data it is built from


@pytest.mark.parametrize(("text", "expected"), [
    # outputs of trade-dst's create_data.normalize(text, False), run on these strings
    ("  Nando's 1 2  ", "nando s 12"),
    ("B&B / Guest-House (A)", "bed and breakfast and guest house a"),
    ("restaurants in the centre.", "restaurant -s in the centre ."),
    (".5 star", ". 5 star"),
    ("it's 3.5 stars, isn't it?", "it s 3.5 stars , is not it ?"),
    ('he\'s; "ok"', "he s , ok"),
])
def test_normalize_text_as_trade_dst(text: str, expected: str) -> None:
    assert trade_gold.normalize_text(text) == expected


def test_fix_value_rules() -> None:
    assert trade_gold.fix_value("hotel-type", "guesthouse") == "guest house"
    assert trade_gold.fix_value("hotel-type", "bed and breakfast") == "none"
    assert trade_gold.fix_value("hotel-area", "we") == "west"
    assert trade_gold.fix_value("hotel-book day", "we") == "wednesday"
    assert trade_gold.fix_value("attraction-area", "same area as hotel") == "none"
    assert trade_gold.fix_value("hotel-internet", "free") == "yes"


def test_trade_gold_needs_the_data_json(tmp_path: Path) -> None:
    from dst_eval.errors import GoldDataError
    from dst_eval.gold import GoldDialogue, GoldTurn, freeze_state

    turn = GoldTurn("d1", 0, "u", freeze_state({"hotel-area": ("north",)}))
    gold = GoldSet("multiwoz21", "test", (GoldDialogue("d1", (turn,)),), "<memory>",
                   slots=("hotel-area",))
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"d1": [{"state": {"hotel-area": "north"}}]}), "utf-8")
    with pytest.raises(GoldDataError, match="trade-dst's gold"):
        evaluate(path, gold=gold, profile="trade")


def test_trade_gold_is_rebuilt_from_the_bytes_scored(tmp_path: Path, gold_samples: Path) -> None:
    """The data.json is read again and checked against the loader's digest: a file changed
    since loading is refused, and a rebuilt gold is reused only for the same bytes."""
    from dst_eval.errors import GoldDataError

    sample = gold_samples / "multiwoz21"
    for name in ("data.json", "testListFile", "valListFile"):
        (tmp_path / name).write_bytes((sample / name).read_bytes())
    gold = load_gold(tmp_path / "data.json", split="dev")
    first = trade_gold.load_for(gold)
    assert trade_gold.load_for(gold) is first  # same bytes, same dialogues: built once
    assert sorted(first) == ["SMPL002.json"] and len(first["SMPL002.json"]) == 2
    data = json.loads((tmp_path / "data.json").read_text("utf-8"))
    data["SMPL002.json"]["log"][1]["metadata"]["restaurant"]["semi"]["area"] = "north"
    (tmp_path / "data.json").write_text(json.dumps(data), "utf-8")
    with pytest.raises(GoldDataError, match="changed since the gold was loaded"):
        trade_gold.load_for(gold)
    reloaded = load_gold(tmp_path / "data.json", split="dev")
    rebuilt = trade_gold.load_for(reloaded)
    assert rebuilt is not first and "restaurant-area-north" in rebuilt["SMPL002.json"][0]
    assert "restaurant-area-north" not in first["SMPL002.json"][0]


def _trade_spelling(key: str) -> str:
    domain, slot = key.split("-", 1)
    return f"{domain}-book {slot[4:]}" if slot.startswith("book") else key


@pytest.mark.parametrize("kind", ["oracle", "extra"])
def test_trade_format_file_reproduces_evaluate_metrics(shared_dir: Path, tmp_path: Path,
                                                       kind: str) -> None:
    """An ``all_prediction_TRADE.json`` (``{dialogue: {turn: {"turn_belief",
    "pred_bs_ptr"}}}``, TRADE's slot spelling, TRADE-normalised values) read by the TRADE
    adapter scores trade-dst's numbers under ``--profile trade``."""
    gold = load_gold(shared_dir / "corpora/multiwoz21", split="test")
    built = trade_gold.load_for(gold)
    out: dict[str, dict[str, dict]] = {}
    for dialogue in gold:
        turns = built.get(dialogue.dialogue_id)
        if turns is None:
            continue
        out[dialogue.dialogue_id] = {}
        for t in dialogue.turns:
            state = _perturb(kind, dialogue.dialogue_id, t.turn_index, turns[t.turn_index], {})
            belief = [f"{_trade_spelling(_key(i))}-{_value(i, _key(i))}"
                      for i in sorted(turns[t.turn_index])]
            out[dialogue.dialogue_id][str(t.turn_index)] = {
                "turn_belief": belief,
                "pred_bs_ptr": [f"{_trade_spelling(k)}-{v}" for k, v in state.items()]}
    path = tmp_path / "all_prediction_TRADE.json"
    path.write_text(json.dumps(out), "utf-8")
    result = evaluate(path, gold=gold, profile="trade", pred_format="trade")
    joint, slot_acc, f1 = EXPECTED["test"][kind]
    assert result.official["Joint Acc"] == pytest.approx(joint, abs=1e-12)
    assert result.official["Turn Acc"] == pytest.approx(slot_acc, abs=1e-12)
    assert result.official["Joint F1"] == pytest.approx(f1, abs=1e-12)
    surface = [i for i in result.issues if i.kind == "surface-forms"]
    if kind == "oracle":  # tested against trade-dst's gold, which TRADE's values equal
        assert not surface and result.counts.get("surface_forms:spelling/time") is None
        strict = evaluate(path, gold=gold, pred_format="trade")
        assert [i for i in strict.issues if i.kind == "surface-forms"]  # 2.1's spellings



def _evaluate_metrics(turns: list[tuple[list[str], list[str]]], slots: list[str]
                      ) -> tuple[float, float, float]:
    """trade-dst ``evaluate_metrics`` on ``(turn_belief, pred_bs_ptr)`` lists: joint over
    string sets, ``compute_acc`` (``rsplit("-", 1)``), per-turn F1 (``compute_prf``)."""
    joint = acc = f1 = 0.0
    for gold, pred in turns:
        joint += set(gold) == set(pred)
        missed = [g.rsplit("-", 1)[0] for g in gold if g not in pred]
        wrong = sum(1 for q in pred if q not in gold and q.rsplit("-", 1)[0] not in missed)
        acc += (len(slots) - len(missed) - wrong) / len(slots)
        if gold:
            tp = sum(1 for g in gold if g in pred)
            fp = sum(1 for q in pred if q not in gold)
            fn = len(gold) - tp
            precision = tp / (tp + fp) if tp + fp else 0
            recall = tp / (tp + fn) if tp + fn else 0
            f1 += 2 * precision * recall / (precision + recall) if precision + recall else 0
        else:
            f1 += 1.0 if not pred else 0.0
    n = len(turns)
    return joint / n, acc / n, f1 / n


def test_a_slot_listed_twice_is_two_items_as_in_trade_dst(test_gold, tmp_path: Path) -> None:
    """``pred_bs_ptr`` holding a slot twice (another system writing TRADE's format): both
    items count, as in trade-dst's string sets (one used to be dropped)."""
    gold, built = test_gold
    out: dict[str, dict[str, dict]] = {}
    turns: list[tuple[list[str], list[str]]] = []
    n = 0
    for dialogue in list(gold)[:120]:
        items_of = built.get(dialogue.dialogue_id)
        if items_of is None:
            continue
        out[dialogue.dialogue_id] = {}
        for t in dialogue.turns:
            belief = sorted(items_of[t.turn_index])
            pred = [i for i in belief if not i.endswith("-none")]
            if pred and n % 4 == 0:
                pred.append(pred[0] + "x")  # the same slot again, another value
            n += 1
            out[dialogue.dialogue_id][str(t.turn_index)] = {"turn_belief": belief,
                                                            "pred_bs_ptr": pred}
            turns.append((belief, pred))
    path = tmp_path / "all_prediction_TRADE.json"
    path.write_text(json.dumps(out), "utf-8")
    result = evaluate(path, gold=gold, profile="trade", pred_format="trade", missing="skip",
                      min_coverage=0)
    expected = _evaluate_metrics(turns, list(gold.slots))
    assert (result.official["Joint Acc"], result.official["Turn Acc"],
            result.official["Joint F1"]) == pytest.approx(expected, abs=1e-12)
    assert any(i.kind == "duplicate_slot" for i in result.issues)

ZERO_SHOT = {
    "hotel": (394, 3204, 10, {
        "oracle": (0.9778401997503121, 0.9961610486891388,
            0.9958829986356045),
        "dropped": (0.37203495630461925, 0.8743133583021371,
            0.8147181711196355),
        "extra": (0.5976903870162297, 0.9544319600499583,
            0.8324176814861348),
    }),
    "train": (494, 3804, 6, {
        "oracle": (0.9837013669821241, 0.9972835611636881,
            0.9969032369663279),
        "dropped": (0.3646161934805468, 0.823212407991589,
            0.828336295962466),
        "extra": (0.8094111461619348, 0.9677532422012017,
            0.9483755422635587),
    }),
    "restaurant": (437, 3359, 7, {
        "oracle": (0.9880916939565347, 0.997958576106834,
            0.9979873786363818),
        "dropped": (0.3408752604941947, 0.8343044273380631,
            0.8025953504667421),
        "extra": (0.8651384340577553, 0.9802662356993929,
            0.9605873369791195),
    }),
    "attraction": (395, 3110, 3, {
        "oracle": (0.9816720257234727, 0.9938906752411567,
            0.9945766345123258),
        "dropped": (0.5655948553054663, 0.8240085744908873,
            0.7731939978563758),
        "extra": (0.9282958199356913, 0.9757770632368681,
            0.9620793140407287),
    }),
    "taxi": (195, 1550, 4, {
        "oracle": (0.9793548387096774, 0.9938709677419355,
            0.9949923195084487),
        "dropped": (0.7270967741935483, 0.9037096774193548,
            0.8998801843317944),
        "extra": (0.7483870967741936, 0.9351612903225807,
            0.8404838709677422),
    }),
}
"""trade-dst b77fcf1 with ``--except_domain D`` at test (``read_langs``: the dialogues whose
``domains`` hold D, ``turn_belief`` and ``slot_temp`` filtered by ``D in key``;
``evaluate_metrics`` over ``slot_temp``; predictions restricted to D's slots, as its decoder
writes only those), on the prediction sets of the module docstring: (dialogues -- TRADE's
Table 1 counts --, turns, slots, {kind: (Joint Acc, Turn Acc, Joint F1)})."""


@pytest.fixture(scope="module")
def test_gold(shared_dir: Path) -> tuple[GoldSet, dict]:
    gold = load_gold(shared_dir / "corpora/multiwoz21" / FILES["test"], split="test")
    return gold, trade_gold.load_for(gold)


@pytest.mark.parametrize(("domain", "kind"), [
    *((domain, "dropped") for domain in ZERO_SHOT), ("hotel", "oracle"), ("hotel", "extra"),
    ("taxi", "extra")])
def test_trade_zero_shot_reproduces_except_domain(test_gold, domain: str, kind: str,
                                                  tmp_path: Path) -> None:
    gold, built = test_gold
    dialogues, turns, slots, expected = ZERO_SHOT[domain]
    predictions = {}
    for dialogue in gold:  # every domain's slots predicted: the protocol keeps D's
        items = built.get(dialogue.dialogue_id)
        predictions[dialogue.dialogue_id] = [
            {"state": _perturb(kind, dialogue.dialogue_id, t.turn_index,
                               items[t.turn_index] if items else frozenset(), {})}
            for t in dialogue.turns]
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(predictions), "utf-8")
    result = evaluate(path, gold=gold, profile="trade", zero_shot_domain=domain)
    joint, slot_acc, f1 = expected[kind]
    assert result.official["Joint Acc"] == pytest.approx(joint, abs=1e-12)
    assert result.official["Turn Acc"] == pytest.approx(slot_acc, abs=1e-12)
    assert result.official["Joint F1"] == pytest.approx(f1, abs=1e-12)
    assert (result.counts["dialogues"], result.counts["turns"]) == (dialogues, turns)
    assert result.counts["slots_in_list"] == slots
    assert result.signature.as_dict()["zero-shot"] == domain
