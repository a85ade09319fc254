"""``dst-eval compare``: paired significance tests of prediction files from the command line.

Gold: the gold_samples/multiwoz22 dialogues copied 12 times under new ids (48 dialogues), so
a bootstrap over dialogues has something to resample. Expected numbers come from
``evaluate`` + the resampling functions directly, and from the properties every test must
have (identical system: p = 1; heavily corrupted copy: p < 0.01).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest
from dst_eval.metrics.resampling import approximate_randomisation, bootstrap_ci, paired_bootstrap
from helpers import oracle_predictions

import dst_eval.cli.app as cli
from dst_eval.api import evaluate
from dst_eval.cli.compare import run_compare
from dst_eval.corpora import load_gold
from dst_eval.errors import DstEvalError, UsageError
from dst_eval.significance import add_bootstrap

COPIES = 12


def compare(argv: list[str]) -> int:
    """Through ``dst-eval compare`` once the CLI has the subcommand, else ``run_compare``."""
    if "compare" in cli.COMMANDS:
        return cli.main(["compare", *argv])
    try:
        return run_compare(argv)
    except DstEvalError as exc:
        print(f"dst-eval: {exc.kind}: {exc}", file=sys.stderr)
        return exc.exit_code


@pytest.fixture(scope="module")
def workspace(tmp_path_factory, gold_samples) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare")
    gold_dir = root / "gold"
    gold_dir.mkdir()
    sample = json.loads((gold_samples / "multiwoz22" / "dialogues_001.json").read_text())
    dialogues = []
    for k in range(COPIES):
        for dialogue in sample:
            clone = copy.deepcopy(dialogue)
            clone["dialogue_id"] = f"C{k:02d}{dialogue['dialogue_id']}"
            dialogues.append(clone)
    (gold_dir / "dialogues_001.json").write_text(json.dumps(dialogues))
    (gold_dir / "schema.json").write_text(
        (gold_samples / "multiwoz22" / "schema.json").read_text())

    gold = load_gold(gold_dir)
    oracle = oracle_predictions(gold)
    noisy = copy.deepcopy(oracle)  # a mostly right system: every 5th turn loses its state
    corrupted = copy.deepcopy(oracle)  # heavily corrupted: every 2nd turn wrong
    for predictions, every in ((noisy, 5), (corrupted, 2)):
        row = 0
        for turns in predictions.values():
            for turn in turns:
                if row % every == 0:
                    turn["state"] = {"hotel": {"area": "nowhere"}}
                row += 1
    files = {"gold": gold_dir}
    for name, data in (("base", noisy), ("same", noisy), ("corrupted", corrupted)):
        files[name] = root / f"{name}.json"
        files[name].write_text(json.dumps(data))
    partial = dict(list(noisy.items())[1:])  # one dialogue missing
    files["partial"] = root / "partial.json"
    files["partial"].write_text(json.dumps(partial))
    return files


def run_json(workspace, capsys, *names: str, extra: tuple[str, ...] = ()) -> dict:
    argv = [str(workspace[n]) for n in names] + ["--gold", str(workspace["gold"]),
                                                 "--format", "json", *extra]
    assert compare(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_identical_and_corrupted_systems(workspace, capsys):
    result = run_json(workspace, capsys, "base", "same", "corrupted", extra=("--test", "both"))
    assert result["test"] == "both" and result["n"] == 1000 and result["trials"] == 10000
    assert "|bs:1000|ar:10000|seed:12345|" in result["signature"]
    base, same, corrupted = result["systems"]
    assert base["baseline"] and not same["baseline"]
    for metric in result["metrics"]:
        assert same["scores"][metric]["delta"] == 0
        assert same["scores"][metric]["p_bs"] == 1.0 and same["scores"][metric]["p_ar"] == 1.0
    for metric in ("joint_goal_accuracy", "slot_f1", "average_goal_accuracy"):
        assert corrupted["scores"][metric]["delta"] < -0.2
        assert corrupted["scores"][metric]["p_bs"] < 0.01
        assert corrupted["scores"][metric]["p_ar"] < 0.01


def test_numbers_equal_direct_computation(workspace, capsys):
    result = run_json(workspace, capsys, "base", "corrupted", extra=("--test", "both", "--n",
                                                                      "300", "--trials", "700"))
    gold = load_gold(workspace["gold"])
    base = evaluate(workspace["base"], gold=gold)
    system = evaluate(workspace["corrupted"], gold=gold)
    assert result["metrics"] == list(base.scores)
    cis = bootstrap_ci(base.table, base.metric_objects, n_samples=300, seed=12345)
    bs = paired_bootstrap(base.table, system.table, base.metric_objects, n_samples=300)
    ar = approximate_randomisation(base.table, system.table, base.metric_objects, n_trials=700)
    for metric in result["metrics"]:
        got_base = result["systems"][0]["scores"][metric]
        got_sys = result["systems"][1]["scores"][metric]
        assert got_base["score"] == base.scores[metric]
        assert got_base["mean"] == cis[metric]["mean"]
        assert got_base["half_width"] == cis[metric]["half_width"]
        assert got_sys["score"] == system.scores[metric]
        assert got_sys["delta"] == pytest.approx(system.scores[metric] - base.scores[metric])
        assert got_sys["mean"] == bs[metric]["system_ci"]["mean"]
        assert got_sys["p_bs"] == bs[metric]["p_value"]
        assert got_sys["p_ar"] == ar[metric]["p_value"]
        # the paired test's baseline CI uses the same resamples as bootstrap_ci
        assert bs[metric]["baseline_ci"]["mean"] == cis[metric]["mean"]


def test_seed_option_and_environment(workspace, capsys, monkeypatch):
    default = run_json(workspace, capsys, "base", "corrupted")
    seeded = run_json(workspace, capsys, "base", "corrupted", extra=("--seed", "7"))
    assert "|seed:7|" in seeded["signature"] and seeded["test"] == "bs" and "trials" not in seeded
    jga = "joint_goal_accuracy"
    assert seeded["systems"][0]["scores"][jga]["score"] == default["systems"][0]["scores"][jga][
        "score"]
    assert seeded["systems"][0]["scores"][jga]["mean"] != default["systems"][0]["scores"][jga][
        "mean"]
    monkeypatch.setenv("SACREBLEU_SEED", "7")
    assert run_json(workspace, capsys, "base", "corrupted") == seeded
    monkeypatch.setenv("DST_EVAL_SEED", "none")  # DST_EVAL_SEED wins; unseeded
    unseeded = run_json(workspace, capsys, "base", "corrupted")
    assert "|seed:none|" in unseeded["signature"]


def test_ar_only_and_sacrebleu_ties(workspace, capsys):
    result = run_json(workspace, capsys, "base", "same",
                      extra=("--test", "ar", "--trials", "99", "--ties", "exclude"))
    assert "|ar:99|seed:12345|ties:exclude|" in result["signature"]
    assert "n" not in result and "mean" not in result["systems"][0]["scores"][
        "joint_goal_accuracy"]
    # sacrebleu's strict rule: an identical system is "significant" at p = 1 / (N + 1)
    assert result["systems"][1]["scores"]["joint_goal_accuracy"]["p_ar"] == 1 / 100


def test_markdown_and_table_output(workspace, capsys, tmp_path):
    argv = [str(workspace["base"]), str(workspace["corrupted"]), "--gold",
            str(workspace["gold"]), "--metrics", "joint_goal_accuracy,slot_f1"]
    assert compare([*argv, "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert rows[0] == "| metric | base.json (baseline) | corrupted.json | Δ | p (bs) |"
    assert [r.split(" | ")[0] for r in rows[1:]] == ["| joint_goal_accuracy", "| slot_f1"]
    assert "μ = " in rows[1] and rows[1].endswith("* |")  # significant at 0.05
    output = tmp_path / "table.txt"
    assert compare([*argv, "--output", str(output)]) == 0
    table = output.read_text()
    assert "joint_goal_accuracy" in table and "bs:1000" in table


@pytest.mark.parametrize("extra, message", [
    ((), "needs a baseline and at least one system"),
    (("--seed", "abc"), "seed must be"),
    (("--n", "1"), "--n must be at least 2"),
    (("--profile", "mwzeval"), "keeps no per-turn statistics"),
    (("-m", "bleu"), "no metric it reports has per-turn statistics to resample"),
])
def test_usage_errors(workspace, capsys, extra, message):
    files = [str(workspace["base"])] if not extra else [str(workspace["base"]),
                                                         str(workspace["same"])]
    code = compare([*files, "--gold", str(workspace["gold"]), *extra])
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err and len(err.strip().splitlines()) == 1


def test_unpaired_systems_are_refused(workspace, capsys):
    code = compare([str(workspace["base"]), str(workspace["partial"]), "--gold",
                    str(workspace["gold"]), "--missing", "skip"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot pair" in err and "partial.json" in err
    # with missing = wrong the absent dialogue is scored as empty predictions: comparable
    result = run_json(workspace, capsys, "base", "partial")
    assert result["systems"][1]["scores"]["joint_goal_accuracy"]["delta"] < 0


def test_add_bootstrap_fills_report(workspace):
    gold = load_gold(workspace["gold"])
    report = evaluate(workspace["base"], gold=gold)
    assert add_bootstrap(report, 500, 3) == {"bs": "500", "seed": "3"}
    cis = report.extra["confidence_intervals"]
    assert cis == bootstrap_ci(report.table, report.metric_objects, n_samples=500, seed=3)
    jga = cis["joint_goal_accuracy"]
    assert jga["score"] == report.scores["joint_goal_accuracy"]
    assert jga["ci_low"] < jga["mean"] < jga["ci_high"] and jga["resamples"] == 500
    assert '"confidence_intervals"' in report.to_json()
    assert add_bootstrap(report, 100, None)["seed"] == "none"
    with pytest.raises(UsageError, match="at least 2"):
        add_bootstrap(report, 1, 3)
    compat = evaluate(workspace["base"], gold=gold, profile="mwzeval")
    with pytest.raises(UsageError, match="per-turn statistics"):
        add_bootstrap(compat, 100, 3)


def test_few_dialogues_note(gold_samples, capsys):
    sample = gold_samples / "multiwoz22"
    argv = [str(sample / "predictions.json")] * 2 + ["--gold", str(sample), "--format", "json"]
    assert compare(argv) == 0
    result = json.loads(capsys.readouterr().out)
    alone = evaluate(sample / "predictions.json", gold=sample).notes  # both systems have them
    assert result["notes"] == ["only 4 dialogues: resampling tests and intervals are unreliable "
                               "on so few", *alone]
    assert result["systems"][1]["scores"]["joint_goal_accuracy"]["p_bs"] == 1.0


def test_resamples_where_a_metric_is_undefined_are_counted(tmp_path, capsys):
    """Two of four dialogues without a gold slot: AGA is undefined on a resample drawing only
    those, which is left out -- and the output says how many were used."""
    import copy
    import shutil

    from dst_eval.cli.app import main as cli_main

    gold = tmp_path / "gold"
    shutil.copytree(Path(__file__).resolve().parent.parent / "gold_samples" / "multiwoz22", gold)
    dialogues = json.loads((gold / "dialogues_001.json").read_text("utf-8"))
    for dialogue in dialogues[:2]:
        for turn in dialogue["turns"]:
            for frame in turn.get("frames", []):
                frame["state"]["slot_values"] = {}
                frame["slots"] = []
    (gold / "dialogues_001.json").write_text(json.dumps(dialogues), "utf-8")
    predictions = json.loads((gold / "predictions.json").read_text("utf-8"))
    worse = copy.deepcopy(predictions)
    first = next(k for k in worse if k.lower().startswith(dialogues[3]["dialogue_id"].lower()
                                                          .removesuffix(".json")))
    worse[first][0]["state"] = {}
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(predictions), "utf-8")
    b.write_text(json.dumps(worse), "utf-8")
    code = cli_main(["compare", str(a), str(b), "--gold", str(gold), "-m",
                     "average_goal_accuracy", "--n", "1000", "-f", "json", "-q"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    [system] = [s for s in out["systems"] if not s["baseline"]]
    used = system["scores"]["average_goal_accuracy"]["p_bs_resamples"]
    assert 0 < used < 1000  # (2/4)^4 of the draws, about 62, hold only empty dialogues
    assert out["systems"][0]["scores"]["average_goal_accuracy"]["resamples"] == used


def test_each_systems_warnings_are_shown(tmp_path, capsys, gold_samples):
    """A system missing one of the 4 sample dialogues: compare names the missing dialogue in
    every format, as scoring that file alone does (its Δ partly comes from it)."""
    import io

    from rich.console import Console

    from dst_eval.cli.app import main as cli_main
    from dst_eval.escape import markdown
    from dst_eval.significance import render_comparison

    mwz22 = gold_samples / "multiwoz22"
    predictions = json.loads((mwz22 / "predictions.json").read_text("utf-8"))
    del predictions["demo0004"]
    miss = tmp_path / "miss.json"
    miss.write_text(json.dumps(predictions), "utf-8")
    argv = ["compare", str(mwz22 / "predictions.json"), str(miss), "--gold", str(mwz22),
            "--n", "20", "-m", "joint_goal_accuracy", "-q"]
    warning = f"warning: {miss}: 1 of 4 gold dialogues have no prediction"
    assert cli_main([*argv, "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    base, system = out["systems"]
    assert base["issues"] == []
    [issue] = system["issues"]
    assert (issue["kind"], issue["severity"], issue["file"]) == (
        "missing_dialogues", "warning", str(miss))
    assert "DEMO0004" in issue["message"]
    assert cli_main(argv) == 0  # plain text (not a terminal)
    assert any(line.startswith(warning) for line in capsys.readouterr().out.splitlines())
    assert cli_main([*argv, "-f", "markdown"]) == 0
    shown = f"- warning: {markdown(f'{miss}: 1 of 4 gold dialogues have no prediction')}"
    assert any(line.startswith(shown) for line in capsys.readouterr().out.splitlines())
    console = Console(file=io.StringIO(), width=300, force_terminal=False, color_system=None)
    render_comparison(out, console)
    assert warning in console.file.getvalue()


def test_a_requested_metric_without_a_value_is_named_n_a(capsys, gold_samples):
    """``compare -m inform joint_goal_accuracy`` on MultiWOZ 2.2 without goals: Inform is
    n/a with its reason (as the main command says), never silently left out; a name given
    twice is a usage error (one -b line per name)."""
    from dst_eval.cli.app import main as cli_main

    mwz22 = gold_samples / "multiwoz22"
    pred = str(mwz22 / "predictions.json")
    argv = ["compare", pred, pred, "--gold", str(mwz22), "--n", "20", "-q"]
    assert cli_main([*argv, "-m", "inform", "joint_goal_accuracy", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"] == ["joint_goal_accuracy"]
    assert any(note.startswith("inform: n/a (MultiWOZ 2.2 has no user goals")
               for note in out["notes"])
    assert cli_main([*argv, "-m", "joint_goal_accuracy", "slot_f1", "joint_goal_accuracy"]) == 2
    assert "named more than once" in capsys.readouterr().err


def test_a_metric_one_system_lacks_is_named_with_that_system(tmp_path, capsys, gold_samples):
    """The SGD sample without predicted intents against the sample: intent accuracy is not
    compared, and the note names the system that lacks it and why; with ``-m`` it is the
    same note (it used to be exit 2 'lacks the statistics', naming no metric)."""
    from dst_eval.cli.app import main as cli_main

    sgd = gold_samples / "sgd"
    predictions = json.loads((sgd / "predictions.json").read_text("utf-8"))
    for turns in predictions.values():
        for turn in turns:
            turn.pop("active_intents", None)
            turn.pop("active_intent", None)
    noint = tmp_path / "noint.json"
    noint.write_text(json.dumps(predictions), "utf-8")
    base = str(sgd / "predictions.json")
    assert "active_intent_accuracy" in evaluate(base, gold=sgd).scores
    for extra in ([], ["-m", "active_intent_accuracy", "joint_goal_accuracy"]):
        argv = ["compare", base, str(noint), "--gold", str(sgd), "--n", "20", "-q", "-f",
                "json", *extra]
        assert cli_main(argv) == 0
        out = json.loads(capsys.readouterr().out)
        assert "active_intent_accuracy" not in out["metrics"]
        assert f"active_intent_accuracy: not compared ({noint} lacks it: no intents in the " \
               "gold or the predictions)" in out["notes"]


def test_a_system_without_responses_is_compared_on_what_both_have(tmp_path, capsys,
                                                                  gold_samples):
    """The CrossWOZ sample against itself without responses: the DST metrics are compared
    in the order asked, BLEU is not (the note names the system without responses), in
    either order of the systems; a field both signatures have but with another value (a
    different normalisation) is still refused."""
    from dst_eval.cli.app import main as cli_main
    from dst_eval.errors import UsageError
    from dst_eval.significance import compare_reports

    cw = gold_samples / "crosswoz"
    predictions = json.loads((cw / "predictions.json").read_text("utf-8"))
    for turns in predictions.values():
        for turn in turns:
            turn.pop("response", None)
    silent = tmp_path / "silent.json"
    silent.write_text(json.dumps(predictions, ensure_ascii=False), "utf-8")
    full = str(cw / "predictions.json")
    for pair in ((full, str(silent)), (str(silent), full)):
        argv = ["compare", *pair, "--gold", str(cw), "--n", "20", "-q", "-f", "json", "-m",
                "slot_f1", "joint_goal_accuracy", "bleu"]
        assert cli_main(argv) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["metrics"] == ["slot_f1", "joint_goal_accuracy"]
        assert f"bleu: not compared ({silent} lacks it: the predictions carry no responses)" \
            in out["notes"]
    exact = evaluate(full, gold=cw, norm="exact")
    with pytest.raises(UsageError, match="scored differently"):
        compare_reports([evaluate(full, gold=cw), exact], n=20, seed=1)


def test_standard_input_given_twice_is_a_usage_error(workspace, capsys):
    """``compare - -`` read standard input for the baseline and found it empty for the
    system (exit 3, "file is empty"): a usage error, before any reading."""
    argv = ["-", "-", "--gold", str(workspace["gold"])]
    assert compare(argv) == 2
    err = capsys.readouterr().err
    assert "standard input (-) can hold one prediction file, not two" in err


@pytest.mark.parametrize(("n", "trials", "expected"), [
    (40, 40, []),
    (39, 1, ["only 39 resamples: too few for a 95 % interval or a p-value below 0.025 (use "
             "at least 40)", "only 1 trial: too few for a p-value below 0.5 (use at least 40)"]),
])
def test_too_few_resamples_are_said(gold_samples, n, trials, expected):
    """Fewer than 40 resamples give no 2.5th/97.5th percentile of their own, and a p-value
    no lower than 1/(N+1): a single run and compare say so (``--bootstrap 2`` used to be
    shown as a 95 % interval without a word)."""
    from dst_eval.significance import compare_reports

    folder = gold_samples / "multiwoz22"
    report = evaluate(folder / "predictions.json", gold=folder, bootstrap=n, seed=1)
    assert [note for note in report.notes if "resample" in note] == expected[:1]
    compared = compare_reports([report, report], test="both", n=n, trials=trials, seed=1)
    assert [note for note in compared.get("notes", []) if "too few" in note] == expected


def test_compare_lists_each_systems_own_notes(gold_samples, tmp_path):
    """A note of one system (responses missing and scored as empty) is listed for it, as
    scoring the file alone lists it; notes every system has are said once (compare used to
    drop the systems' notes)."""
    from dst_eval.significance import compare_reports, comparison_markdown

    folder = gold_samples / "crosswoz"
    predictions = json.loads((folder / "predictions.json").read_text(encoding="utf-8"))
    first = next(iter(predictions))
    for turn in predictions[first]:
        turn.pop("response")
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(predictions, ensure_ascii=False), encoding="utf-8")
    reports = [evaluate(path, gold=folder) for path in (folder / "predictions.json", partial)]
    [own] = [n for n in reports[1].notes if n not in reports[0].notes]
    assert own.startswith(f"{len(predictions[first])} predicted turns have no response")
    compared = compare_reports(reports, n=50, names=["full", "partial"])
    assert [s.get("notes") for s in compared["systems"]] == [None, [own]]
    assert all(n in compared["notes"] for n in reports[0].notes if n in reports[1].notes)
    assert f"- note: partial: {own.split(' (')[0]}" in comparison_markdown(compared).replace(
        "\\", "")
