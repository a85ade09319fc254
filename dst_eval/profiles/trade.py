"""The ``trade`` profile family: TRADE's DST evaluation (trade-dst ``models/TRADE.py``
``evaluate_metrics``; for CrossWOZ its ConvLab-2 port ``dst/trade/crosswoz/trade.py``).

SCORERS.md §4: states are sets of ``"domain-slot-value"`` strings, one per filled slot.

**Gold.** Where the corpus folder has a ``trade_gold`` module (MultiWOZ 2.0/2.1,
:mod:`dst_eval.corpora.multiwoz.trade_gold`) the gold is trade-dst's own, rebuilt from the
same ``data.json``: its dialogue filter, its value normalisation and label fixes, and its
literal ``none`` items (kept: no prediction can match them, as in trade-dst). Dialogues
trade-dst leaves out are not scored (``counts["trade_left_out"]``). Elsewhere
(CrossWOZ, MultiWOZ 2.2) the gold is the loader's.

* **Joint Acc** = mean over ALL turns of 1[G_t = P_t] (empty = empty is correct);
* **Turn Acc** = TRADE ``compute_acc`` over the corpus slot list (CrossWOZ: 26 slots),
  including its ``rsplit("-", 1)`` slot parsing (:mod:`~dst_eval.metrics.trade_accuracy`);
* **Joint F1** = mean over turns of the per-turn F1 of the string sets; empty gold
  scores 1 with an empty prediction and 0 otherwise.

Values are compared exactly as given (TRADE's own pipeline segments values with jieba
on both sides before this comparison; here the submitted values are the strings). The
gold is the loader's (CrossWOZ: ``sys_state_init``, TRADE ``data_version='init'``, values
as annotated: ``'3小时 '`` is not ``3小时``), its first variant when a corpus gives
several. A predicted value exactly ``none`` is no value
(TRADE's decoder drops ``st == "none"``; :class:`Unset` ``none``); every other string is
a ``domain-slot-value`` item compared exactly (a slot listed twice with two values is
two items, as in trade-dst's sets) -- ``""`` (the decoder's empty output,
written ``slot-``), a whitespace-only value, ``None`` or ``not mentioned`` is a false
positive, as it is for TRADE. ``--zero-shot-domain D`` is trade-dst's ``--except_domain
D`` test reader: the dialogues whose goal involves D, their gold items and predictions of
D's slots only, Turn Acc over D's slots (:mod:`dst_eval.zeroshot`). Missing turns:
``missing="wrong"`` scores them as empty predictions, ``"skip"`` leaves them out. Joint
Acc and Joint F1 are computed by the metrics core on the string sets (``turn_table``), Turn
Acc by :class:`TradeSlotAccuracy`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from dst_eval import corpora
from dst_eval.alignment import Alignment
from dst_eval.config import corpus_config
from dst_eval.errors import UsageError
from dst_eval.gold import GoldSet, GoldTurn
from dst_eval.metrics import turn_table
from dst_eval.metrics.jga import JointGoalAccuracy
from dst_eval.metrics.slot_prf import SlotF1PerTurnMacro
from dst_eval.metrics.trade_accuracy import TradeSlotAccuracy, trade_slot_errors
from dst_eval.normalize import Normalizer, Unset
from dst_eval.options import EvalOptions
from dst_eval.predictions.model import PredTurn
from dst_eval.profiles.strict import predicted_mask, predicted_states, scored_pairs
from dst_eval.result import Result

NONE_VALUE = "none"
DONTCARE = "dontcare"
UNSET = Unset("none")
"""TRADE's predictions leave out exactly ``none`` (``TRADE.evaluate``: ``if st == "none":
continue``); an empty decoded value is kept as the item ``"slot-"``."""
OFFICIAL_NAMES = {"joint_goal_accuracy": "Joint Acc", "trade_slot_accuracy": "Turn Acc",
                  "slot_f1_turn_macro": "Joint F1"}


def state_items(state: Mapping[str, str], *, dontcare: str = "value") -> set[str]:
    """``{"domain-slot": value}`` -> TRADE's ``{"domain-slot-value"}`` (no ``none``)."""
    return {f"{key}-{value}" for key, value in state.items()
            if value and value != NONE_VALUE and not (dontcare == "ignore" and value == DONTCARE)}


def _gold_items(turn: GoldTurn, dontcare: str) -> set[str]:
    return state_items({k: v[0] for k, v in turn.state.items() if v}, dontcare=dontcare)


def _pred_items(pred: PredTurn | None, dontcare: str) -> set[str]:
    """Every ``domain-slot-value`` item the turn lists -- a slot listed twice with two values
    gives two items, as in trade-dst's string sets -- except ``none`` values."""
    if pred is None or not pred.state:
        return set()
    listed = [*pred.state.items(), *((key, value) for key, later in
                                     (pred.duplicates or {}).items() for value in later)]
    return {f"{key}-{value}" for key, value in listed
            if not UNSET.test(value) and not (dontcare == "ignore" and value == DONTCARE)}


def _trade_gold(gold_set: GoldSet) -> Mapping[str, tuple[frozenset[str], ...]] | None:
    """The corpus's own TRADE gold builder, if its folder has one (``trade_gold``)."""
    try:
        module = corpora.get(gold_set.corpus).module("trade_gold")
    except UsageError:
        return None
    built: Mapping[str, tuple[frozenset[str], ...]] | None = module.load_for(gold_set)
    return built


def _dontcare(items: frozenset[str], dontcare: str) -> set[str]:
    if dontcare != "ignore":
        return set(items)
    return {i for i in items if i.split("-", 2)[2] != DONTCARE}


def _by_slot(gold: list[set[str]], pred: list[set[str]]
             ) -> tuple[list[dict[str, tuple[str]]], list[dict[str, str]]]:
    """The item sets as per-slot states (``"domain-slot-value"``: keys hold one ``-``), for
    the surface-form diagnostic against trade-dst's gold."""
    def split(items: set[str]) -> dict[str, str]:
        parts = [i.split("-", 2) for i in items]
        return {f"{p[0]}-{p[1]}": p[2] for p in parts if len(p) == 3}
    return [{k: (v,) for k, v in split(g).items()} for g in gold], [split(p) for p in pred]


def score(alignment: Alignment, options: EvalOptions, result: Result | None = None) -> Result:
    gold_set = alignment.gold
    pairs = scored_pairs(alignment, options)
    trade = _trade_gold(gold_set)
    left_out = 0
    if trade is not None:
        left_out = len({g.dialogue_id for g, _ in pairs} - set(trade))
        pairs = [(g, p) for g, p in pairs if g.dialogue_id in trade]
        gold = [_dontcare(trade[g.dialogue_id][g.turn_index], options.dontcare)
                for g, _ in pairs]
        if options.zero_shot_domain:  # the alignment is restricted; trade's gold is rebuilt
            domain_of = corpora.get(gold_set.corpus).domain_of
            gold = [{i for i in items if domain_of(i) == options.zero_shot_domain}
                    for items in gold]
    else:
        gold = [_gold_items(g, options.dontcare) for g, _ in pairs]
    turns = [g for g, _ in pairs]
    pred = [_pred_items(p, options.dontcare) for _, p in pairs]
    ids = [t.dialogue_id for t in turns]
    present = predicted_states(pairs)
    predicted = predicted_mask(present, options)
    table = turn_table([{i: (i,) for i in g} for g in gold], [{i: i for i in p} for p in pred],
                       dialogue_ids=ids, fga_lambdas=(), predicted=predicted)
    table.columns["trade_errors"] = trade_slot_errors(gold, pred)
    n_slots = len(gold_set.slots) or len(corpus_config(gold_set.corpus).slots)
    if predicted is not None:  # missing: wrong -- all N slots of a missing turn are errors
        table.columns["trade_errors"][~predicted] = n_slots
    metrics = [JointGoalAccuracy(), SlotF1PerTurnMacro()]
    if n_slots:
        metrics.insert(1, TradeSlotAccuracy(n_slots))
    if options.metrics:
        metrics = [m for m in metrics if m.name in options.metrics]
    scores = {m.name: m.score(table) for m in metrics}
    official = {OFFICIAL_NAMES[name]: value for name, value in scores.items()}

    groups: dict[str, dict[str, float]] = {}
    goal_types = {d.dialogue_id: d.meta.get("type", "") for d in gold_set}
    if any(goal_types.values()):  # CrossWOZ paper Table 5: per goal type
        types = np.array([goal_types[i] for i in ids])
        for goal_type in sorted(set(types.tolist()) - {""}):
            rows = types == goal_type
            groups[f"goal_type:{goal_type}"] = {
                m.name: m.score(table, rows) for m in metrics} | {"turns": float(rows.sum())}

    notes = []
    if trade is not None:
        notes.append(f"trade profile: gold rebuilt as trade-dst builds it (value fixes, literal "
                     f"'none' items); {left_out} dialogue(s) trade-dst leaves out not scored")
    if not n_slots:
        notes.append("trade_slot_accuracy: n/a (the corpus defines no slot list)")
    if options.by:
        notes.append("the trade profile reports TRADE's three numbers (and goal types); "
                     "use the strict profile for --by breakdowns")
    if options.normalisation:
        notes.append("--norm is ignored by the trade profile (TRADE compares exact strings)")
    per_turn = {"dialogue_id": ids, "turn_index": [t.turn_index for t in turns],
                "predicted": present.tolist()}
    per_turn.update(table.columns)
    return (result or Result()).add(
        scores=scores,
        signature_fields={"norm": Normalizer("exact").signature, "match": "exact-string-set",
                          **({"gold-as": "trade-dst-b77fcf1"} if trade is not None else {}),
                          "slots": str(n_slots), "dontcare": options.dontcare, "agg": "turn",
                          "missing": options.missing},
        groups=groups,
        official=official,
        per_turn=per_turn,
        compared=_by_slot(gold, pred) if trade is not None else None,
        table=table,
        metric_objects=metrics,
        notes=notes,
        counts={"turns": len(turns), "dialogues": len(set(ids)), "slots_in_list": n_slots,
                "trade_left_out": left_out},
    )
