"""RiSAWOZ Inform and Success of one dialogue, given its goal, its responses and a database.

The GEM card defines *inform rate* ("the output contains the appropriate entity the user
asks for") and *success rate* ("all the requested attributes have been answered") without
code; this module is the exact algorithm of ``docs/risawoz_inform_success.md``. It does no
I/O and no normalisation: ``dst_eval.corpora.risawoz.responses`` builds the goals from the gold
dialogue and passes responses and database cells already normalised (NFKC, whitespace
removed); the database is injected through :class:`EntityDatabase`.

Inputs: generated responses r_0 .. r_{n-1} (one per gold turn, ``""`` when missing) and one
:class:`DomainGoal` per domain d of the dialogue: the user's constraints C_d, the entity the
user named (if any), the requested attributes with the first turn t_a that asks for each,
and, for domains without entities (weather), the constraints at every turn. Per domain::

    keys(d)        mention keys of d's entities (name, train number, flight code, ...)
    mentioned(u)   entities e of d whose key occurs in r_u
    last(u)        the entity whose key occurrence in r_u ends last (ties: the longer key)
    current(u)     last(v) for the greatest v < u with mentioned(v) ≠ ∅, else the named entity
    offered        last(v) for the greatest v with mentioned(v) ≠ ∅, else the named entity
    rows_d(e)      e's rows satisfying C_d, or all of e's rows when none does

    inform_d  = offered ≠ None and (no named entity or offered = named)
                and (mentioned(u) ≠ ∅ for some u, or a requested attribute of d other
                     than the entity slot is answered)
                and some row of offered satisfies C_d                       (entity domains)
    rows(u)   = ∪ rows_d(e) for e ∈ {current(u)} ∪ mentioned(u)            (entity domains)
              = query(d, constraints at u)                                   (no-entity domains)
    for each requested attribute a, over the turns u ≥ t_a:
        a is the entity slot:  answered iff mentioned(u) ≠ ∅ for some u
        otherwise, cells = the non-empty row[a] for row ∈ rows(u):
            no cells although some rows were considered -> unverifiable (left out)
            else answered iff cell_answered(row[a], r_u) for some u and row
    success_d = (inform_d for entity domains) and every checked attribute is answered
                (no-entity domains: undefined when no attribute is checked)

    inform  = ∧_d inform_d  over entity domains     (undefined if the dialogue has none)
    success = ∧_d success_d over the domains where it is defined (undefined if none)

``cell_answered(cell, r)`` (database cell and response normalised alike):

* a yes/no cell (``True``/``False``, or ``是``/``有`` vs ``否``/``无``/``没有``): r has that
  polarity -- negative if r holds one of ``不 没 无 否 非``, else positive if it holds one of
  ``是 有 可以 能 支持 提供``;
* a cell with digits: every number in it (``\\d+(\\.\\d+)?``, compared as decimals, so
  ``07`` = ``7`` and ``8.0`` = ``8``) is a number of r (dates ``2017-01-17`` match
  ``2017年1月17日``, times ``10:30`` match ``10点30``);
* other text: some piece of it between separators (whitespace and
  ``/、,，;；:：·-–—~～()（）[]【】"“”'‘’。！!？?…``) occurs in r (``周杰伦 / 桂纶镁`` is
  answered by a response naming 周杰伦; a one-piece value must occur whole);
* a list cell: every element is answered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Protocol

__all__ = [
    "Cell",
    "DialogueOutcome",
    "DomainGoal",
    "DomainOutcome",
    "EntityDatabase",
    "cell_answered",
    "dialogue_inform_success",
    "domain_inform_success",
    "numbers",
    "polarity",
]

Cell = str | bool | tuple[str, ...] | None
"""A normalised database cell: text, a yes/no flag, a list of texts, or absent."""

NEGATIVE_MARKERS = ("不", "没", "无", "否", "非")
POSITIVE_MARKERS = ("是", "有", "可以", "能", "支持", "提供")
YES_NO_VALUES = {"是": True, "有": True, "否": False, "无": False, "没有": False}
"""Text cells that are yes/no answers (``是否地铁直达: 否``, ``停车场: 无``)."""

_EMPTY_CELLS = (None, "", ())
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_SEPARATORS = re.compile(r"[\s/、,，;；:：·\-–—~～()（）\[\]【】\"“”'‘’。！!？?…]+")


class EntityDatabase(Protocol):
    """What the algorithm needs from a RiSAWOZ database (``dst_eval.risawoz_db``)."""

    def mention_keys(self, domain: str) -> Mapping[str, str]:
        """``{mention key: entity}`` of the domain's entities (empty without entities)."""

    def rows(self, domain: str, entity: str) -> Sequence[Mapping[str, Cell]]:
        """The entity's database rows (a hotel has one per room type)."""

    def satisfies(self, domain: str, row: Mapping[str, Cell],
                  constraints: Mapping[str, str]) -> bool:
        """Whether ``row`` meets every constraint ``{slot: normalised value}``."""

    def query(self, domain: str, constraints: Mapping[str, str]
              ) -> Sequence[Mapping[str, Cell]]:
        """All rows of the domain meeting ``constraints``."""


@dataclass(frozen=True)
class DomainGoal:
    """What the user wants from one domain, derived from the gold dialogue."""

    domain: str
    constraints: Mapping[str, str]
    """C_d: the final gold state of d, normalised, without the entity slot."""
    entity_slot: str | None
    """The slot naming d's entities (``名称``, ``车次信息``, ...); None: d has no entities."""
    named: str | None = None
    """The entity the user named before any system turn mentioned one of d's entities."""
    requests: Mapping[str, int] = field(default_factory=dict)
    """Requested attribute (database column) -> first turn index asking for it."""
    constraints_at: Sequence[Mapping[str, str]] = ()
    """Constraints of d at every turn (used by domains without entities)."""


@dataclass(frozen=True)
class DomainOutcome:
    domain: str
    inform: bool | None
    """None for domains without entities."""
    success: bool | None
    """None when the domain has neither entities nor requests."""
    offered: str | None = None
    unanswered: tuple[str, ...] = ()
    unverifiable: tuple[str, ...] = ()
    """Requested attributes whose database cells are all empty for the entities considered."""


@dataclass(frozen=True)
class DialogueOutcome:
    inform: bool | None
    success: bool | None
    domains: tuple[DomainOutcome, ...] = ()


def numbers(text: str) -> frozenset[str]:
    """The numbers in ``text`` as canonical decimals (``07`` -> ``7``, ``8.0`` -> ``8``)."""
    out = set()
    for match in _NUMBER.findall(text):
        try:
            out.add(format(Decimal(match).normalize(), "f"))
        except InvalidOperation:  # pragma: no cover - the pattern only matches decimals
            out.add(match)
    return frozenset(out)


def polarity(text: str) -> bool | None:
    """False if ``text`` holds a negative marker, else True if a positive one, else None."""
    if any(marker in text for marker in NEGATIVE_MARKERS):
        return False
    if any(marker in text for marker in POSITIVE_MARKERS):
        return True
    return None


def cell_answered(cell: Cell, response: str) -> bool:
    """Whether ``response`` answers with the database ``cell`` (module docstring)."""
    if cell is None:
        return False
    if isinstance(cell, tuple):
        return bool(cell) and all(cell_answered(item, response) for item in cell)
    if isinstance(cell, bool):
        return polarity(response) is cell
    if cell in YES_NO_VALUES:
        return polarity(response) is YES_NO_VALUES[cell]
    needed = numbers(cell)
    if needed:
        return needed <= numbers(response)
    return any(piece in response for piece in _SEPARATORS.split(cell) if piece)


def _mentions(response: str, keys: Mapping[str, str]) -> tuple[set[str], str | None]:
    """Entities mentioned in ``response`` and the one whose key occurrence ends last."""
    found: set[str] = set()
    best: tuple[int, int] | None = None
    last = None
    for key, entity in keys.items():
        position = response.rfind(key)
        if position < 0:
            continue
        found.add(entity)
        rank = (position + len(key), len(key))
        if best is None or rank > best:
            best, last = rank, entity
    return found, last


def _entity_rows(db: EntityDatabase, goal: DomainGoal, entity: str
                 ) -> list[Mapping[str, Cell]]:
    rows = list(db.rows(goal.domain, entity))
    fitting = [row for row in rows if db.satisfies(goal.domain, row, goal.constraints)]
    return fitting or rows


def domain_inform_success(goal: DomainGoal, responses: Sequence[str], db: EntityDatabase
                          ) -> DomainOutcome:
    """Inform and success of one domain (module docstring)."""
    keys = db.mention_keys(goal.domain) if goal.entity_slot else {}
    mentioned: list[set[str]] = []
    current: list[str | None] = []
    running = goal.named
    for response in responses:
        current.append(running)
        found, last = _mentions(response, keys)
        mentioned.append(found)
        if last is not None:
            running = last
    offered = running

    cache: dict[int, list[Mapping[str, Cell]]] = {}

    def rows_at(u: int) -> list[Mapping[str, Cell]]:
        if u not in cache:
            if not goal.entity_slot:
                at = goal.constraints_at[u] if u < len(goal.constraints_at) else goal.constraints
                cache[u] = list(db.query(goal.domain, at))
            else:
                entities = set(mentioned[u])
                if current[u] is not None:
                    entities.add(current[u])
                cache[u] = [row for entity in sorted(entities)
                            for row in _entity_rows(db, goal, entity)]
        return cache[u]

    unanswered, unverifiable, answered = [], [], []
    for attribute, first in goal.requests.items():
        turns = range(max(first, 0), len(responses))
        if attribute == goal.entity_slot:
            if not any(mentioned[u] for u in turns):
                unanswered.append(attribute)
            continue
        considered = [(u, row.get(attribute)) for u in turns for row in rows_at(u)]
        filled = [(u, cell) for u, cell in considered if cell not in _EMPTY_CELLS]
        if considered and not filled:
            unverifiable.append(attribute)  # the database has no value to check against
        elif not any(cell_answered(cell, responses[u]) for u, cell in filled):
            unanswered.append(attribute)
        else:
            answered.append(attribute)
    inform: bool | None = None
    if goal.entity_slot:
        # the output names no entity of d: it informs of the named one only by answering
        # a request about it (an output that says nothing informs of nothing)
        said = any(mentioned) or bool(answered)
        inform = offered is not None and said and (
            goal.named is None or offered == goal.named) and any(
            db.satisfies(goal.domain, row, goal.constraints)
            for row in db.rows(goal.domain, offered))
    checked = len(goal.requests) - len(unverifiable)
    if goal.entity_slot:
        success: bool | None = bool(inform) and not unanswered
    else:
        success = (not unanswered) if checked else None
    return DomainOutcome(goal.domain, inform, success, offered if goal.entity_slot else None,
                         tuple(unanswered), tuple(unverifiable))


def dialogue_inform_success(goals: Iterable[DomainGoal], responses: Sequence[str],
                            db: EntityDatabase) -> DialogueOutcome:
    """Inform and success of a dialogue: conjunctions over its domains (module docstring)."""
    outcomes = tuple(domain_inform_success(goal, responses, db) for goal in goals)
    informs = [o.inform for o in outcomes if o.inform is not None]
    successes = [o.success for o in outcomes if o.success is not None]
    return DialogueOutcome(all(informs) if informs else None,
                           all(successes) if successes else None, outcomes)
