"""``dst-eval leaderboard``: the audit's findings (stale cache, hash framing, confinement,
escaping, usage errors). Fixtures and helpers come from :mod:`test_leaderboard`."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import orjson
import pytest
from test_leaderboard import (  # noqa: F401 - fixtures
    JGA,
    jga_by_submission,
    jmwz,
    own_responses,
    rewrite_in_place,
    run_board,
    run_counting,
    small,
    uncached,
    write_config,
)

from dst_eval import evaluate
from dst_eval.corpora import load_gold
from dst_eval.corpora.multiwoz.responses import _find_db
from dst_eval.leaderboard import reads, submissions
from dst_eval.responses import ResponseResources


def swap_split_ids(path: Path) -> None:
    """Swap dialogue_9003 (test) and dialogue_9004 (dev) in a JMultiWOZ split list, keeping
    the file's size and mtime."""
    data = path.read_bytes()
    swapped = (data.replace(b"9004MnOp", b"@@@@@@@@").replace(b"9003IjKl", b"9004MnOp")
               .replace(b"@@@@@@@@", b"9003IjKl"))
    rewrite_in_place(path, data, swapped)


def direct_jga(ns, gold_file: Path) -> dict[str, float]:
    """evaluate() of every submission on ``gold_file``, without the leaderboard."""
    gold = load_gold(gold_file, corpus="jmultiwoz", split="test")
    return {name: evaluate(ns.subs / name, gold=gold, profile="strict").scores[JGA]
            for name in ns.files}


# ---- 1: a gold copy with another split list never shares an entry ----------------------------
def test_cache_is_not_stale_when_the_gold_moves_to_a_copy_with_another_split_list(jmwz):  # noqa: F811 - fixture
    copy = jmwz.root / "data" / "gold2"
    shutil.copytree(jmwz.gold, copy)
    swap_split_ids(copy / "split_list.json")  # dialogues.json stays byte-identical
    run_board(jmwz)
    jmwz.config.write_text(jmwz.config.read_text(encoding="utf-8").replace(
        json.dumps(str(jmwz.gold / "dialogues.json")), json.dumps(str(copy / "dialogues.json"))),
        encoding="utf-8")
    calls, cached = run_board(jmwz)
    assert calls == sorted(jmwz.files)  # another gold: every entry rescored
    expected = direct_jga(jmwz, copy / "dialogues.json")
    assert expected != direct_jga(jmwz, jmwz.gold / "dialogues.json")  # the change matters
    assert jga_by_submission(cached) == pytest.approx(expected, abs=1e-12)
    assert cached == uncached(jmwz)


# ---- 2: a database file added to an incomplete db folder -------------------------------------
def test_a_database_file_looked_for_is_recorded_present_or_absent(tmp_path):
    gold = tmp_path / "gold"
    (gold / "db").mkdir(parents=True)
    for name in ("restaurant_db.json", "hotel_db.json", "attraction_db.json"):
        (gold / "db" / name).write_text("[]", encoding="utf-8")
    source = type("Gold", (), {"source": str(gold / "data.json")})()
    with reads.Recording() as recording:
        assert _find_db(source, ResponseResources()) is None
    looked = {Path(path).name for kind, path in recording.inputs if kind == reads.FILE}
    assert "train_db.json" in looked
    assert reads.file_digest(gold / "db" / "train_db.json") == reads.MISSING


def test_cache_is_not_stale_after_a_database_folder_is_completed(gold_samples, shared_dir,
                                                                 tmp_path):
    release = shared_dir / "corpora" / "risawoz" / "RiSAWOZ-Database-and-Ontology"
    gold_dir = tmp_path / "gold" / "risawoz"
    (gold_dir / "RiSAWOZ-Database-and-Ontology").mkdir(parents=True)
    shutil.copytree(release / "Ontology", gold_dir / "RiSAWOZ-Database-and-Ontology" / "Ontology")
    shutil.copy(gold_samples / "risawoz" / "dialogues.json", gold_dir)
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(gold_samples / "risawoz" / "predictions.json", subs / "sys.json")
    config = write_config(tmp_path / "board.toml", gold=gold_dir / "dialogues.json",
                          corpus="risawoz", metrics=(JGA, "inform", "success"), bootstrap=50,
                          sources=[{"dir": str(subs)}])
    out = tmp_path / "out"
    code, calls = run_counting(config, "--output-dir", out)
    rows = json.loads((out / "leaderboard.json").read_bytes())["rows"]
    assert code == 0 and calls == ["sys.json"] and rows[0]["scores"]["inform"] is None
    shutil.copytree(release / "DB", gold_dir / "RiSAWOZ-Database-and-Ontology" / "DB")
    code, calls = run_counting(config, "--output-dir", out)
    assert code == 0 and calls == ["sys.json"]  # the database appeared: rescored
    rows = json.loads((out / "leaderboard.json").read_bytes())["rows"]
    direct = evaluate(subs / "sys.json", gold=load_gold(gold_dir / "dialogues.json",
                                                       corpus="risawoz"))
    assert direct.scores["inform"] is not None
    assert rows[0]["scores"]["inform"] == pytest.approx(direct.scores["inform"], abs=1e-12)
    assert rows[0]["scores"]["success"] == pytest.approx(direct.scores["success"], abs=1e-12)


# ---- 3: gold files directly in the temporary directory ----------------------------------------
def test_cache_is_not_stale_when_the_gold_sits_in_the_temporary_directory(jmwz, monkeypatch):  # noqa: F811 - fixture
    monkeypatch.setattr(tempfile, "tempdir", str(jmwz.gold))
    assert Path(tempfile.gettempdir()) == jmwz.gold
    run_board(jmwz)
    before = direct_jga(jmwz, jmwz.gold / "dialogues.json")
    swap_split_ids(jmwz.gold / "split_list.json")
    calls, cached = run_board(jmwz)
    assert calls == sorted(jmwz.files)
    expected = direct_jga(jmwz, jmwz.gold / "dialogues.json")
    assert expected != before
    assert jga_by_submission(cached) == pytest.approx(expected, abs=1e-12)


# ---- 4: directory hashes are framed: no collision of two different file sets -------------------
def test_an_invalid_directory_submission_never_gets_another_ones_cached_score(small):  # noqa: F811 - fixture
    oracle = small.files["oracle.json"]["predictions"]
    names = sorted(oracle)
    first = orjson.dumps({n: oracle[n] for n in names[:2]})
    second = orjson.dumps({n: oracle[n] for n in names[2:]})
    victim, attacker = small.subs / "victim", small.subs / "attacker"
    victim.mkdir()
    attacker.mkdir()
    (victim / "a.json").write_bytes(first)
    (victim / "b.json").write_bytes(second)
    # the old framing, name length-prefixed but bytes not: the same byte stream
    (attacker / "a.json").write_bytes(first + b"\x00" + b"6:b.json\x00" + second)
    assert submissions.content_hash(victim) != submissions.content_hash(attacker)
    small.config.write_text(small.config.read_text().replace(
        '["*.json", "*.toml"]', '["victim", "attacker"]'))
    for _ in range(2):  # fresh, then through the cache
        code, calls = run_counting(small.config, "--output-dir", small.out)
        data = json.loads((small.out / "leaderboard.json").read_bytes())
        assert code == 3
        assert [i["file"] for i in data["invalid"]] == ["attacker"]
        assert [(r["submission"], r["rank"], r["scores"][JGA]) for r in data["rows"]] == [
            ("victim", 1, 1.0)]  # the oracle's predictions: every turn right


def test_a_file_and_a_directory_never_share_a_submission_key(small):  # noqa: F811 - fixture
    (small.subs / "dir").mkdir()
    (small.subs / "dir" / "a.json").write_bytes(b"{}")
    (small.subs / "file.json").write_bytes(b"{}")
    keys = {tuple(submissions.submission_key(small.subs / p)) for p in ("dir", "file.json")}
    assert len(keys) == 2


# ---- 5: nothing a submission names is opened outside the gold folder ---------------------------
LDST_LINE = "dialogues_001.json|||{d}|||{u}|||0|||restaurant|||area|||['centre']"


def test_a_dialogue_name_never_opens_a_file_outside_the_gold_folder(small, tmp_path):  # noqa: F811 - fixture
    secret = tmp_path / "secret.json"
    secret.write_text('[{"dialogue_id": "SECRET-ID-123"}, {"dialogue_id": "SECRET-ID-456"}]',
                      encoding="utf-8")
    oracle = small.files["oracle.json"]["predictions"]
    first = sorted(oracle)[0]
    # the JSON wrapper's metadata setting the readers' positional marker
    (small.subs / "jpos.json").write_bytes(orjson.dumps(
        {"metadata": {"name": "jpos", "positional": True},
         "predictions": {**oracle, f"{secret}#0": oracle[first],
                         f"{small.gold_dir}/../../../{secret}#1": oracle[first]}}))
    # LDST: one positional line sets the marker, another line's dialogue field is a path
    (small.subs / "ldst.txt").write_text("\n".join(
        [*(LDST_LINE.format(d=d, u=0) for d in range(4)),
         f"x|||{secret}#1|||0|||0|||restaurant|||area|||['centre']"])
        + "\n", encoding="utf-8")
    small.config.write_text(small.config.read_text().replace(
        '["*.json", "*.toml"]', '["jpos.json", "ldst.txt"]'))
    with reads.Recording() as recording:
        code, _ = run_counting(small.config, "--output-dir", small.out)
    assert not [p for _, p in recording.inputs if Path(p).name == "secret.json"]
    text = (small.out / "leaderboard.json").read_text(encoding="utf-8")
    data = json.loads(text)
    assert "SECRET" not in text
    assert code == 0 and {r["submission"] for r in data["rows"]} == {"jpos.json", "ldst.txt"}
    jpos = next(r for r in data["rows"] if r["submission"] == "jpos.json")
    assert jpos["scores"][JGA] == 1.0  # the oracle's turns; the two extra names are ignored
    assert any("'positional' are dst-eval's own markers; ignored" in w for w in jpos["warnings"])


def test_reserved_marker_keys_in_embedded_metadata_are_ignored(tmp_path):
    from dst_eval.predictions.reader import read_predictions

    path = tmp_path / "p.json"
    path.write_bytes(orjson.dumps({
        "metadata": {"name": "x", "positional": True, "unset_marker": "centre",
                     "order_aligned": True, "turn_ids": {}, "embedded_gold": {}},
        "predictions": {"d1": [{"state": {"restaurant-area": "centre"}}]}}))
    predictions = read_predictions(path)
    assert dict(predictions.metadata) == {"name": "x"}
    assert [i.kind for i in predictions.issues] == ["reserved_metadata"]


def test_a_position_in_a_path_is_a_dialogue_id_not_a_file():
    from dst_eval.predictions.bind import _plain_name

    assert _plain_name("dialogues_001.json")
    for name in ("../x.json", "/etc/hostname", "a/b.json", "..", ".", "C:x.json", "a\\b", ""):
        assert not _plain_name(name), name


# ---- 6: an LDST submission with a metadata file --------------------------------------------------
def test_an_ldst_submission_with_a_metadata_file_is_accepted(small):  # noqa: F811 - fixture
    team = small.subs / "team5"
    team.mkdir()
    result = team / "result.txt"
    result.write_text("\n".join(LDST_LINE.format(d=d, u=0) for d in range(3)) + "\n",
                      encoding="utf-8")
    (team / "submission.toml").write_text('name = "team5"\npredictions = "result.txt"\n',
                                          encoding="utf-8")
    small.config.write_text(small.config.read_text().replace(
        '["*.json", "*.toml"]', '["*/submission.toml"]'))
    code, _ = run_counting(small.config, "--output-dir", small.out)
    data = json.loads((small.out / "leaderboard.json").read_bytes())
    assert code == 0 and data["invalid"] == []
    [row] = data["rows"]
    assert row["name"] == "team5" and row["submission"] == "team5/submission.toml"
    assert not any("metadata" in n for n in row["notes"])
    direct = evaluate(result, gold=small.gold)
    assert row["scores"][JGA] == pytest.approx(direct.scores[JGA], abs=1e-12)


# ---- 7: --check output is Markdown-escaped ------------------------------------------------------
def test_check_output_escapes_every_submitter_controlled_line(small, capsys):  # noqa: F811 - fixture
    from dst_eval.leaderboard.render import md

    leader = "<script>alert(1)</script>"
    oracle = small.files["oracle.json"]
    (small.subs / "oracle.json").write_bytes(orjson.dumps(
        {**oracle, "metadata": {**oracle["metadata"], "name": leader}}))
    link = "[click here](https://evil.example/login)"
    candidate = small.root / "candidate.json"
    candidate.write_bytes(orjson.dumps({"metadata": {"name": "cand", "x_[a](b)": 1},
                                        "predictions": {**own_responses(small.files[
                                            "sample.json"]), link: [{"state": {}}]}}))
    code, _ = run_counting(small.config, "--output-dir", small.out, "--check", candidate)
    out = capsys.readouterr().out
    assert code == 0
    assert f"rank 1 ({md(leader)})" in out and leader not in out
    assert link not in out and md(link) in out  # the warning quoting the dialogue id
    assert "x_[a](b)" not in out and "note: ignored metadata keys: x\\_\\[a\\](b)" in out
    image = small.root / "![x](https:⁄⁄evil.example⁄p.png).json"
    image.write_text('{"x": [', encoding="utf-8")
    code, _ = run_counting(small.config, "--output-dir", small.out, "--check", image)
    out = capsys.readouterr().out
    assert code == 3 and out.startswith(md(image.name) + ": INVALID: ")
    assert "![x]" not in out
    # the escaping is Markdown's own: every special character is backslash-escaped
    assert md("![x](y) <b>|") == "\\!\\[x\\](y) \\<b\\>\\|"


# ---- 8, 9: usage errors, exit 2, before any scoring --------------------------------------
def test_an_unusable_output_directory_is_a_usage_error_before_scoring(small, capsys):  # noqa: F811 - fixture
    afile = small.root / "afile"
    afile.write_text("", encoding="utf-8")
    for out in (afile, afile / "below"):
        code, calls = run_counting_main(small.config, "--output-dir", out, "--no-cache")
        err = capsys.readouterr().err
        assert (code, calls) == (2, [])
        assert err.count("\n") == 1 and f"--output-dir {out}" in err and "Traceback" not in err


def test_a_seed_above_the_largest_seed_is_a_usage_error(small, capsys):  # noqa: F811 - fixture
    from dst_eval.options import MAX_SEED

    text = small.config.read_text()
    small.config.write_text(text.replace("seed = 7", f"seed = {MAX_SEED + 1}"))
    code, calls = run_counting_main(small.config, "--output-dir", small.out, "--no-cache")
    err = capsys.readouterr().err
    assert (code, calls) == (2, []) and "seed" in err and err.count("\n") == 1
    small.config.write_text(text.replace("seed = 7", "seed = 99999999999999999999"))
    code, calls = run_counting_main(small.config, "--output-dir", small.out, "--no-cache")
    assert (code, calls) == (2, []) and "seed" in capsys.readouterr().err


def run_counting_main(*argv: object) -> tuple[int, list[str]]:
    """As :func:`run_counting`, through ``dst-eval``'s entry point (exit codes, messages)."""
    from dst_eval.cli.app import main

    return run_counting(*argv, entry=lambda args: main(["leaderboard", *args]))


# ---- 10: the low-coverage refusal names the leaderboard's own option -------------------------
def test_low_coverage_refusal_names_the_leaderboard_option_and_it_works(small):  # noqa: F811 - fixture
    oracle = small.files["oracle.json"]["predictions"]
    first = sorted(oracle)[0]
    partial = {first: oracle[first]}  # 1 of the 4 gold dialogues
    (small.subs / "partial.json").write_bytes(orjson.dumps(partial))
    code, _ = run_counting(small.config, "--output-dir", small.out, "--no-cache")
    data = json.loads((small.out / "leaderboard.json").read_bytes())
    assert code == 3
    assert {i["file"]: i["reason"] for i in data["invalid"]} == {"partial.json": (
        "predictions match 1 of 4 dialogues of multiwoz22, fewer than "
        "options.min_coverage (0.5) of them; min_coverage = 0.25 or lower in "
        "[leaderboard.options] accepts it")}
    small.config.write_text(small.config.read_text() + "[leaderboard.options]\n"
                            "min_coverage = 0.25\n")  # the table is the file's last
    code, _ = run_counting(small.config, "--output-dir", small.out, "--no-cache")
    data = json.loads((small.out / "leaderboard.json").read_bytes())
    assert code == 0
    row = next(r for r in data["rows"] if r["submission"] == "partial.json")
    # the 3 unpredicted dialogues are wrong: JGA = the first dialogue's turns / all turns
    from dst_eval.gold import dialogue_key

    turns = {dialogue_key(d.dialogue_id): len(d.turns) for d in small.gold}
    assert row["scores"][JGA] == pytest.approx(
        turns[dialogue_key(first)] / sum(turns.values()), abs=1e-12)


def test_the_accepting_minimum_is_rounded_down():
    from dst_eval.api import check_coverage
    from dst_eval.errors import CoverageError
    from dst_eval.options import EvalOptions

    class Gold(list):
        corpus, split = "multiwoz22", "test"

    with pytest.raises(CoverageError) as caught:
        check_coverage(Gold([1, 2, 3]), ["a"], "p.json", EvalOptions(min_coverage=0.9))
    assert caught.value.accepts == 0.66  # 2/3 = 0.666...: 0.67 would not accept 2 of 3
    check_coverage(Gold([1, 2, 3]), ["a"], "p.json", EvalOptions(min_coverage=0.66))


def test_a_file_name_that_is_not_utf8_is_an_invalid_submission(small):  # noqa: F811 - fixture
    """A submission (or a file inside a directory submission) whose name is not UTF-8 is
    invalid with its reason; the board is built for the others (it used to end the whole
    build in 'internal error', exit 1)."""
    import os

    name = os.fsdecode(b"p\xff.json")
    (small.subs / name).write_bytes(orjson.dumps(small.files["sample.json"]))
    team = small.subs / "team.json"  # a directory submission matched by the glob
    team.mkdir()
    (team / name).write_bytes(orjson.dumps(small.files["sample.json"]))
    code, calls = run_counting_main(small.config, "--output-dir", small.out, "--no-cache")
    assert code == 3 and sorted(calls) == sorted(small.files)  # 3: a submission is invalid
    data = json.loads((small.out / "leaderboard.json").read_text(encoding="utf-8"))
    reasons = {i["file"]: i["reason"] for i in data["invalid"]}
    assert set(reasons) == {"p\\udcff.json", "team.json"}
    assert all("not UTF-8" in reason for reason in reasons.values())


def test_a_board_without_statistics_claims_no_resampling_and_names_ignored_options(small):  # noqa: F811 - fixture
    """convlab keeps no per-turn statistics (the CLI refuses --bootstrap with it): its board
    has no interval, so its signature names no bs:/seed: (it used to sign bs:200|seed:7);
    options the profile does not apply are noted, as on the CLI."""
    text = small.config.read_text().replace("[leaderboard]\n",
                                            '[leaderboard]\nprofile = "convlab"\n', 1)
    small.config.write_text(text + '[leaderboard.options]\ndontcare = "ignore"\n'
                            'normalisation = "exact"\n')  # the table is the file's last
    code, _ = run_counting(small.config, "--output-dir", small.out, "--no-cache")
    data = json.loads((small.out / "leaderboard.json").read_bytes())
    assert code == 0 and len(data["rows"]) == 3
    assert "|profile:convlab|" in data["signature"]
    assert "|bs:" not in data["signature"] and "|seed:" not in data["signature"]
    assert all(ci is None for row in data["rows"] for ci in row["ci"].values())
    assert data["statistics"] is None  # no resampling ran: none described
    assert "bootstrap resamples" not in (small.out / "leaderboard.md").read_text()
    assert any(n.endswith("--dontcare ignore does not apply") for n in data["notes"])
    assert any(n.endswith("--normalisation exact does not apply") for n in data["notes"])


def test_statistics_name_the_test_only_when_it_ran(small):  # noqa: F811 - fixture
    """A board of one submission resamples (intervals) but has no rank 1 to test against:
    leaderboard.json's statistics describe the bootstrap and no paired test."""
    for name in ("oracle.json", "worse.json"):
        (small.subs / name).unlink()
    code, _ = run_counting(small.config, "--output-dir", small.out, "--no-cache")
    data = json.loads((small.out / "leaderboard.json").read_bytes())
    assert code == 0 and len(data["rows"]) == 1 and data["rows"][0]["p_vs_leader"] is None
    assert any(ci is not None for ci in data["rows"][0]["ci"].values())
    assert (data["statistics"]["resamples"], data["statistics"]["test"]) == (200, None)


def test_a_board_without_tests_describes_no_test(small, capsys):  # noqa: F811 - fixture
    """A board on a profile keeping no per-turn statistics (convlab) runs no paired test, yet
    its legend described one: "† ... (paired bootstrap over dialogues ...); p vs #1 is that
    test's p-value", with a p vs #1 column holding only "leader" (g1 #5). By construction no
    row has a p-value, so neither the Markdown, the HTML page nor --check describe the test;
    the same board with resampling (the fixture's profile) still does."""
    out = small.out
    run_counting(small.config, "--output-dir", out, "--no-cache")
    data = json.loads((out / "leaderboard.json").read_bytes())
    assert any(row["p_vs_leader"] is not None for row in data["rows"])  # the test ran
    assert (data["statistics"]["resamples"], data["statistics"]["seed"]) == (200, 7)
    assert data["statistics"]["test"].startswith("paired bootstrap")
    md_text = (out / "leaderboard.md").read_text(encoding="utf-8")
    assert "paired bootstrap" in md_text and "| p vs #1 |" in md_text
    assert "<th class=n>p vs #1</th>" in (out / "leaderboard.html").read_text(encoding="utf-8")
    small.config.write_text(small.config.read_text().replace(
        "[leaderboard]\n", '[leaderboard]\nprofile = "convlab"\n', 1))
    code, _ = run_counting(small.config, "--output-dir", out, "--no-cache")
    data = json.loads((out / "leaderboard.json").read_bytes())
    assert code == 0 and all(row["p_vs_leader"] is None for row in data["rows"])
    assert data["statistics"] is None
    md_text = (out / "leaderboard.md").read_text(encoding="utf-8")
    html_text = (out / "leaderboard.html").read_text(encoding="utf-8")
    for page in (md_text, html_text):
        assert not [w for w in ("†", "paired bootstrap", "p vs #1", "significantly")
                    if w in page], page
    assert "no intervals and no tests" in md_text
    table = [line for line in md_text.splitlines() if line.startswith("|")]
    assert len(table) == 2 + 3 and len({line.count("|") for line in table}) == 1
    capsys.readouterr()
    code, _ = run_counting(small.config, "--output-dir", out, "--no-cache",
                           "--check", small.subs / "sample.json")
    text = capsys.readouterr().out
    assert code == 0 and "p vs #1" not in text and "significantly" not in text, text


def test_outputs_replace_links_instead_of_writing_through_them(small):  # noqa: F811 - fixture
    """Links standing at the output names (a hard link to the gold, a symlink to a
    submission, a symlink to a file outside the output folder) are replaced by the outputs;
    their targets keep their bytes (they were overwritten with the board, exit 0)."""
    import os

    small.out.mkdir()
    gold_copy = small.root / "gold"
    shutil.copytree(small.gold_dir, gold_copy)
    small.config.write_text(small.config.read_text().replace(
        json.dumps(str(small.gold_dir)), json.dumps(str(gold_copy))))
    outside = small.root / "outside.txt"
    outside.write_text("kept", "utf-8")
    victim = small.subs / "sample.json"
    targets = {"leaderboard.json": gold_copy / "dialogues_001.json",
               "leaderboard.html": victim, "leaderboard.md": outside}
    before = {name: target.read_bytes() for name, target in targets.items()}
    os.link(targets["leaderboard.json"], small.out / "leaderboard.json")
    (small.out / "leaderboard.html").symlink_to(victim)
    (small.out / "leaderboard.md").symlink_to(outside)
    code, _ = run_counting(small.config, "--output-dir", small.out, "--no-cache")
    assert code == 0
    for name, target in targets.items():
        assert target.read_bytes() == before[name], name
        written = small.out / name
        assert not written.is_symlink() and not os.path.samefile(written, target), name
    assert json.loads((small.out / "leaderboard.json").read_bytes())["rows"]
    assert not list(small.out.glob(".*.tmp"))


def test_an_output_dir_in_the_submissions_folder_is_refused(small):  # noqa: F811 - fixture
    """The outputs in a submissions folder would be read as submissions by the next build
    (and a submission named leaderboard.json overwritten by the board): exit 2, before
    any scoring, nothing written."""
    board_named = small.subs / "leaderboard.json"
    board_named.write_bytes(orjson.dumps(small.files["sample.json"]))
    before = board_named.read_bytes()
    from dst_eval.cli.app import main

    for out in (small.subs, small.subs / "board"):
        code, calls = run_counting(small.config, "--output-dir", out, "--no-cache",
                                   entry=lambda argv: main(["leaderboard", *argv]))
        assert (code, calls) == (2, []), out
    assert board_named.read_bytes() == before
    assert not (small.subs / "board").exists()

