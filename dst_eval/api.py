"""``dst_eval.evaluate``: score predictions against gold in one call.

>>> from dst_eval import evaluate
>>> result = evaluate("predictions.json", gold="gold_samples/multiwoz22")  # doctest: +SKIP
>>> result.scores["joint_goal_accuracy"], str(result.signature)            # doctest: +SKIP

The pipeline (``docs/architecture.md``): options (validated once, before any file is
opened) -> gold -> predictions -> alignment -> the profile fills a :class:`Result` ->
the corpus response scorer fills the same :class:`Result` -> optional bootstrap intervals.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dst_eval.errors import CoverageError, GoldDataError, PredictionError, UsageError
from dst_eval.gold import GoldSet
from dst_eval.options import DEFAULT_MIN_COVERAGE, MWZEVAL_RULES, EvalOptions
from dst_eval.predictions.model import Issue, PredictionSet
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

        try:
            gold_set = load_gold(gold, corpus=options.corpus, split=options.split)
        except OSError as exc:  # e.g. a folder that cannot be listed
            raise GoldDataError(f"cannot read: {exc.strerror or exc}",
                                file=exc.filename or str(gold)) from None
        except (zipfile.BadZipFile, zlib.error, NotImplementedError) as exc:  # a member
            # fails its CRC, or is compressed by a method zipfile cannot read, ...
            raise GoldDataError(f"corrupt or unreadable zip archive ({exc})",
                                file=str(gold)) from None
    corpus = options.corpus
    from dst_eval import corpora

    if corpus and not corpora.get(corpus).accepts(gold_set.corpus):
        raise UsageError(f"--corpus {corpus} does not match the gold data ({gold_set.corpus})")
    return gold_set


def as_predictions(predictions: Predictions, corpus: str, options: EvalOptions,
                   gold: GoldSet | None = None) -> PredictionSet:
    """``predictions`` (a path, an in-memory mapping/list or a :class:`PredictionSet`) read
    in ``options.pred_format`` (detected when None); with ``gold``, bound to it
    (:func:`dst_eval.predictions.bind.bind_to_gold`: order-aligned samples, the gold a
    system's file carries)."""
    from dst_eval.predictions import reader
    from dst_eval.predictions.bind import bind_to_gold

    if isinstance(predictions, PredictionSet):
        read = predictions
    elif isinstance(predictions, str | Path):
        try:
            read = reader.read_predictions(predictions, pred_format=options.pred_format,
                                           corpus=corpus)
        except OSError as exc:  # e.g. a folder that cannot be listed
            raise PredictionError(f"cannot read: {exc.strerror or exc}",
                                  file=exc.filename or str(predictions)) from None
        except (zipfile.BadZipFile, zlib.error, NotImplementedError) as exc:  # a member
            # fails its CRC, or is compressed by a method zipfile cannot read, ...
            raise PredictionError(f"corrupt or unreadable zip archive ({exc})",
                                  file=str(predictions)) from None
    elif isinstance(predictions, Mapping | list):
        read = reader.predictions_from_object(predictions, source="<memory>",
                                              pred_format=options.pred_format, corpus=corpus)
    else:
        raise UsageError(f"cannot read predictions from a {type(predictions).__name__}")
    return read if gold is None else bind_to_gold(read, gold)


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


def gold_digest(gold: GoldSet) -> str:
    """The first 8 hex digits of :func:`~dst_eval.corpora.layout.files_digest` over the gold
    files the loader read (``memory`` for gold built in memory)."""
    if not gold.files:
        return "memory"
    from dst_eval.corpora.layout import files_digest

    return files_digest(gold.files)[:8]


def signature_extra(gold: GoldSet, options: EvalOptions) -> dict[str, str]:
    """Signature fields every run carries: ``gold`` (content digest), and ``min-coverage``
    when it is not the default."""
    extra = {"gold": gold_digest(gold)}
    if options.min_coverage != DEFAULT_MIN_COVERAGE:
        extra["min_coverage"] = f"{options.min_coverage:g}"
    return extra


def check_coverage(gold: GoldSet, missing_dialogues: list[str], source: str,
                   options: EvalOptions) -> None:
    """Stop (exit 3) when the predictions match fewer than ``options.min_coverage`` of the
    gold dialogues: the wrong gold or split, not a partial submission."""
    n_gold = len(gold)
    matched = n_gold - len(missing_dialogues)
    # matched / n_gold, correctly rounded, is compared with the double nearest to the
    # minimum given (55/100 against 0.55: equal; 0.55 * 100 is 55.00000000000001)
    if n_gold and matched / n_gold < options.min_coverage:
        where = f"{gold.corpus}/{gold.split}" if gold.split else gold.corpus
        if options.zero_shot_domain:  # the gold holds the dialogues the protocol scores
            where = f"{where} involving {options.zero_shot_domain} (--zero-shot-domain)"
        accepts = (100 * matched // n_gold) / 100  # exact floor: this minimum accepts them
        raise CoverageError(
            f"predictions match {matched:,} of {n_gold:,} dialogues of {where}; wrong --gold "
            f"or --split? (--min-coverage {accepts:.2f} or lower accepts it)",
            accepts=accepts, file=source)


def _unset_marker(prediction_set: PredictionSet, alignment, options: EvalOptions,
                  result: Result) -> None:
    """One warning when the predictions' format writes a literal for every unset slot
    (TripPy's ``none``, LDST's ``NONE``) and the profile, as its anchor does, scores that
    literal as a value."""
    from dst_eval.predictions.adapted import UNSET_MARKER
    from dst_eval.profiles import PROFILES, unset_test

    marker = prediction_set.metadata.get(UNSET_MARKER)
    if marker is None or unset_test(options.profile, alignment.gold.corpus, marker)(marker):
        return
    n = sum(1 for _, pred in alignment.pairs if pred is not None and pred.state
            for value in pred.state.values() if value == marker)
    if n:
        readers = (f"the strict and {prediction_set.format} profiles read"
                   if prediction_set.format in PROFILES else "the strict profile reads")
        result.issues = [*result.issues, Issue(
            "unset_marker_scored",
            f"{prediction_set.format} writes {marker!r} for every unset slot; the "
            f"{options.profile} profile scores it as a value, as its anchor does: {n:,} "
            f"predicted {marker!r} values are false positives where the gold is empty "
            f"({readers} it as unset)",
            file=prediction_set.source)]
        result.counts["unset_marker_values"] = n


def _surface_forms(alignment, options: EvalOptions, result: Result) -> None:
    """The surface-form diagnostic (``dst_eval/surface.py``): one warning, no score change."""
    from dst_eval import surface
    from dst_eval.config import corpus_config
    from dst_eval.profiles.strict import format_marker, normalizer_for, unset_for

    corpus = alignment.gold.corpus
    config = corpus_config(corpus)
    is_right = None
    if options.profile == "strict":  # right: equal to a gold variant under the run's policy
        norm = normalizer_for(corpus, options)

        def is_right(key: str, value: str, variants: tuple[str, ...]) -> bool:
            return norm(key, value) in norm.variants(key, variants)
    rows = (surface.strict_rows(result.per_turn, len(alignment.pairs),
                                dontcare=options.dontcare)
            if options.profile == "strict" and result.compared is None else None)
    counts = surface.count(alignment, corpus_tests=config.surface_tests(),
                           accepted=surface.accepted_classes(options.profile),
                           is_unset=unset_for(corpus, format_marker(alignment)).test,
                           is_right=is_right, compared=result.compared, rows=rows)
    issue = surface.warning(counts, options.profile)
    if issue is not None:
        result.issues = [*result.issues, issue]
        result.counts.update({f"surface_forms:{name}": n for name, n in counts.items()})


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
    prediction_set = as_predictions(predictions, gold_set.corpus, options, gold_set)
    from dst_eval.alignment import align

    notes = []
    if options.zero_shot_domain:  # align, check and warn on the dialogues the protocol scores
        from dst_eval import corpora, zeroshot

        domain_of = corpora.get(gold_set.corpus).domain_of
        scored = zeroshot.scored_dialogues(gold_set, options.zero_shot_domain, domain_of)
        alignment = align(gold_set, prediction_set, strict=options.strict,
                          missing=options.missing, scored=scored)
        check_coverage(alignment.gold, alignment.missing_dialogues, prediction_set.source,
                       options)
        alignment = zeroshot.restrict(alignment, options.zero_shot_domain, domain_of)
        notes.append(zeroshot.note(gold_set, alignment, options.zero_shot_domain))
    else:
        alignment = align(gold_set, prediction_set, strict=options.strict,
                          missing=options.missing)
        check_coverage(gold_set, alignment.missing_dialogues, prediction_set.source, options)
    if options.missing == "skip" and not alignment.coverage:
        raise PredictionError("no gold turn has a prediction: with --missing skip nothing is "
                              "left to score (no number would be defined)",
                              file=prediction_set.source)
    signature = Signature(gold_set.corpus, gold_set.split, profile).with_fields(
        **signature_extra(gold_set, options))
    result = Result(signature=signature,
                    issues=alignment.issues, coverage=alignment.summary(),
                    gold_source=gold_set.source, predictions_source=prediction_set.source,
                    turns=alignment.pairs)
    if gold_set.notes:
        result.add(notes=list(gold_set.notes))
    if profile != "mwzeval" and options.mwzeval_rules != MWZEVAL_RULES[0]:  # not the default
        result.add(notes=[f"the {profile} profile does not use mwzeval's rule tables; "
                          f"--mwzeval-rules {options.mwzeval_rules} applies to the mwzeval "
                          "profile only"])
    if prediction_set.has_states:
        score(alignment, options, result)
        _surface_forms(alignment, options, result)
        _unset_marker(prediction_set, alignment, options, result)
    else:
        result.add(notes=["DST: n/a (the predictions carry no states)"])
    if options.zero_shot_domain:
        result.add(signature_fields={"zero-shot": options.zero_shot_domain}, notes=notes)
    from dst_eval.options import RESPONSE_METRIC_NAMES
    from dst_eval.responses import ResponseResources, has_responses, score_responses

    # --metrics naming no response metric: the responses are not scored (nor tokenised:
    # a long Chinese response took seconds for a JGA)
    asked = not options.metrics or not RESPONSE_METRIC_NAMES.isdisjoint(options.metrics)
    if options.zero_shot_domain and has_responses(alignment):
        result.add(notes=["responses: not scored under --zero-shot-domain (a DST protocol)"])
    elif asked and has_responses(alignment):
        resources = ResponseResources(db=options.db, goals=options.goals,
                                      references=options.references,
                                      gold_states=options.gold_states,
                                      gold_path=Path(gold_set.source))
        score_responses(alignment, options, result, resources=resources)

    def unscored(name: str) -> str | None:
        """Why a requested metric has no value: its kind was not scored (asked only for a
        ``--metrics`` name without a value; each test walks the turns)."""
        if name in RESPONSE_METRIC_NAMES:
            if options.zero_shot_domain:
                return "not scored under --zero-shot-domain"
            return None if has_responses(alignment) else "the predictions carry no responses"
        return None if prediction_set.has_states else "the predictions carry no states"

    result.keep_metrics(options.metrics, unscored)  # --metrics limits response metrics too
    if options.bootstrap:
        from dst_eval.significance import add_bootstrap

        add_bootstrap(result, options.bootstrap, seed)
    return result
