"""Base of the DST metrics: per-turn sufficient statistics and metrics defined on their sums.

Every DST metric here is a function of *sums* of per-turn statistic columns (as
sacrebleu's metrics are of per-segment n-gram statistics). The columns are computed
once per turn by :func:`~dst_eval.metrics.state_compare.turn_table`; a metric then
only sums the columns it needs over any subset of turns. This makes breakdowns
(sum over a group's turns) and dialogue-level bootstrap (sum per-dialogue column
totals over resampled dialogues) cheap and exact: nothing is recomputed per resample.

A gold state is a mapping ``{"domain-slot": value | sequence of acceptable values}``;
a predicted state is a mapping ``{"domain-slot": value}``. A predicted value is
correct when it equals one of the gold variants. Normalisation happens before the
metrics (in ``dst_eval``); metrics compare strings exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np

GoldState = Mapping[str, "str | Sequence[str]"]
PredState = Mapping[str, str]


_STRS = frozenset({str})


def check_n_slots(n_slots: int) -> int:
    """``n_slots``, the size of the corpus slot list: an int >= 1 (a bool is a
    ``TypeError``, 0 or less a ``ValueError``)."""
    if isinstance(n_slots, bool) or not isinstance(n_slots, Integral):
        raise TypeError(f"n_slots must be an int >= 1 (the size of the corpus slot list), "
                        f"got {n_slots!r}")
    if n_slots < 1:
        raise ValueError(f"slot accuracy needs the corpus slot list (n_slots >= 1), got "
                         f"{n_slots!r}")
    return int(n_slots)


def check_words(words: Iterable, name: str, noun: str = "words") -> None:
    """An option that lists words or names (``unset_words``, ``slots``, ...): one string
    would be read as its characters, so it is a ``TypeError``."""
    if isinstance(words, str | bytes):
        raise TypeError(f"{name} must be a list of {noun}, not the string {words!r:.80} "
                        f"(give a list: [{words!r:.80}])")


def string_set(items: object, row: int, side: str, what: str) -> set[str]:
    """A turn given as a collection of strings (TRADE items, requested slots), as a set: a
    string (its characters), a mapping (its keys) or an element that is not a string is a
    ``TypeError`` naming the turn; ``side`` is ``"y_true"`` or ``"y_pred"``."""
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
        raise TypeError(f"{side} turn {row}: {what} must be a set or list of strings, got "
                        f"{type(items).__name__} {items!r:.80}")
    try:
        out = set(items)
    except TypeError:  # an unhashable element
        raise TypeError(f"{side} turn {row}: {what} must be a set or list of strings, got "
                        f"{items!r:.80}") from None
    for item in out if not _STRS.issuperset(map(type, out)) else ():
        if not isinstance(item, str):
            raise TypeError(f"{side} turn {row}: {what} must be a set or list of strings; "
                            f"{item!r:.80} is not a string")
    return out


def as_variants(value: str | Sequence[str]) -> tuple[str, ...]:
    """A gold value as a tuple of acceptable variants (a plain string is one variant)."""
    if isinstance(value, str):
        return (value,)
    return tuple(value)


@dataclass
class TurnTable:
    """Per-turn statistic columns (equal-length numpy arrays) plus the dialogue of each turn."""

    columns: dict[str, np.ndarray]
    dialogue_index: np.ndarray
    """Integer dialogue number of each turn (0..n_dialogues-1, in first-seen order)."""
    dialogue_ids: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.dialogue_index)

    def sums(self, names: Sequence[str], rows: np.ndarray | None = None) -> dict[str, float]:
        """Column totals over all turns, or over the boolean/int index ``rows``."""
        if rows is None:
            return {n: float(self.columns[n].sum()) for n in names}
        return {n: float(self.columns[n][rows].sum()) for n in names}

    def dialogue_sums(self, names: Sequence[str]) -> dict[str, np.ndarray]:
        """Per-dialogue column totals, shape ``(n_dialogues,)`` each: the bootstrap unit."""
        n = len(self.dialogue_ids) or (int(self.dialogue_index.max()) + 1 if len(self) else 0)
        return {
            name: np.bincount(self.dialogue_index, weights=self.columns[name], minlength=n)
            for name in names
        }


class Metric:
    """A metric computed from sums of per-turn columns.

    Subclasses set :attr:`name` and :attr:`columns` and implement :meth:`from_sums`,
    which must accept floats or equal-shaped numpy arrays (one value per bootstrap
    resample) and return the same shape.
    """

    name: str = ""
    columns: tuple[str, ...] = ()

    def from_sums(self, sums: Mapping[str, np.ndarray | float]) -> np.ndarray | float:
        raise NotImplementedError

    def score(self, table: TurnTable, rows: np.ndarray | None = None) -> float:
        """:meth:`from_sums` of the column totals over all turns, or over the turns
        ``rows`` selects; nan when there is no turn (every metric alike: a metric's
        ``zero_division`` convention, such as slot F1's 1.0 for turns whose states are all
        empty, is for turns with nothing to count, not for no turns)."""
        if not (len(table) if rows is None else table.dialogue_index[rows].size):
            return float("nan")
        return float(self.from_sums(table.sums(self.columns, rows)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def ratio(numerator: np.ndarray | float, denominator: np.ndarray | float,
          *, empty: float = float("nan")) -> np.ndarray | float:
    """``numerator / denominator`` with ``empty`` where the denominator is 0."""
    num = np.asarray(numerator, dtype=float)
    den = np.asarray(denominator, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, num / np.where(den > 0, den, 1.0), empty)
    return float(out) if out.ndim == 0 else out
