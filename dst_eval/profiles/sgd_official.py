"""The official SGD (DSTC8) scorer, exactly: ``sgd-official`` and ``sgd-official-multiwoz``.

``score`` = google-research ``schema_guided_dst/evaluate.py`` with default flags (SGD
mode): every gold USER frame is scored against the hypothesis frame of its service
(:mod:`dst_eval.metrics.sgd_frame`: all schema slots, categorical exact against the
first gold value, non-categorical ``token_sort_ratio`` partial credit) and every group
averages its frames (per-frame macro: a two-frame turn counts twice).

``score_multiwoz`` = ``--joint_acc_across_turn=True --use_fuzzy_match=False``: only the
three joint metrics change, to the mean over turns of the product over the turn's frames
in the group; matching is exact everywhere.

Groups (SCORERS.md §2.3): ``#ALL_SERVICES``, each service, each domain (the service name
before its first ``_``), ``#SEEN_SERVICES`` / ``#UNSEEN_SERVICES`` (seen = the service is
in ``train/schema.json``, :attr:`GoldSet.seen_services`; decided per frame). When a
service's name is its own domain (MultiWOZ 2.2 ``hotel``) the frame joins that group
twice, as officially (it only matters for fractional turn products). Without a training
schema there are no seen/unseen groups, except for MultiWOZ 2.2 whose recipe puts its
schema in ``train/`` too (all seen). A metric without any value in a group is absent.

Hypothesis frames come from ``PredTurn.frames`` (SGD-style files; for a service with
several frames the last one counts, as officially) or, for flat predictions (mwzeval
JSON, JSONL), are built from ``PredTurn.state`` / ``requested_slots`` /
``active_intents``: a key ``"<service>-<slot>"`` belongs to the service it starts with
(case-insensitive) and names the schema slot ``<slot>``, or the whole key when the
schema spells slots that way (MultiWOZ 2.2 ``hotel-pricerange``); a turn without
``active_intents`` (or ``requested_slots``) leaves intent accuracy (or the requested-slot
scores) out for its frames.

Missing predictions (``options.missing``):

``wrong`` (default)
    A gold turn without prediction, or a gold frame whose service the predicted turn
    lacks, is wrong: every metric that applies to the frame (as it would to an empty
    frame) is 0 (:func:`~dst_eval.metrics.sgd_frame.unpredicted_zero`).
``empty``
    Such a frame is scored against an EMPTY frame: no slot values, no requested slots,
    intent ``"NONE"`` (so it still counts as right when the gold intent is NONE), and no
    spans -- or an empty span list when the predictions carry spans anywhere.
``skip``
    The official behaviour: turns and dialogues without prediction are silently left
    out (the official scorer raises on a missing frame; we skip that frame and note it).

Slot values the file did not write as a non-empty list of strings
(:attr:`PredFrame.written`; the reader reports each kind) are read as the official scorer
reads the JSON, ``slot_values[slot][0]`` of the value as written: a bare string is its
first character, a list's first element is taken whatever its type (a number then equals
no gold value; fuzzy matching compares its ``str()``, ``null`` scores 0, as fuzzywuzzy
does). Where the gold lacks the slot, any predicted schema slot is a false positive, ``[]``
too. Where the gold has it and that read fails (``[]``, ``""``, a number) the official
scorer crashes, so there is no official number: :class:`PredictionError` (exit 3).

``official`` holds exactly the scorer's output ``{group: {metric: value}}``.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping
from operator import attrgetter, itemgetter
from types import MappingProxyType
from typing import Any

import msgspec
import numpy as np

from dst_eval import corpora
from dst_eval.alignment import Alignment
from dst_eval.corpora.sgd.keys import flat_slot_key
from dst_eval.errors import PredictionError, UsageError
from dst_eval.gold import GoldFrame, GoldSet, GoldTurn, frame_slot_key
from dst_eval.metrics.sgd_frame import (
    JOINT_COLUMNS,
    METRICS,
    group_means,
    score_frame_stream,
    turn_joint,
    turn_product_means,
    unpredicted_zero,
)
from dst_eval.normalize import Normalizer
from dst_eval.options import EvalOptions
from dst_eval.predictions.model import PredFrame, PredTurn
from dst_eval.result import Result

ALL_SERVICES = "#ALL_SERVICES"
SEEN_SERVICES = "#SEEN_SERVICES"
UNSEEN_SERVICES = "#UNSEEN_SERVICES"
_EMPTY: Mapping = MappingProxyType({})


def score(alignment: Alignment, options: EvalOptions | None = None,
          result: Result | None = None) -> Result:
    """SGD mode: per-frame macro averages, fuzzy non-categorical matching."""
    return _score(alignment, options or EvalOptions(), fuzzy=True, across_turn=False,
                  result=result)


def score_multiwoz(alignment: Alignment, options: EvalOptions | None = None,
                   result: Result | None = None) -> Result:
    """MultiWOZ style: joint metrics per turn (product over frames), exact matching."""
    return _score(alignment, options or EvalOptions(), fuzzy=False, across_turn=True,
                  result=result)


# --------------------------------------------------------------------------- hypothesis frames


class _FlatFrames:
    """Builds hypothesis frames from flat predictions, per service."""

    def __init__(self, gold: GoldSet) -> None:
        self.slot_of: dict[str, dict[str, str]] = {}
        for name, service in gold.schema.items():
            self.slot_of[name] = {flat_slot_key(name, s).lower(): s for s in service.slots}

    def frame(self, turn: PredTurn, service: str) -> PredFrame:
        slot_of = self.slot_of[service]
        values = {}
        for key, value in (turn.state or {}).items():
            slot = slot_of.get(key.lower())
            if slot is not None:
                values[frame_slot_key(service, slot)] = value
        requested = None
        if turn.requested_slots is not None:
            requested = tuple(sorted(slot_of[k.lower()] for k in turn.requested_slots
                                     if k.lower() in slot_of))
        intent = None
        if turn.active_intents is not None:
            intent = "NONE"
            lowered = service.lower()
            for name, value in turn.active_intents.items():
                if name == service or name.lower() == lowered:
                    intent = value
        return PredFrame(service, intent, requested, values, None)


def _hyp_frame(frames: tuple[PredFrame, ...], service: str) -> PredFrame | None:
    """The predicted frame of ``service``: the last one if several (as officially); service
    names compared exactly, then case-insensitively (its slot keys then re-keyed for
    ``service``: the slot names stay as written)."""
    for frame in reversed(frames):
        if frame.service == service:
            return frame
    lowered = service.lower()
    for frame in reversed(frames):
        if frame.service.lower() == lowered:
            cut = len(frame.service) + 1  # frame_slot_key: "<service>-<name>"

            def rekeyed(mapping: Mapping, cut: int = cut) -> Mapping:
                return MappingProxyType({frame_slot_key(service, key[cut:]): value
                                         for key, value in mapping.items()})
            return msgspec.structs.replace(frame, service=service,
                                           slot_values=rekeyed(frame.slot_values),
                                           written=frame.written and rekeyed(frame.written))
    return None


def _read_as_written(hyp: PredFrame, ref: GoldFrame, slots: frozenset[str], source: str,
                     turn: GoldTurn) -> PredFrame:
    """``hyp`` with its odd values (:attr:`PredFrame.written`) read as the official scorer
    reads them (module docstring); ``slots``: the service's schema slots, frame-keyed."""
    values = dict(hyp.slot_values)
    for key, raw in hyp.written.items():
        if key not in ref.slot_values or key not in slots:
            values[key] = raw  # a false positive whatever it holds, or not scored
            continue
        try:
            values[key] = raw[0]
        except (IndexError, KeyError, TypeError):
            shown = msgspec.json.encode(raw).decode()
            raise PredictionError(
                f"service {hyp.service}, slot {key[len(hyp.service) + 1:]!r}: the value list "
                f"{shown} has no first value, where the official scorer crashes "
                f"(slot_values[slot][0]); sgd-official has no number for it -- write a list "
                "of strings, or score with --profile strict",
                file=source, dialogue=turn.dialogue_id, turn=turn.turn_index) from None
    return msgspec.structs.replace(hyp, slot_values=MappingProxyType(values))


# --------------------------------------------------------------------------- groups


def _seen_services(gold: GoldSet, notes: list[str]) -> frozenset[str] | None:
    if gold.seen_services is not None:
        return gold.seen_services
    if corpora.get(gold.corpus).seen_services == "all":
        notes.append("MultiWOZ 2.2: every service counts as seen (its schema is the "
                     "training schema, as in the SGD-scorer recipe)")
        return frozenset(gold.schema)
    notes.append("no training schema (train/schema.json): no #SEEN_SERVICES / "
                 "#UNSEEN_SERVICES groups")
    return None


def _group_keys(service: str, seen: frozenset[str] | None) -> list[str]:
    keys = [ALL_SERVICES, service, service.split("_")[0]]
    if seen is not None:
        keys.append(SEEN_SERVICES if service in seen else UNSEEN_SERVICES)
    return keys


def _public_name(group: str, services: set[str]) -> str:
    if group == SEEN_SERVICES:
        return "seen:seen"
    if group == UNSEEN_SERVICES:
        return "seen:unseen"
    return f"service:{group}" if group in services else f"domain:{group}"


# --------------------------------------------------------------------------- scoring


def _check(alignment: Alignment, options: EvalOptions) -> GoldSet:
    gold = alignment.gold
    if not gold.schema:
        raise UsageError("the sgd-official profiles need the service schema (schema.json "
                         "next to the gold dialogues)")
    if options.missing not in ("wrong", "empty", "skip"):
        raise UsageError(f"unknown missing-prediction policy {options.missing!r} "
                         "(wrong, empty, skip)")
    return gold


def _score(alignment: Alignment, options: EvalOptions, *, fuzzy: bool,
           across_turn: bool, result: Result | None = None) -> Result:
    return _score_frames(alignment, options, fuzzy=fuzzy, across_turn=across_turn,
                         result=result)


_frames_of = attrgetter("frames")


class _Tally:
    """What :func:`_frames` records while it hands out the frames: per frame, its service id
    and its turn's index in ``scored_turns`` (8 bytes a frame, not an int object); the frames
    scored against an empty frame; the scored turns and whether each has a prediction."""

    def __init__(self) -> None:
        self.frame_services, self.turn_of_frame = array("q"), array("q")
        self.absent_frames: list[int] = []
        self.scored_turns: list[GoldTurn] = []
        self.scored_missing = bytearray()  # 1 where the scored turn has no prediction
        self.n_missing_turns = self.n_missing_frames = self.n_flat = 0


def _frames(alignment: Alignment, options: EvalOptions, service_ids: dict[str, int],
            tally: _Tally) -> Iterator[tuple[GoldFrame, PredFrame, str, int]]:
    """``(gold frame, hypothesis frame, utterance, service id)`` of every frame to score, in
    turn order, recorded in ``tally`` as it goes. A generator, so that each frame is scored
    right after it is found, its objects still in the CPU cache: SGD dev (26,077 frames)
    scores ≈ 7 % faster than from lists of all frames built first (interleaved runs on a
    loaded machine, min 158 -> 147 ms), and the lists are not held."""
    gold = alignment.gold
    schema = gold.schema
    has_spans = any(f.spans is not None for _, p in alignment.pairs if p is not None
                    for f in (p.frames or ()))
    flat = _FlatFrames(gold)
    frame_slots = {name: frozenset(frame_slot_key(name, slot) for slot in s.slots)
                   for name, s in schema.items()}
    source = alignment.predictions.source
    frame_services, turn_of_frame = tally.frame_services, tally.turn_of_frame
    absent_frames, scored_turns = tally.absent_frames, tally.scored_turns
    n_frames = 0
    for gold_turn, pred_turn in alignment.pairs:
        missing = pred_turn is None or (pred_turn.frames is None and pred_turn.state is None)
        if missing:
            if options.missing == "skip":
                continue
            tally.n_missing_turns += 1
        pred_frames = None if missing else pred_turn.frames
        if not missing and pred_frames is None:
            tally.n_flat += 1
        turn_id = len(scored_turns)
        for ref in gold_turn.frames:
            if missing:
                hyp = _empty_frame(ref.service, has_spans)
                absent_frames.append(n_frames)
            elif pred_frames is None:
                hyp = flat.frame(pred_turn, ref.service)
            elif len(pred_frames) == 1 and pred_frames[0].service == ref.service:
                hyp = pred_frames[0]  # the common case, without a search
            else:
                hyp = _hyp_frame(pred_frames, ref.service)
                if hyp is None:
                    tally.n_missing_frames += 1
                    if options.missing == "skip":
                        continue
                    hyp = _empty_frame(ref.service, has_spans)
                    absent_frames.append(n_frames)
            if hyp.written is not None:
                hyp = _read_as_written(hyp, ref, frame_slots[ref.service], source, gold_turn)
            service_id = service_ids[ref.service]
            frame_services.append(service_id)
            turn_of_frame.append(turn_id)
            n_frames += 1
            yield ref, hyp, gold_turn.user_utterance, service_id
        scored_turns.append(gold_turn)
        tally.scored_missing.append(missing)


def _score_frames(alignment: Alignment, options: EvalOptions, *, fuzzy: bool,
                  across_turn: bool, result: Result | None = None) -> Result:
    gold = _check(alignment, options)
    notes: list[str] = []
    schema = gold.schema
    seen = _seen_services(gold, notes)
    service_ids = {name: i for i, name in enumerate(schema)}
    # slot sets keyed as frames key their values; spans keep the schema's names
    service_slots = [([frame_slot_key(name, slot) for slot in s.slots],
                      [frame_slot_key(name, slot) for slot in s.categorical],
                      [slot for slot in s.slots if slot not in s.categorical])
                     for name, s in schema.items()]
    tally = _Tally()
    gold_turns = map(itemgetter(0), alignment.pairs)
    capacity = sum(map(len, map(_frames_of, gold_turns)))  # frames to score, at most
    values = score_frame_stream(_frames(alignment, options, service_ids, tally),
                                service_slots, fuzzy=fuzzy, capacity=capacity)
    n_frames = len(values)
    if options.missing == "wrong" and tally.absent_frames:
        predicted = np.ones(n_frames, dtype=bool)
        predicted[tally.absent_frames] = False
        values = unpredicted_zero(values, predicted)
    services_arr = np.frombuffer(tally.frame_services, dtype=np.int64)
    turns_arr = np.frombuffer(tally.turn_of_frame, dtype=np.int64)
    scored_turns = tally.scored_turns
    official, group_names = _aggregate(
        values, services_arr, list(schema), turns_arr, seen, across_turn)
    _notes(notes, alignment, options, tally.n_missing_turns, tally.n_missing_frames,
           tally.n_flat)

    services = set(schema)
    scores = _select(dict(official.get(ALL_SERVICES, {})), options)
    groups = {_public_name(g, services): dict(official[g])
              for g in group_names if g != ALL_SERVICES and g in official}
    per_turn = _per_turn(values, turns_arr, scored_turns,
                         np.frombuffer(tally.scored_missing, dtype=bool).copy())
    return (result or Result()).add(
        scores=scores,
        signature_fields={
            "norm": Normalizer("exact").signature,
            "match": "fuzzy-token-sort" if fuzzy else "exact",
            "agg": "turn-joint" if across_turn else "frame",
            "dontcare": "value",
            "missing": options.missing,
        },
        groups=groups,
        official=official,
        per_turn=per_turn,
        notes=notes,
        counts={"frames": n_frames, "turns": len(scored_turns),
                "dialogues": len({t.dialogue_id for t in scored_turns}),
                "missing_turns_scored_empty": tally.n_missing_turns,
                "missing_frames": tally.n_missing_frames},
    )


def _empty_frame(service: str, has_spans: bool) -> PredFrame:
    return PredFrame(service, "NONE", (), _EMPTY, () if has_spans else None)


def _aggregate(values: np.ndarray, frame_services: np.ndarray, services: list[str],
               turn_of_frame: np.ndarray, seen: frozenset[str] | None,
               across_turn: bool) -> tuple[dict[str, dict[str, float]], list[str]]:
    """The official ``{group: {metric: mean}}`` and the group names.

    Frame ``i`` of service ``s = frame_services[i]`` belongs to every group of
    ``_group_keys(services[s])`` (once per listing: a service named like its domain joins
    that group twice, as officially).
    """
    group_ids: dict[str, int] = {}
    keys_of_service: list[list[int]] = [[] for _ in services]
    first_frames = np.unique(frame_services, return_index=True)[1]
    in_order = [int(frame_services[i]) for i in np.sort(first_frames)]  # as frames come
    for s in [*in_order, *sorted(set(range(len(services))) - set(in_order))]:
        keys_of_service[s] = [group_ids.setdefault(k, len(group_ids))
                              for k in _group_keys(services[s], seen)]
    width = len(keys_of_service[0]) if keys_of_service else 0
    service_groups = np.asarray(keys_of_service, dtype=np.int64).reshape(-1, width)
    n_groups = len(group_ids)
    means, counts = group_means(values, frame_services, service_groups, n_groups)
    if across_turn:
        frames = np.repeat(np.arange(len(frame_services), dtype=np.int64), width)
        groups = service_groups[frame_services].ravel()
        for column in JOINT_COLUMNS:
            means[:, column], counts[:, column] = turn_product_means(
                values[:, column], frames, groups, turn_of_frame, n_groups)
    names = list(group_ids)
    official: dict[str, dict[str, float]] = {}
    for name in sorted(names):
        g = group_ids[name]
        metrics = {m: float(means[g, j]) for j, m in enumerate(METRICS) if counts[g, j] > 0}
        if metrics:
            official[name] = dict(sorted(metrics.items()))
    return official, names


def _per_turn(values: np.ndarray, turn_of_frame: np.ndarray,
              scored_turns: list[GoldTurn], missing: np.ndarray) -> dict[str, Any]:
    n_turns = len(scored_turns)
    joint = np.full(n_turns, np.nan)  # stays NaN for a turn without any scored frame
    turns, products = turn_joint(values[:, METRICS.index("joint_goal_accuracy")],
                                 turn_of_frame)  # frames come in turn order
    joint[turns] = products
    n_frames = np.bincount(turn_of_frame, minlength=n_turns)
    columns: dict[str, Any] = {
        "dialogue_id": [t.dialogue_id for t in scored_turns],
        "turn_index": np.fromiter((t.turn_index for t in scored_turns), dtype=np.int64,
                                  count=n_turns),
        "frames": n_frames,
        "missing": missing,
        "joint_goal_accuracy": joint,
    }
    for name in ("average_goal_accuracy", "active_intent_accuracy", "requested_slots_f1"):
        column = values[:, METRICS.index(name)]
        ok = ~np.isnan(column)
        # adding 0.0 for a NaN frame leaves a sum unchanged; no per-column frame copies
        total = np.bincount(turn_of_frame, weights=np.where(ok, column, 0.0),
                            minlength=n_turns)
        count = np.bincount(turn_of_frame, weights=ok, minlength=n_turns)
        mean = np.full(n_turns, np.nan)
        np.divide(total, count, out=mean, where=count > 0)
        columns[name] = mean
    return columns


def _select(scores: dict[str, float], options: EvalOptions) -> dict[str, float]:
    if not options.metrics:
        return scores
    unknown = [m for m in options.metrics if m not in METRICS]
    if unknown:
        raise UsageError(f"unknown metric(s) for the sgd-official profiles: "
                         f"{', '.join(unknown)}; known: {', '.join(METRICS)}")
    return {m: scores[m] for m in options.metrics if m in scores}


def _notes(notes: list[str], alignment: Alignment, options: EvalOptions, n_missing_turns: int,
           n_missing_frames: int, n_flat: int) -> None:
    if n_missing_turns:
        how = "wrong" if options.missing == "wrong" else "empty predictions"
        notes.append(f"{n_missing_turns} gold turns without prediction are scored as {how} "
                     "(the official scorer skips them silently; "
                     "--missing skip reproduces that)")
    elif options.missing == "skip" and (alignment.missing_dialogues or alignment.n_missing_turns):
        notes.append(f"{alignment.n_missing_turns} gold turns without prediction "
                     f"({len(alignment.missing_dialogues)} whole dialogues) are left out, as "
                     "the official scorer does")
    if n_missing_frames:
        action = {"skip": "left out", "empty": "scored as empty frames"}.get(
            options.missing, "scored as wrong")
        notes.append(f"{n_missing_frames} gold frames have no predicted frame of their service "
                     f"and are {action} (the official scorer raises ValueError)")
    if n_flat:
        notes.append(f"{n_flat} predicted turns have no SGD frames: their frames were built "
                     "from the flat state")
    if options.dontcare != "value":
        notes.append("the sgd-official profiles score dontcare as an ordinary value; "
                     f"--dontcare {options.dontcare} applies to the strict profile only")
    if options.normalisation is not None:
        notes.append("the sgd-official profiles compare values unnormalised; "
                     f"--normalisation {options.normalisation} applies to the strict profile only")
