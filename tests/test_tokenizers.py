"""BLEU tokenizer registry: sacrebleu-identical tokens, versioned signatures, lazy heavy imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jieba
import pytest
from dst_eval.metrics.tokenizers import ALIASES, TOKENIZERS, TokenizerError, get_tokenizer
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

from dst_eval.errors import DstEvalError, UsageError

JA_EXPECTED = Path(__file__).parent / "data" / "ja_mecab_expected.json"

MIXED_TEXTS = [
    "I need a cheap hotel in the north, with free parking & wifi.",
    "The train leaves at 09:15 and costs 10.10 pounds; reference is A1B2-C3.",
    "She said \"no\" -- it's 3-4 stars, isn't it?",
    "我想找一家北京的餐厅，价格在100元左右。",
    "请帮我预订明天晚上7点的位子，3个人。",
    "苏州的天气：晴，气温 25℃～30℃。",
    "東京駅から札幌までのタクシーを予約したいです。",
    "Ｗｉ－Ｆｉ和免费停车场都有吗？ Yes, both!",
    "  leading and trailing spaces  ",
    "",
]


@pytest.fixture(scope="module")
def ja_expected() -> dict:
    return json.loads(JA_EXPECTED.read_text(encoding="utf-8"))


def test_registry_names_and_aliases():
    assert set(TOKENIZERS) == {"none", "13a", "intl", "zh", "jieba", "ja-mecab-ipadic"}
    assert ALIASES == {"ja-mecab": "ja-mecab-ipadic"}
    assert get_tokenizer("ja-mecab") is get_tokenizer("ja-mecab-ipadic")
    for name, tokenizer in TOKENIZERS.items():
        assert get_tokenizer(name) is tokenizer
        assert tokenizer.name == name


@pytest.mark.parametrize("name", ["13a ", "char", "ja-mecab-unidic", "", None])
def test_unknown_tokenizer_is_one_line_usage_error(name):
    # metrics/ is pure: a plain ValueError there, translated to a usage error (exit 2) at the
    # dst_eval boundary (dst_eval.corpora.tokenizer), with the same one-line message.
    from dst_eval.corpora import tokenizer

    with pytest.raises(TokenizerError) as pure:
        get_tokenizer(name)
    assert isinstance(pure.value, ValueError) and not isinstance(pure.value, DstEvalError)
    with pytest.raises(UsageError) as info:
        tokenizer(name)
    assert isinstance(info.value, DstEvalError) and info.value.exit_code == 2
    for message in (str(info.value), str(pure.value)):
        assert "\n" not in message and "unknown BLEU tokenizer" in message
        assert "ja-mecab" in message


@pytest.mark.parametrize(
    ("name", "sacrebleu_class"),
    [("13a", Tokenizer13a), ("zh", TokenizerZh), ("intl", TokenizerV14International)],
)
def test_sacrebleu_tokenizers_are_sacrebleus(name, sacrebleu_class):
    ours, theirs = get_tokenizer(name), sacrebleu_class()
    assert ours.signature() == theirs.signature() == name
    for text in MIXED_TEXTS:
        assert ours(text) == theirs(text)


def test_fast_zh_equals_sacrebleu_zh_on_every_bmp_character():
    """Our ``zh`` re-implements sacrebleu's per-character loop with one str.translate."""
    ours, theirs = get_tokenizer("zh"), TokenizerZh()
    ours("warm up")
    assert ours._fallback is None  # the fast path is in use (sacrebleu's rules as expected)
    code_points = [*range(0x10000), 0x1F600, 0x20000, 0x2A6D6, 0x2F800, 0x10FFFF]
    for start in range(0, len(code_points), 512):
        chars = [chr(cp) for cp in code_points[start : start + 512]]
        text = "".join(f"{c}.{c}1-{c}a,{c}" for c in chars)
        assert ours(text) == theirs(text), f"block starting at U+{code_points[start]:04X}"


def test_fast_13a_equals_sacrebleu_13a():
    """Our ``13a`` pads the first rule's characters with one str.translate and never imports
    sacrebleu; sacrebleu's ``Tokenizer13a`` gives the same tokens on every BMP character
    (in contexts that exercise all four rules), on entities, newlines and ``<skipped>``,
    and on 50,000 random strings over the characters its rules treat specially."""
    import random
    import re

    from dst_eval.metrics.tokenizers import _ASCII_PADDED, _REGEXP_RULES
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    rules = TokenizerRegexp()._re
    assert tuple(p.pattern for p, _ in rules) == _REGEXP_RULES
    assert [r for _, r in rules] == [r" \1 ", r"\1 \2 ", r" \1 \2", r"\1 \2 "]
    first = re.compile(_REGEXP_RULES[0])
    assert {chr(cp) for cp in range(0x10000) if first.fullmatch(chr(cp))} == _ASCII_PADDED
    ours, theirs = get_tokenizer("13a"), Tokenizer13a()
    for start in range(0, 0x10000, 512):
        text = "".join(f"{chr(cp)}.{chr(cp)}1-{chr(cp)}a,{chr(cp)} "
                       for cp in range(start, start + 512))
        assert ours(text) == theirs(text), f"block starting at U+{start:04X}"
    special = ["&quot;a&amp;b&lt;c&gt;&", "<skipped>x-\ny\nz", "1-2 a-b 3.4 a.b 5,6 a,b.",
               "  \t ", "\u2003a\u00a0b\u3000"]
    rng = random.Random(13)
    alphabet = "a1 .,-&;<>\n\t'\"{}~[]^_`!#$%()*+:=?@/\\\u2003é中quotampltgskiped"
    special += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
                for _ in range(50_000)]
    for text in special:
        assert ours(text) == theirs(text), repr(text)
    assert ours.signature() == theirs.signature() == "13a"


def test_none_tokenizer_keeps_text():
    assert get_tokenizer("none")("a  b c ") == "a  b c "
    assert get_tokenizer("none").signature() == "none"


def test_zh_is_character_level_13a_is_not():
    text = "我想找一家北京的餐厅，价格在100元左右。"
    assert get_tokenizer("zh")(text) == "我 想 找 一 家 北 京 的 餐 厅 ， 价 格 在 100 元 左 右 。"
    assert get_tokenizer("13a")(text) == "我想找一家北京的餐厅，价格在100元左右。"


def test_jieba_words_without_whitespace_tokens():
    tokenizer = get_tokenizer("jieba")
    assert tokenizer.signature() == f"jieba-{jieba.__version__}"
    assert tokenizer("我想找一家 北京的餐厅，价格在100元左右。\r\n谢谢") == (
        "我 想 找 一家 北京 的 餐厅 ， 价格 在 100 元 左右 。 谢谢"
    )
    assert tokenizer("  \t\u3000 ") == ""
    for text in MIXED_TEXTS:  # same words as jieba.lcut with HMM, minus whitespace tokens
        expected = [w for w in jieba.lcut(text, HMM=True) if w.strip()]
        assert tokenizer(text).split() == expected


def test_ja_mecab_matches_sacrebleu_stored_tokens(ja_expected):
    sentences = ja_expected["sentences"]
    assert len(sentences) >= 200
    tokenizer = get_tokenizer("ja-mecab-ipadic")
    mismatches = [
        (item["text"], item["tokens"], tokenizer(item["text"]))
        for item in sentences
        if tokenizer(item["text"]) != item["tokens"]
    ]
    assert mismatches == []
    assert tokenizer.signature() == ja_expected["tokenizer_signature"] == "ja-mecab-0.996-IPA"


def test_ja_mecab_stored_data_covers_hard_cases(ja_expected):
    texts = [item["text"] for item in ja_expected["sentences"]]
    joined = "".join(texts)
    for needle in ("０", "ｶ", "\u3000", "\t", "℃", "〒", "¥", "￥", "Wi-Fi", "03-", "😊", "\x00"):
        assert needle in joined
    assert "" in texts and any(t != t.strip() for t in texts)


def test_ja_mecab_tagger_built_once():
    tokenizer = get_tokenizer("ja-mecab")
    tokenizer("一回目の呼び出しです。")
    tagger = tokenizer._tagger
    for i in range(50):
        tokenizer(f"{i}番目の文をトークン化します。")
    assert tokenizer._tagger is tagger is get_tokenizer("ja-mecab-ipadic")._tagger


def test_heavy_libraries_load_lazily():
    code = (
        "import sys; import dst_eval.metrics.tokenizers, dst_eval.metrics.bleu; "
        "print(sorted(m for m in ('jieba', 'fugashi', 'ipadic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_13a_bleu_does_not_import_sacrebleu():
    """English BLEU (13a) needs no sacrebleu import (≈0.2 s of every MultiWOZ response run)."""
    code = (
        "import sys; from dst_eval.metrics.bleu import segment_statistics; "
        "segment_statistics(['a b .'], ['a b c .'], tokenize='13a'); "
        "print('sacrebleu' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_every_corpus_config_names_a_registered_tokenizer_never_13a_on_cjk():
    from dst_eval.config import corpus_config
    from dst_eval.corpora import names

    expected_signature = {"en": "13a", "zh": "zh", "ja": "ja-mecab-0.996-IPA"}
    for corpus in names():
        config = corpus_config(corpus)
        tokenizer = get_tokenizer(config.tokenizer)
        assert tokenizer.signature() == expected_signature[config.language], corpus
