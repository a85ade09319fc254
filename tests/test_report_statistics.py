"""Every score that carries per-dialogue statistics must be reproduced by them exactly:
otherwise bootstrap intervals and paired tests would describe a different number."""

from __future__ import annotations

import pytest

from dst_eval import evaluate


def _check_consistent(report) -> set[str]:
    seen = set()
    for table, metrics in report.stat_tables():
        for metric in metrics:
            assert metric.score(table) == pytest.approx(report.scores[metric.name], abs=1e-9), \
                metric.name
            seen.add(metric.name)
    return seen


@pytest.mark.parametrize("missing", ["wrong", "skip"])
def test_response_and_dst_statistics_reproduce_the_scores(shared_dir, missing):
    mwz = shared_dir / "reference" / "mwzeval"
    report = evaluate(mwz / "predictions" / "labes.json",  # 944 of 1,000 dialogues
                      gold=shared_dir / "corpora" / "multiwoz21" / "test.json.zip",
                      corpus="multiwoz21", split="test", missing=missing, bootstrap=50)
    seen = _check_consistent(report)
    assert {"joint_goal_accuracy", "inform", "success", "bleu", "combined"} <= seen
    intervals = report.extra["confidence_intervals"]
    for name in ("inform", "success", "bleu", "combined", "joint_goal_accuracy"):
        ci = intervals[name]
        assert ci["ci_low"] <= report.scores[name] <= ci["ci_high"], name
    # combined is 0.5·(100·inform + 100·success) + BLEU
    assert report.scores["combined"] == pytest.approx(
        50 * (report.scores["inform"] + report.scores["success"]) + report.scores["bleu"])
