"""metrics.sgd_frame.score_frames reuses a service's previous goal scores when a frame's gold
and predicted mappings are the very objects of that service's previous frame: checked
against each frame scored on its own, with fresh copies, on random frames (fixed seeds)."""

from __future__ import annotations

import random
from types import MappingProxyType

import numpy as np
import pytest
from dst_eval.metrics.sgd_frame import score_frame, score_frames

from dst_eval.gold import GoldFrame
from dst_eval.predictions.model import PredFrame

# two services; "a" and "b" categorical, "c" and "d" not; the empty mapping is shared
SERVICES = [(("a", "c"), ("a",)), (("b", "d"), ("b",))]
VALUES = ("x", "y", "san francisco", "francisco san", "")
EMPTY = MappingProxyType({})


def _mapping(rng: random.Random, slots: tuple[str, ...], gold: bool):
    if rng.random() < 0.2:
        return EMPTY
    chosen = rng.sample(slots, rng.randint(1, len(slots)))
    if gold:
        return MappingProxyType({s: tuple(rng.sample(VALUES, rng.randint(1, 2)))
                                 for s in chosen})
    return MappingProxyType({s: rng.choice(VALUES) for s in chosen})


def _frames(rng: random.Random, n: int):
    """Frames whose mappings repeat, as cumulative states do, also across services."""
    refs, hyps, services = [], [], []
    gold_maps = [[_mapping(rng, s[0], True) for _ in range(2)] for s in SERVICES]
    pred_maps = [[_mapping(rng, s[0], False) for _ in range(2)] for s in SERVICES]
    firsts: dict[int, tuple] = {}  # the prediction that holds a gold mapping's first values
    service = 0
    for _ in range(n):
        if rng.random() < 0.3:  # another service's frame
            service = rng.randrange(2)
        if rng.random() < 0.15:  # a state changes
            gold_maps[service][rng.randrange(2)] = _mapping(rng, SERVICES[service][0], True)
            pred_maps[service][rng.randrange(2)] = _mapping(rng, SERVICES[service][0], False)
        y_true = rng.choice(gold_maps[service])
        y_pred = y_true if rng.random() < 0.05 else rng.choice(pred_maps[service])
        if rng.random() < 0.4:
            y_pred = firsts.setdefault(id(y_true), (y_true, MappingProxyType(
                {k: v[0] for k, v in y_true.items()})))[1]
        refs.append(GoldFrame("s", "NONE", (), y_true, ()))
        hyps.append(PredFrame("s", "NONE", (), y_pred, None))
        services.append(service)
    return refs, hyps, services


@pytest.mark.parametrize("fuzzy", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_reused_goal_scores_equal_frames_scored_alone(seed, fuzzy):
    rng = random.Random(seed)
    refs, hyps, services = _frames(rng, 400)
    together = score_frames(refs, hyps, [""] * len(refs), services, SERVICES, fuzzy=fuzzy)
    for i, (ref, hyp, service) in enumerate(zip(refs, hyps, services, strict=True)):
        fresh_ref = GoldFrame("s", "NONE", (), MappingProxyType(dict(ref.slot_values)), ())
        fresh_hyp = PredFrame("s", "NONE", (), MappingProxyType(dict(hyp.slot_values)), None)
        alone = score_frame(fresh_ref, fresh_hyp, "", slots=SERVICES[service][0],
                            categorical=SERVICES[service][1], fuzzy=fuzzy)
        np.testing.assert_array_equal(together[i], alone)


@pytest.mark.parametrize("extra", [0, 7])
def test_stream_written_into_its_capacity_equals_the_list(monkeypatch, extra):
    """With a ``capacity`` the stream moves its values into one array every ``_FLUSH``
    values (a small ``_FLUSH`` here: many moves and a partial one); the rows equal those
    gathered in one list, also when the capacity is larger than the frames."""
    from dst_eval.metrics import sgd_frame

    refs, hyps, services = _frames(random.Random(5), 400)
    frames = list(zip(refs, hyps, [""] * len(refs), services, strict=True))
    whole = sgd_frame.score_frame_stream(iter(frames), SERVICES)
    monkeypatch.setattr(sgd_frame, "_FLUSH", 13 * 7 + 5)
    written = sgd_frame.score_frame_stream(iter(frames), SERVICES,
                                           capacity=len(frames) + extra)
    assert written.shape == whole.shape == (400, 13)
    np.testing.assert_array_equal(written, whole)
