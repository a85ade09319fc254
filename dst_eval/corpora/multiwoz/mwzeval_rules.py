"""mwzeval's state normalisation (Tomiinek/MultiWOZ_Evaluation 7f19ee0) as a versioned rule table.

mwzeval rewrites every dialogue-state key and value before it compares states (DST),
queries its database or reads goals (Inform/Success). This module holds those rules as
data (module constants) plus three fast functions; SCORERS.md §1.2 (keys) and §1.5
(values) describe them, and ``tests/test_mwzeval_rules.py`` checks every row family.

Keys -- :func:`normalize_slot_name`
    lower-case, delete every ASCII space, then ``arriveby`` -> ``arrive`` and
    ``leaveat`` -> ``leave`` (``"leave at"``, ``"leaveAt"`` -> ``leave``; ``"price range"``
    -> ``pricerange``; book slots keep their ``book`` prefix: ``bookday``). Domains are
    not touched.

Values -- :func:`normalize_value` ``(slot, value)`` with ``slot`` the *normalised* key:

==========================  ===============================================================
slot                        rule
==========================  ===============================================================
name, destination,          strip, lower; ``" & "`` -> ``" and "``; ``"&"`` -> ``" and "``;
departure                   ``" '"`` -> ``"'"``; [cd3f0ee: ``bed and breakfast`` ->
                            ``b and b``]; then one exact lookup in :data:`NAME_TABLE`
                            (restaurant, hotel, attraction names; all apply to every domain,
                            the first table with the name wins)
type                        exact lookup in :data:`TYPE_TABLE`; *not* lower-cased
food                        strip, lower, exact lookup in :data:`FOOD_TABLE`
arrive, leave, arriveby,    the time rules of :func:`time_to_canonical` (→ ``HH:MM`` when
leaveat, time               it can)
parking, internet           ``free`` -> ``yes`` (exact), anything else unchanged
anything else               unchanged (area, pricerange, stars, day, book*: not even lower-cased)
==========================  ===============================================================

States -- :func:`normalize_state` returns a *new* ``{domain: {slot: value}}`` (mwzeval
rewrites the caller's dict in place, its defect X1; this never mutates its input). When
two raw keys normalise to the same key (``leaveAt`` and ``leave at``) the later one wins,
as in mwzeval.

cd3f0ee: the latest mwzeval commit adds ``bed and breakfast`` -> ``b and b`` and two hotel
names (:data:`HOTEL_NAMES_CD3F0EE`). They change published Inform/Success numbers, so they
are off by default and switched on with the keyword ``cd3f0ee=True``; the version string
is then :data:`RULES_VERSION_CD3F0EE`.

Deliberate deviation: in the ``pm`` rule mwzeval computes ``int(hours) + 12`` and crashes
(ValueError) when ``hours`` is not an integer (``"twelve:30 pm"``); here such a value
continues through the remaining rules instead. Values must be ``str`` (mwzeval would
crash on non-strings in name/food/time slots); a non-string raises :class:`TypeError`.

Speed: all tables are dicts, each (slot, value) pair is normalised once (``lru_cache``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

RULES_VERSION = "mwzeval-7f19ee0"
"""Signature of the default rule set (the commit that reproduces the published leaderboard)."""
RULES_VERSION_CD3F0EE = "mwzeval-cd3f0ee"
"""Signature of the rule set with the cd3f0ee additions (``cd3f0ee=True``)."""

# ---------------------------------------------------------------------------------------------
# Keys (§1.2)
# ---------------------------------------------------------------------------------------------

SLOT_NAME_RENAMES: Mapping[str, str] = MappingProxyType({"arriveby": "arrive", "leaveat": "leave"})
"""Applied after lower-casing and removing spaces."""

CANONICAL_SLOT_NAMES: Mapping[str, str] = MappingProxyType(
    {"arrive": "arriveby", "leave": "leaveat"}
)
"""mwzeval slot name -> MultiWOZ 2.2 slot name (the inverse of :data:`SLOT_NAME_RENAMES`)."""

# ---------------------------------------------------------------------------------------------
# Values (§1.5)
# ---------------------------------------------------------------------------------------------

NAME_SLOTS = frozenset({"name", "destination", "departure"})
TYPE_SLOTS = frozenset({"type"})
FOOD_SLOTS = frozenset({"food"})
TIME_SLOTS = frozenset({"arrive", "leave", "arriveby", "leaveat", "time"})
FREE_MEANS_YES_SLOTS = frozenset({"parking", "internet"})

NAME_REPLACEMENTS: tuple[tuple[str, str], ...] = ((" & ", " and "), ("&", " and "), (" '", "'"))
"""Substring replacements on names, in order, after strip + lower."""
NAME_REPLACEMENTS_CD3F0EE: tuple[tuple[str, str], ...] = (("bed and breakfast", "b and b"),)
"""cd3f0ee only: applied after :data:`NAME_REPLACEMENTS`, before the name tables."""

RESTAURANT_NAMES: Mapping[str, str] = MappingProxyType({
    "hotel du vin bistro": "hotel du vin and bistro",
    "the river bar and grill": "the river bar steakhouse and grill",
    "nando's": "nandos",
    "city center b and b": "city center north b and b",
    "acorn house": "acorn guest house",
    "caffee uno": "caffe uno",
    "cafe uno": "caffe uno",
    "rosa's": "rosas bed and breakfast",
    "restaurant called two two": "restaurant two two",
    "restaurant 2 two": "restaurant two two",
    "restaurant two 2": "restaurant two two",
    "restaurant 2 2": "restaurant two two",
    "restaurant 1 7": "restaurant one seven",
    "restaurant 17": "restaurant one seven",
})

HOTEL_NAMES: Mapping[str, str] = MappingProxyType({
    "lime house": "limehouse",
    "cityrooms": "cityroomz",
    "whale of time": "whale of a time",
    "huntingdon hotel": "huntingdon marriott hotel",
    "holiday inn exlpress, cambridge": "express by holiday inn cambridge",
    "university hotel": "university arms hotel",
    "arbury guesthouse and lodge": "arbury lodge guesthouse",
    "bridge house": "bridge guest house",
    "arbury guesthouse": "arbury lodge guesthouse",
    "nandos in the city centre": "nandos city centre",
})

HOTEL_NAMES_CD3F0EE: Mapping[str, str] = MappingProxyType({
    "a and b guest house": "a and b guesthouse",
    "acorn guesthouse": "acorn guest house",
})
"""Hotel names added in cd3f0ee (only with ``cd3f0ee=True``)."""

ATTRACTION_NAMES: Mapping[str, str] = MappingProxyType({
    "broughton gallery": "broughton house gallery",
    "scudamores punt co": "scudamores punting co",
    "cambridge botanic gardens": "cambridge university botanic gardens",
    "the junction": "junction theatre",
    "trinity street college": "trinity college",
    "christ college": "christ's college",
    "christs": "christ's college",
    "history of science museum": "whipple museum of the history of science",
    "parkside pools": "parkside swimming pool",
    "the botanical gardens at cambridge university": "cambridge university botanic gardens",
    "cafe jello museum": "cafe jello gallery",
})


def _merge_first_wins(*tables: Mapping[str, str]) -> Mapping[str, str]:
    merged: dict[str, str] = {}
    for table in tables:
        for source, target in table.items():
            merged.setdefault(source, target)
    return MappingProxyType(merged)


NAME_TABLE = _merge_first_wins(RESTAURANT_NAMES, HOTEL_NAMES, ATTRACTION_NAMES)
"""All name tables in mwzeval's order (restaurant, hotel, attraction); first hit wins."""
NAME_TABLE_CD3F0EE = _merge_first_wins(
    RESTAURANT_NAMES, HOTEL_NAMES, HOTEL_NAMES_CD3F0EE, ATTRACTION_NAMES
)

TYPE_TABLE: Mapping[str, str] = MappingProxyType({
    "swimming pool": "swimmingpool",
    "mutliple sports": "multiple sports",
    "night club": "nightclub",
    "guest house": "guesthouse",
})
"""Exact, case-sensitive (the value is not lower-cased first)."""

FOOD_TABLE: Mapping[str, str] = MappingProxyType({
    "eriterean": "mediterranean",
    "brazilian": "portuguese",
    "sea food": "seafood",
    "portugese": "portuguese",
    "modern american": "north american",
    "americas": "north american",
    "intalian": "italian",
    "italain": "italian",
    "asian or oriental": "asian",
    "english": "british",
    "australasian": "australian",
    "gastropod": "gastropub",
    "brutish": "british",
    "bristish": "british",
    "europeon": "european",
})
"""Applied after strip + lower."""

TIME_PHRASES: Mapping[str, str] = MappingProxyType({
    "afternoon": "13:00",
    "lunch": "12:00",
    "noon": "12:00",
    "mid-day": "12:00",
    "around lunch time": "12:00",
    "morning": "08:00",
    "seven o'clock tomorrow evening": "07:00",  # sic (mwzeval)
    "three forty five p.m": "15:45",
    "one thirty p.m.": "13:30",
    "six fourty five": "06:45",
    "eight thirty": "08:30",
})
"""Time rule 2, whole (stripped, lower-cased) value -> time."""

TIME_PHRASE_PREFIXES: tuple[tuple[str, str], ...] = (
    ("one o'clock p.m", "13:00"),
    ("ten o'clock a.m", "10:00"),
)
"""Time rule 2, value starting with the phrase -> time."""

TIME_DROP_PREFIXES: tuple[tuple[str, int, bool], ...] = (
    ("by", 3, False),
    ("after", 5, True),
    ("afer", 4, True),
)
"""Time rule 3, in order: (prefix, characters dropped, strip afterwards). ``by`` drops three
characters (``"by 15:00"`` -> ``"15:00"``, but ``"by15:00"`` -> ``"5:00"``), as mwzeval."""

TIME_AM_SUFFIXES: tuple[str, ...] = ("am", "a.m.")
TIME_PM_SUFFIXES: tuple[str, ...] = ("pm", "p.m.")
TIME_TRAILING_PUNCTUATION = frozenset(".,?")


def time_to_canonical(value: str) -> str:
    """mwzeval's time rules, in order (SCORERS.md §1.5).

    1. strip, lower;  2. whole phrases (:data:`TIME_PHRASES`, :data:`TIME_PHRASE_PREFIXES`);
    3. drop a ``by`` / ``after`` / ``afer`` prefix;  4. drop an ``am`` / ``a.m.`` suffix;
    5. ``pm`` / ``p.m.`` suffix: drop it; ``H:MM`` -> ``(H+12):MM`` (``12:30 pm`` -> ``24:30``),
    digits ``H`` -> ``(H+12):00``, other forms go on;  6. ``''`` -> ``00:00``;
    7. drop one trailing ``.``, ``,`` or ``?``;  8. 4 digits ``HHMM`` -> ``HH:MM``;
    9. other digits -> zero-padded to 2 + ``:00``;  10. if it has ``:``, delete spaces;
    11. 4 characters ``H:MM`` -> ``0H:MM``;  12. otherwise unchanged (``10.30`` stays).
    """
    time = value.strip().lower()
    phrase = TIME_PHRASES.get(time)
    if phrase is not None:
        return phrase
    for prefix, canonical in TIME_PHRASE_PREFIXES:
        if time.startswith(prefix):
            return canonical

    for prefix, n_chars, strip in TIME_DROP_PREFIXES:
        if time.startswith(prefix):
            time = time[n_chars:].strip() if strip else time[n_chars:]

    for suffix in TIME_AM_SUFFIXES:
        if time.endswith(suffix):
            time = time[: -len(suffix)].strip()

    if time.endswith(TIME_PM_SUFFIXES):
        for suffix in TIME_PM_SUFFIXES:
            if time.endswith(suffix):
                time = time[: -len(suffix)].strip()
        afternoon = _add_twelve_hours(time)
        if afternoon is not None:
            return afternoon

    if not time:
        return "00:00"
    if time[-1] in TIME_TRAILING_PUNCTUATION:
        time = time[:-1]
    if time.isdigit():
        return f"{time[:2]}:{time[2:]}" if len(time) == 4 else time.zfill(2) + ":00"
    if ":" in time:
        time = time.replace(" ", "")
    if len(time) == 4 and time[1] == ":":
        hours, minutes = time.split(":")[:2]
        return hours.zfill(2) + ":" + minutes
    return time


def _add_twelve_hours(time: str) -> str | None:
    """Rule 5 after the suffix is gone: ``H:MM`` / ``H`` -> afternoon time, else None.

    Python ``int`` semantics as in mwzeval (``" 9"`` -> 9); where mwzeval's ``int`` raises
    (non-numeric hours) this returns None and the value goes on through the later rules.
    """
    parts = time.split(":")
    if len(parts) == 2:
        hours, minutes = parts
    elif len(parts) == 1 and parts[0].isdigit():
        hours, minutes = parts[0], "00"
    else:
        return None
    try:
        return f"{int(hours) + 12}:{minutes}"
    except ValueError:
        return None


def name_to_canonical(value: str, *, cd3f0ee: bool = False) -> str:
    """Venue/place names: strip, lower, ``&`` -> ``and``, `` '`` -> ``'``, then the name tables."""
    name = value.strip().lower()
    for old, new in NAME_REPLACEMENTS:
        name = name.replace(old, new)
    if cd3f0ee:
        for old, new in NAME_REPLACEMENTS_CD3F0EE:
            name = name.replace(old, new)
        return NAME_TABLE_CD3F0EE.get(name, name)
    return NAME_TABLE.get(name, name)


def food_to_canonical(value: str) -> str:
    food = value.strip().lower()
    return FOOD_TABLE.get(food, food)


def type_to_canonical(value: str) -> str:
    return TYPE_TABLE.get(value, value)


@lru_cache(maxsize=4096)
def normalize_slot_name(slot: str) -> str:
    """mwzeval state key: lower-case, spaces removed, arriveby -> arrive, leaveat -> leave.

    >>> normalize_slot_name("leaveAt"), normalize_slot_name("price range")
    ('leave', 'pricerange')
    """
    key = slot.lower().replace(" ", "")
    return SLOT_NAME_RENAMES.get(key, key)


def canonical_slot_name(mwzeval_slot: str) -> str:
    """MultiWOZ 2.2 name of an mwzeval slot name (``leave`` -> ``leaveat``; others unchanged)."""
    return CANONICAL_SLOT_NAMES.get(mwzeval_slot, mwzeval_slot)


def normalize_value(slot: str, value: str, *, cd3f0ee: bool = False) -> str:
    """Normalise one state value the way mwzeval does; ``slot`` is the normalised key.

    >>> normalize_value("leave", "5:30 pm"), normalize_value("name", "Nando's")
    ('17:30', 'nandos')
    """
    if not isinstance(value, str):
        raise TypeError(
            f"mwzeval value of slot {slot!r} must be a string, got {type(value).__name__}"
        )
    return _normalize_value(slot, value, cd3f0ee)


@lru_cache(maxsize=1 << 16)
def _normalize_value(slot: str, value: str, cd3f0ee: bool) -> str:
    if slot in NAME_SLOTS:
        return name_to_canonical(value, cd3f0ee=cd3f0ee)
    if slot in TYPE_SLOTS:
        return type_to_canonical(value)
    if slot in FOOD_SLOTS:
        return food_to_canonical(value)
    if slot in TIME_SLOTS:
        return time_to_canonical(value)
    if slot in FREE_MEANS_YES_SLOTS:
        return "yes" if value == "free" else value
    return value


def normalize_state(
    state: Mapping[str, Mapping[str, str]], *, cd3f0ee: bool = False
) -> dict[str, dict[str, str]]:
    """A new ``{domain: {slot: value}}`` with mwzeval keys and values; ``state`` is not touched.

    Domains are kept as given (also empty ones). Two keys normalising alike: the later wins.
    """
    out: dict[str, dict[str, str]] = {}
    for domain, slots in state.items():
        new_slots: dict[str, str] = {}
        for slot, value in slots.items():
            key = normalize_slot_name(slot)
            new_slots[key] = normalize_value(key, value, cd3f0ee=cd3f0ee)
        out[domain] = new_slots
    return out


def rules_version(*, cd3f0ee: bool = False) -> str:
    """The signature string of the rule set in use."""
    return RULES_VERSION_CD3F0EE if cd3f0ee else RULES_VERSION
