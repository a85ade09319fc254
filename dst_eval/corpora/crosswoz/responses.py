"""CrossWOZ response metrics: BLEU (``zh``; ``jieba`` variant) and the entity inform rate.

CrossWOZ has no official context-to-response scorer (SCORERS.md §4: its NLG scripts map
acts to text with act-grouped references, and no static Inform/Success exists). Reported:

* ``bleu`` -- sacrebleu corpus BLEU with the corpus config's ``tokenizer`` (``zh``: one token
  per CJK character), 0-100: the default for Chinese (§9);
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
occur in their gold response). The acts are ``GoldTurn.system_annotations["acts"]``, filled
by :mod:`dst_eval.corpora.crosswoz.loader` (original and GEM layouts); when a scored gold turn has
none (gold built in memory without them) the rate is n/a.

Inform/Success and the combined score are n/a: CrossWOZ defines no context-to-response
Inform/Success (ConvLab/ConvLab-3#15). Missing and bad responses: see
:mod:`dst_eval.corpora.sgd.responses`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dst_eval import corpora
from dst_eval.alignment import Alignment
from dst_eval.corpora.sgd.responses import (
    PrefixedBleuMetric,
    bleu_columns,
    bleu_note,
    collect_responses,
    nothing_to_score,
    response_table,
)
from dst_eval.gold import GoldTurn
from dst_eval.metrics.bleu import corpus_bleu_from_stats, segment_statistics
from dst_eval.metrics.entity_inform import (
    EntityInformRate,
    entity_inform_counts,
    reference_entities,
)
from dst_eval.normalize import Normalizer
from dst_eval.options import EvalOptions
from dst_eval.responses import ResponseResources
from dst_eval.result import Result

BLEU_VARIANTS: dict[str, str | None] = {"bleu": None, "bleu_jieba": "jieba"}
"""Score name -> tokenizer (both sides); None: the corpus config's ``tokenizer``."""
ENTITY_ACTS = frozenset({"Inform", "Recommend"})
NOT_ENTITIES = frozenset({"", "none", "是", "否", "有", "无"})
ENTITY_NORMALISATION = "nfkc+despace+lower"
NO_INFORM_SUCCESS = ("CrossWOZ defines no context-to-response inform/success "
                     "(ConvLab/ConvLab-3#15); see entity_inform_rate")

_NORM = Normalizer(ENTITY_NORMALISATION)

ACTS_KEY = "acts"
"""``GoldTurn.system_annotations`` key of the answering system message's dialogue acts."""


def _norm(text: str) -> str:
    return _NORM("", text)


def system_acts(turns: Sequence[GoldTurn]) -> list[tuple[tuple[str, ...], ...]] | None:
    """The dialogue acts of the system message answering each turn, or None when some
    turn has no ``system_annotations["acts"]``."""
    acts = [turn.system_annotations.get(ACTS_KEY) for turn in turns]
    if any(a is None for a in acts):
        return None
    return acts


def turn_entities(acts: tuple[tuple[str, ...], ...], reference: str) -> tuple[str, ...]:
    """The entities of one gold turn (module docstring), normalised."""
    values = (_norm(act[3]) for act in acts if len(act) >= 4 and act[0] in ENTITY_ACTS)
    return reference_entities((v for v in values if v not in NOT_ENTITIES), _norm(reference))


def score(alignment: Alignment, options: EvalOptions, result: Result | None = None, *,
          resources: ResponseResources) -> Result:
    """BLEU (zh, jieba) and entity inform rate of CrossWOZ responses (module docstring)."""
    collected = collect_responses(alignment, options)
    metric_names = [*BLEU_VARIANTS, "entity_inform_rate"]
    not_applicable = dict.fromkeys(("inform", "success", "combined"), NO_INFORM_SUCCESS)
    empty = nothing_to_score(collected, metric_names, result, not_applicable=not_applicable)
    if empty is not None:
        return empty
    ids = collected.dialogue_ids
    hyps, refs = collected.hypotheses, collected.references
    scores: dict[str, float] = {}
    columns: dict[str, np.ndarray] = {}
    metrics = []
    signature_fields = {"bleu": "corpus"}
    notes = []
    for name, variant in BLEU_VARIANTS.items():
        tokenizer = variant or corpora.get(alignment.gold.corpus).tokenizer
        signature = corpora.tokenizer(tokenizer).signature()  # a missing library: exit 2
        stats = segment_statistics(hyps, refs, tokenize=tokenizer)
        prefix = "" if name == "bleu" else f"{name}:"
        scores[name] = corpus_bleu_from_stats(stats)
        columns |= bleu_columns(stats, ids, prefix)
        metrics.append(PrefixedBleuMetric(name=name, prefix=prefix))
        key = "tok" if name == "bleu" else f"tok-{name.removeprefix('bleu_')}"
        signature_fields[key] = signature
        notes.append(bleu_note(name, stats))

    counts = dict(collected.counts)
    acts = system_acts(collected.turns)
    if acts is None:
        lacking = sum(ACTS_KEY not in t.system_annotations for t in collected.turns)
        not_applicable["entity_inform_rate"] = (
            f"needs the gold system dialogue acts (GoldTurn.system_annotations['{ACTS_KEY}'], "
            f"filled by the CrossWOZ loader); {lacking} of {len(collected.turns)} scored gold "
            "turns have none")
    else:
        entities = [turn_entities(turn_acts, turn.system_response or "")
                    for turn, turn_acts in zip(collected.turns, acts, strict=True)]
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
    return (result or Result()).add(
        scores=scores,
        signature_fields=signature_fields,
        not_applicable=not_applicable,
        notes=notes + collected.notes,
        counts={"responses": {**counts, "dialogues": len(set(ids))}},
        table=response_table(columns, ids),
        metric_objects=[m for m in metrics if m.name in scores],
    )
