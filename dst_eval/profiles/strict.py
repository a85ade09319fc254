"""The ``strict`` profile: the default for every corpus.

* values normalised by the corpus's documented policy (``configs/<corpus>.toml``,
  overridable), on gold variants and predictions alike — nothing else;
* a predicted value leaves its slot unset when it is ``""`` or whitespace only, or, for
  a corpus whose config lists unset words (``[values] unset``; MultiWOZ: ``none`` and
  ``not mentioned``, any case, surrounding whitespace ignored), one of those words
  (:class:`~dst_eval.normalize.Unset` ``blank+words``, applied to the value as written,
  before normalisation); a slot given twice takes its first value that is set;
* a prediction is correct when it equals any gold variant; a prediction is one value;
* ``dontcare`` is a value like any other (``--dontcare ignore`` removes it on both sides);
* every gold turn counts: a missing dialogue or turn is reported and is wrong for every
  metric (``missing="wrong"``, the rule per metric is in README "Missing predictions");
  ``missing="empty"`` scores it as an empty prediction, ``missing="skip"`` reproduces the
  official scorers' silent skipping;
* per-turn aggregation (never per frame).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache

import numpy as np

from dst_eval import corpora
from dst_eval.alignment import Alignment, TurnPairs, unframed_services
from dst_eval.config import corpus_config
from dst_eval.errors import UsageError
from dst_eval.gold import GoldTurn
from dst_eval.metrics import (
    FinalTurnJointGoalAccuracy,
    GranularChangeAccuracy,
    ImprovedAverageGoalAccuracy,
    dst_metrics,
    error_counts,
    turn_table,
)
from dst_eval.metrics.base import TurnTable
from dst_eval.metrics.domain_jga import domain_metrics
from dst_eval.metrics.jga import JointGoalAccuracy
from dst_eval.metrics.state_codes import Interner, NotCodable, StateCodes
from dst_eval.metrics.state_compare import SlotOutcome, coded_table
from dst_eval.normalize import Normalizer, Unset
from dst_eval.options import EvalOptions
from dst_eval.predictions.adapted import UNSET_MARKER
from dst_eval.predictions.model import PredTurn
from dst_eval.result import Result

DONTCARE = "dontcare"
GROUP_METRIC_NAMES = ("joint_goal_accuracy", "slot_f1", "average_goal_accuracy",
                      "relative_slot_accuracy")
DEPTH_CAP = 10  # turn depths >= 10 share one bucket
UNSET_RULES = "blank+words"
"""The strict profile's unset values: empty, whitespace-only, the corpus's unset words."""


def normalizer_for(corpus: str, options: EvalOptions) -> Normalizer:
    config = corpus_config(corpus)
    return Normalizer(options.normalisation or config.normalisation, config.multi_value_slots)


@cache
def unset_for(corpus: str, marker: str | None = None) -> Unset:
    """The strict profile's :class:`Unset` for ``corpus`` (words: ``[values] unset``), plus
    ``marker``: the literal the predictions' format writes for every unset slot (TripPy
    ``none``, LDST ``NONE``; ``PredictionSet.metadata[UNSET_MARKER]``), which is unset
    whatever the corpus (the format says so, not the value) -- exactly as written: SGD's
    value ``None`` (``Media_2-subtitle_language``) stays a value under LDST's ``NONE``."""
    words = corpus_config(corpus).raw.get("values", {}).get("unset", [])
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise UsageError(f"configs/{corpus}.toml: [values] unset must be a list of strings")
    return Unset(UNSET_RULES, words, literal=marker)


def format_marker(alignment: Alignment) -> str | None:
    """The unset literal the predictions' format declares (None: it declares none)."""
    return alignment.predictions.metadata.get(UNSET_MARKER)


def gold_rule(norm: Normalizer, dontcare: str
              ) -> Callable[[tuple[str, tuple[str, ...]]], tuple[str, tuple[str, ...]] | None]:
    """The profile's rule for one gold ``(slot, variants)`` item, written once for
    :func:`gold_states` and :func:`coded_states`: the variants normalised; None (left out)
    for a ``dontcare`` variant under ``dontcare="ignore"``."""
    ignore = dontcare == "ignore"

    def rule(item: tuple[str, tuple[str, ...]]) -> tuple[str, tuple[str, ...]] | None:
        variants = norm.variants(*item)
        return None if ignore and DONTCARE in variants else (item[0], variants)
    return rule


def pred_rule(norm: Normalizer, dontcare: str, unset: Unset
              ) -> Callable[[tuple[str, str]], tuple[str, str] | None]:
    """The profile's rule for one predicted ``(slot, value)`` item, written once for
    :func:`pred_states` and :func:`coded_states`: the value normalised; None (left out) for
    an ``unset`` value, and for ``dontcare`` under ``dontcare="ignore"``."""
    ignore, test = dontcare == "ignore", unset.test

    def rule(item: tuple[str, str]) -> tuple[str, str] | None:
        if test(item[1]):
            return None
        value = norm(*item)
        return None if ignore and value == DONTCARE else (item[0], value)
    return rule


def gold_states(turns: list[GoldTurn], norm: Normalizer, dontcare: str
                ) -> list[dict[str, tuple[str, ...]]]:
    """Each turn's state under :func:`gold_rule`. Turns that share one state object (a
    loader reuses it while the state does not change) share one result, and each distinct
    ``(slot, variants)`` item is normalised once. Built for breakdowns (and states
    :func:`coded_states` does not cover); the scores use :func:`coded_states`."""
    rule = Interner(gold_rule(norm, dontcare)).__getitem__
    memo: dict[int, dict[str, tuple[str, ...]]] = {}  # id(state) -> normalised; turns alive
    out = []
    for turn in turns:
        state = memo.get(id(turn.state))
        if state is None:
            state = memo[id(turn.state)] = dict(filter(None, map(rule, turn.state.items())))
        out.append(state)
    return out


def pred_states(preds: list[PredTurn | None], norm: Normalizer, dontcare: str,
                unset: Unset) -> list[dict[str, str]]:
    """Each predicted turn's set slots under :func:`pred_rule`; ``{}`` for a missing turn.
    Each distinct ``(slot, value)`` item is tested and normalised once. Built for
    breakdowns, as :func:`gold_states`."""
    rule = Interner(pred_rule(norm, dontcare, unset)).__getitem__
    return [dict(filter(None, map(rule, _written_items(pred, unset)))) for pred in preds]


def _written_items(pred: PredTurn | None, unset: Unset) -> Iterable[tuple[str, str]]:
    """A predicted turn's items as written; a repeated slot takes its first value that is
    set (``Unset.items``)."""
    if pred is None or not pred.state:
        return ()
    if pred.duplicates:
        return unset.items(pred.state, pred.duplicates)
    return pred.state.items()


def coded_states(turns: list[GoldTurn], preds: list[PredTurn | None], norm: Normalizer,
                 dontcare: str, unset: Unset) -> StateCodes | None:
    """The states of :func:`gold_states` and :func:`pred_states`, coded for
    :func:`~dst_eval.metrics.state_compare.coded_table` without building them: each distinct
    item as written goes through :func:`gold_rule` or :func:`pred_rule` once and becomes an
    item id, each turn the list of its item ids (-1: left out). None when a state is not
    codable (the caller then scores the dicts, which also words any error)."""
    codes = StateCodes()
    gold_items, pred_items = codes.interners()
    gold_item, pred_item = gold_items.__getitem__, pred_items.__getitem__
    gold_kept, pred_kept = gold_rule(norm, dontcare), pred_rule(norm, dontcare, unset)

    def gold_id(item: tuple[str, tuple[str, ...]]) -> int:
        kept = gold_kept(item)
        return -1 if kept is None else gold_item(kept)

    def pred_id(item: tuple[str, str]) -> int:
        kept = pred_kept(item)
        return -1 if kept is None else pred_item(kept)

    gold_ids, pred_ids = Interner(gold_id).__getitem__, Interner(pred_id).__getitem__
    shared: dict[int, list[int]] = {}  # id(state) -> its items: turns that share a state
    try:
        for turn in turns:
            ids = shared.get(id(turn.state))
            if ids is None:
                ids = shared[id(turn.state)] = list(map(gold_ids, turn.state.items()))
            codes.gold_rows.append(ids)
        for pred in preds:
            codes.pred_rows.append(list(map(pred_ids, _written_items(pred, unset))))
    except (NotCodable, TypeError):  # TypeError: an unhashable value
        return None
    return codes


def has_state(gold: GoldTurn, pred: PredTurn | None) -> bool:
    """Whether ``pred`` predicts the turn's state: a turn exists, gives a ``state`` (a turn
    object with a response only does not), and -- SGD-style frames -- has a frame for
    every service the gold turn has one for (service names compared ignoring case)."""
    return pred is not None and pred.state is not None and not unframed_services(gold, pred)


def scored_pairs(alignment: Alignment, options: EvalOptions) -> TurnPairs:
    """The pairs a DST profile scores: ``missing="skip"`` leaves out the turns without a
    predicted state (:func:`has_state`)."""
    if options.missing == "skip":
        return TurnPairs.of((g, p) for g, p in alignment.pairs if has_state(g, p))
    return alignment.pairs


def predicted_states(pairs: Sequence[tuple[GoldTurn, PredTurn | None]]) -> np.ndarray:
    """:func:`has_state` of each pair (the per-turn ``predicted`` column), inline: a turn
    without frames needs no call (1.0 -> 0.4 ms on MultiWOZ 2.1 test)."""
    return np.fromiter((p is not None and p.state is not None
                        and (p.frames is None or not unframed_services(g, p)) for g, p in pairs),
                       dtype=bool, count=len(pairs))


def predicted_mask(present: np.ndarray, options: EvalOptions) -> np.ndarray | None:
    """``missing="wrong"``: ``present`` (:func:`predicted_states`; False = scored wrong, the
    ``predicted`` mask of :func:`~dst_eval.metrics.turn_table`); None otherwise (every turn
    scored as predicted, a missing one as an empty prediction)."""
    return present if options.missing == "wrong" else None


def domain_of(corpus: str) -> Callable[[str], str]:
    """Slot key -> domain, as the corpus config's ``slot_domain`` says (SGD: the service
    name before ``_``, ``Hotels_2`` -> ``Hotels``)."""
    return corpora.get(corpus).domain_of


def _restricted_scores(gold: list[dict], pred: list[dict], keep: Callable[[str], bool],
                       dialogue_ids: list[str]) -> dict[str, float] | None:
    rows = []
    for i, (g, p) in enumerate(zip(gold, pred, strict=True)):
        g_sub = {k: v for k, v in g.items() if keep(k)}
        p_sub = {k: v for k, v in p.items() if keep(k)}
        if g_sub or p_sub:
            rows.append((g_sub, p_sub, dialogue_ids[i]))
    if not rows:
        return None
    table = turn_table([r[0] for r in rows], [r[1] for r in rows],
                       dialogue_ids=[r[2] for r in rows], fga_lambdas=())
    metrics = {m.name: m for m in dst_metrics()}
    scores = {name: metrics[name].score(table) for name in GROUP_METRIC_NAMES}
    scores["turns"] = float(len(rows))
    return scores


def breakdowns(corpus: str, by: tuple[str, ...], gold: list[dict], pred: list[dict],
               turns: list[GoldTurn], table: TurnTable, outcomes: list[SlotOutcome],
               seen_services: frozenset[str] | None) -> dict[str, dict[str, float]]:
    """Group scores keyed ``"<kind>:<name>"`` for each requested breakdown kind."""
    groups: dict[str, dict[str, float]] = {}
    ids = [t.dialogue_id for t in turns]
    all_keys = sorted({k for s in gold for k in s} | {k for s in pred for k in s})
    domain = domain_of(corpus)
    for kind in by:
        if kind in ("domain", "service"):
            key_fn = domain if kind == "domain" else (lambda k: k.partition("-")[0])
            for name in sorted({key_fn(k) for k in all_keys}):
                scores = _restricted_scores(gold, pred, lambda k, n=name, f=key_fn: f(k) == n, ids)
                if scores:
                    groups[f"{kind}:{name}"] = scores
        elif kind == "seen":
            if seen_services is None:
                continue
            for label, want in (("seen", True), ("unseen", False)):
                scores = _restricted_scores(
                    gold, pred, lambda k, w=want: (k.partition("-")[0] in seen_services) == w, ids)
                if scores:
                    groups[f"seen:{label}"] = scores
        elif kind == "slot":
            for slot, counts in error_counts(outcomes).items():
                groups[f"slot:{slot}"] = counts
        elif kind == "depth":
            depth = np.minimum(np.array([t.turn_index for t in turns]), DEPTH_CAP)
            jga = JointGoalAccuracy()
            for d in sorted(set(depth.tolist())):
                rows = depth == d
                label = f"{d}+" if d == DEPTH_CAP else str(d)
                groups[f"depth:{label}"] = {"joint_goal_accuracy": jga.score(table, rows),
                                            "turns": float(rows.sum())}
        else:
            raise ValueError(f"unknown breakdown {kind!r}")
    return groups


def score(alignment: Alignment, options: EvalOptions, result: Result | None = None) -> Result:
    gold_set = alignment.gold
    corpus = gold_set.corpus
    norm = normalizer_for(corpus, options)
    pairs = scored_pairs(alignment, options)
    turns = [g for g, _ in pairs]
    marker = format_marker(alignment)
    unset = unset_for(corpus, marker)
    preds = [p for _, p in pairs]
    present = predicted_states(pairs)
    # scored only when the gold annotates them and the predictions carry them
    with_requested = (any(t.requested_slots for t in turns)
                      and any(p is not None and p.requested_slots is not None for p in preds))
    with_intents = (any(t.active_intents for t in turns)
                    and any(p is not None and p.active_intents is not None for p in preds))
    # the slot outcomes (84,590 records on SGD dev: 14 MB, ~40 ms) only for ``--by slot``,
    # which the HTML report asks for
    outcomes: list[SlotOutcome] | None = [] if "slot" in options.by else None
    table_options = dict(
        dialogue_ids=[t.dialogue_id for t in turns],
        fga_lambdas=options.fga_lambdas, outcomes=outcomes,
        requested_true=[t.requested_slots for t in turns] if with_requested else None,
        requested_pred=[p.requested_slots if p else None for p in preds] if with_requested
        else None,
        intents_true=[t.active_intents for t in turns] if with_intents else None,
        intents_pred=[p.active_intents if p else None for p in preds] if with_intents else None,
        predicted=predicted_mask(present, options),
        turn_numbers=[t.turn_index for t in turns],
    )
    # coded states, scored on arrays: the dicts of gold_states/pred_states are built only
    # for breakdowns (or states the codes do not cover); 125 -> 50 ms on MultiWOZ 2.1 test
    codes = coded_states(turns, preds, norm, options.dontcare, unset)
    table = coded_table(codes, **table_options) if codes is not None else None
    gold: list[dict] = []
    pred: list[dict] = []
    if table is None or options.by:  # the states as dicts: the general table, breakdowns
        gold = gold_states(turns, norm, options.dontcare)
        pred = pred_states(preds, norm, options.dontcare, unset)
    if table is None:
        table = turn_table(gold, pred, **table_options)
    n_slots = len(gold_set.slots) or len(corpus_config(corpus).slots)
    metrics = dst_metrics(n_slots=n_slots, fga_lambdas=options.fga_lambdas,
                          requested=with_requested, intents=with_intents)
    metrics += [ImprovedAverageGoalAccuracy(), GranularChangeAccuracy(),
                FinalTurnJointGoalAccuracy(), *domain_metrics(table)]
    if options.metrics:
        metrics = [m for m in metrics if m.name in options.metrics]
    scores = {m.name: m.score(table) for m in metrics}
    groups = breakdowns(corpus, options.by, gold, pred, turns, table, outcomes or [],
                        gold_set.seen_services)
    per_turn = {"dialogue_id": [t.dialogue_id for t in turns],
                "turn_index": [t.turn_index for t in turns],
                "predicted": present.tolist()}
    per_turn.update(table.columns)
    notes = []
    if not n_slots:
        notes.append("slot_accuracy: n/a (the corpus defines no slot list)")
    if not with_intents:
        notes.append("active_intent_accuracy: n/a (no intents in the gold or the predictions)")
    if not with_requested:
        notes.append("requested_slots_*: n/a (no requested slots in the gold or the predictions)")
    if "seen" in options.by and gold_set.seen_services is None:
        notes.append("--by seen: no seen/unseen groups (the gold has no training schema, "
                     "train/schema.json, to tell seen services from unseen ones)")
    return (result or Result()).add(
        scores=scores,
        signature_fields={"norm": norm.signature, "match": "exact-any-variant",
                          "dontcare": options.dontcare, "agg": "turn",
                          "missing": options.missing,
                          **({"format-unset": marker} if marker is not None
                             and not unset_for(corpus).test(marker) else {})},
        groups=groups,
        per_turn=per_turn,
        notes=notes,
        counts={"turns": len(turns), "dialogues": len({t.dialogue_id for t in turns}),
                "slots_in_list": n_slots},
        table=table,
        metric_objects=metrics,
        outcomes=outcomes,
    )
