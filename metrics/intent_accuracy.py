"""Active intent accuracy.

    IA = Σ_{t∈G} 1[Î_t(s) = I_t(s) for every service s] / |G|

over the turns G with at least one gold active intent, where I_t(s) is the gold intent
of service s and Î_t(s) the predicted one. An intent ``NONE`` (SGD's inactive frame) is
no intent, on both sides, as the CLI's loaders read it. (The SGD compatibility profile
scores intents per frame, NONE included, with its own code; see
``dst_eval.profiles.sgd_official``.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dst_eval.metrics.base import Metric, ratio
from dst_eval.metrics.optional_columns import intent_columns


class ActiveIntentAccuracy(Metric):
    name = "active_intent_accuracy"
    columns = ("intent_correct", "intent_n")

    def from_sums(self, sums):
        return ratio(sums["intent_correct"], sums["intent_n"])


def active_intent_accuracy(y_true: Sequence[Mapping[str, str]],
                           y_pred: Sequence[Mapping[str, str] | None], *,
                           zero_division: str | float = "raise") -> float:
    """Share of turns (with a gold intent) whose every service's intent is predicted right.

    A turn is a mapping ``{service: intent}``; an intent ``"NONE"`` is no intent, on both
    sides (``{"Hotels_1": "ReserveHotel", "Travel_1": "NONE"}`` has one active intent, and
    a turn whose intents are all ``NONE`` is not counted). A turn that is not a mapping is
    a ``TypeError`` naming it. No turn with a gold intent: :class:`UndefinedMetric`, or
    ``zero_division``.

    >>> active_intent_accuracy([{"Hotels_1": "ReserveHotel", "Travel_1": "NONE"}],
    ...                        [{"Hotels_1": "ReserveHotel"}])
    1.0

    ``None`` in ``y_pred``: a turn not predicted, wrong when it has a gold intent (the
    CLI's ``--missing wrong``)."""
    from dst_eval.metrics.canonical import check_zero_division, resolve_zero_division

    check_zero_division(zero_division)
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} turns but y_pred has {len(y_pred)}")
    cols = intent_columns(y_true, y_pred)
    value = float(ratio(cols["intent_correct"].sum(), cols["intent_n"].sum()))
    return resolve_zero_division(value, metric=ActiveIntentAccuracy.name,
                                 zero_division=zero_division,
                                 reason="no turns" if not len(y_true) else "no gold intent")
