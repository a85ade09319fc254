"""``clipped_matches`` (numpy) against the definition, counted with ``Counter`` per segment."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from dst_eval.metrics import ngram_matches
from dst_eval.metrics.ngram_matches import clipped_matches


def _by_definition(hyps, refs, ref_segment, max_order):
    """m[i, n-1] = sum over distinct hyp n-grams g of min(count_hyp(g), max_j count_ref_j(g))."""
    def grams(tokens, n):
        return Counter(tuple(tokens[k:k + n]) for k in range(len(tokens) - n + 1))

    out = np.zeros((len(hyps), max_order), dtype=np.int64)
    for i, hyp in enumerate(hyps):
        mine = [r for r, s in zip(refs, ref_segment, strict=True) if s == i]
        for n in range(1, max_order + 1):
            merged: Counter = Counter()
            for ref in mine:
                merged |= grams(ref, n)
            out[i, n - 1] = sum(min(c, merged[g]) for g, c in grams(hyp, n).items())
    return out


def _random_case(rng: random.Random, n_seg: int, vocabulary: int, max_refs: int):
    words = [f"w{k}" for k in range(vocabulary)]

    def sentence():
        return [rng.choice(words) for _ in range(rng.randint(0, 9))]

    hyps = [sentence() for _ in range(n_seg)]
    refs, ref_segment = [], []
    for i in range(n_seg):
        for _ in range(rng.randint(1, max_refs)):
            refs.append(sentence())
            ref_segment.append(i)
    order = list(range(len(refs)))
    rng.shuffle(order)  # references of one segment need not be adjacent
    return hyps, [refs[k] for k in order], [ref_segment[k] for k in order]


@pytest.mark.parametrize("seed", range(20))
def test_equals_the_definition(seed):
    rng = random.Random(seed)
    hyps, refs, ref_segment = _random_case(rng, rng.randint(1, 40), rng.randint(1, 6),
                                           rng.randint(1, 3))
    for max_order in (1, 4, 6):
        expected = _by_definition(hyps, refs, ref_segment, max_order)
        assert (clipped_matches(hyps, refs, ref_segment, max_order=max_order)
                == expected).all()


@pytest.mark.parametrize("seed", range(5))
def test_renumbering_keeps_keys_exact(monkeypatch, seed):
    """With a tiny bound every order is renumbered densely; the counts do not change."""
    rng = random.Random(100 + seed)
    hyps, refs, ref_segment = _random_case(rng, 30, 4, 2)
    expected = _by_definition(hyps, refs, ref_segment, 4)
    monkeypatch.setattr(ngram_matches, "_LIMIT", 1)
    assert (clipped_matches(hyps, refs, ref_segment, max_order=4) == expected).all()


def test_blocks_of_segments_give_the_same_counts(monkeypatch):
    rng = random.Random(7)
    hyps, refs, ref_segment = _random_case(rng, 50, 5, 3)
    expected = _by_definition(hyps, refs, ref_segment, 4)
    monkeypatch.setattr(ngram_matches, "_CHUNK", 7)
    assert (clipped_matches(hyps, refs, ref_segment, max_order=4) == expected).all()


def test_edges_and_bad_input():
    assert clipped_matches([], [], [], max_order=4).shape == (0, 4)
    assert clipped_matches([[]], [["a"]], [0], max_order=2).tolist() == [[0, 0]]
    assert clipped_matches([["a", "a", "b"]], [["a"], ["a", "a", "c"]], [0, 0],
                           max_order=2).tolist() == [[2, 1]]
    with pytest.raises(ValueError, match="segment indices"):
        clipped_matches([["a"]], [["a"]], [1], max_order=1)
    with pytest.raises(ValueError, match="segment indices"):
        clipped_matches([["a"]] * 3000, [["a"]], [3000], max_order=1)  # blocks too
    with pytest.raises(ValueError, match="references but"):
        clipped_matches([["a"]], [["a"]], [], max_order=1)
