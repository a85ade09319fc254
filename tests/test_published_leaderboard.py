"""Through the public API, `--profile mwzeval` reproduces the published MultiWOZ leaderboard.

Inform and Success of the systems the reference code reproduces exactly must equal the
published figures (one decimal); every system must equal what the reference code prints
for these inputs (``reference_outputs.json``: BLEU against the approximate 2.1 references,
richness, DST against the approximate states). Partial submissions (LABES, DAMD, MinTL,
BORT, PPTOD) need ``missing="skip"``, which is what mwzeval silently does; by default the
missing dialogues count as failures and are reported.
"""

from __future__ import annotations

import json

import pytest

from dst_eval import evaluate


@pytest.fixture(scope="module")
def mwzeval(shared_dir):
    folder = shared_dir / "reference" / "mwzeval"
    published = json.loads((folder / "published.json").read_text())["systems"]
    reference = json.loads((folder / "reference_outputs.json").read_text())
    reference = reference.get("systems", reference)
    return folder, published, reference


def _score(gold, folder, name, **options):
    """``gold``: corpora/multiwoz21/test.json.zip, split test (conftest, loaded once)."""
    return evaluate(folder / "predictions" / f"{name}.json", gold=gold,
                    corpus="multiwoz21", split="test", profile="mwzeval", **options)


SYSTEMS = ["labes", "damd", "augpt", "mintl", "soloist", "dots", "pptod", "bort",
           "galaxy-e2e", "uniconv", "hdsa", "lava", "hdno", "marco", "galaxy-policy"]


@pytest.mark.parametrize("name", SYSTEMS)
def test_mwzeval_profile_matches_reference_outputs_and_published(mwz21_test_gold, mwzeval,
                                                                name):
    folder, published, reference = mwzeval
    report = _score(mwz21_test_gold, folder, name, missing="skip",
                    references=folder / "approx_references_mwz21_test.json",
                    gold_states=folder / "approx_gold_states_mwz21_test.json")
    official, expected = report.official, reference[name]
    assert official["bleu"]["mwz22"] == pytest.approx(expected["bleu"], abs=1e-9)
    assert official["success"]["inform"]["total"] == expected["inform"]
    assert official["success"]["success"]["total"] == expected["success"]
    for key, value in expected["richness"].items():
        assert official["richness"][key] == pytest.approx(value, abs=1e-9), key
    if expected.get("dst"):
        for key, value in expected["dst"].items():
            assert official["dst"][key] == pytest.approx(value, abs=1e-9), key
    else:  # a policy-optimisation file without states: DST is n/a, not mwzeval's zeros
        assert "dst" not in official
        assert "joint_goal_accuracy" not in report.scores
    if published[name]["inform_success_reproduction"] == "exact":
        assert official["success"]["inform"]["total"] == published[name]["inform"]
        assert official["success"]["success"]["total"] == published[name]["success"]
    assert report.scores["combined"] == pytest.approx(
        50 * (report.scores["inform"] + report.scores["success"]) + report.scores["bleu"])
    assert "resp:mwzeval-7f19ee0" in report.signature.format()


def test_partial_submission_counts_missing_dialogues_by_default(mwz21_test_gold, mwzeval):
    folder, published, _ = mwzeval
    default = _score(mwz21_test_gold, folder, "labes")
    assert default.coverage["missing_dialogues"] == 56
    assert any(i.kind == "missing_dialogues" for i in default.issues)
    # 56 missing dialogues fail; the 944 present keep their outcome
    skipped = _score(mwz21_test_gold, folder, "labes", missing="skip")
    assert skipped.official["success"]["inform"]["total"] == published["labes"]["inform"]
    assert default.scores["inform"] == pytest.approx(skipped.scores["inform"] * 944 / 1000)
