"""BLEU (Papineni et al., 2002) exactly as sacrebleu 2.x computes it, on cached segment statistics.

Each segment is tokenised and its n-grams counted once (:func:`segment_statistics`); every
score is then a function of the per-segment sufficient statistics (:class:`BleuStats`):

- ``m[i, n]`` clipped n-gram matches: sum over distinct hyp n-grams g of order n+1 of
  ``min(count_hyp(g), max_r count_ref_r(g))`` (counts merged over the references by maximum);
- ``t[i, n]`` hyp n-grams of order n+1, ``max(0, hyp_len - n)``;
- ``h[i]`` hyp length in tokens, ``r[i]`` the length of the reference closest to ``h[i]``
  (ties: the shorter one; sacrebleu's rule).

For summed statistics (one segment, a corpus, or a bootstrap resample) with N = 4 orders::

    BP     = 1 if h >= r else (exp(1 - r/h) if h > 0 else 0)
    p_n    = 100 * m_n / t_n                              if m_n > 0
           = 100 / (2^k * t_n)   (smooth "exp", k = number of orders <= n with m = 0)
           = 100 * floor / t_n   (smooth "floor");  0 (smooth "none")
    orders = 1 .. first order with t_n = 0, exclusive      (sacrebleu stops there)
    E      = number of those orders if effective_order else N   (missing orders give p = 0)
    BLEU   = BP * exp( (1/E) * sum_{n<=E} log p_n ),  log 0 := -9999999999;  0 if all m = 0

Corpus BLEU sums the statistics over segments first (``effective_order=False``: sacrebleu
``corpus_bleu`` defaults, ``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp``). Sentence BLEU
scores each segment alone with ``effective_order=True`` (sacrebleu ``sentence_bleu``);
JMultiWOZ's official BLEU is the mean of sentence BLEU with ``ja-mecab``.

Bootstrap resampling (sacrebleu, mjpost/sacrebleu#70) reuses the statistics: corpus BLEU of a
resample is the formula on ``stats.take(idx)`` sums; nothing is re-tokenised. For resampling
whole dialogues, sum the segments per dialogue first with :meth:`BleuStats.group_sum`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib.metadata import PackageNotFoundError, version

import numpy as np
from dst_eval.metrics.ngram_matches import clipped_matches
from dst_eval.metrics.reference_streams import ReferenceStreams, per_segment_references, undefined
from dst_eval.metrics.tokenizers import get_tokenizer

__all__ = [
    "MAX_NGRAM_ORDER",
    "SMOOTH_DEFAULTS",
    "BleuStats",
    "bleu_signature",
    "corpus_bleu",
    "corpus_bleu_from_stats",
    "corpus_bleu_resampled",
    "mean_sentence_bleu",
    "per_segment_references",
    "segment_statistics",
    "sentence_bleu_from_stats",
]

MAX_NGRAM_ORDER = 4
SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
"""Smoothing methods (Chen & Cherry, 2014) and their default values, as in sacrebleu."""

_LOG_ZERO = -9999999999.0  # sacrebleu's floored log(0)
AGGREGATES = ("corpus", "sentence-mean")

References = Sequence[str | Sequence[str | None]]
"""One entry per hypothesis: a reference string, or a sequence of them (``None`` skipped)."""


@dataclass(frozen=True, eq=False)
class BleuStats:
    """Per-segment BLEU sufficient statistics (integer numpy arrays, one row per segment)."""

    matches: np.ndarray  # (n, N) clipped n-gram matches per order
    totals: np.ndarray  # (n, N) hypothesis n-grams per order
    hyp_len: np.ndarray  # (n,) hypothesis tokens
    ref_len: np.ndarray  # (n,) closest reference length
    tokenize: str = "13a"
    lowercase: bool = False
    nrefs: int = 1
    """References per segment; -1 when it varies (sacrebleu's ``nrefs:var``)."""
    ref_tokenize: str | None = None
    """Tokenizer of the references when it differs from ``tokenize``."""

    def __post_init__(self) -> None:
        n = len(self.hyp_len)
        if self.matches.ndim != 2 or self.matches.shape != self.totals.shape:
            raise ValueError("matches and totals must be 2-D arrays of the same shape")
        if self.matches.shape[0] != n or self.ref_len.shape != (n,) or self.hyp_len.ndim != 1:
            raise ValueError("BleuStats arrays disagree on the number of segments")

    def __len__(self) -> int:
        return len(self.hyp_len)

    @property
    def max_ngram_order(self) -> int:
        return self.matches.shape[1]

    def _replace_rows(self, matches, totals, hyp_len, ref_len) -> BleuStats:
        return replace(self, matches=matches, totals=totals, hyp_len=hyp_len, ref_len=ref_len)

    def take(self, idx: np.ndarray | Sequence[int]) -> BleuStats:
        """The segments at ``idx`` (repeats allowed: a bootstrap resample)."""
        idx = np.asarray(idx, dtype=np.intp)
        return self._replace_rows(
            self.matches[idx], self.totals[idx], self.hyp_len[idx], self.ref_len[idx]
        )

    def group_sum(
        self, groups: np.ndarray | Sequence[int], n_groups: int | None = None
    ) -> BleuStats:
        """Statistics summed per group label ``0 .. n_groups-1`` (e.g. one row per dialogue).

        Valid for corpus BLEU (a sum over segments), not for sentence BLEU.
        """
        groups = np.asarray(groups, dtype=np.intp)
        if groups.shape != (len(self),):
            raise ValueError(f"need one group label per segment ({len(self)}), got {groups.shape}")
        if n_groups is None:
            n_groups = int(groups.max()) + 1 if len(groups) else 0
        if len(groups) and (groups.min() < 0 or groups.max() >= n_groups):
            raise ValueError(f"group labels must lie in 0..{n_groups - 1}")
        out = [np.zeros((n_groups, *a.shape[1:]), dtype=np.int64) for a in self._arrays()]
        for target, source in zip(out, self._arrays(), strict=True):
            np.add.at(target, groups, source)
        return self._replace_rows(*out)

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return self.matches, self.totals, self.hyp_len, self.ref_len

    def signature(self, *, aggregate: str = "corpus", **options) -> str:
        """:func:`bleu_signature` of scores computed from these statistics."""
        return bleu_signature(
            tokenize=self.tokenize,
            lowercase=self.lowercase,
            nrefs=self.nrefs,
            ref_tokenize=self.ref_tokenize,
            aggregate=aggregate,
            **options,
        )


def _reference_list(entry: str | Sequence[str | None], i: int) -> list[str]:
    if isinstance(entry, str):
        return [entry]
    if not isinstance(entry, Sequence):
        raise TypeError(f"reference {i}: expected a string or a sequence of strings")
    refs = [r for r in entry if r is not None]
    if not all(isinstance(r, str) for r in refs):
        raise TypeError(f"reference {i}: expected a string or a sequence of strings")
    if not refs:
        raise ValueError(f"segment {i} has no reference")
    return refs


def _closest_ref_len(hyp_len: int, ref_lens: list[int]) -> int:
    """The reference length closest to ``hyp_len``; on a tie the shorter (sacrebleu)."""
    return min(ref_lens, key=lambda ref_len: (abs(hyp_len - ref_len), ref_len))


def segment_statistics(
    hyps: Sequence[str],
    refs: References,
    *,
    tokenize: str = "13a",
    lowercase: bool = False,
    ref_tokenize: str | None = None,
    max_ngram_order: int = MAX_NGRAM_ORDER,
) -> BleuStats:
    """Tokenise each segment once and count its BLEU sufficient statistics.

    ``refs[i]`` is the reference of ``hyps[i]``: a string, or a sequence of strings for
    multi-reference BLEU (``None`` entries are skipped, like sacrebleu's padded streams).
    Preprocessing is sacrebleu's: optional ``lower()``, then ``rstrip()``, then the tokenizer.
    ``ref_tokenize`` tokenises the references differently (e.g. ``none`` for references
    already word-segmented, with ``jieba`` hypotheses); default: same as ``tokenize``.
    """
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references")
    hyp_tok = get_tokenizer(tokenize)
    ref_tok = hyp_tok if ref_tokenize is None else get_tokenizer(ref_tokenize)

    def words(text: str, tokenizer) -> list[str]:
        source = text.lower() if lowercase else text
        return tokenizer(source.rstrip()).split()

    hyp_words: list[list[str]] = []
    seen: dict[str, list[str]] = {}  # delexicalised hypotheses repeat: each is split once
    ref_words: list[list[str]] = []
    ref_segment: list[int] = []
    hyp_len: list[int] = []
    ref_len: list[int] = []
    nrefs_seen: set[int] = set()
    for i, (hyp, entry) in enumerate(zip(hyps, refs, strict=True)):
        if not isinstance(hyp, str):
            raise TypeError(f"hypothesis {i}: expected a string, got {type(hyp).__name__}")
        ref_texts = _reference_list(entry, i)
        nrefs_seen.add(len(ref_texts))
        ref_lens = []
        for text in ref_texts:
            tokens = words(text, ref_tok)
            ref_words.append(tokens)
            ref_segment.append(i)
            ref_lens.append(len(tokens))
        tokens = seen.get(hyp)
        if tokens is None:
            tokens = seen[hyp] = words(hyp, hyp_tok)
        hyp_words.append(tokens)
        hyp_len.append(len(tokens))
        ref_len.append(_closest_ref_len(len(tokens), ref_lens))
    matches = clipped_matches(hyp_words, ref_words, ref_segment, max_order=max_ngram_order)
    hyp_lengths = np.array(hyp_len, dtype=np.int64)
    totals = np.maximum(hyp_lengths[:, None] - np.arange(max_ngram_order), 0)
    nrefs = nrefs_seen.pop() if len(nrefs_seen) == 1 else (-1 if nrefs_seen else 1)
    return BleuStats(
        matches,
        totals,
        hyp_lengths,
        np.array(ref_len, dtype=np.int64),
        tokenize,
        lowercase,
        nrefs,
        None if ref_tokenize in (None, tokenize) else ref_tokenize,
    )


def _bleu_rows(
    matches: np.ndarray,
    totals: np.ndarray,
    hyp_len: np.ndarray,
    ref_len: np.ndarray,
    *,
    smooth_method: str,
    smooth_value: float | None,
    effective_order: bool,
) -> np.ndarray:
    """BLEU (0-100) of each row of summed statistics; the module docstring's formula."""
    if smooth_method not in SMOOTH_DEFAULTS:
        raise ValueError(f"unknown smooth_method {smooth_method!r}; known: {list(SMOOTH_DEFAULTS)}")
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]
    correct = np.array(matches, dtype=np.float64)
    total = np.array(totals, dtype=np.float64)
    hyp = np.asarray(hyp_len, dtype=np.float64)
    ref = np.asarray(ref_len, dtype=np.float64)
    rows, max_order = correct.shape

    brevity = np.ones(rows)
    short = hyp < ref
    positive = short & (hyp > 0)
    brevity[short] = 0.0
    brevity[positive] = np.exp(1 - ref[positive] / hyp[positive])

    any_match = (correct != 0).any(axis=1)
    if smooth_method == "add-k":
        correct[:, 1:] += smooth_value
        total[:, 1:] += smooth_value
    active = np.cumprod(total > 0, axis=1).astype(bool)  # orders before the first empty one
    order_count = np.maximum(active.sum(axis=1), 1) if effective_order else np.full(rows, max_order)

    log_sum = np.zeros(rows)
    halvings = np.ones(rows)
    for n in range(max_order):
        c, t, on = correct[:, n], total[:, n], active[:, n]
        precision = np.zeros(rows)
        hit = on & (c != 0)
        precision[hit] = 100.0 * c[hit] / t[hit]
        miss = on & (c == 0)
        if smooth_method == "exp":
            halvings[miss] *= 2
            precision[miss] = 100.0 / (halvings[miss] * t[miss])
        elif smooth_method == "floor":
            precision[miss] = 100.0 * smooth_value / t[miss]
        log_p = np.full(rows, _LOG_ZERO)
        np.log(precision, out=log_p, where=precision > 0)
        log_sum += np.where(n < order_count, log_p, 0.0)
    scores = brevity * np.exp(log_sum / order_count)
    scores[~any_match] = 0.0
    return scores


def _as_index(stats: BleuStats, idx) -> np.ndarray | slice:
    return slice(None) if idx is None else np.asarray(idx, dtype=np.intp)


def corpus_bleu_from_stats(
    stats: BleuStats,
    idx: np.ndarray | Sequence[int] | None = None,
    *,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> float:
    """Corpus BLEU (0-100) of the segments ``idx`` (all when None; repeats allowed).

    Statistics are summed over the segments, then BLEU = BP * exp(mean_n log p_n).
    """
    rows = _as_index(stats, idx)
    summed = [a[rows].sum(axis=0, keepdims=True) for a in stats._arrays()]
    return float(
        _bleu_rows(
            *summed,
            smooth_method=smooth_method,
            smooth_value=smooth_value,
            effective_order=effective_order,
        )[0]
    )


def corpus_bleu_resampled(
    stats: BleuStats,
    idx: np.ndarray,
    *,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
    chunk_rows: int = 1 << 22,
) -> np.ndarray:
    """Corpus BLEU of every resample: row ``j`` of ``idx`` (n_samples x k) indexes ``stats``.

    For sacrebleu-style bootstrap CIs and paired tests; ``stats`` may hold one row per segment
    or per dialogue (:meth:`BleuStats.group_sum`). Memory is bounded by ``chunk_rows`` gathered
    rows at a time.
    """
    idx = np.asarray(idx, dtype=np.intp)
    if idx.ndim != 2:
        raise ValueError("idx must be a 2-D array: one resample per row")
    step = max(1, chunk_rows // max(1, idx.shape[1]))
    parts = [[] for _ in range(4)]
    for start in range(0, idx.shape[0], step):
        block = idx[start : start + step]
        for part, array in zip(parts, stats._arrays(), strict=True):
            part.append(array[block].sum(axis=1))
    summed = [
        np.concatenate(p) if p else np.zeros((0, *a.shape[1:]), dtype=np.int64)
        for p, a in zip(parts, stats._arrays(), strict=True)
    ]
    return _bleu_rows(
        *summed,
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=effective_order,
    )


def sentence_bleu_from_stats(
    stats: BleuStats,
    idx: np.ndarray | Sequence[int] | None = None,
    *,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
) -> np.ndarray:
    """Sentence BLEU (0-100) of each segment (sacrebleu ``sentence_bleu``: effective order, exp).

    Each row is scored alone: BLEU_i = BP_i * exp((1/E_i) * sum_{n<=E_i} log p_{i,n}).
    """
    rows = _as_index(stats, idx)
    return _bleu_rows(
        *(a[rows] for a in stats._arrays()),
        smooth_method=smooth_method,
        smooth_value=smooth_value,
        effective_order=effective_order,
    )


def corpus_bleu(
    hyps: Sequence[str], refs: ReferenceStreams, *, tokenize: str = "13a",
    lowercase: bool = False, zero_division: str | float = "raise",
) -> float:
    """Corpus BLEU (0-100) = sacrebleu ``corpus_bleu(hyps, refs, tokenize=..., lowercase=...)``.

    ``refs`` is sacrebleu's layout exactly: a list of reference streams, each a list with
    one entry per hypothesis (``None`` for a missing one): ``corpus_bleu(hyps, [refs])``
    for one reference, ``corpus_bleu(hyps, [ref_a, ref_b])`` for two. A flat list of
    strings or a stream of another length is a ``ValueError``
    (:func:`per_segment_references`). No hypotheses: :class:`UndefinedMetric`, or
    ``zero_division``.

    >>> round(corpus_bleu(["the cat sat on the mat"], [["the cat sat on a mat"]]), 2)
    53.73
    """
    if not len(hyps):
        return undefined("corpus_bleu", zero_division)
    per_segment = per_segment_references(hyps, refs)
    stats = segment_statistics(hyps, per_segment, tokenize=tokenize, lowercase=lowercase)
    return corpus_bleu_from_stats(stats)


def mean_sentence_bleu(
    hyps: Sequence[str], refs: ReferenceStreams, *, tokenize: str = "13a",
    lowercase: bool = False, zero_division: str | float = "raise",
) -> float:
    """Mean over segments of sacrebleu ``sentence_bleu`` (effective order, exp smoothing), 0-100.

    mean_i BLEU_i; the JMultiWOZ official BLEU with ``tokenize="ja-mecab"``. ``refs`` as in
    :func:`corpus_bleu` (reference streams); no hypotheses: :class:`UndefinedMetric`, or
    ``zero_division``.
    """
    if not len(hyps):
        return undefined("mean_sentence_bleu", zero_division)
    per_segment = per_segment_references(hyps, refs)
    stats = segment_statistics(hyps, per_segment, tokenize=tokenize, lowercase=lowercase)
    return float(sentence_bleu_from_stats(stats).mean())


def _sacrebleu_version() -> str:
    try:
        return version("sacrebleu")
    except PackageNotFoundError:  # pragma: no cover - sacrebleu is a dependency
        return "unknown"


def bleu_signature(
    *,
    tokenize: str = "13a",
    lowercase: bool = False,
    nrefs: int = 1,
    aggregate: str = "corpus",
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool | None = None,
    ref_tokenize: str | None = None,
    n_bootstrap: int | None = None,
    seed: str | int | None = None,
) -> str:
    """sacrebleu-format signature, e.g. ``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|...``.

    Fields in sacrebleu's order (``nrefs``, ``bs``, ``rs``, ``case``, ``eff``, ``tok``,
    ``smooth``), then ``reftok`` when references are tokenised differently, ``agg``
    (``corpus`` or ``sentence-mean``) and ``version`` (of sacrebleu, whose formula and
    ``13a``/``zh``/``intl`` tokenizers these numbers reproduce). ``tok`` is the tokenizer's own
    signature (``zh``, ``jieba-0.42.1``, ``ja-mecab-0.996-IPA``). ``effective_order``
    defaults to no for corpus BLEU and yes for mean sentence BLEU.
    """
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate must be one of {AGGREGATES}, got {aggregate!r}")
    if smooth_method not in SMOOTH_DEFAULTS:
        raise ValueError(f"unknown smooth_method {smooth_method!r}")
    if effective_order is None:
        effective_order = aggregate == "sentence-mean"
    smooth = smooth_method
    if SMOOTH_DEFAULTS[smooth_method] is not None:
        value = SMOOTH_DEFAULTS[smooth_method] if smooth_value is None else smooth_value
        smooth += f"[{value:.2f}]"
    fields = [("nrefs", "var" if nrefs == -1 else str(nrefs))]
    if n_bootstrap is not None:
        fields.append(("bs", str(n_bootstrap)))
    if seed is not None:
        fields.append(("rs", str(seed).lower()))
    fields += [
        ("case", "lc" if lowercase else "mixed"),
        ("eff", "yes" if effective_order else "no"),
        ("tok", get_tokenizer(tokenize).signature()),
        ("smooth", smooth),
    ]
    if ref_tokenize is not None and ref_tokenize != tokenize:
        fields.append(("reftok", get_tokenizer(ref_tokenize).signature()))
    fields += [("agg", aggregate), ("version", _sacrebleu_version())]
    return "|".join(f"{key}:{value}" for key, value in fields)
