"""Per-frame metrics of the official SGD (DSTC8) scorer, and their aggregation.

A *frame* is one service's annotation of one user turn. Reference and hypothesis
frames are duck-typed objects with ``active_intent``, ``requested_slots``,
``slot_values`` and ``spans`` (objects with ``slot``, ``start``, ``end``; None on the
hypothesis side when it has no spans). A reference frame's ``slot_values`` maps a slot to
its gold values ``(value, variant, ...)``; a hypothesis frame's maps a slot to its ONE
predicted value (the official scorer reads the first of a predicted list). Both sides and
the service's slot sets name slots alike; spans may name them otherwise (the service's
``span_slots``).

Slot score ``sc(k)`` for slot ``k`` of the service schema ``S``:

* ``k`` in neither ref nor hyp: 1; in exactly one: 0;
* categorical, in both: ``1[hyp_k == ref_k[0]]`` (first gold value only);
* non-categorical, in both: ``max_{r in ref_k} m(r, hyp_k)`` with
  ``m = token_sort_ratio(r, h) / 100`` (fuzzy, partial credit) or ``1[r == h]`` (exact).
  A hypothesis value that is not a string (a JSON value as a file wrote it) equals no
  gold value; fuzzy matching takes its ``str()``, and ``None`` scores 0 (fuzzywuzzy's
  rules, as the official scorer applies them).

Per frame (NaN = not applicable, left out of every mean):

* ``joint_goal_accuracy = prod_{k in S} sc(k)``; ``joint_cat_accuracy`` /
  ``joint_noncat_accuracy``: the product over the categorical / non-categorical slots
  of ``S`` (NaN if there is none);
* ``average_goal_accuracy = mean_{k in S, k in ref} sc(k)`` (NaN if ref is empty);
  ``average_cat_accuracy`` / ``average_noncat_accuracy`` likewise per kind;
* ``active_intent_accuracy = 1[ref intent == hyp intent]`` (``NONE`` included; a
  hypothesis intent written as null, :data:`WRITTEN_NULL`, is wrong, and requested slots
  written as null are none, as the official scorer reads them; a hypothesis without the
  key, ``None``, leaves the metric: NaN);
* ``requested_slots_{precision,recall,f1}`` and ``slot_tagging_{...}``: multiset
  scores :func:`f1_multiset` (tagging over ``(slot, utterance[start:end])`` of the
  non-categorical slots, only when the hypothesis frame has spans).

A frame without prediction (``predicted`` False in :func:`score_frames`: a missing
dialogue, turn or service frame under ``missing: wrong``) is scored against an empty
hypothesis frame to decide which metrics apply, and then every applicable (non-NaN)
metric of it is 0: a wrong intent, no requested-slot or tagging credit, a joint miss,
every gold slot a miss.

Aggregation (:func:`group_means`): the mean over the non-NaN frames of a group
(per-frame macro average). MultiWOZ style (:func:`turn_product_means`): for the joint
metrics, the product over the frames of each turn in the group, then the mean over turns.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from operator import eq, itemgetter
from typing import Any

import numpy as np
from dst_eval.metrics.fuzzy import token_sort_ratio

NAN = float("nan")


class _WrittenNull:
    """JSON ``null`` written for a frame's ``active_intent`` or ``requested_slots`` (a key
    absent is ``None``): falsy, equal to nothing but itself."""

    __slots__ = ()

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "WRITTEN_NULL"


WRITTEN_NULL = _WrittenNull()

METRICS = (
    "active_intent_accuracy",
    "requested_slots_f1",
    "requested_slots_precision",
    "requested_slots_recall",
    "slot_tagging_f1",
    "slot_tagging_precision",
    "slot_tagging_recall",
    "joint_goal_accuracy",
    "joint_cat_accuracy",
    "joint_noncat_accuracy",
    "average_goal_accuracy",
    "average_cat_accuracy",
    "average_noncat_accuracy",
)
"""Column order of :func:`score_frames`' result (the official scorer's metric names)."""
JOINT_METRICS = ("joint_goal_accuracy", "joint_cat_accuracy", "joint_noncat_accuracy")
JOINT_COLUMNS = tuple(METRICS.index(m) for m in JOINT_METRICS)


def f1_multiset(y_true: Sequence, y_pred: Sequence) -> tuple[float, float, float]:
    """``(F1, precision, recall)`` of two multisets.

    ``P = |true & pred| / |pred|`` (1 if pred is empty), ``R = |true & pred| / |true|``
    (1 if true is empty), ``F1 = 2PR / (P + R)`` (0 if ``P + R = 0``): empty/empty = 1.
    """
    if not y_true and not y_pred:
        return 1.0, 1.0, 1.0
    if len(y_true) == len(y_pred) and sorted(y_true) == sorted(y_pred):
        return 1.0, 1.0, 1.0
    hits = sum((Counter(y_true) & Counter(y_pred)).values())
    precision = hits / len(y_pred) if y_pred else 1.0
    recall = hits / len(y_true) if y_true else 1.0
    if precision + recall > 0.0:
        return 2.0 * precision * recall / (precision + recall), precision, recall
    return 0.0, precision, recall


def slot_score(ref_values: Sequence[str], hyp_value: str, *, categorical: bool,
               fuzzy: bool = True) -> float:
    """``sc(k)`` of a slot present on both sides (see the module docstring)."""
    if categorical:
        return 1.0 if ref_values and hyp_value == ref_values[0] else 0.0
    if not fuzzy:
        return 1.0 if hyp_value in ref_values else 0.0
    if type(hyp_value) is not str:  # a JSON value read as is: fuzzywuzzy matches its str()
        if hyp_value is None:
            return 0.0
        hyp_value = str(hyp_value)
    best = 0
    for ref in ref_values:
        score = token_sort_ratio(ref, hyp_value)
        if score > best:
            best = score
    return best / 100.0


def goal_accuracies(
    y_true: Mapping[str, Sequence[str]],
    y_pred: Mapping[str, str],
    *,
    slots: Collection[str],
    categorical: Collection[str],
    fuzzy: bool = True,
) -> tuple[float, float, float, float, float, float]:
    """``(joint, joint_cat, joint_noncat, average, average_cat, average_noncat)`` of one frame.

    ``y_true``: gold values per slot; ``y_pred``: one predicted value per slot. Only slots
    of ``slots`` (the service schema) count; NaN marks a metric that does not apply.
    """
    service = _ServiceSlots(slots, categorical)
    if _first_values(y_true, y_pred):
        return service.equal_goal(y_true)
    return _goal(y_true, y_pred, service, fuzzy)


class _ServiceSlots:
    """A service's slot sets, prepared once for many frames (``span_slots``: the
    non-categorical slots as spans name them, if not as the states do)."""

    __slots__ = ("slots", "categorical", "noncategorical", "span_slots", "joint_start",
                 "all_right")

    def __init__(self, slots: Collection[str], categorical: Collection[str],
                 span_slots: Collection[str] | None = None) -> None:
        self.slots = frozenset(slots)
        self.categorical = frozenset(s for s in self.slots if s in categorical)
        self.noncategorical = self.slots - self.categorical
        self.span_slots = self.noncategorical if span_slots is None else frozenset(span_slots)
        self.joint_start = (1.0 if self.slots else NAN,
                            1.0 if self.categorical else NAN,
                            1.0 if self.noncategorical else NAN)
        # the goal scores of a hypothesis equal to the reference, indexed by
        # 2 * (reference has a categorical slot) + (reference has a non-categorical slot)
        self.all_right = tuple((*self.joint_start, 1.0 if has_cat or has_noncat else NAN,
                                1.0 if has_cat else NAN, 1.0 if has_noncat else NAN)
                               for has_cat in (False, True) for has_noncat in (False, True))

    def equal_goal(self, y_true: Mapping) -> tuple:
        """The goal scores when the hypothesis holds the first gold value of every slot of
        ``y_true`` and nothing else: joint 1, averages 1 over the slot kinds the reference
        has (NaN for the others)."""
        return self.all_right[2 * (not self.categorical.isdisjoint(y_true))
                              + (not self.noncategorical.isdisjoint(y_true))]


_first = itemgetter(0)


def _first_values(y_true: Mapping[str, Sequence[str]], y_pred: Mapping[str, str]) -> bool:
    """True when ``y_pred`` holds exactly the slots of ``y_true``, each with its first gold
    value: every slot right (the common case), decided without per-slot Python."""
    if len(y_pred) != len(y_true):
        return False
    try:
        return all(map(eq, map(y_pred.get, y_true), map(_first, y_true.values())))
    except IndexError:  # a slot without gold value: scored slot by slot
        return False


def _goal(y_true: Mapping[str, Sequence[str]], y_pred: Mapping[str, str],
          service: _ServiceSlots, fuzzy: bool) -> tuple:
    """The goal scores slot by slot (callers first try :func:`_first_values`)."""
    # Slots in neither state score 1 and change no product: visit only the slots present
    # on one side.
    joint, joint_cat, joint_noncat = service.joint_start
    slots, categorical = service.slots, service.categorical
    cat_scores: list[float] = []
    noncat_scores: list[float] = []
    found = 0  # reference slots that the hypothesis has too
    for slot, ref_values in y_true.items():
        if slot not in slots:
            continue
        hyp = y_pred.get(slot)
        if hyp is not None:
            found += 1
        if slot in categorical:
            score = 1.0 if hyp is not None and ref_values and hyp == ref_values[0] else 0.0
            joint_cat *= score
            cat_scores.append(score)
        else:
            if hyp is None:
                score = 0.0
            elif hyp in ref_values:
                score = 1.0  # token_sort_ratio(x, x) = 100; exact match likewise
            elif fuzzy:
                score = slot_score(ref_values, hyp, categorical=False)
            else:
                score = 0.0
            joint_noncat *= score
            noncat_scores.append(score)
        joint *= score
    if len(y_pred) > found:  # hypothesis slots the reference lacks score 0
        for slot in y_pred:
            if slot in slots and slot not in y_true:
                joint = 0.0
                if slot in categorical:
                    joint_cat = 0.0
                else:
                    joint_noncat = 0.0
    n_cat, n_noncat = len(cat_scores), len(noncat_scores)
    if n_cat + n_noncat == 0:
        return joint, joint_cat, joint_noncat, NAN, NAN, NAN
    cat_sum, noncat_sum = sum(cat_scores), sum(noncat_scores)
    return (
        joint, joint_cat, joint_noncat,
        (cat_sum + noncat_sum) / (n_cat + n_noncat) if n_cat and n_noncat
        else (cat_sum / n_cat if n_cat else noncat_sum / n_noncat),
        cat_sum / n_cat if n_cat else NAN,
        noncat_sum / n_noncat if n_noncat else NAN,
    )


def tagged_values(spans: Sequence[Any], utterance: str, noncategorical: Collection[str]) -> list:
    """Multiset ``[(slot, utterance[start:end])]`` of the non-categorical slot spans."""
    return [(s.slot, utterance[s.start:s.end]) for s in spans if s.slot in noncategorical]


def score_frame(ref: Any, hyp: Any, utterance: str, *, slots: Collection[str],
                categorical: Collection[str], fuzzy: bool = True) -> np.ndarray:
    """The 13 :data:`METRICS` of one frame (NaN = not applicable)."""
    return score_frames([ref], [hyp], [utterance], [0], [(slots, categorical)], fuzzy=fuzzy)[0]


_NAN3 = (NAN, NAN, NAN)
_ONES3 = (1.0, 1.0, 1.0)


def score_frames(
    refs: Sequence[Any],
    hyps: Sequence[Any],
    utterances: Sequence[str],
    service_ids: Sequence[int],
    services: Sequence[tuple[Collection[str], ...]],
    *,
    fuzzy: bool = True,
    predicted: Sequence[bool] | np.ndarray | None = None,
) -> np.ndarray:
    """Per-frame metrics, shape ``(n_frames, 13)`` in :data:`METRICS` order, NaN = NA.

    ``predicted`` (one bool per frame, default all True) marks frames without prediction:
    their applicable metrics are 0 (module docstring).

    Frame ``i`` belongs to service ``services[service_ids[i]] = (slots, categorical
    slots[, non-categorical slots as spans name them])``. A hypothesis ``active_intent`` /
    ``requested_slots`` / ``spans`` of None leaves that metric out for the frame. Equal
    requested slots or spans, and a hypothesis holding the first gold value of every gold
    slot (the common cases) score 1 without per-slot work.
    """
    values = score_frame_stream(zip(refs, hyps, utterances, service_ids, strict=True),
                                services, fuzzy=fuzzy, capacity=len(refs))
    return unpredicted_zero(values, predicted)


def score_frame_stream(frames: Iterable[tuple[Any, Any, str, int]],
                       services: Sequence[tuple[Collection[str], ...]], *,
                       fuzzy: bool = True, capacity: int | None = None) -> np.ndarray:
    """:func:`score_frames` of ``(ref, hyp, utterance, service id)`` tuples as they come
    (a caller can build each frame as it is scored, while its objects are in the cache).
    ``capacity``: at least the number of frames, when the caller knows it; then the values
    are written into one array as they come, and held once."""
    prepared = [_ServiceSlots(*service) for service in services]
    # a list of floats turned into float64 by numpy: a list's extend copies 13 pointers, an
    # array("d")'s converts 13 floats (≈ 6 ms of 56 on SGD dev's 26,077 frames). With a
    # ``capacity`` the list is moved into the result every _FLUSH values; without, one
    # np.fromiter at the end holds the values twice at its peak (+11 MB at 100,000 turns)
    out = np.empty(capacity * len(METRICS)) if capacity is not None else None
    filled, flush_at = 0, _FLUSH if out is not None else 1 << 62
    buffer: list[float] = []
    extend, append = buffer.extend, buffer.append
    # per service, the last (gold values, predicted values, goal scores): a cumulative state
    # often stays the same mapping from turn to turn on both sides (22 % of SGD dev's
    # frames), and then its goal scores are those of the service's previous frame. The
    # mappings themselves are held, so ``is`` never meets a reused address. With the four
    # appends below instead of one 13-tuple: score ≈ 9 % faster on SGD dev (interleaved).
    last: list[tuple[Any, Any, tuple]] = [(None, None, ())] * len(prepared)
    for ref, hyp, utterance, service_id in frames:
        service = prepared[service_id]
        intent = hyp.active_intent
        requested = hyp.requested_slots
        if requested is None:
            requested_scores = _NAN3
        elif requested is WRITTEN_NULL:
            requested_scores = f1_multiset(ref.requested_slots, ())
        elif requested == ref.requested_slots:
            requested_scores = _ONES3
        else:
            requested_scores = f1_multiset(ref.requested_slots, requested)
        spans = hyp.spans
        if spans is None:
            tagging_scores = _NAN3
        elif spans == ref.spans:
            tagging_scores = _ONES3
        else:
            noncat = service.span_slots
            tagging_scores = f1_multiset(tagged_values(ref.spans, utterance, noncat),
                                         tagged_values(spans, utterance, noncat))
        y_true, y_pred = ref.slot_values, hyp.slot_values
        previous = last[service_id]
        if previous[0] is y_true and previous[1] is y_pred:
            goal = previous[2]
        else:
            goal = (service.equal_goal(y_true) if _first_values(y_true, y_pred)
                    else _goal(y_true, y_pred, service, fuzzy))
            last[service_id] = (y_true, y_pred, goal)
        append(NAN if intent is None else 1.0 if intent == ref.active_intent else 0.0)
        extend(requested_scores)
        extend(tagging_scores)
        extend(goal)
        if len(buffer) >= flush_at:
            out[filled:filled + len(buffer)] = np.fromiter(buffer, np.float64, len(buffer))
            filled += len(buffer)
            buffer.clear()
    if out is None:
        return np.fromiter(buffer, dtype=np.float64, count=len(buffer)).reshape(-1, len(METRICS))
    out[filled:filled + len(buffer)] = np.fromiter(buffer, np.float64, len(buffer))
    return out[:filled + len(buffer)].reshape(-1, len(METRICS))


_FLUSH = 1 << 16
"""Values :func:`score_frame_stream` gathers in its list before it moves them into the
result (with a ``capacity``)."""


def unpredicted_zero(values: np.ndarray,
                     predicted: Sequence[bool] | np.ndarray | None) -> np.ndarray:
    """``values`` with every applicable metric of a frame without prediction (``predicted``
    False) set to 0 (a copy if any); None: every frame has one."""
    if predicted is not None:
        mask = np.asarray(predicted, dtype=bool)
        if mask.shape != (len(values),):
            raise ValueError(f"predicted must be {len(values)} booleans, one per frame")
        if not mask.all():
            values = values.copy()
            rows = values[~mask]
            rows[~np.isnan(rows)] = 0.0
            values[~mask] = rows
    return values


def group_means(values: np.ndarray, frame_services: np.ndarray, service_groups: np.ndarray,
                n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-group means over frames, ignoring NaN.

    Frame ``i`` belongs to every group of row ``service_groups[frame_services[i]]`` (a
    group listed twice in a row counts the frame twice, as in the official scorer):
    ``mean_g = sum(values[i] for each listing of i in g) / (number of such listings)``.
    Returns ``(means, counts)``, both ``(n_groups, n_metrics)``; means are NaN where the
    count is 0. The sums go by service first (one ``bincount`` over the frames per metric),
    then from services to their groups (a table of services x groups): memory, a few
    arrays of ``n_frames`` entries, never one per membership.
    """
    n_metrics = values.shape[1]
    n_services = service_groups.shape[0]
    service_totals = np.zeros((n_services, n_metrics))
    service_counts = np.zeros((n_services, n_metrics))
    for j in range(n_metrics):
        column = values[:, j]
        scored = ~np.isnan(column)
        weights = np.where(scored, column, 0.0)  # adding 0.0 leaves a sum unchanged
        service_counts[:, j] = np.bincount(frame_services, weights=scored,
                                           minlength=n_services)
        service_totals[:, j] = np.bincount(frame_services, weights=weights,
                                           minlength=n_services)
    totals = np.zeros((n_groups, n_metrics))
    counts = np.zeros((n_groups, n_metrics))
    for groups in service_groups.T:  # each listing of a service in a group
        np.add.at(totals, groups, service_totals)
        np.add.at(counts, groups, service_counts)
    means = np.full((n_groups, n_metrics), NAN)
    np.divide(totals, counts, out=means, where=counts > 0)
    return means, counts.astype(np.int64)


def turn_products(values: np.ndarray, frame_index: np.ndarray, group_index: np.ndarray,
                  turn_of_frame: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Products over the frames of each (turn, group), ignoring NaN frames.

    Returns ``(keys, products)`` with ``keys = turn * n_groups + group`` (sorted), one entry
    per (turn, group) holding at least one non-NaN frame value.
    """
    member_values = values[frame_index]
    keep = ~np.isnan(member_values)
    keys = turn_of_frame[frame_index[keep]].astype(np.int64) * n_groups + group_index[keep]
    order = np.argsort(keys, kind="stable")
    return _run_products(keys[order], member_values[keep][order])


def turn_joint(values: np.ndarray, turn_of_frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(turns, products)``: the product of the non-NaN frame values of each turn that has
    one (:func:`turn_products` with every frame in one group). ``turn_of_frame`` must be
    non-decreasing (frames listed turn by turn); no sort, no per-membership arrays."""
    scored = ~np.isnan(values)
    return _run_products(turn_of_frame[scored].astype(np.int64), values[scored])


def _run_products(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each run of equal consecutive ``keys`` (sorted) and the product of its ``values``."""
    if len(keys) == 0:
        return keys, values
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[starts], np.multiply.reduceat(values, starts)


def turn_product_means(values: np.ndarray, frame_index: np.ndarray, group_index: np.ndarray,
                       turn_of_frame: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """MultiWOZ-style joint accuracy per group: mean over turns of :func:`turn_products`.

    ``JGA_G = mean_t prod_{f in t, f in G} JGA_f``. Returns ``(means, counts)`` per group.
    """
    keys, products = turn_products(values, frame_index, group_index, turn_of_frame, n_groups)
    groups = keys % n_groups
    counts = np.bincount(groups, minlength=n_groups)
    totals = np.bincount(groups, weights=products, minlength=n_groups)
    means = np.full(n_groups, NAN)
    np.divide(totals, counts, out=means, where=counts > 0)
    return means, counts
