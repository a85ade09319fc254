"""MultiWOZ response-generation scoring: Inform, Success, BLEU, richness, Combined (mwzeval).

Entry points
------------
:func:`.response_gold.response_gold` -> :class:`~.response_gold.ResponseGold`: goals,
    booked domains, references (and, on use, gold states) of the loaded ``GoldSet``.

``score_responses(gold, alignment, *, compat, missing="wrong")`` -> dict.
    ``alignment`` pairs each gold turn with its predicted turn (one per **system** turn):
    ``PredTurn.response`` (delexicalised text), ``raw_state`` (the state as the file wrote
    it, nested ``{domain: {slot: value}}`` or flat ``{"domain-slot": value}``: both give the
    same state), ``active_domains``. Read only: nothing is mutated.

Settings
--------
* States: when no turn carries ``state`` the gold states are used ("policy optimisation"
  setting, ``result["setting"]``). ``compat=True`` copies mwzeval: if *any* turn lacks
  ``state``, gold states are used for every turn; likewise a missing ``active_domains``
  anywhere makes every turn's domains estimated (:mod:`.domains`). ``compat=False``
  (strict): a turn without ``state`` in an end-to-end file has the empty state, a turn
  without ``active_domains`` gets the estimate; both are reported.
* ``missing="skip"`` (mwzeval): absent dialogues are not scored, a dialogue with fewer
  turns is scored on the turns present (Inform/Success pair turns by ``zip``).
  ``missing="wrong"``: an absent dialogue fails Inform and Success in every goal domain and
  each absent turn is scored as an empty response (BLEU hypothesis ``''``; the state is the
  gold one in the policy setting, else empty). Richness always covers the responses given.
* Turns beyond the gold dialogue length and unknown dialogue ids are reported (from the
  alignment) and ignored (mwzeval raises IndexError / KeyError).
* Bad responses: a missing or ``null`` ``response`` (``response_missing``) or a
  non-string one (the reader's ``bad_response``: ``response_not_string``) is reported and
  scored as ``''``; empty responses are scored as they are and counted; placeholders with
  an unknown name (``[hotel]``) are deleted as mwzeval does, and reported with their names.
  Malformed ``state`` parts (a key neither a domain object nor ``"domain-slot"``, a
  non-string value) are dropped and reported. Structural errors are the reader's
  (:class:`PredictionError`).
* State keys: ``compat=False`` spells every key, nested or flat, with
  :func:`dst_eval.slotkeys.canonical_slot_key` for the gold corpus (as the DST side does:
  ``Hotel``/``price range`` is ``hotel-pricerange``); ``compat=True`` keeps domain and slot
  as written, as mwzeval reads a nested state, and splits a flat key on its first ``-``
  (mwzeval cannot read flat states: each such turn is reported, ``flat_state``). Then
  mwzeval's key and value normalisation (:mod:`.mwzeval_rules`) in both.

Metrics: Inform and Success (fractions) per goal domain and in total (:mod:`metrics.
inform_success`), BLEU = sacrebleu corpus BLEU (13a, exp smoothing; :mod:`metrics.bleu`)
of the normalised responses against the references, richness (:mod:`metrics.richness`) of
the normalised responses, ``combined = 50 · (inform + success) + bleu`` (points).

Result (a dict)
---------------
* ``setting`` (``end-to-end`` / ``policy-optimisation``), ``state_source`` (``predicted`` /
  ``gold``), ``domain_source`` (``predicted`` / ``estimated`` / ``mixed``);
* ``inform``, ``success`` (fractions), ``bleu`` (0-100), ``combined`` (points),
  ``inform_by_domain``, ``success_by_domain``, ``richness``;
* ``counts`` (dialogues/turns in the gold, predicted, scored, padded; turns whose domains
  were estimated), ``problems`` (``{kind: {"count": n, "examples": [...]}}``);
* ``per_dialogue`` (``[{"dialogue_id", "inform", "success", "scored"}]``), ``bleu_stats``
  (per-turn :class:`~dst_eval.metrics.bleu.BleuStats`) and ``bleu_dialogue_index`` (the
  ``per_dialogue`` row of each BLEU row; ``bleu_stats.group_sum(index)`` gives per-dialogue
  statistics for a dialogue-level bootstrap), ``gold_sources``;
* ``official``: mwzeval's own output, ``{"bleu": {"mwz22": ...}, "success": {"inform":
  {"total": ..., "<domain>": ...}, "success": {...}}, "richness": {...}}``, rates
  ``round(100·k/n, 1)``.

Fidelity (``tests/test_mwz_response.py``): on the 15 systems of mwzeval's repository, with
``compat=True, missing="skip"`` and gold derived from the 2.1 test data, every number equals
mwzeval 7f19ee0's output on the same inputs (BLEU to 1e-9, per-domain Inform/Success,
richness); Inform/Success equal the published leaderboard for the 8 systems marked exact;
SOLOIST and DoTS deviate from the leaderboard in mwzeval itself (81.7/67.1, 80.5/70.5); the
policy systems (gold states) are within 0.2 because the real 2.2 states are not available;
BLEU is lower than published (2.1 spans instead of 2.2 references).

Gold responses fed back (the 2.1 system turns delexicalised by their spans) score BLEU 100
and Inform 92.5 / Success 88.8 on the 2.1 test set -- the ceiling of these metrics with
2.1 spans and states (mwzeval's 2.2 data: 93.7 / 90.9).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from dst_eval.alignment import Alignment
from dst_eval.config import corpus_config
from dst_eval.corpora.multiwoz.delex import normalize_response
from dst_eval.corpora.multiwoz.domains import estimate_active_domains
from dst_eval.corpora.multiwoz.mwzeval_rules import normalize_state
from dst_eval.corpora.multiwoz.response_gold import ResponseGold
from dst_eval.errors import PredictionError, UsageError
from dst_eval.gold import dialogue_key
from dst_eval.metrics.bleu import BleuStats, corpus_bleu_from_stats, segment_statistics
from dst_eval.metrics.inform_success import (
    DialogueOutcome,
    dialogue_inform_success,
    inform_success_rates,
)
from dst_eval.metrics.richness import lexdiv_tokenize, richness
from dst_eval.predictions.model import PredTurn
from dst_eval.slotkeys import canonical_domain, canonical_slot_key, split_slot_key

MISSING_POLICIES = ("wrong", "skip")
MAX_EXAMPLES = 5
_GAP = PredTurn()

State = dict[str, dict[str, str]]


class _Problems:
    """Counts and a few examples of every kind of input problem."""

    def __init__(self) -> None:
        self.counts: Counter = Counter()
        self.examples: dict[str, list[str]] = {}

    def add(self, kind: str, where: str, detail: str = "", count: int = 1) -> None:
        self.counts[kind] += count
        examples = self.examples.setdefault(kind, [])
        if len(examples) < MAX_EXAMPLES:
            examples.append(f"{where}: {detail}" if detail else where)

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {k: {"count": n, "examples": self.examples[k]} for k, n in self.counts.items()}


def _where(dialogue: str, turn: int | None = None) -> str:
    return f"dialogue {dialogue}" + ("" if turn is None else f" turn {turn}")


@dataclass
class _Turn:
    response: str
    """Normalised response."""
    state: State | None
    """Normalised predicted state, None when the turn has no ``state``."""
    active: list[str] | None
    """Given active domains, None when absent."""


def _read_response(pred: PredTurn, where: str, problems: _Problems) -> str:
    raw = pred.response
    if raw is None:
        problems.add("response_missing", where, "no 'response'; scored as ''")
        return ""
    if type(raw) is not str:  # the reader's bad_response, kept as written
        problems.add("response_not_string", where, "response is not a string; scored as ''")
        return ""
    if not raw.strip():
        problems.add("response_empty", where)
    text, unknown = normalize_response(raw)
    if unknown:
        problems.add("unknown_placeholder", where,
                     "deleted " + ", ".join(f"[{u}]" for u in unknown), count=len(unknown))
    return text


def _read_state(raw: Any, where: str, problems: _Problems, corpus: str | None) -> State:
    """mwzeval's view of a raw predicted state: every string value as written (``none``,
    ``not mentioned``, whitespace included), then mwzeval's key and value normalisation.

    Nested ``{domain: {slot: value}}`` and flat ``{"domain-slot": value}`` entries (split on
    the first ``-``, :func:`~dst_eval.slotkeys.split_slot_key`; mixed too) give the same
    state. ``corpus`` None (mwzeval compat): domain and slot as written, as mwzeval reads a
    nested state; else both are spelled by :func:`~dst_eval.slotkeys.canonical_slot_key`
    for ``corpus``, as the DST side spells them (``Hotel``/``price range`` ->
    ``hotel``/``pricerange``). A nested domain is kept even when it holds no slot (an empty
    domain state queries the whole table, as in mwzeval)."""
    if not isinstance(raw, Mapping):
        problems.add("bad_state", where, f"state is {type(raw).__name__}, not an object; "
                     "used as empty")
        return {}
    clean: dict[str, dict[str, str]] = {}
    for outer, inner in raw.items():
        if isinstance(inner, Mapping):
            items = [(str(outer), str(slot), value) for slot, value in inner.items()]
            clean.setdefault(_spell(str(outer), "", corpus)[0], {})
        else:
            domain, slot = split_slot_key(str(outer))
            if not domain:
                problems.add("bad_state", where, f"key {outer!r} is neither a domain object "
                             "nor a 'domain-slot' key; dropped")
                continue
            items = [(domain, slot, inner)]
        for domain, slot, value in items:
            if not isinstance(value, str):
                problems.add("bad_state", where,
                             f"{domain}-{slot} is {type(value).__name__}; dropped")
                continue
            domain, slot = _spell(domain, slot, corpus)
            slots = clean.setdefault(domain, {})
            # a slot given twice (nested and flat): mwzeval keeps the later; otherwise the
            # first value that is set (blank or a corpus unset word, as the strict profile's
            # Unset reads them; a format's own unset marker is not consulted here), as the
            # DST reader and its duplicate_slot warning
            if corpus is None or slot not in slots or _unset(slots[slot], corpus):
                slots[slot] = value
    return normalize_state(clean)


def _unset(value: str, corpus: str) -> bool:
    """True for a value the corpus reads as leaving a slot unset (blank, ``none``, ...)."""
    text = value.strip().lower()
    return not text or text in corpus_config(corpus).unset_values


def _spell(domain: str, slot: str, corpus: str | None) -> tuple[str, str]:
    """``(domain, slot)`` as written (``corpus`` None) or spelled for ``corpus``."""
    if corpus is None:
        return domain, slot
    if not slot:
        return canonical_domain(domain, corpus), slot
    return split_slot_key(canonical_slot_key(domain, slot, corpus))


def _read_turns(key: str, preds: Sequence[PredTurn], problems: _Problems,
                corpus: str | None) -> list[_Turn]:
    """The turns read; ``corpus``: see :func:`_read_state`."""
    read: list[_Turn] = []
    previous: tuple[Any, State] | None = None  # states often repeat turn after turn
    for index, pred in enumerate(preds):
        where = _where(key, index)
        if pred is None:
            pred = _GAP
        state = None
        # the state as written; a turn that keeps none (one built in memory without it)
        # gives its state as read, with flat "domain-slot" keys
        raw = pred.raw_state if pred.raw_state is not None else pred.state
        if raw is not None:
            if previous is not None and raw == previous[0]:
                state = previous[1]  # read-only downstream: sharing is safe
            else:
                bad_before = problems.counts["bad_state"]
                state = _read_state(raw, where, problems, corpus)
                clean = problems.counts["bad_state"] == bad_before
                previous = (raw, state) if clean else None
            if corpus is None and _has_flat_keys(raw):  # said once, then counted
                problems.add("flat_state", where, "" if problems.counts["flat_state"] else
                             "flat 'domain-slot' keys, which mwzeval cannot read (it needs "
                             "{domain: {slot: value}}); split on the first '-'")
        active = list(pred.active_domains) if pred.active_domains is not None else None
        read.append(_Turn(_read_response(pred, where, problems), state, active))
    return read


@lru_cache(maxsize=1 << 17)
def _lexdiv_tokens(text: str) -> tuple[str, ...]:
    return tuple(lexdiv_tokenize(text))


@dataclass
class _Run:
    """What one scoring pass collects."""

    problems: _Problems
    outcomes: list[DialogueOutcome] = field(default_factory=list)
    per_dialogue: list[dict[str, Any]] = field(default_factory=list)
    hyps: list[str] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    bleu_dialogue: list[int] = field(default_factory=list)
    n_given: int = 0
    n_estimated: int = 0
    n_padded: int = 0

    def add(self, key: str, outcome: DialogueOutcome, hyps: Sequence[str],
            refs: Sequence[str], *, scored: bool) -> None:
        self.bleu_dialogue.extend([len(self.outcomes)] * len(hyps))
        self.outcomes.append(outcome)
        self.per_dialogue.append({"dialogue_id": key, "inform": outcome.inform_total,
                                  "success": outcome.success_total, "scored": scored})
        self.hyps.extend(hyps)
        self.refs.extend(refs)


def _has_flat_keys(raw: Any) -> bool:
    return isinstance(raw, Mapping) and not all(isinstance(v, Mapping) for v in raw.values())


def _predicted(gold: ResponseGold, alignment: Alignment, problems: _Problems, *,
               compat: bool) -> tuple[dict[str, list[_Turn]], bool, bool, bool]:
    """Predicted turns of every gold dialogue that has a prediction (in prediction-file
    order, within the gold length); whether every turn has state / active_domains, and
    whether any turn has a state. State keys are read as written under ``compat``, else
    spelled for the gold corpus (:func:`_read_state`)."""
    by_dialogue: dict[str, list[PredTurn | None]] = {}
    for gold_turn, pred in alignment.pairs:
        by_dialogue.setdefault(dialogue_key(gold_turn.dialogue_id), []).append(pred)
    corpus = None if compat else gold.gold.corpus
    read: dict[str, list[_Turn]] = {}
    every_state = every_active = True
    any_state = False
    for raw_id, given in alignment.predictions.dialogues.items():
        key = dialogue_key(raw_id)
        if key not in gold.goals or key in read:
            continue
        n_gold = gold.n_turns(key)
        n_read = min(len(given), n_gold)
        if len(given) < n_gold:
            problems.add("missing_turns", _where(key), f"{len(given)} of {n_gold} turns",
                         count=n_gold - len(given))
        preds = [p if p is not None else _GAP for p in by_dialogue.get(key, [])[:n_read]]
        every_state &= all(p.raw_state is not None for p in given)
        every_active &= all(p.active_domains is not None for p in given)
        read[key] = _read_turns(key, preds, problems, corpus)
        any_state |= any(t.state is not None for t in read[key])
    if alignment.n_extra_turns:
        problems.add("extra_turns", "predictions", "turns beyond the gold dialogue length; "
                     "ignored", count=alignment.n_extra_turns)
    if alignment.extra_dialogues:
        problems.add("unknown_dialogue", _where(alignment.extra_dialogues[0]),
                     "not in the gold data; ignored", count=len(alignment.extra_dialogues))
    return read, every_state, every_active, any_state


def _score_dialogue(gold: ResponseGold, key: str, turns: list[_Turn], run: _Run, *,
                    n_read: int, gold_states: bool, estimate_all: bool) -> None:
    """Inform/Success of one predicted dialogue; its BLEU pairs."""
    if gold_states:
        states = list(gold.states[key][:len(turns)])
    else:
        for index, t in enumerate(turns[:n_read]):
            if t.state is None:
                run.problems.add("missing_state", _where(key, index),
                                 "scored with an empty state")
        states = [t.state if t.state is not None else {} for t in turns]
    estimates = None
    active: list[list[str]] = []
    for index, t in enumerate(turns):
        if t.active is not None and not estimate_all:
            active.append(t.active)
            run.n_given += 1
            continue
        if estimates is None:
            estimates = estimate_active_domains(states)
        active.append(estimates[index])
        run.n_estimated += 1
    responses = [t.response for t in turns]
    outcome = dialogue_inform_success(gold.goals[key], responses, states, active,
                                      gold.booked[key], query=gold.database.query_set)
    run.add(key, outcome, responses, gold.references[key][:len(turns)], scored=True)


def score_responses(gold: ResponseGold, alignment: Alignment, *, compat: bool,
                    missing: str = "wrong") -> dict[str, Any]:
    """Score delexicalised responses (see the module docstring for inputs and output)."""
    if missing not in MISSING_POLICIES:
        raise UsageError(f"unknown missing policy {missing!r}; known: wrong, skip")
    run = _Run(_Problems())
    read, every_state, every_active, any_state = _predicted(gold, alignment, run.problems,
                                                            compat=compat)
    gold_states = not every_state if compat else not any_state
    estimate_all = compat and not every_active
    absent = [k for k in gold.dialogue_ids if k not in read]
    if absent:
        run.problems.add("missing_dialogues",
                         f"{len(absent)} of {len(gold.dialogue_ids)} dialogues",
                         "e.g. " + ", ".join(absent[:3]), count=len(absent))
    for key in gold.dialogue_ids:
        turns = read.get(key)
        n_gold = gold.n_turns(key)
        if turns is None:
            if missing == "wrong":
                run.n_padded += n_gold
                run.add(key, DialogueOutcome.failed(gold.goals[key]), [""] * n_gold,
                        gold.references[key], scored=False)
            continue
        n_read = len(turns)
        if missing == "wrong" and n_read < n_gold:
            run.n_padded += n_gold - n_read
            turns = turns + [_Turn("", None, None) for _ in range(n_gold - n_read)]
        _score_dialogue(gold, key, turns, run, n_read=n_read, gold_states=gold_states,
                        estimate_all=estimate_all)
    if not run.outcomes:
        raise PredictionError("no prediction matches a gold dialogue",
                              file=alignment.predictions.source)
    if not compat and run.n_estimated and run.n_given:
        run.problems.add("missing_active_domains", f"{run.n_estimated} turns",
                         "estimated from states", count=run.n_estimated)
    # richness: MSTTR windows run over the concatenated responses, so their order counts;
    # mwzeval takes the file's order, the other profiles the gold's (then ids not in the
    # gold, sorted): the same predictions shuffled or sharded give the same number
    order = list(read) if compat else [
        *(key for key in gold.dialogue_ids if key in read),
        *sorted(key for key in read if key not in gold.goals)]
    given = [t.response for key in order for t in read[key]]
    return _result(gold, run, given, gold_states=gold_states, n_read=len(read))


def bleu_statistics(hyps: Sequence[str], refs: Sequence[str]) -> BleuStats:
    """Per-segment BLEU statistics of normalised responses: :func:`metrics.bleu.
    segment_statistics` with sacrebleu's defaults (13a, case-sensitive, one reference)."""
    return segment_statistics(hyps, refs, tokenize="13a")


def _result(gold: ResponseGold, run: _Run, given: list[str], *, gold_states: bool,
            n_read: int) -> dict[str, Any]:
    rates = inform_success_rates(run.outcomes)
    stats = bleu_statistics(run.hyps, run.refs)
    bleu = corpus_bleu_from_stats(stats) if len(stats) else 0.0
    rich = richness([_lexdiv_tokens(r) for r in given]) if given else None
    inform, success = rates.inform_fraction(), rates.success_fraction()
    inform_rates, success_rates = rates.inform_rates(), rates.success_rates()
    official = {
        "bleu": {"mwz22": bleu},
        "success": {
            "inform": {k: round(v, 1) for k, v in inform_rates.items()},
            "success": {k: round(v, 1) for k, v in success_rates.items()},
        },
        "richness": rich,
    }
    inform_fractions, success_fractions = rates.inform_fractions(), rates.success_fractions()
    return {
        "setting": "policy-optimisation" if gold_states else "end-to-end",
        "state_source": "gold" if gold_states else "predicted",
        "domain_source": ("estimated" if run.n_given == 0
                          else "predicted" if run.n_estimated == 0 else "mixed"),
        "inform": inform,
        "success": success,
        "bleu": bleu,
        "combined": 50.0 * (inform + success) + bleu,
        "inform_by_domain": {k: v for k, v in inform_fractions.items() if k != "total"},
        "success_by_domain": {k: v for k, v in success_fractions.items() if k != "total"},
        "richness": rich,
        "counts": {
            "dialogues_gold": len(gold.dialogue_ids),
            "dialogues_predicted": n_read,
            "dialogues_scored": len(run.outcomes),
            "turns_gold": sum(gold.n_turns(k) for k in gold.dialogue_ids),
            "turns_predicted": len(given),
            "turns_scored": len(run.hyps),
            "turns_padded": run.n_padded,
            "turns_domains_estimated": run.n_estimated,
        },
        "problems": run.problems.as_dict(),
        "per_dialogue": run.per_dialogue,
        "bleu_stats": stats,
        "bleu_dialogue_index": np.asarray(run.bleu_dialogue, dtype=np.intp),
        "gold_sources": dict(gold.sources),
        "official": official,
    }
