"""Profiles on CrossWOZ, RiSAWOZ and JMultiWOZ: oracle, deterministic corruptions, samples.

Predictions are written as mwzeval-style JSON from the gold, read back with the reader and
aligned; every expected number is computed here by construction (affected turns counted
independently, the official set semantics re-implemented in a few lines).
"""

from __future__ import annotations

import json
import re
import unicodedata
import zipfile
from fractions import Fraction
from pathlib import Path

import pytest
import sacrebleu
from dst_eval.metrics.tokenizers import get_tokenizer
from dst_eval.metrics.trade_accuracy import trade_slot_accuracy

from dst_eval.alignment import Alignment, align
from dst_eval.corpora import load_gold
from dst_eval.corpora.jmultiwoz import loader as jmultiwoz
from dst_eval.corpora.risawoz import loader as risawoz
from dst_eval.gold import GoldSet
from dst_eval.options import EvalOptions
from dst_eval.predictions.reader import read_predictions
from dst_eval.profiles import get_profile
from dst_eval.slotkeys import split_slot_key

K = 7  # every K-th turn (global index % K == K - 1) is corrupted
WRONG, EXTRA = "错误值", "多余值"

# ----------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def crosswoz_gold(crosswoz_test_gold: GoldSet) -> GoldSet:
    return crosswoz_test_gold  # conftest: crosswoz.load(test.json.zip), loaded once


@pytest.fixture(scope="session")
def risawoz_gold(shared_dir: Path) -> GoldSet:
    return risawoz.load(shared_dir / "corpora" / "risawoz")


@pytest.fixture(scope="session")
def jmultiwoz_gold(gold_samples: Path) -> GoldSet:
    return jmultiwoz.load(gold_samples / "jmultiwoz", split="test")


@pytest.fixture(scope="session")
def golds(crosswoz_gold, risawoz_gold, jmultiwoz_gold) -> dict[str, GoldSet]:
    return {"crosswoz": crosswoz_gold, "risawoz": risawoz_gold, "jmultiwoz": jmultiwoz_gold}


PROFILES = {"crosswoz": ("strict", "convlab", "trade"), "risawoz": ("strict",),
            "jmultiwoz": ("strict", "official")}

# ----------------------------------------------------------------------------- helpers

State = dict[str, str]


def nested(state: State) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for key, value in state.items():
        domain, slot = split_slot_key(key)
        out.setdefault(domain, {})[slot] = value
    return out


def gold_states(gold: GoldSet) -> list[State]:
    return [{k: v[0] for k, v in t.state.items()} for t in gold.turns()]


def predict(gold: GoldSet, tmp_path: Path, pred_states: list[State], *,
            responses: bool = False, drop: set[tuple[str, int]] = frozenset()) -> Alignment:
    """Write ``pred_states`` (one per gold turn, gold order) as mwzeval JSON and align it."""
    data: dict[str, list] = {}
    for turn, state in zip(gold.turns(), pred_states, strict=True):
        entry = {"state": nested(state)}
        if responses:
            entry["response"] = turn.system_response
        if (turn.dialogue_id, turn.turn_index) not in drop:
            data.setdefault(turn.dialogue_id, []).append(entry)
    path = tmp_path / f"{gold.corpus}_predictions.json"
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return align(gold, read_predictions(path, corpus=gold.corpus))


def run(alignment: Alignment, profile: str, **options):
    return get_profile(profile, alignment.gold.corpus)(alignment, EvalOptions(**options))


def selected(index: int) -> bool:
    return index % K == K - 1


def corrupt(gold: GoldSet, kind: str) -> tuple[list[State], list[int]]:
    """Deterministic corruption; returns the predicted states and the affected turn rows."""
    states, affected = [], []
    for row, state in enumerate(gold_states(gold)):
        state = dict(state)
        if selected(row):
            if kind == "drop" and state:
                del state[sorted(state)[0]]
                affected.append(row)
            elif kind == "change" and state:
                state[sorted(state)[0]] = WRONG
                affected.append(row)
            elif kind == "extra":
                state[next(s for s in gold.slots if s not in state)] = EXTRA
                affected.append(row)
        states.append(state)
    return states, affected


def turn_f1(n_gold: int, n_pred: int, correct: int) -> float:
    if n_gold == 0 and n_pred == 0:
        return 1.0
    if correct == 0:
        return 0.0
    p, r = correct / n_pred, correct / n_gold
    return 2 * p * r / (p + r)


def expected_scores(gold: GoldSet, kind: str) -> dict[str, float]:
    """Scores of a corruption computed from its construction (state sizes, affected rows)."""
    states = gold_states(gold)
    pred, affected = corrupt(gold, kind)
    hit = set(affected)
    n_turns, n_slots = len(states), len(gold.slots)
    per_turn_f1 = []
    tp = fp = fn = 0
    trade_errors = 0
    for row, state in enumerate(states):
        n = len(state)
        if row not in hit:
            per_turn_f1.append(1.0)
            tp += n
            continue
        first = sorted(state)[0] if state else None
        if kind == "drop":
            per_turn_f1.append(turn_f1(n, n - 1, n - 1))
            tp, fn, trade_errors = tp + n - 1, fn + 1, trade_errors + 1
        elif kind == "change":
            per_turn_f1.append(turn_f1(n, n, n - 1))
            tp, fp, fn = tp + n - 1, fp + 1, fn + 1
            # TRADE rsplit("-", 1): a gold value holding "-" makes the wrong value count twice
            trade_errors += 1 + ("-" in state[first])
        else:
            per_turn_f1.append(turn_f1(n, n + 1, n))
            tp, fp, trade_errors = tp + n, fp + 1, trade_errors + 1
    precision = tp / (tp + fp)
    recall = tp / (tp + fn)
    return {
        "joint_goal_accuracy": 1 - len(affected) / n_turns,
        "slot_accuracy": 1 - len(affected) / (n_slots * n_turns),
        "trade_slot_accuracy": 1 - trade_errors / (n_slots * n_turns),
        "slot_f1_turn_macro": sum(per_turn_f1) / n_turns,
        "slot_precision": precision, "slot_recall": recall,
        "slot_f1": 2 * precision * recall / (precision + recall),
    }


def official_set(state: State) -> set[str]:
    """JMultiWOZ evaluate.py: "{domain} {slot} {value}" items joined by ", ", split on ", "."""
    items = []
    for key, value in state.items():
        domain, slot = key.split("-", 1)
        items.append(f"{domain} {slot.removeprefix('book_')} {value}")
    return set(", ".join(items).split(", "))


def official_expected(gold_list: list[State], pred_list: list[State]) -> tuple[float, float]:
    jga, f1 = [], []
    for g, p in zip(gold_list, pred_list, strict=True):
        ref, hyp = official_set(g), official_set(p)
        jga.append(float(ref == hyp))
        tp = len(ref & hyp)
        f1.append(0.0 if tp == 0 else turn_f1(len(ref), len(hyp), tp))
    return sum(jga) / len(jga), sum(f1) / len(f1)


# ----------------------------------------------------------------------------- oracle


@pytest.mark.parametrize("corpus", ["crosswoz", "risawoz", "jmultiwoz"])
def test_oracle_scores_one_everywhere(golds, corpus: str, tmp_path: Path) -> None:
    gold = golds[corpus]
    alignment = predict(gold, tmp_path, gold_states(gold), responses=corpus == "jmultiwoz")
    assert alignment.coverage == 1.0 and not alignment.issues
    for profile in PROFILES[corpus]:
        result = run(alignment, profile)
        assert result.scores, profile
        for name, value in result.scores.items():
            expected = 100.0 if name.startswith("bleu") else 1.0
            assert value == pytest.approx(expected), (profile, name)
        if result.official:
            for name, value in result.official.items():
                if name in ("count",):
                    assert value == gold.n_turns
                else:
                    assert value == pytest.approx(100.0 if "bleu" in name else 1.0), name
        for group, values in result.groups.items():
            assert all(v == pytest.approx(1.0) for k, v in values.items() if k != "turns"), group


# ----------------------------------------------------------------------------- corruptions


@pytest.mark.parametrize("kind", ["drop", "change", "extra"])
@pytest.mark.parametrize("corpus", ["crosswoz", "risawoz"])
def test_corruptions_chinese(golds, corpus: str, kind: str, tmp_path: Path) -> None:
    gold = golds[corpus]
    pred, affected = corrupt(gold, kind)
    assert affected  # the corruption touches turns
    expected = expected_scores(gold, kind)
    alignment = predict(gold, tmp_path, pred)

    strict = run(alignment, "strict").scores
    for name in ("joint_goal_accuracy", "slot_accuracy", "slot_f1_turn_macro", "slot_precision",
                 "slot_recall", "slot_f1"):
        assert strict[name] == pytest.approx(expected[name], abs=1e-12), name
    if corpus == "crosswoz":
        trade = run(alignment, "trade")
        assert trade.official == pytest.approx({
            "Joint Acc": expected["joint_goal_accuracy"],
            "Turn Acc": expected["trade_slot_accuracy"],
            "Joint F1": expected["slot_f1_turn_macro"]}, abs=1e-12)
        convlab = run(alignment, "convlab").scores
        for name in ("joint_goal_accuracy", "slot_precision", "slot_recall", "slot_f1"):
            assert convlab[name] == pytest.approx(expected[name], abs=1e-12), name


def test_trade_hyphen_quirk_is_exercised(crosswoz_gold: GoldSet) -> None:
    """The change corruption hits gold values with '-' (50-100元), counted twice by TRADE."""
    states = gold_states(crosswoz_gold)
    _, affected = corrupt(crosswoz_gold, "change")
    doubled = sum("-" in states[r][sorted(states[r])[0]] for r in affected)
    assert doubled > 0
    expected = expected_scores(crosswoz_gold, "change")
    assert expected["trade_slot_accuracy"] < expected["slot_accuracy"]


@pytest.mark.parametrize("kind", ["drop", "change", "extra"])
def test_corruptions_jmultiwoz(jmultiwoz_gold: GoldSet, kind: str, tmp_path: Path) -> None:
    pred, affected = corrupt(jmultiwoz_gold, kind)
    assert affected
    alignment = predict(jmultiwoz_gold, tmp_path, pred)
    jga, f1 = official_expected(gold_states(jmultiwoz_gold), pred)
    assert jga == pytest.approx(1 - len(affected) / jmultiwoz_gold.n_turns)
    official = run(alignment, "official")
    assert official.official["joint_goal_accuracy"] == pytest.approx(jga, abs=1e-12)
    assert official.official["slot_f1"] == pytest.approx(f1, abs=1e-12)
    assert official.official["count"] == jmultiwoz_gold.n_turns
    assert "response_bleu" not in official.official
    strict = run(alignment, "strict").scores
    assert strict["joint_goal_accuracy"] == pytest.approx(jga, abs=1e-12)
    expected = expected_scores(jmultiwoz_gold, kind)
    assert strict["slot_f1_turn_macro"] == pytest.approx(expected["slot_f1_turn_macro"])


# ----------------------------------------------------------------------------- dirty values


def _despace_lower(value: str) -> str:
    return re.sub(r"\s+", "", value).lower()


def test_crosswoz_dirty_values_per_policy(crosswoz_gold: GoldSet, tmp_path: Path) -> None:
    """Width, list order and spacing differences: right for strict, wrong for the anchors."""
    multi = {"餐馆-推荐菜", "酒店-酒店设施"}

    def dirty(key: str, value: str) -> str:
        value = unicodedata.normalize("NFKC", value)
        if key in multi:
            value = " ".join(reversed(value.split()))
        return value.replace(" ", "  ")

    states = gold_states(crosswoz_gold)
    pred = [{k: dirty(k, v) for k, v in s.items()} for s in states]
    changed = sum(any(pred[i][k] != v for k, v in s.items()) for i, s in enumerate(states))
    changed_despaced = sum(any(_despace_lower(pred[i][k]) != _despace_lower(v)
                               for k, v in s.items()) for i, s in enumerate(states))
    assert 0 < changed_despaced < changed
    alignment = predict(crosswoz_gold, tmp_path, pred)
    n = crosswoz_gold.n_turns
    assert run(alignment, "strict").scores["joint_goal_accuracy"] == 1.0
    assert run(alignment, "trade").official["Joint Acc"] == pytest.approx(1 - changed / n)
    assert run(alignment, "convlab").scores["joint_goal_accuracy"] == pytest.approx(
        1 - changed_despaced / n)
    exact = run(alignment, "strict", normalisation="exact").scores["joint_goal_accuracy"]
    assert exact == pytest.approx(1 - changed / n)


def _raw_crosswoz_states(path: Path) -> list[State]:
    """Each user turn's state straight from the release file, values as annotated (the
    following system message's sys_state_init; selectedResults and blanks left out)."""
    with zipfile.ZipFile(path) as archive:
        raw = json.loads(archive.read(archive.namelist()[0]))
    return [{f"{domain}-{slot}": value
             for domain, slots in messages[i + 1]["sys_state_init"].items()
             for slot, value in slots.items() if slot != "selectedResults" and value.strip()}
            for messages in (d["messages"] for d in raw.values())
            for i, m in enumerate(messages) if m["role"] == "usr"]


def test_crosswoz_verbatim_gold_scores_100_everywhere(crosswoz_gold: GoldSet, shared_dir: Path,
                                                      tmp_path: Path) -> None:
    """A prediction copying the release's values verbatim (11 carry spaces or tabs, as
    '3小时 ') is right under every profile and under --norm exact; the same values
    stripped are right where the policy strips (strict, convlab) and wrong where values
    are compared as given (exact, trade)."""
    verbatim = _raw_crosswoz_states(shared_dir / "corpora" / "crosswoz" / "test.json.zip")
    assert len(verbatim) == crosswoz_gold.n_turns == 4238
    padded = [i for i, s in enumerate(verbatim) if any(v != v.strip() for v in s.values())]
    assert padded  # the release has them
    for name, pred, wrong in (("verbatim", verbatim, 0),
                              ("stripped", [{k: v.strip() for k, v in s.items()}
                                            for s in verbatim], len(padded))):
        alignment = predict(crosswoz_gold, tmp_path, pred)
        as_given = 1 - wrong / crosswoz_gold.n_turns
        exact = run(alignment, "strict", normalisation="exact").scores
        assert exact["joint_goal_accuracy"] == pytest.approx(as_given), name
        assert run(alignment, "trade").official["Joint Acc"] == pytest.approx(as_given), name
        assert run(alignment, "strict").scores["joint_goal_accuracy"] == 1.0, name
        assert run(alignment, "convlab").scores["joint_goal_accuracy"] == 1.0, name


def test_risawoz_despace_policy(risawoz_gold: GoldSet, tmp_path: Path) -> None:
    states = gold_states(risawoz_gold)
    pred = [{k: re.sub(r"\s+", "", v) for k, v in s.items()} for s in states]
    spaced = sum(any(re.search(r"\s", v) for v in s.values()) for s in states)
    assert spaced > 100  # most RiSAWOZ states hold a word-segmented value
    alignment = predict(risawoz_gold, tmp_path, pred)
    strict = run(alignment, "strict")
    assert strict.scores["joint_goal_accuracy"] == 1.0
    assert strict.signature_fields["norm"] == "despace-v1"
    exact = run(alignment, "strict", normalisation="exact").scores["joint_goal_accuracy"]
    assert exact == pytest.approx(1 - spaced / risawoz_gold.n_turns)


# ----------------------------------------------------------------------------- missing turns


@pytest.mark.parametrize("corpus", ["crosswoz", "risawoz", "jmultiwoz"])
def test_missing_turns_reported_and_scored(golds, corpus: str, tmp_path: Path) -> None:
    gold = golds[corpus]
    drop = {(d.dialogue_id, len(d.turns) - 1) for n, d in enumerate(gold) if n % 3 == 0}
    by_key = {(t.dialogue_id, t.turn_index): t for t in gold.turns()}
    nonempty_missing = sum(1 for key in drop if by_key[key].state)
    alignment = predict(gold, tmp_path, gold_states(gold), drop=drop)
    assert alignment.n_missing_turns == len(drop)
    assert any(i.kind == "turn_count_mismatch" for i in alignment.issues)
    n = gold.n_turns
    for profile in PROFILES[corpus]:
        wrong = run(alignment, profile, missing="wrong")
        assert wrong.scores["joint_goal_accuracy"] == pytest.approx(1 - nonempty_missing / n)
        assert wrong.counts["turns"] == n
        skip = run(alignment, profile, missing="skip")
        assert skip.scores["joint_goal_accuracy"] == 1.0
        assert skip.counts["turns"] == n - len(drop)
        assert skip.signature_fields["missing"] == "skip"
        if profile == "official":
            assert wrong.counts["missing_turns"] == len(drop)
            # a missing turn is an empty state string {""}: F1 0 against a non-empty gold
            assert wrong.official["slot_f1"] == pytest.approx(1 - nonempty_missing / n)


# ----------------------------------------------------------------------------- gold samples


def sample_alignment(gold_samples: Path, corpus: str) -> Alignment:
    folder = gold_samples / corpus
    gold = load_gold(folder, split="test" if corpus == "jmultiwoz" else None)
    return align(gold, read_predictions(folder / "predictions.json", corpus=corpus))


def test_crosswoz_sample_trade_numbers(gold_samples: Path) -> None:
    alignment = sample_alignment(gold_samples, "crosswoz")
    result = run(alignment, "trade")
    # 13 turns; wrong: 9001 t1 (推荐菜 order), t2 (half-width parentheses), 9002 t2 (wrong
    # 酒店类型), t3 (missing 出租-目的地), 9003 t1 (extra 餐馆-评分), t2 (50-100元 for 100-150元),
    # and, values compared as annotated, 9001 t3 (gold '四季民福烤鸭店（故宫店） ' with a trailing
    # space) and 9003 t3 (gold '\t砂锅居（西四店）' with a leading tab), predicted without them
    assert result.official["Joint Acc"] == pytest.approx(5 / 13)
    # one error each, two for the hyphenated wrong value
    assert result.official["Turn Acc"] == pytest.approx(1 - 9 / (26 * 13))
    f1 = [1, Fraction(2, 3), Fraction(3, 4), Fraction(3, 4),
          1, 1, Fraction(4, 5), Fraction(14, 15), 1,
          1, Fraction(2, 3), Fraction(2, 3), Fraction(3, 4)]
    assert result.official["Joint F1"] == pytest.approx(float(sum(f1) / 13))
    assert result.groups["goal_type:S"]["joint_goal_accuracy"] == pytest.approx(1 / 4)
    # strict: NFKC, multi-value sorting and stripping make the first two correct
    strict = run(alignment, "strict")
    assert strict.scores["joint_goal_accuracy"] == pytest.approx(9 / 13)
    assert strict.signature_fields["norm"] == "nfkc+strip+collapse-space+multi-value-sort-v1"


def test_risawoz_sample_numbers(gold_samples: Path) -> None:
    alignment = sample_alignment(gold_samples, "risawoz")
    # despace: wrong turns are hospital t2 (missing 3.0T MRI), car t2 (混合 动力),
    # attraction-restaurant t2 (extra 餐厅-区域)
    assert run(alignment, "strict").scores["joint_goal_accuracy"] == pytest.approx(8 / 11)
    # exact: only the turns whose predicted values keep the annotated spaces are right
    exact = run(alignment, "strict", normalisation="exact").scores
    assert exact["joint_goal_accuracy"] == pytest.approx(2 / 11)


def test_jmultiwoz_sample_official_numbers(gold_samples: Path) -> None:
    alignment = sample_alignment(gold_samples, "jmultiwoz")
    gold = alignment.gold
    pred = [dict(p.state) for _, p in alignment.pairs]
    assert pred[2]["hotel-book_people"] == "2"  # "people" mapped by [slot_aliases]
    jga, f1 = official_expected(gold_states(gold), pred)
    assert jga == pytest.approx(7 / 12)
    result = run(alignment, "official")
    assert result.official["joint_goal_accuracy"] == pytest.approx(jga)
    assert result.official["slot_f1"] == pytest.approx(f1)
    # BLEU: sacrebleu sentence BLEU on MeCab-IPAdic tokens, averaged over system turns
    tokenize = get_tokenizer("ja-mecab-ipadic")
    bleu = [sacrebleu.sentence_bleu(tokenize(p.response), [tokenize(g.system_response)],
                                    tokenize="none").score for g, p in alignment.pairs]
    assert result.official["response_bleu"] == pytest.approx(sum(bleu) / len(bleu))
    # strict NFKC folds 有り(無料) / 有り（無料）: one more correct turn than the official
    assert run(alignment, "strict").scores["joint_goal_accuracy"] == pytest.approx(8 / 12)


def test_official_splits_values_holding_comma_space() -> None:
    """A value with ", " becomes several items in the official set (the anchor's quirk)."""
    assert official_set({"attraction-genre": "博物館, 美術館"}) == {"attraction genre 博物館",
                                                                  "美術館"}


# ----------------------------------------------------------------------------- metric unit


def test_trade_slot_accuracy_function() -> None:
    gold = [{"餐馆-人均消费-50-100元", "景点-名称-故宫"}, set(), {"酒店-名称-a"}]
    pred = [{"餐馆-人均消费-100-150元", "景点-名称-故宫"}, {"出租-出发地-b"}, {"酒店-名称-c"}]
    # turn 0: missed 1 + wrong value not recognised (rsplit) 1; turn 1: extra 1;
    # turn 2: missed 1, its wrong value recognised -> 1
    assert trade_slot_accuracy(gold, pred, n_slots=26) == pytest.approx(1 - 4 / (26 * 3))


def test_profiles_reject_other_corpora() -> None:
    from dst_eval.errors import UsageError

    with pytest.raises(UsageError):
        get_profile("official", "crosswoz")
    with pytest.raises(UsageError):
        get_profile("trade", "jmultiwoz")



# --------------------------------------------------- JMultiWOZ inference output, as written


def _state_dict2str_set(dialogue_state: dict) -> set[str]:
    """JMultiWOZ ``utils/data_utils.py`` ``state_dict2str`` split on ", " (by construction:
    per belief domain its truthy values, then that domain's truthy book values)."""
    items = []
    for domain, slots in dialogue_state["belief_state"].items():
        items += [f"{domain} {s} {v}" for s, v in slots.items() if v]
        items += [f"{domain} {s} {v}" for s, v in dialogue_state["book_state"].get(
            domain, {}).items() if v]
    return set(", ".join(items).split(", "))


def _official_numbers(gold: dict, hyp: dict) -> tuple[float, float, int]:
    """``evaluate.py``: SYSTEM turns inner-joined on (dialogue, turn_id); mean JGA and F1."""
    def rows(dialogues: dict) -> dict:
        return {(name, t["turn_id"]): t["dialogue_state"] for name, d in dialogues.items()
                for t in d["turns"] if t["speaker"] == "SYSTEM"}
    ref, out = rows(gold), rows(hyp)
    jga, f1 = [], []
    for key in ref.keys() & out.keys():
        r, h = _state_dict2str_set(ref[key]), _state_dict2str_set(out[key])
        tp = len(r & h)
        jga.append(float(r == h))
        f1.append(0.0 if tp == 0 else turn_f1(len(r), len(h), tp))
    return sum(jga) / len(jga), sum(f1) / len(f1), len(jga)


def _perturbed_inference(gold: dict, kind: str) -> dict:
    out = json.loads(json.dumps(gold))
    longest = max(out, key=lambda name: len(out[name]["turns"]))
    system = [t for t in out[longest]["turns"] if t["speaker"] == "SYSTEM"]
    if kind == "reversed":  # the official join is by turn_id, not by position
        for dialogue in out.values():
            dialogue["turns"].reverse()
    elif kind == "missing_middle":
        out[longest]["turns"].remove(system[len(system) // 2])
    elif kind == "book_without_belief_domain":
        state = system[-1]["dialogue_state"]
        domain = next(d for d in state["book_state"] if d in state["belief_state"]
                      and any(state["book_state"][d].values()))
        del state["belief_state"][domain]  # its booking slots no longer count
    elif kind == "odd_values":
        belief = system[-1]["dialogue_state"]["belief_state"]
        filled = [(d, s) for d, slots in belief.items() if d != "general"
                  for s, v in slots.items() if v]
        (d0, s0), (d1, s1) = filled[:2]
        belief[d0][s0] = False  # falsy: no value
        belief[d1][s1] = ["a", "b", "c"]  # "['a', 'b', 'c']", split on ", ": 3 items
    return out


@pytest.mark.parametrize("kind", ["reversed", "missing_middle", "book_without_belief_domain",
                                  "odd_values"])
def test_jmultiwoz_inference_output_read_as_the_official_script(gold_samples: Path,
                                                                 tmp_path: Path,
                                                                 kind: str) -> None:
    folder = gold_samples / "jmultiwoz"
    gold_set = load_gold(folder, split="test")
    release = json.loads((folder / "dialogues.json").read_text("utf-8"))
    gold = {d.dialogue_id: release[d.dialogue_id] for d in gold_set}
    hyp = _perturbed_inference(gold, kind)
    path = tmp_path / "e2e.inference.json"
    path.write_text(json.dumps(hyp, ensure_ascii=False), "utf-8")
    from dst_eval import evaluate

    result = evaluate(path, gold=gold_set, profile="official", missing="skip")
    jga, f1, count = _official_numbers(gold, hyp)
    assert (result.official["joint_goal_accuracy"], result.official["slot_f1"],
            result.official["count"]) == (pytest.approx(jga), pytest.approx(f1), count)
    if kind in ("reversed", "missing_middle"):
        assert jga == 1.0  # every turn joined with its own gold turn
    else:
        assert jga < 1.0


def test_jmultiwoz_inference_non_string_or_long_utterance(gold_samples: Path,
                                                         tmp_path: Path) -> None:
    """A system ``utterance`` that is not a string is kept as written and reported
    (``bad_response``; it was read as no response without a word), scored as ""; one over
    10,000 characters is refused (exit 3)."""
    from dst_eval import evaluate
    from dst_eval.errors import PredictionError

    folder = gold_samples / "jmultiwoz"
    gold_set = load_gold(folder, split="test")
    release = json.loads((folder / "dialogues.json").read_text("utf-8"))
    hyp = {d.dialogue_id: release[d.dialogue_id] for d in gold_set}
    first = next(iter(hyp.values()))
    system = next(t for t in first["turns"] if t["speaker"] == "SYSTEM")
    system["utterance"] = 7
    path = tmp_path / "e2e.inference.json"
    path.write_text(json.dumps(hyp, ensure_ascii=False), "utf-8")
    result = evaluate(path, gold=gold_set)
    assert [i.kind for i in result.issues].count("bad_response") == 1
    assert result.counts["responses"]["non_string_response"] == 1
    system["utterance"] = "あ" * 10_001
    path.write_text(json.dumps(hyp, ensure_ascii=False), "utf-8")
    with pytest.raises(PredictionError, match="response of 10,001 characters exceeds the "
                       "10,000-character limit"):
        evaluate(path, gold=gold_set)


@pytest.mark.parametrize(("change", "message"), [
    # a SYSTEM turn written otherwise was skipped, the turns after it placed one turn early
    (lambda turn: turn.update(speaker="SYSTEM "), "speaker 'SYSTEM ' is neither USER nor "
     "SYSTEM"),
    (lambda turn: turn.update(speaker="system"), "speaker 'system' is neither"),
    # a falsy belief_state was read as an empty state without a word
    *((lambda turn, bad=bad: turn["dialogue_state"].update(belief_state=bad),
       "'belief_state' must be a JSON object") for bad in ([], 0, False, "")),
])
def test_jmultiwoz_inference_malformed_system_turn_is_refused(gold_samples: Path,
                                                              tmp_path: Path, change,
                                                              message: str) -> None:
    from dst_eval import evaluate
    from dst_eval.errors import PredictionError

    folder = gold_samples / "jmultiwoz"
    gold_set = load_gold(folder, split="test")
    release = json.loads((folder / "dialogues.json").read_text("utf-8"))
    hyp = {d.dialogue_id: release[d.dialogue_id] for d in gold_set}
    for dialogue in hyp.values():  # read in order: no turn ids
        for turn in dialogue["turns"]:
            turn.pop("turn_id", None)
    first = next(iter(hyp.values()))
    change([t for t in first["turns"] if t["speaker"] == "SYSTEM"][1])
    path = tmp_path / "e2e.inference.json"
    path.write_text(json.dumps(hyp, ensure_ascii=False), "utf-8")
    with pytest.raises(PredictionError, match=message) as info:
        evaluate(path, gold=gold_set)
    assert (info.value.dialogue, info.value.turn) == (next(iter(hyp)), 1)


def test_jmultiwoz_inference_with_turn_ids_and_a_dialogue_the_gold_lacks(gold_samples: Path,
                                                                        tmp_path: Path) -> None:
    """An extra dialogue of a file with turn ids (the format's own shape) ended in an
    internal error (exit 1); it is an extra dialogue like any other."""
    from dst_eval import evaluate

    folder = gold_samples / "jmultiwoz"
    gold_set = load_gold(folder, split="test")
    release = json.loads((folder / "dialogues.json").read_text("utf-8"))
    hyp = {d.dialogue_id: release[d.dialogue_id] for d in gold_set}
    hyp["dialogue_not_in_the_gold"] = next(iter(hyp.values()))
    path = tmp_path / "e2e.inference.json"
    path.write_text(json.dumps(hyp, ensure_ascii=False), "utf-8")
    result = evaluate(path, gold=gold_set)
    assert result.scores["joint_goal_accuracy"] == 1.0
    assert "extra_dialogues" in {i.kind for i in result.issues}


def test_jmultiwoz_turn_id_given_twice_is_refused(gold_samples: Path, tmp_path: Path) -> None:
    from dst_eval.errors import PredictionError

    release = json.loads((gold_samples / "jmultiwoz" / "dialogues.json").read_text("utf-8"))
    name = max(release, key=lambda n: len(release[n]["turns"]))
    system = [t for t in release[name]["turns"] if t["speaker"] == "SYSTEM"]
    system[1]["turn_id"] = system[0]["turn_id"]
    path = tmp_path / "e2e.inference.json"
    path.write_text(json.dumps({name: release[name]}, ensure_ascii=False), "utf-8")
    with pytest.raises(PredictionError, match=f"turn_id {system[0]['turn_id']} is given to "
                       "two SYSTEM turns"):
        read_predictions(path, corpus="jmultiwoz")
