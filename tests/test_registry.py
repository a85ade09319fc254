"""The corpus registry and its configs: one place per corpus, every config key read, pure metrics.

Structure rules checked on the source (AST, nothing imported from the scanned modules):

* no module outside ``dst_eval/corpora/`` branches on a corpus name: no corpus-name string
  outside docstrings, except ``"sgd"``, which is also a prediction format name and is
  refused only in a comparison with a ``corpus`` expression, a ``match`` case or as a
  table key;
* ``metrics/`` (installed as ``dst_eval.metrics``) imports nothing from ``dst_eval`` but
  its own modules;
* every key of every ``configs/*.toml`` is consumed by the config reader, and every
  attribute the reader fills is used by code outside the reader.
"""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from dst_eval import corpora
from dst_eval.config import (
    REQUIRED_KEYS,
    SPEC_KEYS,
    TOP_LEVEL_KEYS,
    VALUES_KEYS,
    CorpusSpec,
    corpus_config,
    spec_from_toml,
)
from dst_eval.errors import UsageError
from dst_eval.profiles import PROFILES, get_profile

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dst_eval"
CORPORA_DIR = PACKAGE / "corpora"
METRICS = ROOT / "metrics"
CONFIGS = ROOT / "configs"
CORPUS_NAMES = frozenset({"multiwoz21", "multiwoz22", "sgd", "crosswoz", "risawoz", "jmultiwoz"})
"""Written out here (not taken from the registry) so the scan cannot shrink with it."""
FORMAT_NAMES = frozenset({"sgd"})
"""Corpus names that also name a prediction format (``--pred-format sgd``)."""


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _corpus_constants(node: ast.AST) -> list[str]:
    """Corpus names among the string constants of ``node`` or its literal containers."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in CORPUS_NAMES else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [name for elt in node.elts for name in _corpus_constants(elt)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
            "frozenset", "set", "tuple") and node.args:
        return _corpus_constants(node.args[0])
    return []


def _mentions_corpus(node: ast.AST) -> bool:
    return any((isinstance(n, ast.Name) and "corpus" in n.id.lower())
               or (isinstance(n, ast.Attribute) and "corpus" in n.attr.lower())
               for n in ast.walk(node))


def corpus_branches(tree: ast.Module) -> list[tuple[int, str]]:
    """``(line, what)`` for every corpus-name constant, comparison, case or table (docstring)."""
    docstrings = {id(node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and node.value in CORPUS_NAMES - FORMAT_NAMES
                and id(node) not in docstrings):
            found.append((node.lineno, f"corpus name {node.value}"))
        elif isinstance(node, ast.Compare):
            parts = (node.left, *node.comparators)
            names = {n for part in parts for n in _corpus_constants(part)} & FORMAT_NAMES
            if names and any(_mentions_corpus(p) for p in parts):
                found.append((node.lineno, f"comparison with {', '.join(sorted(names))}"))
        elif isinstance(node, ast.match_case):
            names = [n.value.value for n in ast.walk(node.pattern)
                     if isinstance(n, ast.MatchValue) and isinstance(n.value, ast.Constant)
                     and n.value.value in CORPUS_NAMES]
            if names:
                found.append((node.pattern.lineno, f"match case {', '.join(names)}"))
        elif isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys
                    if isinstance(k, ast.Constant) and k.value in FORMAT_NAMES]
            if keys:
                found.append((node.lineno, f"table keyed by {', '.join(keys)}"))
    return found


def _outside_corpora() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if not p.is_relative_to(CORPORA_DIR)]


def test_no_corpus_name_branch_outside_dst_eval_corpora():
    offenders = [f"{path.relative_to(ROOT)}:{line}: {what}"
                 for path in [*_outside_corpora(), *sorted(METRICS.rglob("*.py"))]
                 for line, what in corpus_branches(_parse(path))]
    assert offenders == []


def test_branch_scan_finds_what_it_must():
    """The scan is not vacuous: each form of corpus branch it forbids is reported."""
    code = '''"""A docstring may name multiwoz21."""
if corpus == "sgd": pass
if gold.corpus in ("multiwoz21", "sgd"): pass
MULTIWOZ = frozenset({"multiwoz22"})
TABLE = {"sgd": "keep", "crosswoz": "verbatim"}
match corpus:
    case "sgd": pass
if fmt == "sgd" or fmt in ("mwzeval", "jsonl", "sgd"): pass
FORMATS = ("mwzeval", "jsonl", "sgd")
'''
    found = sorted(corpus_branches(ast.parse(code)))
    assert [line for line, _ in found] == [2, 3, 3, 4, 5, 5, 7]


def _dst_eval_imports(tree: ast.Module) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules = [node.module or ""]
        else:
            continue
        found += [(node.lineno, m) for m in modules
                  if (m == "dst_eval" or m.startswith("dst_eval."))
                  and not (m == "dst_eval.metrics" or m.startswith("dst_eval.metrics."))]
    return found


def test_metrics_import_nothing_from_dst_eval():
    offenders = [f"{path.relative_to(ROOT)}:{line}: {module}"
                 for path in sorted(METRICS.rglob("*.py"))
                 for line, module in _dst_eval_imports(_parse(path))]
    assert offenders == []
    # the scan sees the imports it must refuse (and allows metrics' own modules)
    probe = ast.parse("from dst_eval.errors import UsageError\nimport dst_eval.gold\n"
                      "from dst_eval.metrics.base import Metric\nimport dst_eval.metrics.bleu")
    assert _dst_eval_imports(probe) == [(1, "dst_eval.errors"), (2, "dst_eval.gold")]


# ------------------------------------------------------------------------ configs


def _corpus_tomls() -> dict[str, dict]:
    out = {}
    for path in sorted(CONFIGS.glob("*.toml")):
        with path.open("rb") as fh:
            data = tomllib.load(fh)
        if "corpus" in data:
            out[path.stem] = data
    return out


def test_every_corpus_config_key_is_consumed_by_the_reader():
    tomls = _corpus_tomls()
    assert set(tomls) == CORPUS_NAMES == set(corpora.names())
    for name, data in tomls.items():
        assert set(data) <= TOP_LEVEL_KEYS, name
        assert set(data["corpus"]) <= SPEC_KEYS, (name, set(data["corpus"]) - SPEC_KEYS)
        assert set(data["corpus"]) >= REQUIRED_KEYS, name
        spec = corpus_config(name)
        for key, value in data["corpus"].items():  # each key lands, unchanged, in its field
            got = getattr(spec, key)
            assert (sorted(got) if isinstance(got, frozenset | tuple) else got) == (
                sorted(value) if isinstance(value, list) else value), (name, key)
        assert dict(spec.slot_aliases) == data.get("slot_aliases", {}), name
        assert set(data.get("values", {})) <= VALUES_KEYS, name
        assert list(spec.unset_values) == data.get("values", {}).get("unset", []), name


def _raw_table(node: ast.AST) -> str | None:
    """``"values"`` for ``x.raw.get("values", ...)`` or ``x.raw["values"]``, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
            node.func.attr == "get" and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "raw" and node.args
            and isinstance(node.args[0], ast.Constant)):
        return node.args[0].value
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and (
            node.value.attr == "raw" and isinstance(node.slice, ast.Constant)):
        return node.slice.value
    return None


def _attribute_uses() -> set[str]:
    """Attribute names read anywhere in dst_eval outside the config reader, plus
    ``raw:<table>`` for a TOML table read through ``CorpusSpec.raw``."""
    used: set[str] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "config.py":
            continue
        for node in ast.walk(_parse(path)):
            if isinstance(node, ast.Attribute):
                used.add(node.attr)
            table = _raw_table(node)
            if table is not None:
                used.add(f"raw:{table}")
    return used


def test_every_spec_field_is_used_outside_the_reader():
    """A key consumed by the reader but used nowhere would be dead configuration."""
    used = _attribute_uses()
    # fields read through a CorpusSpec method of the reader: the method must be used instead
    via_method = {"family": "loader_module", "loader": "loader_module",
                  "alternate_layouts": "layout_modules", "slot_domain": "domain_of",
                  "interchangeable_with": "accepts", "profiles": "applies"}
    # a [table] key may also be read from the parsed file (CorpusSpec.raw)
    via_raw = {"unset_values": "raw:values", "slot_aliases": "raw:slot_aliases"}
    unused = [f.name for f in fields(CorpusSpec)
              if f.name != "raw" and via_method.get(f.name, f.name) not in used
              and via_raw.get(f.name) not in used]
    assert unused == []
    probe = ast.parse('a = spec.raw.get("values", {}).get("unset", ())\nb = spec.raw["slots"]')
    assert {_raw_table(n) for n in ast.walk(probe)} - {None} == {"values", "slots"}


def test_leaderboard_example_keys_are_all_known_to_its_reader():
    try:
        from dst_eval.leaderboard.config import load_config
    except ImportError:
        from dst_eval.leaderboard.core import load_config

    config = load_config(CONFIGS / "leaderboard_example.toml")
    assert config.corpus == "multiwoz21" and config.rank_by == "combined"


@pytest.mark.parametrize(("change", "message"), [
    ({"colour": "blue"}, "unknown keys corpus.colour"),
    ({"name": "other"}, "name is 'other'"),
    ({"tokenizer": "13a"}, "does not split zh text"),
    ({"tokenizer": "char"}, "unknown BLEU tokenizer 'char'"),
    ({"default_profile": "official"}, "default_profile 'official' is not among its profiles"),
    ({"slot_domain": "suffix"}, "slot_domain = 'suffix', expected one of prefix, service-family"),
    ({"profiles": "strict"}, "profiles must be a list of strings"),
    ({"detect_order": True}, "detect_order must be an integer"),
    ({"[values]": {"unset": "none"}}, "[values] unset must be a list of strings"),
    ({"[values]": {"unsets": ["none"]}}, "unknown keys values.unsets"),
    ({"[colours]": {}}, "unknown keys colours"),
])
def test_a_bad_corpus_config_is_a_usage_error(change, message):
    data = _corpus_tomls()["crosswoz"]
    tables = {k[1:-1]: v for k, v in change.items() if k.startswith("[")}
    change = {k: v for k, v in change.items() if not k.startswith("[")}
    data = {**data, **tables, "corpus": {**data["corpus"], **change}}
    with pytest.raises(UsageError, match=re.escape(message)):
        corpora.check(spec_from_toml("crosswoz", data))
    section = dict(_corpus_tomls()["crosswoz"]["corpus"])
    del section["loader"]
    with pytest.raises(UsageError, match="lacks loader"):
        spec_from_toml("crosswoz", {"corpus": section})


# ------------------------------------------------------------------------ registry


def test_registry_modules_live_in_the_family_folder():
    for name in corpora.names():
        spec = corpora.get(name)
        folder = CORPORA_DIR / spec.family
        for module in (spec.loader, *spec.alternate_layouts, "responses"):
            assert (folder / f"{module}.py").is_file(), (name, module)
        assert spec.loader_module().__name__ == f"dst_eval.corpora.{spec.family}.{spec.loader}"
        assert callable(spec.loader_module().sniff) and callable(spec.loader_module().load)
        assert callable(spec.responses_module().score)
    with pytest.raises(UsageError, match="unknown corpus 'woz'; known: crosswoz, jmultiwoz"):
        corpora.get("woz")


def test_profile_applicability_comes_from_the_configs():
    # the table profiles/__init__.py held before the configs were read (issue 8)
    former = {"strict": set(CORPUS_NAMES), "sgd-official": {"sgd", "multiwoz22"},
              "sgd-official-multiwoz": {"sgd", "multiwoz22"},
              "mwzeval": {"multiwoz22", "multiwoz21"},
              "convlab": {"multiwoz21", "multiwoz22", "sgd", "crosswoz"},
              "trade": {"crosswoz", "multiwoz21", "multiwoz22"}, "official": {"jmultiwoz"},
              "trippy": {"multiwoz21"}}  # added since: TripPy's metric, data.json gold
    assert set(PROFILES) == set(former)
    releases = {"multiwoz20", "multiwoz24"}  # the data.json releases: multiwoz21's config
    for profile, expected in former.items():
        versions = releases if "multiwoz21" in expected else set()
        assert set(corpora.applicable(profile)) == expected | versions, profile
        for name in CORPUS_NAMES - expected:
            with pytest.raises(UsageError, match=f"does not apply to corpus '{name}'"):
                get_profile(profile, name)
    for name in CORPUS_NAMES:
        assert set(corpora.get(name).profiles) <= set(PROFILES)
        assert get_profile(corpora.get(name).default_profile, name) is not None


def test_corpus_knowledge_attributes():
    sgd, mwz21, mwz22 = (corpora.get(n) for n in ("sgd", "multiwoz21", "multiwoz22"))
    assert sgd.domain_of("Hotels_2-area") == "Hotels"
    assert mwz22.domain_of("hotel-book_day") == "hotel"
    assert corpora.get("risawoz").domain_of("医院-3.0T MRI") == "医院"
    assert mwz21.accepts("multiwoz22") and mwz22.accepts("multiwoz21") and sgd.accepts("sgd")
    assert not sgd.accepts("multiwoz22") and not mwz22.accepts("sgd")
    for name in CORPUS_NAMES:  # interchangeability is symmetric
        for other in corpora.get(name).interchangeable_with:
            assert corpora.get(other).accepts(name)
    assert [n for n in CORPUS_NAMES if corpora.get(n).slot_universe == "dialogue-services"] == [
        "sgd"]
    assert [n for n in CORPUS_NAMES if corpora.get(n).seen_services == "all"] == ["multiwoz22"]
    assert {n: corpora.get(n).slot_key_policy for n in sorted(CORPUS_NAMES)} == {
        "crosswoz": "verbatim", "jmultiwoz": "verbatim", "multiwoz21": "lower",
        "multiwoz22": "lower", "risawoz": "verbatim", "sgd": "keep"}
    # the detection order of the former LOADER_MODULES table
    assert corpora.names() == ("multiwoz22", "sgd", "multiwoz21", "crosswoz", "risawoz",
                               "jmultiwoz")


def test_configs_are_read_from_the_package_folder_or_through_importlib_resources(monkeypatch):
    """The installed configs folder is read as files; a package whose folder is not one (a
    zip import) is read through importlib.resources, with the same names and tables."""
    from dst_eval import config, configs

    config._config_dir.cache_clear()
    config.config_names.cache_clear()
    folder = config._config_dir()
    assert isinstance(folder, Path) and (folder / "sgd.toml").is_file()
    names, table = config.config_names(), config.read_toml("sgd")
    assert "sgd" in names and "multiwoz21" in names and table["corpus"]["name"] == "sgd"
    monkeypatch.setattr(configs, "__file__", "/no/such.zip/dst_eval/configs/__init__.py")
    config._config_dir.cache_clear()
    config.config_names.cache_clear()
    try:
        from importlib import resources

        assert config._config_dir() == resources.files(configs) == folder  # not __file__'s
        assert config.config_names() == names and config.read_toml("sgd") == table
        with pytest.raises(UsageError, match="no configuration named 'nope'"):
            config.read_toml("nope")
    finally:
        config._config_dir.cache_clear()
        config.config_names.cache_clear()
