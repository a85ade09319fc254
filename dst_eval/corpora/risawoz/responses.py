"""RiSAWOZ response metrics: Inform, Success, BLEU (two labelled variants), Combined.

SCORERS.md §5: the GEM card defines inform rate, success rate, BLEU and Combined =
(inform + success)·0.5 + BLEU, but no implementation is public. The exact algorithm used
here is in :mod:`dst_eval.metrics.risawoz_success` and ``docs/risawoz_inform_success.md``;
this module builds its inputs from the gold dialogue:

* domains D: every domain (except 通用) of the dialogue's final gold state or of a gold
  requested slot, in order of first appearance; domains missing from the database are
  skipped (counted in ``unknown_domains``);
* C_d: the final gold state of d (``GoldTurn.state`` of the last turn), values normalised
  with ``nfkc+despace`` (:func:`dst_eval.risawoz_db.normalise`), without the entity slot
  unless the user *named* the entity: the entity slot enters the gold state at turn t0 and
  no gold system response before t0 mentions an entity of d; then the named entity is the
  final state's value and C_d keeps it;
* requests of d: the gold requested slots ``d-a`` (``GoldTurn.requested_slots``), each with
  the first turn asking for it, ``a`` mapped to its database column
  (:data:`dst_eval.risawoz_db.SLOT_ALIASES`); slots with no column are unverifiable: left
  out and counted (``unverifiable_requests``);
* constraints at turn u (domains without entities, 天气): the gold state of d at u;
* responses: the generated response of every gold turn, normalised alike; a turn that is
  not scored (``missing="skip"``) or has no/bad response contributes ``""``.

Rates are over dialogues: ``inform`` = mean of the dialogue inform over the dialogues where
it is defined (some entity domain), ``success`` likewise; fractions in [0, 1]. Under
``missing="wrong"`` a dialogue without any prediction fails both; under ``"skip"`` it is
not scored. ``groups["domain:<d>"]`` holds per-domain rates.

BLEU (0-100, corpus, SCORERS.md §5, both reported and labelled):

* ``bleu`` -- variant (b): the corpus config's ``tokenizer`` (sacrebleu ``zh``) on both sides
  (``tok:zh``);
* ``bleu_segmented`` -- variant (a): references = the corpus's own word segmentation
  (``segmented_system_utterance``, tokens as given), hypotheses = ``jieba.lcut`` words
  (signature ``tok-segmented:jieba-<version>|reftok-segmented:provided``, note
  ``tok:jieba-<version>|...|reftok:provided``). The segmentation is
  ``GoldTurn.system_annotations["segmented_response"]``, filled by
  :mod:`dst_eval.corpora.risawoz.loader`; when a scored gold turn has none the variant is n/a.
  (On the released sample, jieba reproduces the provided segmentation of all 659 system
  utterances.)

``combined`` = 0.5·(100·inform + 100·success) + ``bleu``; ``combined_segmented`` uses
``bleu_segmented``. Inform/success need the database (``ResponseResources.db``: the
``RiSAWOZ-Database-and-Ontology`` folder or its ``DB`` subfolder; default: looked for next to
the gold data); without it they and the combined scores are n/a.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from dst_eval import corpora
from dst_eval.alignment import Alignment
from dst_eval.corpora.layout import files_digest
from dst_eval.corpora.risawoz.database import (
    ALGORITHM_VERSION,
    DOMAIN_FILES,
    RisawozDatabase,
    find_database,
    load_database,
    normalise,
)
from dst_eval.corpora.sgd.responses import (
    CollectedResponses,
    PrefixedBleuMetric,
    RatioMetric,
    bleu_columns,
    bleu_note,
    collect_responses,
    first_rows,
    nothing_to_score,
    response_table,
)
from dst_eval.errors import UsageError
from dst_eval.gold import GoldDialogue, GoldSet
from dst_eval.metrics.base import Metric, ratio
from dst_eval.metrics.bleu import BleuStats, corpus_bleu_from_stats, segment_statistics
from dst_eval.metrics.risawoz_success import DialogueOutcome, DomainGoal, dialogue_inform_success
from dst_eval.options import EvalOptions
from dst_eval.responses import ResponseResources
from dst_eval.result import Result

GENERAL_DOMAIN = "通用"
SEGMENTED_KEY = "segmented_response"
"""``GoldTurn.system_annotations`` key of the corpus's segmented system utterance."""
BLEU_VARIANTS: dict[str, tuple[str | None, str | None, str]] = {
    "bleu": (None, None, ""), "bleu_segmented": ("jieba", "none", "seg:")}
"""Score name -> (hypothesis tokenizer, reference tokenizer, column prefix); a None hypothesis
tokenizer is the corpus config's ``tokenizer``, a None reference tokenizer the same as the
hypotheses' (references = the gold responses; otherwise the provided segmentation)."""
PROVIDED = "provided"
"""How the signature and the note name references that are the provided segmentation (its
tokens as given; sacrebleu's tokenizer ``none`` would say nothing of where they come from)."""


def _bleu_note(name: str, stats: BleuStats, ref_tokenizer: str | None) -> str:
    """:func:`bleu_note`, its ``reftok`` field naming the provided segmentation."""
    note = bleu_note(name, stats)
    if ref_tokenizer is None:
        return note
    head, _, fields = note.partition(": ")
    return f"{head}: " + "|".join(f"reftok:{PROVIDED}" if f.startswith("reftok:") else f
                                  for f in fields.split("|"))


class CombinedMetric(Metric):
    """Combined = 0.5·(100·inform + 100·success) + BLEU, from the table's column sums."""

    def __init__(self, name: str, bleu: PrefixedBleuMetric) -> None:
        self.name = name
        self.bleu = bleu
        self.columns = (*bleu.columns, "inform_hit", "inform_n", "success_hit", "success_n")

    def from_sums(self, sums: Mapping[str, np.ndarray | float]) -> np.ndarray | float:
        inform = ratio(sums["inform_hit"], sums["inform_n"])
        success = ratio(sums["success_hit"], sums["success_n"])
        return 50.0 * (inform + success) + self.bleu.from_sums(sums)


# ---- gold-side inputs -----------------------------------------------------------------
def _mentions_any(text: str, keys: Mapping[str, str]) -> bool:
    return any(key in text for key in keys)


def dialogue_goals(dialogue: GoldDialogue, db: RisawozDatabase
                   ) -> tuple[list[DomainGoal], int, list[str]]:
    """The domain goals of a gold dialogue (module docstring), the number of unverifiable
    requests, and the domains missing from the database."""
    turns = dialogue.turns
    if not turns:
        return [], 0, []
    final = turns[-1].state
    order: dict[str, None] = {}
    for key in final:
        order.setdefault(key.partition("-")[0])
    for turn in turns:
        for key in sorted(turn.requested_slots):
            order.setdefault(key.partition("-")[0])
    order.pop(GENERAL_DOMAIN, None)
    gold_responses = [normalise(t.system_response or "") for t in turns]
    goals, unknown, unverifiable = [], [], 0
    for domain in order:
        if domain not in DOMAIN_FILES:
            unknown.append(domain)
            continue
        prefix = domain + "-"
        constraints = {k[len(prefix):]: normalise(v[0]) for k, v in final.items()
                       if k.startswith(prefix) and v}
        entity_slot = db.entity_slot(domain)
        named = None
        if entity_slot and entity_slot in constraints:
            key = prefix + entity_slot
            t0 = next(t.turn_index for t in turns if key in t.state)
            keys = db.mention_keys(domain)
            if not any(_mentions_any(r, keys) for r in gold_responses[:t0]):
                named = db.entity(domain, constraints[entity_slot]) or constraints[entity_slot]
            del constraints[entity_slot]
        requests: dict[str, int] = {}
        for turn in turns:
            for key in sorted(turn.requested_slots):
                if not key.startswith(prefix):
                    continue
                column = db.column(domain, key[len(prefix):])
                if column is None:
                    unverifiable += 1
                elif column not in requests:
                    requests[column] = turn.turn_index
        at = () if entity_slot else tuple(
            {k[len(prefix):]: normalise(v[0]) for k, v in t.state.items()
             if k.startswith(prefix) and v} for t in turns)
        goals.append(DomainGoal(domain, constraints, entity_slot, named, requests, at))
    return goals, unverifiable, unknown


# ---- scoring --------------------------------------------------------------------------
def database_folder(gold: GoldSet, db: str | Path | None) -> Path | None:
    """The database folder scoring would read (``db``, else the one found next to the
    gold), for the CLI's output checks: no output may overwrite one of its tables."""
    return find_database(Path(db) if db is not None else None, gold.source)


def _database(resources: ResponseResources, gold: GoldSet) -> RisawozDatabase | None:
    directory = find_database(resources.db, resources.gold_path or gold.source)
    if directory is None:
        if resources.db is not None:
            raise UsageError(f"no RiSAWOZ database in {resources.db} (expected the "
                             "RiSAWOZ-Database-and-Ontology folder or its DB subfolder)")
        return None
    return load_database(directory)


def _outcomes(alignment: Alignment, collected: CollectedResponses, options: EvalOptions,
              db: RisawozDatabase) -> tuple[dict[str, DialogueOutcome], dict[str, int]]:
    hypothesis = {(t.dialogue_id, t.turn_index): normalise(h)
                  for t, h in zip(collected.turns, collected.hypotheses, strict=True)}
    predicted = {t.dialogue_id for t, p in zip(collected.turns, collected.predicted,
                                               strict=True) if p}
    scored = set(collected.dialogue_ids)
    outcomes: dict[str, DialogueOutcome] = {}
    counts = {"unverifiable_requests": 0, "unknown_domains": 0, "requests_without_db_value": 0}
    for dialogue in alignment.gold:
        if dialogue.dialogue_id not in scored:
            continue
        goals, unverifiable, unknown = dialogue_goals(dialogue, db)
        counts["unverifiable_requests"] += unverifiable
        counts["unknown_domains"] += len(unknown)
        responses = [hypothesis.get((dialogue.dialogue_id, t.turn_index), "")
                     for t in dialogue.turns]
        outcome = dialogue_inform_success(goals, responses, db)
        if options.missing != "skip" and dialogue.dialogue_id not in predicted:
            outcome = DialogueOutcome(None if outcome.inform is None else False,
                                      None if outcome.success is None else False,
                                      outcome.domains)
        outcomes[dialogue.dialogue_id] = outcome
        counts["requests_without_db_value"] += sum(len(d.unverifiable) for d in outcome.domains)
    return outcomes, counts


def _domain_groups(outcomes: Mapping[str, DialogueOutcome]) -> dict[str, dict[str, float]]:
    tallies: dict[str, list[int]] = {}
    for outcome in outcomes.values():
        for domain in outcome.domains:
            tally = tallies.setdefault(domain.domain, [0, 0, 0, 0])
            if domain.inform is not None:
                tally[0] += domain.inform
                tally[1] += 1
            if domain.success is not None:
                tally[2] += domain.success
                tally[3] += 1
    groups = {}
    for domain, (inform, n_inform, success, n_success) in tallies.items():
        group: dict[str, float] = {}
        if n_inform:
            group["inform"] = inform / n_inform
        if n_success:
            group["success"] = success / n_success
        groups[f"domain:{domain}"] = group
    return groups


def _segmented(collected: CollectedResponses) -> tuple[list[str] | None, str]:
    refs = [t.system_annotations.get(SEGMENTED_KEY) for t in collected.turns]
    lacking = sum(not isinstance(r, str) for r in refs)
    if lacking:
        return None, (f"{lacking} of {len(refs)} scored gold turns have no segmented system "
                      f"utterance (GoldTurn.system_annotations['{SEGMENTED_KEY}'], filled by "
                      "the RiSAWOZ loader from segmented_system_utterance)")
    return refs, ""


def score(alignment: Alignment, options: EvalOptions, result: Result | None = None, *,
          resources: ResponseResources) -> Result:
    """Inform, success, BLEU (zh; provided segmentation + jieba) and combined scores."""
    collected = collect_responses(alignment, options)
    names = ["bleu", "bleu_segmented", "inform", "success", "combined", "combined_segmented"]
    empty = nothing_to_score(collected, names, result)
    if empty is not None:
        return empty
    ids = collected.dialogue_ids
    hyps = collected.hypotheses
    scores: dict[str, float] = {}
    not_applicable: dict[str, str] = {}
    columns: dict[str, np.ndarray] = {}
    bleu_metrics: dict[str, PrefixedBleuMetric] = {}
    signature_fields = {"bleu": "corpus"}
    notes: list[str] = []
    for name, (variant, ref_tokenizer, prefix) in BLEU_VARIANTS.items():
        tokenizer = variant or corpora.get(alignment.gold.corpus).tokenizer
        signature = corpora.tokenizer(tokenizer).signature()  # a missing library: exit 2
        if ref_tokenizer is None:
            refs, reason = collected.references, ""
        else:
            refs, reason = _segmented(collected)
        if refs is None:
            not_applicable[name] = reason
            continue
        stats = segment_statistics(hyps, refs, tokenize=tokenizer, ref_tokenize=ref_tokenizer)
        scores[name] = corpus_bleu_from_stats(stats)
        columns |= bleu_columns(stats, ids, prefix)
        bleu_metrics[name] = PrefixedBleuMetric(name=name, prefix=prefix)
        notes.append(_bleu_note(name, stats, ref_tokenizer))
        if name == "bleu":
            signature_fields["tok"] = signature
        else:
            signature_fields["tok-segmented"] = signature
            signature_fields["reftok-segmented"] = PROVIDED
    metrics: list[Metric] = list(bleu_metrics.values())
    counts = dict(collected.counts)
    groups: dict[str, dict[str, float]] = {}

    db = _database(resources, alignment.gold)
    if db is None:
        reason = ("needs the RiSAWOZ database (RiSAWOZ-Database-and-Ontology/DB): none next to "
                  "the gold data; pass its folder as the response database")
        not_applicable.update(dict.fromkeys(("inform", "success", "combined",
                                             "combined_segmented"), reason))
    else:
        signature_fields["res"] = files_digest(db.files)[:8]  # the database's content
        outcomes, extra = _outcomes(alignment, collected, options, db)
        counts.update(extra)
        first = first_rows(ids)
        for column in ("inform_hit", "inform_n", "success_hit", "success_n"):
            columns[column] = np.zeros(len(ids))
        rows = np.flatnonzero(first)
        for row in rows:
            outcome = outcomes[ids[row]]
            if outcome.inform is not None:
                columns["inform_hit"][row] = outcome.inform
                columns["inform_n"][row] = 1
            if outcome.success is not None:
                columns["success_hit"][row] = outcome.success
                columns["success_n"][row] = 1
        for rate, hit, n in (("inform", "inform_hit", "inform_n"),
                             ("success", "success_hit", "success_n")):
            counts[f"{rate}_dialogues"] = int(columns[n].sum())
            if columns[n].sum():
                scores[rate] = float(columns[hit].sum() / columns[n].sum())
                metrics.append(RatioMetric(rate, hit, n))
            else:
                not_applicable[rate] = f"no scored dialogue has a goal that defines {rate}"
        for combined, bleu in (("combined", "bleu"), ("combined_segmented", "bleu_segmented")):
            if bleu in scores and "inform" in scores and "success" in scores:
                scores[combined] = 50.0 * (scores["inform"] + scores["success"]) + scores[bleu]
                metrics.append(CombinedMetric(combined, bleu_metrics[bleu]))
            else:
                missing = [m for m in (bleu, "inform", "success") if m not in scores]
                not_applicable[combined] = f"needs {', '.join(missing)}"
        groups = _domain_groups(outcomes)
        signature_fields["is"] = ALGORITHM_VERSION
        notes.append(f"inform/success: {ALGORITHM_VERSION} (docs/risawoz_inform_success.md), "
                     f"database {db.source}")
        if counts["unverifiable_requests"]:
            notes.append(f"{counts['unverifiable_requests']} requested slots have no database "
                         "column and are not checked by success")
    signature_fields["missing"] = options.missing
    return (result or Result()).add(
        scores=scores,
        signature_fields=signature_fields,
        not_applicable=not_applicable,
        groups=groups,
        notes=notes + collected.notes,
        counts={"responses": {**counts, "dialogues": len(set(ids))}},
        table=response_table(columns, ids),
        metric_objects=metrics,
        resource_files=[f.path for f in db.files] if db is not None else (),
    )


def outcomes_for(alignment: Alignment, options: EvalOptions, db: RisawozDatabase
                 ) -> dict[str, DialogueOutcome]:
    """Per-dialogue outcomes (for inspection and tests)."""
    return _outcomes(alignment, collect_responses(alignment, options), options, db)[0]
