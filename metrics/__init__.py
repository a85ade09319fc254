"""Pure metric functions for dialogue state tracking and response generation (no file I/O).

Installed as ``dst_eval.metrics``::

    from dst_eval.metrics import joint_goal_accuracy
    joint_goal_accuracy([{"hotel-area": ["centre", "center"]}], [{"hotel-area": "centre"}])

Gold states map ``"domain-slot"`` to a value or a list of acceptable variants;
predicted states map ``"domain-slot"`` to one value, and a ``None`` predicted state is a
turn not predicted (scored wrong, as the CLI's ``--missing wrong`` does). The DST metric
functions compare states as the CLI's ``strict`` profile does (keyword options
``norm="basic-v1"`` -- ``"exact"`` for exact comparison --, ``keys``, ``aliases``,
``unset``, ...: :mod:`~dst_eval.metrics.canonical`; the defaults are MultiWOZ's rules).
With a corpus's options, ``**dst_eval.metric_options(corpus)`` (its key spellings,
aliases and unset words), they give the CLI's number on the same data (what they do not
reproduce: that function's docstring). Undefined values
(no turns) raise :class:`UndefinedMetric` unless ``zero_division=`` gives the value; never
a silent nan.
Every metric is also a :class:`~dst_eval.metrics.base.Metric` defined on sums of per-turn
statistics
(:func:`~dst_eval.metrics.state_compare.turn_table`), which is what breakdowns and
dialogue-level bootstrap use.
"""

from __future__ import annotations

from dst_eval.metrics.aga import AverageGoalAccuracy, average_goal_accuracy
from dst_eval.metrics.base import Metric, TurnTable
from dst_eval.metrics.canonical import UndefinedMetric, canonical_states
from dst_eval.metrics.domain_jga import (
    DomainJointGoalAccuracy,
    MeanDomainJointGoalAccuracy,
    per_domain_joint_goal_accuracy,
)
from dst_eval.metrics.error_analysis import error_counts, frequent_wrong_values, slot_error_counts
from dst_eval.metrics.fga import FlexibleGoalAccuracy, flexible_goal_accuracy
from dst_eval.metrics.final_turn import FinalTurnJointGoalAccuracy, final_turn_joint_goal_accuracy
from dst_eval.metrics.gca import GranularChangeAccuracy, granular_change_accuracy
from dst_eval.metrics.iaga import ImprovedAverageGoalAccuracy, improved_average_goal_accuracy
from dst_eval.metrics.intent_accuracy import ActiveIntentAccuracy, active_intent_accuracy
from dst_eval.metrics.jga import JointGoalAccuracy, joint_goal_accuracy
from dst_eval.metrics.requested_slots import (
    RequestedSlotsF1,
    RequestedSlotsF1TurnMacro,
    RequestedSlotsPrecision,
    RequestedSlotsRecall,
    requested_slots_precision_recall_f1,
)
from dst_eval.metrics.rsa import RelativeSlotAccuracy, relative_slot_accuracy
from dst_eval.metrics.slot_acc import SlotAccuracy, slot_accuracy
from dst_eval.metrics.slot_prf import (
    SlotF1,
    SlotF1PerTurnMacro,
    SlotPrecision,
    SlotRecall,
    slot_f1,
    slot_f1_turn_macro,
    slot_precision_recall_f1,
)
from dst_eval.metrics.state_compare import SlotOutcome, turn_table
from dst_eval.metrics.turn_acc import TurnAccuracy, turn_accuracy

__all__ = [
    "ActiveIntentAccuracy", "AverageGoalAccuracy", "FlexibleGoalAccuracy", "JointGoalAccuracy",
    "Metric", "RelativeSlotAccuracy", "RequestedSlotsF1", "RequestedSlotsF1TurnMacro",
    "RequestedSlotsPrecision", "RequestedSlotsRecall", "SlotAccuracy", "SlotF1",
    "SlotF1PerTurnMacro", "SlotOutcome", "SlotPrecision", "SlotRecall", "TurnAccuracy",
    "TurnTable", "active_intent_accuracy", "average_goal_accuracy", "dst_metrics",
    "error_counts", "flexible_goal_accuracy", "frequent_wrong_values", "joint_goal_accuracy",
    "relative_slot_accuracy", "requested_slots_precision_recall_f1", "slot_accuracy",
    "slot_error_counts", "slot_f1_turn_macro", "slot_precision_recall_f1", "turn_accuracy",
    "turn_table", "corpus_bleu", "mean_sentence_bleu", "segment_statistics", "get_tokenizer",
    "trade_slot_accuracy", "bootstrap_ci", "paired_bootstrap", "approximate_randomisation",
    "DomainJointGoalAccuracy", "FinalTurnJointGoalAccuracy", "GranularChangeAccuracy",
    "ImprovedAverageGoalAccuracy", "MeanDomainJointGoalAccuracy", "TradeSlotAccuracy",
    "final_turn_joint_goal_accuracy", "granular_change_accuracy",
    "improved_average_goal_accuracy", "per_domain_joint_goal_accuracy", "slot_f1",
    "UndefinedMetric", "canonical_states", "METRIC_FUNCTIONS",
]

METRIC_FUNCTIONS = (
    "joint_goal_accuracy", "slot_accuracy", "slot_precision_recall_f1", "slot_f1",
    "slot_f1_turn_macro", "average_goal_accuracy", "improved_average_goal_accuracy",
    "relative_slot_accuracy", "turn_accuracy", "flexible_goal_accuracy",
    "final_turn_joint_goal_accuracy", "granular_change_accuracy",
    "per_domain_joint_goal_accuracy", "active_intent_accuracy",
    "requested_slots_precision_recall_f1", "trade_slot_accuracy", "corpus_bleu",
    "mean_sentence_bleu",
)
"""The exported functions that compute a score: on no input each raises
:class:`UndefinedMetric` (a ``ValueError``) unless ``zero_division`` names the value."""


def dst_metrics(*, n_slots: int = 0, fga_lambdas=(0.25, 0.5, 0.75, 1.0),
                requested: bool = False, intents: bool = False) -> list[Metric]:
    """The standard DST metric set, in report order.

    Slot accuracy is included when the corpus slot list size ``n_slots`` is known;
    requested-slot and intent metrics when those annotations are predicted.
    """
    metrics: list[Metric] = [JointGoalAccuracy()]
    if n_slots:
        metrics.append(SlotAccuracy(n_slots))
    metrics += [SlotPrecision(), SlotRecall(), SlotF1(), SlotF1PerTurnMacro(),
                AverageGoalAccuracy(), RelativeSlotAccuracy(),
                RelativeSlotAccuracy(average="micro"), TurnAccuracy()]
    metrics += [FlexibleGoalAccuracy(lam) for lam in fga_lambdas]
    if intents:
        metrics.append(ActiveIntentAccuracy())
    if requested:
        metrics += [RequestedSlotsPrecision(), RequestedSlotsRecall(), RequestedSlotsF1(),
                    RequestedSlotsF1TurnMacro()]
    return metrics


_LAZY = {
    "corpus_bleu": "bleu", "mean_sentence_bleu": "bleu", "segment_statistics": "bleu",
    "get_tokenizer": "tokenizers", "trade_slot_accuracy": "trade_accuracy",
    "TradeSlotAccuracy": "trade_accuracy",
    "bootstrap_ci": "resampling", "paired_bootstrap": "resampling",
    "approximate_randomisation": "resampling",
}


def __getattr__(name: str):
    """BLEU, tokenizers and resampling load on first use (they import sacrebleu)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
