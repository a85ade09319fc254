"""The command line as sacrebleu users expect it (issue 12) and its displays (issue 9 §6):
sacrebleu's reporting flags with sacrebleu's meanings, no file unless asked, output that
survives a pipe, stated units and integer counts, one per-turn frame schema, a progress
display only on a terminal.

sacrebleu's documented meanings (``sacrebleu --help``, 2.x): ``-b/--score-only`` "Print
only the computed score" (several metrics: one number per line, a JSON list with ``-f
json``); ``-w/--width`` "Floating point width"; ``-f/--format`` the output format; ``-m``
the metrics; ``-q/--quiet`` "Suppress verbose messages"; input from standard input; the
signature ends ``version:X.Y.Z``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from dst_eval import evaluate
from dst_eval.cli.app import main

ROOT = Path(__file__).resolve().parent.parent
MWZ22 = ROOT / "gold_samples" / "multiwoz22"
SGD = ROOT / "gold_samples" / "sgd"
JMWZ = ROOT / "gold_samples" / "jmultiwoz"
BOX = set("│┃┏┓┗┛━─┡┩╇┳┻╋…")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def sample(*extra: str) -> list[str]:
    return [str(MWZ22 / "predictions.json"), "--gold", str(MWZ22), *extra]


# ---- sacrebleu's flags -------------------------------------------------------------------
def test_score_only_width_and_metrics(capsys):
    jga, f1 = 9 / 13, 62 / 65  # gold_samples/multiwoz22/README.md
    assert run(capsys, *sample("-m", "joint_goal_accuracy", "-b")) == (
        0, f"{100 * jga:.2f}\n", "")
    assert run(capsys, *sample("-m", "joint_goal_accuracy", "slot_f1", "-b", "-w", "4")) == (
        0, f"{100 * jga:.4f}\n{100 * f1:.4f}\n", "")
    assert run(capsys, *sample("--metrics", "joint_goal_accuracy,slot_f1", "--score-only",
                               "--width", "0"))[1] == f"{100 * jga:.0f}\n{100 * f1:.0f}\n"
    code, out, _ = run(capsys, *sample("-m", "joint_goal_accuracy", "slot_f1", "-b", "-f",
                                       "json"))
    assert code == 0 and json.loads(out) == [round(100 * jga, 2), round(100 * f1, 2)]
    code, out, _ = run(capsys, *sample("-b"))  # every metric, in the table's order
    result = evaluate(MWZ22 / "predictions.json", gold=MWZ22)
    assert out.splitlines() == [f"{100 * v:.2f}" for v in result.scores.values()]


@pytest.mark.parametrize("argv", [["-m", "nonsense"], ["-w", "-1"], ["-w", "x"],
                                  ["-b", "-f", "csv"]])
def test_bad_reporting_options_are_usage_errors(capsys, argv):
    code, out, err = run(capsys, *sample(*argv))
    assert code == 2 and out == "" and err.count("\n") == 1 and "usage error" in err


def test_metrics_limit_response_metrics_too(capsys):
    full = evaluate(JMWZ / "predictions.json", gold=JMWZ, split="test")
    assert "bleu_corpus" in full.scores and "joint_goal_accuracy" in full.scores
    code, out, _ = run(capsys, JMWZ / "predictions.json", "--gold", JMWZ, "--split", "test", "-m",
                       "joint_goal_accuracy", "-f", "json")
    assert code == 0 and list(json.loads(out)["scores"]) == ["joint_goal_accuracy"]
    code, out, _ = run(capsys, JMWZ / "predictions.json", "--gold", JMWZ, "--split", "test",
                       "-m", "bleu_corpus", "-f", "json")
    assert json.loads(out)["scores"] == {
        "bleu_corpus": pytest.approx(full.scores["bleu_corpus"], abs=1e-12)}


def test_a_requested_metric_without_a_value_is_n_a_in_its_place(capsys):
    """``-m`` names what is printed: a metric the run has no value for is n/a with its
    reason (one line per requested metric under -b, in the order asked), never silently
    dropped."""
    jga = 9 / 13  # gold_samples/multiwoz22/README.md
    goals = "MultiWOZ 2.2 has no user goals"  # the sample has no goals: Inform is n/a
    code, out, err = run(capsys, *sample("-m", "inform", "joint_goal_accuracy", "-b"))
    assert (code, out) == (0, f"n/a\n{100 * jga:.2f}\n")
    assert err.startswith(f"note: inform: n/a ({goals}")
    assert run(capsys, *sample("-m", "inform", "-b", "-f", "json", "-q")) == (0, "[null]\n", "")
    code, out, _ = run(capsys, *sample("-m", "inform", "joint_goal_accuracy", "-f", "json"))
    report = json.loads(out)
    assert code == 0 and report["scores"] == {"joint_goal_accuracy": jga, "inform": None}
    assert report["not_applicable"]["inform"].startswith(goals)
    # a family named n/a by a scorer's note (requested_slots_*), in the text table
    code, out, _ = run(capsys, *sample("-m", "requested_slots_f1", "-f", "text"))
    assert code == 0 and ["requested_slots_f1", "n/a", "%"] in [x.split() for x in
                                                               out.splitlines()]
    # SGD predictions without responses: BLEU is n/a, and says why
    code, out, _ = run(capsys, SGD / "predictions.json", "--gold", SGD, "-m", "bleu",
                       "joint_goal_accuracy", "-f", "json", "-q")
    report = json.loads(out)
    assert code == 0 and list(report["scores"]) == ["bleu", "joint_goal_accuracy"]
    assert report["scores"]["bleu"] is None
    assert report["not_applicable"]["bleu"] == "the predictions carry no responses"
    assert "bleu: n/a (the predictions carry no responses)" in report["notes"]


def test_a_requested_metric_the_profile_does_not_compute_is_a_usage_error(capsys):
    code, out, err = run(capsys, *sample("--profile", "mwzeval", "-m", "slot_accuracy",
                                         "joint_goal_accuracy", "-b"))
    [line] = err.strip().splitlines()
    assert (code, out) == (2, "") and line.startswith(
        "dst-eval: usage error: --metrics slot_accuracy: not computed by the mwzeval profile")
    code, _, err = run(capsys, *sample("-m", "domain_joint_goal_accuracy:police"))
    assert code == 2 and "domain_joint_goal_accuracy:police: not computed" in err


def test_compare_honours_metrics(capsys, tmp_path):
    other = tmp_path / "other.json"
    data = json.loads((MWZ22 / "predictions.json").read_text())
    for turns in data.values():
        turns[0]["state"] = {}
    other.write_text(json.dumps(data))
    code, out, _ = run(capsys, "compare", MWZ22 / "predictions.json", other, "--gold", MWZ22,
                       "--n", "50", "-m", "joint_goal_accuracy", "slot_f1", "-f", "json")
    assert code == 0 and json.loads(out)["metrics"] == ["joint_goal_accuracy", "slot_f1"]
    assert run(capsys, "compare", MWZ22 / "predictions.json", other, "--gold", MWZ22,
               "-m", "nope")[0] == 2


def test_predictions_from_standard_input(capsys, monkeypatch):
    from_file = run(capsys, *sample("-f", "json"))[1]
    data = (MWZ22 / "predictions.json").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, _ = run(capsys, "-", "--gold", MWZ22, "-f", "json")
    assert code == 0
    piped, direct = json.loads(out), json.loads(from_file)
    assert piped["scores"] == direct["scores"] and piped["predictions"] == "<stdin>"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    code, _, err = run(capsys, "-", "--gold", MWZ22)
    assert code == 3 and "<stdin>" in err


def test_version_and_signature_follow_sacrebleu(capsys):
    installed = version("dst-eval")
    assert run(capsys, "--version") == (0, f"dst-eval {installed}\n", "")
    assert run(capsys, "-V")[1] == f"dst-eval {installed}\n"
    signature = json.loads(run(capsys, *sample("-f", "json"))[1])["signature"]
    assert signature.endswith(f"|version:{installed}") and "|v:" not in signature


def test_no_file_unless_asked(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for fmt in ("table", "text", "json", "markdown", "csv"):
        assert run(capsys, *sample("-f", fmt))[0] == 0
    assert list(tmp_path.iterdir()) == []
    code, out, err = run(capsys, *sample("-o", "out.txt", "--report", "report.json"))
    assert code == 0 and out == "" and "report.json" in err
    assert "signature: dst-eval|" in (tmp_path / "out.txt").read_text()
    assert json.loads((tmp_path / "report.json").read_text())["scores"]
    code, _, err = run(capsys, *sample("-q", "--report", "again.json"))
    assert code == 0 and err == "" and (tmp_path / "again.json").is_file()


def test_output_and_report_through_a_symlink_are_one_file(capsys, tmp_path):
    """``-o`` and ``--report`` naming one file, one of them through a symlink (or a
    ``..`` detour), are the usage error the same spelling gives; the report used to
    overwrite the table silently."""
    (tmp_path / "o1.txt").write_text("kept", "utf-8")
    (tmp_path / "l1.txt").symlink_to("o1.txt")
    (tmp_path / "sub").mkdir()
    for other in ("o1.txt", "l1.txt", "sub/../l1.txt"):
        code, out, err = run(capsys, *sample("-q", "-o", tmp_path / "o1.txt",
                                             "--report", tmp_path / other))
        assert (code, out) == (2, "") and err.count("\n") == 1, (other, err)
        assert "--output and --report name the same file" in err
    assert (tmp_path / "o1.txt").read_text("utf-8") == "kept"


def test_hard_links_are_one_file(capsys, tmp_path):
    """A hard link is another name of one file: ``-o`` naming a hard link of the predictions
    (or of a file in a predictions folder, or of a gold file), and ``-o``/``--report``
    naming two links of one file, are the usage errors their one spelling gives; the
    predictions used to be overwritten with the table, exit 0."""
    import shutil

    predictions = tmp_path / "p.json"
    shutil.copy(MWZ22 / "predictions.json", predictions)
    os.link(predictions, tmp_path / "hl.json")
    before = predictions.read_bytes()
    code, out, err = run(capsys, predictions, "--gold", MWZ22, "-q", "-o", tmp_path / "hl.json")
    assert code == 2 and "would write over or into the input" in err, err
    (tmp_path / "o2.txt").write_text("kept", "utf-8")
    os.link(tmp_path / "o2.txt", tmp_path / "h2.txt")
    code, out, err = run(capsys, predictions, "--gold", MWZ22, "-q", "-o", tmp_path / "o2.txt",
                         "--report", tmp_path / "h2.txt")
    assert code == 2 and "--output and --report name the same file" in err, err
    folder = tmp_path / "folder"
    folder.mkdir()
    shutil.copy(MWZ22 / "predictions.json", folder / "p.json")
    os.link(folder / "p.json", tmp_path / "outside.json")
    code, out, err = run(capsys, folder / "p.json", "--gold", MWZ22, "-q", "-o",
                         tmp_path / "outside.json")
    assert code == 2, err
    mwz21 = ROOT / "gold_samples" / "multiwoz21"
    gold = tmp_path / "gold"
    shutil.copytree(mwz21, gold)
    os.link(gold / "testListFile", tmp_path / "list.txt")  # read by the loader, not given
    code, out, err = run(capsys, mwz21 / "predictions.json", "--gold", gold / "data.json",
                         "--split", "test", "-q", "-o", tmp_path / "list.txt")
    assert code == 2 and "is a file of the gold data" in err, err
    assert predictions.read_bytes() == before
    assert (tmp_path / "o2.txt").read_text("utf-8") == "kept"
    assert (gold / "testListFile").read_bytes() == (mwz21 / "testListFile").read_bytes()


def test_outputs_never_overwrite_a_response_resource(capsys, tmp_path, shared_dir):
    """The response database is an input too: ``-o``/``--report``/``report --html`` naming
    one of its tables (found next to the gold, given with ``--db``, or a hard link of one)
    are usage errors and the table keeps its bytes; they were overwritten with exit 0 (and
    the next run on that database failed)."""
    import json as json_module
    import shutil

    mwz21 = ROOT / "gold_samples" / "multiwoz21"
    gold = tmp_path / "gold"
    shutil.copytree(mwz21, gold)
    shutil.copytree(shared_dir / "corpora" / "multiwoz21" / "db", gold / "db")
    predictions = json_module.loads((mwz21 / "predictions.json").read_text("utf-8"))
    for turns in predictions.values():
        for turn in turns:
            turn["response"] = "there is a [value_area] hotel"
    pred = tmp_path / "pred.json"
    pred.write_text(json_module.dumps(predictions), "utf-8")
    table = gold / "db" / "hotel_db.json"
    before = table.read_bytes()

    def refused(err: str) -> bool:
        return err.count("\n") == 1 and ("is a resource file the scoring read" in err
                                          or "would write over or into the input" in err)
    os.link(table, tmp_path / "linked.json")
    base = [pred, "--gold", gold / "data.json", "--split", "test", "-q"]
    for flag in ("-o", "--report"):
        for target in (table, tmp_path / "linked.json"):
            code, out, err = run(capsys, *base, flag, target)
            assert code == 2 and refused(err), (flag, err)
    code, out, err = run(capsys, "report", *base, "--html", tmp_path / "linked.json")
    assert code == 2 and refused(err), err
    code, out, err = run(capsys, *base, "--db", gold / "db", "-o", table)
    assert code == 2 and "would write over or into the input" in err, err
    # a run that reads no database (no responses) must not overwrite one either
    dst_only = tmp_path / "dst_only.json"
    dst_only.write_text(json_module.dumps({d: [{"state": t["state"]} for t in turns]
                                           for d, turns in predictions.items()}), "utf-8")
    for target in (table, tmp_path / "linked.json"):
        code, out, err = run(capsys, dst_only, "--gold", gold / "data.json", "--split", "test",
                             "-q", "-o", target)
        assert code == 2 and "would write over or into the input" in err, err
    assert table.read_bytes() == before


# ---- output to a pipe ----------------------------------------------------------------------
@pytest.mark.parametrize("columns", ["40", "250"])
def test_piped_output_is_plain_and_uncut(columns, tmp_path):
    """A real pipe (subprocess), SGD sample under sgd-official with service breakdowns: no
    box characters, every name in full, the signature on one line, in every format."""
    env = {**os.environ, "COLUMNS": columns, "TERM": "xterm-256color"}
    env.pop("FORCE_COLOR", None)
    env.pop("TTY_COMPATIBLE", None)
    base = [sys.executable, "-m", "dst_eval", str(SGD / "predictions.json"), "--gold",
            str(SGD), "--profile", "sgd-official", "--by", "service"]
    result = evaluate(SGD / "predictions.json", gold=SGD, profile="sgd-official",
                      by=("service",))
    signature = result.signature.format()
    for fmt in ("table", "text", "json", "markdown", "csv"):
        done = subprocess.run([*base, "-f", fmt], capture_output=True, text=True, env=env,
                              cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        out = done.stdout
        assert any(signature in line for line in out.splitlines()), fmt
        if fmt in ("table", "text"):
            assert not BOX & set(out), fmt
            assert f"signature: {signature}" in out.splitlines()
            for name in result.scores:
                assert re.search(rf"^{re.escape(name)}\s+\d+\.\d\d\s+%$", out, re.M), name
            for group in result.groups:
                assert re.search(rf"^{re.escape(group)}\s", out, re.M), group
            for issue in result.issues:
                assert f"{issue.severity}: {issue}" in out.splitlines()
        assert done.stderr == ""  # no progress display, no spinner on a pipe
    assert list(tmp_path.iterdir()) == []


# ---- units and counts ------------------------------------------------------------------------
def test_units_are_stated_and_counts_are_integers(capsys, tmp_path):
    """mwzeval's per-domain tp/fp/fn: integers in JSON, CSV, text and HTML (issue 9 §6:
    they were shown ×100), equal to the per-turn frame's sums."""
    argv = sample("--profile", "mwzeval", "--by", "domain")
    data = json.loads(run(capsys, *argv, "-f", "json")[1])
    assert data["units"]["tp"] == "count" and data["units"]["joint_goal_accuracy"] == "fraction"
    hotel = data["groups"]["domain:hotel"]
    assert all(type(hotel[k]) is int for k in ("tp", "fp", "fn"))
    assert (hotel["tp"], hotel["fp"], hotel["fn"]) == (23, 0, 1)
    totals = {k: sum(g[k] for g in data["groups"].values()) for k in ("tp", "fp", "fn")}
    assert totals == {"tp": 57, "fp": 8, "fn": 5}  # gold_samples/multiwoz22/README.md
    assert all(type(v) is int for v in data["counts"].values())

    rows = list(csv.DictReader(io.StringIO(run(capsys, *argv, "-f", "csv")[1])))
    tp = [r for r in rows if r["group"] == "domain:hotel" and r["metric"] == "tp"][0]
    assert (tp["value"], tp["unit"]) == ("23", "count")
    jga = [r for r in rows if r["group"] == "all" and r["metric"] == "joint_goal_accuracy"][0]
    assert jga["unit"] == "fraction" and float(jga["value"]) == pytest.approx(6 / 13)

    text = run(capsys, *argv, "-f", "text")[1]
    assert "% = fraction × 100" in text.splitlines()[0]
    hotel_line = next(line for line in text.splitlines() if line.startswith("domain:hotel"))
    assert hotel_line.split()[-3:] == ["23", "0", "1"]
    assert re.search(r"tp \(count\)\s+fp \(count\)\s+fn \(count\)$", text, re.M)
    assert re.search(r"^joint_goal_accuracy\s+46\.15\s+%$", text, re.M)
    markdown = run(capsys, *argv, "-f", "markdown")[1]
    assert "| joint_goal_accuracy | 46.15 | % |" in markdown and "| tp (count) |" in markdown

    page = tmp_path / "r.html"
    assert run(capsys, "report", *argv[:3], "--profile", "mwzeval", "--html", page, "-q")[0] == 0
    html_text = re.sub(r"<[^>]+>", " ", page.read_text())
    assert re.search(r"hotel\s+100\.00\s+95\.83\s+97\.87\s+23\s+0\s+1\s", html_text)
    assert "2300" not in html_text and "23.00" not in html_text


def test_html_renders_nested_counts_as_a_table(capsys, tmp_path):
    page = tmp_path / "r.html"
    assert run(capsys, "report", JMWZ / "predictions.json", "--gold", JMWZ, "--split", "test",
               "--html", page, "-q")[0] == 0
    text = page.read_text()
    assert "{&#x27;" not in text and "{'" not in text  # no raw Python dict
    cells = re.findall(r"<td>(responses|scored_turns|dialogues)</td><td[^>]*>([^<]*)<", text)
    assert ("scored_turns", "12") in cells and ("dialogues", "3") in cells


# ---- the per-turn frame ------------------------------------------------------------------------
PROFILES = ("strict", "sgd-official", "mwzeval", "convlab")


def test_to_pandas_has_one_schema_under_every_profile():
    frames = {p: evaluate(MWZ22 / "predictions.json", gold=MWZ22, profile=p).to_pandas()
              for p in PROFILES}
    schema = {p: [(c, str(t)) for c, t in f.dtypes.items()] for p, f in frames.items()}
    assert all(s == schema["strict"] for s in schema.values()), schema
    names = [c for c, _ in schema["strict"]]
    assert names[:5] == ["dialogue_id", "turn_index", "depth", "domains", "predicted"]
    assert {"response", "reference_response"} <= set(names)  # the sample carries responses
    ints = [c for c, t in schema["strict"] if t == "Int64"]
    assert {"turn_index", "depth", "joint_goal_correct", "gold_slots", "slots_correct",
            "slots_missing", "slot_false_positives", "frames"} <= set(ints)
    for frame in frames.values():
        assert len(frame) == 13 and frame["predicted"].all()
        assert frame["depth"].tolist() == frame["turn_index"].clip(upper=10).tolist()
    # the same column means the same thing: numerators of each profile's own JGA
    assert int(frames["strict"]["joint_goal_correct"].sum()) == 9
    assert int(frames["convlab"]["joint_goal_correct"].sum()) == 9
    assert int(frames["mwzeval"]["joint_goal_correct"].sum()) == 6
    strict = frames["strict"]
    assert [int(strict[c].sum()) for c in ("slots_correct", "slots_wrong_value",
                                           "slots_missing", "slots_extra")] == [62, 2, 1, 1]
    assert int(strict["slot_false_positives"].sum()) == 3
    assert int(strict["gold_slots"].sum()) == 65
    mwz = frames["mwzeval"]
    assert [int(mwz[c].sum()) for c in ("slots_correct", "slot_false_positives",
                                        "slot_false_negatives")] == [57, 8, 5]
    assert mwz["slots_wrong_value"].isna().all() and strict["frames"].isna().all()
    assert frames["sgd-official"]["slots_correct"].isna().all()
    assert frames["sgd-official"]["frames"].notna().all()
    row = strict[(strict["dialogue_id"] == "DEMO0004.json") & (strict["turn_index"] == 1)]
    assert row["slots_extra"].tolist() == [1] and row["domains"].tolist() == ["attraction"]


def test_to_pandas_keeps_partial_credit_and_never_rounds_it_up():
    """sgd-official's fuzzy partial credit: 0.88 on the SGD sample's 4th turn. It used to be
    rounded to a correct turn (1); it is a score of 0.88 and not correct."""
    result = evaluate(SGD / "predictions.json", gold=SGD, profile="sgd-official")
    frame = result.to_pandas()
    assert frame["joint_goal_score"].tolist() == pytest.approx(
        list(result.per_turn["joint_goal_accuracy"]))
    assert frame["joint_goal_score"].tolist()[3] == pytest.approx(0.88)
    assert frame["joint_goal_correct"].tolist() == [
        int(x == 1.0) for x in result.per_turn["joint_goal_accuracy"]]
    strict = evaluate(SGD / "predictions.json", gold=SGD).to_pandas()
    assert strict["joint_goal_score"].tolist() == strict["joint_goal_correct"].tolist()


def test_to_pandas_groupby_from_the_readme():
    frame = evaluate(MWZ22 / "predictions.json", gold=MWZ22).to_pandas()
    by_depth = frame.groupby("depth")["joint_goal_correct"].mean()
    assert by_depth.to_dict() == {0: 3 / 4, 1: 2 / 4, 2: 2 / 3, 3: 2 / 2}
    per_domain = (frame.assign(domain=frame["domains"].str.split(",")).explode("domain")
                  .groupby("domain")[["slots_missing", "slots_wrong_value", "slots_extra"]]
                  .sum())
    assert per_domain.loc["train"].tolist() == [0, 2, 0]
    assert per_domain.loc["hotel"].tolist() == [1, 0, 0]


# ---- progress ------------------------------------------------------------------------------
def test_progress_display_on_a_terminal_only():
    from rich.console import Console

    from dst_eval.progress import ProgressDisplay

    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    with ProgressDisplay(console=console, delay=0) as progress:
        progress.update("reading predictions", 1, 3)
        for _ in range(2000):  # wait for the display thread, however slow the machine
            if progress.shown:
                break
            threading_sleep()
        progress.update("scoring", 2, 3)
        progress._progress.refresh()
    assert progress.shown
    shown = screen.getvalue()
    assert "scoring" in shown and "2/3" in shown and re.search(r"0:00:\d\d", shown)

    for quiet, terminal in ((True, True), (False, False)):
        screen = io.StringIO()
        console = Console(file=screen, force_terminal=terminal, width=100)
        with ProgressDisplay(console=console, delay=0, quiet=quiet) as progress:
            progress.update("scoring", 1, 2)
        assert not progress.shown and screen.getvalue() == ""


def threading_sleep() -> None:
    import threading

    threading.Event().wait(0.005)


def test_metrics_limit_breakdown_columns_but_keep_counts(capsys):
    code, out, _ = run(capsys, *sample("--profile", "mwzeval", "--by", "domain", "-m",
                                       "slot_f1", "-f", "json"))
    groups = json.loads(out)["groups"]
    assert code == 0 and all(list(g) == ["slot_f1", "tp", "fp", "fn"] for g in groups.values())


def test_bootstrap_intervals_in_every_format(capsys):
    """--bootstrap's intervals reach csv and markdown too (they reached table, text and
    json only), equal to the result's."""
    argv = sample("-m", "joint_goal_accuracy", "slot_f1", "--bootstrap", "200", "--seed", "3")
    intervals = evaluate(MWZ22 / "predictions.json", gold=MWZ22, bootstrap=200, seed=3,
                         metrics=("joint_goal_accuracy", "slot_f1")).confidence_intervals
    code, out, _ = run(capsys, *argv, "-f", "csv")
    rows = {r["metric"]: r for r in csv.DictReader(io.StringIO(out))}
    assert code == 0 and set(rows) == {"joint_goal_accuracy", "slot_f1"}
    for name, row in rows.items():
        ci = intervals[name]
        assert (float(row["ci_low"]), float(row["ci_high"]), float(row["ci_mean"])) == (
            ci["ci_low"], ci["ci_high"], ci["mean"])
    code, out, _ = run(capsys, *argv, "-f", "markdown")
    jga = intervals["joint_goal_accuracy"]
    assert code == 0 and "| 95% CI (mean ± half-width) |" in out
    assert f"| {100 * jga['mean']:.2f} ± {100 * jga['half_width']:.2f} |" in out
    code, out, _ = run(capsys, *sample("-m", "joint_goal_accuracy", "-f", "csv"))
    assert out.splitlines()[0] == "group,metric,value,unit,signature"  # no intervals asked
    code, out, _ = run(capsys, *argv, "-f", "text")  # 4 dialogues: said, as compare says it
    assert "note: only 4 dialogues: resampling tests and intervals are unreliable" in out


def test_a_terminal_without_utf8_gets_escapes_and_json_stays_utf8(tmp_path):
    """An ASCII or Latin-1 stdout: text output shows what it cannot encode escaped (``×`` as
    ``\\xd7``), JSON and CSV are UTF-8 whatever the locale; never an internal error."""
    cw = ROOT / "gold_samples" / "crosswoz"
    base = [sys.executable, "-m", "dst_eval", str(cw / "predictions.json"), "--gold", str(cw),
            "--by", "domain", "-q"]
    expected = evaluate(cw / "predictions.json", gold=cw, by=("domain",))
    for encoding in ("ascii", "latin-1"):
        env = {**os.environ, "PYTHONIOENCODING": encoding}
        text = subprocess.run([*base, "-f", "text"], env=env, capture_output=True, cwd=tmp_path)
        assert text.returncode == 0, text.stderr
        assert b"fraction \\xd7 100" in text.stdout if encoding == "ascii" else \
            "fraction × 100".encode("latin-1") in text.stdout
        for fmt in ("json", "csv"):
            out = subprocess.run([*base, "-f", fmt], env=env, capture_output=True,
                                 cwd=tmp_path)
            assert out.returncode == 0, out.stderr
            decoded = out.stdout.decode("utf-8")
            if fmt == "json":
                assert set(json.loads(decoded)["groups"]) == set(expected.groups)
            else:
                assert "domain:酒店" in decoded


def test_a_narrow_terminal_never_cuts_names_or_numbers():
    """On a terminal too narrow for the table, the plain text is printed (the terminal
    wraps its lines): every metric name and every displayed number is whole, with its CI."""
    from rich.console import Console

    from dst_eval.report import format_value, render
    from dst_eval.significance import compare_reports, render_comparison

    mwz22 = ROOT / "gold_samples" / "multiwoz22"
    result = evaluate(mwz22 / "predictions.json", gold=mwz22, bootstrap=100, seed=1,
                      by=("domain",))
    other = evaluate(mwz22 / "predictions.json", gold=mwz22, by=("domain",))
    comparison = compare_reports([other, other], n=50, seed=1, names=["a.json", "b.json"])
    for columns in range(20, 221, 8):
        buffer = io.StringIO()
        render(result, Console(file=buffer, width=columns, force_terminal=True,
                               color_system=None))
        lines = buffer.getvalue().splitlines()
        for name, value in result.scores.items():
            line = next((line for line in lines if line.strip("│ ").startswith(name + " ")),
                        None)
            assert line is not None, (columns, name)
            assert re.search(rf"(?<![\d.]){re.escape(format_value(name, value))}(?![\d.])",
                             line), (columns, line)
        for group in result.groups:  # breakdown names whole, in the wide or the long form
            assert any(re.search(rf"(?<!\S){re.escape(group)}(?!\S)", line.strip("│ "))
                       for line in lines), (columns, group)
        buffer = io.StringIO()
        render_comparison(comparison, Console(file=buffer, width=columns,
                                              force_terminal=True, color_system=None))
        lines = buffer.getvalue().splitlines()
        for name in comparison["metrics"]:
            line = next((line for line in lines if line.strip("│ ").startswith(name + " ")),
                        None)
            assert line is not None and line.count("(μ = ") == 2 and line.count(")") >= 2, (
                columns, name, line)


def test_by_seen_without_a_training_schema_is_noted(tmp_path):
    """``--by seen`` needs ``train/schema.json``: without it there are no groups and a note
    says why (it used to say nothing); with one naming Cafes_1 only, both groups are there
    and the seen group holds exactly Cafes_1's slots."""
    alone = evaluate(SGD / "predictions.json", gold=SGD, by=("seen",))
    assert not [g for g in alone.groups if g.startswith("seen:")]
    assert any(n.startswith("--by seen: no seen/unseen groups") for n in alone.notes)
    (tmp_path / "dev").mkdir()
    (tmp_path / "train").mkdir()
    for name in ("dialogues_001.json", "schema.json"):
        (tmp_path / "dev" / name).write_bytes((SGD / name).read_bytes())
    schema = json.loads((SGD / "schema.json").read_text(encoding="utf-8"))
    (tmp_path / "train" / "schema.json").write_text(
        json.dumps([s for s in schema if s["service_name"] == "Cafes_1"]), encoding="utf-8")
    seen = evaluate(SGD / "predictions.json", gold=tmp_path / "dev", by=("seen", "service"))
    assert {g for g in seen.groups if g.startswith("seen:")} == {"seen:seen", "seen:unseen"}
    assert seen.groups["seen:seen"] == seen.groups["service:Cafes_1"]
    assert not any(n.startswith("--by seen") for n in seen.notes)


def test_output_dash_is_stdout_and_a_folder_path_is_refused(capsys, tmp_path, monkeypatch):
    """``-o -`` (and ``--report -``) write to standard output, as the convention goes (a
    file named ``-`` was written); ``-o missing/`` names a folder, which is a usage error
    before any work (a file ``missing`` was written)."""
    monkeypatch.chdir(tmp_path)
    jga = 9 / 13  # gold_samples/multiwoz22/README.md
    code, out, err = run(capsys, *sample("-m", "joint_goal_accuracy", "-b", "-o", "-"))
    assert (code, out, err) == (0, f"{100 * jga:.2f}\n", "")
    code, out, err = run(capsys, *sample("-f", "json", "-o", "-", "-q"))
    assert code == 0 and json.loads(out)["scores"]["joint_goal_accuracy"] == pytest.approx(jga)
    code, out, err = run(capsys, *sample("-b", "-m", "joint_goal_accuracy", "--report", "-"))
    assert code == 0 and "written to" not in err
    assert json.loads(out[:out.rindex("}") + 1])["scores"]["joint_goal_accuracy"] \
        == pytest.approx(jga)
    assert not (tmp_path / "-").exists()
    code, out, err = run(capsys, *sample("-o", "missing/"))
    assert code == 2 and "--output missing/: is a directory; give a file name" in err
    assert list(tmp_path.iterdir()) == []
