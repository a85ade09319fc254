"""``dst_eval.evaluate``: score predictions against gold in one call.

>>> from dst_eval import evaluate
>>> result = evaluate("predictions.json", gold="gold_samples/multiwoz22")  # doctest: +SKIP
>>> result.scores["joint_goal_accuracy"], str(result.signature)            # doctest: +SKIP

The pipeline (``docs/architecture.md``): options (validated once, before any file is
opened) -> gold -> predictions -> alignment -> the profile fills a :class:`Result` ->
the corpus response scorer fills the same :class:`Result` -> optional bootstrap intervals.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dst_eval.errors import UsageError
from dst_eval.gold import GoldSet
from dst_eval.options import EvalOptions
from dst_eval.predictions.model import PredictionSet
from dst_eval.result import Result
from dst_eval.signature import Signature

Predictions = str | Path | PredictionSet | Mapping | list


def as_gold(gold: str | Path | GoldSet | None, options: EvalOptions) -> GoldSet:
    """``gold`` as a :class:`GoldSet` (loaded with ``options.corpus``/``options.split``),
    checked against ``options.corpus``."""
    if isinstance(gold, GoldSet):
        gold_set = gold
    elif gold is None:
        raise UsageError("no gold data: pass --gold PATH (a corpus file or directory)")
    else:
        from dst_eval.corpora import load_gold

        gold_set = load_gold(gold, corpus=options.corpus, split=options.split)
    corpus = options.corpus
    from dst_eval import corpora

    if corpus and not corpora.get(corpus).accepts(gold_set.corpus):
        raise UsageError(f"--corpus {corpus} does not match the gold data ({gold_set.corpus})")
    return gold_set


def as_predictions(predictions: Predictions, corpus: str, options: EvalOptions) -> PredictionSet:
    """``predictions`` (a path, an in-memory mapping/list or a :class:`PredictionSet`) read
    in ``options.pred_format`` (detected when None)."""
    from dst_eval.predictions import reader

    if isinstance(predictions, PredictionSet):
        return predictions
    if isinstance(predictions, str | Path):
        return reader.read_predictions(predictions, pred_format=options.pred_format,
                                       corpus=corpus)
    if isinstance(predictions, Mapping | list):
        return reader.predictions_from_object(predictions, source="<memory>",
                                              pred_format=options.pred_format, corpus=corpus)
    raise UsageError(f"cannot read predictions from a {type(predictions).__name__}")


def resolve_options(options: EvalOptions | None, overrides: Mapping[str, Any]) -> EvalOptions:
    """``options`` (default: all defaults) with keyword ``overrides``; a bad value or an
    unknown name is a :class:`UsageError`."""
    if options is not None and not isinstance(options, EvalOptions):
        raise UsageError(f"options must be an EvalOptions, not a {type(options).__name__}")
    return (options or EvalOptions()).replace(**overrides)


def resolve_seed(options: EvalOptions) -> int | None:
    """The bootstrap seed: the option, else ``$DST_EVAL_SEED``/``$SACREBLEU_SEED``, else
    12345; ``"none"`` = unseeded (None)."""
    from dst_eval.metrics.resampling import parse_seed, seed_from_env

    if options.seed is not None:
        return parse_seed(options.seed)
    try:
        return seed_from_env()
    except ValueError as exc:
        raise UsageError(f"resampling seed from the environment: {exc}") from None


def evaluate(predictions: Predictions, *, gold: str | Path | GoldSet,
             options: EvalOptions | None = None, **overrides: Any) -> Result:
    """Score ``predictions`` against ``gold`` and return a :class:`~dst_eval.result.Result`.

    ``predictions`` is a path (JSON, JSONL, SGD-style directory), an in-memory mapping in
    one of those layouts or a :class:`PredictionSet`; ``gold`` a corpus path or a loaded
    :class:`GoldSet`. ``options`` is an :class:`~dst_eval.options.EvalOptions`;
    ``overrides`` are its field names (``profile="mwzeval"``, ``missing="skip"``, ``by=
    ("domain",)``, ``bootstrap=1000``, ...) and replace its values. Every option is
    validated before any file is read; a bad one raises :class:`UsageError`.

    The profile defaults to the corpus's (``strict``). When the predictions carry
    responses, the corpus's response metrics (BLEU, and Inform/Success where the corpus
    defines them) are recorded in the same result; ``db``, ``goals``, ``references`` and
    ``gold_states`` locate the resources they need (see ``dst_eval.responses``).
    """
    options = resolve_options(options, overrides)
    seed = resolve_seed(options) if options.bootstrap else None
    gold_set = as_gold(gold, options)
    from dst_eval.config import corpus_config
    from dst_eval.profiles import get_profile

    profile = options.profile or corpus_config(gold_set.corpus).default_profile
    score = get_profile(profile, gold_set.corpus)
    options = options.replace(profile=profile)
    prediction_set = as_predictions(predictions, gold_set.corpus, options)
    from dst_eval.alignment import align

    alignment = align(gold_set, prediction_set, strict=options.strict)
    result = Result(signature=Signature(gold_set.corpus, gold_set.split, profile),
                    issues=alignment.issues, coverage=alignment.summary(),
                    gold_source=gold_set.source, predictions_source=prediction_set.source,
                    turns=alignment.pairs)
    if prediction_set.has_states:
        score(alignment, options, result)
    else:
        result.add(notes=["DST: n/a (the predictions carry no states)"])
    from dst_eval.responses import ResponseResources, has_responses, score_responses

    if has_responses(alignment):
        resources = ResponseResources(db=options.db, goals=options.goals,
                                      references=options.references,
                                      gold_states=options.gold_states,
                                      gold_path=Path(gold_set.source))
        score_responses(alignment, options, result, resources=resources)
    result.keep_metrics(options.metrics)  # --metrics limits response metrics too
    if options.bootstrap:
        from dst_eval.significance import add_bootstrap

        add_bootstrap(result, options.bootstrap, seed)
    return result
