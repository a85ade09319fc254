"""Strings from the input data (gold service and domain names inside metric names, file
names) are escaped for every output format by :mod:`dst_eval.escape`, as breakdown group
names and issue lines are; plain text is aligned by display width."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from dst_eval.cli.app import main

ROOT = Path(__file__).resolve().parent.parent
MWZ22 = ROOT / "gold_samples" / "multiwoz22"
SGD = ROOT / "gold_samples" / "sgd"
HOSTILE = "ta|x<b>i\x1b[31m`"
"""A gold service name: a table pipe, HTML, an ESC and a backtick."""


def run(capsys, *argv: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _renamed(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [_renamed(v, old, new) for v in value]
    if isinstance(value, dict):
        return {_renamed(k, old, new): _renamed(v, old, new) for k, v in value.items()}
    return value


@pytest.fixture
def hostile_service(tmp_path) -> list[str]:
    """The SGD sample gold with the service ``Cafes_1`` renamed to :data:`HOSTILE` (its
    domain, having no ``_``), and oracle predictions (every domain's joint goal accuracy is
    100.00 %). (MultiWOZ 2.2 gold holds MultiWOZ 2.2's services only.)"""
    from helpers import oracle_predictions

    from dst_eval.corpora import load_gold

    for name in ("dialogues_001.json", "schema.json"):
        data = json.loads((SGD / name).read_text(encoding="utf-8"))
        (tmp_path / name).write_text(json.dumps(_renamed(data, "Cafes_1", HOSTILE)),
                                     encoding="utf-8")
    gold = load_gold(tmp_path / "dialogues_001.json", corpus="sgd")
    (tmp_path / "predictions.json").write_text(json.dumps(oracle_predictions(gold)),
                                               encoding="utf-8")
    return [str(tmp_path / "predictions.json"), "--gold", str(tmp_path / "dialogues_001.json"),
            "--corpus", "sgd", "-q"]


def test_a_gold_service_name_in_a_metric_name_is_escaped_in_markdown(capsys, hostile_service):
    expected = "100.00"
    code, out, _ = run(capsys, *hostile_service, "-f", "markdown")
    assert code == 0 and "\x1b" not in out
    [row] = [line for line in out.splitlines() if "domain_joint_goal_accuracy:ta" in line]
    # written by hand: pipe, angle brackets, backtick and [ backslash-escaped, ESC shown
    assert row == (f"| domain_joint_goal_accuracy:ta\\|x\\<b\\>i\\\\x1b\\[31m\\` | {expected} "
                   "| % |")
    # a Markdown renderer sees three cells: the name, the score under "score", the unit
    page = MarkdownIt("commonmark").enable("table").render(out)
    cells = re.findall(r"<tr>\s*<td>(.*?)</td>\s*<td[^>]*>(.*?)</td>\s*<td>(.*?)</td>", page,
                       re.S)
    [(name, score, unit)] = [c for c in cells if c[0].startswith("domain_joint_goal_accuracy:ta")]
    assert (name, score, unit) == (
        "domain_joint_goal_accuracy:ta|x&lt;b&gt;i\\x1b[31m`", expected, "%")
    assert "<b>" not in page


def test_a_gold_service_name_in_a_metric_name_is_one_line_in_text_and_rich(capsys,
                                                                           hostile_service):
    from rich.console import Console

    from dst_eval import evaluate
    from dst_eval.report import render

    expected = "100.00"
    code, out, _ = run(capsys, *hostile_service, "-f", "text")
    assert code == 0 and "\x1b" not in out
    [line] = [x for x in out.splitlines() if "accuracy:ta|x" in x]
    assert line.split() == ["domain_joint_goal_accuracy:ta|x<b>i\\x1b[31m`", expected, "%"]
    # the rich table: no raw ESC from the name (a plain console writes no styles at all)
    preds, _, gold, _, corpus, _ = hostile_service
    result = evaluate(preds, gold=gold, corpus=corpus)
    console = Console(file=io.StringIO(), width=200, force_terminal=False, color_system=None)
    render(result, console)
    table = console.file.getvalue()
    assert "\x1b" not in table
    [line] = [x for x in table.splitlines() if "accuracy:ta|x" in x]
    assert "domain_joint_goal_accuracy:ta|x<b>i\\x1b[31m`" in line and expected in line


# ---- file names in compare and validate ------------------------------------------------
HTML_NAME = "sys|<img src=x onerror=alert(1)>.json"
CONTROL_NAME = "sys\x1b[31mRED\nX.json"


def _copy_sample(tmp_path: Path, name: str) -> str:
    path = tmp_path / name
    path.write_bytes((MWZ22 / "predictions.json").read_bytes())
    return str(path)


def test_compare_markdown_escapes_file_names(capsys, tmp_path):
    system = _copy_sample(tmp_path, HTML_NAME)
    code, out, _ = run(capsys, "compare", MWZ22 / "predictions.json", system, "--gold", MWZ22,
                       "--n", 20, "-m", "joint_goal_accuracy", "-f", "markdown", "-q")
    assert code == 0
    page = MarkdownIt("commonmark").enable("table").render(out)
    assert "<img" not in page
    header = re.findall(r"<th[^>]*>(.*?)</th>", page)
    assert header == ["metric", "predictions.json (baseline)",
                      "sys|&lt;img src=x onerror=alert(1)&gt;.json", "Δ", "p (bs)"]
    assert len(re.findall(r"<td[^>]*>", page)) == len(header)  # one metric row, 5 cells


def test_compare_text_and_rich_and_validate_show_control_characters_escaped(capsys,
                                                                            tmp_path):
    from rich.console import Console

    from dst_eval.significance import render_comparison

    system = _copy_sample(tmp_path, CONTROL_NAME)
    shown = "sys\\x1b[31mRED\\nX.json"
    argv = ["compare", MWZ22 / "predictions.json", system, "--gold", MWZ22, "--n", 20,
            "-m", "joint_goal_accuracy", "-q"]
    code, out, _ = run(capsys, *argv)  # not a terminal: plain text
    assert code == 0 and "\x1b" not in out
    [header] = [line for line in out.splitlines() if line.startswith("metric")]
    assert header.split() == ["metric", "predictions.json", "(baseline)", shown, "Δ", "p",
                              "(bs)"]
    code, out, _ = run(capsys, *argv, "-f", "json")
    result = json.loads(out)
    assert result["systems"][1]["name"] == system  # JSON escapes on its own
    console = Console(file=io.StringIO(), width=250, force_terminal=False, color_system=None)
    render_comparison(result, console)
    table = console.file.getvalue()
    assert "\x1b" not in table and shown in table
    # validate's summary line names the file on one line
    code, out, _ = run(capsys, "validate", system, "--gold", MWZ22)
    assert code == 0 and "\x1b" not in out
    assert out.splitlines()[0].startswith(f"{tmp_path}/{shown}: mwzeval format, 4 dialogues")


# ---- the HTML report ---------------------------------------------------------------------
def test_html_report_shows_control_and_bidi_characters_escaped(tmp_path):
    from dst_eval.api import evaluate
    from dst_eval.html_report import render_report_html

    value = "X\x1b[31mY\u202eZ\x00W"
    preds = json.loads((MWZ22 / "predictions.json").read_text(encoding="utf-8"))
    for turn in preds["demo0001"]:
        turn["state"]["restaurant"]["area"] = value  # a wrong value in every turn
    path = tmp_path / "preds.json"
    path.write_text(json.dumps(preds), encoding="utf-8")
    result = evaluate(path, gold=MWZ22, by=("domain", "slot", "depth"))
    page = render_report_html(result, title="t\u202eitle\x07")
    for raw in ("\x1b", "\u202e", "\x00", "\x07"):
        assert raw not in page
    shown = "x\\x1b[31my\\u202ez\\x00w"  # normalised (lower case), then escaped
    assert f"<td>centre</td><td>{shown}</td>" in page  # the most frequent wrong values
    if "<svg" in page:  # the plot's label (matplotlib installed)
        assert f"restaurant-area: centre → {shown}</text>" in page
    assert "<title>t\\u202eitle\\x07</title>" in page


# ---- non-UTF-8 file names ----------------------------------------------------------------
def test_non_utf8_file_names_are_written_escaped_in_every_format(capsys, tmp_path):
    """A file name with byte 0xff (legal on Linux) is ``p\\udcff.json`` to Python
    (os.fsdecode); JSON, --report, -o, report --html, --title and compare show that byte
    as the text ``\\udcff`` instead of failing with an internal error."""
    preds = tmp_path / "p\udcff.json"  # on disk: b"p\xff.json"
    preds.write_bytes((MWZ22 / "predictions.json").read_bytes())
    assert b"p\xff.json" in os.listdir(os.fsencode(tmp_path))
    shown = f"{tmp_path}/p\\udcff.json"
    code, out, _ = run(capsys, preds, "--gold", MWZ22, "-f", "json", "-q")
    assert code == 0 and json.loads(out)["predictions"] == shown
    code, _, _ = run(capsys, preds, "--gold", MWZ22, "--report", tmp_path / "r.json", "-q")
    assert code == 0
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["predictions"] == shown
    # a gold folder with byte 0xfe
    gold = tmp_path / "g\udcfe"
    gold.mkdir()
    for name in ("dialogues_001.json", "schema.json"):
        (gold / name).write_bytes((MWZ22 / name).read_bytes())
    code, out, _ = run(capsys, MWZ22 / "predictions.json", "--gold", gold, "-f", "json", "-q")
    assert code == 0 and json.loads(out)["gold"] == f"{tmp_path}/g\\udcfe"
    # the HTML report, its --title
    code, _, _ = run(capsys, "report", preds, "--gold", MWZ22, "--html", tmp_path / "r.html",
                     "--title", "t\udcff", "-q")
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert code == 0 and "<title>t\\udcff</title>" in page
    # -o of text whose warning names the file (a missing dialogue)
    data = json.loads((MWZ22 / "predictions.json").read_text(encoding="utf-8"))
    del data["demo0004"]
    partial = tmp_path / "q\udcff.json"
    partial.write_text(json.dumps(data), encoding="utf-8")
    code, _, _ = run(capsys, partial, "--gold", MWZ22, "-f", "text", "-o", tmp_path / "o.txt",
                     "-q")
    text = (tmp_path / "o.txt").read_text(encoding="utf-8")
    assert code == 0 and f"warning: {tmp_path}/q\\udcff.json: 1 of 4 gold dialogues" in text
    # compare's JSON
    code, out, _ = run(capsys, "compare", preds, MWZ22 / "predictions.json", "--gold", MWZ22,
                       "--n", 20, "-f", "json", "-q")
    assert code == 0 and json.loads(out)["systems"][0]["name"] == shown


# ---- plain text alignment ----------------------------------------------------------------
def _end_column(line: str, pattern: str) -> int:
    """The display column (rich's cell_len, the reference) where ``pattern`` ends."""
    from rich.cells import cell_len

    return cell_len(line[:re.search(pattern, line).end()])


def test_plain_text_pads_cjk_cells_by_display_width(capsys, tmp_path):
    from rich.cells import cell_len

    risawoz = ROOT / "gold_samples" / "risawoz"
    code, out, _ = run(capsys, risawoz / "predictions.json", "--gold", risawoz, "--by",
                       "domain", "-q", "-m", "joint_goal_accuracy", "-f", "text")
    lines = out.splitlines()
    rows = [line for line in lines if line.startswith("domain:")]
    assert code == 0 and len(rows) == 4 and any(cell_len(r) != len(r) for r in rows)
    # right-aligned scores and counts end in the header's columns, on screen
    header = next(line for line in lines if line.startswith("group "))
    assert {_end_column(r, r"^\S+\s+\S+") for r in rows} == {
        _end_column(header, r"joint_goal_accuracy \(%\)")}
    assert {cell_len(r) for r in rows} == {cell_len(header)}
    # compare's plain text: a CJK file name in the header
    system = _copy_sample(tmp_path, "系统.json")
    code, out, _ = run(capsys, "compare", MWZ22 / "predictions.json", system, "--gold", MWZ22,
                       "--n", 20, "-m", "joint_goal_accuracy", "slot_f1", "-q")
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("metric"))
    body = [line for line in lines if line.startswith(("joint_goal_accuracy ", "slot_f1 "))]
    assert code == 0 and len(body) == 2
    # the Δ column and the p column end where the header's do
    assert {_end_column(r, r"[+-]\d+\.\d\d(?=\s+\S+$)") for r in body} == {
        _end_column(header, "Δ")}
    assert {cell_len(r) for r in body} == {cell_len(header)}
