"""Align predictions to gold by dialogue and turn, and say exactly what does not fit.

The result pairs every gold turn with its predicted turn (or None when missing),
in gold order. Missing dialogues and turns are reported and, by default, scored as
wrong (an empty prediction); extra dialogues and turns are reported and ignored.
``strict=True`` turns every problem into a :class:`PredictionError` (exit 3).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import PredictionError
from .gold import GoldSet, GoldTurn, dialogue_key
from .predictions import Issue, PredictionSet, PredTurn


@dataclass
class Alignment:
    gold: GoldSet
    predictions: PredictionSet
    pairs: list[tuple[GoldTurn, PredTurn | None]]
    """Every gold turn in gold order with its prediction, None if missing."""
    issues: list[Issue] = field(default_factory=list)
    missing_dialogues: list[str] = field(default_factory=list)
    extra_dialogues: list[str] = field(default_factory=list)
    n_missing_turns: int = 0
    n_extra_turns: int = 0

    @property
    def n_turns(self) -> int:
        return len(self.pairs)

    @property
    def coverage(self) -> float:
        """Share of gold turns that have a prediction."""
        if not self.pairs:
            return 0.0
        return sum(p is not None for _, p in self.pairs) / len(self.pairs)

    def present_pairs(self) -> list[tuple[GoldTurn, PredTurn]]:
        """Only the turns that have a prediction (the official scorers' silent behaviour)."""
        return [(g, p) for g, p in self.pairs if p is not None]

    def summary(self) -> dict[str, int | float]:
        return {
            "gold_dialogues": len(self.gold),
            "gold_turns": self.n_turns,
            "missing_dialogues": len(self.missing_dialogues),
            "extra_dialogues": len(self.extra_dialogues),
            "missing_turns": self.n_missing_turns,
            "extra_turns": self.n_extra_turns,
            "coverage": self.coverage,
            "issues": len(self.issues),
        }


def align(gold: GoldSet, predictions: PredictionSet, *, strict: bool = False) -> Alignment:
    """Pair gold turns with predicted turns; report missing/extra dialogues and turns."""
    source = predictions.source
    issues: list[Issue] = list(predictions.issues)
    pairs: list[tuple[GoldTurn, PredTurn | None]] = []
    missing: list[str] = []
    n_missing_turns = n_extra_turns = 0
    for dialogue in gold:
        pred_turns = predictions.get(dialogue.dialogue_id)
        if pred_turns is None:
            missing.append(dialogue.dialogue_id)
            n_missing_turns += len(dialogue.turns)
            pairs.extend((turn, None) for turn in dialogue.turns)
            continue
        n_gold, n_pred = len(dialogue.turns), len(pred_turns)
        if n_gold != n_pred:
            issues.append(Issue(
                "turn_count_mismatch",
                f"{n_pred} predicted turns for {n_gold} gold turns"
                + (f"; turns {n_pred}..{n_gold - 1} are missing" if n_pred < n_gold
                   else f"; turns {n_gold}..{n_pred - 1} are extra and ignored"),
                file=source, dialogue=dialogue.dialogue_id,
                turn=min(n_gold, n_pred), severity="error" if strict else "warning",
            ))
            n_missing_turns += max(0, n_gold - n_pred)
            n_extra_turns += max(0, n_pred - n_gold)
        for i, turn in enumerate(dialogue.turns):
            pairs.append((turn, pred_turns[i] if i < n_pred else None))

    gold_keys = {dialogue_key(d.dialogue_id) for d in gold}
    extra = sorted(d for d in predictions.dialogues if dialogue_key(d) not in gold_keys)
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        issues.append(Issue(
            "missing_dialogues",
            f"{len(missing)} of {len(gold)} gold dialogues have no prediction and are "
            f"scored as wrong: {shown}",
            file=source, severity="error" if strict else "warning",
        ))
    if extra:
        shown = ", ".join(extra[:5]) + (", ..." if len(extra) > 5 else "")
        issues.append(Issue(
            "extra_dialogues",
            f"{len(extra)} predicted dialogues are not in the gold data and are ignored: {shown}",
            file=source, dialogue=extra[0], severity="error" if strict else "warning",
        ))
    result = Alignment(gold, predictions, pairs, issues, missing, extra,
                       n_missing_turns, n_extra_turns)
    if strict and issues:
        first = issues[0]
        more = f" (and {len(issues) - 1} more problems)" if len(issues) > 1 else ""
        raise PredictionError(first.message + more, file=first.file or source,
                              dialogue=first.dialogue, turn=first.turn)
    return result
