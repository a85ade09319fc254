"""The public metric functions (``dst_eval.metrics``) agree with the CLI and refuse to guess.

* on MultiWOZ 2.1 test, with predictions in the surface forms the CLI accepts (TRADE,
  2.1 and mwzeval key spellings, upper case, padded values, ``none``/``not mentioned`` for
  unset), and on SGD dev (whose gold holds the value ``None``), every DST metric function
  with the corpus's options (``dst_eval.metric_options``) gives the number ``evaluate()``
  (the strict profile) gives;
* no exported name is both a module and a function;
* every exported metric function raises a ``ValueError`` on empty input, or returns the
  value named by ``zero_division`` -- never a silent nan;
* ``corpus_bleu`` takes sacrebleu's reference streams and equals sacrebleu on
  multi-reference input (13a, zh, ja-mecab); flat or ragged layouts are refused.
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
import pkgutil
import zlib
from pathlib import Path

import dst_eval.metrics as M
import pytest
import sacrebleu
from helpers import function_scores
from metrics_fixture import MWOZ21_TEST, corrupt

from dst_eval import evaluate, metric_options
from dst_eval.corpora import load_gold
from dst_eval.normalize import Normalizer as DstNormalizer

SPELLINGS = {  # canonical key -> a spelling the CLI accepts for MultiWOZ (TRADE / 2.1 / mixed)
    "hotel-pricerange": "Hotel-Price Range", "restaurant-pricerange": "restaurant-price range",
    "train-leaveat": "Train-LeaveAt", "taxi-leaveat": "taxi-leave at",
    "train-arriveby": "train-arriveBy", "hotel-bookday": "hotel-book day",
    "restaurant-booktime": "Restaurant-Book Time", "hotel-area": "HOTEL-AREA",
    "hotel-bookpeople": "Hotel-People", "taxi-arriveby": "taxi-arrive",  # mwzeval's names
}


def _h(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def _surface(dialogue_id: str, t: int, state: dict[str, str]) -> dict[str, str]:
    """The same prediction in other spellings the CLI accepts (chosen by hash)."""
    h = _h(f"surface:{dialogue_id}:{t}")
    out: dict[str, str] = {}
    for key, value in state.items():
        k = SPELLINGS.get(key, key) if h % 3 else key
        v = value.upper() if h % 5 == 1 else (f"  {value} " if h % 5 == 2 else value)
        out[k] = v
    if h % 7 == 3:
        out.setdefault("taxi-departure", "none")
    if h % 11 == 4:
        out.setdefault("Hotel-Parking", "Not Mentioned")
    return out


@pytest.fixture(scope="module")
def mwoz21(shared_dir, tmp_path_factory):
    gold_set = load_gold(shared_dir / MWOZ21_TEST, corpus="multiwoz21")
    gold_variants = [dict(t.state) for d in gold_set.dialogues for t in d.turns]
    ids, _, preds = corrupt((d.dialogue_id, [{k: v[0] for k, v in t.state.items()}
                                              for t in d.turns]) for d in gold_set.dialogues)
    turn_numbers = [t.turn_index for d in gold_set.dialogues for t in d.turns]
    surfaced = [_surface(i, t, p) for i, t, p in zip(ids, turn_numbers, preds, strict=True)]
    path = tmp_path_factory.mktemp("api") / "predictions.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for dialogue_id, t, state in zip(ids, turn_numbers, surfaced, strict=True):
            out.write(json.dumps({"dialogue_id": dialogue_id, "turn_index": t,
                                  "state": state}) + "\n")
    result = evaluate(path, gold=gold_set)
    return gold_set, ids, gold_variants, surfaced, result


def _assert_all_equal(scores: dict[str, float], expected: dict[str, float]) -> None:
    for name, value in expected.items():
        assert scores[name] == pytest.approx(value, abs=1e-12), name
    # every DST number of the CLI was checked (intents/requested slots: not in 2.1 gold)
    unchecked = {k for k in scores if not k.startswith(("bleu", "requested", "active"))} - set(
        expected)
    assert not unchecked


def test_every_dst_metric_function_equals_the_cli(mwoz21):
    gold_set, ids, gold, pred, result = mwoz21
    scores = result.scores
    assert len(gold) == 7372 and result.counts["turns"] == 7372
    assert 0.3 < scores["joint_goal_accuracy"] < 0.9  # errors on both sides of the surface
    n_slots = result.counts["slots_in_list"]
    assert n_slots == 30
    options = metric_options("multiwoz21")
    expected = function_scores(gold, pred, ids, n_slots, **options)
    assert {k.partition(":")[2] for k in expected if ":" in k} >= {
        "attraction", "hotel", "restaurant", "taxi", "train"}
    _assert_all_equal(scores, expected)
    # the corpus options matter: without the aliases mwzeval's "people" is an unknown slot
    assert M.joint_goal_accuracy(gold, pred) < scores["joint_goal_accuracy"] - 0.01
    # exact comparison is a real option: the padded/upper-case values now count as wrong
    assert M.joint_goal_accuracy(gold, pred, **{**options, "norm": "exact"}) < scores[
        "joint_goal_accuracy"] - 0.01
    # without the unset words, "none"/"not mentioned" are extra slots
    assert M.joint_goal_accuracy(gold, pred, **{**options, "unset_words": ()}) < scores[
        "joint_goal_accuracy"]


def test_every_dst_metric_function_equals_the_cli_on_sgd(shared_dir, tmp_path):
    """SGD: keys kept as spelled, and ``None`` is a value (the gold has 249 of them)."""
    gold_set = load_gold(shared_dir / "corpora" / "sgd", corpus="sgd", split="dev")
    gold = [dict(t.state) for d in gold_set.dialogues for t in d.turns]
    assert sum(v == ("None",) for state in gold for v in state.values()) > 0
    ids, _, pred = corrupt((d.dialogue_id, [{k: v[0] for k, v in t.state.items()}
                                            for t in d.turns]) for d in gold_set.dialogues)
    turn_numbers = [t.turn_index for d in gold_set.dialogues for t in d.turns]
    path = tmp_path / "predictions.jsonl"
    path.write_text("".join(json.dumps({"dialogue_id": i, "turn_index": t, "state": state})
                            + "\n" for i, t, state in zip(ids, turn_numbers, pred, strict=True)))
    result = evaluate(path, gold=gold_set)
    options = metric_options("sgd")
    expected = function_scores(gold, pred, ids, result.counts["slots_in_list"], **options)
    _assert_all_equal(result.scores, expected)
    # the defaults (MultiWOZ's unset words) would drop the gold's None values
    assert M.slot_precision_recall_f1(gold, pred)[1] != result.scores["slot_recall"]


def test_surface_forms_of_the_issue():
    assert M.joint_goal_accuracy([{"hotel-area": "North"}], [{"Hotel-Area": "north"}]) == 1.0
    assert M.joint_goal_accuracy([{"hotel": {"area": "north"}}],
                                 [{"hotel": {"area": "north"}}]) == 1.0
    assert M.joint_goal_accuracy([{"hotel-area": "North"}], [{"hotel-area": "north"}],
                                 norm="exact") == 0.0
    assert M.joint_goal_accuracy([{"hotel-area": "north"}], [{"Hotel-Area": "north"}],
                                 keys="exact") == 0.0
    assert M.joint_goal_accuracy([{"hotel-area": "north"}],
                                 [{"hotel-area": "north", "hotel-stars": " None "}]) == 1.0
    assert M.joint_goal_accuracy([{"train-leaveat": "10:00"}], [{"train-leave": "10:00"}],
                                 aliases={"train-leave": "train-leaveat"}) == 1.0
    assert M.joint_goal_accuracy([{"hotel-area": "north"}], [{"hotel-area": "north"}],
                                 norm="basic-v1") == 1.0
    with pytest.raises(ValueError, match="rule table v1"):
        M.joint_goal_accuracy([{}], [{}], norm="basic-v2")
    with pytest.raises(ValueError, match="unknown normalisation"):
        M.joint_goal_accuracy([{}], [{}], norm="loud")
    with pytest.raises(TypeError, match="turn 0, slot 'hotel-stars'"):
        M.joint_goal_accuracy([{}], [{"hotel-stars": 4}])


def test_one_normalisation_implementation():
    from dst_eval.metrics.normalization import Normalizer

    assert DstNormalizer is Normalizer
    source = inspect.getsource(importlib.import_module("dst_eval.normalize"))
    assert "def _strip" not in source and "class Normalizer" not in source


def _exported():
    for name in M.__all__:
        yield name, getattr(M, name)


def test_no_name_is_both_a_module_and_something_else():
    modules = {info.name for info in pkgutil.iter_modules(M.__path__)}
    assert "bleu" in modules and "jga" in modules
    clashes = sorted(modules & set(M.__all__))
    assert not clashes, f"exported names that are also module names: {clashes}"
    for name, value in _exported():
        assert not inspect.ismodule(value), name
    for module in sorted(modules):  # importing a submodule must not shadow an export
        importlib.import_module(f"dst_eval.metrics.{module}")
    for name, value in _exported():
        assert not inspect.ismodule(value), name


EMPTY_CALLS = {  # extra required arguments of each metric function
    "slot_accuracy": {"slots": range(30)}, "turn_accuracy": {"dialogue_ids": []},
    "flexible_goal_accuracy": {"dialogue_ids": []},
    "final_turn_joint_goal_accuracy": {"dialogue_ids": []},
    "granular_change_accuracy": {"dialogue_ids": []},
    "per_domain_joint_goal_accuracy": {"dialogue_ids": []},
    "trade_slot_accuracy": {"n_slots": 26},
}


def _values(result):
    if isinstance(result, dict):
        return list(result.values())
    if isinstance(result, tuple):
        return [v for part in result for v in _values(part)] if any(
            isinstance(p, dict) for p in result) else list(result)
    return [result]


@pytest.mark.parametrize("name", M.METRIC_FUNCTIONS)
def test_every_metric_function_refuses_empty_input_or_returns_zero_division(name):
    function = getattr(M, name)
    assert name in M.__all__ and callable(function)
    assert "zero_division" in inspect.signature(function).parameters, name
    extra = EMPTY_CALLS.get(name, {})
    with pytest.raises(ValueError, match="undefined|no segments"):
        function([], [], **extra)
    for value in (0.0, 1.0):
        out = function([], [], zero_division=value, **extra)
        values = _values(out)
        assert values and all(v == value for v in values if not isinstance(v, dict)), (name, out)
    with pytest.raises(ValueError, match="zero_division"):
        function([], [], zero_division="warn", **extra)


def test_the_metric_function_list_is_complete():
    """Every exported function returning a score is in METRIC_FUNCTIONS (the list the empty
    input test iterates over); the rest are helpers that return no score."""
    helpers = {"turn_table", "canonical_states", "error_counts", "frequent_wrong_values",
               "slot_error_counts", "segment_statistics", "get_tokenizer", "dst_metrics",
               "bootstrap_ci", "paired_bootstrap", "approximate_randomisation"}
    functions = {n for n, v in _exported() if inspect.isfunction(v)}
    assert functions - helpers == set(M.METRIC_FUNCTIONS)
    assert M.slot_error_counts([], []) == {}
    # undefined on a non-empty input too (no gold slot anywhere): same rule
    with pytest.raises(ValueError, match="average_goal_accuracy is undefined"):
        M.average_goal_accuracy([{}], [{}])
    assert M.average_goal_accuracy([{}], [{}], zero_division=0.5) == 0.5
    with pytest.raises(ValueError, match="finite"):  # never a nan, even when asked for
        M.average_goal_accuracy([{}], [{}], zero_division=math.nan)


HYPS = ["the cat sat on the mat", "a dog ran"]
REF_A = ["the cat sat on a mat", "a dog runs"]
REF_B = ["a cat sat on the mat", "the dog ran"]


def test_corpus_bleu_takes_sacrebleu_reference_streams():
    expected = sacrebleu.corpus_bleu(HYPS, [REF_A, REF_B]).score
    assert expected == pytest.approx(91.83, abs=0.005)
    assert M.corpus_bleu(HYPS, [REF_A, REF_B], tokenize="13a") == pytest.approx(expected,
                                                                                abs=1e-9)
    assert M.corpus_bleu(HYPS, [REF_A]) == pytest.approx(
        sacrebleu.corpus_bleu(HYPS, [REF_A]).score, abs=1e-9)
    sentence = [sacrebleu.sentence_bleu(h, [a, b]).score
                for h, a, b in zip(HYPS, REF_A, REF_B, strict=True)]
    assert M.mean_sentence_bleu(HYPS, [REF_A, REF_B]) == pytest.approx(
        sum(sentence) / 2, abs=1e-9)
    # a missing reference in one stream (None), as sacrebleu allows
    streams = [REF_A, [None, "the dog ran"]]
    assert M.corpus_bleu(HYPS, streams) == pytest.approx(
        sacrebleu.corpus_bleu(HYPS, streams).score, abs=1e-9)


@pytest.mark.parametrize("refs", [REF_A, [REF_A, REF_B[:1]], [REF_A, "ab"], "the cat", [],
                                  [REF_A, [REF_B[0], REF_B[1], "extra"]]])
def test_corpus_bleu_refuses_ambiguous_layouts(refs):
    with pytest.raises(ValueError, match="stream"):
        M.corpus_bleu(HYPS, refs)
    with pytest.raises(ValueError, match="stream"):
        M.mean_sentence_bleu(HYPS, refs)


ZH_HYPS = ["我想订一家便宜的酒店", "请问火车几点出发", "好的，谢谢你"]
ZH_A = ["我想预订一家便宜的酒店", "请问火车几点发车", "好的，谢谢"]
ZH_B = ["我要订一家便宜酒店", "火车几点出发呢", "好的谢谢你"]
JA_EXPECTED = Path(__file__).parent / "data" / "ja_mecab_expected.json"


def test_multi_reference_zh_against_sacrebleu():
    expected = sacrebleu.corpus_bleu(ZH_HYPS, [ZH_A, ZH_B], tokenize="zh").score
    single = sacrebleu.corpus_bleu(ZH_HYPS, [ZH_A], tokenize="zh").score
    assert 5 < single < expected < 100
    assert M.corpus_bleu(ZH_HYPS, [ZH_A, ZH_B], tokenize="zh") == pytest.approx(expected,
                                                                                abs=1e-9)
    assert M.corpus_bleu(ZH_HYPS, [ZH_A], tokenize="zh") == pytest.approx(single, abs=1e-9)


def test_multi_reference_ja_mecab_against_sacrebleu_tokens():
    """sacrebleu's ja-mecab needs extras not installed here: its own tokens (stored in
    tests/data by sacrebleu's tokenizer) scored with ``tokenize="none"`` are the expectation."""
    items = json.loads(JA_EXPECTED.read_text(encoding="utf-8"))["sentences"]
    n = len(items) // 3
    texts, tokens = [i["text"] for i in items], [i["tokens"] for i in items]
    hyps, a, b = texts[:n], texts[n:2 * n], texts[2 * n:3 * n]
    expected = sacrebleu.corpus_bleu(tokens[:n], [tokens[n:2 * n], tokens[2 * n:3 * n]],
                                     tokenize="none").score
    assert 0 < expected < 100
    assert M.corpus_bleu(hyps, [a, b], tokenize="ja-mecab") == pytest.approx(expected, abs=1e-9)
    sentence = [sacrebleu.sentence_bleu(h, [x, y], tokenize="none").score
                for h, x, y in zip(tokens[:n], tokens[n:2 * n], tokens[2 * n:3 * n], strict=True)]
    assert M.mean_sentence_bleu(hyps, [a, b], tokenize="ja-mecab") == pytest.approx(
        sum(sentence) / n, abs=1e-9)
