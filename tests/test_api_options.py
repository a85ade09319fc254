"""One options object, one result: ``EvalOptions`` validation (exit 2 before any work),
``evaluate(..., **overrides)`` equal to an options object, the CLI's JSON equal to
``evaluate()``'s result, ``python -m dst_eval``, and the CLI's import budget."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from helpers import oracle_predictions

from dst_eval import __version__, evaluate
from dst_eval.cli.app import main
from dst_eval.corpora import applicable, load_gold
from dst_eval.errors import UsageError
from dst_eval.options import MAX_BOOTSTRAP, EvalOptions, known_metric
from dst_eval.profiles import PROFILES
from dst_eval.result import Result

SAMPLES = Path(__file__).resolve().parent.parent / "gold_samples"
MWZ22 = SAMPLES / "multiwoz22"
PREDICTIONS = MWZ22 / "predictions.json"

BAD_OPTIONS = [
    (["--norm", "bogus"], "--norm"),
    (["--norm", "+"], "--norm"),
    (["--norm", "basic+"], "--norm"),
    (["--seed", "abc"], "--seed"),
    (["--seed", "-1"], "--seed"),
    (["--seed", "1.5"], "--seed"),
    (["--bootstrap", str(10**12)], "--bootstrap"),
    (["--bootstrap", str(MAX_BOOTSTRAP + 1)], "--bootstrap"),
    (["--bootstrap", "1"], "--bootstrap"),
    (["--bootstrap", "-5"], "--bootstrap"),
    (["--bootstrap", "many"], "--bootstrap"),
    (["--bootstrap", "\uff15\uff10"], "--bootstrap"),  # full-width digits: int() reads 50
    (["--bootstrap", "5_0"], "--bootstrap"),
    (["--seed", "\uff17"], "--seed"),
    (["--metrics", ""], "metrics"),
    (["--min-coverage", "\uff10.\uff19"], "--min-coverage"),  # full-width: float() reads 0.9
    (["--min-coverage", "0_5"], "--min-coverage '0_5'"),
    (["--metrics", "joint_goal_accuracy,nope"], "--metrics"),
    (["--missing", "zero"], "--missing"),
    (["--by", "domain,colour"], "--by"),
    (["--dontcare", "maybe"], "--dontcare"),
    (["--mwzeval-rules", "abc1234"], "--mwzeval-rules"),
    (["--profile", "nope"], "--profile"),
    (["--pred-format", "xml"], "--pred-format"),
    (["--corpus", "atis"], "--corpus"),
    (["--db", "/nonexistent/db"], "--db"),
    (["--goals", "/nonexistent/data.json"], "--goals"),
    (["--profile", "mwzeval", "--by", "domain,depth"], "--by depth"),
    (["--profile", "trade", "--by", "domain"], "--by domain"),
    (["--profile", "official", "--corpus", "multiwoz22"], "--profile"),
    (["--profile", "mwzeval", "--bootstrap", "100"], "--bootstrap"),
    (["--profile", "convlab", "--bootstrap", "100"], "--bootstrap"),
    (["--output", "/nonexistent/dir/out.json"], "--output"),
    (["--format", "table", "--report", "/nonexistent/dir/r.json"], "--report"),
]


@pytest.mark.parametrize("extra, flag", BAD_OPTIONS)
def test_bad_option_is_a_one_line_usage_error_before_any_work(tmp_path, capsys, extra, flag):
    # the gold path does not exist: had anything been loaded, the error would be exit 4
    missing_gold = str(tmp_path / "no-such-gold")
    code = main([str(PREDICTIONS), "--gold", missing_gold, "--format", "json", *extra])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("dst-eval: usage error: ")
    assert flag in err and "gold" not in err.removeprefix("dst-eval: usage error: ")


@pytest.mark.parametrize("command, extra", [
    (["report", str(PREDICTIONS), "--html", "x.html"], ["--seed", "abc"]),
    (["report", str(PREDICTIONS), "--html", "x.html"], ["--norm", "+"]),
    (["compare", str(PREDICTIONS), str(PREDICTIONS)], ["--norm", "bogus"]),
    (["compare", str(PREDICTIONS), str(PREDICTIONS)], ["--metrics", "nope"]),
    (["compare", str(PREDICTIONS), str(PREDICTIONS)], ["--n", str(10**9)]),
    (["compare", str(PREDICTIONS), str(PREDICTIONS)], ["--trials", str(10**9)]),
    (["validate", str(PREDICTIONS)], ["--pred-format", "xml"]),
    (["compare", str(PREDICTIONS), str(PREDICTIONS)], ["--profile", "mwzeval"]),
])
def test_subcommands_refuse_bad_options_before_any_work(tmp_path, capsys, command, extra):
    code = main([*command, "--gold", str(tmp_path / "no-such-gold"), *extra])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and extra[0] in err


def test_a_bad_seed_in_the_environment_is_a_usage_error_before_any_work(
        tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DST_EVAL_SEED", "abc")
    code = main([str(PREDICTIONS), "--gold", str(tmp_path / "no-such-gold"),
                 "--bootstrap", "100"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "seed from the environment" in err, err


def test_evaluate_refuses_bad_options_before_reading_the_gold(tmp_path):
    for bad in ({"seed": -1}, {"normalisation": "bogus"}, {"bootstrap": 10**12},
                {"metrics": ["nope"]}, {"by": "colour"},
                {"profile": "mwzeval", "bootstrap": 100}):
        with pytest.raises(UsageError) as info:
            evaluate(PREDICTIONS, gold=tmp_path / "no-such-gold", **bad)
        assert "gold" not in str(info.value)


def test_unknown_keyword_is_a_usage_error_naming_it():
    with pytest.raises(UsageError, match="unknown option 'normalise'"):
        evaluate(PREDICTIONS, gold=MWZ22, normalise="exact")
    with pytest.raises(UsageError, match="unknown option 'colour'"):
        EvalOptions.build(colour="red")


def test_options_from_every_spelling_are_equal():
    canonical = EvalOptions(missing="skip", by=("domain", "slot"), normalisation="exact",
                            bootstrap=20, seed=3, metrics=("joint_goal_accuracy",),
                            mwzeval_rules="cd3f0ee", db=MWZ22)
    assert EvalOptions.build(missing="skip", by="domain,slot", norm="exact", bootstrap="20",
                             seed="3", metrics="joint_goal_accuracy", mwzeval_rules="cd3f0ee",
                             db=str(MWZ22)) == canonical
    assert EvalOptions.from_mapping({"missing": "skip", "by": ["domain", "slot"],
                                     "normalisation": "exact", "bootstrap": 20, "seed": 3,
                                     "metrics": ["joint_goal_accuracy"],
                                     "mwzeval-rules": "cd3f0ee", "db": str(MWZ22)}) == canonical
    assert EvalOptions().replace(missing="skip").replace(
        by=["domain", "slot"], normalisation="exact", bootstrap=20, seed=3,
        metrics=["joint_goal_accuracy"], mwzeval_rules="cd3f0ee", db=MWZ22) == canonical
    assert EvalOptions.build(seed="None").seed == "none"
    with pytest.raises(dataclasses.FrozenInstanceError):
        canonical.missing = "wrong"  # type: ignore[misc]


def test_keyword_overrides_equal_the_options_object():
    options = EvalOptions(missing="skip", by=("domain", "depth"), normalisation="exact",
                          bootstrap=30, seed=7)
    by_object = evaluate(PREDICTIONS, gold=MWZ22, options=options)
    by_keywords = evaluate(PREDICTIONS, gold=MWZ22, missing="skip", by=["domain", "depth"],
                           normalisation="exact", bootstrap=30, seed=7)
    mixed = evaluate(PREDICTIONS, gold=MWZ22, options=EvalOptions(missing="skip"),
                     by="domain,depth", norm="exact", bootstrap="30", seed="7")
    assert by_object.to_dict() == by_keywords.to_dict() == mixed.to_dict()
    assert "bs:30" in str(by_object.signature) and "norm:exact-v1" in str(by_object.signature)
    assert by_object.confidence_intervals and by_object.groups


def test_a_keyword_of_none_keeps_the_options_value():
    """``evaluate(options=o, profile=None)`` scores with ``o``'s profile (a wrapper passing
    ``profile=args.profile``): None is "not given", as on the command line. It used to
    reset the profile to the default (strict) silently."""
    options = EvalOptions(profile="mwzeval", missing="skip")
    kept = evaluate(PREDICTIONS, gold=MWZ22, options=options, profile=None, missing=None)
    direct = evaluate(PREDICTIONS, gold=MWZ22, options=options)
    assert kept.to_dict() == direct.to_dict()
    assert kept.signature.profile == "mwzeval"
    strict = evaluate(PREDICTIONS, gold=MWZ22, missing="skip")
    assert kept.scores["joint_goal_accuracy"] != strict.scores["joint_goal_accuracy"]
    with pytest.raises(UsageError, match="unknown option 'colour'"):
        evaluate(PREDICTIONS, gold=MWZ22, options=options, colour=None)
    with pytest.raises(UsageError, match="unknown option 'colour'"):  # with a given one too
        evaluate(PREDICTIONS, gold=MWZ22, options=options, profile="strict", colour=None)
    assert options.replace(norm=None, normalisation=None) == options  # neither given


@pytest.mark.parametrize("overrides, message", [
    ({"norm": "exact", "normalisation": "basic"}, "'norm' and 'normalisation' are one option"),
    ({"metrics": []}, "metrics: empty"),
    ({"metrics": ""}, "metrics: empty"),
])
def test_ambiguous_keywords_are_usage_errors(overrides, message):
    """Two spellings of one option (the later used to win) and an empty metric list (it
    used to mean every metric, where a bare -m is a usage error) are refused."""
    with pytest.raises(UsageError, match=message):
        evaluate(PREDICTIONS, gold=MWZ22, **overrides)


def test_spellings_of_one_rule_list_sign_alike():
    """``--norm`` names a rule list; its spellings give the same numbers and the same
    signature (they signed as written: ``norm:strip+collapse-space+lower-v1`` and
    ``norm:basic-v1`` looked incomparable). Another list signs otherwise."""
    runs = {norm: evaluate(PREDICTIONS, gold=MWZ22, norm=norm)
            for norm in ("basic", "strip+collapse-space+lower", " basic ", "basic+lower",
                         "exact", "lower+strip")}
    basic = runs["basic"]
    for norm in ("strip+collapse-space+lower", " basic ", "basic+lower"):
        assert runs[norm].scores == basic.scores
        assert str(runs[norm].signature) == str(basic.signature), norm
    assert "norm:basic-v1" in str(basic.signature)
    assert "norm:exact-v1" in str(runs["exact"].signature)
    assert "norm:lower+strip-v1" in str(runs["lower+strip"].signature)


_WRITTEN = {  # the rules as written, by hand (metrics/normalization.py's table)
    "strip": str.strip, "collapse-space": lambda v: re.sub(r"\s+", " ", v), "lower": str.lower,
    "despace": lambda v: re.sub(r"\s+", "", v),
    "nfkc": lambda v: unicodedata.normalize("NFKC", v)}
_NAMED = {"basic": ("strip", "collapse-space", "lower"), "nfkc": ("nfkc", "strip")}
_TRICKY = ("\u210c", "\u00a8x", "x\u00a8", " \u00a8", "e \u0301", " B  a ", "\uff21\u3000\uff22")


def _written_rules(policy: str) -> list[str]:
    return [rule for part in policy.split("+") for rule in _NAMED.get(part, (part,))]


def _apply(rules: list[str], value: str) -> str:
    for rule in rules:
        value = _WRITTEN[rule](value)
    return value


@pytest.mark.parametrize(("policy", "rule", "after"), [
    ("lower+nfkc+lower", "lower", "nfkc"), ("basic+nfkc", "strip", "nfkc"),
    ("nfkc+despace+nfkc", "nfkc", "despace"), ("despace+nfkc+despace", "despace", "nfkc")])
def test_a_rule_repeated_after_one_that_changes_its_result_is_refused(policy, rule, after,
                                                                      capsys):
    """Applied as written, these lists give another value than with the repeat dropped
    (which dst-eval used to do silently: ``lower+nfkc+lower`` turned U+210C into ``H``, not
    the gold's ``h``): a usage error naming the rule, exit 2, before any file is read."""
    rules = _written_rules(policy)
    once = [r for i, r in enumerate(rules) if r not in rules[:i]]
    assert any(_apply(rules, v) != _apply(once, v) for v in _TRICKY)
    with pytest.raises(UsageError, match=f"rule '{rule}' comes again after '{after}'"):
        EvalOptions(normalisation=policy)
    assert main([str(PREDICTIONS), "--gold", "/nonexistent", "--norm", policy]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"rule '{rule}' comes again after '{after}'" in err
    from dst_eval.metrics import joint_goal_accuracy

    with pytest.raises(ValueError, match=f"rule '{rule}' comes again"):
        joint_goal_accuracy([{"a-b": "h"}], [{"a-b": "\u210c"}], norm=policy)


@pytest.mark.parametrize("policy", ["basic+lower", "nfkc+basic", "nfkc+nfkc", "basic+basic",
                                    "lower+strip+lower", "nfkc+strip"])
def test_a_repeat_that_cannot_change_the_result_is_applied_once(policy):
    """Each accepted repeat is a no-op where it stands: the normaliser (each rule once)
    gives the value of the rules applied as written."""
    from dst_eval.normalize import Normalizer

    norm = Normalizer(policy)
    for value in _TRICKY:
        assert norm("a-b", value) == _apply(_written_rules(policy), value), (policy, value)


def test_norm_accepts_the_name_its_signature_prints(capsys):
    """``norm:basic-v1`` (a signature, ``metric_options()``) is a ``--norm`` value: the same
    run as ``basic`` (it was exit 2, 'unknown normalisation policy'); another rule-table
    version is a usage error."""
    from dst_eval import metric_options

    basic = evaluate(PREDICTIONS, gold=MWZ22, norm="basic")
    versioned = evaluate(PREDICTIONS, gold=MWZ22, norm="basic-v1")
    assert versioned.to_dict() == basic.to_dict()
    assert metric_options("multiwoz22")["norm"] == "basic-v1"
    assert main([str(PREDICTIONS), "--gold", str(MWZ22), "--norm", "basic-v1", "-b"]) == 0
    assert main([str(PREDICTIONS), "--gold", str(MWZ22), "--norm", "basic-v2", "-b"]) == 2
    assert "implements rule table v1 only" in capsys.readouterr().err


@pytest.mark.parametrize("extra", [[], ["--by", "domain,slot", "--missing", "skip"],
                                   ["--bootstrap", "40", "--seed", "11", "--norm", "exact"]])
def test_cli_json_equals_the_result_of_evaluate(tmp_path, capsys, extra):
    output = tmp_path / "out.json"
    assert main([str(PREDICTIONS), "--gold", str(MWZ22), "--format", "json",
                 "--output", str(output), *extra]) == 0
    from_cli = json.loads(output.read_text(encoding="utf-8"))
    options = EvalOptions.build(**{a.removeprefix("--"): b
                                   for a, b in zip(extra[::2], extra[1::2], strict=True)})
    result = evaluate(str(PREDICTIONS), gold=str(MWZ22), options=options)
    assert from_cli == json.loads(result.to_json())
    assert from_cli["scores"]  # not vacuous


def test_dst_and_responses_fill_one_result(tmp_path):
    gold = load_gold(SAMPLES / "crosswoz")
    result = evaluate(oracle_predictions(gold), gold=gold)
    assert isinstance(result, Result)
    # DST first, then the response metrics, in one object; n/a metrics named with a reason
    names = list(result.scores)
    assert names.index("joint_goal_accuracy") < names.index("bleu")
    assert result.scores["joint_goal_accuracy"] == 1.0
    assert result.scores["bleu"] == pytest.approx(100.0)
    assert set(result.not_applicable) >= {"inform", "success", "combined"}
    assert result.counts["responses"]["dialogues"] == len(gold.dialogues)
    assert {m.name for _, metrics in result.stat_tables() for m in metrics} >= {
        "joint_goal_accuracy", "bleu"}
    fields = result.signature.as_dict()
    assert fields["corpus"] == "crosswoz" and fields["profile"] == "strict"
    assert "norm" in fields and "tok" in fields


def test_every_reported_metric_name_is_known():
    """``--metrics`` refuses unknown names: every name a scorer reports must be known."""
    seen: set[str] = set()
    for corpus in ("multiwoz22", "sgd", "crosswoz", "risawoz", "jmultiwoz"):
        gold = load_gold(SAMPLES / corpus, corpus=corpus,
                         split="test" if corpus == "jmultiwoz" else None)
        predictions = oracle_predictions(gold)
        for profile in PROFILES:
            if corpus not in applicable(profile):
                continue
            result = evaluate(predictions, gold=gold, profile=profile)
            seen |= set(result.scores) | set(result.not_applicable)
    unknown = sorted(n for n in seen if not known_metric(n))
    assert not unknown
    assert len(seen) > 30


def test_metrics_option_restricts_the_scores():
    result = evaluate(PREDICTIONS, gold=MWZ22, metrics="joint_goal_accuracy,slot_f1")
    assert list(result.scores) == ["joint_goal_accuracy", "slot_f1"]


def test_python_dash_m_version():
    done = subprocess.run([sys.executable, "-m", "dst_eval", "--version"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.strip() == f"dst-eval {__version__}"


def test_a_closed_output_pipe_ends_quietly():
    """``dst-eval ... | head -c 0``: the reader closes the pipe before the result is written;
    dst-eval ends with the shell's SIGPIPE status and no message (it printed "internal error:
    BrokenPipeError" and exited 1)."""
    command = [sys.executable, "-m", "dst_eval", str(PREDICTIONS), "--gold", str(MWZ22),
               "-f", "json"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # before dst-eval writes anything
    err = process.stderr.read()
    process.stderr.close()
    assert process.wait() == 141 and err == b""


HEAVY = ("pandas", "matplotlib", "rich", "sacrebleu", "jieba", "fugashi", "scipy")


def _imported_after(code: str) -> list[str]:
    probe = (f"import sys\n{code}\n"
             f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=False)
    return json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"'))


def test_cli_help_and_a_json_run_load_no_heavy_module(tmp_path):
    assert _imported_after("from dst_eval.cli.app import main\n"
                           "import contextlib, io\n"
                           "with contextlib.redirect_stdout(io.StringIO()):\n"
                           "    main(['--help'])") == []
    out = tmp_path / "o.json"
    assert _imported_after(f"from dst_eval.cli.app import main\n"
                           f"main([{str(PREDICTIONS)!r}, '--gold', {str(MWZ22)!r}, "
                           f"'--format', 'json', '--output', {str(out)!r}])") == []
    assert json.loads(out.read_text())["scores"]["joint_goal_accuracy"] > 0


@pytest.mark.parametrize("command", ["score", "report", "compare"])
def test_an_output_never_overwrites_an_input(tmp_path, capsys, command):
    """-o/--report/--html naming the predictions, a file inside the gold folder, a file the
    gold loader read (a schema next to a gold file) or any file in a gold file's folder
    (whose neighbours loaders read: RiSAWOZ's split ids were overwritten) is exit 2, and
    nothing is written."""
    folder = tmp_path / "mwz22"
    shutil.copytree(MWZ22, folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    predictions = str(folder / "predictions.json")
    flag = {"score": "--output", "report": "--html", "compare": "--output"}[command]
    head = {"score": [predictions], "report": ["report", predictions],
            "compare": ["compare", predictions, predictions]}[command]
    (folder / "notes.json").write_text("{}")  # a neighbour the loader does not read
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    for gold, target in ((folder, folder / "predictions.json"),
                         (folder, folder / "dialogues_001.json"),
                         (folder, folder / "new.json"),
                         (folder / "dialogues_001.json", folder / "schema.json"),
                         # the folder of a gold file: its neighbours, read or not, new files
                         (folder / "dialogues_001.json", folder / "notes.json"),
                         (folder / "dialogues_001.json", folder / "new.json")):
        code = main([*head, "--gold", str(gold), flag, str(target), "-q"])
        err = capsys.readouterr().err.strip()
        assert code == 2, err
        assert len(err.splitlines()) == 1 and flag in err and "elsewhere" in err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_no_output_next_to_a_symlinked_gold_file(tmp_path, capsys, gold_samples):
    """A gold file given as a symbolic link: its loaders read the link's folder (list files
    there split it), so an output there is refused too, not only in the target's folder."""
    linked = tmp_path / "sl"
    linked.mkdir()
    (linked / "data.json").symlink_to(gold_samples / "multiwoz21" / "data.json")
    predictions = str(gold_samples / "multiwoz21" / "predictions.json")
    code = main([predictions, "--gold", str(linked / "data.json"),
                 "-o", str(linked / "valListFile"), "-q"])
    assert code == 2 and "is in the folder of the gold file" in capsys.readouterr().err
    assert not (linked / "valListFile").exists()


def test_coverage_equal_to_the_minimum_is_accepted_and_the_hint_accepts():
    """55 of 100 dialogues with --min-coverage 0.55 is accepted (0.55 * 100 is
    55.00000000000001 in floating point); a refusal's hint (the largest two-decimal minimum
    that accepts) does accept, for every matched/total up to 120 dialogues."""
    from dst_eval.api import check_coverage
    from dst_eval.errors import CoverageError

    class Gold:
        corpus, split = "sgd", "dev"

        def __init__(self, n: int) -> None:
            self.n = n

        def __len__(self) -> int:
            return self.n

    options = {}
    for n in range(1, 121):
        for matched in range(n + 1):
            exact = round(matched / n, 2)
            if exact * n == matched:  # the minimum written as the exact share
                options.setdefault(exact, EvalOptions(min_coverage=exact))
                check_coverage(Gold(n), ["x"] * (n - matched), "p.json", options[exact])
            high = EvalOptions(min_coverage=1.0)
            if matched < n:
                with pytest.raises(CoverageError) as info:
                    check_coverage(Gold(n), ["x"] * (n - matched), "p.json", high)
                accepts = info.value.accepts
                assert accepts <= matched / n and f"--min-coverage {accepts:.2f} " in str(
                    info.value)
                options.setdefault(accepts, EvalOptions(min_coverage=accepts))
                check_coverage(Gold(n), ["x"] * (n - matched), "p.json", options[accepts])
