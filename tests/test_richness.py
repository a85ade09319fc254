"""Richness metrics (mwzeval / lexical_diversity definitions) on hand-computed examples.

Fidelity on the 15 real systems is in test_mwz_response.py.
"""

from __future__ import annotations

import math

import pytest
from dst_eval.metrics.richness import lexdiv_tokenize, msttr, richness


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Is it NAME? Yes.", ["is", "it", "name", "yes"]),
        ("", [""]),  # an empty response is one empty token
        ("  a   b ", ["", "a", "b", ""]),  # whitespace runs collapse to one space, then split
        ("don't (see) 50% of a/b - c_d: e; f!", ["dont", "see", "50", "of", "ab", "cd", "e", "f"]),
        ("a & b # c \"d\"", ["a", "&", "b", "#", "c", "\"d\""]),  # not string.punctuation
        ("the SYMphony", ["the", "phony"]),  # 'SYM' is deleted before lower-casing
        ("the symphony", ["the", "symphony"]),
        ("SY-M x", ["", "x"]),  # deleting '-' forms 'SYM', deleted later: leading space
        ("a -LRB- b", ["a", "lrb", "b"]),  # '-' is deleted before '-LRB-' could match
        ("tab\there\nnew", ["tab", "here", "new"]),
    ],
)
def test_lexdiv_tokenize(text: str, tokens: list[str]) -> None:
    assert lexdiv_tokenize(text) == tokens


def test_msttr_short_text_is_plain_ttr() -> None:
    assert msttr(["a", "b", "a"], window_length=50) == pytest.approx(2 / 3)
    assert msttr(["a"] * 50 + ["b"], window_length=50) == pytest.approx(1 / 50)  # 51 > 50
    assert msttr([], window_length=50) == 0.0


def test_msttr_full_windows_only() -> None:
    # windows of 3: [a b c] ttr 1, [a a a] ttr 1/3; the remainder [b] is dropped
    tokens = ["a", "b", "c", "a", "a", "a", "b"]
    assert msttr(tokens, window_length=3) == pytest.approx((1 + 1 / 3) / 2)
    # exactly window_length tokens: still the plain TTR (lex_div needs > window_length)
    assert msttr(["a", "a", "b"], window_length=3) == pytest.approx(2 / 3)


def test_richness_hand_computed() -> None:
    result = richness([["a", "b", "a"], ["b"]])
    # N = 4 tokens, c(a) = c(b) = 2 -> H = 1 bit
    assert result["entropy"] == pytest.approx(1.0)
    # bigrams (a,b), (b,a) once each: -(1/4 log2(1/2) + 1/4 log2(1/2)) = 0.5
    assert result["cond_entropy"] == pytest.approx(0.5)
    assert result["avg_lengths"] == 2.0
    assert result["msttr"] == pytest.approx(0.5)  # 2 types / 4 tokens
    assert (result["num_unigrams"], result["num_bigrams"], result["num_trigrams"]) == (2, 2, 1)


def test_richness_ngrams_do_not_cross_turns() -> None:
    result = richness([["a", "b"], ["c", "d"]])
    assert (result["num_bigrams"], result["num_trigrams"]) == (2, 0)


def test_richness_conditional_entropy_uses_unigram_total() -> None:
    # c(x) = 3, c(x,y) = 2, c(x,z) = 1, N = 6 unigram tokens (not 3 bigrams)
    result = richness([["x", "y"], ["x", "y"], ["x", "z"]])
    expected = -(2 / 6 * math.log2(2 / 3) + 1 / 6 * math.log2(1 / 3))
    assert result["cond_entropy"] == pytest.approx(expected)
    expected_h = -(3 / 6 * math.log2(3 / 6) + 2 / 6 * math.log2(2 / 6) + 1 / 6 * math.log2(1 / 6))
    assert result["entropy"] == pytest.approx(expected_h)


def test_richness_empty_response_counts_one_empty_token() -> None:
    result = richness([lexdiv_tokenize(""), lexdiv_tokenize("hi")])
    assert result["avg_lengths"] == 1.0
    assert result["num_unigrams"] == 2


def test_richness_needs_a_turn() -> None:
    with pytest.raises(ValueError):
        richness([])
