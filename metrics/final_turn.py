"""Final-turn joint goal accuracy: JGA over the last scored turn of each dialogue.

.. math:: \\mathrm{JGA}_{\\mathrm{final}} = \\frac{1}{D}\\sum_{d}\\mathbf{1}[B_{d,T_d} = P_{d,T_d}]

with T_d the last user turn of dialogue d: the dialogue-level state-tracking success
some papers report as "final" JGA. No reference implementation is cited; it is tested
by construction. Turns of a dialogue must be consecutive and in order (a dialogue whose
turns are not consecutive is a ``ValueError``); with ``missing="skip"`` the last *scored*
turn is used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

from dst_eval.metrics.base import GoldState, Metric, PredState, ratio
from dst_eval.metrics.canonical import StateOptions, canonical_table, metric_value


class FinalTurnJointGoalAccuracy(Metric):
    name = "final_turn_joint_goal_accuracy"
    columns = ("final_jga", "final")

    def from_sums(self, sums):
        return ratio(sums["final_jga"], sums["final"])


def final_turn_joint_goal_accuracy(y_true: Sequence[GoldState], y_pred: Sequence[PredState | None],
                                   *, dialogue_ids: Sequence[str],
                                   zero_division: str | float = "raise",
                                   **options: Unpack[StateOptions]) -> float:
    """Share of dialogues whose last turn's predicted state equals the gold state.

    ``None`` in ``y_pred``: a turn not predicted, wrong whatever its gold (the CLI's
    ``--missing wrong``; ``{}`` predicts the empty state); ``None`` in ``y_true``: a
    ``ValueError``.

    >>> gold = [{}, {"a-b": "1"}, {"a-b": "2"}]
    >>> pred = [{"a-b": "9"}, {}, {"a-b": "2"}]
    >>> final_turn_joint_goal_accuracy(gold, pred, dialogue_ids=["x", "x", "y"])
    0.5
    """
    table = canonical_table(y_true, y_pred, options, dialogue_ids=dialogue_ids)
    return metric_value(FinalTurnJointGoalAccuracy(), table, zero_division)
