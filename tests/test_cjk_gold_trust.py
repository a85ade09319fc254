"""CrossWOZ, RiSAWOZ and JMultiWOZ gold that is not what a corpus release holds: refused
(exit 4, naming file, dialogue and turn) instead of scored. Each case is a copy of the
repository's sample with one edit; the unedited sample loads (checked once per corpus)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from dst_eval.corpora import load_gold
from dst_eval.errors import GoldDataError

FILES = {"crosswoz": "test.json", "risawoz": "dialogues.json", "jmultiwoz": "dialogues.json"}
SPLITS = {"jmultiwoz": "test"}


def _first(data):
    return data[0] if isinstance(data, list) else next(iter(data.values()))


def _cw_state(data):  # the first system message's state
    return _first(data)["messages"][1]["sys_state_init"]


def _jmw_belief(data):  # the first system turn's belief state, in the test split
    return data["dialogue_9001AbCd"]["turns"][1]["dialogue_state"]["belief_state"]


def _ris_belief(data):
    return _first(data)["dialogue"][0]["belief_state"]


def _rename(mapping: dict, old: str, new: str) -> None:
    mapping[new] = mapping.pop(old)


CASES: list[tuple[str, Callable, str]] = [
    # a gold slot name none of the corpus's: every turn holding it was scored wrong without a
    # word (oracle predictions: CrossWOZ 100 -> 53.85, RiSAWOZ 100 -> 81.82)
    ("crosswoz", lambda d: _rename(_cw_state(d)["餐馆"], "人均消费", "人均消费 "),
     "slot '餐馆-人均消费 ' is not a slot of crosswoz"),
    ("risawoz", lambda d: _rename(_ris_belief(d)["inform slot-values"], "医院-名称",
                                  "医院-名称 "), "slot '医院-名称 ' is not a slot of risawoz"),
    ("jmultiwoz", lambda d: _rename(_jmw_belief(d)["general"], "city", "City"),
     "slot 'general-City' is not a slot of jmultiwoz"),
    # RiSAWOZ column form with a value missing: the slot was dropped (100 -> 90.91)
    ("risawoz", lambda d: _ris_belief(d).update({"inform slot-values": {
        "slot": ["医院-名称", "医院-区域"], "value": ["x"]}}),
     "the 'slot' and 'value' columns have different lengths"),
    ("risawoz", lambda d: _ris_belief(d).update({"inform slot-values": [
        ["医院-名称", "x"], ["医院-名称", "y"]]}), "slot '医院-名称' is given twice"),
    # JMultiWOZ turn ids out of order or given twice: predictions are joined on them
    ("jmultiwoz", lambda d: d["dialogue_9001AbCd"]["turns"][1].update(turn_id=0),
     "turns\\[1\\] has turn_id 0 after turn_id 0: turn ids must increase"),
    ("jmultiwoz", lambda d: d["dialogue_9001AbCd"]["turns"].reverse(),
     "turn ids must increase"),
    # a domains field of another type: an internal error (exit 1)
    ("risawoz", lambda d: _first(d).update(domains=True), "'domains' must be a list"),
    ("risawoz", lambda d: _first(d)["dialogue"][0].update(turn_domain=3),
     "'turn_domain' must be a list"),
    ("crosswoz", lambda d: _first(d).update({"task description": 3}),
     "'task description' must be a list"),
]


@pytest.mark.parametrize(("corpus", "edit", "message"), CASES)
def test_edited_gold_is_refused(gold_samples: Path, tmp_path: Path, corpus: str, edit,
                                message: str) -> None:
    folder = tmp_path / corpus
    shutil.copytree(gold_samples / corpus, folder)
    assert load_gold(folder, corpus=corpus, split=SPLITS.get(corpus)).dialogues
    path = folder / FILES[corpus]
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(GoldDataError, match=message) as info:
        load_gold(folder, corpus=corpus, split=SPLITS.get(corpus))
    assert info.value.exit_code == 4 and info.value.dialogue is not None


def _first_key_twice(document: dict, value) -> str:
    """``document`` as JSON text whose first key is given twice: first with ``value``."""
    first = next(iter(document))
    body = json.dumps(document, ensure_ascii=False)
    return "{" + f"{json.dumps(first, ensure_ascii=False)}: " + \
        json.dumps(value, ensure_ascii=False) + ", " + body[1:]


def test_a_crosswoz_dialogue_id_given_twice_with_an_escaped_key_is_refused(
        gold_samples: Path, tmp_path: Path) -> None:
    """The CrossWOZ check counts ``"messages"`` keys; one spelled ``"\\u006dessages"`` hid a
    repeated dialogue id from it (55.56, exit 0)."""
    folder = tmp_path / "crosswoz"
    shutil.copytree(gold_samples / "crosswoz", folder)
    document = json.loads((folder / "test.json").read_text(encoding="utf-8"))
    first, copy = next(iter(document)), json.dumps(list(document.values())[-1],
                                                    ensure_ascii=False)
    copy = copy.replace('"messages"', '"\\u006dessages"', 1)
    body = json.dumps(document, ensure_ascii=False)
    (folder / "test.json").write_text("{" + f'"{first}": {copy}, ' + body[1:], "utf-8")
    with pytest.raises(GoldDataError, match=f"key '{first}' is given 2 times"):
        load_gold(folder, corpus="crosswoz")


@pytest.mark.parametrize(("corpus", "file"), [
    ("crosswoz", "test.json"), ("jmultiwoz", "dialogues.json"),
    ("jmultiwoz", "split_list.json"), ("risawoz", "dialogues.json")])
def test_a_key_given_twice_in_gold_is_refused(gold_samples: Path, tmp_path: Path, corpus: str,
                                              file: str) -> None:
    """A JSON parser keeps the last of two keys: a dialogue id given twice lost a dialogue
    (oracle JGA 100 -> 64.29 on CrossWOZ), ``"test"`` twice in a split list scored one of
    the three test dialogues as ``split:test``."""
    folder = tmp_path / corpus
    shutil.copytree(gold_samples / corpus, folder)
    path = folder / file
    document = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(document, list):  # RiSAWOZ's {dialogue_id: dialogue} layout
        document = {d["dialogue_id"]: d for d in document}
    values = list(document.values())
    text = _first_key_twice(document, values[-1] if file != "split_list.json" else [])
    path.write_text(text, encoding="utf-8")
    first = next(iter(document))
    with pytest.raises(GoldDataError, match=f"key '{first}' is given 2 times in the top-level "
                       "object; a JSON object keeps only the last one") as info:
        load_gold(folder, corpus=corpus, split=SPLITS.get(corpus))
    assert info.value.exit_code == 4


def test_a_risawoz_folder_says_which_files_it_does_not_read(gold_samples: Path,
                                                            tmp_path: Path) -> None:
    """A file of a RiSAWOZ gold folder that cannot be read (a broken link, a damaged zip)
    may be gold: exit 4; one that holds no dialogues at its start is named in a note. Both
    were left out without a word (a folder of 3 dialogues scored on the 2 left: 100.00)."""
    folder = tmp_path / "risawoz"
    shutil.copytree(gold_samples / "risawoz", folder)
    (folder / "ontology.json").write_text('{"slots": []}', encoding="utf-8")
    gold = load_gold(folder, corpus="risawoz")
    assert len(gold.dialogues) == 3
    assert "not read as gold: ontology.json, predictions.json in the gold folder" in \
        " ".join(gold.notes)
    (folder / "part2.json").symlink_to(folder / "missing.json")
    with pytest.raises(GoldDataError, match="cannot read part2.json in the gold folder"):
        load_gold(folder, corpus="risawoz")
    (folder / "part2.json").unlink()
    (folder / "part2.json.zip").write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(GoldDataError, match="cannot read part2.json.zip in the gold folder"):
        load_gold(folder, corpus="risawoz")


def test_crosswoz_folder_and_zip_layouts_that_contradict_are_refused(gold_samples: Path,
                                                                    tmp_path: Path) -> None:
    """A broken ``test.json`` link next to ``val.json`` left the folder scored as val; a
    ``test.json.zip`` holding ``val.json`` was scored as test. Both are exit 4 now."""
    import zipfile

    folder = tmp_path / "cw"
    folder.mkdir()
    sample = (gold_samples / "crosswoz" / "test.json").read_bytes()
    (folder / "val.json").write_bytes(sample)
    (folder / "test.json").symlink_to(folder / "missing.json")
    with pytest.raises(GoldDataError, match="test.json in the gold folder is not a readable"):
        load_gold(folder, corpus="crosswoz")
    (folder / "test.json").unlink()
    assert load_gold(folder, corpus="crosswoz").split == "val"
    zipped = tmp_path / "test.json.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("val.json", sample)
    with pytest.raises(GoldDataError, match=r"the zip is named for the test split, the file "
                       r"in it \(val.json\) for the dev split"):
        load_gold(zipped, corpus="crosswoz")
    # a zip named for no split says it by its file (it was scored as any --split given)
    plain = tmp_path / "crosswoz.zip"
    with zipfile.ZipFile(plain, "w") as archive:
        archive.writestr("val.json", sample)
    assert load_gold(plain, corpus="crosswoz").split == "val"
    with pytest.raises(GoldDataError, match=r"--split test given, but the zip holds val.json, "
                       "of the val split"):
        load_gold(plain, corpus="crosswoz", split="test")


def test_a_jmultiwoz_folder_with_two_copies_is_refused(gold_samples: Path,
                                                       tmp_path: Path) -> None:
    """``dialogues.json`` at the top and in ``JMultiWOZ_1.0/``: the top one was read without
    a word (66.67 -> 41.67 when they differed)."""
    folder = tmp_path / "jmw"
    shutil.copytree(gold_samples / "jmultiwoz", folder)
    shutil.copytree(gold_samples / "jmultiwoz", folder / "JMultiWOZ_1.0")
    with pytest.raises(GoldDataError, match="the folder holds dialogues.json and "
                       "JMultiWOZ_1.0/dialogues.json"):
        load_gold(folder, corpus="jmultiwoz", split="test")
    assert load_gold(folder / "JMultiWOZ_1.0", corpus="jmultiwoz", split="test").dialogues


@pytest.mark.parametrize(("table", "edit", "message"), [
    ("attraction_db.json", lambda rows: rows[0].update({"名称": 0}),
     "row 0: the entity column '名称' must be a non-empty string, found 0"),
    ("hotel_db.json", lambda rows: rows.clear(), "the table has no rows"),
])
def test_a_risawoz_database_table_without_entity_names_is_refused(shared_dir: Path,
                                                                  tmp_path: Path, table: str,
                                                                  edit, message: str) -> None:
    """A row whose entity name is no string cannot be found by name: Inform/Success dropped
    without a word (94.74 / 94.00 -> 72.63 / 71.00 on the 100-dialogue sample)."""
    from dst_eval.corpora.risawoz.database import RisawozDatabase

    database = tmp_path / "DB"
    shutil.copytree(shared_dir / "corpora" / "risawoz" / "RiSAWOZ-Database-and-Ontology" / "DB",
                    database)
    assert RisawozDatabase.load(database).domains
    rows = json.loads((database / table).read_text(encoding="utf-8"))
    edit(rows)
    (database / table).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(GoldDataError, match=message):
        RisawozDatabase.load(database)


def test_a_zip_compressed_by_a_method_zipfile_cannot_read(gold_samples: Path,
                                                          tmp_path: Path) -> None:
    """A member compressed with, say, Deflate64 ended in an internal error (exit 1), as gold,
    as predictions, or as a file of a RiSAWOZ gold folder."""
    import struct
    import zipfile

    from dst_eval import evaluate
    from dst_eval.errors import PredictionError

    def deflate64(path: Path, name: str, content: bytes) -> Path:
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
            archive.writestr(name, content)
        data = bytearray(path.read_bytes())  # the method field, local and central headers
        data[8:10] = struct.pack("<H", 9)
        central = data.find(b"PK\x01\x02")
        data[central + 10:central + 12] = struct.pack("<H", 9)
        path.write_bytes(bytes(data))
        return path

    sample = gold_samples / "crosswoz"
    gold = deflate64(tmp_path / "test.json.zip", "test.json", (sample / "test.json").read_bytes())
    with pytest.raises(GoldDataError, match="compression method is not supported"):
        evaluate(sample / "predictions.json", gold=gold, corpus="crosswoz")
    predictions = deflate64(tmp_path / "p.zip", "p.json",
                            (sample / "predictions.json").read_bytes())
    with pytest.raises(PredictionError, match="compression method is not supported"):
        evaluate(predictions, gold=sample)
    folder = tmp_path / "risawoz"
    shutil.copytree(gold_samples / "risawoz", folder)
    deflate64(folder / "part2.json.zip", "part2.json", b"[]")
    with pytest.raises(GoldDataError, match="cannot read part2.json.zip in the gold folder"):
        load_gold(folder, corpus="risawoz")
