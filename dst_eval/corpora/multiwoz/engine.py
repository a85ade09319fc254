"""MultiWOZ response-generation scoring: Inform, Success, BLEU, richness, Combined (mwzeval).

Entry points
------------
``load_response_gold(data, db_dir, *, ids=None, references=None, gold_states=None)``
    -> :class:`ResponseGold` from a MultiWOZ 2.1 ``data.json`` / split file / ``.zip``
    (goals, booked domains, references and gold states derived as documented in
    :mod:`.goals` and :mod:`.delex`) and a ``db/`` folder. ``references`` / ``gold_states``
    optionally name mwzeval-format files (``{dialogue id: [normalised text | state]}``,
    e.g. ``approx_references_mwz21_test.json``) that replace the derived ones; they are
    used as they are (mwzeval stores them already normalised).

``score_responses(gold, predictions, *, compat, missing="wrong", file=None)`` -> dict.
    ``predictions`` = mwzeval's input ``{dialogue_id: [turn, ...]}``, one turn per
    **system** turn: ``response`` (delexicalised text), optional ``state``
    (``{domain: {slot: value}}``), optional ``active_domains`` (list of domains). Ids match
    case-insensitively, with or without ``.json``. Read only: nothing is mutated.

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
* Turns beyond the gold dialogue length and unknown dialogue ids are reported and ignored
  (mwzeval raises IndexError / KeyError).
* Bad responses: a missing, ``null`` or non-string ``response`` is reported and scored as
  ``''``; empty responses are scored as they are and counted; placeholders with an unknown
  name (``[hotel]``) are deleted as mwzeval does, and reported with their names. Malformed
  ``state`` parts (non-object domain, non-string value) are dropped and reported.
  Structural errors (top level not an object, a dialogue not a list, a turn not an
  object) raise :class:`PredictionError`.

Metrics (percent): Inform and Success per goal domain and ``total`` (:mod:`metrics.
inform_success`), BLEU = sacrebleu corpus BLEU (13a, exp smoothing) of the normalised
responses against the references, richness (:mod:`metrics.richness`) of the normalised
responses, ``combined = 0.5 · (inform + success) + bleu``.

Result (a dict)
---------------
* ``setting`` (``end-to-end`` / ``policy-optimisation``), ``state_source`` (``predicted`` /
  ``gold``), ``domain_source`` (``predicted`` / ``estimated`` / ``mixed``);
* ``inform``, ``success``, ``bleu``, ``combined`` (percent, unrounded),
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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from dst_eval.corpora.multiwoz.database import MultiwozDatabase
from dst_eval.corpora.multiwoz.delex import normalize_response, references_from_mwz21
from dst_eval.corpora.multiwoz.domains import estimate_active_domains
from dst_eval.corpora.multiwoz.goals import (
    Goal,
    booked_domains,
    derive_goal,
    goal_domains,
    load_multiwoz21,
)
from dst_eval.corpora.multiwoz.goals import gold_states as gold_states_from_metadata
from dst_eval.corpora.multiwoz.mwzeval_rules import normalize_state
from dst_eval.errors import GoldDataError, PredictionError, UsageError
from dst_eval.gold import dialogue_key
from dst_eval.jsonio import read_json
from dst_eval.metrics.bleu import BleuStats, corpus_bleu_from_stats
from dst_eval.metrics.inform_success import (
    DialogueOutcome,
    GoalDomain,
    dialogue_inform_success,
    inform_success_rates,
)
from dst_eval.metrics.richness import lexdiv_tokenize, richness
from dst_eval.metrics.tokenizers import get_tokenizer

MISSING_POLICIES = ("wrong", "skip")
MAX_EXAMPLES = 5

State = dict[str, dict[str, str]]


@dataclass(frozen=True)
class ResponseGold:
    """Everything response scoring compares against, keyed by dialogue key."""

    goals: Mapping[str, Goal]
    """mwzeval goals (``goals.json`` shape)."""
    booked: Mapping[str, Sequence[Sequence[str]]]
    """Per system turn, the domains booked so far."""
    references: Mapping[str, Sequence[str]]
    """Normalised reference response per system turn."""
    states: Mapping[str, Sequence[Mapping[str, Mapping[str, str]]]]
    """Normalised gold state per system turn (policy-optimisation setting)."""
    database: MultiwozDatabase
    sources: Mapping[str, str] = field(default_factory=dict)
    """Where references and gold states come from (for the report)."""
    _goal_domains: Mapping[str, Mapping[str, GoalDomain]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        for key in self.goals:
            n_turns = len(self.booked[key])
            if len(self.references[key]) != n_turns or len(self.states[key]) != n_turns:
                raise GoldDataError("references, gold states and booked domains disagree on "
                                    "the number of system turns", dialogue=key)
        object.__setattr__(self, "_goal_domains",
                           {k: goal_domains(g) for k, g in self.goals.items()})

    @property
    def dialogue_ids(self) -> tuple[str, ...]:
        return tuple(self.goals)

    def n_turns(self, key: str) -> int:
        return len(self.booked[key])

    def goal_domains(self, key: str) -> Mapping[str, GoalDomain]:
        return self._goal_domains[key]




def _source_name(source: str | Path | Mapping) -> str:
    return "<mapping given by the caller>" if isinstance(source, Mapping) else str(source)


def _turn_lists(source: str | Path | Mapping, keys: Mapping[str, int],
                what: str) -> dict[str, list]:
    """Per-dialogue lists from an mwzeval-format file or mapping, checked against the gold."""
    path = _source_name(source)
    data = source if isinstance(source, Mapping) else read_json(source, error=GoldDataError)
    if not isinstance(data, dict | Mapping):
        raise GoldDataError(f"expected an mwzeval {what} file {{dialogue id: [...]}}",
                            file=path)
    out = {dialogue_key(k): v for k, v in data.items()}
    for key, n_turns in keys.items():
        turns = out.get(key)
        if not isinstance(turns, list):
            raise GoldDataError(f"no {what} for this dialogue", file=path, dialogue=key)
        if len(turns) != n_turns:
            raise GoldDataError(f"{len(turns)} {what} for {n_turns} system turns",
                                file=path, dialogue=key)
    return {key: out[key] for key in keys}


def load_response_gold(
    data: str | Path,
    db_dir: str | Path,
    *,
    ids: Iterable[str] | None = None,
    references: str | Path | Mapping[str, Sequence[str]] | None = None,
    gold_states: str | Path | Mapping[str, Sequence[Mapping]] | None = None,
) -> ResponseGold:
    """Build :class:`ResponseGold` from MultiWOZ 2.1 data (see the module docstring).

    ``references`` / ``gold_states``: a file in mwzeval's format, or an already built mapping
    (e.g. :func:`.delex.load_mwz22_references`, :func:`.goals.gold_states_from_mwz22`).
    """
    cacheable = all(isinstance(x, str | Path) or x is None for x in (references, gold_states))
    if not cacheable:
        return _load_response_gold(data, db_dir, ids=ids, references=references,
                                   gold_states=gold_states)
    return _cached_response_gold(data, db_dir, ids=ids, references=references,
                                 gold_states=gold_states)


def _code_digest() -> str:
    """Digest of the code that derives the response gold: new code, new cache entries."""
    import hashlib

    from dst_eval.corpora.multiwoz import delex, goals, mwzeval_rules

    digest = hashlib.sha256()
    for module_file in (__file__, goals.__file__, delex.__file__, mwzeval_rules.__file__):
        digest.update(Path(module_file).read_bytes())
    return digest.hexdigest()[:16]


def _cached_response_gold(data: str | Path, db_dir: str | Path, *, ids: Iterable[str] | None,
                          references: str | Path | None,
                          gold_states: str | Path | None) -> ResponseGold:
    """:func:`_load_response_gold` with its derived goals, booked domains, references and
    gold states cached on disk (:mod:`dst_eval.diskcache`), keyed by the input files, the
    dialogue ids and the deriving code; the database is always read afresh."""
    from dst_eval.diskcache import cached

    wanted = None if ids is None else tuple(ids)
    inputs = [Path(data), None if references is None else Path(references),
              None if gold_states is None else Path(gold_states)]

    def build() -> tuple:
        gold = _load_response_gold(data, db_dir, ids=wanted, references=references,
                                   gold_states=gold_states)
        distinct = {text for turns in gold.references.values() for text in turns}
        tokenized = {text: _TOKENIZE_13A(text.rstrip()) for text in distinct}
        return (dict(gold.goals), dict(gold.booked), dict(gold.references), dict(gold.states),
                dict(gold.sources), tokenized)

    version = (2, _code_digest(), wanted)
    goals, booked, refs, states, sources, tokenized = cached("mwz-response", version, inputs,
                                                            build)
    _PRETOKENIZED.update(tokenized)
    return ResponseGold(goals, booked, refs, states, MultiwozDatabase.load(db_dir), sources)


def _load_response_gold(
    data: str | Path,
    db_dir: str | Path,
    *,
    ids: Iterable[str] | None,
    references: str | Path | Mapping[str, Sequence[str]] | None,
    gold_states: str | Path | Mapping[str, Sequence[Mapping]] | None,
) -> ResponseGold:
    dialogues = load_multiwoz21(data, ids=ids)
    file = str(data)
    goals = {k: derive_goal(d["goal"], file=file, dialogue=k) for k, d in dialogues.items()}
    booked = {k: booked_domains(d, file=file, dialogue_id=k) for k, d in dialogues.items()}
    n_turns = {k: len(v) for k, v in booked.items()}
    sources = {}
    if references is None:
        refs = references_from_mwz21(dialogues, file=file)
        sources["references"] = f"{Path(data).name}: 2.1 span_info"
    else:
        refs = _turn_lists(references, n_turns, "references")
        for key, turns in refs.items():
            if not all(isinstance(t, str) for t in turns):
                raise GoldDataError("references must be strings",
                                    file=_source_name(references), dialogue=key)
        sources["references"] = _source_name(references)
    if gold_states is None:
        states = {k: gold_states_from_metadata(d, file=file, dialogue_id=k)
                  for k, d in dialogues.items()}
        sources["gold_states"] = f"{Path(data).name}: 2.1 metadata"
    else:
        states = _turn_lists(gold_states, n_turns, "gold states")
        for key, turns in states.items():
            for index, state in enumerate(turns):
                _check_gold_state(state, file=_source_name(gold_states), dialogue=key,
                                  turn=index)
        sources["gold_states"] = _source_name(gold_states)
    for turns in refs.values():  # count reference n-grams once, for every system scored
        for text in turns:
            _ngram_counts(text)
    return ResponseGold(goals, booked, refs, states, MultiwozDatabase.load(db_dir), sources)


def _check_gold_state(state: Any, *, file: str, dialogue: str, turn: int) -> None:
    ok = isinstance(state, dict) and all(
        isinstance(slots, dict) and all(isinstance(v, str) for v in slots.values())
        for slots in state.values()
    )
    if not ok:
        raise GoldDataError("a gold state must be {domain: {slot: string}}", file=file,
                            dialogue=dialogue, turn=turn)


# ---------------------------------------------------------------------------------------------
# Problems
# ---------------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------------
# Reading one prediction turn
# ---------------------------------------------------------------------------------------------


@dataclass
class _Turn:
    response: str
    """Normalised response."""
    state: State | None
    """Normalised predicted state, None when the turn has no ``state``."""
    active: list[str] | None
    """Given active domains, None when absent or unusable."""


def _read_response(turn: Mapping[str, Any], where: str, problems: _Problems) -> str:
    if "response" not in turn:
        problems.add("response_missing", where, "no 'response'; scored as ''")
        return ""
    raw = turn["response"]
    if not isinstance(raw, str):
        kind = "response_null" if raw is None else "response_not_string"
        problems.add(kind, where, f"response is {type(raw).__name__}; scored as ''")
        return ""
    if not raw.strip():
        problems.add("response_empty", where)
    text, unknown = normalize_response(raw)
    if unknown:
        problems.add("unknown_placeholder", where,
                     "deleted " + ", ".join(f"[{u}]" for u in unknown), count=len(unknown))
    return text


def _read_state(raw: Any, where: str, problems: _Problems) -> State:
    if not isinstance(raw, dict):
        problems.add("bad_state", where, f"state is {type(raw).__name__}, not an object; "
                     "used as empty")
        return {}
    clean: dict[str, dict[str, str]] = {}
    for domain, slots in raw.items():
        if not isinstance(slots, dict):
            problems.add("bad_state", where, f"domain {domain!r} is not an object; dropped")
            continue
        kept = {}
        for slot, value in slots.items():
            if isinstance(value, str):
                kept[slot] = value
            else:
                problems.add("bad_state", where,
                             f"{domain}-{slot} is {type(value).__name__}; dropped")
        clean[domain] = kept
    return normalize_state(clean)


def _read_active(raw: Any, where: str, problems: _Problems) -> list[str] | None:
    if isinstance(raw, list) and all(isinstance(d, str) for d in raw):
        return list(raw)
    problems.add("bad_active_domains", where, "active_domains must be a list of strings; "
                 "estimated instead")
    return None


def _read_dialogue(key: str, turns: Any, n_gold: int, *, file: str | None,
                   problems: _Problems) -> tuple[list[_Turn], bool, bool]:
    """Turns within the gold length, and whether *all* turns (extra ones included) have
    ``state`` / ``active_domains`` (mwzeval looks at every input turn)."""
    if not isinstance(turns, list):
        raise PredictionError("a dialogue must be a list of system turns", file=file,
                              dialogue=key)
    if len(turns) > n_gold:
        problems.add("extra_turns", _where(key), f"{len(turns)} turns for {n_gold} system turns; "
                     "the extra ones are ignored", count=len(turns) - n_gold)
    if len(turns) < n_gold:
        problems.add("missing_turns", _where(key), f"{len(turns)} of {n_gold} turns",
                     count=n_gold - len(turns))
    all_states = all_active = True
    read: list[_Turn] = []
    previous: tuple[Any, State] | None = None  # states often repeat turn after turn
    for index, turn in enumerate(turns):
        if not isinstance(turn, dict):
            raise PredictionError("a turn must be an object with a 'response'", file=file,
                                  dialogue=key, turn=index)
        all_states &= "state" in turn
        all_active &= "active_domains" in turn
        if index >= n_gold:
            continue
        where = _where(key, index)
        state = None
        if "state" in turn:
            if previous is not None and turn["state"] == previous[0]:
                state = previous[1]  # read-only downstream: sharing is safe
            else:
                bad_before = problems.counts["bad_state"]
                state = _read_state(turn["state"], where, problems)
                clean = problems.counts["bad_state"] == bad_before
                previous = (turn["state"], state) if clean else None
        active = (_read_active(turn["active_domains"], where, problems)
                  if "active_domains" in turn else None)
        read.append(_Turn(_read_response(turn, where, problems), state, active))
    return read, all_states, all_active


# ---------------------------------------------------------------------------------------------
# BLEU
# ---------------------------------------------------------------------------------------------


_TOKENIZE_13A = get_tokenizer("13a")
_PRETOKENIZED: dict[str, str] = {}
"""13a tokenisations of reference texts loaded with the cached response gold."""


@lru_cache(maxsize=1 << 17)
def _ngram_counts(text: str) -> tuple[int, Counter]:
    """sacrebleu 13a tokens of ``text.rstrip()`` -> (length, counts of its 1- to 4-grams).

    One Counter holds all orders: unigrams are strings, longer n-grams tuples.
    """
    tokenized = _PRETOKENIZED.get(text)
    tokens = (_TOKENIZE_13A(text.rstrip()) if tokenized is None else tokenized).split()
    counts = Counter(tokens)
    second, third = tokens[1:], tokens[2:]
    counts.update(zip(tokens, second, strict=False))
    counts.update(zip(tokens, second, third, strict=False))
    counts.update(zip(tokens, second, third, tokens[3:], strict=False))
    return len(tokens), counts


def bleu_statistics(hyps: Sequence[str], refs: Sequence[str]) -> BleuStats:
    """Per-segment BLEU statistics (one reference each, 13a, case-sensitive).

    The same numbers as :func:`dst_eval.metrics.bleu.segment_statistics` (tests check it),
    with every distinct text tokenised and counted once per process: references are
    shared by every system scored and delexicalised hypotheses repeat.
    """
    n = len(hyps)
    matches = np.zeros((n, 4), dtype=np.int64)
    hyp_len = np.zeros(n, dtype=np.int64)
    ref_len = np.zeros(n, dtype=np.int64)
    for i, (hyp, ref) in enumerate(zip(hyps, refs, strict=True)):
        hyp_len[i], hyp_counts = _ngram_counts(hyp)
        ref_len[i], ref_counts = _ngram_counts(ref)
        row = [0, 0, 0, 0]
        for gram in hyp_counts.keys() & ref_counts.keys():
            order = len(gram) - 1 if type(gram) is tuple else 0
            row[order] += min(hyp_counts[gram], ref_counts[gram])
        matches[i] = row
    totals = np.maximum(0, hyp_len[:, None] - np.arange(4)[None, :])
    return BleuStats(matches, totals, hyp_len, ref_len, "13a", False, 1)


@lru_cache(maxsize=1 << 17)
def _lexdiv_tokens(text: str) -> tuple[str, ...]:
    return tuple(lexdiv_tokenize(text))


def _corpus_bleu(stats: BleuStats) -> float:
    """sacrebleu ``corpus_bleu`` at its defaults, from the per-segment statistics."""
    return corpus_bleu_from_stats(stats) if len(stats) else 0.0


# ---------------------------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------------------------


def _match_ids(gold: ResponseGold, predictions: Mapping[str, Any], *, file: str | None,
               problems: _Problems) -> dict[str, Any]:
    matched: dict[str, Any] = {}
    for raw_id, turns in predictions.items():
        key = dialogue_key(raw_id)
        if key not in gold.goals:
            problems.add("unknown_dialogue", _where(str(raw_id)), "not in the gold data; ignored")
            continue
        if key in matched:
            problems.add("duplicate_dialogue", _where(str(raw_id)),
                         "same dialogue twice; the first is used")
            continue
        matched[key] = turns
    return matched


def score_responses(
    gold: ResponseGold,
    predictions: Mapping[str, Any],
    *,
    compat: bool,
    missing: str = "wrong",
    file: str | None = None,
) -> dict[str, Any]:
    """Score delexicalised responses (see the module docstring for inputs and output)."""
    return _score_responses(gold, predictions, compat=compat, missing=missing, file=file)


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


def _read_predictions(gold: ResponseGold, predictions: Mapping[str, Any], *,
                      file: str | None, problems: _Problems) -> tuple[dict, bool, bool, bool]:
    """Read turns of the known dialogues; whether every turn has state / active_domains,
    and whether any turn has a state."""
    read: dict[str, list[_Turn]] = {}
    every_state = every_active = True
    any_state = False
    for key, turns in _match_ids(gold, predictions, file=file, problems=problems).items():
        read[key], all_states, all_active = _read_dialogue(
            key, turns, gold.n_turns(key), file=file, problems=problems)
        every_state &= all_states
        every_active &= all_active
        any_state |= any(t.state is not None for t in read[key])
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
    outcome = dialogue_inform_success(gold.goal_domains(key), responses, states, active,
                                      gold.booked[key], query=gold.database.query_set)
    run.add(key, outcome, responses, gold.references[key][:len(turns)], scored=True)


def _score_responses(
    gold: ResponseGold,
    predictions: Mapping[str, Any],
    *,
    compat: bool,
    missing: str,
    file: str | None,
) -> dict[str, Any]:
    if missing not in MISSING_POLICIES:
        raise UsageError(f"unknown missing policy {missing!r}; known: wrong, skip")
    if not isinstance(predictions, Mapping):
        raise PredictionError("predictions must be a JSON object {dialogue_id: [turns]}",
                              file=file)
    run = _Run(_Problems())
    read, every_state, every_active, any_state = _read_predictions(
        gold, predictions, file=file, problems=run.problems)
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
                run.add(key, DialogueOutcome.failed(gold.goal_domains(key)), [""] * n_gold,
                        gold.references[key], scored=False)
            continue
        n_read = len(turns)
        if missing == "wrong" and n_read < n_gold:
            run.n_padded += n_gold - n_read
            turns = turns + [_Turn("", None, None) for _ in range(n_gold - n_read)]
        _score_dialogue(gold, key, turns, run, n_read=n_read, gold_states=gold_states,
                        estimate_all=estimate_all)
    if not run.outcomes:
        raise PredictionError("no prediction matches a gold dialogue", file=file)
    if not compat and run.n_estimated and run.n_given:
        run.problems.add("missing_active_domains", f"{run.n_estimated} turns",
                         "estimated from states", count=run.n_estimated)
    # richness in input order, as mwzeval (MSTTR windows run over the concatenation)
    given = [t.response for turns in read.values() for t in turns]
    return _result(gold, run, given, gold_states=gold_states, n_read=len(read))


def _result(gold: ResponseGold, run: _Run, given: list[str], *, gold_states: bool,
            n_read: int) -> dict[str, Any]:
    rates = inform_success_rates(run.outcomes)
    stats = bleu_statistics(run.hyps, run.refs)
    bleu = _corpus_bleu(stats)
    rich = richness([_lexdiv_tokens(r) for r in given]) if given else None
    inform, success = rates.inform(), rates.success()
    inform_rates, success_rates = rates.inform_rates(), rates.success_rates()
    official = {
        "bleu": {"mwz22": bleu},
        "success": {
            "inform": {k: round(v, 1) for k, v in inform_rates.items()},
            "success": {k: round(v, 1) for k, v in success_rates.items()},
        },
        "richness": rich,
    }
    return {
        "setting": "policy-optimisation" if gold_states else "end-to-end",
        "state_source": "gold" if gold_states else "predicted",
        "domain_source": ("estimated" if run.n_given == 0
                          else "predicted" if run.n_estimated == 0 else "mixed"),
        "inform": inform,
        "success": success,
        "bleu": bleu,
        "combined": 0.5 * (inform + success) + bleu,
        "inform_by_domain": {k: v for k, v in inform_rates.items() if k != "total"},
        "success_by_domain": {k: v for k, v in success_rates.items() if k != "total"},
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
