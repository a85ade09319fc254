"""Ranking statistics: per-metric bootstrap resample scores, intervals, tests, rank intervals.

Everything is on whole dialogues with the config's N resamples and seed, on one index
matrix shared by every system: ``indices = default_rng(seed).choice(n, (N, n))`` with n
the number of gold dialogues (:func:`dst_eval.metrics.resampling.resample_indices`), C its
count matrix (``C[j, d]`` = how often dialogue d is drawn in resample j).

At scoring time (:func:`resample_statistics`), for every metric with per-turn statistics
behind its score, from the per-dialogue sums D of its statistic columns:

* ``full`` = the metric on the column totals of D (must reproduce the reported score within
  a relative 1e-9, else the metric gets no statistics and a note);
* ``resamples`` = the metric on each row of ``C @ D``: N plain numbers, what the cache
  stores (no metric object, no formula).

At ranking time, from those numbers only:

* score interval (:func:`interval`): sacrebleu's percentile bootstrap; s = the sorted finite
  resample scores, ``lo = len(s) // 40``: ``[s[lo], s[len(s) - lo - 1]]``, mean, half width
  (:func:`dst_eval.metrics.resampling.estimate_ci`);
* p vs the leader (:func:`paired_p_value`): paired bootstrap (sacrebleu / Koehn 2004),
  Δ = full_sys − full_base, Δ*_j = |sys_j − base_j|, d_j = Δ*_j − mean(Δ*) over the finite
  Δ*, ``p = (#{j : d_j ≥ |Δ|} + 1) / (N' + 1)`` over the N' finite d_j, a d_j within a
  relative 1e-9 of |Δ| counting as a tie (counted, as :mod:`dst_eval.metrics.resampling`
  does by default);
* rank interval (:func:`rank_intervals`): in resample j a system's rank is
  ``1 + #{systems scoring strictly better}`` (NaN ranks last); its interval is the same
  percentile pair of its sorted N ranks.

Two systems are paired only when scored on the same dialogues in the same order
(``dialogues``) and, where the statistics count gold slots, on the same gold
(``gold_turns``): the checks of :func:`dst_eval.metrics.resampling.check_paired`.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dst_eval.metrics.base import TurnTable
from dst_eval.metrics.resampling import (
    TIE_ATOL,
    TIE_RTOL,
    estimate_ci,
    resample_counts,
    resample_indices,
    resampled_sums,
)

ARRAY_DTYPE = "<f8"
"""Resample scores are stored as little-endian float64 bytes."""


@dataclass(frozen=True)
class TableKey:
    """What two systems must share to be paired: their dialogues, in order, and (when the
    statistics count gold slots) the number of gold slots of each dialogue."""

    dialogues: str
    """sha256 of the dialogue ids in order."""
    n_dialogues: int
    gold_turns: str | None
    """sha256 of the per-dialogue ``n_gold`` sums, when the table has that column."""

    def pairs_with(self, other: TableKey) -> str | None:
        """None when paired; else why not (in the words of ``check_paired``)."""
        if (self.dialogues, self.n_dialogues) != (other.dialogues, other.n_dialogues):
            return "the systems are scored on different dialogues"
        if None not in (self.gold_turns, other.gold_turns) and \
                self.gold_turns != other.gold_turns:
            return "the systems are scored against different gold states"
        return None


@dataclass(frozen=True)
class MetricResamples:
    """One metric's statistics: its table's key, its full-data value, its N resample values."""

    name: str
    table: TableKey
    full: float
    resamples: np.ndarray


def _digest(data: bytes | Sequence[str]) -> str:
    digest = hashlib.sha256()
    if isinstance(data, bytes):
        digest.update(data)
    else:
        for item in data:
            encoded = item.encode("utf-8", "surrogatepass")
            digest.update(b"%d:%s" % (len(encoded), encoded))
    return digest.hexdigest()


def _consistent(value: float, score: float) -> bool:
    return math.isclose(value, score, rel_tol=1e-9, abs_tol=1e-12) or (
        math.isnan(value) and math.isnan(score))


def resample_statistics(result: Any, n_resamples: int, seed: int
                        ) -> tuple[list[MetricResamples], list[str]]:
    """The resample scores of every metric behind ``result.stat_tables()`` whose statistics
    reproduce its score, and a note for each one that does not (module docstring)."""
    out: list[MetricResamples] = []
    notes: list[str] = []
    for table, metrics in result.stat_tables():
        usable = [m for m in metrics if all(c in table.columns for c in m.columns)]
        ids = list(table.dialogue_ids)
        if not usable or not ids:
            continue
        names = sorted({c for m in usable for c in m.columns})
        sums = table.dialogue_sums(names)
        n = len(ids)
        if any(len(column) != n for column in sums.values()):
            continue
        per_dialogue = TurnTable(sums, np.arange(n, dtype=np.int64), ids)
        kept = []
        for metric in usable:
            value = metric.score(per_dialogue)
            score = float(result.scores.get(metric.name, float("nan")))
            if _consistent(value, score):
                kept.append((metric, value))
            else:
                notes.append(f"{metric.name}: no interval or test (its per-dialogue "
                             f"statistics give {value:.6g}, not the score {score:.6g})")
        if not kept:
            continue
        gold = np.ascontiguousarray(sums["n_gold"], dtype=ARRAY_DTYPE).tobytes() \
            if "n_gold" in sums else None
        key = TableKey(_digest(ids), n, None if gold is None else _digest(gold))
        counts = resample_counts(resample_indices(n, n_resamples, seed=seed), n)
        columns = list(dict.fromkeys(c for metric, _ in kept for c in metric.columns))
        resampled = resampled_sums(counts, np.column_stack([sums[c] for c in columns]))
        by_column = {c: resampled[:, i] for i, c in enumerate(columns)}  # one product a table
        for metric, value in kept:
            values = metric.from_sums({c: by_column[c] for c in metric.columns})
            array = np.broadcast_to(np.asarray(values, dtype=float), (n_resamples,))
            out.append(MetricResamples(metric.name, key, value, np.array(array)))
    return out, notes


def to_bytes(array: np.ndarray) -> bytes:
    return np.ascontiguousarray(array, dtype=ARRAY_DTYPE).tobytes()


def from_bytes(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype=ARRAY_DTYPE).astype(np.float64)


def interval(resamples: np.ndarray) -> dict[str, float | int]:
    """``{"mean", "ci_low", "ci_high", "half_width", "resamples"}`` (module docstring)."""
    return estimate_ci(resamples)


def paired_p_value(base: MetricResamples, system: MetricResamples) -> float:
    """Paired bootstrap p-value of ``system`` against ``base`` (module docstring); NaN when
    Δ is undefined or no resample gives a finite difference."""
    sample_deltas = np.abs(system.resamples - base.resamples)
    finite = np.isfinite(sample_deltas)
    centred = sample_deltas - (sample_deltas[finite].mean() if finite.any() else np.nan)
    centred = centred[np.isfinite(centred)]
    delta = system.full - base.full
    if not np.isfinite(delta) or len(centred) == 0:
        return float("nan")
    observed = abs(delta)
    extreme = (centred > observed) | np.isclose(centred, observed, rtol=TIE_RTOL,
                                                 atol=TIE_ATOL)
    return (int(np.count_nonzero(extreme)) + 1) / (len(centred) + 1)


def rank_intervals(systems: Sequence[MetricResamples], *, higher_is_better: bool
                   ) -> list[tuple[int, int]]:
    """Each system's percentile interval of its rank over the shared resamples."""
    matrix = np.vstack([s.resamples for s in systems]) * (1.0 if higher_is_better else -1.0)
    matrix = np.where(np.isfinite(matrix), matrix, -np.inf)
    ranks = 1 + (matrix[None, :, :] > matrix[:, None, :]).sum(axis=1)
    n_resamples = matrix.shape[1]
    lower = n_resamples // 40
    return [(int(r[lower]), int(r[n_resamples - lower - 1])) for r in np.sort(ranks, axis=1)]


def intervals(statistics: Mapping[str, MetricResamples], names: Sequence[str]
              ) -> dict[str, dict[str, float | int]]:
    """Score intervals of the metrics ``names`` that have statistics."""
    return {name: interval(statistics[name].resamples) for name in names if name in statistics}
