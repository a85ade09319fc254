"""Every folder of gold_samples/: native gold, a predictions.json and a README whose planted
errors give the expected numbers stated there (computed by hand from the planted errors;
the README shows the arithmetic)."""

from __future__ import annotations

import pytest

from dst_eval import evaluate

SAMPLES = ("multiwoz21", "multiwoz22", "sgd", "crosswoz", "risawoz", "jmultiwoz")
GOLD = {"multiwoz21": "data.json"}
SPLIT = {"multiwoz21": "test"}

# (sample, profile) -> {metric: exact fraction from the README's arithmetic}
EXPECTED = {
    ("multiwoz21", "strict"): {"joint_goal_accuracy": 1 / 3, "slot_precision": 19 / 21,
                               "slot_recall": 19 / 21, "slot_f1": 19 / 21,
                               "slot_accuracy": 1 - 3 / 90,
                               "average_goal_accuracy": (1 + 6 / 7 + 10 / 11) / 3},
    ("multiwoz21", "mwzeval"): {"joint_goal_accuracy": 0.0, "slot_precision": 16 / 21,
                                "slot_recall": 16 / 17, "slot_f1": 32 / 38},
    ("multiwoz22", "strict"): {"joint_goal_accuracy": 9 / 13, "slot_precision": 62 / 65,
                               "slot_recall": 62 / 65, "slot_f1": 62 / 65,
                               "final_turn_joint_goal_accuracy": 0.5},
    ("multiwoz22", "mwzeval"): {"joint_goal_accuracy": 6 / 13, "slot_precision": 57 / 65,
                                "slot_recall": 57 / 62},
    ("sgd", "strict"): {"joint_goal_accuracy": 4 / 9, "slot_precision": 30 / 33,
                        "slot_recall": 30 / 35, "slot_f1": 60 / 68},
}
COUNTS = {  # strict per-turn frame totals: correct, wrong, missing, extra
    "multiwoz21": (19, 1, 1, 1), "multiwoz22": (62, 2, 1, 1), "sgd": (30, 2, 3, 1),
}


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_sample_folder_is_complete(gold_samples, sample):
    folder = gold_samples / sample
    assert (folder / "predictions.json").is_file()
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "predictions.json" in readme and "Expected" in readme
    gold_files = [p for p in folder.iterdir() if p.name not in ("README.md", "predictions.json")]
    assert gold_files, sample


def _run(gold_samples, sample, profile):
    folder = gold_samples / sample
    return evaluate(folder / "predictions.json", gold=folder / GOLD.get(sample, ""),
                    split=SPLIT.get(sample), profile=profile)


@pytest.mark.parametrize(("sample", "profile"), sorted(EXPECTED))
def test_sample_numbers_match_the_readme(gold_samples, sample, profile):
    result = _run(gold_samples, sample, profile)
    readme = (gold_samples / sample / "README.md").read_text(encoding="utf-8")
    for metric, value in EXPECTED[(sample, profile)].items():
        assert result.scores[metric] == pytest.approx(value, abs=1e-12), metric
        assert f"{value:.4f}" in readme or f"{value:g}" in readme, (metric, value)


@pytest.mark.parametrize("sample", sorted(COUNTS))
def test_sample_slot_counts(gold_samples, sample):
    frame = _run(gold_samples, sample, "strict").to_pandas()
    totals = tuple(int(frame[c].sum()) for c in ("slots_correct", "slots_wrong_value",
                                                  "slots_missing", "slots_extra"))
    assert totals == COUNTS[sample]
