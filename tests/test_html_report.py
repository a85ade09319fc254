"""The HTML pages: ``dst-eval report PRED --html OUT`` and the leaderboard page.

Content checks parse the page's tables and compare them with counts this module computes
itself from predictions it builds by corrupting the gold_samples/multiwoz22 states in known
ways (a wrong value for every ``hotel-type`` and ``restaurant-name``, every
``restaurant-food`` dropped, an extra ``taxi-arriveby`` in DEMO0003). Browser checks
(:mod:`browser`) load the pages in headless Chromium and fail on any error, missing plot
or blank screenshot; they skip without Chromium unless ``DST_EVAL_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from html.parser import HTMLParser
from typing import Any

import orjson
import pytest
from browser import chromium_or_skip, png_size_and_colours, render

import dst_eval.cli.app as cli
from dst_eval.api import evaluate
from dst_eval.corpora import load_gold
from dst_eval.html_report import render_leaderboard_html, render_report_html
from dst_eval.result import Result
from dst_eval.signature import Signature

SCRIPT_VALUE = '<script>alert("x")</script>'
"""A predicted value holding markup: it must show as text, never as markup."""
DEPTH_CAP = 10


# ---- the constructed system and its expected numbers ------------------------------------
def corrupt(dialogue_id: str, state: dict[str, str]) -> dict[str, str]:
    pred = dict(state)
    if "hotel-type" in pred:
        pred["hotel-type"] = "guest house"  # gold: guesthouse
    if "restaurant-name" in pred:
        pred["restaurant-name"] = SCRIPT_VALUE
    pred.pop("restaurant-food", None)
    if dialogue_id.upper().startswith("DEMO0003"):
        pred["taxi-arriveby"] = "12:00"
    return pred


def outcome(pred: dict[str, str], gold: dict[str, tuple[str, ...]], slot: str) -> str:
    if slot not in pred:
        return "missing"
    if slot not in gold:
        return "extra"
    return "correct" if pred[slot] in gold[slot] else "wrong"


@pytest.fixture(scope="module")
def system(gold_samples) -> dict[str, Any]:
    gold = load_gold(gold_samples / "multiwoz22")
    records, rows = [], []
    for dialogue in gold:
        for turn in dialogue.turns:
            pred = corrupt(dialogue.dialogue_id, {k: v[0] for k, v in turn.state.items()})
            assert "guest house" not in turn.state.get("hotel-type", ())
            records.append({"dialogue_id": dialogue.dialogue_id,
                            "turn_index": turn.turn_index, "state": pred})
            rows.append((dialogue.dialogue_id, turn.turn_index, dict(turn.state), pred))
    # expected numbers, counted here from the construction
    per_slot: dict[str, Counter] = defaultdict(Counter)
    confusions: Counter = Counter()
    first_seen: dict[tuple[str, str, str], str] = {}
    depth: dict[int, list[int]] = defaultdict(list)
    domain_turns: dict[str, list[int]] = defaultdict(list)
    for dialogue_id, turn_index, g, p in rows:
        results = {slot: outcome(p, g, slot) for slot in set(g) | set(p)}
        for slot, result in results.items():
            per_slot[slot][result] += 1
            if result == "wrong":
                key = (slot, g[slot][0], p[slot])
                confusions[key] += 1
                first_seen.setdefault(key, f"{dialogue_id} turn {turn_index}")
        depth[min(turn_index, DEPTH_CAP)].append(all(r == "correct" for r in results.values()))
        for domain in {s.partition("-")[0] for s in results}:
            domain_turns[domain].append(all(r == "correct" for s, r in results.items()
                                            if s.startswith(domain + "-")))
    totals = Counter()
    for counts in per_slot.values():
        totals.update(counts)
    return {"gold": gold, "records": records, "per_slot": per_slot, "totals": totals,
            "confusions": confusions, "first_seen": first_seen, "depth": depth,
            "domain_turns": domain_turns, "n_turns": len(rows)}


@pytest.fixture(scope="module")
def report(system):
    return evaluate(system["records"], gold=system["gold"], by=("domain", "slot", "depth"))


@pytest.fixture(scope="module")
def page(report) -> str:
    return render_report_html(report)


def pct(value: float) -> str:
    return f"{100 * value:.2f}"


# ---- parsing the page -------------------------------------------------------------------
class _Tables(HTMLParser):
    """Tables per ``<section id>``: ``{section: [table: [row: [cell text]]]}``."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: dict[str, list[list[list[str]]]] = defaultdict(list)
        self.section = ""
        self.cell: list[str] | None = None
        self.row: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "section":
            self.section = dict(attrs).get("id") or ""
        elif tag == "table":
            self.sections[self.section].append([])
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.sections[self.section][-1].append(self.row)
            self.row = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def tables(html_text: str) -> dict[str, list[list[list[str]]]]:
    parser = _Tables()
    parser.feed(html_text)
    return parser.sections


def keyed(table: list[list[str]]) -> dict[str, dict[str, str]]:
    """Rows keyed by their first cell, cells by the header row."""
    header, *rows = table
    return {row[0]: dict(zip(header, row, strict=True)) for row in rows}


# ---- content --------------------------------------------------------------------------
def test_error_types_match_the_construction(page, system):
    overall, by_domain = tables(page)["errors"]
    counts = {row[0]: int(row[2]) for row in overall[1:]}
    totals = system["totals"]
    assert counts == {k: totals[k] for k in ("correct", "wrong", "missing", "extra")}
    # wrong: 4 hotel-type + 2 restaurant-name; missing: restaurant-food; extra: 3 turns
    assert (counts["wrong"], counts["extra"]) == (6, 3)
    errors = totals["wrong"] + totals["missing"] + totals["extra"]
    assert keyed(overall)["missing"]["% of errors"] == pct(totals["missing"] / errors)
    domains = keyed(by_domain)
    assert domains["taxi"]["extra"] == "3" and domains["hotel"]["wrong"] == "4"


def test_per_slot_table_matches_the_construction(page, system):
    table = keyed(tables(page)["slots"][0])
    assert set(table) == set(system["per_slot"])
    for slot, counts in system["per_slot"].items():
        row = table[slot]
        assert [int(row[k]) for k in ("correct", "wrong", "missing", "extra")] == \
            [counts[k] for k in ("correct", "wrong", "missing", "extra")], slot
        denominator = 2 * counts["correct"] + 2 * counts["wrong"] + counts["missing"] + \
            counts["extra"]
        assert row["slot_f1"] == pct(2 * counts["correct"] / denominator), slot


def test_most_frequent_wrong_values(page, system):
    rows = tables(page)["wrong-values"][0][1:]
    expected = [[slot, gold, pred, str(n), system["first_seen"][(slot, gold, pred)]]
                for (slot, gold, pred), n in system["confusions"].most_common()]
    assert rows == expected
    assert rows[0][:4] == ["hotel-type", "guesthouse", "guest house", "4"]
    assert rows[1][2] == SCRIPT_VALUE  # shown as text


def test_depth_and_domain_tables(page, system):
    sections = tables(page)
    depth = keyed(sections["depth"][0])
    assert {d: (row["joint_goal_accuracy"], row["turns"]) for d, row in depth.items()} == {
        str(d): (pct(sum(v) / len(v)), str(len(v))) for d, v in system["depth"].items()}
    domains = keyed(sections["domains"][0])
    for domain, flags in system["domain_turns"].items():
        assert domains[domain]["joint_goal_accuracy"] == pct(sum(flags) / len(flags)), domain
        assert domains[domain]["turns"] == str(len(flags))


def test_summary_has_signature_and_scores(page, report, system):
    assert f'<code class="sig" id="signature">{report.signature.format()}</code>' in page
    summary = tables(page)["summary"]
    run, scores = keyed([["k", "v"], *summary[0]]), keyed(summary[1])
    assert run["turns"]["v"] == str(system["n_turns"]) and run["profile"]["v"] == "strict"
    n_correct_turns = sum(sum(v) for v in system["depth"].values())
    assert scores["joint_goal_accuracy"]["score"] == pct(n_correct_turns / system["n_turns"])


def test_page_is_self_contained_and_escaped(page):
    assert '<meta http-equiv="Content-Security-Policy" content="default-src \'none\';' in page
    assert "<script" not in page and "<link" not in page and "@import" not in page
    assert re.findall(r"\bsrc\s*=", page) == []
    assert set(re.findall(r"url\((.)", page)) <= {"#"}  # only in-page SVG references
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert len(page.encode()) < 200_000


def test_plots_are_inline_svg_with_unique_ids(page):
    svgs = re.findall(r"<figure class=\"plot\"><svg .*?</svg>", page, re.S)
    assert len(svgs) == 3
    for svg, label in zip(svgs, ("Joint goal accuracy by turn depth", "Errors per slot",
                                 "Most frequent wrong values"), strict=True):
        assert f'aria-label="{label}' in svg
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    references = set(re.findall(r"url\(#([^)]+)\)", page)) | set(
        re.findall(r'xlink:href="#([^"]+)"', page))
    assert references and references <= set(ids)
    # the depth plot shows a bar per depth with its turn count
    assert "n=4" in svgs[0] and "n=3" in svgs[0]


def test_rendering_is_deterministic(report, page):
    assert render_report_html(report) == page


def test_without_matplotlib_the_tables_remain(report, page, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    plain = render_report_html(report)
    assert "<svg" not in plain
    assert '<p class="note" id="no-plots">Plots are omitted: matplotlib is not installed' in plain
    assert tables(plain) == tables(page)


def test_confidence_intervals_in_the_scores_table(system):
    report = evaluate(system["records"], gold=system["gold"], bootstrap=20, seed=7)
    scores = keyed(tables(render_report_html(report))["summary"][1])
    for name, ci in report.extra["confidence_intervals"].items():
        assert scores[name]["95% CI"] == f"[{pct(ci['ci_low'])}, {pct(ci['ci_high'])}]"
        assert scores[name]["μ ± half-width"] == f"{pct(ci['mean'])} ± {pct(ci['half_width'])}"
    assert "|bs:20|seed:7|" in render_report_html(report)


def test_perfect_system_has_no_error_plots(system):
    gold = system["gold"]
    oracle = [{"dialogue_id": d.dialogue_id, "turn_index": t.turn_index,
               "state": {k: v[0] for k, v in t.state.items()}} for d in gold for t in d.turns]
    text = render_report_html(evaluate(oracle, gold=gold, by=("domain", "slot", "depth")))
    assert text.count('<figure class="plot">') == 1  # only the depth plot
    assert "No wrong values." in text
    counts = {row[0]: row[2] for row in tables(text)["errors"][0][1:]}
    assert counts == {"correct": str(sum(len(t.state) for d in gold for t in d.turns)),
                      "wrong": "0", "missing": "0", "extra": "0"}


def test_a_report_without_breakdowns_renders():
    bare = Result(scores={"joint_goal_accuracy": 0.25, "bleu": 17.5},
                  signature=Signature("sgd", "dev", "sgd-official"))
    text = render_report_html(bare)
    # issue 12: the scores table states each row's unit
    assert tables(text)["summary"][1][1:] == [["joint_goal_accuracy", "25.00", "%"],
                                              ["bleu", "17.50", "points"]]
    assert "No per-turn depth information" in text and "No domain breakdown" in text
    assert "<svg" not in text


# ---- command line -----------------------------------------------------------------------
def test_report_command_writes_the_page(tmp_path, system, report, capsys):
    predictions = tmp_path / "system.jsonl"
    predictions.write_bytes(b"\n".join(orjson.dumps(r) for r in system["records"]))
    out = tmp_path / "report.html"
    assert cli.main(["report", str(predictions), "--gold", system["gold"].source,
                     "--html", str(out), "--title", "My <system>"]) == 0
    text = out.read_text(encoding="utf-8")
    assert "<title>My &lt;system&gt;</title>" in text
    assert tables(text)["slots"] == tables(render_report_html(report))["slots"]
    assert f"HTML report written to {out}" in capsys.readouterr().err


def test_report_metrics_without_jga_leave_the_depth_section_out(tmp_path, system, capsys):
    """``report -m slot_f1`` shows only the metrics named: the JGA-by-depth section is left
    out (it used to show n/a in every row, for values that exist, and an empty plot). With
    JGA among ``-m`` the section holds the constructed values."""
    predictions = tmp_path / "system.jsonl"
    predictions.write_bytes(b"\n".join(orjson.dumps(r) for r in system["records"]))
    out = tmp_path / "report.html"
    argv = ["report", str(predictions), "--gold", system["gold"].source, "--html", str(out),
            "-q", "-m"]
    assert cli.main([*argv, "slot_f1"]) == 0
    text = out.read_text(encoding="utf-8")
    assert 'id="depth"' not in text and 'href="#depth"' not in text
    assert "turn depth" not in text and "depth" not in tables(text)
    cells = [c for section in tables(text).values() for t in section for r in t for c in r]
    assert "slot_f1" in cells and "n/a" not in cells
    assert cli.main([*argv, "slot_f1", "joint_goal_accuracy"]) == 0
    depth = keyed(tables(out.read_text(encoding="utf-8"))["depth"][0])
    assert {d: (row["joint_goal_accuracy"], row["turns"]) for d, row in depth.items()} == {
        str(d): (pct(sum(v) / len(v)), str(len(v))) for d, v in system["depth"].items()}


@pytest.mark.parametrize("extra, code, message", [
    ([], 2, "the following arguments are required: --html"),
    (["--html", "{tmp}/missing-dir/x.html"], 2, "does not exist"),
    (["--html", "{tmp}"], 2, "is a directory"),
    (["--html", "{tmp}/x.html", "--profile", "nope"], 2, "unknown profile 'nope'"),
])
def test_report_command_errors_are_one_line(tmp_path, gold_samples, capsys, extra, code,
                                            message):
    argv = ["report", str(gold_samples / "multiwoz22" / "predictions.json"),
            "--gold", str(gold_samples / "multiwoz22")]
    assert cli.main(argv + [a.replace("{tmp}", str(tmp_path)) for a in extra]) == code
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_report_command_rejects_bad_predictions(tmp_path, gold_samples, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli.main(["report", str(bad), "--gold", str(gold_samples / "multiwoz22"),
                     "--html", str(tmp_path / "x.html")]) == 3
    assert not (tmp_path / "x.html").exists()
    assert "\n" not in capsys.readouterr().err.strip()


def test_strict_keeps_slot_outcomes_only_for_the_slot_breakdown(system):
    """The per-slot outcomes are built for ``by=("slot",)`` (the report asks for it), not
    for every run; the scores are the same either way."""
    gold = system["gold"]
    oracle = [{"dialogue_id": d.dialogue_id, "turn_index": t.turn_index,
               "state": {k: v[0] for k, v in t.state.items()}} for d in gold for t in d.turns]
    plain = evaluate(oracle, gold=gold)
    by_slot = evaluate(oracle, gold=gold, by=("slot",))
    assert plain.outcomes == []
    assert plain.scores == by_slot.scores
    # the oracle: one "correct" outcome per gold slot of every turn
    assert len(by_slot.outcomes) == sum(len(t.state) for d in gold for t in d.turns) > 0
    assert {o.outcome for o in by_slot.outcomes} == {"correct"}
    text = render_report_html(plain)
    assert "This run kept no per-slot outcomes" in text
    assert "This profile keeps no per-slot outcomes" not in text


def test_profile_without_depth_breakdown(tmp_path, gold_samples):
    out = tmp_path / "mwzeval.html"
    assert cli.main(["report", str(gold_samples / "multiwoz22" / "predictions.json"),
                     "--gold", str(gold_samples / "multiwoz22"), "--profile", "mwzeval",
                     "--html", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "profile mwzeval has no breakdown by depth" in text
    assert "This profile keeps no per-slot outcomes" in text
    # depth from the profile's per-turn joint_goal_accuracy column
    report = evaluate(gold_samples / "multiwoz22" / "predictions.json",
                      gold=gold_samples / "multiwoz22", profile="mwzeval")
    by_depth: dict[int, list[float]] = defaultdict(list)
    for index, value in zip(report.per_turn["turn_index"],
                            report.per_turn["joint_goal_accuracy"], strict=True):
        by_depth[int(index)].append(float(value))
    depth = keyed(tables(text)["depth"][0])
    assert {d: row["joint_goal_accuracy"] for d, row in depth.items()} == {
        str(d): pct(sum(v) / len(v)) for d, v in by_depth.items()}
    assert "slot:" not in text and "hotel-area" in keyed(tables(text)["slots"][0])


# ---- leaderboard ------------------------------------------------------------------------
LEADERBOARD = {
    "title": "MultiWOZ 2.1 test <DST>",
    "signature": "dst-eval|corpus:multiwoz21|split:test|profile:strict|bs:1000|seed:12345",
    "gold": {"file": "test.json.zip", "sha256": "0123456789abcdef0123"},
    "columns": ["joint_goal_accuracy", "slot_f1"], "ranking_metric": "joint_goal_accuracy",
    "higher_is_better": True,
    "statistics": {"unit": "dialogue", "level": 0.95, "resamples": 1000, "seed": 12345,
                   "alpha": 0.05},
    "rows": [
        {"rank": 1, "rank_interval": [1, 2], "name": "alpha", "authors": "A. Author",
         "paper": "https://example.org/a", "code": "https://example.org/code",
         "model_size": "60M", "description": "a T5 model",
         "scores": {"joint_goal_accuracy": 0.5, "slot_f1": 0.9},
         "ci": {"joint_goal_accuracy": {"ci_low": 0.48, "ci_high": 0.52, "half_width": 0.02},
                "slot_f1": None},
         "leader": True, "p_vs_leader": None, "tied_with_leader": False, "coverage": 1.0,
         "warnings": [], "notes": []},
        {"rank": 2, "rank_interval": [1, 2], "name": "<script>beta</script>", "authors": None,
         "paper": "javascript:alert(1)", "code": None, "model_size": None,
         "scores": {"joint_goal_accuracy": 0.49, "slot_f1": None}, "ci": {},
         "leader": False, "p_vs_leader": 0.31, "tied_with_leader": True, "coverage": 0.5,
         "warnings": ["unknown slot x", "unknown slot y"], "notes": []},
        {"rank": 3, "name": "gamma", "joint_goal_accuracy": 0.3, "slot_f1": 0.8,
         "ci": {"joint_goal_accuracy": {"ci_low": 0.28, "ci_high": 0.33}},
         "p_vs_leader": 0.001, "tied_with_leader": False, "notes": ["no requested slots"]},
        {"rank": None, "name": "delta", "scores": {"joint_goal_accuracy": None,
                                                   "slot_f1": None},
         "ci": {}, "tied_with_leader": False, "notes": ["no states predicted"]},
    ],
    "invalid": [{"file": "broken.json", "reason": "not JSON: unexpected character"}],
    "notes": ["a note"],
}


def test_leaderboard_page():
    text = render_leaderboard_html(LEADERBOARD)
    assert text == render_leaderboard_html(LEADERBOARD)
    assert "<title>MultiWOZ 2.1 test &lt;DST&gt;</title>" in text
    assert "sha256 <code>0123456789ab</code>" in text and LEADERBOARD["signature"] in text
    assert "from 1000 bootstrap resamples of whole dialogues (seed 12345)" in text
    board, invalid = tables(text)[""]
    assert board[0] == ["rank", "system", "authors", "links", "size", "coverage",
                        "joint_goal_accuracy", "slot_f1", "p vs #1"]
    assert board[1] == ["11–2", "alphaa T5 model", "A. Author", "paper · code", "60M",
                        "100.00", "50.00[48.00, 52.00]", "90.00", "leader"]
    assert board[2] == ["2†1–2", "<script>beta</script>", "", "", "", "50.00", "49.00", "n/a",
                        "0.3100"]
    assert board[3] == ["3", "gamma", "", "", "", "n/a", "30.00[28.00, 33.00]", "80.00",
                        "0.0010"]
    assert board[4][:2] == ["–", "delta"]
    notes = re.findall(r"<li>(.*?)</li>", text)
    assert notes == ["a note", "<b>&lt;script&gt;beta&lt;/script&gt;</b>: <span class=\"warning\">"
                     "2 warning(s), listed in leaderboard.json</span>",
                     "<b>gamma</b>: no requested slots", "<b>delta</b>: no states predicted"]
    assert invalid == [["file", "reason"], ["broken.json", "not JSON: unexpected character"]]
    assert '<a href="https://example.org/a" rel="noopener noreferrer">paper</a>' in text
    assert "javascript:" not in text and "<script" not in text
    assert text.count("<svg") == 1 and 'aria-label="joint_goal_accuracy per system' in text
    bare = render_leaderboard_html({**LEADERBOARD, "rows": [
        {k: v for k, v in row.items() if k not in ("authors", "paper", "code", "model_size")}
        for row in LEADERBOARD["rows"]]})
    assert tables(bare)[""][0][0][:3] == ["rank", "system", "coverage"]  # empty columns go
    # the plot: 3 systems with a score, 2 of them with an interval
    svg = text[text.index("<svg"):text.index("</svg>")]
    assert svg.count("&lt;script&gt;beta&lt;/script&gt;") == 1 and ">delta<" not in svg


def test_leaderboard_page_without_matplotlib(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    text = render_leaderboard_html(LEADERBOARD)
    assert "<svg" not in text and 'id="no-plots"' in text


# ---- in a browser -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def chromium() -> str:
    return chromium_or_skip()


def assert_clean(run, *, plots: int, title: str) -> None:
    probe = run.probe
    assert probe["loaded"], f"the page did not finish loading: {run.stderr[-1500:]}"
    assert probe["errors"] == [], probe["errors"]
    assert run.console == [], run.console
    assert probe["title"] == title
    assert len(probe["plots"]) == plots
    for plot in probe["plots"]:
        assert plot["width"] > 300 and plot["height"] > 100, plot
        assert plot["texts"] >= 5 and plot["shapes"] >= 5, plot
    assert probe["scrollWidth"] <= probe["innerWidth"], "the page scrolls sideways"
    width, height, colours = png_size_and_colours(run.screenshot)
    assert (width, height) == (1280, 2000) and colours > 32
    text = probe["text"]  # what a reader sees: no raw Python structure, units stated
    assert not re.search(r"[{\[]\s*'", text), "a raw dict or list is shown"
    assert "Units:" in text


def test_report_page_in_chromium(chromium, page, tmp_path):
    run = render(chromium, page, tmp_path, name="report")
    assert_clean(run, plots=3, title="dst-eval report: <memory>")
    assert run.probe["sections"] == ["summary", "depth", "domains", "errors", "slots",
                                     "wrong-values", "issues"]


def test_mwzeval_counts_and_responses_in_chromium(chromium, gold_samples, tmp_path):
    """Counts are not scaled as percentages (issue 9 §6: mwzeval's tp/fp/fn) and nested
    counts (``responses``) are a table, in the rendered page."""
    sample = gold_samples / "multiwoz22"
    report = evaluate(sample / "predictions.json", gold=sample, profile="mwzeval",
                      by=("domain",))
    run = render(chromium, render_report_html(report), tmp_path, name="mwzeval")
    assert_clean(run, plots=run.probe.get("plots") and len(run.probe["plots"]) or 0,
                 title="dst-eval report: predictions.json")
    lines = run.probe["text"].splitlines()
    assert any(re.fullmatch(r"hotel\s+100\.00\s+95\.83\s+97\.87\s+23\s+0\s+1", line.strip())
               for line in lines), [line for line in lines if "hotel" in line]
    jmwz = gold_samples / "jmultiwoz"
    report = evaluate(jmwz / "predictions.json", gold=jmwz, split="test")
    run = render(chromium, render_report_html(report), tmp_path, name="responses")
    assert_clean(run, plots=len(run.probe.get("plots") or []),
                 title="dst-eval report: predictions.json")
    assert any(re.fullmatch(r"scored_turns\s+12", line.strip())
               for line in run.probe["text"].splitlines())


def test_leaderboard_page_in_chromium(chromium, tmp_path):
    run = render(chromium, render_leaderboard_html(LEADERBOARD), tmp_path, name="leaderboard")
    assert_clean(run, plots=1, title="MultiWOZ 2.1 test <DST>")


def test_browser_check_catches_errors(chromium, page, tmp_path):
    """Negative controls: the checks above can fail."""
    broken = page.replace("<main>", '<main><img src="https://example.org/x.png">', 1)
    run = render(chromium, broken, tmp_path, name="blocked")
    assert any("CSP violation: img-src" in e for e in run.probe["errors"])
    assert any("example.org/x.png" in line for line in run.console)
    scripted = ("<!DOCTYPE html><html><head><title>t</title></head><body><p>x</p>"
                "<script>console.error('boom'); undefinedFunction();</script></body></html>")
    run = render(chromium, scripted, tmp_path, name="scripted")
    assert "console.error: boom" in run.probe["errors"]
    assert any(e.startswith("uncaught:") and "undefinedFunction" in e
               for e in run.probe["errors"])
    assert any("Uncaught" in line for line in run.console)


# ---- a real test set --------------------------------------------------------------------
@pytest.fixture(scope="module")
def multiwoz_test_page(shared_dir, mwz21_test_gold) -> tuple[str, Any]:
    gold = mwz21_test_gold  # conftest: load_gold(test.json.zip, split="test"), loaded once
    predictions = shared_dir / "reference" / "mwzeval" / "predictions" / "pptod.json"
    report = evaluate(predictions, gold=gold, by=("domain", "slot", "depth"))
    return render_report_html(report), gold


def test_multiwoz_test_report_is_small_and_complete(multiwoz_test_page):
    text, gold = multiwoz_test_page
    assert len(text.encode()) < 1_000_000
    sections = tables(text)
    depth_turns = sum(int(row["turns"]) for row in keyed(sections["depth"][0]).values())
    assert depth_turns == gold.n_turns
    assert set(keyed(sections["slots"][0])) >= set(gold.slots) - {"hospital-department"}
    assert text.count('<figure class="plot"><svg') == 3


def test_multiwoz_test_report_in_chromium(chromium, multiwoz_test_page, tmp_path):
    run = render(chromium, multiwoz_test_page[0], tmp_path, name="pptod")
    assert_clean(run, plots=3, title="dst-eval report: pptod.json")


def test_report_html_dash_is_standard_output(tmp_path, gold_samples, capsys, monkeypatch):
    """``report --html -`` writes the page to standard output, as ``-o -`` does; it wrote
    a file named ``-`` in the current folder."""
    monkeypatch.chdir(tmp_path)
    folder = gold_samples / "multiwoz22"
    assert cli.main(["report", str(folder / "predictions.json"), "--gold", str(folder),
                     "--html", "-", "-q"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")
    assert not (tmp_path / "-").exists()
