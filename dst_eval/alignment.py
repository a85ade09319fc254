"""Align predictions to gold by dialogue and turn, and say exactly what does not fit.

The result pairs every gold turn with its predicted turn (or None when missing),
in gold order. Missing dialogues and turns are reported and, by default, scored as
wrong (an empty prediction); extra dialogues and turns are reported and ignored. A
JSONL gap or an empty turn object (an all-``None`` :class:`PredTurn`) counts as a
missing turn (Issue ``missing_turn``).

Predicted states are checked against the gold:

* ``unknown_domain`` / ``unknown_slot``: a slot key whose domain, or whose slot, the
  gold does not have. The known slots are the union of ``GoldSet.slots``, every
  schema slot (``GoldSet.schema``) and every key of a gold state; when that union is
  empty nothing is checked. Unknown slots stay in the prediction (each profile
  decides how to score them).
* slot keys that match a known key only case-insensitively (SGD service names such as
  ``hotels_4`` vs ``Hotels_4``) are re-spelled as the gold spells them in the aligned
  pairs (state, requested slots, intents); nothing is reported for that.
* ``non_string_value`` / ``hedged_value``: a value that is not a string, a list of
  values, or a ``|``-joined string (``north|centre``): a prediction is ONE value,
  label variants live on the gold side only. A ``|`` value that is a gold value of
  that slot somewhere in the gold data (SGD's ``18|8 Fine Men's Salons``, compared
  case-insensitively) is an ordinary value and not reported -- the reader's report of
  it is withdrawn. The reader already reports these problems for the files it reads;
  this check covers prediction sets built otherwise and is not repeated where the
  reader reported the same slot of the same turn.

``Alignment.issue_details`` holds every instance (one Issue per turn and slot);
``Alignment.issues`` groups repeated ones so a report stays readable: one Issue per
unknown slot or domain (``unknown slot hotel-foo in 37 turns, first at dialogue X
turn 2``) and per other kind, carrying the count and the first place in its message.
``strict=True`` turns every problem into a :class:`PredictionError` (exit 3).

When every gold dialogue has a prediction of its length, these checks run for the whole
prediction set at once (:mod:`dst_eval.alignment_bulk`); only the turns that need a
closer look (and every turn when the bulk check finds anything else) go through the
turn-by-turn checks, which say what is wrong.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_right
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain

from dst_eval.alignment_bulk import turns_to_check
from dst_eval.alignment_keys import GoldPipeValues, SlotChecker, respelled
from dst_eval.errors import PredictionError
from dst_eval.gold import GoldSet, GoldTurn, dialogue_key
from dst_eval.issue_groups import group_issues
from dst_eval.predictions.common import POSITIONAL_TURN_FORMATS, show
from dst_eval.predictions.model import Issue, PredictionSet, PredTurn
from dst_eval.slotkeys import split_slot_key

_GAP = PredTurn()
_VALUE_KINDS = ("hedged_value", "non_string_value")


class TurnPairs(Sequence):
    """Gold turns and their predictions (None: missing), kept as two parallel lists; a
    pair is made when it is read (``zip``), not stored: two pointers a turn instead of a
    2-tuple, ≈ 56 MB less at 10^6 turns."""

    __slots__ = ("gold", "predicted")

    def __init__(self, gold: list[GoldTurn] | None = None,
                 predicted: list[PredTurn | None] | None = None) -> None:
        self.gold: list[GoldTurn] = [] if gold is None else gold
        self.predicted: list[PredTurn | None] = [] if predicted is None else predicted
        if len(self.gold) != len(self.predicted):
            raise ValueError("one prediction (or None) per gold turn")

    @classmethod
    def of(cls, pairs: Iterable[tuple[GoldTurn, PredTurn | None]]) -> TurnPairs:
        if isinstance(pairs, TurnPairs):
            return pairs
        pairs = list(pairs)
        return cls([g for g, _ in pairs], [p for _, p in pairs])

    def __iter__(self) -> Iterator[tuple[GoldTurn, PredTurn | None]]:
        return zip(self.gold, self.predicted, strict=True)

    def __len__(self) -> int:
        return len(self.gold)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return TurnPairs(self.gold[index], self.predicted[index])
        return self.gold[index], self.predicted[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TurnPairs):
            return self.gold == other.gold and self.predicted == other.predicted
        return NotImplemented

    def __repr__(self) -> str:
        return f"TurnPairs({len(self)} turns)"


@dataclass
class Alignment:
    gold: GoldSet
    predictions: PredictionSet
    pairs: TurnPairs
    """Every gold turn in gold order with its prediction, None if missing (a list of
    pairs given here is stored as :class:`TurnPairs`)."""
    issues: list[Issue] = field(default_factory=list)
    """Problems for reports, repeated ones grouped (count and first place in the message)."""
    missing_dialogues: list[str] = field(default_factory=list)
    extra_dialogues: list[str] = field(default_factory=list)
    n_missing_turns: int = 0
    n_extra_turns: int = 0
    issue_details: list[Issue] = field(default_factory=list)
    """Every problem instance, one Issue per dialogue/turn (and slot)."""

    def __post_init__(self) -> None:
        self.pairs = TurnPairs.of(self.pairs)

    @property
    def n_turns(self) -> int:
        return len(self.pairs)

    @property
    def coverage(self) -> float:
        """Share of gold turns that have a prediction."""
        if not self.pairs:
            return 0.0
        return (len(self.pairs) - self.pairs.predicted.count(None)) / len(self.pairs)

    def present_pairs(self) -> list[tuple[GoldTurn, PredTurn]]:
        """Only the turns that have a prediction (the official scorers' silent behaviour)."""
        return [(g, p) for g, p in self.pairs if p is not None]

    def summary(self) -> dict[str, int | float]:
        return {
            "gold_dialogues": len(self.gold),
            "gold_turns": self.n_turns,
            "missing_dialogues": len(self.missing_dialogues),
            "extra_dialogues": len(self.extra_dialogues),
            "missing_turns": self.n_missing_turns,
            "extra_turns": self.n_extra_turns,
            "coverage": self.coverage,
            "issues": len(self.issues),
        }


def unframed_services(gold: GoldTurn, pred: PredTurn) -> list[str]:
    """The services of the gold turn's frames that the predicted SGD-style frames lack
    (names compared ignoring case); ``[]`` when the prediction has no frames at all (a flat
    state) or the gold turn none."""
    frames = pred.frames
    if frames is None or not gold.frames or (  # the common case: the gold's one frame
            len(frames) == len(gold.frames) == 1 and frames[0].service == gold.frames[0].service):
        return []
    framed = {frame.service.lower() for frame in frames}
    return [f.service for f in gold.frames if f.service.lower() not in framed]


def _state_problem(gold: GoldTurn, pred: PredTurn) -> tuple[str, str] | None:
    """``(kind, message)`` when a predicted turn predicts no state for (part of) the gold
    turn: no ``state`` at all, or no SGD frame for a service of the gold turn. Scored as
    missing (``profiles.strict.has_state``)."""
    if pred.state is None:
        return ("missing_state", "the turn has no predicted state; scored as missing for DST"
                + (" (its response is scored)" if pred.response is not None else ""))
    lacking = unframed_services(gold, pred)
    if lacking:
        return ("missing_frame", f"no predicted frame for service {', '.join(lacking)} "
                "of the gold turn; scored as missing (the frame under sgd-official, the "
                "turn under a turn-level profile)")
    return None


# --------------------------------------------------------------------------- value checks


def _value_problem(value: object) -> tuple[str, str] | None:
    if type(value) is str:
        if "|" in value:
            return "hedged_value", (f"value {show(value)} holds '|'-joined alternatives; it is "
                                    "scored as ONE value")
        return None
    if isinstance(value, list | tuple):
        return "hedged_value", f"{len(value)} values {show(value)}; a prediction is one value"
    return "non_string_value", f"value {show(value)} is not a string"


def _reported_values(issues: Iterable[Issue]) -> set[tuple[str | None, int | None, str]]:
    """``(dialogue, turn, "slot <key>")`` of the value problems the reader already reported."""
    return {(i.dialogue, i.turn, i.message.partition(":")[0])
            for i in issues if i.kind in _VALUE_KINDS}


# --------------------------------------------------------------------------- align


_MISSING_FATE = {"wrong": "are scored as wrong", "empty": "are scored as empty predictions",
                 "skip": "are left out of the scores (--missing skip)"}
POSITIONAL_NOTE = (" (this format numbers turns by their position: a turn left out "
                   "anywhere shows as missing at the end, and the turns after it are shifted)")


def align(gold: GoldSet, predictions: PredictionSet, *, strict: bool = False,
          missing: str = "wrong", scored: Collection[str] | None = None) -> Alignment:
    """Pair gold turns with predicted turns; report missing/extra dialogues and turns and
    unknown slots, domains and malformed values (grouped in ``issues``, every instance in
    ``issue_details``). ``missing``: the policy the scores apply to missing predictions
    (what the report says happens to them). ``scored``: the ids of the only gold dialogues
    a protocol scores (``--zero-shot-domain``); the others are neither aligned nor checked
    (their predictions are not extra), and the alignment's gold holds the scored ones."""
    if scored is not None:
        keys = {dialogue_key(d) for d in scored}
        outside = {dialogue_key(d.dialogue_id) for d in gold} - keys
        kept = [i for i in predictions.issues
                if i.dialogue is None or dialogue_key(i.dialogue) not in outside]
        predictions = dataclasses.replace(
            predictions, issues=kept, dialogues={
                d: turns for d, turns in predictions.dialogues.items()
                if dialogue_key(d) not in outside})
        checker = SlotChecker(gold)  # the slots of every gold dialogue are known
        pipe_values = GoldPipeValues(gold)  # the '|' values of every gold dialogue
        gold = dataclasses.replace(gold, dialogues=tuple(
            d for d in gold if dialogue_key(d.dialogue_id) in keys), _by_key={})
        return _align(gold, predictions, strict, missing, checker, pipe_values)
    return _align(gold, predictions, strict, missing)


def _align(gold: GoldSet, predictions: PredictionSet, strict: bool, policy: str,
           checker: SlotChecker | None = None,
           pipe_values: GoldPipeValues | None = None) -> Alignment:
    source = predictions.source
    severity = "error" if strict else "warning"
    details: list[Issue] = list(predictions.issues)
    labels: dict[int, tuple[str, str]] = {}
    reported = _reported_values(predictions.issues)
    reported_gaps = {i.dialogue for i in predictions.issues if i.kind == "missing_turn"}
    capped = {i.kind for i in predictions.issues if i.unlisted}  # the reader counted them all
    positional = predictions.format in POSITIONAL_TURN_FORMATS
    pipe_values = GoldPipeValues(gold) if pipe_values is None else pipe_values
    genuine: set[tuple[str | None, int | None, str]] = set()
    checker = SlotChecker(gold) if checker is None else checker
    gold_turns: list[GoldTurn] = []
    predicted: list[PredTurn | None] = []  # one per gold turn, None: missing
    add_prediction = predicted.append
    missing: list[str] = []
    n_missing_turns = n_extra_turns = 0

    known_superset, domains_superset = checker.known.issuperset, checker.domains.issuperset
    plain_str = frozenset([str])
    passed: list = [None]  # the last state whose keys and values the fast path accepted

    def check_turn(pred: PredTurn, pred_id: str, gold_id: str, index: int) -> PredTurn:
        state = pred.state
        # fast path: known keys, plain values, nothing to re-spell; a state that is the
        # previous turn's object (readers share an unchanged one) was accepted already
        if state and checker.active and (state is passed[0] or (
                known_superset(state) and plain_str.issuperset(map(type, state.values()))
                and "|" not in "".join(state.values()))):
            passed[0] = state
            requested, intents = pred.requested_slots, pred.active_intents
            if ((not requested or known_superset(requested))
                    and (not intents or domains_superset(intents))):
                return pred
        respell = False
        for key, value in (pred.state or {}).items():
            if type(value) is not str or "|" in value:
                place = (pred_id, index, f"slot {key}")
                if type(value) is str and value.strip().lower() in pipe_values.get(
                        checker.decide(key)[0] if checker.active else key):
                    genuine.add(place)  # a gold value holding '|': not a hedge
                    continue
                problem = _value_problem(value)
                if problem and place not in reported and problem[0] not in capped:
                    details.append(Issue(problem[0], f"slot {key}: {problem[1]}", file=source,
                                         dialogue=gold_id, turn=index, severity=severity))
            if checker.active and key not in checker.known:
                spelled, kind = checker.decide(key)
                if kind is not None:
                    if kind == "unknown_slot":
                        label, text = key, f"unknown slot {key} (not a slot of the gold data)"
                    else:
                        label = split_slot_key(key)[0]
                        text = (f"unknown domain {label} (slot {key}; the gold data has no "
                                "such domain)")
                    issue = Issue(kind, text, file=source, dialogue=gold_id, turn=index,
                                  severity=severity)
                    details.append(issue)
                    labels[id(issue)] = (label, key)
                elif spelled != key:
                    respell = True
        if checker.active:  # requested slots and intents the gold data has no place for
            for key in pred.requested_slots or ():
                kind = None if key in checker.known else checker.decide(key)[1]
                if kind is not None:
                    issue = Issue(kind, f"requested slot {key} is not a slot of the gold "
                                  "data", file=source, dialogue=gold_id, turn=index,
                                  severity=severity)
                    details.append(issue)
                    labels[id(issue)] = (key if kind == "unknown_slot" else
                                         split_slot_key(key)[0], key)
            for domain in pred.active_intents or ():
                if domain not in checker.domains and checker.domain(domain) not in \
                        checker.domains:
                    issue = Issue("unknown_domain", f"active intent of {domain}: the gold "
                                  "data has no such domain", file=source, dialogue=gold_id,
                                  turn=index, severity=severity)
                    details.append(issue)
                    labels[id(issue)] = (domain, "")  # no slot: its intent
        if checker.active and (respell or pred.requested_slots or pred.active_intents):
            turn, clashes = respelled(pred, checker, respell)
            for spelled, kept, dropped in clashes:  # one slot written twice, two values
                details.append(Issue("duplicate_slot", f"slot {spelled} written as {kept} and "
                                     f"{dropped} with different values; {kept}'s is read",
                                     file=source, dialogue=gold_id, turn=index,
                                     severity=severity))
            return turn
        return pred

    with_states = predictions.has_states  # else DST is not scored: no state is missing
    keys = [dialogue_key(d.dialogue_id) for d in gold]
    pred_ids = list(map(predictions._by_key.get, keys))
    flagged = None
    if checker.active and None not in pred_ids:  # the common case, checked in bulk
        pred_lists = list(map(predictions.dialogues.__getitem__, pred_ids))
        if list(map(len, pred_lists)) == [len(d.turns) for d in gold]:
            all_gold = list(chain.from_iterable(d.turns for d in gold))
            all_pred: list[PredTurn | None] = list(chain.from_iterable(pred_lists))
            flagged = turns_to_check(all_gold, all_pred, checker.known, checker.domains,
                                     with_states)
    if flagged is not None:
        gold_turns, predicted = all_gold, all_pred
        starts = [0, *accumulate(len(d.turns) for d in gold)]
        for index in flagged:  # a value holding '|': checked turn by turn
            d = bisect_right(starts, index) - 1
            predicted[index] = check_turn(all_pred[index], pred_ids[d],
                                          gold.dialogues[d].dialogue_id, index - starts[d])
    detailed = zip(gold, pred_ids, strict=True) if flagged is None else ()  # turn by turn
    for dialogue, pred_id in detailed:
        if pred_id is None:
            missing.append(dialogue.dialogue_id)
            n_missing_turns += len(dialogue.turns)
            gold_turns.extend(dialogue.turns)
            predicted.extend([None] * len(dialogue.turns))
            continue
        pred_turns = predictions.dialogues[pred_id]
        n_gold, n_pred = len(dialogue.turns), len(pred_turns)
        if n_gold != n_pred:
            details.append(Issue(
                "turn_count_mismatch",
                f"{n_pred} predicted turns for {n_gold} gold turns"
                + (f"; turns {n_pred}..{n_gold - 1} are missing" if n_pred < n_gold
                   else f"; turns {n_gold}..{n_pred - 1} are extra and ignored")
                + (POSITIONAL_NOTE if n_pred < n_gold and positional else ""),
                file=source, dialogue=dialogue.dialogue_id,
                turn=min(n_gold, n_pred), severity=severity,
            ))
            n_missing_turns += max(0, n_gold - n_pred)
            n_extra_turns += max(0, n_pred - n_gold)
        for i in range(n_gold):
            pred = pred_turns[i] if i < n_pred else None
            if pred is not None and pred.state is None and (pred is _GAP or pred == _GAP):
                pred = None
                n_missing_turns += 1
                if pred_id not in reported_gaps:
                    details.append(Issue("missing_turn", "empty turn object; the turn is "
                                         "scored as missing", file=source,
                                         dialogue=dialogue.dialogue_id, turn=i,
                                         severity=severity))
            if pred is not None:
                if with_states:
                    problem = _state_problem(dialogue.turns[i], pred)
                    if problem is not None:
                        details.append(Issue(problem[0], problem[1], file=source,
                                             dialogue=dialogue.dialogue_id, turn=i,
                                             severity=severity))
                pred = check_turn(pred, pred_id, dialogue.dialogue_id, i)
            add_prediction(pred)
        gold_turns.extend(dialogue.turns)

    gold_keys = set(keys)
    extra = sorted(d for d in predictions.dialogues if dialogue_key(d) not in gold_keys)
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        details.append(Issue(
            "missing_dialogues",
            f"{len(missing)} of {len(gold)} gold dialogues have no prediction and "
            f"{_MISSING_FATE.get(policy, _MISSING_FATE['wrong'])}: {shown}",
            file=source, severity=severity,
        ))
    if extra:
        shown = ", ".join(extra[:5]) + (", ..." if len(extra) > 5 else "")
        details.append(Issue(
            "extra_dialogues",
            f"{len(extra)} predicted dialogues are not in the gold data and are ignored: {shown}",
            file=source, dialogue=extra[0], severity=severity,
        ))
    if genuine:  # the reader could not know these '|' values are gold values
        details = [i for i in details if not (
            i.kind == "hedged_value" and (i.dialogue, i.turn, i.message.partition(":")[0])
            in genuine and "'|'" in i.message)]
    grouped = group_issues(details, labels)
    result = Alignment(gold, predictions, TurnPairs(gold_turns, predicted), grouped, missing, extra,
                       n_missing_turns, n_extra_turns, details)
    if strict and grouped:
        first = grouped[0]
        more = ""
        if len(details) > 1:
            more = (f" (and {len(grouped) - 1} more kinds of problem, {len(details)} problems "
                    "in all)" if len(grouped) > 1 else f" ({len(details)} problems in all)")
        raise PredictionError(first.message + more, file=first.file or source,
                              dialogue=first.dialogue, turn=first.turn)
    return result
