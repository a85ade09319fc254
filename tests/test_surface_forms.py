"""The surface-form diagnostic on MultiWOZ 2.1 test: counts by construction, scores unchanged.

The gold is fed back with four planted surface changes, each counted while planting:
``guesthouse`` -> ``guest house`` (inner whitespace), ``07:15`` -> ``7:15`` (mwzeval's
time table), an upper-case price range (case), ``chinese`` -> ``chinese.`` (punctuation).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

from dst_eval import evaluate
from dst_eval.corpora import load_gold
from dst_eval.surface import clock

TEST_ZIP = "corpora/multiwoz21/test.json.zip"


@pytest.fixture(scope="module")
def planted(shared_dir):
    gold = load_gold(shared_dir / TEST_ZIP, corpus="multiwoz21")
    planted: Counter = Counter()
    bad_turns = 0
    preds = {}
    for dialogue in gold.dialogues:
        turns = []
        for turn in dialogue.turns:
            state, bad = {}, False
            for key, variants in turn.state.items():
                value = variants[0]
                if key == "hotel-type" and value == "guesthouse":
                    value, kind = "guest house", "inner whitespace"
                elif key.endswith("leaveat") and len(value) == 5 and value.startswith("0"):
                    value, kind = value[1:], "spelling/time"
                elif key.endswith("pricerange") and value.islower():
                    value, kind = value.upper(), "case/whitespace"
                elif key == "restaurant-food" and value.isalpha():
                    value, kind = value + ".", "punctuation"
                else:
                    kind = None
                if kind:
                    planted[kind] += 1
                    bad = bad or kind != "case/whitespace"
                state[key] = value
            bad_turns += bad
            turns.append({"state": state})
        preds[dialogue.dialogue_id] = turns
    assert all(planted[k] > 50 for k in ("inner whitespace", "spelling/time",
                                         "case/whitespace", "punctuation")), planted
    return gold, preds, planted, bad_turns


def _warnings(result):
    return [i for i in result.issues if i.kind == "surface-forms"]


def test_strict_counts_each_class_and_keeps_the_score(planted):
    gold, preds, counts, bad_turns = planted
    result = evaluate(preds, gold=gold)
    n = result.counts["turns"]
    assert result.scores["joint_goal_accuracy"] == pytest.approx(1 - bad_turns / n, abs=1e-12)
    (warning,) = _warnings(result)
    text = str(warning)
    assert "\n" not in text and "scores are unchanged" in text
    total = counts["inner whitespace"] + counts["spelling/time"] + counts["punctuation"]
    assert text.startswith(f"{total} value(s) the strict profile scores as wrong")
    assert f"{counts['inner whitespace']} inner whitespace (--norm basic+despace)" in text
    assert f"{counts['spelling/time']} spelling/time (--profile mwzeval)" in text
    assert f"{counts['punctuation']} punctuation (no dst-eval profile)" in text
    assert "case/whitespace" not in text  # the strict profile's basic policy accepts these


def test_exact_norm_names_basic_and_mwzeval_accepts_its_tables(planted):
    gold, preds, counts, _ = planted
    exact = str(_warnings(evaluate(preds, gold=gold, norm="exact"))[0])
    assert f"{counts['case/whitespace']} case/whitespace (--norm basic)" in exact
    mwzeval = evaluate(preds, gold=gold, profile="mwzeval")
    text = str(_warnings(mwzeval)[0])
    assert "spelling/time" not in text and "inner whitespace" not in text
    assert f"{counts['case/whitespace']} case/whitespace" in text  # mwzeval is case-sensitive


def test_an_oracle_has_no_warning_and_the_cli_prints_one_line(planted, shared_dir, tmp_path):
    gold, preds, _, _ = planted
    oracle = {d.dialogue_id: [{"state": {k: v[0] for k, v in t.state.items()}}
                              for t in d.turns] for d in gold.dialogues}
    assert not _warnings(evaluate(oracle, gold=gold))
    path = tmp_path / "p.json"
    path.write_text(json.dumps(preds), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "dst_eval", str(path), "--gold",
                          str(shared_dir / TEST_ZIP), "--no-report"],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    lines = [ln for ln in (run.stdout + run.stderr).splitlines() if "broader normalisation" in ln]
    assert len(lines) == 1 and lines[0].startswith("warning:")


def test_only_multiwoz_brings_its_own_comparison():
    """The corpus folder's ``surface`` module adds its classes; the others add none."""
    from dst_eval.config import corpus_config

    classes = {name: [cls for cls, _ in corpus_config(name).surface_tests()]
               for name in ("multiwoz21", "multiwoz22", "sgd", "crosswoz", "risawoz",
                            "jmultiwoz")}
    assert classes == {"multiwoz21": ["spelling/time"], "multiwoz22": ["spelling/time"],
                       "sgd": [], "crosswoz": [], "risawoz": [], "jmultiwoz": []}
    [(_, normalise)] = corpus_config("multiwoz21").surface_tests()
    assert normalise("hotel-type", "guest house") == normalise("hotel-type", "guesthouse")


@pytest.mark.parametrize(("text", "expected"), [
    ("7:00", "07:00"), ("07.00", "07:00"), ("7 pm", "19:00"), ("12 am", "00:00"),
    ("7.30a.m.", "07:30"), ("19:45", "19:45"), ("7", None), ("25:00", None), ("13 pm", None),
    ("north", None)])
def test_clock_times(text, expected):
    assert clock(text) == expected


def test_turns_sharing_state_objects_count_like_copies():
    """Readers share a state object while it does not change; a turn whose gold and
    predicted states are the previous turn's objects counts again (3 turns x 2 values)."""
    from types import SimpleNamespace

    from dst_eval.config import corpus_config
    from dst_eval.surface import count

    gold_state = {"hotel-type": ("guesthouse",), "hotel-area": ("north",)}
    pred_state = {"hotel-type": "guest house", "hotel-area": "North."}
    shared = [(SimpleNamespace(state=gold_state), SimpleNamespace(state=pred_state))] * 3
    copied = [(SimpleNamespace(state=dict(gold_state)), SimpleNamespace(state=dict(pred_state)))
              for _ in range(3)]
    options = {"corpus_tests": corpus_config("multiwoz21").surface_tests(),
               "accepted": frozenset(), "is_unset": lambda _v: False}
    expected = Counter({"inner whitespace": 3, "punctuation": 3})
    assert count(SimpleNamespace(pairs=shared), **options) == expected
    assert count(SimpleNamespace(pairs=copied), **options) == expected
    # a changed gold object in the middle is looked at again, not copied from the previous
    changed = [shared[0], (SimpleNamespace(state={"hotel-type": ("guest house",)}),
                           shared[0][1]), shared[0]]
    assert count(SimpleNamespace(pairs=changed), **options) == Counter(
        {"inner whitespace": 2, "punctuation": 2})


def test_values_right_under_the_runs_policy_are_not_counted(planted):
    """What the run's ``--norm`` makes equal to a gold variant is right, whatever rules
    achieve it: with ``despace`` (no case rule) ``guest house`` is right and the upper-case
    price ranges stay wrong (case/whitespace); with ``basic+despace`` both are right. Only
    ``strip``/``lower``/``despace`` combinations used to be recognised: ``despace`` alone
    (RiSAWOZ's policy) and ``nfkc`` (CrossWOZ, JMultiWOZ) reported right values as wrong."""
    gold, preds, counts, _ = planted
    despace = evaluate(preds, gold=gold, norm="despace")
    text = str(_warnings(despace)[0])
    assert "inner whitespace" not in text
    assert f"{counts['case/whitespace']} case/whitespace (--norm basic)" in text
    both = str(_warnings(evaluate(preds, gold=gold, norm="basic+despace"))[0])
    assert "inner whitespace" not in both and "case/whitespace" not in both
    assert f"{counts['punctuation']} punctuation" in both


@pytest.mark.parametrize("corpus", ["crosswoz", "jmultiwoz", "risawoz"])
def test_cjk_samples_values_their_policy_accepts_are_not_counted(corpus):
    """The gold samples' READMEs count their width (NFKC: CrossWOZ, JMultiWOZ) and
    whitespace (despace: RiSAWOZ) variants as right under the default policy; the
    diagnostic said they were scored as wrong. Each such value is right by the policy's
    own normaliser, so no surface-form warning is due."""
    from pathlib import Path

    from dst_eval.metrics.normalization import Normalizer

    from dst_eval.config import corpus_config

    sample = Path(__file__).resolve().parents[1] / "gold_samples" / corpus
    result = evaluate(sample / "predictions.json", gold=sample, split="test"
                      if corpus != "risawoz" else None)
    assert not _warnings(result)
    norm = Normalizer(corpus_config(corpus).normalisation)
    differing = [(k, v, g.state[k]) for g, p in result.turns if p is not None and p.state
                 for k, v in p.state.items() if k in g.state and v not in g.state[k]]
    assert differing  # the sample does hold values that differ from the gold as written
    assert any(norm(k, v) in norm.variants(k, variants) for k, v, variants in differing)


def test_advice_names_what_accepts_the_values(tmp_path):
    """The advice must work: a width variant (``（`` vs ``(``) is named ``width`` with the
    ``--norm`` that accepts it (it was 'punctuation (no dst-eval profile)'), and a profile
    that takes no ``--norm`` (trade) is told to use strict with it (it was told '--norm
    basic', which trade ignores). Following the advice removes the class from the warning."""
    from pathlib import Path

    samples = Path(__file__).resolve().parents[1] / "gold_samples"
    jmultiwoz = samples / "jmultiwoz"
    exact = evaluate(jmultiwoz / "predictions.json", gold=jmultiwoz, split="test", norm="exact")
    assert "1 width (--norm nfkc+basic)" in str(_warnings(exact)[0])
    advised = evaluate(jmultiwoz / "predictions.json", gold=jmultiwoz, split="test",
                       norm="nfkc+basic")
    assert not any("width" in str(w) for w in _warnings(advised))
    crosswoz = samples / "crosswoz"
    trade = str(_warnings(evaluate(crosswoz / "predictions.json", gold=crosswoz,
                                   profile="trade"))[0])
    assert "(--profile strict --norm basic)" in trade and "(--norm basic)" not in trade
    assert "width (--profile strict --norm nfkc+basic)" in trade and "punctuation" not in trade


@pytest.mark.parametrize("options", [
    {}, {"norm": "exact"}, {"norm": "nfkc+basic"}, {"missing": "empty"},
    {"missing": "empty", "norm": "exact"}, {"dontcare": "ignore", "norm": "exact"},
    {"missing": "skip"},
])
def test_strict_rows_count_what_every_turn_counts(planted, monkeypatch, options):
    """Under strict the diagnostic looks only at the turns the profile scored with a wrong
    value or as not predicted (``surface.strict_rows``); the counts equal those of looking
    at every turn. The planted values, plus: dialogues left out, a turn whose every value
    is wrong, a dontcare spelled apart and a value repeated under two spellings whose first
    is unset."""
    from dst_eval import surface

    gold, preds, _, _ = planted
    preds = {d: [dict(t) for t in turns] for i, (d, turns) in enumerate(preds.items())
             if i % 9}
    first = next(iter(preds))
    preds[first][0] = {"state": {k: v.upper() + " " for k, v in preds[first][0]["state"].items()}}
    turn = preds[first][-1]["state"] = dict(preds[first][-1]["state"])
    key = next(iter(turn))
    turn.update({key: "none", key.replace("-", "-", 1).upper(): "do n't care"})
    counted: list[tuple] = []
    count = surface.count

    def both(alignment, **kwargs):
        rows = kwargs.pop("rows")
        counted.append((count(alignment, rows=rows, **kwargs),
                        count(alignment, rows=None, **kwargs), rows))
        return counted[-1][0]

    monkeypatch.setattr(surface, "count", both)
    evaluate(preds, gold=gold, min_coverage=0, **options)
    ((restricted, everything, rows),) = counted
    assert restricted == everything and sum(everything.values()) > 100
    looked_at_all = rows is None
    assert looked_at_all == (options.get("dontcare") == "ignore"
                             or options.get("missing") == "skip")
