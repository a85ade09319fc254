"""The common case of :mod:`dst_eval.alignment`, decided for a whole prediction set at once.

Usually no predicted turn has anything to report or re-spell: every turn has a state,
every key is a known slot spelled as the gold spells it, every value is a plain string,
every requested slot and intent domain is known, and an SGD-style turn has a frame for
each gold frame's service. :func:`turns_to_check` decides that with a few passes over all
turns, each run in C (set and ``str.join`` calls over chained iterators), instead of a
round of Python checks per turn; only the turns it names (a value holding ``|``, which
may be a hedge or a genuine gold value like ``18|8 Fine Men's Salons``) and, when it
answers None, every turn go through :func:`dst_eval.alignment.align`'s turn-by-turn
checks, which say what is wrong. The passes are bound by memory reads more than by the
interpreter, so they go over blocks of turns that stay in the CPU cache (:data:`_BLOCK`).
Measured (interleaved runs, each align after a score as in the CLI), with
:class:`dst_eval.alignment_keys.GoldPipeValues`: SGD dev (24,363 turns) align 59 -> 50 ms
(medians) before the blocks, which took the check from 32 to 22 ms; MultiWOZ 2.1 test
(7,372 turns) 22 -> 13 ms.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence, Set
from itertools import accumulate, chain
from operator import methodcaller

from dst_eval.gold import GoldTurn
from dst_eval.predictions.model import PredTurn

_PLAIN_STR = frozenset([str])
_values = methodcaller("values")


_BLOCK = 1024
"""Turns checked together: each check's pass over a block finds the block's objects still
in the CPU cache from the previous pass, where passes over all turns fetch them from
memory each time (SGD dev: the check 32 -> 22 ms; 512-2048 are as fast, 4096 a little
slower)."""


def turns_to_check(gold_turns: Sequence[GoldTurn], pred_turns: Sequence[PredTurn],
                   known: Set[str], domains: Set[str], with_states: bool) -> list[int] | None:
    """The indices of the turns whose state holds a value with ``|`` (in order; usually
    none), when every other check passes for every turn; None when one fails somewhere.

    ``pred_turns[i]`` is the prediction of ``gold_turns[i]``; ``known``: the known slot
    keys as the gold spells them; ``domains``: the known domains likewise;
    ``with_states``: whether a missing frame is a problem (the set predicts states).
    """
    flagged: list[int] = []
    for start in range(0, len(pred_turns), _BLOCK):
        found = _block_to_check(gold_turns[start:start + _BLOCK],
                                pred_turns[start:start + _BLOCK], known, domains, with_states)
        if found is None:
            return None
        flagged.extend(start + index for index in found)
    return flagged


def _block_to_check(gold_turns: Sequence[GoldTurn], pred_turns: Sequence[PredTurn],
                    known: Set[str], domains: Set[str], with_states: bool) -> list[int] | None:
    """:func:`turns_to_check` of one block of turns (indices within the block)."""
    states = [pred.state for pred in pred_turns]
    if None in states or not known.issuperset(chain.from_iterable(states)):
        return None
    values = list(chain.from_iterable(map(_values, states)))
    if not (_PLAIN_STR.issuperset(map(type, values))
            and known.issuperset(chain.from_iterable(
                filter(None, [pred.requested_slots for pred in pred_turns])))
            and domains.issuperset(chain.from_iterable(
                filter(None, [pred.active_intents for pred in pred_turns])))):
        return None
    if with_states and not _framed(gold_turns, pred_turns):
        return None
    joined = "".join(values)
    position = joined.find("|")
    if position < 0:
        return []
    # which value holds each '|', then which turn holds that value
    value_ends = list(accumulate(map(len, values)))
    turn_ends = list(accumulate(map(len, states)))
    flagged: list[int] = []
    while position >= 0:
        value = bisect_right(value_ends, position)
        turn = bisect_right(turn_ends, value)
        if not flagged or flagged[-1] != turn:
            flagged.append(turn)
        position = joined.find("|", value_ends[value])
    return flagged


def _framed(gold_turns: Sequence[GoldTurn], pred_turns: Sequence[PredTurn]) -> bool:
    """True when no turn lacks a frame (:func:`dst_eval.alignment.unframed_services` is
    empty for each): all predictions flat, or each turn has frames of the gold turn's
    services in the gold's order (False sends other cases to the turn-by-turn check)."""
    frames = [pred.frames for pred in pred_turns]
    if frames.count(None) == len(frames):
        return True
    gold_frames = [turn.frames for turn in gold_turns]
    return (None not in frames and list(map(len, frames)) == list(map(len, gold_frames))
            and [f.service for turn in frames for f in turn]
            == [f.service for turn in gold_frames for f in turn])
