"""The MultiWOZ venue database with mwzeval's query semantics (SCORERS.md §1.4), cached.

Tables: ``restaurant_db.json``, ``hotel_db.json``, ``attraction_db.json``,
``train_db.json`` of a MultiWOZ ``db/`` folder. Loading mirrors mwzeval:

* columns renamed: lower-case, spaces removed, ``arriveby`` -> ``arrive``, ``leaveat`` ->
  ``leave`` (``entrance fee`` -> ``entrancefee``, ``trainID`` -> ``trainid``);
* dropped: attraction ``location``, ``openhours``; hotel ``location``, ``price``,
  ``takesbookings``; restaurant ``location``, ``introduction``, ``signature``;
* the queryable columns of a domain are those of its first row.

``query(domain, constraints)`` keeps a row iff it passes every constraint whose key is a
queryable column (``book*`` and unknown keys are ignored):

* values exactly ``dontcare``, ``not mentioned``, ``don't care``, ``dont care``,
  ``do n't care``, ``do not care`` are skipped (``''`` is *not* skipped); the rest are
  normalised again with :func:`dst_eval.mwzeval_rules.normalize_value`;
* a row value ``?`` passes any constraint;
* ``arrive``: row minutes ≤ constraint minutes; ``leave``: row minutes ≥ constraint minutes,
  where minutes(x) = 60·HH + MM when ``x`` starts with ``DD:DD``, else 0;
* fuzzy columns (hotel/attraction ``name``; restaurant ``name``, ``food``; train
  ``departure``, ``destination``): ``partial_ratio(row, value) ≥ 90`` (fuzzywuzzy 0.18,
  :func:`fuzzy_match`);
* other columns: exact, case-sensitive equality.

The result is the ids (``trainid`` for trains) in database order; other domains give
``()``. mwzeval scans the table on every call (94 % of its run time); here each distinct
(domain, normalised constraints) query is evaluated once, column-wise with numpy over the
distinct values of each column, and cached. A row lacking a queried column (three
restaurants have no ``phone``) never matches that constraint (mwzeval raises KeyError).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rapidfuzz.fuzz import partial_ratio as _partial_ratio_upper_bound

from dst_eval.corpora.layout import FileLog
from dst_eval.corpora.multiwoz.mwzeval_rules import normalize_value
from dst_eval.errors import GoldDataError
from dst_eval.metrics.fuzzy import partial_ratio

DATABASE_DOMAINS: tuple[str, ...] = ("restaurant", "attraction", "hotel", "train")
DROPPED_COLUMNS: Mapping[str, frozenset[str]] = {
    "attraction": frozenset({"location", "openhours"}),
    "hotel": frozenset({"location", "price", "takesbookings"}),
    "restaurant": frozenset({"location", "introduction", "signature"}),
}
FUZZY_COLUMNS: Mapping[str, frozenset[str]] = {
    "hotel": frozenset({"name"}),
    "attraction": frozenset({"name"}),
    "restaurant": frozenset({"name", "food"}),
    "train": frozenset({"departure", "destination"}),
}
FUZZY_THRESHOLD = 90
SKIPPED_VALUES = frozenset(
    {"dontcare", "not mentioned", "don't care", "dont care", "do n't care", "do not care"}
)
TIME_COLUMNS = frozenset({"arrive", "leave"})
ANY_VALUE = "?"

_TIME_PREFIX = re.compile(r"[0-9][0-9]:[0-9][0-9]")
_NO_RESULT: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset())


def normalize_column_name(name: str) -> str:
    """mwzeval's DB column name: lower-case, spaces removed, arriveby/leaveat renamed."""
    if name == "id":
        return name
    name = name.lower().replace(" ", "")
    return {"arriveby": "arrive", "leaveat": "leave"}.get(name, name)


def time_to_minutes(value: str) -> int:
    """60·HH + MM when ``value`` starts with ``DD:DD``, else 0 (mwzeval ``time_str_to_minutes``).

    The minutes are Python ``int`` of the text between the first and second ``:`` as in
    mwzeval; where that would raise (``"10:30pm"``: mwzeval crashes) the two digits after
    the colon are used.
    """
    if not _TIME_PREFIX.match(value):
        return 0
    hours, minutes = value.split(":")[:2]
    try:
        return int(hours) * 60 + int(minutes)
    except ValueError:
        return int(value[0:2]) * 60 + int(value[3:5])


def fuzzy_match(row_value: str, value: str) -> bool:
    """fuzzywuzzy ``partial_ratio(row_value, value) >= 90``, exactly.

    fuzzywuzzy's score is ``int(round(100 · max_w r(s, w)))`` over some windows ``w`` of the
    longer string (full-length windows and one truncated suffix window) with ``r`` a
    difflib ratio. rapidfuzz's ``partial_ratio`` maximises ``2·LCS / (|s| + |w|)`` over all
    those windows (and more), and difflib never matches more characters than the LCS, so it
    is an upper bound: a pair rapidfuzz scores below 89 cannot reach 89.5 (= 90 after
    rounding) and is rejected without the slow difflib computation; the others get the
    exact :func:`dst_eval.metrics.fuzzy.partial_ratio`.
    """
    if _partial_ratio_upper_bound(row_value, value) < FUZZY_THRESHOLD - 1:
        return row_value == value  # '' == '' scores 100 in fuzzywuzzy
    return partial_ratio(row_value, value) >= FUZZY_THRESHOLD


class _Column:
    """One column: distinct values, the distinct-value index of every row, ``?`` rows."""

    def __init__(self, values: Sequence[Any]) -> None:
        self.distinct: list[Any] = []
        position: dict[Any, int] = {}
        codes = np.empty(len(values), dtype=np.int64)
        for row, value in enumerate(values):
            key = value if isinstance(value, str) or value is None else repr(value)
            if key not in position:
                position[key] = len(self.distinct)
                self.distinct.append(value)
            codes[row] = position[key]
        self.codes = codes
        self.any_value = np.array([v == ANY_VALUE for v in values], dtype=bool)
        self.minutes = np.array(
            [time_to_minutes(v) if isinstance(v, str) else 0 for v in self.distinct],
            dtype=np.int64,
        )
        self.present = np.array([v is not None for v in self.distinct], dtype=bool)
        self._masks: dict[Any, np.ndarray] = {}

    def keep(self, domain: str, column: str, value: Any) -> np.ndarray:
        """Boolean row mask (read-only) of the rows passing ``column = value`` (value
        already normalised; ``None`` = a non-string constraint, which only ``?`` rows pass);
        computed once per value (queries repeat their constraints: 3,437 calls for 378
        distinct ones on MultiWOZ 2.1 test)."""
        mask = self._masks.get(value)
        if mask is None:
            mask = self._masks[value] = self._mask(domain, column, value)
            mask.flags.writeable = False
        return mask

    def _mask(self, domain: str, column: str, value: Any) -> np.ndarray:
        if value is None:
            return self.any_value.copy()
        if column == "arrive":
            per_value = self.minutes <= value
        elif column == "leave":
            per_value = self.minutes >= value
        elif column in FUZZY_COLUMNS.get(domain, ()):
            per_value = np.array(
                [isinstance(v, str) and fuzzy_match(v, value) for v in self.distinct],
                dtype=bool,
            )
        else:
            per_value = np.array([v == value for v in self.distinct], dtype=bool)
        per_value &= self.present
        return per_value[self.codes] | self.any_value


class MultiwozDatabase:
    """Venue tables + mwzeval's ``query`` with a cache (see the module docstring)."""

    def __init__(self, tables: Mapping[str, Sequence[Mapping[str, Any]]],
                 files: tuple = ()) -> None:
        self.files = files  # GoldFile of each table read (:meth:`load`), for the signature
        self._ids: dict[str, list[str]] = {}
        self._columns: dict[str, dict[str, _Column]] = {}
        self._cache: dict[tuple, tuple[tuple[str, ...], frozenset[str]]] = {}
        self.queries = 0
        """Number of query calls (cache hits included)."""
        for domain, rows in tables.items():
            dropped = DROPPED_COLUMNS.get(domain, frozenset())
            rows = [
                {normalize_column_name(k): v for k, v in row.items() if k not in dropped}
                for row in rows
            ]
            names = list(rows[0]) if rows else []
            id_column = "trainid" if domain == "train" else "id"
            self._ids[domain] = [str(row.get(id_column)) for row in rows]
            self._columns[domain] = {
                name: _Column([row.get(name) for row in rows]) for name in names
            }

    @classmethod
    def load(cls, db_dir: str | Path) -> MultiwozDatabase:
        """Read the four ``<domain>_db.json`` tables of a MultiWOZ ``db/`` folder."""
        db_dir = Path(db_dir)
        tables: dict[str, list[dict[str, Any]]] = {}
        log = FileLog()
        for domain in DATABASE_DOMAINS:
            path = db_dir / f"{domain}_db.json"
            rows = log.read_json(path)
            if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                raise GoldDataError("expected a JSON list of venue objects", file=str(path))
            if not rows:
                raise GoldDataError("the venue table is empty", file=str(path))
            id_column = "trainID" if domain == "train" else "id"
            if any(id_column not in r for r in rows):
                raise GoldDataError(f"a venue lacks the {id_column!r} field", file=str(path))
            tables[domain] = rows
        return cls(tables, files=log.files)

    def columns(self, domain: str) -> tuple[str, ...]:
        """Queryable columns of a domain (empty for domains without a table)."""
        return tuple(self._columns.get(domain, {}))

    def size(self, domain: str) -> int:
        return len(self._ids.get(domain, ()))

    def _key(self, domain: str, constraints: Mapping[str, Any]) -> tuple | None:
        columns = self._columns.get(domain)
        if columns is None:
            return None
        query = []
        for column in columns:
            if column not in constraints:
                continue
            raw = constraints[column]
            if not isinstance(raw, str):
                query.append((column, None))
                continue
            if raw in SKIPPED_VALUES:
                continue
            value = normalize_value(column, raw)
            query.append((column, time_to_minutes(value) if column in TIME_COLUMNS else value))
        query.sort(key=lambda item: item[0])
        return (domain, *query)

    def _lookup(self, domain: str, constraints: Mapping[str, Any]) -> tuple:
        self.queries += 1
        key = self._key(domain, constraints)
        if key is None:
            return _NO_RESULT
        hit = self._cache.get(key)
        if hit is None:
            ids = self._scan(key)
            hit = self._cache[key] = (ids, frozenset(ids))
        return hit

    def query(self, domain: str, constraints: Mapping[str, Any]) -> tuple[str, ...]:
        """Ids of the venues matching ``constraints`` (a ``{slot: value}`` state), DB order.

        A non-string constraint value (possible only in malformed predictions) is kept as
        a constraint that only ``?`` rows pass.
        """
        return self._lookup(domain, constraints)[0]

    def query_set(self, domain: str, constraints: Mapping[str, Any]) -> frozenset[str]:
        """:meth:`query` as a cached frozenset (all Inform/Success needs: membership)."""
        return self._lookup(domain, constraints)[1]

    def _scan(self, key: tuple) -> tuple[str, ...]:
        domain, *query = key
        ids = self._ids[domain]
        keep = np.ones(len(ids), dtype=bool)
        columns = self._columns[domain]
        for column, value in query:
            keep &= columns[column].keep(domain, column, value)
        return tuple(ids[i] for i in np.flatnonzero(keep))

    def cache_info(self) -> dict[str, int]:
        """``{"calls": ..., "distinct": ...}``: query calls and distinct queries evaluated."""
        return {"calls": self.queries, "distinct": len(self._cache)}
