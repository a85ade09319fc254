"""The JMultiWOZ ``official`` profile: nu-dialogue/jmultiwoz ``evaluate.py`` (task ``e2e``).

SCORERS.md §6. Per SYSTEM turn (one gold turn each), both states are written as the
official state string -- ``"{domain} {slot} {value}"`` for every filled belief slot and
then the domain's booking slots (``restaurant people 2``: the canonical key
``restaurant-book_people`` loses its ``book_``), joined with ``", "`` -- and split back
on ``", "`` into a set S (an empty state gives ``{""}``):

* ``joint_goal_accuracy`` = mean over turns of 1[S_gold = S_pred];
* ``slot_f1`` = mean over turns of F1_t, with tp = |S_gold ∩ S_pred|, F1_t = 0 when
  tp = 0, else 2PR/(P+R) (two empty states: {""} = {""}, F1_t = 1);
* ``response_bleu`` (when the predictions carry responses) = mean sentence BLEU,
  sacrebleu ``ja-mecab`` (MeCab + IPAdic), effective order, exp smoothing, 0-100.

No normalisation: values are compared raw (the config's ``nfkc`` is the strict profile's).
A predicted ``dialogue_state`` (the inference output) is read as written
(:func:`written_items`): booking slots count only for domains its ``belief_state``
lists, a falsy value (``false``, ``0``, ``[]``) is no value, and a list or a number is
formatted as Python formats it, as ``state_dict2str`` does.
Only an empty value is no value (``state_dict2str`` skips falsy values; :class:`Unset`
``empty``): a whitespace-only value such as ``" "`` or ``"\t"`` is a state item
(``"restaurant area  "``), and so are ``none`` and ``not mentioned`` -- false positives,
as in the official script.
Both DST numbers come from the metrics core run on the string sets. The official script
inner-joins predictions with the reference, so missing turns silently disappear; here
they are reported by the alignment and, with ``missing="wrong"`` (default), scored as
wrong (JGA 0, per-turn slot F1 0); ``missing="empty"`` scores them as empty predictions;
``missing="skip"`` reproduces the official number.
"""

from __future__ import annotations

from collections.abc import Mapping

from dst_eval.alignment import Alignment
from dst_eval.config import corpus_config
from dst_eval.metrics import turn_table
from dst_eval.metrics.bleu import bleu_signature, mean_sentence_bleu
from dst_eval.metrics.jga import JointGoalAccuracy
from dst_eval.metrics.slot_prf import SlotF1PerTurnMacro
from dst_eval.metrics.tokenizers import get_tokenizer
from dst_eval.normalize import Normalizer, Unset
from dst_eval.options import EvalOptions
from dst_eval.predictions.jmultiwoz_inference import DIALOGUE_STATE
from dst_eval.profiles.strict import predicted_mask, predicted_states, scored_pairs
from dst_eval.result import Result

BOOK_PREFIX = "book_"
BLEU_TOKENIZER = "ja-mecab-ipadic"
UNSET = Unset("empty")
"""``state_dict2str``'s ``if not value: continue``: only ``""`` (and null) is no value."""
OFFICIAL_NAMES = {"joint_goal_accuracy": "joint_goal_accuracy",
                  "slot_f1_turn_macro": "slot_f1", "bleu_sentence_mean": "response_bleu"}


def _slot_order(slots: tuple[str, ...]) -> dict[str, tuple[int, int, int]]:
    """Official string order: domains in slot-list order; a domain's belief then book slots."""
    domains: dict[str, int] = {}
    order = {}
    for position, key in enumerate(slots):
        domain, _, slot = key.partition("-")
        domains.setdefault(domain, len(domains))
        order[key] = (domains[domain], int(slot.startswith(BOOK_PREFIX)), position)
    return order


def state_string(state: Mapping[str, str], order: Mapping[str, tuple[int, int, int]]) -> str:
    """The official ``state_dict2str`` of a ``{"domain-slot": value}`` state."""
    unknown = (len(order), 0, 0)
    items = []
    for key in sorted((k for k in state if state[k]), key=lambda k: order.get(k, unknown)):
        domain, _, slot = key.partition("-")
        items.append(f"{domain} {slot.removeprefix(BOOK_PREFIX)} {state[key]}")
    return ", ".join(items)


def state_items(state: Mapping[str, str], order: Mapping[str, tuple[int, int, int]]
                ) -> set[str]:
    """The official comparison set: the state string split on ``", "``."""
    return set(state_string(state, order).split(", "))


def written_items(dialogue_state: Mapping) -> set[str]:
    """The official comparison set of a predicted ``dialogue_state`` as the file wrote it
    (``state_dict2str``): for each domain of ``belief_state`` its truthy values, then the
    truthy ``book_state`` values of that domain only, each ``f"{domain} {slot} {value}"``
    (a list or a number as Python formats it), joined and split on ``", "``."""
    belief = dialogue_state.get("belief_state") or {}
    book = dialogue_state.get("book_state") or {}
    items = []
    for domain, slots in belief.items():
        for part in (slots, book.get(domain) or {}):
            items.extend(f"{domain} {slot} {value}" for slot, value in part.items() if value)
    return set(", ".join(items).split(", "))


def _predicted_items(pred, order: Mapping[str, tuple[int, int, int]]) -> set[str]:
    """What the official script compares for a predicted turn: the state as written when
    the file gave a ``dialogue_state`` (JMultiWOZ's inference output), else the state."""
    if pred is None:
        return state_items({}, order)
    raw = (pred.extras or {}).get(DIALOGUE_STATE)
    if isinstance(raw, Mapping) and isinstance(raw.get("belief_state"), Mapping):
        return written_items(raw)
    return state_items(dict(UNSET.items(pred.state, pred.duplicates)), order)


def score(alignment: Alignment, options: EvalOptions, result: Result | None = None) -> Result:
    gold_set = alignment.gold
    order = _slot_order(gold_set.slots or corpus_config(gold_set.corpus).slots)
    pairs = scored_pairs(alignment, options)
    present = predicted_states(pairs)
    turns = [g for g, _ in pairs]
    ids = [t.dialogue_id for t in turns]
    gold = [state_items({k: v[0] for k, v in t.state.items() if v}, order) for t in turns]
    pred = [_predicted_items(p, order) for _, p in pairs]
    table = turn_table([{i: (i,) for i in g} for g in gold], [{i: i for i in p} for p in pred],
                       dialogue_ids=ids, fga_lambdas=(), predicted=predicted_mask(present, options))
    metrics = [JointGoalAccuracy(), SlotF1PerTurnMacro()]
    if options.metrics:
        metrics = [m for m in metrics if m.name in options.metrics]
    scores = {m.name: m.score(table) for m in metrics}
    signature_fields = {"norm": Normalizer("exact").signature, "match": "state-string-set",
                        "agg": "turn-macro", "missing": options.missing}

    notes = []
    with_responses = any(p is not None and p.response is not None for _, p in pairs)
    if with_responses and (not options.metrics or "bleu_sentence_mean" in options.metrics):
        # a response that is not a string (the reader's bad_response) is scored as ""
        hyps = [p.response if p is not None and type(p.response) is str else ""
                for _, p in pairs]
        refs = [t.system_response or "" for t in turns]
        scores["bleu_sentence_mean"] = mean_sentence_bleu(hyps, [refs], tokenize=BLEU_TOKENIZER)
        signature_fields["bleu"] = f"sentence-mean-{get_tokenizer(BLEU_TOKENIZER).signature()}"
        notes.append("response_bleu: " + bleu_signature(tokenize=BLEU_TOKENIZER,
                                                        aggregate="sentence-mean"))
        n_without = sum(p is None or p.response is None for _, p in pairs)
        if n_without:
            notes.append(f"{n_without} scored turns have no predicted response: BLEU scores "
                         "them against an empty hypothesis")
    elif not with_responses:
        notes.append("response_bleu: n/a (the predictions carry no responses)")
    if options.normalisation:
        notes.append("--norm is ignored by the official profile (it compares raw strings)")
    if options.dontcare != "value":
        notes.append("--dontcare is ignored by the official profile (dontcare is a value)")
    if options.by:
        notes.append("the official profile reports the official means only; use the strict "
                     "profile for --by breakdowns")

    official: dict[str, float | int] = {OFFICIAL_NAMES[k]: v for k, v in scores.items()}
    official["count"] = len(turns)
    per_turn = {"dialogue_id": ids, "turn_index": [t.turn_index for t in turns],
                "predicted": present.tolist()}
    per_turn.update(table.columns)
    return (result or Result()).add(
        scores=scores,
        signature_fields=signature_fields,
        official=official,
        per_turn=per_turn,
        notes=notes,
        counts={"turns": len(turns), "dialogues": len(set(ids)),
                "missing_turns": alignment.n_missing_turns},
    )
