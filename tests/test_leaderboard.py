"""``dst-eval leaderboard``: config, untrusted submissions, cache, ranking, statistics, outputs.

Small cases run on the repo's gold_samples/multiwoz22 (4 dialogues); the acceptance test
builds the board of the 15 mwzeval submissions plus broken ones on the MultiWOZ 2.1 test
gold (``shared_dir``), once per module.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
import os
import shutil
import tracemalloc
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import orjson
import pytest
from dst_eval.metrics.base import TurnTable
from dst_eval.metrics.jga import JointGoalAccuracy
from dst_eval.metrics.resampling import resample_indices
from helpers import oracle_predictions

from dst_eval import __version__, evaluate
from dst_eval.cli.app import main
from dst_eval.cli.leaderboard import run_leaderboard
from dst_eval.corpora import load_gold
from dst_eval.errors import UsageError
from dst_eval.leaderboard import board, cache, reads, scoring, submissions
from dst_eval.leaderboard.config import load_config
from dst_eval.leaderboard.statistics import resample_statistics
from dst_eval.result import Result
from dst_eval.signature import Signature
from dst_eval.significance import compare_reports

JGA = "joint_goal_accuracy"
MWZ_METRICS = (JGA, "slot_f1", "inform", "bleu", "combined")
OUTPUTS = ("leaderboard.md", "leaderboard.json", "leaderboard.html")


def run_counting(*argv: object, entry=None) -> tuple[int, list[str]]:
    """Run the command (``entry``: a function of the argument strings; default the
    leaderboard command itself); also return the file names evaluate() was called on, in
    order."""
    calls: list[str] = []
    real = scoring.evaluate

    def counting(predictions, **kwargs):
        calls.append(Path(predictions.source).name)
        return real(predictions, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scoring, "evaluate", counting)
        code = (entry or run_leaderboard)([str(a) for a in argv])
    return code, calls


def write_config(path: Path, *, gold: Path, sources: list[dict], corpus: str,
                 metrics: tuple[str, ...] = (JGA, "slot_f1"), rank_by: str = JGA,
                 bootstrap: int = 1000, seed: int = 12345, extra: str = "") -> Path:
    lines = ["[leaderboard]", 'title = "Test | board"', f"corpus = {json.dumps(corpus)}",
             f"gold = {json.dumps(str(gold))}", f"metrics = {json.dumps(list(metrics))}",
             f"rank_by = {json.dumps(rank_by)}", f"bootstrap = {bootstrap}", f"seed = {seed}",
             extra]
    for source in sources:
        lines += ["[[submissions]]"] + [f"{k} = {json.dumps(v)}" for k, v in source.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def read_outputs(directory: Path) -> dict[str, bytes]:
    return {name: (directory / name).read_bytes() for name in OUTPUTS}


def without_state(predictions: dict, dialogues: int) -> dict:
    """The predictions with every state of the first ``dialogues`` dialogues emptied."""
    worse = copy.deepcopy(predictions)
    for turns in list(worse.values())[:dialogues]:
        for turn in turns:
            turn["state"] = {}
    return worse


def own_responses(predictions: dict) -> dict:
    """The predictions with a response of their own on every turn: other predictions (not a
    copy, :mod:`dst_eval.leaderboard.content`) with the same DST scores."""
    changed = copy.deepcopy(predictions)
    for turns in changed.values():
        for turn in turns:
            turn["response"] = "a response of its own"
    return changed


def one_request_more(predictions: dict) -> dict:
    """The predictions with a requested slot on the first turn: other predictions (not a
    copy) with the same JGA, slot F1, Inform, BLEU and Combined."""
    changed = copy.deepcopy(predictions)
    next(iter(changed.values()))[0]["requested_slots"] = ["restaurant-phone"]
    return changed


# ---- a small board on gold_samples ------------------------------------------------------
@pytest.fixture
def small(gold_samples: Path, tmp_path: Path) -> SimpleNamespace:
    gold_dir = gold_samples / "multiwoz22"
    gold = load_gold(gold_dir)
    sample = orjson.loads((gold_dir / "predictions.json").read_bytes())
    subs = tmp_path / "subs"
    subs.mkdir()
    files = {
        "oracle.json": {"metadata": {"name": "Oracle", "authors": ["A. Author", "B. Author"],
                                     "paper": "https://example.org/oracle",
                                     "model_size": "60M"},
                        "predictions": oracle_predictions(gold)},
        "sample.json": sample,
        "worse.json": without_state(sample, 2),
    }
    for name, content in files.items():
        (subs / name).write_bytes(orjson.dumps(content))
    config = write_config(tmp_path / "board.toml", gold=gold_dir, corpus="multiwoz22",
                          bootstrap=200, seed=7,
                          sources=[{"dir": str(subs), "glob": ["*.json", "*.toml"]}])
    return SimpleNamespace(root=tmp_path, subs=subs, config=config, gold=gold, files=files,
                           out=tmp_path / "out", gold_dir=gold_dir)


def build(small: SimpleNamespace) -> tuple[int, dict, str, str]:
    code = run_leaderboard([str(small.config), "--output-dir", str(small.out)])
    data = json.loads((small.out / "leaderboard.json").read_text(encoding="utf-8"))
    return (code, data, (small.out / "leaderboard.md").read_text(encoding="utf-8"),
            (small.out / "leaderboard.html").read_text(encoding="utf-8"))


def brute_force_rank_intervals(reports: list, n: int, seed: int) -> list[tuple[int, int]]:
    """Rank intervals by explicit loops over the resampled dialogues of the turn tables."""
    per_dialogue = []
    for report in reports:
        turns = report.per_turn
        totals: dict[str, list[float]] = {}
        for dialogue, hit in zip(turns["dialogue_id"], turns["jga"], strict=True):
            totals.setdefault(dialogue, [0.0, 0.0])
            totals[dialogue][0] += float(hit)
            totals[dialogue][1] += 1.0
        per_dialogue.append(list(totals.values()))
    indices = resample_indices(len(per_dialogue[0]), n, seed=seed)
    ranks: list[list[int]] = [[] for _ in reports]
    for draw in indices:
        scores = [sum(d[i][0] for i in draw) / sum(d[i][1] for i in draw) for d in per_dialogue]
        for k, score in enumerate(scores):
            ranks[k].append(1 + sum(other > score for other in scores))
    low = n // 40
    return [(sorted(r)[low], sorted(r)[n - low - 1]) for r in ranks]


def test_small_board_numbers_match_a_direct_computation(small):
    code, data, _, _ = build(small)
    assert code == 0 and not data["invalid"]
    names = [row["name"] for row in data["rows"]]
    assert names == ["Oracle", "sample", "worse"]
    reports = [evaluate(small.subs / f, gold=small.gold, bootstrap=200, seed=7)
               for f in ("oracle.json", "sample.json", "worse.json")]
    assert reports[0].scores[JGA] == 1.0
    for row, report in zip(data["rows"], reports, strict=True):
        assert row["scores"] == {m: report.scores[m] for m in (JGA, "slot_f1")}
        for metric in (JGA, "slot_f1"):
            expected = report.extra["confidence_intervals"][metric]
            for key in ("ci_low", "ci_high", "mean", "half_width"):
                assert row["ci"][metric][key] == pytest.approx(expected[key], rel=1e-12)
    assert [row["rank"] for row in data["rows"]] == [1, 2, 3]
    for row, report in zip(data["rows"][1:], reports[1:], strict=True):
        tested = compare_reports([reports[0], report], n=200, seed=7)
        p = tested["systems"][1]["scores"][JGA]["p_bs"]
        assert row["p_vs_leader"] == pytest.approx(p, rel=1e-12)
        assert row["tied_with_leader"] is (p >= 0.05)
    expected_spans = brute_force_rank_intervals(reports, 200, 7)
    assert [tuple(row["rank_interval"]) for row in data["rows"]] == expected_spans
    assert data["signature"] == reports[0].signature.format()  # bs:200|seed:7 in both
    assert "|bs:200|seed:7|" in data["signature"]
    assert data["rows"][0]["authors"] == "A. Author, B. Author"


def test_small_board_renders_metadata_escaped_and_self_contained(small):
    hostile = {"metadata": {"name": "Evil | <script>alert(1)</script> [x](http://e.org)",
                            "gold": "/etc/passwd", "corpus": "sgd"},
               "predictions": own_responses(small.files["sample.json"])}
    (small.subs / "hostile.json").write_bytes(orjson.dumps(hostile))
    code, data, markdown, page = build(small)
    assert code == 0
    row = next(r for r in data["rows"] if r["submission"] == "hostile.json")
    # the metadata cannot choose the gold data: scored against the config's like sample.json
    sample = next(r for r in data["rows"] if r["submission"] == "sample.json")
    assert row["scores"] == sample["scores"] and row["rank"] == sample["rank"] == 2
    assert "ignored metadata keys: corpus, gold" in row["notes"]
    assert "<script>" not in markdown and "<script" not in page
    assert r"Evil \| \<script\>alert(1)\</script\> \[x\](http://e.org)" in markdown
    assert "&lt;script&gt;" in page
    assert "[paper](https://example.org/oracle)" in markdown
    for forbidden in ("<link", "src=\"http", "@import", str(small.root)):
        assert forbidden not in page and forbidden not in markdown
    assert str(small.root) not in (small.out / "leaderboard.json").read_text(encoding="utf-8")


def test_small_board_refuses_unsafe_submissions(small, capsys):
    outside = small.root / "outside.json"
    outside.write_bytes(orjson.dumps(small.files["sample.json"]))
    (small.subs / "escape.toml").write_text('name = "Escape"\npredictions = "../outside.json"\n')
    (small.subs / "absolute.toml").write_text(f'name = "Abs"\npredictions = "{outside}"\n')
    (small.subs / "link.json").symlink_to(outside)
    bad_url = {"metadata": {"name": "Bad URL", "paper": "javascript:alert(1)"},
               "predictions": small.files["sample.json"]}
    (small.subs / "bad_url.json").write_bytes(orjson.dumps(bad_url))
    (small.subs / "big.json").write_bytes(b'{"x": [' + b" " * 30_000 + b"]}")
    (small.subs / "nothing.json").write_bytes(orjson.dumps({"not-a-dialogue": [{"state": {}}]}))
    (small.subs / "nested").mkdir()
    (small.subs / "nested" / "preds.json").write_bytes(orjson.dumps(without_state(
        small.files["sample.json"], 1)))  # not a copy of another submission
    (small.subs / "named.toml").write_text('name = "Nested ok"\nauthors = "C. Author"\n'
                                           'predictions = "nested/preds.json"\n')
    small.config.write_text(small.config.read_text().replace(
        "seed = 7", "seed = 7\nmax_submission_mb = 0.02"))
    code, data, _, _ = build(small)
    assert code == 3
    reasons = {i["file"]: i["reason"] for i in data["invalid"]}
    assert set(reasons) == {"escape.toml", "absolute.toml", "link.json", "bad_url.json",
                            "big.json", "nothing.json"}
    assert "'../outside.json' escapes the submissions directory" in reasons["escape.toml"]
    assert "is absolute" in reasons["absolute.toml"]
    assert "resolves outside the submissions directory" in reasons["link.json"]
    assert "must be an http(s) URL" in reasons["bad_url.json"]
    assert reasons["big.json"] == ("0.03 MB is over the 0.02 MB submission limit "
                                   "(max_submission_mb)")
    # refused by the coverage check before scoring (issue 9)
    assert "predictions match 0 of 4 dialogues" in reasons["nothing.json"]
    valid = {row["submission"]: row for row in data["rows"]}
    assert set(valid) == {"oracle.json", "sample.json", "worse.json", "named.toml"}
    assert valid["named.toml"]["name"] == "Nested ok"
    direct = evaluate(small.subs / "nested" / "preds.json", gold=small.gold)
    assert valid["named.toml"]["scores"] == {m: direct.scores[m] for m in (JGA, "slot_f1")}
    # the manifest's predictions file is not a second submission of its own
    assert "nested/preds.json" not in valid
    # --check refuses the same way, whether the file is listed or not (*.data is not)
    (small.subs / "new-link.data").symlink_to(outside)
    capsys.readouterr()
    for name, reason in (("link.json", "resolves outside"), ("new-link.data", "resolves outside"),
                         ("escape.toml", "escapes the submissions directory")):
        code = run_leaderboard([str(small.config), "--output-dir", str(small.out), "--check",
                                str(small.subs / name)])
        assert code == 3 and reason in capsys.readouterr().out


def test_special_files_in_the_submissions_directory_are_refused(small):
    os.mkfifo(small.subs / "pipe.json")  # reading it would block forever
    (small.subs / "dead.json").symlink_to(small.root / "nowhere.json")
    code, data, _, _ = build(small)
    assert code == 3
    reasons = {i["file"]: i["reason"] for i in data["invalid"]}
    assert reasons == {
        "pipe.json": "not a regular file or directory but a named pipe (FIFO); refused",
        "dead.json": "broken symbolic link (its target does not exist)"}
    assert {row["submission"] for row in data["rows"]} == set(small.files)


def test_duplicate_names_are_invalid(small):
    # predictions of its own (a copy of another's is refused as a copy first)
    twin = {"metadata": {"name": "ORACLE"},
            "predictions": without_state(small.files["sample.json"], 1)}
    (small.subs / "twin.json").write_bytes(orjson.dumps(twin))
    code, data, _, _ = build(small)
    assert code == 3
    assert {i["file"] for i in data["invalid"]} == {"oracle.json", "twin.json"}
    assert "names must be unique" in data["invalid"][0]["reason"]


def test_a_metadata_file_cannot_take_over_a_submission_on_the_board(small, capsys):
    """A new metadata file naming a predictions file that is already a row of the published
    board is refused (the row stays); before, the row vanished and its scores showed under
    the new name."""
    assert build(small)[0] == 0
    (small.subs / "evil.toml").write_text('name = "Evil"\npredictions = "sample.json"\n')
    code, _ = run_counting(small.config, "--output-dir", small.out, "--check",
                           small.subs / "evil.toml")
    assert code == 3
    assert ("evil.toml: INVALID: the same predictions as sample.json (already on the board)"
            in capsys.readouterr().out)
    code, data, _, _ = build(small)
    assert code == 3
    assert sorted(row["submission"] for row in data["rows"]) == [
        "oracle.json", "sample.json", "worse.json"]
    [invalid] = data["invalid"]
    assert invalid["file"] == "evil.toml"
    assert invalid["reason"].startswith("the same predictions as sample.json (already on the "
                                        "board), byte for byte")


def test_copies_of_predictions_and_of_the_gold_are_refused(small):
    """A byte-for-byte copy of a submission on the board is refused (it would take the
    leader's label by its name), two new identical ones are both refused, and a copy of a
    gold file is not a submission."""
    assert build(small)[0] == 0
    oracle = (small.subs / "oracle.json").read_bytes()
    (small.subs / "!copy.json").write_bytes(oracle)
    (small.subs / "new1.json").write_bytes(orjson.dumps(without_state(small.files[
        "sample.json"], 1)))
    (small.subs / "new2.json").write_bytes((small.subs / "new1.json").read_bytes())
    shutil.copy(small.gold_dir / "dialogues_001.json", small.subs / "gold.json")
    code, data, _, _ = build(small)
    assert code == 3
    assert sorted(row["submission"] for row in data["rows"]) == [
        "oracle.json", "sample.json", "worse.json"]
    reasons = {i["file"]: i["reason"] for i in data["invalid"]}
    assert reasons["!copy.json"].startswith("the same predictions as oracle.json (already on "
                                            "the board)")
    assert reasons["new1.json"].startswith("the same predictions as new2.json, byte for byte")
    assert reasons["new2.json"].startswith("the same predictions as new1.json, byte for byte")
    assert reasons["gold.json"] == ("holds a copy of the board's gold file "
                                    "dialogues_001.json: a "
                                    "submission holds a system's predictions")


def test_a_reformatted_copy_is_refused(small):
    """A copy of a submission on the board that differs in its bytes only -- re-indented,
    its dialogues and turn keys in another order, padded with a dialogue the gold lacks --
    is the same predictions once read, and refused; a submission that differs in one
    turn's state is not a copy."""
    assert build(small)[0] == 0
    sample = small.files["sample.json"]
    reordered = {dialogue_id: [dict(reversed(turn.items())) for turn in turns]
                 for dialogue_id, turns in reversed(sample.items())}
    reordered["padding0001"] = [{"state": {}}]
    (small.subs / "reformatted.json").write_text(json.dumps(reordered, indent=1),
                                                 encoding="utf-8")
    changed = copy.deepcopy(sample)
    first = next(iter(changed.values()))[0]["state"]
    first[next(iter(first))] = {"area": "north"}
    (small.subs / "changed.json").write_bytes(orjson.dumps(changed))
    code, data, _, _ = build(small)
    assert code == 3
    assert sorted(row["submission"] for row in data["rows"]) == [
        "changed.json", "oracle.json", "sample.json", "worse.json"]
    [invalid] = data["invalid"]
    assert (invalid["file"], invalid["reason"]) == (
        "reformatted.json", "the same predictions as sample.json (already on the board) once "
        "read (other bytes, the same input to every profile on every gold turn): one set of "
        "predictions is one submission")


def test_predictions_digest_reads_what_is_scored(small):
    """The digest changes with a value, a requested slot, an intent, a response or the
    state as written (mwzeval reads it: flat keys are not nested ones), and not with key
    order, indentation or a dialogue the gold lacks."""
    from dst_eval.leaderboard.content import predictions_digest

    def digest(content: dict) -> str:
        path = small.root / "digest.json"
        path.write_text(json.dumps(content, indent=2, sort_keys=True), encoding="utf-8")
        return predictions_digest(evaluate(path, gold=small.gold).turns)

    sample = small.files["sample.json"]
    base = digest(sample)
    assert digest({**sample, "unknown9999": [{"state": {}}]}) == base
    assert digest(dict(reversed(sample.items()))) == base
    flat = {dialogue_id: [{**turn, "state": {f"{domain}-{slot}": value
                                             for domain, slots in turn["state"].items()
                                             for slot, value in slots.items()}}
                          for turn in turns] for dialogue_id, turns in sample.items()}
    assert digest(flat) != base
    for change in ({"response": "other words"}, {"state": {}},
                   {"requested_slots": ["restaurant-phone"]},
                   {"active_intents": {"restaurant": "find_restaurant"}}):
        other = copy.deepcopy(sample)
        next(iter(other.values()))[0].update(change)
        assert digest(other) != base, change


def test_predictions_digest_of_positional_and_sgd_frame_files(gold_samples, tmp_path):
    """Positional files (LDST: dialogues named by their place in the gold) are digested as
    bound to the gold: two LDST files scoring 100 and 0 had one digest (of nothing), and
    were refused as copies of each other. SGD frames count with their values as written
    (``sgd-official`` reads them) and their spans (slot tagging F1)."""
    from dst_eval.leaderboard.content import predictions_digest

    gold_dir = gold_samples / "sgd"
    native = json.loads((gold_dir / "dialogues_001.json").read_text(encoding="utf-8"))

    def ldst(value) -> list[str]:
        return [f"dialogues_001.json|||{d}|||{t}|||{f}|||{frame['service']}|||{slot}|||"
                f"{value(values)!r}"
                for d, dialogue in enumerate(native) for t, turn in enumerate(dialogue["turns"])
                if turn["speaker"] == "USER" for f, frame in enumerate(turn["frames"])
                for slot, values in frame["state"]["slot_values"].items()]

    def digest(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return predictions_digest(evaluate(path, gold=gold_dir).turns)

    good, bad = ldst(lambda values: values[:1]), ldst(lambda values: ["x"])
    assert digest("good.txt", "\n".join(good)) != digest("bad.txt", "\n".join(bad))
    assert digest("shuffled.txt", "\n".join(reversed(good))) == digest("good.txt",
                                                                      "\n".join(good))
    frames = copy.deepcopy(native)
    base = digest("frames.json", json.dumps(frames))
    user = frames[0]["turns"][0]["frames"][0]
    slot = next(iter(user["state"]["slot_values"]))
    user["state"]["slot_values"][slot] = user["state"]["slot_values"][slot][0]  # bare
    assert digest("bare.json", json.dumps(frames)) != base
    frames = copy.deepcopy(native)
    spans = next(f for t in frames[0]["turns"] if t["speaker"] == "USER"
                 for f in t["frames"] if f.get("slots"))["slots"]
    spans[0]["exclusive_end"] += 1
    assert digest("spans.json", json.dumps(frames)) != base


def test_a_board_published_with_two_identical_rows_keeps_one(small):
    """A board published before copies were refused may hold two byte-identical rows: the
    first by id stays, the other is refused (both used to be refused, and lost)."""
    assert build(small)[0] == 0
    (small.subs / "copy.json").write_bytes((small.subs / "sample.json").read_bytes())
    published = json.loads((small.out / "leaderboard.json").read_text(encoding="utf-8"))
    published["rows"].append({**published["rows"][-1], "submission": "copy.json"})
    (small.out / "leaderboard.json").write_text(json.dumps(published), encoding="utf-8")
    code, data, _, _ = build(small)
    assert code == 3
    assert sorted(row["submission"] for row in data["rows"]) == [
        "copy.json", "oracle.json", "worse.json"]
    [invalid] = data["invalid"]
    assert (invalid["file"], invalid["reason"]) == (
        "sample.json", "the same predictions as copy.json (already on the board), byte for "
        "byte: one set of predictions is one submission")


def test_an_sgd_folder_holding_a_gold_file_is_refused_but_not_for_its_schema(
        gold_samples, tmp_path, capsys):
    """A gold dialogue file in an SGD-style prediction folder is a copy of the gold (a 100 %
    row); the schema.json such folders carry is skipped by the reader and is no copy."""
    gold = gold_samples / "sgd"
    subs = tmp_path / "subs"
    for name, files in (("copied", ("dialogues_001.json", "schema.json")),
                        ("own", ("schema.json",))):
        (subs / name).mkdir(parents=True)
        for file in files:
            shutil.copy(gold / file, subs / name / file)
    predictions = json.loads((gold / "dialogues_001.json").read_text(encoding="utf-8"))
    predictions[0]["turns"][0]["frames"][0]["state"]["slot_values"] = {}
    (subs / "own" / "dialogues_001.json").write_text(json.dumps(predictions))
    config = write_config(tmp_path / "board.toml", gold=gold, corpus="sgd", bootstrap=50,
                          sources=[{"dir": str(subs), "glob": ["*"]}])
    assert run_leaderboard([str(config), "--output-dir", str(tmp_path / "out")]) == 3
    data = json.loads((tmp_path / "out" / "leaderboard.json").read_text(encoding="utf-8"))
    assert [row["submission"] for row in data["rows"]] == ["own"]
    assert [(i["file"], i["reason"]) for i in data["invalid"]] == [
        ("copied", "holds a copy of the board's gold file dialogues_001.json: a submission "
                   "holds a system's predictions")]
    # the refused one was neither scored nor served from the cache
    assert ("2 submissions: 1 ranked, 0 unranked, 1 invalid; 1 scored, 0 from the cache"
            in capsys.readouterr().err)
    assert run_leaderboard([str(config), "--output-dir", str(tmp_path / "out")]) == 3
    assert "; 0 scored, 1 from the cache" in capsys.readouterr().err


@pytest.mark.parametrize(("bootstrap", "expected"), [
    (200, ["only 4 dialogues: resampling tests and intervals are unreliable on so few"]),
    (20, ["only 4 dialogues: resampling tests and intervals are unreliable on so few",
          "only 20 resamples: too few for a 95 % interval or a p-value below 0.0476 (use at "
          "least 40)"]),
])
def test_board_notes_say_when_resampling_is_unreliable(small, bootstrap, expected):
    """The board says what a single run and ``compare`` say: 4 dialogues are too few to
    resample, and fewer than 40 resamples give no 95 % interval."""
    small.config.write_text(small.config.read_text().replace("bootstrap = 200",
                                                             f"bootstrap = {bootstrap}"))
    _, data, markdown, _ = build(small)
    assert [n for n in data["notes"] if n.startswith("only ")] == expected
    assert all(note in markdown for note in expected)


def test_cache_dir_in_the_gold_folder_is_a_usage_error(small, tmp_path, capsys):
    gold = tmp_path / "gold"
    shutil.copytree(small.gold_dir, gold)
    small.config.write_text(small.config.read_text().replace(str(small.gold_dir), str(gold)))
    for cache_dir in (gold, gold / "cache"):
        assert main(["leaderboard", str(small.config), "--output-dir", str(small.out),
                     "--cache-dir", str(cache_dir)]) == 2
        assert f"--cache-dir {cache_dir}: is in the gold's folder" in capsys.readouterr().err
    assert sorted(p.name for p in gold.iterdir()) == sorted(
        p.name for p in small.gold_dir.iterdir())


def test_look_alike_names_are_refused(small):
    """A name with a word mixing Latin and Cyrillic letters is refused; a full-width
    spelling of a name on the board clashes with it (NFKC); one-script names of other
    scripts are names like any other."""
    assert build(small)[0] == 0
    sample = small.files["sample.json"]
    wide = "\uff4f\uff52\uff41\uff43\uff4c\uff45"  # full-width "oracle"
    for emptied, file, name in (
            (1, "cyrillic.json", "\u041eracle"), (3, "wide.json", wide),
            (4, "greek.json", "\u039c\u03bf\u03bd\u03c4\u03ad\u03bb\u03bf")):
        (small.subs / file).write_bytes(orjson.dumps(  # predictions of its own
            {"metadata": {"name": name}, "predictions": without_state(sample, emptied)}))
    code, data, _, _ = build(small)
    reasons = {i["file"]: i["reason"] for i in data["invalid"]}
    assert code == 3 and set(reasons) == {"cyrillic.json", "wide.json"}
    assert reasons["cyrillic.json"].startswith("metadata 'name' mixes Latin, Greek or Cyrillic "
                                               "letters in the word '\u041eracle'")
    assert reasons["wide.json"].startswith(f"name '{wide}' is already used by oracle.json")
    assert "\u039c\u03bf\u03bd\u03c4\u03ad\u03bb\u03bf" in {row["name"] for row in data["rows"]}
    # a letter of another script after a digit, and a dash for a hyphen (from review)
    assert submissions.mixed_script_word("GPT-4\u043e") == "GPT-4\u043e"
    assert submissions.name_key("SOM\u2010DST") == submissions.name_key("som-dst")
    # a name all in Cyrillic or Greek letters that look like Latin ones (from review)
    assert submissions.name_key("\u0410\u0412\u0421") == submissions.name_key("abc")
    assert submissions.name_key("\u0422\u041e\u0420-5") == submissions.name_key("Top-5")
    assert submissions.name_key("\u039a\u0391\u03a4\u0395") == submissions.name_key("KATE")
    assert submissions.name_key("\u041c\u043e\u0434\u0435\u043b\u044c") != \
        submissions.name_key("Model")  # д and ль look like no Latin letter
    one_script_words = "BERT \u6a21\u578b \u041c\u043e\u0434\u0435\u043b\u044c"
    assert submissions.mixed_script_word(one_script_words) is None


def test_no_states_gives_a_note_and_no_rank(small):
    responses_only = {d: [{"response": "hello"} for _ in turns]
                      for d, turns in small.files["sample.json"].items()}
    (small.subs / "responses.json").write_bytes(orjson.dumps(responses_only))
    code, data, markdown, _ = build(small)
    assert code == 0
    row = data["rows"][-1]
    assert row["submission"] == "responses.json" and row["rank"] is None
    assert row["scores"] == {JGA: None, "slot_f1": None} and row["ci"] == {JGA: None,
                                                                            "slot_f1": None}
    assert any("no dialogue states" in note for note in row["notes"])
    assert "| – |  | **responses** |" in markdown


def test_check_mode_scores_one_submission(small, capsys):
    build(small)
    candidate = small.root / "candidate.json"
    candidate.write_bytes(orjson.dumps({"metadata": {"name": "Candidate"}, "predictions":
                                        own_responses(oracle_predictions(small.gold))}))
    code, calls = run_counting(small.config, "--output-dir", small.out, "--check", candidate)
    out = capsys.readouterr().out
    assert code == 0 and calls == ["candidate.json"]  # the others come from the cache
    # ties the oracle and sorts first by name
    assert "candidate.json: would rank 1 of 4 (95 % rank interval 1–1); it would be the " \
           "leader" in out
    assert "| 1 | 1–1 | **Candidate** |" in out
    candidate.write_bytes(orjson.dumps({"metadata": {"name": "Zed"}, "predictions":
                                        own_responses(oracle_predictions(small.gold))}))
    code, calls = run_counting(small.config, "--output-dir", small.out, "--check", candidate)
    out = capsys.readouterr().out
    assert "would rank 1 of 4 (95 % rank interval 1–1); not significantly different from " \
           "rank 1 (Oracle), p = 1.0000" in out
    assert "| 1† | 1–1 | **Zed** |" in out
    broken = small.root / "broken.json"
    broken.write_text('{"x": [', encoding="utf-8")
    code, _ = run_counting(small.config, "--output-dir", small.out, "--check", broken)
    assert code == 3
    assert "broken.json: INVALID: invalid JSON" in capsys.readouterr().out


@pytest.mark.parametrize(("change", "message"), [
    (("rank_by = \"joint_goal_accuracy\"", "rank_by = \"jga\""), "metric 'jga' of the config"),
    (("seed = 7", "seed = 7\ncolour = 1"), "unknown [leaderboard] keys: colour"),
    (("\"*.json\"", "\"../*.json\""), "must stay inside 'dir'"),
    (("bootstrap = 200", "bootstrap = 1"), "need 2 <= bootstrap <= 10000"),
    (("bootstrap = 200", "bootstrap = 10001"), "need 2 <= bootstrap <= 10000"),
    (("seed = 7", "seed = 7\nmax_submission_mb = nan"), "a finite max_submission_mb > 0"),
    (("seed = 7", "seed = 7\nmax_submission_mb = inf"), "a finite max_submission_mb > 0"),
    (("seed = 7", 'seed = 7\ncache_dir = "board.toml"'), "cache directory"),
    (("seed = 7", 'seed = 7\ncache_dir = "subs/cache"'), "subs/cache: is in the submissions "
                                                           "folder"),
    (('metrics = ["joint_goal_accuracy", "slot_f1"]',
      'metrics = ["joint_goal_accuracy", "slot_f1", "joint_goal_accuracy"]'),
     "[leaderboard] metrics: joint_goal_accuracy given twice"),
    (("seed = 7", 'seed = 7\n\n[leaderboard.options]\nmissing = "bogus"'),
     "[leaderboard] options: --missing: unknown missing-prediction policy 'bogus'"),
])
def test_config_errors_are_usage_errors(small, change, message, capsys):
    small.config.write_text(small.config.read_text().replace(*change))
    with pytest.raises(UsageError, match=message.replace("[", r"\[").replace("]", r"\]")):
        run_leaderboard([str(small.config), "--output-dir", str(small.out)])
    assert main(["leaderboard", str(small.config), "--output-dir", str(small.out)]) == 2
    assert message in capsys.readouterr().err


# ---- acceptance: the 15 mwzeval submissions plus broken ones ---------------------------
@pytest.fixture(scope="module")
def mwz_board(shared_dir: Path, tmp_path_factory) -> SimpleNamespace:
    root = tmp_path_factory.mktemp("leaderboard")
    predictions = shared_dir / "reference" / "mwzeval" / "predictions"
    broken = root / "broken"
    broken.mkdir()
    (broken / "invalid.json").write_text('{"sng0073": [{"response": "hi"}', encoding="utf-8")
    (broken / "wrong_shape.json").write_text("[1, 2, 3]\n", encoding="utf-8")
    (broken / "oversized.json").write_bytes(b'{"x": [' + b" " * 4_500_000 + b"]}")
    (root / "outside.json").write_bytes((predictions / "labes.json").read_bytes())
    (broken / "escape.toml").write_text('name = "Escape"\npredictions = "../outside.json"\n')
    (broken / "link.json").symlink_to(predictions / "augpt.json")
    config = write_config(
        root / "board.toml", gold=shared_dir / "corpora" / "multiwoz21" / "test.json.zip",
        corpus="multiwoz21", metrics=MWZ_METRICS,
        extra='split = "test"\nmax_submission_mb = 4',
        sources=[{"dir": str(predictions), "label": "mwzeval"},
                 {"dir": str(broken), "label": "broken", "glob": ["*.json", "*.toml"]}])
    out = root / "out"
    code1, calls1 = run_counting(config, "--output-dir", out)
    first = read_outputs(out)
    code2, calls2 = run_counting(config, "--output-dir", out)
    second = read_outputs(out)
    again = {"metadata": {"name": "AuGPT (again)", "authors": "D. Author",
                          "paper": "https://example.org/augpt", "model_size": "117M"},
             "predictions": one_request_more(orjson.loads((predictions / "augpt.json")
                                                           .read_bytes()))}
    (broken / "augpt-again.json").write_bytes(orjson.dumps(again))
    code3, calls3 = run_counting(config, "--output-dir", out)
    return SimpleNamespace(
        root=root, shared=shared_dir, predictions=predictions, config=config, out=out,
        code1=code1, calls1=calls1, first=first, data1=json.loads(first["leaderboard.json"]),
        code2=code2, calls2=calls2, second=second, code3=code3, calls3=calls3,
        third=read_outputs(out))


@pytest.fixture(scope="module")
def mwz21_test(mwz21_test_gold):
    return mwz21_test_gold  # conftest: loaded once per test process


def test_mwz_board_scores_every_valid_and_lists_every_broken_submission(mwz_board):
    assert mwz_board.code1 == 3
    data = mwz_board.data1
    expected_ids = {f"mwzeval/{p.name}" for p in mwz_board.predictions.glob("*.json")}
    assert len(expected_ids) == 15 and {r["submission"] for r in data["rows"]} == expected_ids
    assert sorted(mwz_board.calls1) == sorted(Path(i).name for i in expected_ids)
    reasons = {i["file"]: i["reason"] for i in data["invalid"]}
    assert set(reasons) == {"broken/invalid.json", "broken/wrong_shape.json",
                            "broken/oversized.json", "broken/escape.toml", "broken/link.json"}
    assert reasons["broken/invalid.json"].startswith("invalid JSON")
    assert "cannot tell the prediction format: found a list of numbers" in \
        reasons["broken/wrong_shape.json"]
    assert reasons["broken/oversized.json"].startswith("4.5 MB is over the 4 MB submission limit")
    assert "escapes the submissions directory" in reasons["broken/escape.toml"]
    assert "resolves outside the submissions directory" in reasons["broken/link.json"]


@pytest.fixture(scope="module")
def mwz_reports(mwz_board, mwz21_test) -> dict:
    """evaluate() on two files, with the board's bootstrap, independently of the board."""
    return {name: evaluate(mwz_board.predictions / name, gold=mwz21_test, bootstrap=1000,
                           seed=12345) for name in ("augpt.json", "labes.json")}


def test_mwz_board_scores_and_ranks_are_evaluates(mwz_board, mwz_reports):
    rows = {r["submission"].split("/")[1]: r for r in mwz_board.data1["rows"]}
    for name, report in mwz_reports.items():
        assert rows[name]["scores"] == {m: report.scores[m] for m in MWZ_METRICS}
    # unranked = exactly the files that predict no state at all
    stateless = {p.name for p in mwz_board.predictions.glob("*.json")
                 if not any("state" in turn for turns in orjson.loads(p.read_bytes()).values()
                            for turn in turns)}
    assert stateless == {"galaxy-policy.json", "hdno.json", "hdsa.json", "lava.json",
                         "marco.json"}
    assert {n for n, r in rows.items() if r["rank"] is None} == stateless
    ranked = [r for r in mwz_board.data1["rows"] if r["rank"] is not None]
    assert [r["rank"] for r in ranked] == list(range(1, 11))
    scores = [r["scores"][JGA] for r in ranked]
    assert scores == sorted(scores, reverse=True) and ranked[0]["submission"].endswith("augpt.json")
    names = ", ".join(rows[n]["name"] for n in sorted(stateless))
    assert ("no dialogue states ('state') in the predictions: joint_goal_accuracy, slot_f1 n/a "
            f"[{names}]") in mwz_board.data1["notes"]
    for name in stateless:  # the response metrics are still there
        assert rows[name]["scores"][JGA] is None and rows[name]["scores"]["inform"] > 0.8
    assert rows["labes.json"]["coverage"] == pytest.approx(1 - 615 / 7372)


def test_mwz_board_intervals_and_test_against_the_leader(mwz_board, mwz_reports):
    rows = {r["submission"].split("/")[1]: r for r in mwz_board.data1["rows"]}
    augpt, labes = mwz_reports["augpt.json"], mwz_reports["labes.json"]
    # DST (per turn), inform (per dialogue) and BLEU (per segment) statistics, all cached as
    # per-dialogue sums, give evaluate()'s own intervals
    for metric in (JGA, "inform", "bleu", "combined"):
        expected = augpt.extra["confidence_intervals"][metric]
        for key in ("ci_low", "ci_high", "mean"):
            assert rows["augpt.json"]["ci"][metric][key] == pytest.approx(expected[key],
                                                                          rel=1e-12)
    expected = labes.extra["confidence_intervals"][JGA]
    assert rows["labes.json"]["ci"][JGA]["ci_low"] == pytest.approx(expected["ci_low"],
                                                                    rel=1e-12)
    # combined resamples inform, success and BLEU of the same dialogues together
    assert all(row["ci"]["combined"] is not None for row in mwz_board.data1["rows"])
    p = compare_reports([augpt, labes], n=1000, seed=12345)["systems"][1]["scores"][JGA]["p_bs"]
    assert rows["labes.json"]["p_vs_leader"] == pytest.approx(p, rel=1e-12)
    assert p == pytest.approx(1 / 1001) and rows["labes.json"]["tied_with_leader"] is False
    assert mwz_board.data1["signature"] == augpt.signature.format()


def test_mwz_board_rerun_is_cached_and_byte_identical(mwz_board):
    assert mwz_board.code2 == 3 and mwz_board.calls2 == []
    assert mwz_board.first == mwz_board.second  # fresh (run 1) and cached (run 2) agree
    for text in mwz_board.first.values():
        assert str(mwz_board.root).encode() not in text
        assert str(mwz_board.shared).encode() not in text
    cached = list((mwz_board.out / ".cache").glob("*.json"))
    assert len(cached) == 16  # 15 first-run entries + the new submission of run 3


def test_mwz_board_rescores_only_a_new_submission(mwz_board):
    assert mwz_board.calls3 == ["augpt-again.json"] and mwz_board.code3 == 3
    data = json.loads(mwz_board.third["leaderboard.json"])
    first, second = data["rows"][:2]
    assert first["submission"] == "mwzeval/augpt.json" and first["leader"]
    assert second["name"] == "AuGPT (again)" and second["rank"] == 1
    assert second["p_vs_leader"] == 1.0 and second["tied_with_leader"] is True
    assert first["rank_interval"] == second["rank_interval"] == [1, 1]
    markdown = mwz_board.third["leaderboard.md"].decode()
    assert "| 1† | 1–1 | **AuGPT (again)** | D. Author | [paper](https://example.org/augpt)" \
        in markdown
    assert [r["rank"] for r in data["rows"][2:4]] == [3, 4]


def test_mwz_board_check_uses_the_cache(mwz_board, capsys):
    candidate = mwz_board.root / "candidate.json"
    candidate.write_bytes(orjson.dumps({
        "metadata": {"name": "Candidate"},
        "predictions": one_request_more(orjson.loads((mwz_board.predictions / "labes.json")
                                                     .read_bytes()))}))
    code, calls = run_counting(mwz_board.config, "--output-dir", mwz_board.out,
                               "--check", candidate)
    assert code == 0 and calls == ["candidate.json"]
    out = capsys.readouterr().out
    assert "candidate.json: would rank 3 of 12" in out  # ties LABES behind the two AuGPTs
    assert "significantly different from rank 1 (augpt)" in out
    assert mwz_board.third == read_outputs(mwz_board.out)  # --check writes nothing


def test_html_page_is_self_contained(mwz_board):
    page = mwz_board.third["leaderboard.html"].decode()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    assert "<link" not in page and 'src="http' not in page
    targets = {h.split('"')[0] for h in page.split('href="')[1:]}
    # in-page SVG references, and the one paper link from the metadata
    assert {t for t in targets if not t.startswith("#")} == {"https://example.org/augpt"}


def test_cache_key_changes_with_gold_profile_and_options(small):
    config = load_config(small.config)
    scorer = scoring.Scorer(config, cache.ScoreCache(None))
    base = scorer.key("abc")
    assert scorer.key("abd") != base
    for change in ({"profile": "convlab"}, {"options": {"missing": "skip"}}):
        other = scoring.Scorer(dataclasses.replace(config, **change), cache.ScoreCache(None))
        assert other.key("abc") != base
    scorer.gold_hash = "0" * 64
    assert scorer.key("abc") != base
    fingerprint = cache.harness_fingerprint()
    assert fingerprint.startswith(f"{__version__}+") and len(fingerprint) > 20


def test_check_of_a_listed_file_uses_its_metadata_file(small, capsys):
    (small.subs / "team").mkdir()
    (small.subs / "team" / "predictions.json").write_bytes(  # worse.json's states: the
        orjson.dumps(own_responses(small.files["worse.json"])))  # same scores
    (small.subs / "team" / "submission.toml").write_text(
        'name = "Team"\npaper = "https://example.org/team"\npredictions = "predictions.json"\n')
    small.config.write_text(small.config.read_text().replace(
        '["*.json", "*.toml"]', '["*.json", "*/*.toml"]'))
    build(small)
    for target in ("predictions.json", "submission.toml"):
        code, calls = run_counting(small.config, "--output-dir", small.out, "--check",
                                   small.subs / "team" / target)
        out = capsys.readouterr().out
        assert code == 0 and calls == ["predictions.json"]
        assert "team/submission.toml: would rank 3 of 4" in out  # ties worse.json
        assert "| 3 | 2–3 | **Team** |  | [paper](https://example.org/team) |" in out


def test_skip_option_without_a_paired_test(small):
    partial = dict(list(small.files["sample.json"].items())[1:])
    (small.subs / "partial.json").write_bytes(orjson.dumps(partial))
    small.config.write_text(small.config.read_text().replace(
        "[[submissions]]", '[leaderboard.options]\nmissing = "skip"\n\n[[submissions]]', 1))
    code, data, _, _ = build(small)
    assert code == 0
    row = next(r for r in data["rows"] if r["submission"] == "partial.json")
    report = evaluate(small.subs / "partial.json", gold=small.gold, missing="skip")
    assert row["scores"][JGA] == report.scores[JGA] and "missing:skip" in data["signature"]
    assert row["p_vs_leader"] is None and row["tied_with_leader"] is False
    assert any(n.startswith("no test against rank 1") for n in row["notes"])
    # no rank intervals, and the board says why
    assert all(r["rank_interval"] is None for r in data["rows"])
    assert any(n.startswith("no rank intervals: the ranked submissions were not all scored "
                            "on the same dialogues") for n in data["notes"])


def test_statistics_that_do_not_reproduce_the_score_are_dropped():
    table = TurnTable({"jga": np.array([1.0, 0.0, 1.0]), "turn": np.array([1.0, 1.0, 1.0])},
                      np.arange(3), ["a", "b", "c"])
    good = Result(scores={JGA: 2 / 3}, signature=Signature("sgd", "dev", "strict"),
                  tables=[(table, [JointGoalAccuracy()])])
    kept, notes = resample_statistics(good, 10, 0)
    assert notes == [] and [m.name for m in kept] == [JGA]
    # the cached numbers, by construction: JGA of each resample of the three 1-turn dialogues
    hits = np.array([1.0, 0.0, 1.0])
    expected = [hits[draw].sum() / 3 for draw in resample_indices(3, 10, seed=0)]
    assert kept[0].full == 2 / 3 and kept[0].resamples.tolist() == pytest.approx(expected)
    bad = Result(scores={JGA: 0.5}, signature=Signature("sgd", "dev", "strict"),
                 tables=[(table, [JointGoalAccuracy()])])
    kept, notes = resample_statistics(bad, 10, 0)
    assert notes == [
        "joint_goal_accuracy: no interval or test (its per-dialogue statistics give 0.666667, "
        "not the score 0.5)"]
    assert kept == []


def test_a_metric_missing_without_a_reason_gets_a_note(small):
    small.config.write_text(small.config.read_text().replace(
        'metrics = ["joint_goal_accuracy", "slot_f1"]',
        'metrics = ["joint_goal_accuracy", "slot_f1", "inform", "requested_slots_f1", "nope"]'))
    # "nope" is computed for no submission: a usage error naming the known metrics
    with pytest.raises(UsageError, match="metric 'nope' of the config is not computed"):
        run_leaderboard([str(small.config), "--output-dir", str(small.out)])
    small.config.write_text(small.config.read_text().replace(', "nope"', ""))
    code, data, _, _ = build(small)
    assert code == 0
    sample = next(r for r in data["rows"] if r["submission"] == "sample.json")
    # inform and requested_slots_f1 are n/a with the scorer's reasons: no extra note
    assert sample["scores"]["inform"] is None and sample["scores"]["requested_slots_f1"] is None
    assert not any("not computed" in n for r in data["rows"] for n in r["notes"] + data["notes"])
    assert board._explained("requested_slots_f1", ["requested_slots_*: n/a (none)"])
    assert board._explained("bleu", ["inform, bleu: n/a (no goals)"])
    assert not board._explained("bleu", ["bleu_segmented: n/a (x)", "bleu: 17"])


# ---- a cache that cannot be stale ---------------------------------------------------------
@pytest.fixture
def jmwz(gold_samples: Path, tmp_path: Path) -> SimpleNamespace:
    """JMultiWOZ gold as a FILE (``dialogues.json``) whose loader also reads
    ``split_list.json`` beside it; three submissions; a cache in ``out/.cache``."""
    source = gold_samples / "jmultiwoz"
    gold_dir = tmp_path / "data" / "gold"  # its folder and that folder's parent are listed
    gold_dir.mkdir(parents=True)
    for name in ("dialogues.json", "split_list.json"):
        (gold_dir / name).write_bytes((source / name).read_bytes())
    gold = load_gold(gold_dir / "dialogues.json", corpus="jmultiwoz", split="test")
    sample = orjson.loads((source / "predictions.json").read_bytes())
    subs = tmp_path / "subs"
    subs.mkdir()
    files = {"oracle.json": oracle_predictions(gold), "sample.json": sample,
             "worse.json": without_state(sample, 1)}
    for name, content in files.items():
        (subs / name).write_bytes(orjson.dumps(content))
    config = write_config(tmp_path / "board.toml", gold=gold_dir / "dialogues.json",
                          corpus="jmultiwoz", bootstrap=100, seed=3,
                          extra='split = "test"\nprofile = "strict"',
                          sources=[{"dir": str(subs)}])
    return SimpleNamespace(root=tmp_path, gold=gold_dir, subs=subs, config=config,
                           out=tmp_path / "out", files=files)


def run_board(ns: SimpleNamespace, *extra: object, out: Path | None = None
              ) -> tuple[list[str], dict[str, bytes]]:
    """Build the board (through the cache unless ``--no-cache``); (files scored, outputs)."""
    out = out or ns.out
    code, calls = run_counting(ns.config, "--output-dir", out, *extra)
    assert code == 0
    return sorted(calls), read_outputs(out)


def uncached(ns: SimpleNamespace) -> dict[str, bytes]:
    """The outputs recomputed from scratch, without reading or writing any cache."""
    calls, outputs = run_board(ns, "--no-cache", out=ns.root / "fresh")
    assert calls == sorted(ns.files)
    return outputs


def jga_by_submission(outputs: dict[str, bytes]) -> dict[str, float]:
    rows = json.loads(outputs["leaderboard.json"])["rows"]
    return {row["submission"]: row["scores"][JGA] for row in rows}


def rewrite_in_place(path: Path, old: bytes, new: bytes) -> None:
    """Replace ``old`` by ``new`` (same length) keeping the file's size and mtime."""
    assert len(old) == len(new)
    before = path.stat()
    data = path.read_bytes()
    assert data.count(old) >= 1
    path.write_bytes(data.replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_cache_serves_an_unchanged_board_without_rescoring(jmwz):
    calls, first = run_board(jmwz)
    assert calls == sorted(jmwz.files)
    calls, second = run_board(jmwz)
    assert calls == [] and second == first == uncached(jmwz)
    # gold_samples/jmultiwoz/README.md: strict JGA 8/12, 9001 (4 turns) missing only t2;
    # "worse" empties 9001's states, losing its 3 correct turns
    assert jga_by_submission(first) == {"oracle.json": 1.0, "sample.json": 8 / 12,
                                        "worse.json": 5 / 12}


@pytest.mark.parametrize(("file", "old", "new"), [
    # the gold path itself: a gold value of the test split (hotel city of 9001 turn 0)
    ("dialogues.json", "大阪".encode(), "福岡".encode()),
    # a file BESIDE the gold path that the loader reads: 9003 moves to dev, 9004 to test
    ("split_list.json", b"9003IjKl", b"9004MnOp"),
])
def test_cache_is_not_stale_after_a_gold_file_changes_in_place(jmwz, file, old, new):
    run_board(jmwz)
    before = jga_by_submission(uncached(jmwz))
    target = jmwz.gold / file
    if file == "split_list.json":  # swap the two ids, keeping the size
        text = target.read_bytes().replace(b"9004MnOp", b"@@@@@@@@").replace(old, new)
        rewrite_in_place(target, target.read_bytes(), text.replace(b"@@@@@@@@", old))
    else:
        rewrite_in_place(target, old, new)
    calls, cached = run_board(jmwz)
    assert calls == sorted(jmwz.files)  # every entry depended on that file
    fresh = uncached(jmwz)
    assert cached == fresh
    assert jga_by_submission(fresh) != before  # the change matters: a stale board would show it


def test_cache_is_not_stale_after_a_submission_changes_in_place(jmwz):
    run_board(jmwz)
    before = jga_by_submission(uncached(jmwz))
    # the sample's 大阪 (hotel city) becomes 福岡: same size, same mtime
    rewrite_in_place(jmwz.subs / "sample.json", "大阪".encode(), "福岡".encode())
    calls, cached = run_board(jmwz)
    assert calls == ["sample.json"]
    fresh = uncached(jmwz)
    assert cached == fresh and jga_by_submission(fresh) != before


def test_cache_is_not_stale_after_the_harness_code_changes(jmwz, monkeypatch):
    """A change of the installed code (here: a file added to the digested code roots,
    rewritten with the same size and mtime) rescoring everything; the new "code" computes
    other numbers (no normalisation), and the board shows exactly those."""
    module = jmwz.root / "code" / "rules.py"
    module.parent.mkdir()
    module.write_text("RULES = 'nfkc'\n", encoding="utf-8")
    roots = cache.code_roots()
    monkeypatch.setattr(cache, "code_roots", lambda: [*roots, module.parent])
    cache.harness_fingerprint.cache_clear()
    run_board(jmwz)
    old = uncached(jmwz)
    real = scoring.evaluate
    monkeypatch.setattr(scoring, "evaluate",
                        lambda predictions, **kw: real(predictions, **kw, normalisation="exact"))
    new = uncached(jmwz)
    assert jga_by_submission(new) != jga_by_submission(old)
    calls, stale = run_board(jmwz)  # the code digest did not change: the old entries serve
    assert calls == [] and stale == old
    rewrite_in_place(module, b"nfkc", b"none")
    cache.harness_fingerprint.cache_clear()
    try:
        calls, cached = run_board(jmwz)
    finally:
        cache.harness_fingerprint.cache_clear()
    assert calls == sorted(jmwz.files) and cached == new


@pytest.mark.parametrize("corrupt", [
    lambda data: data[: len(data) // 2],                                 # truncated
    lambda data: b"\x00\xff garbage",                                     # not JSON
    lambda data: b"{}",                                                   # no fields
    lambda data: data.replace(b'"format":3', b'"format":2'),              # another format
    lambda data: data.replace(b'"coverage":', b'"coverage":"x","c":'),    # wrong type
    lambda data: orjson.dumps({**orjson.loads(data), "statistics": [      # short resamples
        [m[0], m[1], m[2], "AAAA"] for m in orjson.loads(data)["statistics"]]}),
    lambda data: orjson.dumps({**orjson.loads(data), "key": "0" * 64}),   # another key's
    lambda data: orjson.dumps({**orjson.loads(data), "tables": [            # the old format's
        {"metrics": [{"$metric": {"module": "os", "class": "system", "state": {}}}]}]}),
])
def test_a_corrupt_cache_entry_is_ignored_and_rescored(jmwz, corrupt, monkeypatch):
    calls, first = run_board(jmwz)
    entries = sorted((jmwz.out / ".cache").glob("*.json"))
    assert len(entries) == 3
    for entry in entries:
        entry.write_bytes(corrupt(entry.read_bytes()))
    monkeypatch.setattr(os, "system", lambda *a: pytest.fail("executed from the cache"))
    calls, second = run_board(jmwz)
    assert calls == sorted(jmwz.files) and second == first
    calls, third = run_board(jmwz)  # rewritten
    assert calls == [] and third == first


def test_cache_entries_are_plain_data(jmwz):
    run_board(jmwz)
    for file in (jmwz.out / ".cache").glob("*.json"):
        entry = orjson.loads(file.read_bytes())
        assert set(entry) == {"format", "key", "signature", "scores", "coverage", "warnings",
                              "notes", "statistics_notes", "metadata", "has_states",
                              "predictions_digest", "tables", "statistics", "inputs"}
        assert entry["key"] == file.stem and b"$metric" not in file.read_bytes()
        # the inputs: the two gold files read, by content, and the searched folders
        files = {Path(p).name: d for kind, p, d in entry["inputs"] if kind == "file"}
        assert files == {"dialogues.json": reads.file_digest(jmwz.gold / "dialogues.json"),
                         "split_list.json": reads.file_digest(jmwz.gold / "split_list.json")}
        folders = {p for kind, p, _ in entry["inputs"] if kind == "dir"}
        assert {str(jmwz.gold), str(jmwz.gold.parent)} <= folders
        assert str(jmwz.subs) not in folders
        # statistics: 100 resamples (float64) per metric with per-dialogue statistics
        assert all(len(base64.b64decode(m[3])) == 8 * 100 for m in entry["statistics"])


# ---- hostile submissions (issue 9) ----------------------------------------------------------
def test_zip_members_are_limited_by_their_decompressed_size(small, tmp_path):
    assert build(small)[0] == 0  # sample.json is on the board
    sample = orjson.dumps(small.files["sample.json"])
    with zipfile.ZipFile(small.subs / "zipped.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("predictions.json", sample)
    with zipfile.ZipFile(small.subs / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("predictions.json", b'{"x": [' + b" " * 3_000_000 + b"]}")
    assert (small.subs / "bomb.zip").stat().st_size < 10_000  # under the limit as a file
    small.config.write_text(small.config.read_text().replace(
        '["*.json", "*.toml"]', '["*.json", "*.toml", "*.zip"]').replace(
        "seed = 7", "seed = 7\nmax_submission_mb = 1"))
    code, data, _, _ = build(small)
    assert code == 3
    # the zip holds sample.json's bytes: read as the same predictions, it is a copy
    assert {i["file"]: i["reason"] for i in data["invalid"]} == {
        "bomb.zip": "over the 1 MB submission limit (max_submission_mb) once decompressed",
        "zipped.zip": "the same predictions as sample.json (already on the board) once read "
                      "(other bytes, the same input to every profile on every gold turn): "
                      "one set of predictions is one submission"}
    # streaming: a 200 MB member is measured in 1 MB blocks and abandoned past the limit
    bomb = tmp_path / "big-bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("predictions.json", bytes(200_000_000))
    tracemalloc.start()
    try:
        measured = submissions.zip_size(bomb, 5_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 5_000_000 < measured <= 6_000_000 and peak < 8_000_000
    assert submissions.zip_size(small.subs / "zipped.zip", None) == len(sample)


def test_names_differing_only_by_case_keep_the_existing_submission(small, capsys):
    code, data, _, _ = build(small)
    assert code == 0
    # predictions of its own (a copy of another's is refused as a copy first)
    twin = {"metadata": {"name": "ORACLE"},
            "predictions": without_state(small.files["sample.json"], 1)}
    (small.subs / "twin.json").write_bytes(orjson.dumps(twin))
    code, data, markdown, _ = build(small)
    assert code == 3
    assert [row["submission"] for row in data["rows"]] == ["oracle.json", "sample.json",
                                                          "worse.json"]
    assert data["invalid"] == [{"file": "twin.json", "reason": (
        "name 'ORACLE' is already used by oracle.json (names must be unique, ignoring case, "
        "compatibility forms and look-alike letters of other scripts); choose another name")}]
    capsys.readouterr()
    code = run_leaderboard([str(small.config), "--output-dir", str(small.out), "--check",
                            str(small.subs / "twin.json")])
    assert code == 3 and "twin.json: INVALID: name 'ORACLE' is already used by oracle.json" \
        in capsys.readouterr().out


def test_control_and_bidi_characters_in_names_are_refused_and_shown_escaped(small):
    sample = orjson.dumps(small.files["sample.json"])
    (small.subs / "evil\nname.json").write_bytes(sample)
    (small.subs / "bidi\u202egnp.json").write_bytes(sample)
    (small.subs / "meta.json").write_bytes(orjson.dumps(
        {"metadata": {"name": "Good\u202eliveD"}, "predictions": small.files["sample.json"]}))
    code, data, markdown, page = build(small)
    assert code == 3
    reasons = {i["file"]: i["reason"] for i in data["invalid"]}
    assert reasons == {
        "bidi\\u202egnp.json": submissions.UNSAFE_NAME,
        "evil\\u000aname.json": submissions.UNSAFE_NAME,
        "meta.json": "metadata 'name' holds a bidirectional or invisible formatting character "
                     "(\\u202e)"}
    json_text = (small.out / "leaderboard.json").read_text(encoding="utf-8")
    for text in (markdown, page, json_text):
        assert "\u202e" not in text and "evil\n" not in text
    assert "- `evil\\\\u000aname.json`: its file name holds control" in markdown
    assert not any(line.startswith("name.json") for line in markdown.splitlines())
