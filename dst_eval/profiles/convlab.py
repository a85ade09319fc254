"""The ``convlab`` profile: ConvLab-3's unified DST evaluator (SCORERS.md §3), number for number.

* only the slots of the gold's covered domains are scored (MultiWOZ and CrossWOZ: every
  slot of the corpus slot list; SGD: the slots of the dialogue's services); predictions
  for any other slot are ignored (ConvLab/ConvLab-3#132);
* values: all whitespace deleted and lower-cased (``despace+lower``) on both sides;
  a predicted value that is ``""`` or whitespace only is no prediction (the anchor's
  ``len(predict_values) == 0`` after deleting whitespace; :class:`Unset` ``blank``), and
  every other value is one: ``none`` and ``not mentioned`` are false positives, as in
  ConvLab-3;
* gold variants and predictions are split on ``|``; a slot is a true positive when any
  predicted piece is a gold piece (so a hedged ``north|centre|south`` scores as correct:
  a defect this profile reproduces and the strict profile does not);
* gold only -> FN; prediction only -> FP; both but no overlap -> FP + FN;
* ``accuracy`` = share of error-free turns (empty/empty correct); slot P/R/F1 micro,
  0 on a zero denominator, as fractions;
* a missing dialogue/turn (``missing="wrong"``, default) is a JGA miss and every gold
  slot of it an FN; ``missing="empty"`` scores it as an empty prediction, ``"skip"``
  leaves it out as ConvLab-3 does.

The gold always comes from the trusted gold data, never from the submission.
"""

from __future__ import annotations

from dst_eval import corpora
from dst_eval.alignment import Alignment
from dst_eval.gold import GoldSet, GoldTurn
from dst_eval.metrics import turn_table
from dst_eval.metrics.jga import JointGoalAccuracy
from dst_eval.normalize import Normalizer, Unset
from dst_eval.options import EvalOptions
from dst_eval.profiles.strict import predicted_mask, scored_pairs
from dst_eval.result import Result

NORMALISATION = "despace+lower"
UNSET = Unset("blank")
"""No prediction: a value that deleting all whitespace leaves empty (the anchor's rule)."""


def _hedged_match(pred: str, variants: tuple[str, ...]) -> bool:
    return any(piece in variants for piece in pred.split("|"))


def _universe(gold_set: GoldSet, turn: GoldTurn, services: tuple[str, ...]) -> frozenset[str]:
    if corpora.get(gold_set.corpus).slot_universe == "dialogue-services":
        return frozenset(k for k in gold_set.slots if k.partition("-")[0] in services)
    return frozenset(gold_set.slots) | frozenset(turn.state)


def score(alignment: Alignment, options: EvalOptions, result: Result | None = None) -> Result:
    gold_set = alignment.gold
    norm = Normalizer(NORMALISATION)
    services = {d.dialogue_id: d.services for d in gold_set}
    gold_states, pred_states, ids = [], [], []
    pairs = scored_pairs(alignment, options)
    for turn, pred in pairs:
        universe = _universe(gold_set, turn, services[turn.dialogue_id])
        gold = {}
        for key, variants in turn.state.items():
            pieces = tuple(p for v in variants for p in norm(key, v).split("|") if p)
            if pieces:
                gold[key] = pieces
        predicted = {}
        for key, value in UNSET.items(pred.state, pred.duplicates) if pred else ():
            if key in universe:
                predicted[key] = norm(key, value)
        gold_states.append(gold)
        pred_states.append(predicted)
        ids.append(turn.dialogue_id)
    table = turn_table(gold_states, pred_states, dialogue_ids=ids, fga_lambdas=(),
                       value_match=_hedged_match, predicted=predicted_mask(pairs, options))
    sums = table.sums(("correct", "wrong", "missing", "extra"))
    tp = sums["correct"]
    fp = sums["wrong"] + sums["extra"]
    fn = sums["wrong"] + sums["missing"]
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    accuracy = JointGoalAccuracy().score(table)
    official = {"accuracy": accuracy, "slot_precision": precision, "slot_recall": recall,
                "slot_f1": f1}
    per_turn = {"dialogue_id": ids, "turn_index": [t.turn_index for t, _ in
                                                   scored_pairs(alignment, options)]}
    per_turn.update(table.columns)
    return (result or Result()).add(
        scores={"joint_goal_accuracy": accuracy, "slot_precision": precision,
                "slot_recall": recall, "slot_f1": f1},
        signature_fields={"norm": f"{norm.signature}", "match": "any-piece-of-pipe-split",
                          "scope": "gold-domains", "agg": "turn-micro",
                          "missing": options.missing},
        official=official,
        per_turn=per_turn,
        counts={"turns": len(ids)},
        notes=["convlab profile: predictions hedged with '|' score as correct when any piece "
               "matches (ConvLab-3 behaviour); the strict profile scores them as wrong"],
    )
