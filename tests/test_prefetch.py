"""SGD-style prediction directories are parsed by a worker while the gold loads; the
result, the errors and the clean-up must be the same as reading them in one process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dst_eval import evaluate
from dst_eval.cli.app import main
from dst_eval.errors import PredictionError
from dst_eval.predictions.reader import prefetch_predictions, read_predictions

SGD = Path(__file__).resolve().parent.parent / "gold_samples" / "sgd"


def _prediction_dir(tmp_path: Path, n_files: int = 3) -> Path:
    """The SGD sample's gold dialogues as predictions, split over several files."""
    dialogues = json.loads((SGD / "dialogues_001.json").read_text(encoding="utf-8"))
    out = tmp_path / "pred"
    out.mkdir()
    for i in range(n_files):
        chunk = dialogues[i::n_files]
        (out / f"dialogues_{i + 1:03d}.json").write_text(json.dumps(chunk), encoding="utf-8")
    return out


def test_prefetched_read_equals_a_plain_read(tmp_path, monkeypatch):
    pred = _prediction_dir(tmp_path)
    handle = prefetch_predictions(pred, None)
    assert handle is not None
    try:
        prefetched = read_predictions(pred, corpus="sgd", prefetched=handle)
    finally:
        handle.close()
    monkeypatch.setenv("DST_EVAL_WORKERS", "1")
    plain = read_predictions(pred, corpus="sgd")
    assert prefetched.dialogues == plain.dialogues
    assert [str(i) for i in prefetched.issues] == [str(i) for i in plain.issues]


def test_oracle_through_evaluate_and_cli(tmp_path):
    pred = _prediction_dir(tmp_path)
    report = evaluate(pred, gold=SGD, profile="sgd-official")
    assert report.official["#ALL_SERVICES"]["joint_goal_accuracy"] == pytest.approx(1.0)
    out = tmp_path / "out.json"
    assert main([str(pred), "--gold", str(SGD), "--profile", "sgd-official",
                 "--format", "json", "--output", str(out)]) == 0
    assert json.loads(out.read_text())["scores"] == report.scores


def test_errors_in_the_worker_reach_the_user_as_one_line(tmp_path, capsys):
    pred = _prediction_dir(tmp_path, n_files=4)
    (pred / "dialogues_003.json").write_text("{broken", encoding="utf-8")
    with pytest.raises(PredictionError) as caught:
        evaluate(pred, gold=SGD)
    assert "dialogues_003.json" in str(caught.value)
    assert main([str(pred), "--gold", str(SGD)]) == 3
    err = capsys.readouterr().err
    assert "dialogues_003.json" in err and "Traceback" not in err


def test_prefetch_started_but_never_used_is_stopped(tmp_path):
    pred = _prediction_dir(tmp_path)
    # the gold problem is found first: the prefetched read is abandoned and closed
    assert main([str(pred), "--gold", str(tmp_path / "no-such-gold")]) == 4
    assert main([str(pred), "--gold", str(SGD), "--by", "nonsense"]) == 2
    # and a fresh run afterwards still works (no worker left behind holding the files)
    assert evaluate(pred, gold=SGD).coverage["missing_dialogues"] == 0
