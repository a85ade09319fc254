"""The ``dst-eval`` process runs without the cyclic collector (``dst_eval/cli/app.py`` ``run``).

That is safe only while a scoring run leaves a few cyclic objects whatever its size: a
cycle created per turn or per dialogue would grow memory with the input. Measured here by
construction: the same run on 1 and on 20 copies of a sample's dialogues (SGD, MultiWOZ 2.2;
gold used as its own SGD-format predictions) leaves the same number of unreachable cyclic
objects.
"""

from __future__ import annotations

import gc
import json
import shutil
from pathlib import Path

import pytest

from dst_eval.cli.app import main

SAMPLES = Path(__file__).resolve().parent.parent / "gold_samples"


def _replicated(root: Path, copies: int, sample: str = "sgd") -> Path:
    """``root/gold`` (schema + one file of ``copies`` x the sample's dialogues, new ids)."""
    gold = root / "gold"
    gold.mkdir(parents=True)
    shutil.copy(SAMPLES / sample / "schema.json", gold / "schema.json")
    dialogues = json.loads((SAMPLES / sample / "dialogues_001.json").read_text("utf-8"))
    copied = [{**d, "dialogue_id": f"{d['dialogue_id']}_r{k}"}
              for k in range(copies) for d in dialogues]
    (gold / "dialogues_001.json").write_text(json.dumps(copied), "utf-8")
    return gold


def _cyclic_garbage_of_a_run(gold: Path, profile: str, output: Path) -> int:
    """Unreachable cyclic objects one in-process run leaves behind (collector off)."""
    gc.collect()
    gc.disable()
    try:
        assert main([str(gold / "dialogues_001.json"), "--gold", str(gold), "--profile",
                     profile, "--format", "json", "--output", str(output), "-q"]) == 0
        return gc.collect()
    finally:
        gc.enable()


@pytest.mark.parametrize(("sample", "profile"), [("sgd", "strict"), ("sgd", "sgd-official"),
                                                 ("multiwoz22", "strict")])
def test_a_run_leaves_the_same_few_cyclic_objects_whatever_its_size(tmp_path, sample, profile):
    one = _replicated(tmp_path / "x1", 1, sample)
    twenty = _replicated(tmp_path / "x20", 20, sample)
    _cyclic_garbage_of_a_run(one, profile, tmp_path / "warm.json")  # first-use imports, caches
    small = _cyclic_garbage_of_a_run(one, profile, tmp_path / "one.json")
    large = _cyclic_garbage_of_a_run(twenty, profile, tmp_path / "twenty.json")
    assert json.loads((tmp_path / "twenty.json").read_text())["scores"][
        "joint_goal_accuracy"] == 1.0  # the oracle run really scored 20 x the turns
    assert large <= small + 50, (small, large)
    assert large < 2000
