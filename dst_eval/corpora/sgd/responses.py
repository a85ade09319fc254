"""SGD response metrics: corpus BLEU (sacrebleu ``13a``) of the system responses.

The reference of gold turn i is the system utterance that follows user turn i
(``GoldTurn.system_response``); the hypothesis is the aligned ``PredTurn.response``.
BLEU = sacrebleu ``corpus_bleu`` defaults (``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp``),
0-100. SGD defines no Inform/Success: the official scorer evaluates dialogue state
tracking only and the corpus has no entity database or goal-based success criterion, so
``inform``, ``success`` and ``combined`` are reported as not applicable.

This module also holds the plumbing shared with the CrossWOZ, RiSAWOZ and JMultiWOZ
modules: :func:`collect_responses` (missing turns and bad responses), BLEU columns under a
prefix (:func:`bleu_columns`, :class:`PrefixedBleuMetric`), :class:`RatioMetric` and
:func:`response_table` (one :class:`~dst_eval.metrics.base.TurnTable` per run, so
dialogue-level bootstrap covers every response metric).

Missing and bad responses (every corpus module):

* ``missing="wrong"`` (default): a gold turn without a prediction is scored with the empty
  hypothesis ``""``; ``"skip"``: it is dropped (the official scorers' silent behaviour).
* a predicted turn whose ``response`` is ``None`` (absent), not a string (``5``, a list), or
  empty/whitespace is scored as ``""``; each kind is counted (``counts``) and reported
  once in ``notes`` with the first place. Nothing raises.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from dst_eval import corpora
from dst_eval.alignment import Alignment
from dst_eval.gold import GoldTurn
from dst_eval.metrics.base import Metric, TurnTable, ratio
from dst_eval.metrics.bleu import BleuStats, corpus_bleu_from_stats, segment_statistics
from dst_eval.metrics.resampling import BleuMetric, bleu_table
from dst_eval.metrics.tokenizers import get_tokenizer
from dst_eval.options import EvalOptions
from dst_eval.responses import ResponseResources
from dst_eval.result import Result

NO_INFORM_SUCCESS = ("SGD defines no inform/success: its official scorer evaluates dialogue "
                     "state tracking only and the corpus has no entity database or goal-based "
                     "success criterion")

_BAD_KINDS = {
    "missing_turns": "gold turns have no prediction; scored as the empty response",
    "no_response": "predicted turns have no response (null or absent); scored as empty",
    "non_string_response": "predicted turns have a response that is not a string; scored "
                           "as empty",
    "empty_response": "predicted turns have an empty or whitespace-only response",
}


@dataclass
class CollectedResponses:
    """The scored turns in gold order with their hypotheses (bad ones already emptied)."""

    turns: list[GoldTurn]
    hypotheses: list[str]
    predicted: list[bool]
    """Whether the turn has a prediction at all (False: missing, scored as ``""``)."""
    counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def references(self) -> list[str]:
        return [turn.system_response or "" for turn in self.turns]

    @property
    def dialogue_ids(self) -> list[str]:
        return [turn.dialogue_id for turn in self.turns]

    @property
    def any_response(self) -> bool:
        return self.counts.get("responses", 0) > 0


def _kind_name(value: object) -> str:
    return "a list" if isinstance(value, list | tuple) else type(value).__name__


def collect_responses(alignment: Alignment, options: EvalOptions) -> CollectedResponses:
    """Hypothesis per scored gold turn, following ``options.missing``; bad responses become
    ``""`` and are counted and noted (module docstring)."""
    out = CollectedResponses([], [], [])
    counts = dict.fromkeys((*_BAD_KINDS, "responses", "dropped_turns"), 0)
    first: dict[str, str] = {}
    for gold, pred in alignment.pairs:
        place = f"dialogue {gold.dialogue_id} turn {gold.turn_index}"
        if pred is None:
            if options.missing == "skip":
                counts["dropped_turns"] += 1
                continue
            kind, hypothesis = "missing_turns", ""
        else:
            response = pred.response
            if response is None:
                kind, hypothesis = "no_response", ""
            elif not isinstance(response, str):
                kind, hypothesis = "non_string_response", ""
                place += f" ({_kind_name(response)})"
            else:
                counts["responses"] += 1
                kind, hypothesis = ("empty_response" if not response.strip() else None), response
        if kind is not None:
            counts[kind] += 1
            first.setdefault(kind, place)
        out.turns.append(gold)
        out.hypotheses.append(hypothesis)
        out.predicted.append(pred is not None)
    for kind, text in _BAD_KINDS.items():
        if counts[kind]:
            out.notes.append(f"{counts[kind]} {text} (first: {first[kind]})")
    if counts["dropped_turns"]:
        out.notes.append(f"{counts['dropped_turns']} gold turns without a prediction are not "
                         "scored (--missing skip)")
    out.counts = {k: v for k, v in counts.items() if v or k == "responses"}
    out.counts["scored_turns"] = len(out.turns)
    return out


# ---- BLEU and ratio metrics over one shared table -----------------------------------------
def bleu_columns(stats: BleuStats, dialogue_ids: Sequence[str], prefix: str
                 ) -> dict[str, np.ndarray]:
    """:func:`~dst_eval.metrics.resampling.bleu_table` columns renamed ``prefix + name``."""
    return {prefix + name: column
            for name, column in bleu_table(stats, dialogue_ids).columns.items()}


class PrefixedBleuMetric(BleuMetric):
    """:class:`~dst_eval.metrics.resampling.BleuMetric` reading ``prefix``-named columns, so
    several BLEU variants (tokenisations) share one table."""

    def __init__(self, *, name: str, prefix: str, **options) -> None:
        super().__init__(name=name, **options)
        self.prefix = prefix
        self._plain = self.columns
        self.columns = tuple(prefix + column for column in self._plain)

    def from_sums(self, sums: Mapping[str, np.ndarray | float]) -> np.ndarray | float:
        return super().from_sums({column: sums[self.prefix + column] for column in self._plain})


class RatioMetric(Metric):
    """Σ numerator / Σ denominator over the table's rows (NaN when the denominator is 0)."""

    def __init__(self, name: str, numerator: str, denominator: str) -> None:
        self.name = name
        self.columns = (numerator, denominator)

    def from_sums(self, sums: Mapping[str, np.ndarray | float]) -> np.ndarray | float:
        return ratio(sums[self.columns[0]], sums[self.columns[1]])


def response_table(columns: Mapping[str, np.ndarray], dialogue_ids: Sequence[str]) -> TurnTable:
    """One row per scored turn; ``dialogue_ids[i]`` the dialogue of row i (rows of a
    dialogue consecutive), numbered in first-seen order like ``bleu_table``."""
    numbers: dict[str, int] = {}
    index = np.fromiter((numbers.setdefault(d, len(numbers)) for d in dialogue_ids),
                        dtype=np.int64, count=len(dialogue_ids))
    return TurnTable({k: np.asarray(v, dtype=np.float64) for k, v in columns.items()},
                     index, list(numbers))


def first_rows(dialogue_ids: Sequence[str]) -> np.ndarray:
    """Boolean mask of each dialogue's first row (where per-dialogue columns are stored)."""
    seen: set[str] = set()
    mask = np.zeros(len(dialogue_ids), dtype=bool)
    for i, dialogue in enumerate(dialogue_ids):
        if dialogue not in seen:
            seen.add(dialogue)
            mask[i] = True
    return mask


def no_responses_result(collected: CollectedResponses, metrics: Sequence[str],
                        reason: str = "the predictions carry no responses",
                        result: Result | None = None, *,
                        not_applicable: Mapping[str, str] | None = None) -> Result:
    """Every metric n/a (``metrics`` for ``reason``, then ``not_applicable``): nothing to
    score."""
    return (result or Result()).add(
        not_applicable={**dict.fromkeys(metrics, reason), **(not_applicable or {})},
        notes=list(collected.notes),
        counts={"responses": dict(collected.counts)} if collected.counts else None)


def nothing_to_score(collected: CollectedResponses, metrics: Sequence[str],
                     result: Result | None = None, *,
                     not_applicable: Mapping[str, str] | None = None) -> Result | None:
    """The all-n/a result when no gold turn is scored or no scored turn has a response
    (:func:`no_responses_result` with that reason); None when there is something to score."""
    if collected.turns and collected.any_response:
        return None
    reason = "no scored turn has a response" if collected.turns else "no gold turn is scored"
    return no_responses_result(collected, metrics, reason, result,
                               not_applicable=not_applicable)


def bleu_note(name: str, stats: BleuStats, aggregate: str = "corpus") -> str:
    return f"{name}: {stats.signature(aggregate=aggregate)}"


# ---- SGD ---------------------------------------------------------------------------------
def score(alignment: Alignment, options: EvalOptions, result: Result | None = None, *,
          resources: ResponseResources) -> Result:
    """BLEU (13a, corpus) of SGD system responses; inform/success n/a (module docstring)."""
    collected = collect_responses(alignment, options)
    not_applicable = dict.fromkeys(("inform", "success", "combined"), NO_INFORM_SUCCESS)
    empty = nothing_to_score(collected, ["bleu"], result, not_applicable=not_applicable)
    if empty is not None:
        return empty
    ids = collected.dialogue_ids
    tokenize = corpora.get(alignment.gold.corpus).tokenizer  # configs/sgd.toml: 13a
    stats = segment_statistics(collected.hypotheses, collected.references, tokenize=tokenize)
    metric = PrefixedBleuMetric(name="bleu", prefix="")
    table = response_table(bleu_columns(stats, ids, ""), ids)
    return (result or Result()).add(
        scores={"bleu": corpus_bleu_from_stats(stats)},
        signature_fields={"bleu": "corpus", "tok": get_tokenizer(tokenize).signature(),
                          "missing": options.missing},
        not_applicable=not_applicable,
        notes=[bleu_note("bleu", stats), *collected.notes],
        counts={"responses": {**collected.counts, "dialogues": len(set(ids))}},
        table=table,
        metric_objects=[metric],
    )
