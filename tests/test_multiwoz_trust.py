"""MultiWOZ trust fixes: flat states in Inform/Success, and list files that contradict the gold.

* Inform/Success read a flat ``{"domain-slot": value}`` state as the nested one (README: "A
  state is nested ... or flat ..., everywhere"): on the real 2.1 test set, mwzeval's
  systems with their states written flat (JSON and JSONL) score mwzeval's own numbers
  (``reference_outputs.json``, which ``tests/test_mwz_response.py`` ties the nested files
  to); they were scored with empty states (Inform 22.1 instead of 96.0 in an audit).
* A file named for its split (``test.json``, ``test.json.zip`` of a per-split folder) that
  lacks dialogues its list file names is refused, as ``data.json`` is; a dialogue listed
  in both list files is refused; a listed id matching a dialogue only after Unicode
  normalisation is refused with a message saying so; a folder named ``test`` (the working
  directory) does not make ``data.json`` the test split.
"""

from __future__ import annotations

import json
import shutil
import unicodedata
import zipfile
from pathlib import Path
from typing import Any

import pytest

from dst_eval.alignment import align
from dst_eval.cli.app import main
from dst_eval.corpora import load_gold
from dst_eval.corpora.multiwoz import loader21
from dst_eval.corpora.multiwoz.database import MultiwozDatabase
from dst_eval.corpora.multiwoz.engine import score_responses
from dst_eval.corpora.multiwoz.response_gold import ResponseGold, response_gold
from dst_eval.errors import EXIT_GOLD_PROBLEM, GoldDataError
from dst_eval.gold import GoldSet
from dst_eval.predictions.reader import predictions_from_object, read_predictions

SAMPLE = Path(__file__).resolve().parent.parent / "gold_samples" / "multiwoz21"


# ------------------------------------------------------------------------- flat states


@pytest.fixture(scope="module")
def mwzeval_dir(shared_dir: Path) -> Path:
    return shared_dir / "reference" / "mwzeval"


@pytest.fixture(scope="module")
def gold(shared_dir: Path, mwz21_test_gold: GoldSet) -> ResponseGold:
    database = MultiwozDatabase.load(shared_dir / "corpora" / "multiwoz21" / "db")
    return response_gold(mwz21_test_gold, database)


@pytest.fixture(scope="module")
def reference_outputs(mwzeval_dir: Path) -> dict[str, Any]:
    return json.loads((mwzeval_dir / "reference_outputs.json").read_text())["systems"]


def _system(mwzeval_dir: Path, name: str) -> dict[str, list[dict[str, Any]]]:
    return json.loads((mwzeval_dir / "predictions" / f"{name}.json").read_text())


def _flat(state: dict[str, dict[str, str]]) -> dict[str, str]:
    return {f"{domain}-{slot}": value for domain, slots in state.items()
            for slot, value in slots.items()}


def _flattened(data: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    return {key: [{**turn, "state": _flat(turn["state"])} for turn in turns]
            for key, turns in data.items()}


def _score(gold: ResponseGold, data: Any, *, compat: bool, pred_format: str = "mwzeval"
           ) -> dict[str, Any]:
    predictions = predictions_from_object(data, pred_format=pred_format, corpus="multiwoz21")
    return score_responses(gold, align(gold.gold, predictions), compat=compat,
                           missing="skip" if compat else "wrong")


def _inform_success(result: dict[str, Any]) -> tuple:
    return (result["inform"], result["success"], result["inform_by_domain"],
            result["success_by_domain"], result["setting"])


# augpt gives active_domains, galaxy-e2e does not (they are estimated from the states);
# both have predicted states without empty domain objects (a flat state cannot hold one)
@pytest.mark.parametrize("name", ["augpt", "galaxy-e2e"])
def test_flat_states_score_mwzeval_numbers_like_nested_ones(
        gold: ResponseGold, mwzeval_dir: Path, reference_outputs: dict, name: str) -> None:
    nested = _system(mwzeval_dir, name)
    flat = _flattened(nested)
    expected = reference_outputs[name]
    for compat in (True, False):
        got = _score(gold, flat, compat=compat)
        assert got["state_source"] == "predicted"
        assert _inform_success(got) == _inform_success(_score(gold, nested, compat=compat))
        if compat:  # mwzeval's own output on the nested file
            official = got["official"]["success"]
            assert (official["inform"], official["success"]) == (
                expected["inform_dom"], expected["success_dom"])
            n_flat = sum(1 for turns in flat.values() for turn in turns if turn["state"])
            assert got["problems"]["flat_state"]["count"] == n_flat  # {} is no flat state
        else:
            assert "flat_state" not in got["problems"]


def test_flat_jsonl_states_score_mwzeval_numbers(gold: ResponseGold, mwzeval_dir: Path,
                                                  reference_outputs: dict,
                                                  tmp_path: Path) -> None:
    nested = _system(mwzeval_dir, "augpt")
    path = tmp_path / "augpt.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for key, turns in nested.items():
            for index, turn in enumerate(turns):
                out.write(json.dumps({"dialogue_id": key, "turn_index": index,
                                      **turn, "state": _flat(turn["state"])}) + "\n")
    predictions = read_predictions(path, corpus="multiwoz21")
    alignment = align(gold.gold, predictions)
    official = score_responses(gold, alignment, compat=True, missing="skip")["official"]
    expected = reference_outputs["augpt"]
    assert (official["success"]["inform"], official["success"]["success"]) == (
        expected["inform_dom"], expected["success_dom"])
    strict = score_responses(gold, alignment, compat=False)
    assert _inform_success(strict) == _inform_success(_score(gold, nested, compat=False))


def test_strict_spells_flat_and_nested_keys_as_the_dst_side(gold: ResponseGold,
                                                            mwzeval_dir: Path) -> None:
    """``Hotel-price range`` is ``hotel-pricerange`` for Inform/Success as for JGA (strict);
    mixed nested and flat entries of one state are one state."""
    nested = _system(mwzeval_dir, "augpt")
    respelled: dict[str, list[dict[str, Any]]] = {}
    for key, turns in nested.items():
        respelled[key] = []
        for index, turn in enumerate(turns):
            state: dict[str, Any] = {}
            for domain, slots in turn["state"].items():
                for slot, value in slots.items():
                    if index % 2:  # flat, odd case and spaces
                        spelled = "price range" if slot.lower() == "pricerange" else slot
                        state[f"{domain.title()}-{spelled.upper()}"] = value
                    else:  # nested, under a title-case domain
                        state.setdefault(domain.title(), {})[slot] = value
            respelled[key].append({**turn, "state": state})
    assert _inform_success(_score(gold, respelled, compat=False)) == _inform_success(
        _score(gold, nested, compat=False))


def test_a_slot_given_nested_and_flat_takes_its_first_set_value(gold: ResponseGold,
                                                               mwzeval_dir: Path) -> None:
    """A state giving a slot nested and then flat with another value reads the first set
    value for Inform/Success, as JGA and the duplicate_slot warning do (the flat one won:
    Inform 22.10 for 96.00 on augpt's states); under mwzeval the later one, as mwzeval's
    own normalisation keeps the later of two keys."""
    nested = _system(mwzeval_dir, "augpt")
    doubled: dict[str, list[dict[str, Any]]] = {}
    for key, turns in nested.items():
        doubled[key] = []
        for turn in turns:
            state: dict[str, Any] = {d: dict(slots) for d, slots in turn["state"].items()}
            for domain, slots in turn["state"].items():
                for slot in slots:
                    state[f"{domain}-{slot}"] = "xxx"  # after the nested one
                    state.setdefault(domain, {})
            doubled[key].append({**turn, "state": state})
    unset_first = {key: [{**turn, "state": {
        **{f"{d}-{s}": "none" for d, slots in turn["state"].items() for s in slots},
        **turn["state"]}} for turn in turns] for key, turns in nested.items()}
    expected = _inform_success(_score(gold, nested, compat=False))
    assert _inform_success(_score(gold, doubled, compat=False)) == expected
    assert _inform_success(_score(gold, unset_first, compat=False)) == expected
    assert _inform_success(_score(gold, doubled, compat=True)) != _inform_success(
        _score(gold, nested, compat=True))


# ------------------------------------------------------------------------- list files


def _mwz21_test_data(shared_dir: Path) -> dict[str, Any]:
    with zipfile.ZipFile(shared_dir / "corpora" / "multiwoz21" / "test.json.zip") as zf:
        return json.loads(zf.read(zf.namelist()[0]))


def _half_test_folder(shared_dir: Path, folder: Path, *, zipped: bool) -> Path:
    data = _mwz21_test_data(shared_dir)
    half = dict(list(data.items())[:500])
    folder.mkdir()
    shutil.copyfile(shared_dir / "corpora" / "multiwoz21" / "testListFile",
                    folder / "testListFile")
    if zipped:
        with zipfile.ZipFile(folder / "test.json.zip", "w") as zf:
            zf.writestr("test.json", json.dumps(half))
        return folder / "test.json.zip"
    (folder / "test.json").write_text(json.dumps(half), encoding="utf-8")
    return folder / "test.json"


@pytest.mark.parametrize("zipped", [False, True])
def test_partial_per_split_file_is_refused(shared_dir: Path, tmp_path: Path, capsys,
                                           zipped: bool) -> None:
    folder = tmp_path / "mw21half"
    file = _half_test_folder(shared_dir, folder, zipped=zipped)
    for path in (folder, file):
        with pytest.raises(GoldDataError, match="500 of the 1000 dialogues listed in "
                           r".*testListFile are not in the file") as err:
            load_gold(path, corpus="multiwoz21", split="test")
        assert "test.json" in str(err.value)
    predictions = tmp_path / "p.json"
    predictions.write_text(json.dumps({"SNG0073": [{"state": {}}]}), encoding="utf-8")
    code = main([str(predictions), "--gold", str(folder), "--split", "test", "-q"])
    err = capsys.readouterr().err.strip()
    assert code == EXIT_GOLD_PROBLEM
    assert "\n" not in err and "testListFile" in err and "500 of the 1000" in err
    assert "test.json" in err


def test_complete_per_split_files_still_load(shared_dir: Path) -> None:
    folder = shared_dir / "corpora" / "multiwoz21"
    test, dev = load_gold(folder, split="test"), load_gold(folder, split="dev")
    assert (len(test), len(dev)) == (1000, 999)
    assert [Path(f.path).name for f in test.files] == ["test.json.zip"]  # digest unchanged


def _sample_folder(tmp_path: Path, test_list: str, val_list: str, *,
                   data_name: str = "data.json") -> Path:
    folder = tmp_path / "gold"
    folder.mkdir()
    shutil.copyfile(SAMPLE / "data.json", folder / data_name)
    (folder / "testListFile").write_text(test_list, encoding="utf-8")
    (folder / "valListFile").write_text(val_list, encoding="utf-8")
    return folder / data_name


@pytest.mark.parametrize("split", ["test", "dev", "train", None])
def test_dialogue_in_two_list_files_is_refused(tmp_path: Path, split: str | None) -> None:
    data = _sample_folder(tmp_path, "SMPL001.json\nSMPL002.json\n", "SMPL002.json\n")
    with pytest.raises(GoldDataError, match="listed in both .*testListFile and "
                       ".*valListFile") as err:
        loader21.load(data, split=split)
    assert err.value.dialogue == "SMPL002.json"


def test_dialogue_in_two_list_files_is_refused_by_the_cli(tmp_path: Path, capsys) -> None:
    data = _sample_folder(tmp_path, "SMPL001.json\nSMPL002.json\n", "SMPL002.json\n",
                          data_name="test.json")
    code = main([str(SAMPLE / "predictions.json"), "--gold", str(data.parent), "--split",
                 "test", "-q"])
    err = capsys.readouterr().err.strip()
    assert code == EXIT_GOLD_PROBLEM and "\n" not in err
    assert "SMPL002.json" in err and "testListFile" in err and "valListFile" in err


def test_unicode_only_id_match_is_refused_and_named(tmp_path: Path) -> None:
    data = json.loads((SAMPLE / "data.json").read_text(encoding="utf-8"))
    composed = unicodedata.normalize("NFC", "ÉTÉ_SMPL001.json")
    decomposed = unicodedata.normalize("NFD", composed)
    assert composed != decomposed
    renamed = {composed if key == "SMPL001.json" else key: value for key, value in data.items()}
    folder = tmp_path / "gold"
    folder.mkdir()
    (folder / "data.json").write_text(json.dumps(renamed), encoding="utf-8")
    (folder / "testListFile").write_text(decomposed + "\n", encoding="utf-8")
    (folder / "valListFile").write_text("SMPL002.json\n", encoding="utf-8")
    for split in ("test", "dev", "train"):
        with pytest.raises(GoldDataError, match="only after Unicode normalisation") as err:
            loader21.load(folder / "data.json", split=split)
        assert ascii(decomposed) in str(err.value) and ascii(composed) in str(err.value)


def test_a_working_directory_named_test_names_no_split(tmp_path: Path, monkeypatch) -> None:
    """``data.json`` without list files is no split, whatever folder the run starts in."""
    folder = tmp_path / "gold"
    folder.mkdir()
    shutil.copyfile(SAMPLE / "data.json", folder / "data.json")
    (tmp_path / "test").mkdir()
    monkeypatch.chdir(tmp_path / "test")
    gold = loader21.load(folder / "data.json")
    assert (gold.split, len(gold)) == (None, 2)
    monkeypatch.chdir(folder)
    assert loader21.load(Path("data.json")).split is None


def test_a_data_zip_is_split_by_the_list_files_beside_it(tmp_path: Path, gold_samples: Path,
                                                         capsys) -> None:
    """``data.json.zip`` with ``testListFile``/``valListFile`` beside it is split by them, as
    ``data.json`` is (they were ignored: dev and test merged and scored as ``split:-``, and
    ``--split test`` said there were no list files); they enter the ``gold:`` digest."""
    import zipfile

    from dst_eval.cli.app import main
    from dst_eval.corpora import load_gold

    folder = tmp_path / "dz"
    folder.mkdir()
    with zipfile.ZipFile(folder / "data.json.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.write(gold_samples / "multiwoz21" / "data.json", "data.json")
    for name in ("testListFile", "valListFile"):
        shutil.copy(gold_samples / "multiwoz21" / name, folder / name)
    predictions = str(gold_samples / "multiwoz21" / "predictions.json")
    assert main([predictions, "--gold", str(folder / "data.json.zip"), "-q"]) == 2
    assert "holds several splits (dev, test" in capsys.readouterr().err
    plain = load_gold(gold_samples / "multiwoz21" / "data.json", split="test")
    zipped = load_gold(folder / "data.json.zip", split="test")
    assert ([d.dialogue_id for d in zipped] == [d.dialogue_id for d in plain]
            and zipped.split == "test")
    assert {Path(f.path).name for f in zipped.files} >= {"testListFile", "valListFile"}
