"""Goals, booked domains and gold states from MultiWOZ 2.1 ``data.json`` (mwzeval's inputs).

mwzeval ships ``goals.json`` and ``booked_domains.json``; here they are derived from the
``goal`` and ``log[*].metadata`` fields of the 2.1 data by the rules below (tests compare
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
metadata order, **taxi excluded** (a taxi booking yields no reference number).

**Gold states** (:func:`gold_states`) -- the approximation of mwzeval's 2.2 gold states
(``approx_gold_states_mwz21_test.json`` is exactly this): for system turn ``i``, per domain
in metadata order, the ``semi`` slots then the ``book`` slots (``book`` + key:
``bookday``), keys normalised as above, dropping the values ``''``, ``none``,
``not mentioned`` and dontcare (mwzeval drops dontcare from 2.2 gold states), values
normalised; empty domains omitted.

**Gold states from MultiWOZ 2.2** (:func:`gold_states_from_mwz22`, what mwzeval itself
uses): for the system turn at position ``2i + 1``, the frames of the user turn before it;
per frame (service order) its ``state.slot_values``, a slot dropped when ``dontcare`` is
among its values, else its first value, named by the part after the first ``-``
(``bookday``); empty domains dropped; keys and values normalised as above.

Dialogue ids are matching keys (:func:`dst_eval.gold.dialogue_key`: lower-case, no
``.json``). Malformed data raise :class:`GoldDataError` naming file, dialogue and turn.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from dst_eval.corpora.multiwoz.mwzeval_rules import normalize_slot_name, normalize_value
from dst_eval.errors import GoldDataError
from dst_eval.gold import dialogue_key
from dst_eval.jsonio import read_json
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


def load_multiwoz21(path: str | Path, *, ids: Iterable[str] | None = None) -> dict[str, dict]:
    """Read a MultiWOZ 2.1 ``data.json`` (or a split file, or its ``.zip``) as
    ``{dialogue key: dialogue}``; ``ids`` (e.g. the lines of ``testListFile``) restricts it."""
    data = read_json(path, error=GoldDataError)
    if not isinstance(data, dict):
        raise GoldDataError("expected a MultiWOZ 2.1 object {dialogue id: dialogue}",
                            file=str(path))
    wanted = None if ids is None else {dialogue_key(i) for i in ids if str(i).strip()}
    out: dict[str, dict] = {}
    for raw_id, dialogue in data.items():
        key = dialogue_key(raw_id)
        if wanted is not None and key not in wanted:
            continue
        if not isinstance(dialogue, dict) or not isinstance(dialogue.get("log"), list):
            raise GoldDataError("expected an object with a 'log' list", file=str(path),
                                dialogue=raw_id)
        if not isinstance(dialogue.get("goal"), dict):
            raise GoldDataError("expected a 'goal' object", file=str(path), dialogue=raw_id)
        if key in out:
            raise GoldDataError("duplicate dialogue id", file=str(path), dialogue=raw_id)
        out[key] = dialogue
    if wanted is not None and (absent := wanted - out.keys()):
        raise GoldDataError(
            f"{len(absent)} listed dialogues are not in the data (e.g. {min(absent)})",
            file=str(path),
        )
    return out


def system_turns(dialogue: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The system turns of a 2.1 dialogue: the odd entries of ``log``."""
    return dialogue["log"][1::2]


def derive_goal(raw_goal: Mapping[str, Any], *, file: str | None = None,
                dialogue: str | None = None) -> Goal:
    """mwzeval's goal of one dialogue from its 2.1 ``goal`` field (rules in the module doc)."""
    goal: Goal = {}
    for domain in GOAL_DOMAINS:
        entry = raw_goal.get(domain)
        if not entry:
            continue
        if not isinstance(entry, dict):
            raise GoldDataError(f"goal of domain {domain!r} is not an object", file=file,
                                dialogue=dialogue)
        info = entry.get("info", {})
        requests = entry.get("reqt", [])
        if not isinstance(info, dict) or not isinstance(requests, list):
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
            if not isinstance(entry["book"], dict):
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


def _metadata(turn: Any, *, file: str | None, dialogue: str, index: int) -> Mapping[str, Any]:
    metadata = turn.get("metadata") if isinstance(turn, dict) else None
    if not isinstance(metadata, dict):
        raise GoldDataError("system turn without a 'metadata' object", file=file,
                            dialogue=dialogue, turn=index)
    return metadata


def booked_domains(dialogue: Mapping[str, Any], *, file: str | None = None,
                   dialogue_id: str = "?") -> list[list[str]]:
    """Per system turn, the domains booked so far (metadata order, taxi excluded)."""
    booked: set[str] = set()
    out: list[list[str]] = []
    for index, turn in enumerate(system_turns(dialogue)):
        metadata = _metadata(turn, file=file, dialogue=dialogue_id, index=index)
        for domain, frame in metadata.items():
            if domain in NOT_BOOKABLE_FOR_REFERENCE or not isinstance(frame, dict):
                continue
            if (frame.get("book") or {}).get("booked"):
                booked.add(domain)
        out.append([d for d in metadata if d in booked])
    return out


def gold_states(dialogue: Mapping[str, Any], *, file: str | None = None,
                dialogue_id: str = "?") -> list[dict[str, dict[str, str]]]:
    """Per system turn, the mwzeval-normalised belief state from the 2.1 metadata."""
    states: list[dict[str, dict[str, str]]] = []
    for index, turn in enumerate(system_turns(dialogue)):
        metadata = _metadata(turn, file=file, dialogue=dialogue_id, index=index)
        state: dict[str, dict[str, str]] = {}
        for domain, frame in metadata.items():
            if not isinstance(frame, dict):
                raise GoldDataError(f"metadata of domain {domain!r} is not an object",
                                    file=file, dialogue=dialogue_id, turn=index)
            slots: dict[str, str] = {}
            semi = frame.get("semi") or {}
            book = frame.get("book") or {}
            items = [(normalize_slot_name(k), v) for k, v in semi.items()]
            items += [("book" + normalize_slot_name(k), v) for k, v in book.items()
                      if k != "booked"]
            for key, value in items:
                if not isinstance(value, str):
                    raise GoldDataError(f"state value of {domain}-{key} is not a string",
                                        file=file, dialogue=dialogue_id, turn=index)
                if value in DROPPED_STATE_VALUES:
                    continue
                slots[key] = normalize_value(key, value)
            if slots:
                state[domain] = slots
        states.append(state)
    return states


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
