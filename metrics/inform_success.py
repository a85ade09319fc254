"""Inform and Success rates of task-oriented dialogues (mwzeval's algorithm, SCORERS.md §1.4).

Per dialogue, with goal domains ``D`` (each with ``informable`` constraints and a set of
``requestable`` categories ⊆ {PHONE, ADDRESS, POST, REFERENCE, TRAINID}) and per system
turn ``i`` the delexicalised response ``R_i`` (placeholders already mapped to category
words), the state ``S_i`` (``{domain: {slot: value}}``), the active domains ``A_i`` and the
gold booked domains ``K_i``::

    offered[d] = [], provided[d] = {}
    for each turn i, for d in D (goal order) with d in A_i:
        if (d in {restaurant, hotel, attraction} and "NAME" in R_i)
           or (d == train and "TRAINID" in R_i):                  # substring tests
            V = query(d, S_i[d]) if d in S_i else []
            if offered[d] == [] or some v in offered[d] is not in V:
                offered[d] = V                                    # the last offer wins
        for c in PHONE, ADDRESS, POST, REFERENCE, TRAINID:
            if c in R_i and (c != REFERENCE or d in K_i): provided[d].add(c)

    inform[d]  = "name" in informable[d] or d in {taxi, police, hospital}
                 or (d == train and offered[d] == [] and TRAINID not in requestable[d])
                 or (d in {restaurant, hotel, attraction, train} and offered[d] != []
                     and set(offered[d]) ⊆ set(query(d, informable[d])))
    inform     = all_d inform[d]
    success[d] = inform and requestable[d] ⊆ provided[d];   success = all_d success[d]

Turns are paired with ``zip`` (the shortest of responses/states/active/booked wins), as in
mwzeval. Rates (:func:`inform_success_rates`): ``100 · hits / dialogues`` per goal domain
(over the dialogues whose goal has it) and in total.

The database is injected: ``query(domain, constraints) -> collection of venue ids`` (empty
for domains without a database; only membership matters, so returning a cached
``frozenset`` avoids copies); this module does no I/O and no normalisation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

REQUESTABLE_CATEGORIES: tuple[str, ...] = ("PHONE", "ADDRESS", "POST", "REFERENCE", "TRAINID")
VENUE_DOMAINS = frozenset({"restaurant", "hotel", "attraction"})
DATABASE_DOMAINS = frozenset({"restaurant", "hotel", "attraction", "train"})
NO_ENTITY_DOMAINS = frozenset({"taxi", "police", "hospital"})

Query = Callable[[str, Mapping[str, str]], Collection[str]]


@dataclass(frozen=True)
class GoalDomain:
    """One goal domain: the user's constraints and the categories they asked for."""

    informable: Mapping[str, str]
    requestable: frozenset[str]


@dataclass(frozen=True)
class DialogueOutcome:
    """Inform / Success of one dialogue, per goal domain and in total."""

    inform: Mapping[str, bool]
    success: Mapping[str, bool]

    @property
    def inform_total(self) -> bool:
        return all(self.inform.values())

    @property
    def success_total(self) -> bool:
        return self.inform_total and all(self.success.values())

    @classmethod
    def failed(cls, domains: Iterable[str]) -> DialogueOutcome:
        """The outcome of a dialogue that was not predicted at all."""
        domains = tuple(domains)
        return cls(dict.fromkeys(domains, False), dict.fromkeys(domains, False))


def dialogue_inform_success(
    goal: Mapping[str, GoalDomain],
    responses: Sequence[str],
    states: Sequence[Mapping[str, Mapping[str, str]]],
    active_domains: Sequence[Iterable[str]],
    booked_domains: Sequence[Iterable[str]],
    *,
    query: Query,
) -> DialogueOutcome:
    """Inform and Success of one dialogue (algorithm in the module docstring)."""
    offered: dict[str, frozenset[str]] = {d: frozenset() for d in goal}
    provided: dict[str, set[str]] = {d: set() for d in goal}
    for response, state, active, booked in zip(
        responses, states, active_domains, booked_domains, strict=False
    ):
        active = set(active)
        mentions = [c for c in REQUESTABLE_CATEGORIES if c in response]
        names_venue = "NAME" in response
        names_train = "TRAINID" in response
        for domain in goal:
            if domain not in active:
                continue
            if (names_venue and domain in VENUE_DOMAINS) or (names_train and domain == "train"):
                venues = frozenset(query(domain, state[domain]) if domain in state else ())
                if not offered[domain] or not offered[domain] <= venues:
                    offered[domain] = venues
            for category in mentions:
                if category != "REFERENCE" or domain in booked:
                    provided[domain].add(category)

    inform: dict[str, bool] = {}
    for domain, wanted in goal.items():
        if (
            "name" in wanted.informable
            or domain in NO_ENTITY_DOMAINS
            or (domain == "train" and not offered[domain]
                and "TRAINID" not in wanted.requestable)
        ):
            inform[domain] = True
        elif domain in DATABASE_DOMAINS and offered[domain]:
            inform[domain] = offered[domain] <= frozenset(query(domain, wanted.informable))
        else:
            inform[domain] = False

    inform_total = all(inform.values())
    success = {
        domain: inform_total and wanted.requestable <= provided[domain]
        for domain, wanted in goal.items()
    }
    return DialogueOutcome(inform, success)


@dataclass(frozen=True)
class InformSuccessRates:
    """Hit counts and rates per goal domain and ``total``: fractions ``hits / dialogues``
    (:meth:`inform_fraction`, ...) and mwzeval's percentages ``100 · hits / dialogues``
    (:meth:`inform`, ..., for its own output format), both unrounded."""

    dialogues: Mapping[str, int]
    inform_hits: Mapping[str, int]
    success_hits: Mapping[str, int]

    def inform_fraction(self, key: str = "total") -> float:
        return self.inform_hits[key] / self.dialogues[key]

    def success_fraction(self, key: str = "total") -> float:
        return self.success_hits[key] / self.dialogues[key]

    def inform_fractions(self) -> dict[str, float]:
        return {k: self.inform_fraction(k) for k in self.dialogues}

    def success_fractions(self) -> dict[str, float]:
        return {k: self.success_fraction(k) for k in self.dialogues}

    def inform(self, key: str = "total") -> float:
        return 100.0 * self.inform_hits[key] / self.dialogues[key]

    def success(self, key: str = "total") -> float:
        return 100.0 * self.success_hits[key] / self.dialogues[key]

    def inform_rates(self) -> dict[str, float]:
        return {k: self.inform(k) for k in self.dialogues}

    def success_rates(self) -> dict[str, float]:
        return {k: self.success(k) for k in self.dialogues}


def inform_success_rates(outcomes: Iterable[DialogueOutcome]) -> InformSuccessRates:
    """Count dialogues and hits per goal domain and in ``total``.

    ``inform[d] = 100 · #{dialogues with d in the goal and inform[d]} / #{dialogues with d}``,
    likewise success; ``total`` counts every dialogue. Raises ``ValueError`` on no dialogue.
    """
    dialogues: Counter = Counter()
    inform_hits: Counter = Counter()
    success_hits: Counter = Counter()
    for outcome in outcomes:
        inform_total = outcome.inform_total
        success_total = outcome.success_total
        dialogues["total"] += 1
        inform_hits["total"] += inform_total
        success_hits["total"] += success_total
        for domain, hit in outcome.inform.items():
            dialogues[domain] += 1
            inform_hits[domain] += hit
            success_hits[domain] += inform_total and outcome.success.get(domain, False)
    if not dialogues:
        raise ValueError("Inform/Success need at least one dialogue")
    return InformSuccessRates(dict(dialogues), dict(inform_hits), dict(success_hits))
