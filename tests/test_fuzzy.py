"""fuzzywuzzy-0.18 semantics of dst_eval.metrics.fuzzy (SCORERS.md §0.1 and hand-derived values)."""

from __future__ import annotations

import pytest
from dst_eval.metrics.fuzzy import full_process, partial_ratio, ratio, sort_tokens, token_sort_ratio


@pytest.mark.parametrize(("a", "b", "expected"), [
    # SCORERS.md §0.1 table
    ("San Francisco", "san francisco", 100),
    ("san francisco ca", "San Francisco", 90),
    ("café", "cafe", 86),           # U+00E9 deleted: "caf" vs "cafe" = 2*3/7
    ("!!", "??", 100),              # both empty after processing: equal
    ("", "", 100),
    ("a", "", 0),
    ("abc", "!!", 0),               # one side empty after processing
    # hand-derived: sorted tokens, then 2M/T
    ("March 3rd", "March 3", 88),   # "3rd march" vs "3 march": 14/16 = 87.5 -> 88 (half to even)
    ("abcdefgh", "abcdexyz", 62),   # 10/16 = 62.5 -> 62 (half to even, not 63)
    ("3rd of March", "March 3", 74),
    ("abc_def", "abc def", 86),     # "_" is a word character: not a separator
    ("Ünïcode café", "nicode caf", 95),  # U+0080..U+00FF deleted: "caf ncode" vs "caf nicode"
    ("new york", "New York!!", 100),
    ("Lafayette", "10:30 in the morning", 7),  # difflib blocks: 'e' pairs first, M = 1
])
def test_token_sort_ratio(a: str, b: str, expected: int) -> None:
    assert token_sort_ratio(a, b) == expected


def test_levenshtein_backend_counts_the_longest_common_subsequence() -> None:
    # "lafayette" vs "10 30 in morning the": LCS "te" = 2 -> 4/29 = 13.8 -> 14, where
    # difflib's greedy longest-block matching finds only one character (7).
    assert token_sort_ratio("Lafayette", "10:30 in the morning", backend="levenshtein") == 14
    assert token_sort_ratio("March 3rd", "March 3", backend="levenshtein") == 88
    with pytest.raises(ValueError, match="unknown fuzzy backend"):
        token_sort_ratio("a", "b", backend="nope")


@pytest.mark.parametrize(("a", "b", "expected"), [
    # SCORERS.md §0.1 table
    ("5", "15", 100),
    ("north", "north east", 100),
    ("09:15", "19:15", 80),
    ("", "", 100),
    ("x", "", 0),
    # hand-derived windows
    ("new york", "New York!!", 75),  # case-sensitive, no preprocessing: 'ew ork' in 8 chars
    ("!!", "??", 0),
    ("Hotel Key", "spicy noodles", 29),
])
def test_partial_ratio(a: str, b: str, expected: int) -> None:
    assert partial_ratio(a, b) == expected
    assert partial_ratio(b, a) == expected


def test_ratio_and_processing() -> None:
    assert ratio("abcdefgh", "abcdexyz") == 62
    assert ratio("new york", "New York!!") == 67  # 2*6/18
    assert full_process("  Hello,World_x! ") == "hello world_x"
    # deleted before the \W rule, so the NBSP (U+00A0) does not even separate the words
    assert full_process("naïve\u00a0café") == "navecaf"
    assert sort_tokens("the  Morning, 10:30 in") == "10 30 in morning the"


def test_results_are_ints() -> None:
    assert type(token_sort_ratio("abc", "abd")) is int
    assert type(partial_ratio("abc", "abd")) is int
