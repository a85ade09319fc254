"""The ``mwzeval`` compat profile: mwzeval's DST (Tomiinek/MultiWOZ_Evaluation 7f19ee0), exactly.

What mwzeval computes (SCORERS.md §1.7) and how this module gets the same inputs:

Gold
    ``GoldTurn.state`` (canonical 2.2 keys ``"train-leaveat"``) -> mwzeval's flat
    ``{(domain, slot): value}``: domain = the part before the first ``-``, slot = the rest
    through mwzeval's key normalisation (``leaveat`` -> ``leave``, ``arriveby`` -> ``arrive``;
    ``bookday`` etc. unchanged). A slot is **dropped when ``dontcare`` is among its
    variants**, otherwise its first variant is taken; values are normalised by
    :mod:`dst_eval.mwzeval_rules`.
Predictions
    mwzeval scores the state *as the file wrote it*, so this profile reads
    ``PredTurn.raw_state`` (nested ``{domain: {slot: value}}``; flat ``"domain-slot"``
    entries are split on the first ``-``), not the canonical ``PredTurn.state``: the
    reader drops ``""``/``none``/``not mentioned`` and maps aliases such as
    ``hotel-people`` -> ``hotel-bookpeople``, while mwzeval keeps those values (they are
    false positives) and scores ``people`` as a slot that never matches ``bookpeople``.
    Keys and values go through the same mwzeval normalisation; **``dontcare`` is kept**
    (mwzeval's asymmetric dontcare). Domains are not lower-cased (mwzeval does not).
    Only when a turn has no mapping ``raw_state`` is the canonical ``state`` used.
    Non-string raw values (mwzeval would crash): numbers and booleans become strings
    (``true``/``false``), ``null`` is unset, a list gives its first string; each is noted.
Matching, per turn ``t`` with flat gold ``B`` and prediction ``P``
    ``match(k) = partial_ratio(P[k], B[k]) > 95`` (fuzzywuzzy 0.18 semantics,
    :func:`dst_eval.metrics.fuzzy.partial_ratio`; substring-tolerant: ``'5'`` matches ``'15'``);
    ``TP_t = |{k in P ∩ B : match(k)}|``, ``FP_t = |P| - TP_t``, ``FN_t = |B| - TP_t``;
    ``JGA_t = 1`` iff ``keys(P) = keys(B)`` and every key matches (empty = empty is a hit).
Aggregation over the scored turns ``T``
    ``JGA = Σ JGA_t / T``, ``P = ΣTP / (ΣTP + ΣFP)``, ``R = ΣTP / (ΣTP + ΣFN)``,
    ``F1 = 2PR / (P + R)`` (0 when a denominator is 0) -- all fractions in ``scores``.
    ``official`` is mwzeval's own output, its epsilons and scales included:
    ``{"dst": {"joint_accuracy": 100 Σ JGA_t / (T + 1e-10), "slot_f1": 100 · 2PR / (P + R + 1e-10),
    "slot_precision": ΣTP / (ΣTP + ΣFP + 1e-10), "slot_recall": ΣTP / (ΣTP + ΣFN + 1e-10)}}``.
Missing predictions (``options.missing``)
    ``wrong`` (default): every gold turn is scored; a missing dialogue/turn, and a
    predicted turn without a state, is wrong (``JGA_t = 0``, ``TP_t = FP_t = 0``,
    ``FN_t = |B|``, also when ``B`` is empty; both counted in ``counts``).
    ``empty``: a missing dialogue/turn is an empty prediction too. ``skip``: mwzeval's
    behaviour -- only turns that have a prediction are scored; and, as mwzeval, if any of
    them has no state at all, every score is 0 (mwzeval prints "Missing state predictions").
    A turn whose every field is None (a gap the JSONL reader filled in) is a missing turn,
    not a turn without a state.

The profile never mutates the alignment, the gold or the predictions (mwzeval's defect X1
rewrites the caller's dict in place). ``cd3f0ee=True`` (keyword of :func:`score`) switches
on the rules added in mwzeval cd3f0ee; the default reproduces 7f19ee0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from dst_eval.alignment import Alignment
from dst_eval.corpora.multiwoz.mwzeval_rules import (
    canonical_slot_name,
    normalize_slot_name,
    normalize_value,
    rules_version,
)
from dst_eval.errors import UsageError
from dst_eval.gold import GoldTurn
from dst_eval.metrics.fuzzy import partial_ratio
from dst_eval.options import EvalOptions
from dst_eval.predictions.model import PredTurn
from dst_eval.result import Result
from dst_eval.slotkeys import split_slot_key

DONTCARE = "dontcare"
MATCH_THRESHOLD = 95
"""A value matches when ``partial_ratio(hyp, ref) > MATCH_THRESHOLD``."""
EPSILON = 1e-10
"""mwzeval's denominators' epsilon (official output only)."""
BREAKDOWNS = ("domain", "slot")

FlatState = dict[tuple[str, str], str]
_GAP = PredTurn()
"""An all-None turn: a gap the reader filled in (JSONL), i.e. a missing turn."""


# --- states in mwzeval's form ------------------------------------------------------------------

def gold_flat_state(turn: GoldTurn, *, cd3f0ee: bool = False) -> FlatState:
    """mwzeval's gold for a turn: dontcare slots dropped, first variant, normalised."""
    flat: FlatState = {}
    for key, variants in turn.state.items():
        if not variants or DONTCARE in variants:
            continue
        domain, slot = split_slot_key(key)
        slot = normalize_slot_name(slot)
        flat[(domain, slot)] = normalize_value(slot, variants[0], cd3f0ee=cd3f0ee)
    return flat


def _raw_items(raw: Mapping) -> Iterator[tuple[str, str, Any]]:
    """``(domain, slot, value)`` of a raw nested or flat (or mixed) state, in file order."""
    for outer, inner in raw.items():
        if isinstance(inner, Mapping):
            for slot, value in inner.items():
                yield str(outer), str(slot), value
        else:
            domain, _, slot = str(outer).partition("-")
            yield domain, slot, inner


def _as_string(value: Any) -> str | None:
    """A raw value as mwzeval would need it: strings as they are; see the module docstring."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list | tuple):
        return next((v for v in value if isinstance(v, str)), None)
    return None


def predicted_flat_state(
    turn: PredTurn, *, cd3f0ee: bool = False, converted: Counter | None = None
) -> FlatState | None:
    """mwzeval's view of a predicted turn (``raw_state`` first), or None when it has no state.

    ``converted`` counts non-string raw values that had to be converted or were dropped.
    """
    flat: FlatState = {}
    if isinstance(turn.raw_state, Mapping):
        for domain, slot, value in _raw_items(turn.raw_state):
            text = _as_string(value)
            if converted is not None and not isinstance(value, str):
                converted[type(value).__name__] += 1
            if text is None:
                continue
            key = normalize_slot_name(slot)
            flat[(domain, key)] = normalize_value(key, text, cd3f0ee=cd3f0ee)
        return flat
    if turn.state is None:
        return None
    for slot_key, value in turn.state.items():
        domain, slot = split_slot_key(slot_key)
        key = normalize_slot_name(slot)
        flat[(domain, key)] = normalize_value(key, value, cd3f0ee=cd3f0ee)
    return flat


# --- comparison ---------------------------------------------------------------------------------

def compare_turn(hyp: FlatState, ref: FlatState, matches: dict[tuple[str, str], bool]
                 ) -> tuple[bool, int, int, int, list[tuple[str, str]]]:
    """``(JGA_t, TP, FP, FN, matched keys)`` of one turn; ``matches`` caches value pairs."""
    matched = []
    for key, hyp_value in hyp.items():
        ref_value = ref.get(key)
        if ref_value is None:
            continue
        pair = (hyp_value, ref_value)
        hit = matches.get(pair)
        if hit is None:
            hit = matches[pair] = partial_ratio(hyp_value, ref_value) > MATCH_THRESHOLD
        if hit:
            matched.append(key)
    tp = len(matched)
    joint = tp == len(ref) == len(hyp)  # equal sizes + every gold key matched = same key sets
    return joint, tp, len(hyp) - tp, len(ref) - tp, matched


def official_dst(joint: int, tp: int, fp: int, fn: int, turns: int) -> dict[str, float]:
    """mwzeval's ``get_dst`` return value from the totals (its formulas and epsilons)."""
    precision = tp / (tp + fp + EPSILON)
    recall = tp / (tp + fn + EPSILON)
    return {
        "joint_accuracy": joint / (turns + EPSILON) * 100,
        "slot_f1": 2 * precision * recall / (precision + recall + EPSILON) * 100,
        "slot_precision": precision,
        "slot_recall": recall,
    }


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def fraction_scores(joint: int, tp: int, fp: int, fn: int, turns: int) -> dict[str, float]:
    """The same four numbers as fractions in [0, 1], without mwzeval's epsilons."""
    precision = _ratio(tp, tp + fp)
    recall = _ratio(tp, tp + fn)
    return {
        "joint_goal_accuracy": _ratio(joint, turns),
        "slot_precision": precision,
        "slot_recall": recall,
        "slot_f1": _ratio(2 * precision * recall, precision + recall),
    }


def _slot_name(key: tuple[str, str]) -> str:
    return f"{key[0]}-{canonical_slot_name(key[1])}"


def _group_scores(counts: Counter) -> dict[str, dict[str, float]]:
    groups = {}
    for name in sorted({g for g, _ in counts}):
        tp, fp, fn = counts[(name, "tp")], counts[(name, "fp")], counts[(name, "fn")]
        precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
        groups[name] = {
            "slot_precision": precision, "slot_recall": recall,
            "slot_f1": _ratio(2 * precision * recall, precision + recall),
            "tp": float(tp), "fp": float(fp), "fn": float(fn),
        }
    return groups


# --- the profile --------------------------------------------------------------------------------

def score(alignment: Alignment, options: EvalOptions, result: Result | None = None, *,
          cd3f0ee: bool | None = None) -> Result:
    """mwzeval's DST on ``alignment`` (see the module docstring for every rule)."""
    if cd3f0ee is None:
        cd3f0ee = options.mwzeval_rules == "cd3f0ee"
    if options.missing not in ("wrong", "empty", "skip"):
        raise UsageError(f"unknown missing-prediction mode {options.missing!r} "
                         "(wrong, empty, skip)")
    unknown_breakdowns = [b for b in options.by if b not in BREAKDOWNS]
    if unknown_breakdowns:
        raise UsageError(f"the mwzeval profile has no breakdown by {unknown_breakdowns[0]!r} "
                         f"(available: {', '.join(BREAKDOWNS)})")
    skip = options.missing == "skip"
    notes: list[str] = []
    converted: Counter = Counter()
    matches: dict[tuple[str, str], bool] = {}
    group_counts: Counter = Counter()

    dialogue_ids: list[str] = []
    turn_indices: list[int] = []
    stats: list[tuple[bool, int, int, int]] = []
    n_missing = n_without_state = 0
    for gold_turn, pred_turn in alignment.pairs:
        hyp: FlatState | None = None
        absent = pred_turn is None or pred_turn == _GAP
        if absent:
            if skip:
                continue
            n_missing += 1
        else:
            hyp = predicted_flat_state(pred_turn, cd3f0ee=cd3f0ee, converted=converted)
            n_without_state += hyp is None
        stateless = not absent and hyp is None
        hyp = hyp or {}
        ref = gold_flat_state(gold_turn, cd3f0ee=cd3f0ee)
        joint, tp, fp, fn, matched = compare_turn(hyp, ref, matches)
        if (absent or stateless) and options.missing == "wrong":
            joint = False  # wrong whatever the gold: no credit for an empty gold state
        dialogue_ids.append(gold_turn.dialogue_id)
        turn_indices.append(gold_turn.turn_index)
        stats.append((joint, tp, fp, fn))
        if options.by:
            _count_groups(group_counts, options.by, hyp, ref, set(matched))

    columns = np.array(stats, dtype=np.int64).reshape(-1, 4)
    n_turns = len(stats)
    joint, tp, fp, fn = (int(x) for x in columns.sum(axis=0))
    scores = fraction_scores(joint, tp, fp, fn, n_turns)
    official = {"dst": official_dst(joint, tp, fp, fn, n_turns)}
    if skip and n_without_state:
        notes.append(f"{n_without_state} predicted turns have no state: mwzeval then reports "
                     "0 for every DST score (it prints 'Missing state predictions'); so does "
                     "this profile with missing=skip")
        scores = dict.fromkeys(scores, 0.0)
        official = {"dst": dict.fromkeys(official["dst"], 0)}
    elif n_without_state:
        how = "wrong" if options.missing == "wrong" else "empty predictions"
        notes.append(f"{n_without_state} predicted turns have no state and score as {how}")
    if n_missing:
        how = "wrong" if options.missing == "wrong" else "empty predictions"
        notes.append(f"{n_missing} gold turns have no prediction and score as {how} "
                     "(mwzeval would skip them: missing=skip)")
    if converted:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(converted.items()))
        notes.append(f"non-string predicted values converted or dropped ({kinds}); "
                     "mwzeval itself would crash on them")
    if options.dontcare != "value":
        notes.append("the mwzeval profile always drops gold dontcare slots and keeps predicted "
                     f"ones; --dontcare {options.dontcare} does not apply")
    if options.normalisation:
        notes.append("the mwzeval profile always uses mwzeval's normalisation; "
                     f"--normalisation {options.normalisation} does not apply")
    if options.metrics:
        scores = {k: v for k, v in scores.items() if k in options.metrics}

    return (result or Result()).add(
        scores=scores,
        signature_fields={"norm": rules_version(cd3f0ee=cd3f0ee),
                          "match": f"partial-ratio>{MATCH_THRESHOLD}",
                          "dontcare": "gold-drop", "agg": "turn", "missing": options.missing},
        groups=_group_scores(group_counts),
        official=official,
        per_turn={"dialogue_id": dialogue_ids, "turn_index": turn_indices,
                  "joint_goal_accuracy": columns[:, 0].astype(bool),
                  "tp": columns[:, 1], "fp": columns[:, 2], "fn": columns[:, 3]},
        notes=notes,
        counts={"turns": n_turns, "dialogues": len(set(dialogue_ids)),
                "missing_turns_scored_empty": n_missing,
                "turns_without_state": n_without_state,
                "joint_matches": joint, "tp": tp, "fp": fp, "fn": fn},
    )


def _count_groups(counts: Counter, by: tuple[str, ...], hyp: FlatState, ref: FlatState,
                  matched: set[tuple[str, str]]) -> None:
    namers = {"domain": lambda key: f"domain:{key[0]}",
              "slot": lambda key: f"slot:{_slot_name(key)}"}
    for kind in by:
        name_of = namers[kind]
        for key in hyp:
            counts[(name_of(key), "tp" if key in matched else "fp")] += 1
        for key in ref:
            if key not in matched:
                counts[(name_of(key), "fn")] += 1
