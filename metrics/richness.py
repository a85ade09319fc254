"""Lexical richness of generated responses, exactly as mwzeval reports it.

Input: one token list per response (system turn). With ``c(x)`` the count of n-gram ``x``
over all turns (n-grams never cross a turn boundary) and ``N = Σ_w c(w)`` the number of
unigram tokens:

* ``avg_lengths``  = N / number of turns
* ``num_unigrams``, ``num_bigrams``, ``num_trigrams`` = number of distinct n-grams
* ``entropy``      = -Σ_w p(w) log₂ p(w),  p(w) = c(w) / N
* ``cond_entropy`` (conditional bigram entropy, CBE)
  = -Σ_(h,w) p(h, w) log₂ (c(h, w) / c(h)),  p(h, w) = c(h, w) / N
  (mwzeval divides the bigram count by the *unigram* total N, not by the bigram total)
* ``msttr``        = mean segmental type-token ratio of all tokens concatenated: the mean of
  |types| / |tokens| over consecutive full windows of ``window_length`` tokens (the
  remainder is dropped); with at most ``window_length`` tokens, the plain TTR.

Tokenisation (:func:`lexdiv_tokenize`) is ``lexical_diversity.lex_div.tokenize`` 0.1.1,
which mwzeval uses: delete, in this order, the strings
`````, ``''``, ``'``, ``.``, ``,``, ``?``, ``!``, ``)``, ``(``, ``%``, ``/``, ``-``, ``_``,
``-LRB-``, ``-RRB-``, ``SYM``, ``:``, ``;`` (case-sensitive, before lower-casing; not
:data:`string.punctuation`: ``&``, ``#``, ``"`` survive), collapse whitespace runs to one
space, lower-case, split on ``" "`` -- so an empty response is one empty token and a
leading/trailing space adds an empty token.

Sums run in first-seen order with ``math.log(x, 2)``, as mwzeval's, so results are equal
to the last bit.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

LEXDIV_PUNCTUATION: tuple[str, ...] = (
    "``", "''", "'", ".", ",", "?", "!", ")", "(", "%", "/", "-", "_", "-LRB-", "-RRB-", "SYM",
    ":", ";",
)
"""Strings deleted by the tokeniser, in deletion order."""

_WHITESPACE_RUN = re.compile(r"\s+")


def lexdiv_tokenize(text: str) -> list[str]:
    """``lexical_diversity.lex_div.tokenize``: delete punctuation strings, collapse spaces,
    lower-case, split on single spaces.

    >>> lexdiv_tokenize("Is it NAME? Yes.")
    ['is', 'it', 'name', 'yes']
    >>> lexdiv_tokenize("")
    ['']
    """
    for mark in LEXDIV_PUNCTUATION:
        text = text.replace(mark, "")
    return _WHITESPACE_RUN.sub(" ", text).lower().split(" ")


def msttr(tokens: Sequence[str], *, window_length: int = 50) -> float:
    """Mean segmental type-token ratio (``lex_div.msttr``), see the module docstring.

    TTR of an empty list is 0.
    """
    if len(tokens) < window_length + 1:
        return len(set(tokens)) / len(tokens) if tokens else 0.0
    n_windows = len(tokens) // window_length
    total = 0.0
    for start in range(0, n_windows * window_length, window_length):
        window = tokens[start:start + window_length]
        total += len(set(window)) / len(window)
    return total / n_windows


def richness(token_lists: Sequence[Sequence[str]], *, window_length: int = 50) -> dict[str, float]:
    """mwzeval's richness metrics of responses given as token lists (one list per turn).

    Returns ``entropy``, ``cond_entropy``, ``avg_lengths``, ``msttr``, ``num_unigrams``,
    ``num_bigrams``, ``num_trigrams`` (formulas in the module docstring). Raises
    ``ValueError`` on an empty input (no turn: the averages are undefined).
    """
    if not token_lists:
        raise ValueError("richness needs at least one response")
    # Identical responses are counted once, times their multiplicity. A repeated response
    # brings no new n-gram, so the counters get their keys in the same (first-seen) order
    # as turn-by-turn counting and every sum below runs in the same order.
    multiplicity: dict[tuple[str, ...], int] = {}
    all_tokens: list[str] = []
    for tokens in token_lists:
        tokens = tuple(tokens)
        multiplicity[tokens] = multiplicity.get(tokens, 0) + 1
        all_tokens.extend(tokens)
    n_tokens = len(all_tokens)
    unigrams: Counter = Counter()
    bigrams: Counter = Counter()
    trigrams: Counter = Counter()
    for tokens, times in multiplicity.items():
        grams = (
            (unigrams, tokens),
            (bigrams, zip(tokens, tokens[1:], strict=False)),
            (trigrams, zip(tokens, tokens[1:], tokens[2:], strict=False)),
        )
        for counter, ngrams in grams:
            if times == 1:
                counter.update(ngrams)
            else:
                counter.update({g: c * times for g, c in Counter(ngrams).items()})

    total = sum(unigrams.values())
    entropy = 0.0
    cond_entropy = 0.0
    if total:
        entropy = -sum(p * math.log(p, 2) for p in (c / total for c in unigrams.values()))
        cond_entropy = -sum(
            (count / total) * math.log(count / unigrams[head], 2)
            for (head, _word), count in bigrams.items()
        )
    return {
        "entropy": entropy,
        "cond_entropy": cond_entropy,
        "avg_lengths": n_tokens / len(token_lists),
        "msttr": msttr(all_tokens, window_length=window_length),
        "num_unigrams": len(unigrams),
        "num_bigrams": len(bigrams),
        "num_trigrams": len(trigrams),
    }
