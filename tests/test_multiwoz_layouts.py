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
