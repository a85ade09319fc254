"""The surface-form diagnostic: wrong values that a broader normalisation would accept.

After every run with states, each predicted value that the run's profile counts as
wrong (the slot is in both gold and prediction, the value is no gold variant under the
profile's comparison) is tested against broader comparisons, narrowest first; the first
that accepts it names its class:

=====================  ===================================================  ====================
class                  the value equals a gold variant after                accepted by
=====================  ===================================================  ====================
``case/whitespace``    strip, collapse whitespace, lower-case (``basic``)   ``--norm basic``
``inner whitespace``   lower-case, every whitespace removed                 ``--norm basic+despace``
``width``              NFKC (full/half-width forms: ``（`` = ``(``), then      ``--norm nfkc+basic``
                       ``basic``
``spelling/time``      MultiWOZ only (``corpora/multiwoz/surface.py``):     ``--profile mwzeval``
                       mwzeval's value tables (names, types such as
                       ``guest house``, food, ``free`` parking, time
                       formats ``7:00``/``7 pm``)
``time format``        both parse as the same clock time (``7:00`` =        no dst-eval profile
                       ``07:00`` = ``7 am``; ``7 pm`` = ``19:00``)
``punctuation``        lower-case, every non-alphanumeric character         no dst-eval profile
                       removed
=====================  ===================================================  ====================

What the profile itself accepts is not counted: ``strict`` accepts what its ``--norm``
policy makes equal to a gold variant (tested with the run's own normaliser: ``nfkc``
accepts half-width punctuation, ``despace`` inner whitespace), ``convlab`` case and
whitespace, ``mwzeval`` its tables (case-sensitive, as mwzeval); ``trade``, ``official`` and
``sgd-official`` compare the strings as written (their anchors do). ``trade`` (on
``data.json``) and ``trippy`` score against the gold they rebuild as their anchors do, so
their values are tested against that gold (``Result.compared``: a TRADE-normalised
``guest house`` is right there, not a spelling variant of 2.1's ``guesthouse``); the
other profiles' against the loader's. Predicted values the strict profile reads as unset
(``""``, ``none``, ...) are not values. The counts go into one warning line; **no score
changes**: it only says which profile or ``--norm`` would score those values as right
(under a profile that takes no ``--norm``: ``--profile strict --norm ...``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from dst_eval.alignment import Alignment
from dst_eval.predictions.model import Issue

KIND = "surface-forms"
CLASSES = ("case/whitespace", "inner whitespace", "width", "spelling/time", "time format",
           "punctuation")
ACCEPTED_BY = {"case/whitespace": "--norm basic", "inner whitespace": "--norm basic+despace",
               "width": "--norm nfkc+basic", "spelling/time": "--profile mwzeval",
               "time format": "no dst-eval profile", "punctuation": "no dst-eval profile"}
PROFILE_ACCEPTS = {"convlab": ("case/whitespace", "inner whitespace"),
                   "mwzeval": ("spelling/time",)}
"""Classes a compatibility profile already scores as right (``strict``: from its rules)."""

_SPACE = re.compile(r"\s+")
_NON_ALNUM = re.compile(r"[\W_]+")
_TIME = re.compile(r"^(\d{1,2})(?:[:.h](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?$")


def _basic(value: str) -> str:
    return _SPACE.sub(" ", value.strip()).lower()


def _despace(value: str) -> str:
    return _SPACE.sub("", value).lower()


def _width(value: str) -> str:
    return _basic(unicodedata.normalize("NFKC", value))


def _punct(value: str) -> str:
    return _NON_ALNUM.sub("", value).lower()


def clock(value: str) -> str | None:
    """``HH:MM`` of a clock-time spelling (``7:00``, ``07.00``, ``7 pm``, ``7.30am``), else None."""
    match = _TIME.match(value.strip().lower())
    if not match or (match.group(2) is None and match.group(3) is None):
        return None
    hour, minute, half = int(match.group(1)), int(match.group(2) or 0), match.group(3)
    if half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half.startswith("p") else 0)
    if hour > 23 or minute > 59:
        return None
    return f"{hour:02d}:{minute:02d}"


Test = tuple[str, Callable[[str, str], str | None]]
"""``(class, normalise(slot key, value))``: a value is in the class when its normalised form
equals a gold variant's (None: not comparable)."""


def _tests(corpus_tests: Iterable[Test]) -> list[Test]:
    """The comparisons, narrowest first; a corpus's own (``CorpusSpec.surface_tests``) come
    after the whitespace ones."""
    return [("case/whitespace", lambda _k, v: _basic(v)),
            ("inner whitespace", lambda _k, v: _despace(v)),
            ("width", lambda _k, v: _width(v)),
            *corpus_tests,
            ("time format", lambda _k, v: clock(v)),
            ("punctuation", lambda _k, v: _punct(v))]


def accepted_classes(profile: str) -> frozenset[str]:
    """The classes a compatibility profile already scores as right (``strict`` decides by
    its normaliser: ``count(is_right=...)``)."""
    return frozenset(PROFILE_ACCEPTS.get(profile, ()))


RightTest = Callable[[str, str, tuple[str, ...]], bool]
"""``(slot key, predicted value, gold variants) -> right under the run's profile``."""


def count(alignment: Alignment, *, corpus_tests: Iterable[Test], accepted: frozenset[str],
          is_unset: Callable[[str], bool], is_right: RightTest | None = None,
          compared: tuple[list, list] | None = None,
          rows: Sequence[int] | None = None) -> Counter:
    """Per class, the predicted values that are wrong under the profile (not ``is_right``,
    no accepted class, no exact match) but equal a gold variant under that class's
    comparison.

    ``compared``: the per-turn gold and predicted states the profile itself compared
    (``Result.compared``), when its gold is not the loader's; else the aligned pairs.
    ``rows``: the only aligned pairs that can hold such a value, when the caller knows them
    (the strict profile's turns with a wrong value or without a prediction:
    :func:`strict_rows`); the others are not looked at."""
    tests = _tests(corpus_tests)
    memo: dict[tuple[str, str, tuple[str, ...]], str | None] = {}

    def classify(key: str, value: str, variants: tuple[str, ...]) -> str | None:
        matched = [name for name, normal in tests
                   if (mine := normal(key, value)) is not None
                   and any(normal(key, g) == mine for g in variants)]
        if not matched or any(name in accepted for name in matched):
            return None  # no broader match, or right under the profile already
        return matched[0]

    counts: Counter = Counter()
    pairs = alignment.pairs if rows is None else [alignment.pairs[row] for row in rows]
    states = (zip(*compared, strict=True) if compared is not None else
              ((g.state, p.state) for g, p in pairs if p is not None and p.state))
    # a turn whose states are the previous turn's objects (loaders share a state while it
    # does not change) adds the previous turn's classes again, without a look at its values
    last: tuple = (None, None)
    last_found: list[str] = []
    for gold_state, pred_state in states:
        if gold_state is last[0] and pred_state is last[1]:
            if last_found:
                counts.update(last_found)
            continue
        last, last_found = (gold_state, pred_state), []
        for key, value in pred_state.items():
            variants = gold_state.get(key)
            if variants is None or not isinstance(value, str) or value in variants:
                continue
            memo_key = (key, value, tuple(variants))
            if memo_key not in memo:
                memo[memo_key] = (None if is_unset(value) or (
                    is_right is not None and is_right(key, value, variants))
                    else classify(key, value, variants))
            found = memo[memo_key]
            if found is not None:
                last_found.append(found)
        if last_found:
            counts.update(last_found)
    return counts


def strict_rows(per_turn: Mapping[str, Any] | None, n_pairs: int, *, dontcare: str
                ) -> list[int] | None:
    """The aligned pairs where a strict run can count a value: the turns its table scores
    with a wrong value, and those it scores as not predicted; None when that cannot be
    told (another ``--dontcare`` than ``value``, rows other than the aligned pairs).

    A counted value is a set value (not unset) of a slot the gold has, that the run's
    normaliser does not make a gold variant (``is_right``). With ``--dontcare value`` the
    strict profile keeps every such slot on both sides and compares it with that same
    normaliser (a repeated slot's first set value is the value as read, which is set), so
    the turn has a wrong value -- unless the turn is scored as not predicted, whose values
    are not compared at all. MultiWOZ 2.1 test: 11 -> 2 ms."""
    if per_turn is None or dontcare != "value" or "wrong" not in per_turn:
        return None
    wrong, predicted = per_turn["wrong"], per_turn.get("predicted")
    if predicted is None or len(wrong) != n_pairs or len(predicted) != n_pairs:
        return None
    candidate = (np.asarray(wrong) > 0) | ~np.asarray(predicted, dtype=bool)
    return np.flatnonzero(candidate).tolist()


def _advice(cls: str, profile: str) -> str:
    """What accepts class ``cls``: a ``--norm`` is the strict profile's option; under
    another profile the advice names the profile too."""
    advice = ACCEPTED_BY[cls]
    if advice.startswith("--norm") and profile != "strict":
        return f"--profile strict {advice}"
    return advice


def warning(counts: Counter, profile: str) -> Issue | None:
    """One warning line, or None when nothing would match."""
    total = sum(counts.values())
    if not total:
        return None
    parts = [f"{counts[c]} {c} ({_advice(c, profile)})" for c in CLASSES if counts[c]]
    return Issue(KIND, f"{total} value(s) the {profile} profile scores as wrong would match "
                       f"the gold after a broader normalisation: {', '.join(parts)}; the "
                       "scores are unchanged")
