"""MultiWOZ 2.0/2.1/2.4 gold as people have it (``dst_eval/corpora/multiwoz/release21.py``):
release folders (``data.json`` + list files, also one level down) and the per-split folder
of ``../shared/corpora/multiwoz21``, all read as ``--gold DIR --split SPLIT``. Fixture
folders are built in tmp dirs from ``../shared`` data; the expected counts are those of
loading the split's file directly (1000 test / 999 val dialogues listed)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from dst_eval.corpora import detect_corpus, load_gold
from dst_eval.errors import GoldDataError, UsageError


def _members(path: Path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read(archive.namelist()[0]))


@pytest.fixture(scope="module")
def release(shared_dir: Path, tmp_path_factory) -> Path:
    source = shared_dir / "corpora/multiwoz21"
    root = tmp_path_factory.mktemp("mwz_release")
    folder = root / "MULTIWOZ2.1"
    folder.mkdir()
    data = _members(source / "test.json.zip") | _members(source / "val.json.zip")
    (folder / "data.json").write_text(json.dumps(data), "utf-8")
    for name in ("testListFile", "valListFile"):
        (folder / f"{name}.txt").write_text((source / name).read_text("utf-8"), "utf-8")
    return root


@pytest.mark.parametrize(("split", "dialogues"), [("test", 1000), ("dev", 999)])
def test_release_folder_and_nested_folder(release: Path, shared_dir: Path, split: str,
                                          dialogues: int) -> None:
    direct = load_gold(shared_dir / "corpora/multiwoz21" /
                       ("test.json.zip" if split == "test" else "val.json.zip"), split=split)
    for gold_dir in (release, release / "MULTIWOZ2.1"):
        assert detect_corpus(gold_dir) == "multiwoz21"
        gold = load_gold(gold_dir, split=split)
        assert (gold.corpus, gold.split, len(gold)) == ("multiwoz21", split, dialogues)
        assert gold.n_turns == direct.n_turns
        assert {d.dialogue_id for d in gold} == {d.dialogue_id for d in direct}


def test_shared_per_split_folder(shared_dir: Path) -> None:
    folder = shared_dir / "corpora/multiwoz21"
    assert detect_corpus(folder) == "multiwoz21"
    gold = load_gold(folder, split="test")
    assert (gold.split, len(gold)) == ("test", 1000)
    assert Path(gold.source).name == "test.json.zip"
    with pytest.raises(UsageError, match="name one with --split"):
        load_gold(folder)
    with pytest.raises(GoldDataError, match="no train file"):
        load_gold(folder, split="train")


def test_empty_folder_is_a_gold_error(tmp_path: Path) -> None:
    with pytest.raises(GoldDataError, match="no MultiWOZ data.json"):
        load_gold(tmp_path, corpus="multiwoz21", split="test")


def _sample_release(root: Path, gold_samples: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    for file in ("data.json", "testListFile", "valListFile"):
        (folder / file).write_bytes((gold_samples / "multiwoz21" / file).read_bytes())
    return folder


@pytest.mark.parametrize(("folder", "named"), [
    ("MULTIWOZ2.1", "multiwoz21"), ("MultiWOZ_2.4", "multiwoz24"), ("multiwoz20", "multiwoz20"),
    ("multi-woz-2.0/data", "multiwoz20"), ("multiwoz24/MULTIWOZ2.1", "multiwoz21"),
    ("release", None), ("multiwoz22", None), ("multiwoz210", None),
])
def test_release_named_by_path_or_corpus(tmp_path: Path, gold_samples: Path, folder: str,
                                         named: str | None) -> None:
    """The release goes in the signature: named by the gold path (innermost mention) or by
    ``--corpus``, never assumed without a note; the data read is the same for all."""
    from dst_eval import evaluate
    from dst_eval.corpora.layout import VERSION_NOTE

    path = _sample_release(tmp_path, gold_samples, folder)
    gold = load_gold(path, split="test")
    assert gold.corpus == (named or "multiwoz21")
    assert [n.startswith(VERSION_NOTE) for n in gold.notes] == ([] if named else [True])
    predictions = gold_samples / "multiwoz21" / "predictions.json"
    result = evaluate(predictions, gold=path, split="test")
    assert result.signature.corpus == (named or "multiwoz21")
    assert any(n.startswith(VERSION_NOTE) for n in result.notes) == (named is None)
    assert result.scores["joint_goal_accuracy"] == pytest.approx(1 / 3, abs=1e-12)
    for corpus in ("multiwoz20", "multiwoz21", "multiwoz24"):  # the user's word wins
        told = load_gold(path, corpus=corpus, split="test")
        assert told.corpus == corpus and told.dialogues == gold.dialogues
        assert not any(n.startswith(VERSION_NOTE) for n in told.notes)
        disagree = named is not None and named != corpus
        assert any(f"the gold path names {named}" in n for n in told.notes) == disagree
        scored = evaluate(predictions, gold=path, split="test", corpus=corpus)
        assert str(scored.signature).startswith(f"dst-eval|corpus:{corpus}|split:test|")
        assert scored.scores == result.scores


def test_version_names_are_corpora_of_the_data_json_family() -> None:
    from dst_eval import corpora
    from dst_eval.options import EvalOptions

    assert corpora.all_names()[corpora.all_names().index("multiwoz21"):][:3] == (
        "multiwoz21", "multiwoz20", "multiwoz24")
    assert corpora.get("multiwoz24") is corpora.get("multiwoz21")
    assert {"multiwoz20", "multiwoz21", "multiwoz24"} <= set(corpora.applicable("trade"))
    assert EvalOptions(corpus="multiwoz24", profile="mwzeval").corpus == "multiwoz24"
    with pytest.raises(UsageError, match="unknown corpus 'multiwoz23'"):
        EvalOptions(corpus="multiwoz23")


@pytest.mark.parametrize("spelling", ["turn_id", "turn\\u005fid"])
def test_multiwoz22_folder_detected_however_turn_id_is_spelled(
        tmp_path: Path, gold_samples: Path, spelling: str) -> None:
    """Detection skips parsing a dialogue file whose bytes hold no ``"turn_id"`` and no
    ``\\u`` escape (SGD files: ``loader22._parsed_if_turn_ids``); a 2.2 folder is still
    detected, also when its keys are written with a JSON escape."""
    text = (gold_samples / "multiwoz22" / "dialogues_001.json").read_text("utf-8")
    assert '"turn_id"' in text
    folder = tmp_path / "test"
    folder.mkdir()
    (folder / "dialogues_001.json").write_text(text.replace('"turn_id"', f'"{spelling}"'),
                                               "utf-8")
    assert detect_corpus(folder) == "multiwoz22"
    assert detect_corpus(tmp_path) == "multiwoz22"
