"""Gold dialogue ids that differ only in what dialogue matching ignores (case, ``.json``,
surrounding spaces: :func:`dst_eval.gold.dialogue_key`) are one id: two such dialogues in a
gold set are a gold error naming both ids and the file, on every corpus (they were loaded
as two dialogues, and one prediction was scored against both)."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dst_eval.corpora import load_gold
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldDialogue, GoldSet


def _json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def _mw21(folder: Path, variant: Callable[[str], str]) -> tuple[str, str]:
    data = _json(folder / "data.json")
    data[variant("SMPL001.json")] = copy.deepcopy(data["SMPL001.json"])
    (folder / "data.json").write_text(json.dumps(data), "utf-8")
    return "data.json", "SMPL001.json"


def _sgd(folder: Path, variant: Callable[[str], str]) -> tuple[str, str]:
    dialogues = _json(folder / "dialogues_001.json")
    dialogues.append({**copy.deepcopy(dialogues[0]), "dialogue_id": variant("sample_001")})
    (folder / "dialogues_001.json").write_text(json.dumps(dialogues), "utf-8")
    return "dialogues_001.json", "sample_001"


def _risawoz(folder: Path, variant: Callable[[str], str]) -> tuple[str, str]:
    dialogues = _json(folder / "dialogues.json")
    first = dialogues[0]["dialogue_id"]
    dialogues.append({**copy.deepcopy(dialogues[0]), "dialogue_id": variant(first)})
    (folder / "dialogues.json").write_text(json.dumps(dialogues, ensure_ascii=False), "utf-8")
    return "dialogues.json", first


def _crosswoz(folder: Path, variant: Callable[[str], str]) -> tuple[str, str]:
    data = _json(folder / "test.json")
    data[variant("9001")] = copy.deepcopy(data["9001"])
    (folder / "test.json").write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return "test.json", "9001"


def _jmultiwoz(folder: Path, variant: Callable[[str], str]) -> tuple[str, str]:
    data = _json(folder / "dialogues.json")
    name = "dialogue_9001AbCd"
    data[variant(name)] = {**copy.deepcopy(data[name]), "dialogue_name": variant(name)}
    (folder / "dialogues.json").write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    splits = _json(folder / "split_list.json")
    splits["test"].append(variant(name))
    (folder / "split_list.json").write_text(json.dumps(splits), "utf-8")
    return "dialogues.json", name


CORPORA = {"multiwoz21": (_mw21, "test"), "sgd": (_sgd, None), "risawoz": (_risawoz, None),
           "crosswoz": (_crosswoz, None), "jmultiwoz": (_jmultiwoz, "test")}
VARIANTS = {"case": str.swapcase, "json": lambda i: i[:-5] if i.endswith(".json") else i + ".json",
            "space": lambda i: i + " "}


@pytest.mark.parametrize("corpus, variant", [
    (corpus, variant) for corpus in sorted(CORPORA) for variant in sorted(VARIANTS)
    if (corpus, variant) != ("crosswoz", "case")])  # CrossWOZ ids are digits: no case
def test_two_gold_ids_with_one_matching_key_are_refused(tmp_path: Path, gold_samples: Path,
                                                        corpus: str, variant: str) -> None:
    folder = tmp_path / corpus
    shutil.copytree(gold_samples / corpus, folder)
    build, split = CORPORA[corpus]
    name, first = build(folder, VARIANTS[variant])
    second = VARIANTS[variant](first)
    assert first != second
    with pytest.raises(GoldDataError, match="duplicate dialogue id") as info:
        load_gold(folder / name if corpus == "multiwoz21" else folder, split=split)
    error = info.value
    assert error.exit_code == 4 and "\n" not in str(error)
    assert repr(first) in error.message and repr(second) in error.message
    assert error.file == str(folder / name)  # the file, not the gold folder


def test_sgd_names_both_files(tmp_path: Path, gold_samples: Path) -> None:
    folder = tmp_path / "sgd"
    shutil.copytree(gold_samples / "sgd", folder)
    dialogues = _json(folder / "dialogues_001.json")
    copy_ = {**copy.deepcopy(dialogues[0]), "dialogue_id": "Sample_001"}
    (folder / "dialogues_002.json").write_text(json.dumps([copy_]), "utf-8")
    with pytest.raises(GoldDataError, match="'sample_001' and 'Sample_001'") as info:
        load_gold(folder)
    assert info.value.file == str(folder / "dialogues_002.json")
    assert f"also in {folder / 'dialogues_001.json'}" in str(info.value)


def test_risawoz_names_both_files_and_checks_the_split_only(tmp_path: Path,
                                                           gold_samples: Path) -> None:
    """Folder gold read from several files names the file of each id (it named the folder);
    ids that the split list leaves out are not the split's gold, so they are no conflict."""
    folder = tmp_path / "risawoz"
    shutil.copytree(gold_samples / "risawoz", folder)
    dialogues = _json(folder / "dialogues.json")
    first = dialogues[0]["dialogue_id"]
    second = {**copy.deepcopy(dialogues[0]), "dialogue_id": first.swapcase()}
    (folder / "more.json").write_text(json.dumps([second], ensure_ascii=False), "utf-8")
    with pytest.raises(GoldDataError, match="duplicate dialogue id") as info:
        load_gold(folder)
    assert info.value.file == str(folder / "more.json")
    assert f"also in {folder / 'dialogues.json'}" in str(info.value)
    ids = [d["dialogue_id"] for d in dialogues]
    (folder / "dataset_split_ids_dict.json").write_text(json.dumps(  # the release's keys
        {"all_train10000.json": [first.swapcase()], "all_test600_new.json": ids}), "utf-8")
    gold = load_gold(folder, split="test")
    assert sorted(d.dialogue_id for d in gold) == sorted(ids)
    assert sorted(d.dialogue_id for d in load_gold(folder, split="train")) == [first.swapcase()]


def test_risawoz_one_id_with_two_contents_names_both_files(tmp_path: Path,
                                                           gold_samples: Path) -> None:
    """One id in two files: the same dialogue is read once; another content is an error
    naming both files."""
    folder = tmp_path / "risawoz"
    shutil.copytree(gold_samples / "risawoz", folder)
    dialogues = _json(folder / "dialogues.json")
    (folder / "more.json").write_text(json.dumps(dialogues[:1], ensure_ascii=False), "utf-8")
    assert len(load_gold(folder)) == len(dialogues)
    changed = copy.deepcopy(dialogues[0])
    changed["dialogue"] = changed["dialogue"][:1]
    (folder / "more.json").write_text(json.dumps([changed], ensure_ascii=False), "utf-8")
    with pytest.raises(GoldDataError, match="duplicate dialogue id with different content") \
            as info:
        load_gold(folder)
    assert info.value.file == str(folder / "more.json")
    assert info.value.dialogue == dialogues[0]["dialogue_id"]
    assert f"(also in {folder / 'dialogues.json'})" in str(info.value)


def test_a_gold_set_built_in_memory_is_checked_too() -> None:
    dialogues = (GoldDialogue("MUL0001.json", ()), GoldDialogue(" mul0001 ", ()))
    with pytest.raises(GoldDataError, match="'MUL0001.json' and ' mul0001 ' are one id"):
        GoldSet(corpus="multiwoz21", split=None, dialogues=dialogues, source="mem")
    gold = GoldSet(corpus="multiwoz21", split=None, dialogues=dialogues[:1], source="mem")
    assert gold.get("mul0001") is dialogues[0]
