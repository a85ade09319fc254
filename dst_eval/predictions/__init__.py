"""Predictions: the canonical model (:mod:`.model`) and one reader per input format.

:func:`read_predictions` and :func:`predictions_from_object` are the entry points
(:mod:`.reader`); formats live in :mod:`.mwzeval_json`, :mod:`.jsonl` and
:mod:`.sgd_frames`, detection and file IO in :mod:`.detect`, turn objects in
:mod:`.turns`. Readers never change a value; profiles decide what values mean.
"""

from __future__ import annotations

from .model import Issue, PredFrame, PredictionSet, PredTurn
from .reader import detect_format, predictions_from_object, read_predictions

__all__ = ["Issue", "PredFrame", "PredTurn", "PredictionSet", "detect_format",
           "predictions_from_object", "read_predictions"]
