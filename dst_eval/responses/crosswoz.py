"""CrossWOZ response metrics: BLEU (``zh``; ``jieba`` variant) and the entity inform rate.

CrossWOZ has no official context-to-response scorer (SCORERS.md §4: its NLG scripts map
acts to text with act-grouped references, and no static Inform/Success exists). Reported:

* ``bleu`` -- sacrebleu corpus BLEU with the ``zh`` tokenizer (one token per CJK character),
  0-100: the default for Chinese (§9);
* ``bleu_jieba`` -- corpus BLEU on ``jieba.lcut`` words (HMM on, whitespace tokens dropped),
  both sides, the ConvLab-2 CrossWOZ NLG tokenisation; labelled ``tok:jieba-<version>``;
* ``entity_inform_rate`` (GEM card: "how many entities in the gold response appear in the
  generated response"), :mod:`dst_eval.metrics.entity_inform`, fraction in [0, 1].

**Entity** of gold turn i: the value v of a dialogue act ``[Inform|Recommend, domain, slot,
v]`` of the gold system message that answers user turn i, such that norm(v) is not empty,
``none``, or a yes/no flag (``是 否 有 无``: hotel facilities) and occurs in norm(gold
response); distinct values per turn. norm = NFKC, whitespace removed, lower-case (the
``nfkc+despace+lower`` policy of :mod:`dst_eval.normalize`), applied to the generated
response too; an entity is found when norm(v) is a substring of it. Rate = Σ found / Σ
entities over the scored turns (on the CrossWOZ test split 6,493 of the 6,742 act values
occur in their gold response). The acts are not part of the canonical gold model, so they
are re-read from the gold file (``GoldSet.source``, original or GEM layout); with in-memory
gold the rate is n/a.

Inform/Success and the combined score are n/a: CrossWOZ defines no context-to-response
Inform/Success (ConvLab/ConvLab-3#15). Missing and bad responses: see
:mod:`dst_eval.responses.sgd`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..alignment import Alignment
from ..errors import GoldDataError
from ..gold import GoldSet
from ..loaders import crosswoz as crosswoz_loader
from ..metrics.bleu import corpus_bleu_from_stats, segment_statistics
from ..metrics.entity_inform import EntityInformRate, entity_inform_counts, reference_entities
from ..metrics.tokenizers import get_tokenizer
from ..normalize import Normalizer
from ..profiles import ScoreOptions
from . import ResponseResources, ResponseResult
from .sgd import (
    PrefixedBleuMetric,
    bleu_columns,
    bleu_note,
    collect_responses,
    no_responses_result,
    response_table,
)

BLEU_VARIANTS = {"bleu": "zh", "bleu_jieba": "jieba"}
"""Score name -> tokenizer (both sides)."""
ENTITY_ACTS = frozenset({"Inform", "Recommend"})
NOT_ENTITIES = frozenset({"", "none", "是", "否", "有", "无"})
ENTITY_NORMALISATION = "nfkc+despace+lower"
NO_INFORM_SUCCESS = ("CrossWOZ defines no context-to-response inform/success "
                     "(ConvLab/ConvLab-3#15); see entity_inform_rate")

_NORM = Normalizer(ENTITY_NORMALISATION)

SystemActs = Mapping[str, Mapping[int, tuple[tuple[str, ...], ...]]]
"""dialogue id -> system message index -> its acts ``(intent, domain, slot, value)``."""


def _norm(text: str) -> str:
    return _NORM("", text)


@lru_cache(maxsize=2)
def _read_system_acts(source: str, mtime: float) -> SystemActs:
    data = crosswoz_loader.read_records(Path(source))
    acts: dict[str, dict[int, tuple[tuple[str, ...], ...]]] = {}
    for dialogue_id, record, _gem in crosswoz_loader._iter_records(data, source):
        messages = crosswoz_loader._messages(record, dialogue_id=dialogue_id, source=source)
        acts[dialogue_id] = {
            index: tuple(tuple(str(part) for part in act[:4]) for act in crosswoz_loader._acts(
                message, source=source, dialogue_id=dialogue_id, turn=index))
            for index, message in enumerate(messages) if message.get("role") == "sys"}
    return acts


def system_acts(gold: GoldSet) -> SystemActs | None:
    """The gold system messages' dialogue acts, re-read from ``gold.source``; None when the
    gold did not come from a readable CrossWOZ file."""
    path = Path(gold.source)
    if not path.is_file():
        return None
    return _read_system_acts(str(path), path.stat().st_mtime)


def turn_entities(acts: tuple[tuple[str, ...], ...], reference: str) -> tuple[str, ...]:
    """The entities of one gold turn (module docstring), normalised."""
    values = (_norm(act[3]) for act in acts if len(act) >= 4 and act[0] in ENTITY_ACTS)
    return reference_entities((v for v in values if v not in NOT_ENTITIES), _norm(reference))


def score(alignment: Alignment, options: ScoreOptions, *, resources: ResponseResources,
          profile: str = "strict") -> ResponseResult:
    """BLEU (zh, jieba) and entity inform rate of CrossWOZ responses (module docstring)."""
    collected = collect_responses(alignment, options)
    metric_names = [*BLEU_VARIANTS, "entity_inform_rate"]
    not_applicable = dict.fromkeys(("inform", "success", "combined"), NO_INFORM_SUCCESS)
    if not collected.turns or not collected.any_response:
        result = no_responses_result(collected, metric_names, "no scored turn has a response"
                                     if collected.turns else "no gold turn is scored")
        result.not_applicable.update(not_applicable)
        return result
    ids = collected.dialogue_ids
    hyps, refs = collected.hypotheses, collected.references
    scores: dict[str, float] = {}
    columns: dict[str, np.ndarray] = {}
    metrics = []
    signature_fields = {"bleu": "corpus"}
    notes = []
    for name, tokenizer in BLEU_VARIANTS.items():
        stats = segment_statistics(hyps, refs, tokenize=tokenizer)
        prefix = "" if name == "bleu" else f"{name}:"
        scores[name] = corpus_bleu_from_stats(stats)
        columns |= bleu_columns(stats, ids, prefix)
        metrics.append(PrefixedBleuMetric(name=name, prefix=prefix))
        key = "tok" if name == "bleu" else f"tok-{name.removeprefix('bleu_')}"
        signature_fields[key] = get_tokenizer(tokenizer).signature()
        notes.append(bleu_note(name, stats))

    counts = dict(collected.counts)
    try:
        acts = system_acts(alignment.gold)
    except GoldDataError as exc:
        acts = None
        notes.append(f"entity_inform_rate: cannot re-read the gold system acts ({exc})")
    if acts is None:
        not_applicable["entity_inform_rate"] = (
            "needs the gold system dialogue acts, read from the CrossWOZ gold file; the gold "
            "data was not loaded from one")
    else:
        entities = [turn_entities(acts.get(turn.dialogue_id, {}).get(
                        (turn.raw_turn_index or 0) + 1, ()), turn.system_response or "")
                    for turn in collected.turns]
        found, total = entity_inform_counts(entities, [_norm(h) for h in hyps])
        columns["entity_found"], columns["entity_total"] = found, total
        metric = EntityInformRate()
        metrics.append(metric)
        if total.sum():
            scores["entity_inform_rate"] = float(found.sum() / total.sum())
        else:
            not_applicable["entity_inform_rate"] = "no scored gold response holds an entity"
        counts["entities"] = int(total.sum())
        counts["entities_found"] = int(found.sum())
        signature_fields["entity"] = f"act-values-{ENTITY_NORMALISATION}"
    signature_fields["missing"] = options.missing
    return ResponseResult(
        scores=scores,
        signature_fields=signature_fields,
        not_applicable=not_applicable,
        notes=notes + collected.notes,
        counts={**counts, "dialogues": len(set(ids))},
        table=response_table(columns, ids),
        metric_objects=[m for m in metrics if m.name in scores],
    )
