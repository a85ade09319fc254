"""JMultiWOZ response metrics: the official mean sentence BLEU and corpus BLEU (MeCab + IPAdic).

SCORERS.md §6 and §9. Reference of gold turn i = the SYSTEM utterance of that turn
(``GoldTurn.system_response``); hypothesis = the aligned ``PredTurn.response``.

* ``bleu_sentence_mean`` -- the official ``evaluate.py`` number: mean over turns of sacrebleu
  ``sentence_bleu(hyp, [ref], tokenize="ja-mecab")`` (effective order, exp smoothing),
  0-100. Computed exactly as the ``official`` DST profile's ``response_bleu``
  (:mod:`dst_eval.profiles.jmultiwoz_official`), so the two numbers are identical.
* ``bleu_corpus`` -- sacrebleu corpus BLEU on the same MeCab/IPAdic tokens (``eff:no``),
  0-100. Named differently on purpose: the two aggregates are not comparable.

Both use the corpus config's ``tokenizer`` (``ja-mecab-ipadic``, the official script's) and
carry ``tok:ja-mecab-<MeCab version>-IPA``. The official script inner-joins predictions
with the reference (missing turns silently dropped): ``missing="skip"`` reproduces that,
``"wrong"`` (default) scores them as empty responses. JMultiWOZ's official evaluation has
no Inform/Success, so ``inform``, ``success`` and ``combined`` are n/a. Bad responses: see
:mod:`dst_eval.corpora.sgd.responses`.
"""

from __future__ import annotations

import numpy as np

from dst_eval import corpora
from dst_eval.alignment import Alignment
from dst_eval.corpora.sgd.responses import (
    PrefixedBleuMetric,
    RatioMetric,
    bleu_columns,
    bleu_note,
    collect_responses,
    nothing_to_score,
    response_table,
)
from dst_eval.metrics.bleu import (
    corpus_bleu_from_stats,
    segment_statistics,
    sentence_bleu_from_stats,
)
from dst_eval.options import EvalOptions
from dst_eval.responses import ResponseResources
from dst_eval.result import Result

NO_INFORM_SUCCESS = ("JMultiWOZ's official evaluate.py reports no inform/success (JGA, slot "
                     "F1 and BLEU only)")


def score(alignment: Alignment, options: EvalOptions, result: Result | None = None, *,
          resources: ResponseResources) -> Result:
    """Mean sentence BLEU (official) and corpus BLEU, ja-mecab IPAdic (module docstring)."""
    collected = collect_responses(alignment, options)
    names = ["bleu_sentence_mean", "bleu_corpus"]
    not_applicable = dict.fromkeys(("inform", "success", "combined"), NO_INFORM_SUCCESS)
    empty = nothing_to_score(collected, names, result, not_applicable=not_applicable)
    if empty is not None:
        return empty
    ids = collected.dialogue_ids
    tokenize = corpora.get(alignment.gold.corpus).tokenizer
    tokenizer = corpora.tokenizer(tokenize).signature()  # a missing library: exit 2
    stats = segment_statistics(collected.hypotheses, collected.references, tokenize=tokenize)
    sentence = sentence_bleu_from_stats(stats)
    columns = bleu_columns(stats, ids, "")
    columns["sentence_bleu"] = sentence
    columns["segments"] = np.ones(len(sentence))
    return (result or Result()).add(
        scores={"bleu_sentence_mean": float(sentence.mean()),
                "bleu_corpus": corpus_bleu_from_stats(stats)},
        signature_fields={"bleu": "sentence-mean", "tok": tokenizer,
                          "bleu-corpus": "corpus", "missing": options.missing},
        not_applicable=not_applicable,
        official={"response_bleu": float(sentence.mean()), "count": len(sentence)},
        notes=[bleu_note("bleu_sentence_mean", stats, "sentence-mean"),
               bleu_note("bleu_corpus", stats), *collected.notes],
        counts={"responses": {**collected.counts, "dialogues": len(set(ids))}},
        table=response_table(columns, ids),
        metric_objects=[RatioMetric("bleu_sentence_mean", "sentence_bleu", "segments"),
                        PrefixedBleuMetric(name="bleu_corpus", prefix="")],
    )
