"""``Result.to_pandas()``: one row per scored turn, in one schema under every profile.

The columns, their dtypes and meanings are the same for ``strict``, ``sgd-official``,
``mwzeval``, ``convlab`` (and ``trade``, ``official``); a statistic a profile does not
compute per turn is ``<NA>`` (pandas' nullable integer), never a different column:

========================  ========  ==========================================================
column                    dtype     meaning
========================  ========  ==========================================================
``dialogue_id``           string    gold dialogue id
``turn_index``            Int64     0-based index of the user turn among the dialogue's
``depth``                 Int64     turn depth as ``--by depth`` buckets it: ``min(turn_index,
                                    10)`` (10 = ten or more)
``domains``               string    domains (SGD: services) of the gold state's slots at this
                                    turn, sorted, comma-separated ("" for an empty state)
``predicted``             boolean   the turn has a prediction
``joint_goal_correct``    Int64     1 if the profile counts the turn's state as jointly
                                    correct, else 0 (the JGA numerator); a partial credit
                                    below 1 is 0, never rounded up
``joint_goal_score``      Float64   the profile's per-turn joint score: ``joint_goal_correct``
                                    except under ``sgd-official``, where fuzzy matching gives
                                    partial credit (the product over the turn's frames)
``gold_slots``            Int64     slots in the gold state, as the profile counts them
``predicted_slots``       Int64     slots in the predicted state, as the profile counts them
``slots_correct``         Int64     gold slots predicted with an accepted value (true
                                    positives of slot precision/recall)
``slots_wrong_value``     Int64     slots in both states with a value the profile rejects
``slots_missing``         Int64     gold slots not predicted
``slots_extra``           Int64     predicted slots not in the gold state
``slot_false_positives``  Int64     ``slots_wrong_value + slots_extra`` (mwzeval: its fp)
``slot_false_negatives``  Int64     ``slots_wrong_value + slots_missing`` (mwzeval: its fn)
``frames``                Int64     SGD frames scored in the turn (``sgd-official``)
========================  ========  ==========================================================

When the predictions carry responses, two more columns: ``response`` (the predicted
system response, string) and ``reference_response`` (the gold one, string).

``sgd-official`` scores frames with fuzzy partial credit, so its slot counts are ``<NA>``
and its ``joint_goal_score`` may lie between 0 and 1;
``mwzeval`` counts tp/fp/fn only, so its wrong/missing/extra split is ``<NA>``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

DEPTH_CAP = 10
"""Same bucket as the strict profile's ``--by depth`` (``dst_eval.profiles.strict``)."""
INT_COLUMNS = ("turn_index", "depth", "joint_goal_correct", "gold_slots", "predicted_slots",
               "slots_correct", "slots_wrong_value", "slots_missing", "slots_extra",
               "slot_false_positives", "slot_false_negatives", "frames")
COLUMNS = ("dialogue_id", "turn_index", "depth", "domains", "predicted", "joint_goal_correct",
           "joint_goal_score", *INT_COLUMNS[3:])
RESPONSE_COLUMNS = ("response", "reference_response")


def _column(per_turn: dict[str, Any], *names: str) -> np.ndarray | None:
    for name in names:
        if name in per_turn:
            return np.asarray(per_turn[name], dtype=float)
    return None


def _add(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    return None if a is None or b is None else a + b


def turn_frame(result: Any):
    """The documented per-turn frame of ``result`` (see the module docstring)."""
    import pandas as pd

    per_turn = result.per_turn or {}
    ids = [str(d) for d in per_turn.get("dialogue_id", ())]
    n = len(ids)
    turn_index = np.asarray(per_turn.get("turn_index", np.zeros(n)), dtype=np.int64)
    pairs = {(g.dialogue_id, g.turn_index): (g, p) for g, p in result.turns}
    found = [pairs.get((d, int(t)), (None, None)) for d, t in zip(ids, turn_index, strict=True)]

    correct = _column(per_turn, "correct", "tp")
    wrong = _column(per_turn, "wrong")
    missing = _column(per_turn, "missing") if "wrong" in per_turn else None
    extra = _column(per_turn, "extra")
    fp = _column(per_turn, "fp")
    fn = _column(per_turn, "fn")
    if fp is None:
        fp = _add(wrong, extra)
    if fn is None:
        fn = _add(wrong, missing)
    gold_slots = _column(per_turn, "n_gold")
    pred_slots = _column(per_turn, "n_pred")
    if gold_slots is None:
        gold_slots = _add(correct, fn)
    if pred_slots is None:
        pred_slots = _add(correct, fp)
    joint = _column(per_turn, "jga", "joint_goal_accuracy")
    if "predicted" in per_turn:
        predicted = [bool(x) for x in per_turn["predicted"]]
    elif "missing" in per_turn and "wrong" not in per_turn:  # sgd-official: missing flag
        predicted = [not bool(x) for x in per_turn["missing"]]
    else:
        predicted = [p is not None and getattr(p, "state", None) is not None for _, p in found]

    def floats(values: np.ndarray | None) -> pd.Series:
        if values is None:
            return pd.Series(pd.array([pd.NA] * n, dtype="Float64"))
        data = pd.array(np.asarray(values, dtype=float), dtype="Float64")
        data[np.isnan(values)] = pd.NA
        return pd.Series(data)

    def ints(values: np.ndarray | None) -> pd.Series:
        if values is None:
            return pd.Series(pd.array([pd.NA] * n, dtype="Int64"))
        data = pd.array(np.where(np.isnan(values), 0, np.rint(values)).astype(np.int64),
                        dtype="Int64")
        data[np.isnan(values)] = pd.NA
        return pd.Series(data)

    frame = pd.DataFrame({
        "dialogue_id": pd.Series(ids, dtype="string"),
        "turn_index": ints(turn_index.astype(float)),
        "depth": ints(np.minimum(turn_index, DEPTH_CAP).astype(float)),
        "domains": pd.Series([_domains(g) for g, _ in found], dtype="string"),
        "predicted": pd.Series(predicted, dtype="boolean"),
        "joint_goal_correct": ints(None if joint is None else
                                   np.where(np.isnan(joint), np.nan, (joint == 1.0) * 1.0)),
        "joint_goal_score": floats(joint),
        "gold_slots": ints(gold_slots),
        "predicted_slots": ints(pred_slots),
        "slots_correct": ints(correct),
        "slots_wrong_value": ints(wrong),
        "slots_missing": ints(missing),
        "slots_extra": ints(extra),
        "slot_false_positives": ints(fp),
        "slot_false_negatives": ints(fn),
        "frames": ints(_column(per_turn, "frames")),
    }, columns=list(COLUMNS))
    if any(getattr(p, "response", None) is not None for _, p in result.turns):
        frame["response"] = pd.Series([getattr(p, "response", None) for _, p in found],
                                      dtype="string")
        frame["reference_response"] = pd.Series(
            [getattr(g, "system_response", None) for g, _ in found], dtype="string")
    return frame


def _domains(gold: Any) -> str | None:
    if gold is None:
        return None
    return ",".join(sorted({str(key).partition("-")[0] for key in gold.state}))
