"""Predictions: the canonical model (:mod:`.model`) and one reader per input format."""

from __future__ import annotations

from .model import Issue, PredFrame, PredictionSet, PredTurn

__all__ = ["Issue", "PredFrame", "PredTurn", "PredictionSet"]
