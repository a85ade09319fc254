"""The ``trippy`` profile: TripPy's DST evaluation (``metric_bert_dst.py``) on its own
``pred_res.*.json`` files, for MultiWOZ 2.0/2.1/2.4 ``data.json`` gold.

**Gold** = TripPy's labels rebuilt from the ``data.json`` the gold was read from
(:mod:`dst_eval.corpora.multiwoz.trippy_gold`), never the file's ``slot_groundtruth_*``.

**Metric**, per slot of TripPy's 30 and per turn, in dialogue order (``metric_bert_dst.py``
``get_joint_slot_correctness``):

* both the label and ``slot_prediction_<slot>`` pass TripPy's metric tokenisation
  (:func:`metric_tokens`: ``re.split("(\\W+)")`` pieces joined by one space);
* the predicted state ``P`` of the slot is reset to ``none`` at turn 0 and updated by
  ``class_prediction_<slot>`` (TripPy's class order :data:`~.trippy_labels.CLASS_TYPES`):
  ``none`` keeps ``P``; ``dontcare``/``true``/``false`` set that word; ``copy_value``
  sets the prediction; ``inform`` (a ``§§``-marked value) and ``refer`` with a
  ``§§``-marked value set :func:`check_slot_inform` of the label and the value -- **the
  label itself** whenever the two overlap as token sequences or through a label variant
  (TripPy's gold-dependent credit, reproduced here and named in the signature);
  ``refer`` with an unmarked value sets it (``none`` keeps ``P``);
* the slot is right when ``P`` equals the label or, for a label other than ``none``,
  ``dontcare``, ``true``, ``false``, is one of its label variants (:data:`MAPS`).

**Joint goal acc** = share of turns with every slot right (``np.mean`` of the product).
``trade_slot_accuracy`` = the mean of TripPy's per-slot "joint value acc" (right slots /
(30 x turns)). A turn without a record: ``missing="wrong"`` scores it wrong and leaves
``P`` as it was; ``"skip"`` leaves it out. Turns past the point where TripPy's reader stops
(a log that stops alternating) are not scored (``counts["trippy_left_out"]``).
Deviation, by necessity: TripPy carries ``P`` from one record to the next in file order and
resets it only at a record of turn ``0``; here turns are taken in the gold's order, so a
file that omits a dialogue's turn 0 does not inherit the previous dialogue's state.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from dst_eval.alignment import Alignment
from dst_eval.corpora.multiwoz import trippy_gold
from dst_eval.corpora.multiwoz.trippy_labels import CLASS_TYPES, LABEL_MAPS, SLOTS
from dst_eval.errors import PredictionError, UsageError
from dst_eval.metrics import turn_table
from dst_eval.metrics.jga import JointGoalAccuracy
from dst_eval.metrics.trade_accuracy import TradeSlotAccuracy
from dst_eval.normalize import Normalizer, Unset
from dst_eval.options import EvalOptions
from dst_eval.predictions.model import PredTurn
from dst_eval.profiles.strict import scored_pairs
from dst_eval.result import Result

NONE = "none"
UNSET = Unset("none")
"""TripPy's ``none`` leaves a slot unset (its classes replay the state; here only for the
unset-marker diagnostic, :func:`dst_eval.profiles.unset_test`)."""
SPECIAL = frozenset({"none", "dontcare", "true", "false"})
INFORM_MARK = "§§"
PREDICTION, CLASS_PREDICTION = "slot_prediction_", "class_prediction_"
OFFICIAL_NAMES = {"joint_goal_accuracy": "Joint goal acc",
                  "trade_slot_accuracy": "mean joint value acc"}


@lru_cache(maxsize=1 << 16)
def metric_tokens(text: str) -> str:
    """TripPy's metric tokenisation (``metric_bert_dst.py`` ``tokenize``); kept per text
    (a run tokenises each of 30 slots per turn: mostly ``none`` and repeated values)."""
    if "\u0120" in text:
        text = text.replace(" ", "").replace("\u0120", " ").strip()
    return " ".join(trippy_gold.split_tokens(text))


MAPS: dict[str, tuple[str, ...]] = {metric_tokens(k): tuple(metric_tokens(v) for v in vs)
                                    for k, vs in LABEL_MAPS.items()}
"""The label variants as the metric uses them (keys and variants tokenised)."""


def _contains(text: str, part: str) -> bool:
    """TripPy's ``is_in_list(text, part)``: ``part``'s tokens as a run in ``text``'s."""
    return trippy_gold.has_run(trippy_gold.split_tokens(text), trippy_gold.split_tokens(part))


def _overlap(a: str, b: str) -> bool:
    return a == b or _contains(b, a) or _contains(a, b)


def check_slot_inform(label: str, informed: str) -> str:
    """TripPy's ``check_slot_inform``: the label when the informed value overlaps it
    (directly or through a variant of either), else the informed value."""
    if _overlap(label, informed):
        return label
    if informed in MAPS:
        return label if any(_overlap(label, v) for v in MAPS[informed]) else informed
    if label in MAPS:
        return label if any(_overlap(informed, v) for v in MAPS[label]) else informed
    return informed


def _marked(value: str) -> str | None:
    """The value after TripPy's ``§§`` inform mark (one space allowed), or None."""
    if value[0:3] == INFORM_MARK + " ":
        return value[3:]
    if value[0:2] == INFORM_MARK:
        return value[2:]
    return None


def _update(state: str, cls: int, value: str, label: str) -> str:
    kind = CLASS_TYPES[cls]
    if kind == "none":
        return state
    if kind in ("dontcare", "true", "false"):
        return kind
    if kind == "copy_value":
        return value
    informed = _marked(value)
    if informed is not None:
        return check_slot_inform(label, informed) if informed != NONE else state
    if kind == "refer":
        return value if value != NONE else state
    raise ValueError(f"an 'inform' class needs a {INFORM_MARK}-marked value, found {value!r}")


def _is_right(label: str, state: str) -> bool:
    return label == state or (label not in SPECIAL and state in MAPS.get(label, ()))


def _key(slot: str) -> str:
    """TripPy's slot name as a canonical key (``hotel-book_people`` -> ``hotel-bookpeople``)."""
    return slot.lower().replace("_", "")


_FIELDS = tuple((slot, PREDICTION + slot, CLASS_PREDICTION + slot, _key(slot)) for slot in SLOTS)
"""Per slot of TripPy's list: its name, its two fields in a record and its canonical key."""


def _record(pred: PredTurn, value_field: str, class_field: str, where: dict
            ) -> tuple[str, int]:
    value, cls = pred.extras.get(value_field), pred.extras.get(class_field)
    if type(value) is not str or type(cls) is not int or not 0 <= cls < len(CLASS_TYPES):
        raise PredictionError(
            f"the trippy profile needs '{value_field}' (a string) and "
            f"'{class_field}' (a class index 0-{len(CLASS_TYPES) - 1}), as "
            f"TripPy's run_dst.py writes them; found {value!r} and {cls!r}", **where)
    return metric_tokens(value), cls


def score(alignment: Alignment, options: EvalOptions, result: Result | None = None) -> Result:
    if alignment.predictions.format != "trippy":
        raise UsageError("--profile trippy replays TripPy's metric on its class predictions: "
                         "it scores TripPy pred_res files (--pred-format trippy), found "
                         f"{alignment.predictions.format!r}")
    labels = trippy_gold.load_for(alignment.gold)
    file = alignment.predictions.source
    gold_states: list[dict[str, tuple[str]]] = []
    pred_states: list[dict[str, str]] = []
    errors: list[int] = []
    ids: list[str] = []
    turns: list[int] = []
    predicted: list[bool] = []
    right = np.zeros(len(SLOTS), dtype=np.int64)
    state: dict[str, str] = {}
    dialogue = None
    left_out = 0
    for gold, pred in scored_pairs(alignment, options):
        turn_labels = labels[gold.dialogue_id]
        if gold.turn_index >= len(turn_labels):
            left_out += 1
            continue
        if gold.dialogue_id != dialogue or gold.turn_index == 0:
            dialogue, state = gold.dialogue_id, dict.fromkeys(SLOTS, NONE)
        label_of = turn_labels[gold.turn_index]
        has = pred is not None and pred.extras is not None
        g_state: dict[str, tuple[str]] = {}
        p_state: dict[str, str] = {}
        wrong = 0
        where = {"file": file, "dialogue": gold.dialogue_id, "turn": gold.turn_index}
        for n, (slot, value_field, class_field, key) in enumerate(_FIELDS):
            label = metric_tokens(label_of[slot])
            if has:
                value, cls = _record(pred, value_field, class_field, where)
                try:
                    state[slot] = _update(state[slot], cls, value, label)
                except ValueError as exc:
                    raise PredictionError(f"slot {slot}: {exc}", **where) from None
            ok = has and _is_right(label, state[slot])
            right[n] += ok
            wrong += not ok
            if label != NONE:
                g_state[key] = (label,)
            shown = label if ok else state[slot]
            if shown != NONE:
                p_state[key] = shown
        gold_states.append(g_state)
        pred_states.append(p_state)
        errors.append(wrong)
        ids.append(gold.dialogue_id)
        turns.append(gold.turn_index)
        predicted.append(has)
    mask = np.array(predicted, dtype=bool)
    table = turn_table(gold_states, pred_states, dialogue_ids=ids, fga_lambdas=(),
                       predicted=mask if options.missing == "wrong" else None)
    table.columns["trade_errors"] = np.array(errors, dtype=np.int64)
    metrics: list[Any] = [JointGoalAccuracy(), TradeSlotAccuracy(len(SLOTS))]
    if options.metrics:
        metrics = [m for m in metrics if m.name in options.metrics]
    scores = {m.name: m.score(table) for m in metrics}
    official: dict[str, Any] = {OFFICIAL_NAMES[k]: v for k, v in scores.items()}
    if turns:
        official["joint value acc"] = {s: float(r) / len(turns) for s, r in zip(SLOTS, right,
                                                                                strict=True)}
    notes = ["trippy profile: gold = TripPy's labels rebuilt from data.json "
             "(label_value_repetitions); an informed value overlapping the label is "
             "credited as the label, as TripPy's metric does"]
    if left_out:
        notes.append(f"{left_out} turn(s) past where TripPy's reader stops not scored")
    if options.normalisation:
        notes.append("--norm is ignored by the trippy profile (TripPy's own matching)")
    if options.dontcare != "value":
        notes.append(f"--dontcare {options.dontcare} is ignored by the trippy profile (TripPy "
                     "predicts dontcare as a class and scores it as a value)")
    per_turn: dict[str, Any] = {"dialogue_id": ids, "turn_index": turns, "predicted": predicted}
    per_turn.update(table.columns)
    return (result or Result()).add(
        scores=scores,
        signature_fields={"norm": Normalizer("exact").signature,
                          "match": "trippy-variants+inform-credit",
                          "gold-as": "trippy-label-repetitions", "slots": str(len(SLOTS)),
                          "agg": "turn", "missing": options.missing},
        official=official,
        per_turn=per_turn,
        compared=(gold_states, pred_states),
        table=table,
        metric_objects=metrics,
        notes=notes,
        counts={"turns": len(turns), "dialogues": len(set(ids)), "slots_in_list": len(SLOTS),
                "trippy_left_out": left_out},
    )

