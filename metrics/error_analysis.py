"""Error breakdowns per slot and per domain: missing, extra and wrong-value counts.

Built from the :class:`~dst_eval.metrics.state_compare.SlotOutcome` records that
:func:`~dst_eval.metrics.state_compare.turn_table` collects. For each slot key:
``correct``, ``wrong`` (both present, value not a gold variant), ``missing`` (gold
only), ``extra`` (prediction only), ``errors = wrong + missing + extra`` and
``slot_f1`` = 2·correct / (2·correct + 2·wrong + missing + extra).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Unpack

from dst_eval.metrics.base import GoldState, PredState
from dst_eval.metrics.canonical import StateOptions, canonical_table
from dst_eval.metrics.state_compare import SlotOutcome

OUTCOMES = ("correct", "wrong", "missing", "extra")


def _domain(slot_key: str) -> str:
    return slot_key.partition("-")[0]


def error_counts(outcomes: Iterable[SlotOutcome], *,
                 key: Callable[[str], str] | None = None) -> dict[str, dict[str, float]]:
    """Counts of each outcome per slot (or per ``key(slot)``, e.g. the domain), sorted by name."""
    table: dict[str, Counter] = defaultdict(Counter)
    for outcome in outcomes:
        table[key(outcome.slot) if key else outcome.slot][outcome.outcome] += 1
    result: dict[str, dict[str, float]] = {}
    for name in sorted(table):
        counts = table[name]
        row: dict[str, float] = {o: counts.get(o, 0) for o in OUTCOMES}
        row["errors"] = row["wrong"] + row["missing"] + row["extra"]
        denominator = 2 * row["correct"] + 2 * row["wrong"] + row["missing"] + row["extra"]
        row["slot_f1"] = 2 * row["correct"] / denominator if denominator else 1.0
        result[name] = row
    return result


def frequent_wrong_values(outcomes: Iterable[SlotOutcome], *, top: int = 20
                          ) -> list[tuple[str, str, str, int]]:
    """The most frequent ``(slot, gold value, predicted value, count)`` confusions."""
    confusions = Counter(
        (o.slot, o.gold[0] if o.gold else "", o.pred or "")
        for o in outcomes if o.outcome == "wrong"
    )
    return [(s, g, p, c) for (s, g, p), c in confusions.most_common(top)]


def slot_error_counts(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None], *,
                      by: str = "slot", **options: Unpack[StateOptions]
                      ) -> dict[str, dict[str, float]]:
    """Per-slot (``by="slot"``) or per-domain (``by="domain"``) outcome counts (counts, so
    no input gives ``{}``; options as :func:`~dst_eval.metrics.jga.joint_goal_accuracy`).

    ``None`` in ``y_pred``: a turn not predicted, every gold slot of it missing (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``."""
    if by not in ("slot", "domain"):
        raise ValueError("by must be 'slot' or 'domain'")
    outcomes: list[SlotOutcome] = []
    canonical_table(y_true, y_pred, options, outcomes=outcomes)
    return error_counts(outcomes, key=_domain if by == "domain" else None)
