"""The RiSAWOZ database (``RiSAWOZ-Database-and-Ontology/DB/*_db.json``) for Inform/Success.

Twelve JSON lists of rows, one file per domain. Every cell is normalised once on loading
with :func:`normalise` (the ``nfkc+despace`` policy of :mod:`dst_eval.normalize`: NFKC, then
every whitespace character removed -- the RiSAWOZ ``despace`` normalisation, plus NFKC so
that ``（HP）``/``(HP)`` and ``10：30``/``10:30`` agree); numbers become text (``4.5``; an
integral float ``113.0`` becomes ``113``), booleans stay booleans, lists become tuples.

Entities: each domain except 天气 (weather) has an entity slot (:data:`ENTITY_SLOTS`). An
entity is identified by its *mention key*, how responses name it: the normalised value of
that slot, except trains (``G7320，杭州东-上海虹桥`` -> ``G7320``) and flights
(``东方航空MU2881，禄口...`` -> ``MU2881``), whose responses name the number only. All rows
sharing a key belong to that entity (a hotel has one row per room type, a train number one
per date, seat class and route).

Constraint matching (:meth:`RisawozDatabase.satisfies`): a row meets ``{slot: value}`` when
for every slot that is a column of the domain the cell equals the value (text), contains
it (list cells such as 医院-重点科室), or has its truth value (boolean cells against
``是``/``有``/``true`` and ``否``/``无``/``没有``/``false``); slots that are not columns
are not checked. Queries are cached per ``(domain, constraints)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from dst_eval.corpora.layout import FileLog, probe_file
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldFile
from dst_eval.metrics.risawoz_success import Cell
from dst_eval.normalize import Normalizer

DOMAIN_FILES: dict[str, str] = {
    "旅游景点": "attraction_db.json", "餐厅": "restaurant_db.json", "酒店": "hotel_db.json",
    "电脑": "pc_db.json", "火车": "train_db.json", "飞机": "flight_db.json",
    "天气": "weather_db.json", "电影": "movie_db.json", "电视剧": "tv_db.json",
    "辅导班": "class_db.json", "汽车": "car_db.json", "医院": "hospital_db.json",
}
ENTITY_SLOTS: dict[str, str] = {
    "旅游景点": "名称", "餐厅": "名称", "酒店": "名称", "电脑": "商品名称", "火车": "车次信息",
    "飞机": "航班信息", "电影": "片名", "电视剧": "片名", "辅导班": "班号", "汽车": "名称",
    "医院": "名称",
}
SLOT_ALIASES: dict[tuple[str, str], str] = {("辅导班", "老师"): "教师"}
"""Slot names of the dialogue annotation that name another database column."""
DB_DIR_NAMES = ("RiSAWOZ-Database-and-Ontology/DB", "DB", "RiSAWOZ-Database-and-Ontology/db")
TRUE_VALUES = frozenset({"是", "有", "true", "True"})
FALSE_VALUES = frozenset({"否", "无", "没有", "false", "False"})
ALGORITHM_VERSION = "risawoz-is-v2"

_NORMALISER = Normalizer("nfkc+despace")
_FLIGHT_CODE = re.compile(r"[A-Z0-9]{2}\d{3,4}")


def normalise(text: str) -> str:
    """NFKC, then every whitespace character removed (responses, values, cells alike)."""
    return _NORMALISER("", text)


def normalise_cell(value: Any) -> Cell:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list | tuple):
        return tuple(normalise(str(item)) for item in value)
    return normalise(str(value))


def mention_key(domain: str, entity: str) -> str:
    """How responses name an entity: trains and flights by their number only."""
    if domain in ("火车", "飞机"):
        head = re.split(r"[，,]", entity, maxsplit=1)[0]
        if domain == "飞机":
            code = _FLIGHT_CODE.search(head)
            return code.group(0) if code else head
        return head
    return entity


def find_database(db: Path | None, gold_source: str | Path | None) -> Path | None:
    """The DB directory: ``db`` itself (or its ``DB`` subfolder), else one next to the gold
    data (in its folder or the folder above). None when there is none."""
    starts: list[Path] = []
    if db is not None:
        starts.append(Path(db))
    elif gold_source:
        source = Path(gold_source)
        folder = source if source.is_dir() else source.parent
        starts += [folder, folder.parent]
    for start in starts:
        for candidate in (start, *(start / name for name in DB_DIR_NAMES)):
            if probe_file(candidate / DOMAIN_FILES["酒店"]):
                return candidate
    return None


def _check_entities(rows: list, domain: str, path: Path) -> None:
    """:class:`GoldDataError` for a table without rows, or a row whose entity cell
    (:data:`ENTITY_SLOTS`) is not a non-empty string: such a row cannot be found by name,
    and Inform/Success would drop without a word (94.74 -> 72.63 for one column of ints)."""
    if not rows:
        raise GoldDataError("the table has no rows", file=str(path))
    slot = ENTITY_SLOTS.get(domain)
    for index, row in enumerate(rows):
        if slot and not (isinstance(row.get(slot), str) and row[slot].strip()):
            raise GoldDataError(f"row {index}: the entity column {slot!r} must be a non-empty "
                                f"string, found {row.get(slot)!r:.40}", file=str(path))


class RisawozDatabase:
    """The twelve domain tables, normalised; implements
    :class:`~dst_eval.metrics.risawoz_success.EntityDatabase`."""

    def __init__(self, tables: Mapping[str, Sequence[Mapping[str, Any]]], source: str = "",
                 files: tuple[GoldFile, ...] = ()) -> None:
        self.source = source
        self.files = files
        """The database files read (path, SHA-256, size), as ``GoldSet.files``."""
        self._rows: dict[str, tuple[Mapping[str, Cell], ...]] = {}
        self._by_entity: dict[str, dict[str, tuple[Mapping[str, Cell], ...]]] = {}
        self._keys: dict[str, Mapping[str, str]] = {}
        for domain, rows in tables.items():
            normalised = tuple(MappingProxyType({str(k): normalise_cell(v) for k, v in r.items()})
                               for r in rows)
            self._rows[domain] = normalised
            slot = ENTITY_SLOTS.get(domain)
            by_entity: dict[str, list] = {}
            if slot:
                for row in normalised:
                    if isinstance(row.get(slot), str) and row[slot]:
                        by_entity.setdefault(mention_key(domain, row[slot]), []).append(row)
            self._by_entity[domain] = {e: tuple(rs) for e, rs in by_entity.items()}
            self._keys[domain] = MappingProxyType({e: e for e in sorted(by_entity)})
        self._columns = {d: frozenset(k for row in rows for k in row)
                         for d, rows in self._rows.items()}
        self._query_cache: dict[tuple[str, frozenset], tuple[Mapping[str, Cell], ...]] = {}

    @classmethod
    def load(cls, directory: Path) -> RisawozDatabase:
        """Read every ``*_db.json`` of :data:`DOMAIN_FILES` from ``directory``."""
        tables = {}
        log = FileLog()
        for domain, name in DOMAIN_FILES.items():
            path = Path(directory) / name
            if not path.is_file():
                raise GoldDataError(f"RiSAWOZ database file {name} is missing", file=str(path))
            rows = log.read_json(path)
            if not isinstance(rows, list) or not all(isinstance(r, Mapping) for r in rows):
                raise GoldDataError("expected a JSON list of row objects", file=str(path))
            _check_entities(rows, domain, path)
            tables[domain] = rows
        return cls(tables, source=str(directory), files=log.files)

    # ---- lookups
    @property
    def domains(self) -> tuple[str, ...]:
        return tuple(self._rows)

    def entity_slot(self, domain: str) -> str | None:
        return ENTITY_SLOTS.get(domain) if domain in self._rows else None

    def column(self, domain: str, slot: str) -> str | None:
        """The database column a dialogue slot name refers to (aliases applied), or None."""
        slot = SLOT_ALIASES.get((domain, slot), slot)
        return slot if slot in self._columns.get(domain, ()) else None

    def entity(self, domain: str, value: str) -> str | None:
        """The entity a (normalised) state value names, or None if the database lacks it."""
        key = mention_key(domain, value)
        return key if key in self._by_entity.get(domain, {}) else None

    def mention_keys(self, domain: str) -> Mapping[str, str]:
        return self._keys.get(domain, MappingProxyType({}))

    def rows(self, domain: str, entity: str) -> Sequence[Mapping[str, Cell]]:
        return self._by_entity.get(domain, {}).get(entity, ())

    @staticmethod
    def cell_matches(cell: Cell, value: str) -> bool:
        if isinstance(cell, bool):
            return value in (TRUE_VALUES if cell else FALSE_VALUES)
        if isinstance(cell, tuple):
            return value in cell
        return cell == value

    def satisfies(self, domain: str, row: Mapping[str, Cell],
                  constraints: Mapping[str, str]) -> bool:
        columns = self._columns.get(domain, frozenset())
        return all(self.cell_matches(row.get(slot), value)
                   for slot, value in constraints.items() if slot in columns)

    def query(self, domain: str, constraints: Mapping[str, str]
              ) -> tuple[Mapping[str, Cell], ...]:
        """The domain's rows meeting ``constraints`` (cached per domain and constraints)."""
        key = (domain, frozenset(constraints.items()))
        rows = self._query_cache.get(key)
        if rows is None:
            rows = self._query_cache[key] = tuple(
                row for row in self._rows.get(domain, ())
                if self.satisfies(domain, row, constraints))
        return rows


def load_database(directory: Path) -> RisawozDatabase:
    """:meth:`RisawozDatabase.load` (read afresh on every call: no cache can serve a stale
    database; loading takes ≈0.6 s)."""
    return RisawozDatabase.load(Path(directory))
