"""The ``convlab`` profile: ConvLab-3's unified DST evaluator (SCORERS.md §3), number for number.

* only the slots of ConvLab-3's unified gold state are scored (MultiWOZ and CrossWOZ:
  every slot of the corpus slot list plus the config's ``unified_slots`` -- MultiWOZ
  ``hospital-department``, so a value predicted there against an empty gold is a FP;
  SGD: the slots of the dialogue's services); predictions for any other slot are
  ignored (ConvLab/ConvLab-3#132);
* SGD gold is ConvLab-3's unified state since commit b3f1b23
  (``data/unified_datasets/sgd/preprocess.py``): every service of the dialogue is in
  every user turn's state, a service with a frame in the turn takes that frame's slot
  values (its other slots empty), and a service without a frame keeps its previous
  state (:func:`unified_states`). (Before b3f1b23 such a service was empty again; that
  older unified data is not reproduced.)
* values: all whitespace deleted and lower-cased (``despace+lower``) on both sides;
  a predicted value that is ``""`` or whitespace only is no prediction (the anchor's
  ``len(predict_values) == 0`` after deleting whitespace; :class:`Unset` ``blank``), and
  every other value is one: ``none`` and ``not mentioned`` are false positives, as in
  ConvLab-3;
* slot keys as written: ConvLab-3 looks the gold's domain and slot names up exactly, so a
  predicted key that matches a gold key only ignoring case (SGD ``Restaurants_2-Location``)
  is no prediction for it (``PredTurn.respelled``; the strict profile accepts it);
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
from dst_eval.profiles.strict import predicted_mask, predicted_states, scored_pairs
from dst_eval.result import Result

NORMALISATION = "despace+lower"
_EMPTY: dict[str, str] = {}
UNSET = Unset("blank")
"""No prediction: a value that deleting all whitespace leaves empty (the anchor's rule)."""


def _hedged_match(pred: str, variants: tuple[str, ...]) -> bool:
    return any(piece in variants for piece in pred.split("|"))


def _universe(gold_set: GoldSet, turn: GoldTurn, services: tuple[str, ...]) -> frozenset[str]:
    spec = corpora.get(gold_set.corpus)
    if spec.slot_universe == "dialogue-services":
        return frozenset(k for k in gold_set.slots if k.partition("-")[0] in services)
    return frozenset(gold_set.slots) | frozenset(spec.unified_slots) | frozenset(turn.state)


def unified_states(gold_set: GoldSet) -> dict[tuple[str, int], dict[str, tuple[str, ...]]]:
    """ConvLab-3's cumulative unified state of every gold turn, ``{(dialogue, turn): state}``:
    per service, the state of the last turn that had a frame for it (``GoldTurn.services``)."""
    out: dict[tuple[str, int], dict[str, tuple[str, ...]]] = {}
    for dialogue in gold_set:
        by_service: dict[str, dict[str, tuple[str, ...]]] = {}
        for turn in dialogue.turns:
            framed = set(turn.services)
            for service in framed:
                by_service[service] = {}
            for key, variants in turn.state.items():
                service = key.partition("-")[0]
                by_service.setdefault(service, {})
                if service in framed or not turn.services:
                    by_service[service][key] = variants
            out[(dialogue.dialogue_id, turn.turn_index)] = {
                k: v for state in by_service.values() for k, v in state.items()}
    return out


def score(alignment: Alignment, options: EvalOptions, result: Result | None = None) -> Result:
    gold_set = alignment.gold
    norm = Normalizer(NORMALISATION)
    services = {d.dialogue_id: d.services for d in gold_set}
    cumulative = (unified_states(gold_set)
                  if corpora.get(gold_set.corpus).slot_universe == "dialogue-services" else None)
    gold_states, pred_states, ids = [], [], []
    pairs = scored_pairs(alignment, options)
    present = predicted_states(pairs)
    for turn, pred in pairs:
        universe = _universe(gold_set, turn, services[turn.dialogue_id])
        gold = {}
        state = (turn.state if cumulative is None
                 else cumulative[(turn.dialogue_id, turn.turn_index)])
        for key, variants in state.items():
            pieces = tuple(p for v in variants for p in norm(key, v).split("|") if p)
            if pieces:
                gold[key] = pieces
        predicted = {}
        written = (pred.respelled if pred else None) or _EMPTY  # re-spelled: not found
        for key, value in UNSET.items(pred.state, pred.duplicates) if pred else ():
            if key in universe and key not in written:
                predicted[key] = norm(key, value)
        gold_states.append(gold)
        pred_states.append(predicted)
        ids.append(turn.dialogue_id)
    table = turn_table(gold_states, pred_states, dialogue_ids=ids, fga_lambdas=(),
                       value_match=_hedged_match, predicted=predicted_mask(present, options))
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
    notes = ["convlab profile: predictions hedged with '|' score as correct when any piece "
             "matches (ConvLab-3 behaviour); the strict profile scores them as wrong"]
    if options.dontcare != "value":
        notes.append("the convlab profile scores dontcare as an ordinary value, as ConvLab-3 "
                     f"does; --dontcare {options.dontcare} does not apply")
    if options.normalisation is not None:
        notes.append(f"the convlab profile always uses ConvLab-3's normalisation ({NORMALISATION}"
                     f"); --normalisation {options.normalisation} does not apply")
    return (result or Result()).add(
        scores={"joint_goal_accuracy": accuracy, "slot_precision": precision,
                "slot_recall": recall, "slot_f1": f1},
        signature_fields={"norm": f"{norm.signature}", "match": "any-piece-of-pipe-split",
                          "scope": "gold-domains", "agg": "turn-micro",
                          "missing": options.missing},
        official=official,
        per_turn=per_turn,
        counts={"turns": len(ids)},
        notes=notes,
    )
