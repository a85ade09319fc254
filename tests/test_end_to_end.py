"""The whole pipeline — loader, reader, alignment, profile, report, CLI — on our gold samples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import oracle_predictions

from dst_eval import __version__, evaluate
from dst_eval.cli.app import main
from dst_eval.corpora import load_gold

SAMPLES = Path(__file__).resolve().parent.parent / "gold_samples"
MWZ22 = SAMPLES / "multiwoz22"


def _write(tmp_path: Path, obj, name: str = "pred.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def mwz22_gold():
    return load_gold(MWZ22)


def test_oracle_scores_one_on_every_metric(tmp_path, mwz22_gold):
    report = evaluate(_write(tmp_path, oracle_predictions(mwz22_gold)), gold=mwz22_gold)
    assert report.scores, "no score computed"
    for name, value in report.scores.items():
        assert value == pytest.approx(1.0), name
    assert report.coverage["missing_dialogues"] == 0
    assert report.signature.profile == "strict"


def test_dropped_slots_give_the_value_computed_by_construction(tmp_path, mwz22_gold):
    predictions = oracle_predictions(mwz22_gold)
    n_turns = n_gold_slots = dropped = 0
    for turns in predictions.values():
        for i, turn in enumerate(turns):
            n_turns += 1
            n_gold_slots += sum(len(slots) for slots in turn["state"].values())
            if i % 2 == 1 and turn["state"]:
                domain = sorted(turn["state"])[0]
                slot = sorted(turn["state"][domain])[0]
                del turn["state"][domain][slot]
                dropped += 1
    assert dropped > 0
    report = evaluate(_write(tmp_path, predictions), gold=mwz22_gold)
    assert report.scores["joint_goal_accuracy"] == pytest.approx(1 - dropped / n_turns)
    assert report.scores["slot_recall"] == pytest.approx(1 - dropped / n_gold_slots)
    assert report.scores["slot_precision"] == pytest.approx(1.0)


def test_missing_dialogue_is_reported_and_counted_wrong(tmp_path, mwz22_gold):
    predictions = oracle_predictions(mwz22_gold)
    dropped_id = sorted(predictions)[0]
    n_dropped = len(predictions.pop(dropped_id))
    path = _write(tmp_path, predictions)
    report = evaluate(path, gold=mwz22_gold)
    gold_turns = mwz22_gold.n_turns
    assert report.coverage["missing_dialogues"] == 1
    assert any(i.kind == "missing_dialogues" and dropped_id.lower() in i.message.lower()
               for i in report.issues)
    # an empty prediction is right only where the gold state is empty too
    dropped = mwz22_gold.get(dropped_id)
    empty_gold = sum(1 for t in dropped.turns if not t.state)
    expected = (gold_turns - n_dropped + empty_gold) / gold_turns
    assert report.scores["joint_goal_accuracy"] == pytest.approx(expected)
    skipped = evaluate(path, gold=mwz22_gold, missing="skip")
    assert skipped.scores["joint_goal_accuracy"] == pytest.approx(1.0)
    assert "missing:skip" in skipped.signature.format()


def test_report_renderings(tmp_path, mwz22_gold):
    report = evaluate(_write(tmp_path, oracle_predictions(mwz22_gold)), gold=mwz22_gold,
                      by=("domain", "slot", "depth"))
    data = json.loads(report.to_json())
    assert data["signature"].startswith("dst-eval|corpus:multiwoz22|")
    assert data["scores"]["joint_goal_accuracy"] == 1.0
    assert any(g.startswith("domain:") for g in data["groups"])
    assert any(g.startswith("depth:") for g in data["groups"])
    frame = report.to_pandas()
    assert len(frame) == mwz22_gold.n_turns
    assert {"dialogue_id", "turn_index", "joint_goal_correct"} <= set(frame.columns)  # was jga
    assert int(frame["joint_goal_correct"].sum()) == mwz22_gold.n_turns  # oracle: all correct
    assert "| joint_goal_accuracy | 100.00 |" in report.to_markdown()
    assert report.to_csv().splitlines()[0] == "group,metric,value,unit,signature"


def test_cli_json_output_and_exit_codes(tmp_path, capsys, mwz22_gold):
    pred = _write(tmp_path, oracle_predictions(mwz22_gold))
    out = tmp_path / "out.json"
    assert main([str(pred), "--gold", str(MWZ22), "--format", "json", "--output", str(out)]) == 0
    assert json.loads(out.read_text())["scores"]["slot_f1"] == 1.0

    assert main([str(pred), "--gold", str(MWZ22), "--profile", "nope"]) == 2
    assert main([str(pred), "--gold", str(tmp_path / "absent")]) == 4
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main([str(bad), "--gold", str(MWZ22)]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "bad.json" in err


def test_cli_table_writes_the_json_report_only_when_asked(tmp_path, monkeypatch, capsys):
    # issue 12: no <predictions>.report.json side effect; --report FILE writes it
    monkeypatch.chdir(tmp_path)
    assert main([str(MWZ22 / "predictions.json"), "--gold", str(MWZ22)]) == 0
    shown = capsys.readouterr()
    assert "joint_goal_accuracy" in shown.out
    assert "signature: dst-eval|corpus:multiwoz22" in shown.out
    assert list(tmp_path.iterdir()) == []
    assert main([str(MWZ22 / "predictions.json"), "--gold", str(MWZ22),
                 "--report", "r.json"]) == 0
    written = json.loads((tmp_path / "r.json").read_text())
    assert 0 < written["scores"]["joint_goal_accuracy"] < 1


def test_validate_lists_problems(tmp_path, capsys, mwz22_gold):
    predictions = oracle_predictions(mwz22_gold)
    predictions["not-a-dialogue"] = [{"state": {}}]
    path = _write(tmp_path, predictions)
    assert main(["validate", str(path), "--gold", str(MWZ22)]) == 0
    assert "not-a-dialogue" in capsys.readouterr().out
    assert main(["validate", str(path), "--gold", str(MWZ22), "--strict"]) == 3


def test_validate_refuses_what_scoring_refuses(tmp_path, capsys, mwz22_gold):
    """Predictions of other dialogues: scoring stops (min-coverage), so validate does too."""
    path = _write(tmp_path, {"other-dialogue": [{"state": {}}]})
    assert main([str(path), "--gold", str(MWZ22)]) == 3
    assert main(["validate", str(path), "--gold", str(MWZ22)]) == 3
    assert "predictions match 0 of 4 dialogues" in capsys.readouterr().err
    assert main(["validate", str(path), "--gold", str(MWZ22), "--min-coverage", "0"]) == 0


def test_help_and_version(capsys):
    assert main(["--version"]) == 0
    assert f"dst-eval {__version__}" in capsys.readouterr().out
    assert main(["--help"]) == 0
    assert "examples:" in capsys.readouterr().out


def test_the_command_process_settings(monkeypatch):
    """``run()`` (the console script) sets numpy's BLAS threads to 1 before numpy loads,
    keeping a value the user's environment gives, turns the cyclic collector off and, once
    ``main`` has returned, moves what is alive out of the collector's way (``gc.freeze``)."""
    import gc
    import os

    from dst_eval.cli import app

    monkeypatch.setattr(app, "main", lambda: 0)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "restored afterwards")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    monkeypatch.setenv("MKL_NUM_THREADS", "4")
    assert gc.isenabled() and gc.get_freeze_count() == 0
    try:
        with pytest.raises(SystemExit) as exited:
            app.run()
        assert not gc.isenabled()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.enable()  # this test process goes on collecting (tests/conftest.py)
    assert exited.value.code == 0
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    assert os.environ["MKL_NUM_THREADS"] == "4"


def test_bad_responses_are_reported_and_scored_as_empty(tmp_path, mwz22_gold):
    predictions = oracle_predictions(mwz22_gold)
    first = sorted(predictions)[0]
    predictions[first][0]["response"] = 5
    predictions[first][1]["response"] = None
    path = _write(tmp_path, predictions)
    report = evaluate(path, gold=mwz22_gold)
    bad = [i for i in report.issues if i.kind == "bad_response"]
    assert bad and "scored as an empty response" in bad[0].message
    assert report.scores["joint_goal_accuracy"] == pytest.approx(1.0)


def test_predictions_without_states_report_dst_as_not_applicable(tmp_path, mwz22_gold):
    predictions = {d: [{"response": "hello"} for _ in turns]
                   for d, turns in oracle_predictions(mwz22_gold).items()}
    report = evaluate(_write(tmp_path, predictions), gold=mwz22_gold)
    assert "joint_goal_accuracy" not in report.scores
    assert any(n.startswith("DST: n/a") for n in report.notes)
    # MultiWOZ 2.2 gold has no goals: Inform/Success say why they are missing, never 0
    assert "inform" in report.extra["not_applicable"]
