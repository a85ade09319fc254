"""Goals, booked domains and gold states of the loaded MultiWOZ gold (mwzeval's inputs).

mwzeval ships ``goals.json`` and ``booked_domains.json``; here they are derived from the
loaded :class:`~dst_eval.gold.GoldDialogue` -- its ``goal`` (the 2.1 ``goal`` field) and
its turns' ``system_annotations`` (``booked_domains``, ``belief``), which
:mod:`.loader21` reads from ``log[*].metadata`` -- by the rules below (tests compare
every entry with the shipped files for val + test: identical).

**Goal** (:func:`derive_goal`), for each domain in the order restaurant, hotel, attraction,
train, taxi, police, hospital whose goal entry is a non-empty object:

* ``informable`` = goal ``info`` with keys normalised (lower-case, spaces removed,
  ``arriveBy`` -> ``arrive``, ``leaveAt`` -> ``leave``) and values by
  :func:`dst_eval.mwzeval_rules.normalize_value`;
* ``requestable`` (categories, in this order): train -- ``REFERENCE`` if the goal has a
  ``book`` entry, ``TRAINID`` if ``trainID`` is in ``reqt``; other domains -- ``PHONE``,
  ``ADDRESS``, ``POST`` for ``phone``, ``address``, ``postcode`` in ``reqt`` (in ``reqt``
  order), then ``REFERENCE`` if the goal has ``book``; other requests are ignored;
* ``booking`` = the ``book`` object without ``invalid`` / ``pre_invalid``, or ``[]``.

**Booked domains** (:func:`booked_domains`): for system turn ``i`` (odd log entries), the
domains whose ``metadata[d].book.booked`` list was non-empty at turn ``i`` or before, in
metadata order, **taxi excluded** (a taxi booking yields no reference number); the loader
stores them as ``system_annotations["booked_domains"]``.

**Gold states** (:func:`gold_states`) -- the approximation of mwzeval's 2.2 gold states
(``approx_gold_states_mwz21_test.json`` is exactly this): for system turn ``i``, per domain
in metadata order, the ``semi`` slots then the ``book`` slots (``book`` + key:
``bookday``), keys normalised as above, dropping the values ``''``, ``none``,
``not mentioned`` and dontcare (mwzeval drops dontcare from 2.2 gold states), values
normalised; empty domains omitted (:func:`mwzeval_state` of the turn's
``system_annotations["belief"]``).

**Gold states from MultiWOZ 2.2** (:func:`gold_states_from_mwz22`, what mwzeval itself
uses): for the system turn at position ``2i + 1``, the frames of the user turn before it;
per frame (service order) its ``state.slot_values``, a slot dropped when ``dontcare`` is
among its values, else its first value, named by the part after the first ``-``
(``bookday``); empty domains dropped; keys and values normalised as above.

Dialogue ids are matching keys (:func:`dst_eval.gold.dialogue_key`: lower-case, no
``.json``). Malformed data raise :class:`GoldDataError` naming file, dialogue and turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dst_eval.corpora.multiwoz.mwzeval_rules import normalize_slot_name, normalize_value
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldDialogue, GoldTurn
from dst_eval.metrics.inform_success import GoalDomain

GOAL_DOMAINS: tuple[str, ...] = (
    "restaurant", "hotel", "attraction", "train", "taxi", "police", "hospital",
)
REQUEST_CATEGORIES: Mapping[str, str] = {"phone": "PHONE", "address": "ADDRESS", "postcode": "POST"}
BOOKING_FLAGS = frozenset({"invalid", "pre_invalid"})
NOT_BOOKABLE_FOR_REFERENCE = frozenset({"taxi"})
DROPPED_STATE_VALUES = frozenset({
    "", "none", "not mentioned",
    "dontcare", "don't care", "dont care", "do n't care", "do not care",
})

Goal = dict[str, dict[str, Any]]
"""``{domain: {"informable": {...}, "requestable": [...], "booking": {...} | []}}``."""


def derive_goal(raw_goal: Mapping[str, Any], *, file: str | None = None,
                dialogue: str | None = None) -> Goal:
    """mwzeval's goal of one dialogue from its 2.1 ``goal`` field (rules in the module doc)."""
    goal: Goal = {}
    for domain in GOAL_DOMAINS:
        entry = raw_goal.get(domain)
        if not entry:
            continue
        if not isinstance(entry, Mapping):
            raise GoldDataError(f"goal of domain {domain!r} is not an object", file=file,
                                dialogue=dialogue)
        info = entry.get("info", {})
        requests = entry.get("reqt", [])
        if not isinstance(info, Mapping) or not isinstance(requests, Sequence) or isinstance(
                requests, str):
            raise GoldDataError(f"goal of domain {domain!r}: 'info' must be an object and "
                                "'reqt' a list", file=file, dialogue=dialogue)
        informable = {}
        for slot, value in info.items():
            key = normalize_slot_name(slot)
            if not isinstance(value, str):
                raise GoldDataError(f"goal value of {domain}-{slot} is not a string",
                                    file=file, dialogue=dialogue)
            informable[key] = normalize_value(key, value)
        has_booking = "book" in entry
        requestable: list[str] = []
        if domain == "train":
            if has_booking:
                requestable.append("REFERENCE")
            if "trainID" in requests:
                requestable.append("TRAINID")
        else:
            for request in requests:
                category = REQUEST_CATEGORIES.get(request)
                if category and category not in requestable:
                    requestable.append(category)
            if has_booking:
                requestable.append("REFERENCE")
        booking: dict[str, Any] | list = []
        if has_booking:
            if not isinstance(entry["book"], Mapping):
                raise GoldDataError(f"goal 'book' of domain {domain!r} is not an object",
                                    file=file, dialogue=dialogue)
            booking = {k: v for k, v in entry["book"].items() if k not in BOOKING_FLAGS}
        goal[domain] = {"informable": informable, "requestable": requestable, "booking": booking}
    return goal


def goal_domains(goal: Mapping[str, Mapping[str, Any]]) -> dict[str, GoalDomain]:
    """A goal (``goals.json`` shape) as the metric's :class:`GoalDomain` objects."""
    return {
        domain: GoalDomain(dict(entry["informable"]), frozenset(entry["requestable"]))
        for domain, entry in goal.items()
    }


def dialogue_goal(dialogue: GoldDialogue, *, file: str | None = None) -> Goal:
    """mwzeval's goal of a loaded dialogue (its ``goal``); a dialogue without one is an error."""
    if not isinstance(dialogue.goal, Mapping):
        raise GoldDataError("expected a 'goal' object (response metrics need the user goal)",
                            file=file, dialogue=dialogue.dialogue_id)
    return derive_goal(dialogue.goal, file=file, dialogue=dialogue.dialogue_id)


def _annotation(turn: GoldTurn, name: str, file: str | None) -> Any:
    value = turn.system_annotations.get(name)
    if value is None:
        raise GoldDataError(f"the gold has no {name!r} for this turn (MultiWOZ 2.1 data.json "
                            "or --goals needed)", file=file, dialogue=turn.dialogue_id,
                            turn=turn.turn_index)
    return value


def booked_domains(dialogue: GoldDialogue, *, file: str | None = None) -> list[list[str]]:
    """Per system turn, the domains booked so far (metadata order, taxi excluded)."""
    return [list(_annotation(t, "booked_domains", file)) for t in dialogue.turns]


def mwzeval_state(belief: Sequence[tuple[str, Sequence[tuple[str, str]]]]
                  ) -> dict[str, dict[str, str]]:
    """mwzeval's normalised gold state from a turn's ``belief`` ``((domain, ((slot, value),
    ...)), ...)``: keys normalised, dontcare spellings dropped, values normalised."""
    state: dict[str, dict[str, str]] = {}
    for domain, items in belief:
        slots: dict[str, str] = {}
        for name, value in items:
            if value in DROPPED_STATE_VALUES:
                continue
            key = normalize_slot_name(name)
            slots[key] = normalize_value(key, value)
        if slots:
            state[domain] = slots
    return state


def gold_states(dialogue: GoldDialogue, *, file: str | None = None
                ) -> list[dict[str, dict[str, str]]]:
    """Per system turn, the mwzeval-normalised belief state (:func:`mwzeval_state`)."""
    return [mwzeval_state(_annotation(t, "belief", file)) for t in dialogue.turns]


def gold_states_from_mwz22(dialogue: Mapping[str, Any], *,
                           file: str | None = None) -> list[dict[str, dict[str, str]]]:
    """Per system turn, mwzeval's gold state from a MultiWOZ 2.2 dialogue (module docstring)."""
    raw_id = str(dialogue.get("dialogue_id", "?"))
    turns = dialogue.get("turns")
    if not isinstance(turns, list):
        raise GoldDataError("expected a 2.2 dialogue with a 'turns' list", file=file,
                            dialogue=raw_id)
    states: list[dict[str, dict[str, str]]] = []
    for position in range(1, len(turns), 2):
        user = turns[position - 1]
        frames = user.get("frames") if isinstance(user, dict) else None
        if not isinstance(frames, list):
            raise GoldDataError("user turn without a 'frames' list", file=file,
                                dialogue=raw_id, turn=position // 2)
        state: dict[str, dict[str, str]] = {}
        for frame in frames:
            slots = {}
            for name, values in frame["state"]["slot_values"].items():
                if "dontcare" in values:
                    continue
                key = normalize_slot_name(name.split("-", 1)[1])
                slots[key] = normalize_value(key, values[0])
            if slots:
                state[frame["service"]] = slots
        states.append(state)
    return states
