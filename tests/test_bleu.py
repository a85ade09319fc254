"""BLEU on cached segment statistics against sacrebleu itself (corpus and sentence, 1e-9)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import sacrebleu
from dst_eval.metrics.bleu import (
    BleuStats,
    bleu_signature,
    corpus_bleu,
    corpus_bleu_from_stats,
    corpus_bleu_resampled,
    mean_sentence_bleu,
    segment_statistics,
    sentence_bleu_from_stats,
)
from dst_eval.metrics.tokenizers import get_tokenizer
from sacrebleu.metrics.bleu import BLEU

TOL = 1e-9
JA_EXPECTED = Path(__file__).parent / "data" / "ja_mecab_expected.json"

EN_REFS = [
    "I have booked you a table for 4 people at 19:30 on Friday. Your reference is XK92LQ.",
    "There are 12 cheap hotels in the north. Do you need free parking?",
    "The train leaves Cambridge at 09:15 and arrives in London at 10:05.",
    "Sure, the phone number is 01223 354382 and the postcode is CB2 1RQ.",
    "Is there anything else I can help you with today?",
    "The Golden Curry serves Indian food in the centre of town and is expensive.",
    "I'm sorry, there are no Italian restaurants in the east. Would you like another area?",
    "Your taxi is booked: a black Toyota will pick you up; contact number 07218068540.",
    "The museum is free to enter and opens at 10 a.m. every day.",
    "How many nights will you be staying, and how many people?",
    "Booking was successful. The total fee is 10.10 GBP payable at the station.",
    "Thank you for using our service, goodbye!",
    "Ok, I've found Acorn Guest House: 4 stars, moderate price, with wifi & parking.",
    "What time would you like to leave? Trains run every 30 minutes.",
    'The attraction "Kettle\'s Yard" is on Castle Street, in the west.',
    "Yes, the hotel has internet - would you like me to book it?",
]
ZH_REFS = [
    "我想找一家北京的餐厅，价格在100元左右。",
    "为您推荐全聚德（前门店），人均消费150元，评分4.5分。",
    "请帮我预订明天晚上7点的位子，3个人。",
    "好的，已经为您预订成功，订单号是ZX2023。",
    "这家酒店有免费的Wi-Fi和停车场吗？",
    "苏州明天多云转晴，气温18℃～26℃，东南风3级。",
    "故宫的门票是60元，周一闭馆。",
    "从首都机场打车到王府井大约需要45分钟。",
    "您还需要其他帮助吗？",
    "出租车司机的电话是13800138000，车牌号京A·12345。",
    "南京路步行街附近有没有评分高一点的火锅店？",
    "谢谢，再见！",
]


def _perturb_words(text: str, rng: random.Random, vocab: list[str]) -> str:
    words = text.split()
    out = []
    for word in words:
        roll = rng.random()
        if roll < 0.12:
            continue
        if roll < 0.25:
            out.append(rng.choice(vocab))
            continue
        out.append(word)
        if roll > 0.93:
            out.append(rng.choice(vocab))
    return " ".join(out)


def _perturb_chars(text: str, rng: random.Random, alphabet: str) -> str:
    out = []
    for char in text:
        roll = rng.random()
        if roll < 0.1:
            continue
        out.append(rng.choice(alphabet) if roll < 0.2 else char)
    return "".join(out)


@pytest.fixture(scope="module")
def english() -> tuple[list[str], list[str]]:
    rng = random.Random(7)
    vocab = sorted({w for r in EN_REFS for w in r.split()})
    refs, hyps = [], []
    for round_ in range(4):
        for ref in EN_REFS:
            refs.append(ref.lower() if round_ == 3 else ref)
            hyps.append(_perturb_words(ref, rng, vocab))
    hyps[3] = refs[3]  # perfect
    hyps[5] = ""  # empty hypothesis
    hyps[9] = "How many nights will you be staying-\n"  # rstrip() precedes 13a's "-\n" rule
    hyps[11] = "Thank\nyou ,  goodbye  !"
    refs[20] = ""  # empty reference
    refs[21] = "   "
    hyps[22] = refs[22].upper()
    return hyps, refs


@pytest.fixture(scope="module")
def chinese() -> tuple[list[str], list[str]]:
    rng = random.Random(11)
    alphabet = "".join(sorted(set("".join(ZH_REFS))))
    refs = ZH_REFS * 3
    hyps = [_perturb_chars(r, rng, alphabet) for r in refs]
    hyps[4] = ""
    hyps[7] = refs[7]
    return hyps, refs


@pytest.fixture(scope="module")
def japanese() -> dict:
    """Texts and sacrebleu's own ja-mecab tokens (stored), paired as hypothesis/reference."""
    items = json.loads(JA_EXPECTED.read_text(encoding="utf-8"))["sentences"]
    texts = [i["text"] for i in items]
    tokens = [i["tokens"] for i in items]
    pairs = [(k, k + 1) for k in range(0, len(items) - 1, 2)] + [(k, k) for k in range(0, 40, 4)]
    pairs += [(k, (k + 7) % len(items)) for k in range(1, 60, 3)]
    return {
        "hyps": [texts[a] for a, _ in pairs],
        "refs": [texts[b] for _, b in pairs],
        "hyp_tokens": [tokens[a] for a, _ in pairs],
        "ref_tokens": [tokens[b] for _, b in pairs],
    }


def _sentence_scores(hyps, refs, **kwargs) -> list[float]:
    return [
        sacrebleu.sentence_bleu(h, [r], **kwargs).score for h, r in zip(hyps, refs, strict=True)
    ]


@pytest.mark.parametrize("lowercase", [False, True])
def test_english_corpus_and_sentence_bleu(english, lowercase):
    hyps, refs = english
    expected = sacrebleu.corpus_bleu(hyps, [refs], lowercase=lowercase).score
    assert 10 < expected < 90
    assert corpus_bleu(hyps, [refs], tokenize="13a", lowercase=lowercase) == pytest.approx(
        expected, abs=TOL
    )
    stats = segment_statistics(hyps, refs, tokenize="13a", lowercase=lowercase)
    sentence = _sentence_scores(hyps, refs, lowercase=lowercase)
    np.testing.assert_allclose(sentence_bleu_from_stats(stats), sentence, rtol=0, atol=TOL)
    assert mean_sentence_bleu(hyps, [refs], tokenize="13a", lowercase=lowercase) == pytest.approx(
        float(np.mean(sentence)), abs=TOL
    )


def test_statistics_match_sacrebleu_segment_statistics(english):
    hyps, refs = english
    metric = BLEU()
    theirs = np.array(metric._extract_corpus_statistics(hyps, [refs]))
    stats = segment_statistics(hyps, refs)
    np.testing.assert_array_equal(stats.hyp_len, theirs[:, 0])
    np.testing.assert_array_equal(stats.ref_len, theirs[:, 1])
    np.testing.assert_array_equal(stats.matches, theirs[:, 2:6])
    np.testing.assert_array_equal(stats.totals, theirs[:, 6:10])


@pytest.mark.parametrize("tokenize", ["zh", "jieba", "13a"])
def test_chinese(chinese, tokenize):
    hyps, refs = chinese
    stats = segment_statistics(hyps, refs, tokenize=tokenize)
    if tokenize == "jieba":  # sacrebleu has no jieba: feed it the jieba tokens, untokenised
        tok = get_tokenizer("jieba")
        sb_hyps, sb_refs, sb_tok = [tok(h) for h in hyps], [tok(r) for r in refs], "none"
    else:
        sb_hyps, sb_refs, sb_tok = hyps, refs, tokenize
    expected = sacrebleu.corpus_bleu(sb_hyps, [sb_refs], tokenize=sb_tok).score
    assert corpus_bleu_from_stats(stats) == pytest.approx(expected, abs=TOL)
    sentence = _sentence_scores(sb_hyps, sb_refs, tokenize=sb_tok)
    np.testing.assert_allclose(sentence_bleu_from_stats(stats), sentence, rtol=0, atol=TOL)


def test_13a_on_chinese_is_near_zero_zh_is_not(chinese):
    hyps, refs = chinese
    zh = corpus_bleu(hyps, [refs], tokenize="zh")
    raw = corpus_bleu(hyps, [refs], tokenize="13a")
    assert zh > 40 and raw < zh / 3


def test_japanese_against_sacrebleu_ja_mecab_tokens(japanese):
    hyps, refs = japanese["hyps"], japanese["refs"]
    h_tok, r_tok = japanese["hyp_tokens"], japanese["ref_tokens"]
    stats = segment_statistics(hyps, refs, tokenize="ja-mecab")
    expected_corpus = sacrebleu.corpus_bleu(h_tok, [r_tok], tokenize="none").score
    assert 5 < expected_corpus < 60
    assert corpus_bleu_from_stats(stats) == pytest.approx(expected_corpus, abs=TOL)
    sentence = _sentence_scores(h_tok, r_tok, tokenize="none")
    np.testing.assert_allclose(sentence_bleu_from_stats(stats), sentence, rtol=0, atol=TOL)
    assert mean_sentence_bleu(hyps, [refs], tokenize="ja-mecab-ipadic") == pytest.approx(
        float(np.mean(sentence)), abs=TOL
    )


def test_empty_hypotheses_and_references():
    hyps = ["", "a b c", "", "the cat"]
    refs = ["a b c", "", "", "the cat sat"]
    stats = segment_statistics(hyps, refs)
    np.testing.assert_array_equal(stats.hyp_len, [0, 3, 0, 2])
    np.testing.assert_array_equal(stats.ref_len, [3, 0, 0, 3])
    assert corpus_bleu_from_stats(stats) == pytest.approx(
        sacrebleu.corpus_bleu(hyps, [refs]).score, abs=TOL
    )
    np.testing.assert_allclose(
        sentence_bleu_from_stats(stats), _sentence_scores(hyps, refs), atol=TOL
    )
    all_empty = segment_statistics(["", ""], ["x y", "z"])
    assert (
        corpus_bleu_from_stats(all_empty) == sacrebleu.corpus_bleu(["", ""], [["x y", "z"]]).score
    )
    assert corpus_bleu_from_stats(all_empty) == 0.0


def test_multi_reference_variable_count(english):
    hyps, refs = english
    rng = random.Random(3)
    multi = []
    for i, ref in enumerate(refs):
        alternatives = [ref, refs[(i + 5) % len(refs)], refs[(i + 1) % len(refs)].lower()]
        multi.append(alternatives[: 1 + i % 3] + ([None] if i % 4 == 0 else []))
    rng.shuffle(multi)
    streams = [[m[k] if k < len(m) else None for m in multi] for k in range(4)]
    metric = BLEU()
    expected = metric.corpus_score(hyps, streams)
    stats = segment_statistics(hyps, multi)
    assert stats.nrefs == -1
    assert corpus_bleu_from_stats(stats) == pytest.approx(expected.score, abs=TOL)
    assert corpus_bleu(hyps, streams, tokenize="13a") == pytest.approx(expected.score, abs=TOL)
    sentence = [
        sacrebleu.sentence_bleu(h, [r for r in m if r is not None]).score
        for h, m in zip(hyps, multi, strict=True)
    ]
    np.testing.assert_allclose(sentence_bleu_from_stats(stats), sentence, rtol=0, atol=TOL)
    ours = stats.signature().replace("|agg:corpus", "")
    assert ours == metric.get_signature().format() and "nrefs:var" in ours


def test_multi_reference_without_an_ngram_of_some_order():
    """Two reference streams whose references are all shorter than 4 tokens: no 4-gram on
    the reference side (it used to raise IndexError). Expected values: sacrebleu's."""
    hyps, streams = ["yes please", "sure thing"], [["yes please", "ok"], ["sure", "fine"]]
    assert corpus_bleu(hyps, streams) == pytest.approx(
        sacrebleu.corpus_bleu(hyps, streams).score, abs=TOL)
    stats = segment_statistics(hyps, [list(r) for r in zip(*streams, strict=True)])
    np.testing.assert_allclose(sentence_bleu_from_stats(stats), [
        sacrebleu.sentence_bleu(h, list(r)).score
        for h, r in zip(hyps, zip(*streams, strict=True), strict=True)], rtol=0, atol=TOL)


def test_closest_reference_length_ties_take_shorter():
    stats = segment_statistics(["a b c d"], [("a b", "a b c d e f", "x y z w v u")])
    assert stats.ref_len.tolist() == [2]  # |4-2| == |4-6|: shorter wins
    stats = segment_statistics(["a b c d"], [("a b c", "a b c d e")])
    assert stats.ref_len.tolist() == [3]
    expected = sacrebleu.corpus_bleu(["a b c d"], [["a b c"], ["a b c d e"]]).score
    assert corpus_bleu_from_stats(stats) == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize(
    ("smooth_method", "smooth_value"),
    [("exp", None), ("none", None), ("floor", None), ("floor", 0.3), ("add-k", None), ("add-k", 2)],
)
@pytest.mark.parametrize("effective_order", [False, True])
def test_smoothing_variants(english, smooth_method, smooth_value, effective_order):
    hyps, refs = english
    hyps, refs = hyps[:20], refs[:20]
    options = {"smooth_method": smooth_method, "smooth_value": smooth_value}
    stats = segment_statistics(hyps, refs)
    corpus = sacrebleu.corpus_bleu(hyps, [refs], use_effective_order=effective_order, **options)
    assert corpus_bleu_from_stats(
        stats, effective_order=effective_order, **options
    ) == pytest.approx(corpus.score, abs=TOL)
    sentence = _sentence_scores(hyps, refs, use_effective_order=effective_order, **options)
    ours = sentence_bleu_from_stats(stats, effective_order=effective_order, **options)
    np.testing.assert_allclose(ours, sentence, rtol=0, atol=TOL)


def test_bootstrap_resample_reuses_statistics(english):
    hyps, refs = english
    stats = segment_statistics(hyps, refs)
    idx = np.random.default_rng(12345).choice(len(hyps), size=(6, len(hyps)), replace=True)
    expected = [
        sacrebleu.corpus_bleu([hyps[k] for k in row], [[refs[k] for k in row]]).score for row in idx
    ]
    assert len(set(np.round(expected, 6))) == len(expected)  # the resamples differ
    for row, value in zip(idx, expected, strict=True):
        assert corpus_bleu_from_stats(stats, row) == pytest.approx(value, abs=TOL)
        assert corpus_bleu_from_stats(stats.take(row)) == pytest.approx(value, abs=TOL)
    resampled = corpus_bleu_resampled(stats, idx, chunk_rows=100)  # several chunks
    np.testing.assert_allclose(resampled, expected, rtol=0, atol=TOL)
    sentence = sentence_bleu_from_stats(stats)
    np.testing.assert_allclose(sentence_bleu_from_stats(stats, idx[0]), sentence[idx[0]])


def test_dialogue_level_resampling_with_group_sums(english):
    hyps, refs = english
    sizes = [1, 3, 5, 2, 4, 6, 2, 3, 1, 5, 4, 3, 2, 7, 4, 6, 2, 4]
    assert sum(sizes) == len(hyps)
    dialogue = np.repeat(np.arange(len(sizes)), sizes)
    members = [np.flatnonzero(dialogue == d) for d in range(len(sizes))]
    per_dialogue = segment_statistics(hyps, refs).group_sum(dialogue)
    assert len(per_dialogue) == len(sizes)
    idx = np.random.default_rng(1).choice(len(sizes), size=(4, len(sizes)), replace=True)
    for row, score in zip(idx, corpus_bleu_resampled(per_dialogue, idx), strict=True):
        segments = np.concatenate([members[d] for d in row])
        expected = sacrebleu.corpus_bleu(
            [hyps[k] for k in segments], [[refs[k] for k in segments]]
        ).score
        assert score == pytest.approx(expected, abs=TOL)
        assert corpus_bleu_from_stats(per_dialogue, row) == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize(
    ("tokenize", "lowercase", "effective_order"),
    [("13a", False, False), ("13a", True, False), ("zh", False, True), ("intl", False, False)],
)
def test_signature_matches_sacrebleu(tokenize, lowercase, effective_order):
    metric = BLEU(tokenize=tokenize, lowercase=lowercase, effective_order=effective_order)
    metric.corpus_score(["a b"], [["a b"]])
    ours = bleu_signature(tokenize=tokenize, lowercase=lowercase, effective_order=effective_order)
    assert ours.replace("|agg:corpus", "") == metric.get_signature().format()


def test_signature_fields_for_cjk_and_sentence_mean():
    version = sacrebleu.__version__
    assert bleu_signature(tokenize="ja-mecab", aggregate="sentence-mean") == (
        f"nrefs:1|case:mixed|eff:yes|tok:ja-mecab-0.996-IPA|smooth:exp|agg:sentence-mean"
        f"|version:{version}"
    )
    assert bleu_signature(tokenize="jieba", ref_tokenize="none", n_bootstrap=1000, seed=12345) == (
        f"nrefs:1|bs:1000|rs:12345|case:mixed|eff:no|tok:jieba-0.42.1|smooth:exp|reftok:none"
        f"|agg:corpus|version:{version}"
    )
    assert "smooth:floor[0.10]" in bleu_signature(smooth_method="floor")


def test_reference_tokenizer_for_presegmented_references():
    refs = ["我 想 找 一家 北京 的 餐厅", "谢谢 ， 再见"]
    hyps = ["我想找一家北京的餐厅", "谢谢，再见！"]
    stats = segment_statistics(hyps, refs, tokenize="jieba", ref_tokenize="none")
    tok = get_tokenizer("jieba")
    expected = sacrebleu.corpus_bleu([tok(h) for h in hyps], [refs], tokenize="none").score
    assert corpus_bleu_from_stats(stats) == pytest.approx(expected, abs=TOL)
    assert stats.ref_tokenize == "none" and "reftok:none" in stats.signature()


def test_group_sum_preserves_corpus_score(english):
    hyps, refs = english
    stats = segment_statistics(hyps, refs)
    groups = np.arange(len(hyps)) % 5
    assert corpus_bleu_from_stats(stats.group_sum(groups)) == pytest.approx(
        corpus_bleu_from_stats(stats), abs=TOL
    )


def test_bad_inputs():
    with pytest.raises(ValueError, match="2 hypotheses but 1 references"):
        segment_statistics(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="segment 1 has no reference"):
        segment_statistics(["a", "b"], ["a", [None]])
    with pytest.raises(TypeError, match="hypothesis 0"):
        segment_statistics([None], ["a"])
    with pytest.raises(TypeError, match="reference 0"):
        segment_statistics(["a"], [3])
    with pytest.raises(ValueError, match="no segments"):
        corpus_bleu([], [], tokenize="13a")
    with pytest.raises(ValueError, match="no segments"):
        mean_sentence_bleu([], [], tokenize="13a")
    stats = segment_statistics(["a"], ["a"])
    with pytest.raises(ValueError, match="smooth_method"):
        corpus_bleu_from_stats(stats, smooth_method="laplace")
    with pytest.raises(ValueError, match="group labels"):
        stats.group_sum([3], n_groups=2)
    with pytest.raises(ValueError, match="disagree"):
        BleuStats(stats.matches, stats.totals, stats.hyp_len, np.zeros(2, dtype=np.int64))
    empty = segment_statistics([], [])
    assert len(empty) == 0 and corpus_bleu_from_stats(empty) == 0.0
    assert sentence_bleu_from_stats(empty).shape == (0,)
