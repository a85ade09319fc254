"""Gold of another split, of several splits, of part of a split or from another folder is
never scored without a refusal or a note (RiSAWOZ, JMultiWOZ, CrossWOZ).

Every fixture is built here from the gold samples, with the split-id file or split list
saying by construction which split each dialogue is in.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from dst_eval.cli.app import main
from dst_eval.corpora.crosswoz import loader as crosswoz
from dst_eval.corpora.jmultiwoz import loader as jmultiwoz
from dst_eval.corpora.risawoz import loader as risawoz
from dst_eval.errors import GoldDataError

RIS_IDS = ("hospital_goal_1-01###9001", "car_goal_2-02###9002",
           "attraction_restaurant_goal_3-03###9003")
RELEASE_KEYS = {"train": "all_train10000.json", "dev": "all_dev600.json",
                "test": "all_test600_new.json"}


def _run(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, dict | None, str]:
    """Exit code, the JSON report (None when the run failed) and stderr."""
    code = main([*argv, "--format", "json", "-q"])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, json.loads(captured.out) if code == 0 else None, captured.err.strip()


def _signature_split(report: dict) -> str:
    [split] = [f for f in report["signature"].split("|") if f.startswith("split:")]
    return split


def _ris_records(gold_samples: Path) -> dict[str, dict]:
    data = json.loads((gold_samples / "risawoz" / "dialogues.json").read_text("utf-8"))
    return {d["dialogue_id"]: d for d in data}


def _ris_folder(tmp_path: Path, gold_samples: Path, files: dict[str, tuple[str, ...]],
                lists: dict[str, list[str]] | None) -> Path:
    """A folder of RiSAWOZ files (name -> the sample dialogues it holds) and, unless
    ``lists`` is None, a split-id file ``{split: ids}`` under the release's keys."""
    records = _ris_records(gold_samples)
    folder = tmp_path / "ris"
    folder.mkdir()
    for name, ids in files.items():
        (folder / name).write_text(json.dumps([records[i] for i in ids], ensure_ascii=False),
                                   "utf-8")
    if lists is not None:
        (folder / "dataset_split_ids_dict.json").write_text(json.dumps(
            {RELEASE_KEYS[split]: ids for split, ids in lists.items()}), "utf-8")
    return folder


def _ris_predictions(gold_samples: Path) -> str:
    return str(gold_samples / "risawoz" / "predictions.json")


# ----------------------------------------------------------------------------- RiSAWOZ

def test_risawoz_file_named_for_a_split_its_id_file_contradicts_is_refused(
        tmp_path: Path, gold_samples: Path, capsys: pytest.CaptureFixture) -> None:
    """test.json holding dialogues the split-id file next to it lists as train: exit 4
    naming both files, with or without --split (it was scored as split:test)."""
    folder = _ris_folder(tmp_path, gold_samples, {"test.json": RIS_IDS},
                         {"train": list(RIS_IDS), "test": ["elsewhere###1"]})
    data, ids = folder / "test.json", folder / "dataset_split_ids_dict.json"
    for extra in ((), ("--split", "test")):
        code, _, err = _run(capsys, _ris_predictions(gold_samples), "--gold", str(data),
                            *extra)
        assert code == 4, err
        assert len(err.splitlines()) == 1
        assert err.startswith(f"dst-eval: gold data problem: {data}: the file is named for "
                              "the test split, but 3 of its 3 dialogues are not listed for test")
        assert f"in {ids}: they are listed for train" in err
    # the same file named for its split is that split
    (folder / "test.json").rename(folder / "train.json")
    code, report, err = _run(capsys, _ris_predictions(gold_samples), "--gold",
                             str(folder / "train.json"))
    assert code == 0, err
    assert _signature_split(report) == "split:train"
    assert not [n for n in report["notes"] if "partial split" in n]


def test_risawoz_split_id_file_listing_a_dialogue_twice_is_refused(
        tmp_path: Path, gold_samples: Path, capsys: pytest.CaptureFixture) -> None:
    """A dialogue the split-id file lists for train and for test: its split cannot be told
    (exit 4, naming it); it was scored as whichever split was asked for."""
    folder = _ris_folder(tmp_path, gold_samples, {"dialogues.json": RIS_IDS},
                         {"train": list(RIS_IDS), "test": [RIS_IDS[0]]})
    code, _, err = _run(capsys, _ris_predictions(gold_samples), "--gold", str(folder),
                        "--split", "train")
    assert code == 4 and len(err.splitlines()) == 1
    assert f"dialogue {RIS_IDS[0]}: dialogue {RIS_IDS[0]!r} is listed for both the train " \
           "and the test split" in err


def test_risawoz_gold_of_several_splits_needs_split(
        tmp_path: Path, gold_samples: Path, capsys: pytest.CaptureFixture) -> None:
    """One file whose dialogues the split-id file places in test and train: exit 2 naming
    the splits (it was merged and scored as split:-)."""
    folder = _ris_folder(tmp_path, gold_samples, {"dialogues.json": RIS_IDS},
                         {"test": [RIS_IDS[0]], "train": list(RIS_IDS[1:])})
    code, _, err = _run(capsys, _ris_predictions(gold_samples), "--gold", str(folder))
    assert code == 2
    assert err == (f"dst-eval: usage error: {folder} holds several splits (train, test, by "
                   "dataset_split_ids_dict.json); choose one with --split")
    # dialogues in no list are a split of their own
    (folder / "dataset_split_ids_dict.json").write_text(json.dumps(
        {RELEASE_KEYS["train"]: list(RIS_IDS[1:]), RELEASE_KEYS["test"]: []}), "utf-8")
    code, _, err = _run(capsys, _ris_predictions(gold_samples), "--gold", str(folder))
    assert code == 2 and "(train, unlisted, by dataset_split_ids_dict.json)" in err


def test_risawoz_partial_split_is_noted(tmp_path: Path, gold_samples: Path,
                                        capsys: pytest.CaptureFixture) -> None:
    """--split test on gold holding 1 of the 2 listed test dialogues: scored as split:test
    with a note saying so (it had no note)."""
    folder = _ris_folder(tmp_path, gold_samples, {"dialogues.json": RIS_IDS},
                         {"test": [RIS_IDS[0], "elsewhere###1"], "train": list(RIS_IDS[1:])})
    code, report, err = _run(capsys, _ris_predictions(gold_samples), "--gold", str(folder),
                             "--split", "test", "--min-coverage", "0")
    assert code == 0, err
    assert _signature_split(report) == "split:test"
    assert report["coverage"]["gold_dialogues"] == 1
    partial = [n for n in report["notes"] if n.startswith("partial split")]
    assert partial == [
        "partial split: the gold holds 1 of the 2 dialogues dataset_split_ids_dict.json lists "
        "for test (all_test600_new.json); scores cover those only, not the whole split; 2 "
        "dialogues of other splits in the gold are not scored"]
    # a whole split: no note; without --split, one split held in part: the same note
    (folder / "dataset_split_ids_dict.json").write_text(json.dumps(
        {RELEASE_KEYS["test"]: [RIS_IDS[0]], RELEASE_KEYS["train"]: [*RIS_IDS[1:], "x###2"]}),
        "utf-8")
    whole = risawoz.load(folder, split="test")
    assert (len(whole), whole.split, whole.notes) == (1, "test", ())
    (folder / "dialogues.json").write_text(json.dumps(
        list(_ris_records(gold_samples).values())[1:], ensure_ascii=False), "utf-8")
    train = risawoz.load(folder)
    assert (len(train), train.split) == (2, "train")
    assert train.notes == (
        "partial split: the gold holds 2 of the 3 dialogues dataset_split_ids_dict.json lists "
        "for train (all_train10000.json); scores cover those only, not the whole split",)


def test_risawoz_folder_of_several_files_is_merged_with_a_note(
        tmp_path: Path, gold_samples: Path) -> None:
    """A folder's dialogue files are read as one gold (README: a directory), and a note
    names the files the scored dialogues come from (the merge was silent)."""
    folder = _ris_folder(tmp_path, gold_samples, {"a.json": RIS_IDS[:1],
                                                  "b.json": RIS_IDS[1:]}, None)
    note = ("gold merged from 2 RiSAWOZ dialogue files: a.json (1 dialogue), b.json (2 "
            "dialogues); give one file as --gold to score it alone")
    gold = risawoz.load(folder)
    assert (len(gold), gold.split, gold.notes) == (3, None, (note,))
    assert risawoz.load(folder / "b.json").notes == ()
    # with a split-id file: the split's dialogues from both files, the same note
    (folder / "dataset_split_ids_dict.json").write_text(json.dumps(
        {RELEASE_KEYS["train"]: list(RIS_IDS)}), "utf-8")
    gold = risawoz.load(folder, split="train")
    assert (len(gold), gold.split, gold.notes) == (3, "train", (note,))


def test_risawoz_release_sample_is_noted_as_part_of_train(
        shared_dir: Path, tmp_path: Path, gold_samples: Path,
        capsys: pytest.CaptureFixture) -> None:
    """The release's 100-dialogue train sample: split:train with the partial-split note;
    its folder also merges the 3 GEM card examples, which a note names."""
    folder = shared_dir / "corpora" / "risawoz"
    sample = risawoz.load(folder / "sample_train100_original_format.json")
    assert (len(sample), sample.split) == (100, "train")
    assert sample.notes == (
        "partial split: the gold holds 100 of the 10,000 dialogues dataset_split_ids_dict.json "
        "lists for train (all_train10000.json); scores cover those only, not the whole split",)
    merged = risawoz.load(folder)
    assert (len(merged), merged.split) == (103, "train")
    assert merged.notes[1] == (
        "gold merged from 2 RiSAWOZ dialogue files: gem_card_examples.json (3 dialogues), "
        "sample_train100_original_format.json (100 dialogues); give one file as --gold to "
        "score it alone")
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps({d.dialogue_id: [{"state": {}} for _ in d.turns]
                                 for d in sample}), "utf-8")
    code, report, err = _run(capsys, str(preds), "--gold", str(folder))
    assert code == 0, err
    assert merged.notes[0] in report["notes"] and merged.notes[1] in report["notes"]


# ----------------------------------------------------------------------------- JMultiWOZ

def _jm_zip(tmp_path: Path, gold_samples: Path, members: dict[str, str | bytes]) -> Path:
    archive = tmp_path / "jm.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for name, source in members.items():
            out.writestr(name, source if isinstance(source, bytes) else
                         (gold_samples / "jmultiwoz" / source).read_bytes())
    return archive


def test_jmultiwoz_zip_reads_the_split_list_next_to_dialogues(
        tmp_path: Path, gold_samples: Path, capsys: pytest.CaptureFixture) -> None:
    """A split_list.json in another folder of the zip is not read (the last one found
    anywhere was: 2 of the 3 test dialogues scored); two dialogues.json are refused."""
    old = json.dumps({"train": ["dialogue_9001AbCd", "dialogue_9005QrSt"],
                      "dev": ["dialogue_9004MnOp"],
                      "test": ["dialogue_9002EfGh", "dialogue_9003IjKl"]}).encode()
    archive = _jm_zip(tmp_path, gold_samples, {
        "JMultiWOZ_1.0/dialogues.json": "dialogues.json",
        "JMultiWOZ_1.0/split_list.json": "split_list.json",
        "zz_old/split_list.json": old})
    gold = jmultiwoz.load(archive, split="test")
    assert sorted(d.dialogue_id for d in gold) == [
        "dialogue_9001AbCd", "dialogue_9002EfGh", "dialogue_9003IjKl"]
    # a split list only in another folder is none: the dialogues name no split
    archive.unlink()
    archive = _jm_zip(tmp_path, gold_samples, {
        "JMultiWOZ_1.0/dialogues.json": "dialogues.json", "zz_old/split_list.json": old})
    with pytest.raises(GoldDataError, match="names no split .and there is no split_list"):
        jmultiwoz.load(archive, split="test")
    archive.unlink()
    archive = _jm_zip(tmp_path, gold_samples, {
        "a/dialogues.json": "dialogues.json", "a/split_list.json": "split_list.json",
        "b/dialogues.json": "dialogues.json", "b/split_list.json": "split_list.json"})
    code, _, err = _run(capsys, str(gold_samples / "jmultiwoz" / "predictions.json"),
                        "--gold", str(archive), "--split", "test")
    assert code == 4
    assert err == (f"dst-eval: gold data problem: {archive}: the zip holds 2 dialogues.json "
                   "(a/dialogues.json, b/dialogues.json); unzip it and pass the folder of the "
                   "one to score")


def test_jmultiwoz_dialogue_in_two_splits_is_refused(
        tmp_path: Path, gold_samples: Path, capsys: pytest.CaptureFixture) -> None:
    """split_list.json naming a dialogue in dev and test: exit 4 naming it and both splits
    (it was scored in test without a word)."""
    folder = tmp_path / "jm"
    folder.mkdir()
    shutil.copy(gold_samples / "jmultiwoz" / "dialogues.json", folder)
    split_list = folder / "split_list.json"
    split_list.write_text(json.dumps({
        "train": ["dialogue_9005QrSt"], "dev": ["dialogue_9004MnOp", "dialogue_9001AbCd"],
        "test": ["dialogue_9001AbCd", "dialogue_9002EfGh", "dialogue_9003IjKl"]}), "utf-8")
    for split in ("test", "train"):
        code, _, err = _run(capsys, str(gold_samples / "jmultiwoz" / "predictions.json"),
                            "--gold", str(folder), "--split", split)
        assert code == 4
        assert err == (f"dst-eval: gold data problem: {split_list}, dialogue "
                       "dialogue_9001AbCd: this dialogue is listed in two splits, 'dev' and "
                       "'test'")


# ----------------------------------------------------------------------------- CrossWOZ

def test_crosswoz_folder_with_json_and_zip_reads_json_with_a_note(
        tmp_path: Path, gold_samples: Path, capsys: pytest.CaptureFixture) -> None:
    """test.json and test.json.zip in one folder: test.json is read (as in MultiWOZ per-split
    folders) and a note names both (the zip was read silently)."""
    folder = tmp_path / "cw"
    folder.mkdir()
    shutil.copy(gold_samples / "crosswoz" / "test.json", folder)
    data = json.loads((folder / "test.json").read_text("utf-8"))
    del data["9003"]  # the zip differs: one dialogue fewer
    with zipfile.ZipFile(folder / "test.json.zip", "w") as out:
        out.writestr("test.json", json.dumps(data, ensure_ascii=False))
    note = (f"{folder} holds test.json and test.json.zip for one split: read test.json, not "
            "test.json.zip (they may differ); pass the file as --gold to choose")
    gold = crosswoz.load(folder)
    assert [f.path for f in gold.files] == [str(folder / "test.json")]
    assert (len(gold), gold.split, gold.notes) == (3, "test", (note,))
    assert crosswoz.load(folder / "test.json.zip").notes == ()
    code, report, err = _run(capsys, str(gold_samples / "crosswoz" / "predictions.json"),
                             "--gold", str(folder))
    assert code == 0, err
    assert note in report["notes"]


def test_risawoz_split_names_are_words_of_the_file_name():
    """A split is read from a file name as a word (digits and punctuation around it), not
    as any substring: ``latest_export.json`` named the test split and, next to a split-id
    file, was refused as contradicting it."""
    from dst_eval.corpora.risawoz.splits import split_from_name

    names = {"all_train10000.json": "train", "all_dev600.json": "dev", "test.json": "test",
             "all_test600_new.json": "test", "sample_train100_original_format.json": "train",
             "latest_export.json": None, "contest.json": None, "dialogues.json": None,
             "val.json": "dev", "all_validation.json": "dev"}
    assert {name: split_from_name(Path(name)) for name in names} == names
