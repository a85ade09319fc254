"""Dialogue-level bootstrap confidence intervals and paired significance tests.

sacrebleu 2.x conventions (``sacrebleu/significance.py``), with whole **dialogues** as
the resampling unit instead of segments, since turns of a dialogue are correlated (a
wrong slot is carried over). Every metric is a function of column sums
(:class:`~dst_eval.metrics.base.Metric`), so nothing is recomputed per resample: with
D the per-dialogue column totals (n_dialogues x k) and C the resample counts (N x
n_dialogues, ``C[j, d]`` = how often dialogue d is drawn in resample j), the column
sums of every resample are the rows of ``C @ D``.

Seed: ``numpy.random.default_rng(seed)``; ``None`` = unseeded (fresh OS entropy).
:func:`seed_from_env` reads ``DST_EVAL_SEED``, then ``SACREBLEU_SEED`` (default 12345,
``none`` = unseeded).

Bootstrap CI (sacrebleu ``corpus_score(n_bootstrap=N)``): indices =
``rng.choice(n, size=(N, n), replace=True)``; s = sorted resample scores,
``lo = N // 40``, ``hi = N - lo - 1``::

    half_width = 0.5 * (s[hi] - s[lo]),   mean = mean(s)

sacrebleu prints ``score (μ = mean ± half_width)``; ``ci_low``/``ci_high`` are the
percentile bounds s[lo], s[hi] (a 95 % percentile interval when N >= 40).

Paired bootstrap (sacrebleu ``PairedTest(test_type="bs")``, Koehn 2004 / multeval): the
same index matrix for baseline and system; Δ = sys - base on all data,
Δ*_j = |sys_j - base_j|, d_j = Δ*_j - mean(Δ*)::

    p = (#{j : d_j > |Δ|} + 1) / (N + 1)        (sacrebleu; ties: see below)

Approximate randomisation (``test_type="ar"``): mask = ``rng.integers(2, size=(N, n),
dtype=bool)``; pseudo-system A takes the baseline's dialogues where the mask is set and
the system's elsewhere, B the opposite (dialogues are swapped as sacrebleu swaps
segments); x_j = |A_j - B_j|, p = (#{j : x_j > |Δ|} + 1) / (N + 1) (ties: see below).

Two deliberate deviations from sacrebleu, both for sanity by construction:

* Ties count (``ties="include"``): p = (#{x ≥ |Δ|} + 1)/(N + 1), x equal to |Δ| within a
  relative 1e-9. sacrebleu (after multeval) counts only x > |Δ| (``ties="exclude"``
  reproduces it; x within that tolerance of |Δ| is a tie there too, so the rounding
  residues of fractional sums -- AGA's -- never count as greater). With DST metrics,
  ratios of small integers, ties are common and the strict test is anti-conservative: two
  identical systems get p = 1/(N + 1), and under AR two systems differing in one turn get
  p = 1/(N + 1) (every swap gives exactly |Δ|).
  Counting ties gives identical systems p = 1 and the textbook (Noreen 1989) test; on
  continuous scores such as BLEU the two rules agree.
* Seed 0 is seed 0 (sacrebleu's ``PairedTest`` silently makes seed 0 unseeded).

Resamples on which a metric is undefined (NaN, e.g. no gold requested slot drawn) are
left out of its CI and p-value; ``resamples`` in the result says how many were used.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from dst_eval.metrics.base import Metric, TurnTable
from dst_eval.metrics.bleu import MAX_NGRAM_ORDER, BleuStats, sentence_bleu_from_stats

__all__ = [
    "DEFAULT_SEED", "BleuMetric", "Seed", "approximate_randomisation", "bleu_table",
    "bootstrap_ci", "check_paired",
    "estimate_ci", "paired_bootstrap", "parse_seed", "resample_counts", "resample_indices",
    "seed_from_env", "seed_label",
]

DEFAULT_SEED = 12345
SEED_VARIABLES = ("DST_EVAL_SEED", "SACREBLEU_SEED")
TIES = ("include", "exclude")
TIE_RTOL, TIE_ATOL = 1e-9, 1e-12

Seed = int | None


# ---- seeds ---------------------------------------------------------------------------
MAX_SEED = 2**63 - 1
"""The largest seed (the ``--seed`` option's limit, for the environment's seed too)."""


def parse_seed(value: str | int | None) -> Seed:
    """``"none"`` (any case) or None -> None (unseeded); otherwise a non-negative int."""
    if value is None or (isinstance(value, str) and value.strip().lower() == "none"):
        return None
    try:
        seed = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"seed must be a non-negative integer or 'none', got {value!r}") from None
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be a non-negative integer (at most {MAX_SEED}) or "
                         f"'none', got {value!r}")
    return seed


def seed_from_env(environ: Mapping[str, str] | None = None) -> Seed:
    """The seed from ``DST_EVAL_SEED``, else ``SACREBLEU_SEED``, else 12345; "none" = None."""
    environ = os.environ if environ is None else environ
    for variable in SEED_VARIABLES:
        value = environ.get(variable)
        if value is not None and value.strip():
            return parse_seed(value)
    return DEFAULT_SEED


def seed_label(seed: Seed) -> str:
    """The seed as sacrebleu writes it in signatures: ``12345`` or ``none``."""
    return str(seed).lower()


# ---- resampling ----------------------------------------------------------------------
def resample_indices(n_dialogues: int, n_samples: int, *, seed: Seed) -> np.ndarray:
    """``(n_samples, n_dialogues)`` dialogue indices drawn with replacement (sacrebleu's RNG).

    ``numpy.random.default_rng(seed).choice(n_dialogues, size=(n_samples, n_dialogues),
    replace=True)``: the same matrix sacrebleu draws for ``n_dialogues`` segments.
    """
    if n_dialogues < 1:
        raise ValueError("cannot resample an empty set of dialogues")
    if n_samples < 1:
        raise ValueError(f"n_samples must be at least 1, got {n_samples}")
    rng = np.random.default_rng(seed)
    return rng.choice(n_dialogues, size=(n_samples, n_dialogues), replace=True)


def resampled_sums(counts: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """``counts @ totals`` (rows: resamples or trials; ``totals``: per-dialogue sums, one or
    more columns) with numpy's own loops (:func:`numpy.einsum`), not the BLAS library: a
    BLAS product's last bits depend on its thread count, so an interval computed in the
    command (one BLAS thread) and through the Python API in another process would differ.
    ~25 ms for 1,000 resamples x 2,500 dialogues x 30 columns (BLAS: ~4 ms)."""
    return np.einsum("jd,d...->j...", counts, totals)


def resample_counts(indices: np.ndarray, n_dialogues: int) -> np.ndarray:
    """``C[j, d]`` = occurrences of dialogue d in resample j (float, for ``C @ totals``)."""
    n_samples = indices.shape[0]
    offsets = indices + (np.arange(n_samples, dtype=np.int64) * n_dialogues)[:, None]
    counts = np.bincount(offsets.ravel(), minlength=n_samples * n_dialogues)
    return counts.reshape(n_samples, n_dialogues).astype(np.float64)


def _n_dialogues(table: TurnTable) -> int:
    if table.dialogue_ids:
        return len(table.dialogue_ids)
    return int(table.dialogue_index.max()) + 1 if len(table) else 0


def _columns(metrics: Sequence[Metric]) -> list[str]:
    names: list[str] = []
    for metric in metrics:
        names += [c for c in metric.columns if c not in names]
    return names


def _dialogue_totals(table: TurnTable, columns: Sequence[str]) -> np.ndarray:
    """Per-dialogue column totals as an ``(n_dialogues, len(columns))`` matrix."""
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"the table has no column {missing[0]!r} (needed by a metric)")
    sums = table.dialogue_sums(columns)
    return np.column_stack([sums[c] for c in columns]) if columns else np.zeros((0, 0))


def _scores(metric: Metric, columns: Sequence[str], sums: np.ndarray) -> np.ndarray:
    """``metric`` on each row of ``sums`` (rows = resamples, columns = ``columns``)."""
    by_name = {name: sums[:, i] for i, name in enumerate(columns)}
    values = metric.from_sums({c: by_name[c] for c in metric.columns})
    return np.broadcast_to(np.asarray(values, dtype=float), (sums.shape[0],))


def _check_unique_names(metrics: Sequence[Metric]) -> None:
    names = [m.name for m in metrics]
    if len(set(names)) != len(names):
        raise ValueError(f"metric names must be unique, got {names}")


# ---- confidence intervals ------------------------------------------------------------
def estimate_ci(resample_scores: np.ndarray) -> dict[str, float | int]:
    """sacrebleu's ``estimate_ci`` on the finite scores: mean, half width, percentile bounds."""
    scores = np.sort(np.asarray(resample_scores, dtype=float))
    scores = scores[np.isfinite(scores)]
    n = len(scores)
    if n == 0:
        nan = float("nan")
        return {"mean": nan, "ci_low": nan, "ci_high": nan, "half_width": nan, "resamples": 0}
    lower = n // 40
    low, high = float(scores[lower]), float(scores[n - lower - 1])
    return {"mean": float(scores.mean()), "ci_low": low, "ci_high": high,
            "half_width": 0.5 * (high - low), "resamples": n}


def bootstrap_ci(table: TurnTable, metrics: Iterable[Metric], *, n_samples: int = 1000,
                 seed: Seed = DEFAULT_SEED) -> dict[str, dict[str, float | int]]:
    """Dialogue-level bootstrap CI of every metric.

    Returns ``{metric name: {"score", "mean", "ci_low", "ci_high", "half_width",
    "resamples"}}``; ``score`` is the metric on all turns, the rest come from
    :func:`estimate_ci` on ``n_samples`` resamples of whole dialogues.
    """
    metrics = list(metrics)
    _check_unique_names(metrics)
    if n_samples < 2:
        raise ValueError(f"bootstrap needs at least 2 resamples, got {n_samples}")
    n = _n_dialogues(table)
    columns = _columns(metrics)
    totals = _dialogue_totals(table, columns)
    counts = resample_counts(resample_indices(n, n_samples, seed=seed), n)
    resampled = resampled_sums(counts, totals)
    out: dict[str, dict[str, float | int]] = {}
    for metric in metrics:
        out[metric.name] = {"score": metric.score(table),
                            **estimate_ci(_scores(metric, columns, resampled))}
    return out


# ---- paired tests --------------------------------------------------------------------
def check_paired(base_table: TurnTable, sys_table: TurnTable) -> None:
    """Raise ValueError unless both tables cover the same gold turns in the same order."""
    if len(base_table) != len(sys_table):
        raise ValueError(f"the systems are scored on different turns: {len(base_table)} "
                         f"vs {len(sys_table)} turns")
    if base_table.dialogue_ids != sys_table.dialogue_ids:
        first = next((i for i, (a, b) in enumerate(
            zip(base_table.dialogue_ids, sys_table.dialogue_ids, strict=False)) if a != b),
            min(len(base_table.dialogue_ids), len(sys_table.dialogue_ids)))
        raise ValueError(f"the systems are scored on different dialogues (position {first}: "
                         f"{_at(base_table.dialogue_ids, first)} vs "
                         f"{_at(sys_table.dialogue_ids, first)})")
    if not np.array_equal(base_table.dialogue_index, sys_table.dialogue_index):
        row = int(np.argmax(base_table.dialogue_index != sys_table.dialogue_index))
        raise ValueError(f"the systems assign turn {row} to different dialogues")
    if "n_gold" in base_table.columns and "n_gold" in sys_table.columns:
        differ = base_table.columns["n_gold"] != sys_table.columns["n_gold"]
        if differ.any():
            row = int(np.argmax(differ))
            dialogue = _at(base_table.dialogue_ids, int(base_table.dialogue_index[row]))
            raise ValueError(f"the systems are scored against different gold states "
                             f"(dialogue {dialogue}, turn row {row})")


def _at(ids: Sequence[str], i: int) -> str:
    return ids[i] if i < len(ids) else "<none>"


def _p_value(null_statistics: np.ndarray, delta: float, ties: str) -> tuple[float, int]:
    """(#{x ≥ |Δ|} + 1) / (N + 1) over the finite x (``x > |Δ|`` when ``ties="exclude"``;
    x within ``TIE_RTOL``/``TIE_ATOL`` of |Δ| is equal to it)."""
    finite = null_statistics[np.isfinite(null_statistics)]
    if not np.isfinite(delta) or len(finite) == 0:
        return float("nan"), len(finite)
    observed = abs(delta)
    tie = np.isclose(finite, observed, rtol=TIE_RTOL, atol=TIE_ATOL)  # rounding residues too
    extreme = tie | (finite > observed) if ties == "include" else ~tie & (finite > observed)
    return (int(np.count_nonzero(extreme)) + 1) / (len(finite) + 1), len(finite)


def _paired_setup(base_table: TurnTable, sys_table: TurnTable, metrics: Iterable[Metric],
                  ties: str) -> tuple[list[Metric], list[str], np.ndarray, np.ndarray]:
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, got {ties!r}")
    metrics = list(metrics)
    _check_unique_names(metrics)
    check_paired(base_table, sys_table)
    columns = _columns(metrics)
    return (metrics, columns, _dialogue_totals(base_table, columns),
            _dialogue_totals(sys_table, columns))


def _real(metric: Metric, base_table: TurnTable, sys_table: TurnTable) -> dict[str, float]:
    base, system = metric.score(base_table), metric.score(sys_table)
    return {"baseline": base, "system": system, "delta": system - base}


def paired_bootstrap(base_table: TurnTable, sys_table: TurnTable, metrics: Iterable[Metric],
                     *, n_samples: int = 1000, seed: Seed = DEFAULT_SEED,
                     ties: str = "include") -> dict[str, dict]:
    """Paired bootstrap test of ``sys_table`` against ``base_table``, resampling dialogues.

    Per metric: ``{"baseline", "system", "delta", "p_value", "resamples",
    "baseline_ci", "system_ci"}`` (the CIs as :func:`estimate_ci`, on the shared resamples,
    as sacrebleu reports them alongside the test).
    """
    metrics, columns, base_totals, sys_totals = _paired_setup(
        base_table, sys_table, metrics, ties)
    if n_samples < 2:
        raise ValueError(f"bootstrap needs at least 2 resamples, got {n_samples}")
    n = base_totals.shape[0]
    counts = resample_counts(resample_indices(n, n_samples, seed=seed), n)
    base_sums = resampled_sums(counts, base_totals)
    sys_sums = resampled_sums(counts, sys_totals)
    out: dict[str, dict] = {}
    for metric in metrics:
        real = _real(metric, base_table, sys_table)
        base_scores = _scores(metric, columns, base_sums)
        sys_scores = _scores(metric, columns, sys_sums)
        sample_deltas = np.abs(sys_scores - base_scores)
        finite = np.isfinite(sample_deltas)
        centred = sample_deltas - (sample_deltas[finite].mean() if finite.any() else np.nan)
        p, used = _p_value(centred, real["delta"], ties)
        out[metric.name] = {**real, "p_value": p, "resamples": used,
                            "baseline_ci": estimate_ci(base_scores),
                            "system_ci": estimate_ci(sys_scores)}
    return out


def approximate_randomisation(base_table: TurnTable, sys_table: TurnTable,
                              metrics: Iterable[Metric], *, n_trials: int = 10000,
                              seed: Seed = DEFAULT_SEED, ties: str = "include",
                              chunk: int = 2048) -> dict[str, dict]:
    """Paired approximate randomisation test, swapping whole dialogues between the systems.

    Per metric: ``{"baseline", "system", "delta", "p_value", "trials"}``. With M the swap
    mask, B and S the per-dialogue totals: A = M·B + (¬M)·S = ΣS + M·(B − S) and
    B' = ΣB − M·(B − S); ``chunk`` bounds the rows converted to float at once.
    """
    metrics, columns, base_totals, sys_totals = _paired_setup(
        base_table, sys_table, metrics, ties)
    if n_trials < 1:
        raise ValueError(f"n_trials must be at least 1, got {n_trials}")
    n = base_totals.shape[0]
    if n < 1:
        raise ValueError("cannot randomise an empty set of dialogues")
    rng = np.random.default_rng(seed)
    mask = rng.integers(2, size=(n_trials, n), dtype=bool)
    difference = base_totals - sys_totals
    swapped = np.concatenate([resampled_sums(mask[i:i + chunk].astype(np.float64), difference)
                              for i in range(0, n_trials, chunk)])
    pseudo_a = sys_totals.sum(axis=0) + swapped
    pseudo_b = base_totals.sum(axis=0) - swapped
    out: dict[str, dict] = {}
    for metric in metrics:
        real = _real(metric, base_table, sys_table)
        statistics = np.abs(_scores(metric, columns, pseudo_a) - _scores(metric, columns, pseudo_b))
        p, used = _p_value(statistics, real["delta"], ties)
        out[metric.name] = {**real, "p_value": p, "trials": used}
    return out


# ---- BLEU as a sum-defined metric ----------------------------------------------------
def _bleu_column_names(max_order: int = MAX_NGRAM_ORDER) -> tuple[str, ...]:
    return (*(f"match_{k}" for k in range(1, max_order + 1)),
            *(f"total_{k}" for k in range(1, max_order + 1)), "hyp_len", "ref_len")


def bleu_table(stats: BleuStats, dialogue_ids: Sequence[str]) -> TurnTable:
    """A :class:`TurnTable` of BLEU statistics: one row per segment, ``dialogue_ids[i]`` its
    dialogue (a dialogue's segments consecutive), for :class:`BleuMetric` bootstraps."""
    if len(dialogue_ids) != len(stats):
        raise ValueError(f"{len(dialogue_ids)} dialogue ids for {len(stats)} segments")
    order = stats.max_ngram_order
    columns = {f"match_{k + 1}": stats.matches[:, k].astype(np.float64) for k in range(order)}
    columns |= {f"total_{k + 1}": stats.totals[:, k].astype(np.float64) for k in range(order)}
    columns |= {"hyp_len": stats.hyp_len.astype(np.float64),
                "ref_len": stats.ref_len.astype(np.float64)}
    numbers: dict[str, int] = {}
    index = np.fromiter((numbers.setdefault(d, len(numbers)) for d in dialogue_ids),
                        dtype=np.int64, count=len(dialogue_ids))
    return TurnTable(columns, index, list(numbers))


class BleuMetric(Metric):
    """Corpus BLEU (0-100) from summed segment statistics, sacrebleu's formula.

    Columns ``match_1..4`` (clipped n-gram matches), ``total_1..4`` (hypothesis n-grams),
    ``hyp_len``, ``ref_len``; see :mod:`~dst_eval.metrics.bleu` for
    BLEU = BP · exp((1/N) Σ_n log p_n). Defaults = sacrebleu ``corpus_bleu``.
    """

    def __init__(self, *, name: str = "bleu", smooth_method: str = "exp",
                 smooth_value: float | None = None, effective_order: bool = False,
                 max_ngram_order: int = MAX_NGRAM_ORDER) -> None:
        self.name = name
        self.columns = _bleu_column_names(max_ngram_order)
        self.max_ngram_order = max_ngram_order
        self.options = {"smooth_method": smooth_method, "smooth_value": smooth_value,
                        "effective_order": effective_order}

    def from_sums(self, sums: Mapping[str, np.ndarray | float]) -> np.ndarray | float:
        scalar = np.ndim(sums["hyp_len"]) == 0
        order = range(1, self.max_ngram_order + 1)

        def rows(name: str) -> np.ndarray:
            return np.atleast_1d(np.asarray(sums[name], dtype=np.float64))

        stats = BleuStats(np.column_stack([rows(f"match_{k}") for k in order]),
                          np.column_stack([rows(f"total_{k}") for k in order]),
                          rows("hyp_len"), rows("ref_len"))
        # each row scored alone with corpus options = corpus BLEU of that row's sums
        scores = sentence_bleu_from_stats(stats, **self.options)
        return float(scores[0]) if scalar else scores
