"""fuzzywuzzy-0.18-exact fuzzy string scores, as the official SGD scorer and mwzeval use them.

Both return an ``int`` in ``[0, 100]`` computed exactly like ``fuzzywuzzy.fuzz`` 0.18.0:

``token_sort_ratio(a, b)``
    ``p(s)`` = delete U+0080..U+00FF, replace every ``(?ui)\\W`` character by a space,
    lower-case, strip, then join the whitespace-separated tokens in sorted order.
    Result = 100 if ``p(a) == p(b)`` (also both empty), 0 if one is empty, else
    ``int(round(100 * r))`` with ``r = 2 M / (len(p(a)) + len(p(b)))``.

``partial_ratio(a, b)``
    No preprocessing. 100 if ``a == b``, 0 if one is empty. Otherwise, with ``s`` the
    shorter and ``l`` the longer string (``s = a`` on equal length): for every matching
    block ``(i, j, n)`` of ``s`` against ``l``, the window ``w = l[max(j - i, 0):][:len(s)]``
    is scored ``r(s, w)``; the first window with ``r > 0.995`` gives 100, else
    ``int(round(100 * max r))``.

``M`` (matched characters) and the matching blocks come from the matcher fuzzywuzzy
uses. Two matchers exist, and they disagree on about one pair in five of unrelated
strings (``'Hotel Key'`` / ``'spicy noodles'``: 18 vs 27):

* ``backend="difflib"`` (default): :class:`difflib.SequenceMatcher` (Ratcliff/Obershelp
  with its autojunk heuristic), what fuzzywuzzy 0.18 runs without python-Levenshtein;
* ``backend="levenshtein"``: ``M`` = longest common subsequence (InDel distance, via
  rapidfuzz), what ``Levenshtein.ratio`` gives when python-Levenshtein is installed
  (``token_sort_ratio`` only).

``int(round(x))`` is Python's round-half-to-even, as in fuzzywuzzy's ``utils.intr``.
Results are cached: the same value pairs recur across turns.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

BACKENDS = ("difflib", "levenshtein")

_NON_WORD = re.compile(r"(?ui)\W")
_LATIN1_HIGH = dict.fromkeys(range(0x80, 0x100))


def full_process(text: str) -> str:
    """fuzzywuzzy ``utils.full_process(text, force_ascii=True)``."""
    text = text.translate(_LATIN1_HIGH)
    return _NON_WORD.sub(" ", text).lower().strip()


def sort_tokens(text: str) -> str:
    """fuzzywuzzy ``_process_and_sort``: processed tokens joined in sorted order."""
    return " ".join(sorted(full_process(text).split())).strip()


def _intr(x: float) -> int:
    return int(round(x))


def _difflib_ratio(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b).ratio()


def _lcs_ratio(a: str, b: str) -> float:
    from rapidfuzz.distance import Indel  # only this backend needs it: not imported per run

    total = len(a) + len(b)
    matches = total - Indel.distance(a, b)  # = 2 * LCS
    return matches / total


def ratio(a: str, b: str, *, backend: str = "difflib") -> int:
    """fuzzywuzzy ``fuzz.ratio``: ``int(round(100 * 2M / (len(a) + len(b))))``, no preprocessing."""
    return _ratio(a, b, backend)


@lru_cache(maxsize=1 << 16)
def _ratio(a: str, b: str, backend: str) -> int:
    if a == b:
        return 100
    if not a or not b:
        return 0
    if backend == "difflib":
        return _intr(100 * _difflib_ratio(a, b))
    if backend == "levenshtein":
        return _intr(100 * _lcs_ratio(a, b))
    raise ValueError(f"unknown fuzzy backend {backend!r}; known: {', '.join(BACKENDS)}")


def token_sort_ratio(a: str, b: str, *, backend: str = "difflib") -> int:
    """fuzzywuzzy ``fuzz.token_sort_ratio(a, b)`` (``force_ascii=True, full_process=True``)."""
    if a == b:  # identical inputs always score 100; skip the cache
        return 100
    return _token_sort_ratio(a, b, backend)


@lru_cache(maxsize=1 << 16)
def _token_sort_ratio(a: str, b: str, backend: str) -> int:
    return _ratio(sort_tokens(a), sort_tokens(b), backend)


@lru_cache(maxsize=1 << 16)
def partial_ratio(a: str, b: str) -> int:
    """fuzzywuzzy ``fuzz.partial_ratio(a, b)`` with the difflib matcher (see module docstring)."""
    if a == b:
        return 100
    if not a or not b:
        return 0
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    best = 0.0
    for i, j, _n in SequenceMatcher(None, shorter, longer).get_matching_blocks():
        start = max(j - i, 0)
        r = _difflib_ratio(shorter, longer[start:start + len(shorter)])
        if r > 0.995:
            return 100
        best = max(best, r)
    return _intr(100 * best)
