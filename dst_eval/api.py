"""``dst_eval.evaluate``: score predictions against gold in one call.

>>> from dst_eval import evaluate
>>> report = evaluate("predictions.json", gold="gold_samples/multiwoz22")  # doctest: +SKIP
>>> report.scores["joint_goal_accuracy"], str(report.signature)            # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from dst_eval import corpora
from dst_eval.alignment import align
from dst_eval.config import corpus_config
from dst_eval.corpora import load_gold
from dst_eval.errors import UsageError
from dst_eval.gold import GoldSet
from dst_eval.predictions.model import PredictionSet
from dst_eval.predictions.reader import PrefetchedPredictions, prefetch_predictions
from dst_eval.profiles import ProfileResult, ScoreOptions, get_profile
from dst_eval.report import Report
from dst_eval.responses import ResponseResources, ResponseResult, has_responses, score_responses
from dst_eval.signature import Signature

_retained: list | None = None
"""Set to a list by a process that ends with ``os._exit`` (the ``dst-eval`` command):
:func:`evaluate` then keeps its gold, predictions and alignment there instead of freeing
their million-odd objects one by one on return (a tenth of a second for SGD dev)."""

MISSING_POLICIES = ("wrong", "skip")
BREAKDOWNS = ("domain", "slot", "service", "seen", "depth")


def _path(value: str | Path | None) -> Path | None:
    return None if value is None else Path(value)


def merge_responses(report: Report, responses: ResponseResult) -> None:
    """Add response metrics to a report: scores after the DST ones, n/a with reasons."""
    report.scores.update(responses.scores)
    if responses.not_applicable:
        report.extra.setdefault("not_applicable", {}).update(responses.not_applicable)
        by_reason: dict[str, list[str]] = {}
        for name, why in responses.not_applicable.items():
            by_reason.setdefault(why, []).append(name)
        report.notes += [f"{', '.join(names)}: n/a ({why})" for why, names in by_reason.items()]
    for group, metrics in responses.groups.items():
        report.groups.setdefault(group, {}).update(metrics)
    if responses.official is not None:
        report.official = {**(report.official or {}), **responses.official}
    report.notes += responses.notes
    if responses.counts:
        report.counts["responses"] = responses.counts  # type: ignore[assignment]
    if responses.signature_fields:
        report.signature = report.signature.with_fields(**responses.signature_fields)
    if responses.table is not None and responses.metric_objects:
        report.extra_tables.append((responses.table, list(responses.metric_objects)))
    report.extra_tables += responses.tables


def _as_gold(gold: str | Path | GoldSet, corpus: str | None, split: str | None) -> GoldSet:
    if isinstance(gold, GoldSet):
        return gold
    if gold is None:
        raise UsageError("no gold data: pass --gold PATH (a corpus file or directory)")
    return load_gold(gold, corpus=corpus, split=split)


def _as_predictions(predictions: Any, corpus: str, pred_format: str | None) -> PredictionSet:
    from dst_eval.predictions import reader

    if isinstance(predictions, PredictionSet):
        return predictions
    if isinstance(predictions, PrefetchedPredictions):
        return reader.read_predictions(predictions.path, pred_format=predictions.pred_format,
                                       corpus=corpus, prefetched=predictions)
    if isinstance(predictions, str | Path):
        return reader.read_predictions(predictions, pred_format=pred_format, corpus=corpus)
    if isinstance(predictions, Mapping | list):
        return reader.predictions_from_object(predictions, source="<memory>",
                                              pred_format=pred_format, corpus=corpus)
    raise UsageError(f"cannot read predictions from a {type(predictions).__name__}")


def evaluate(
    predictions: str | Path | PredictionSet | PrefetchedPredictions | Mapping | list,
    *,
    gold: str | Path | GoldSet,
    corpus: str | None = None,
    split: str | None = None,
    profile: str | None = None,
    pred_format: str | None = None,
    strict: bool = False,
    missing: str = "wrong",
    metrics: Iterable[str] | None = None,
    by: Iterable[str] = (),
    dontcare: str = "value",
    normalisation: str | None = None,
    mwzeval_rules: str = "7f19ee0",
    bootstrap: int = 0,
    seed: int | str | None = None,
    db: str | Path | None = None,
    goals: str | Path | None = None,
    references: str | Path | None = None,
    gold_states: str | Path | None = None,
) -> Report:
    """Score ``predictions`` against ``gold`` and return a :class:`~dst_eval.report.Report`.

    ``predictions`` is a path (JSON, JSONL, SGD-style directory), an in-memory mapping
    in one of those layouts, a :class:`PredictionSet`, or a
    :func:`dst_eval.reader.prefetch_predictions` handle (closed here in any case).
    ``gold`` is a corpus path or a loaded :class:`GoldSet`. The profile defaults to the
    corpus's default (``strict``).
    ``missing="wrong"`` scores missing dialogues/turns as empty predictions;
    ``"skip"`` scores only what is present (the official scorers' behaviour).
    ``bootstrap=N`` adds dialogue-level 95 % confidence intervals from N resamples
    (``seed``: an int, ``"none"`` for unseeded, default ``$SACREBLEU_SEED`` or 12345).
    When the predictions carry responses, response metrics (BLEU, and Inform/Success where
    the corpus defines them) are added; ``db``, ``goals``, ``references`` and
    ``gold_states`` locate the corpus resources they need (see ``dst_eval.responses``).
    """
    if isinstance(predictions, str | Path) and not isinstance(gold, GoldSet):
        # an SGD-style directory is parsed by a worker process while the gold loads here
        predictions = prefetch_predictions(predictions, pred_format) or predictions
    try:
        return _evaluate(predictions, gold=gold, corpus=corpus, split=split, profile=profile,
                         pred_format=pred_format, strict=strict, missing=missing,
                         metrics=metrics, by=by, dontcare=dontcare,
                         normalisation=normalisation, mwzeval_rules=mwzeval_rules,
                         bootstrap=bootstrap, seed=seed, db=db, goals=goals,
                         references=references, gold_states=gold_states)
    finally:
        if isinstance(predictions, PrefetchedPredictions):
            predictions.close()  # stops the worker when the predictions were never read


def _evaluate(
    predictions: str | Path | PredictionSet | PrefetchedPredictions | Mapping | list,
    *,
    gold: str | Path | GoldSet,
    corpus: str | None,
    split: str | None,
    profile: str | None,
    pred_format: str | None,
    strict: bool,
    missing: str,
    metrics: Iterable[str] | None,
    by: Iterable[str],
    dontcare: str,
    normalisation: str | None,
    mwzeval_rules: str,
    bootstrap: int,
    seed: int | str | None,
    db: str | Path | None,
    goals: str | Path | None,
    references: str | Path | None,
    gold_states: str | Path | None,
) -> Report:
    if missing not in MISSING_POLICIES:
        raise UsageError(f"--missing must be one of {', '.join(MISSING_POLICIES)}")
    if mwzeval_rules not in ("7f19ee0", "cd3f0ee"):
        raise UsageError("--mwzeval-rules must be 7f19ee0 or cd3f0ee")
    if dontcare not in ("value", "ignore"):
        raise UsageError("--dontcare must be 'value' or 'ignore'")
    by = tuple(by)
    for kind in by:
        if kind not in BREAKDOWNS:
            raise UsageError(f"unknown breakdown {kind!r}; known: {', '.join(BREAKDOWNS)}")
    gold_set = _as_gold(gold, corpus, split)
    if corpus and not corpora.get(corpus).accepts(gold_set.corpus):
        raise UsageError(f"--corpus {corpus} does not match the gold data ({gold_set.corpus})")
    config = corpus_config(gold_set.corpus)
    profile_name = profile or config.default_profile
    score_fn = get_profile(profile_name, gold_set.corpus)
    prediction_set = _as_predictions(predictions, gold_set.corpus, pred_format)
    alignment = align(gold_set, prediction_set, strict=strict)
    options = ScoreOptions(missing=missing, metrics=tuple(metrics) if metrics else None, by=by,
                           dontcare=dontcare, normalisation=normalisation,
                           mwzeval_rules=mwzeval_rules)
    if prediction_set.has_states:
        result = score_fn(alignment, options)
    else:
        result = ProfileResult(scores={}, signature_fields={}, notes=[
            "DST: n/a (the predictions carry no states)"])
    report = Report(
        scores=dict(result.scores),
        signature=Signature(gold_set.corpus, gold_set.split, profile_name).with_fields(
            **result.signature_fields),
        groups=dict(result.groups),
        official=result.official,
        issues=alignment.issues,
        coverage=alignment.summary(),
        notes=list(result.notes),
        counts=dict(result.counts),
        per_turn=result.per_turn,
        gold_source=gold_set.source,
        predictions_source=prediction_set.source,
        table=result.table,
        metric_objects=result.metric_objects,
        outcomes=result.outcomes,
    )
    if _retained is not None:
        _retained.append((gold_set, prediction_set, alignment, result))
    if has_responses(alignment):
        resources = ResponseResources(
            db=_path(db), goals=_path(goals), references=_path(references),
            gold_states=_path(gold_states), gold_path=Path(gold_set.source))
        merge_responses(report, score_responses(alignment, options, resources=resources,
                                                profile=profile_name))
    if bootstrap:
        from dst_eval.metrics.resampling import parse_seed, seed_from_env
        from dst_eval.significance import add_bootstrap

        chosen = parse_seed(seed) if seed is not None else seed_from_env()
        report.signature = report.signature.with_fields(**add_bootstrap(report, bootstrap, chosen))
    return report
