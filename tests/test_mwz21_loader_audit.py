"""MultiWOZ 2.1 ``data.json`` loader: defects an audit found (gold scored that the user did
not mean, or a traceback where a one-line gold error belongs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dst_eval.corpora.multiwoz import loader21
from dst_eval.errors import GoldDataError


def _sample(gold_samples: Path) -> dict[str, Any]:
    return json.loads((gold_samples / "multiwoz21" / "data.json").read_text("utf-8"))


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), "utf-8")
    return path


@pytest.mark.parametrize("booked", ["x", "", ["ref"], [], None, 3])
def test_book_booked_is_never_a_slot(tmp_path: Path, gold_samples: Path, booked: Any) -> None:
    """``book.booked`` of any type (a string was read as the slot ``hotel-bookbooked``)."""
    data = _sample(gold_samples)
    data["SMPL001.json"]["log"][1]["metadata"]["hotel"]["book"]["booked"] = booked
    gold = loader21.load(_write(tmp_path / "data.json", data))
    turn = gold.get("SMPL001.json").turns[0]
    # SMPL001 log[1] metadata: hotel semi area east, pricerange cheap, stars "do n't care";
    # every other value is "", "none" or "not mentioned"
    assert dict(turn.state) == {"hotel-area": ("east",), "hotel-pricerange": ("cheap",),
                                "hotel-stars": ("dontcare",)}
    assert all(slot != "bookbooked" for _domain, items in turn.system_annotations["belief"]
               for slot, _value in items)


@pytest.mark.parametrize(("domain", "part", "slot"), [
    ("hotel", "semi", "pr\u0456cerange"), ("hotel", "book", "a"), ("hospital", "semi", "a"),
    ("hotel", "semi", "price range")])
def test_a_slot_multiwoz_does_not_have_is_a_gold_error(tmp_path: Path, gold_samples: Path,
                                                       domain: str, part: str, slot: str) -> None:
    """A gold slot set to a value that is none of MultiWOZ's (a Cyrillic і, an invented
    name) was scored silently: JGA 0.00 for 33.33 on the sample, no word."""
    data = _sample(gold_samples)
    metadata = data["SMPL001.json"]["log"][1]["metadata"]
    metadata.setdefault(domain, {}).setdefault(part, {})[slot] = "cheap"
    file = _write(tmp_path / "data.json", data)
    key = f"{domain}-{'book' if part == 'book' else ''}{slot.replace(' ', '')}"
    if key == "hotel-pricerange":  # spellings of a slot it has are that slot
        metadata[domain][part].pop("pricerange")
        assert dict(loader21.load(_write(tmp_path / "d.json", data)).get(
            "SMPL001.json").turns[0].state)["hotel-pricerange"] == ("cheap",)
        return
    with pytest.raises(GoldDataError, match=f"is a slot \\({key!r}\\) that MultiWOZ does "
                       "not have") as info:
        loader21.load(file)
    assert (info.value.file, info.value.dialogue, info.value.turn) == (
        str(file), "SMPL001.json", 1)
    metadata[domain][part][slot] = "not mentioned"  # an empty value sets no slot
    assert loader21.load(_write(tmp_path / "empty.json", data)).get("SMPL001.json")


def test_train_book_ticket_is_never_a_slot(tmp_path: Path, gold_samples: Path) -> None:
    """``train.book.ticket`` is in MultiWOZ's own metadata (empty in the 2.1 test and val
    sets) and dropped by every preprocessing (TRADE, ConvLab, MultiWOZ 2.4): a value there
    is no gold slot that no system predicts (JGA 33.33 -> 0.00), and no edit either."""
    data = _sample(gold_samples)
    train = data["SMPL001.json"]["log"][1]["metadata"].setdefault("train", {})
    train.setdefault("book", {})["ticket"] = "10.10 pounds"
    turn = loader21.load(_write(tmp_path / "data.json", data)).get("SMPL001.json").turns[0]
    assert "train-bookticket" not in turn.state
    assert dict(turn.state) == {"hotel-area": ("east",), "hotel-pricerange": ("cheap",),
                                "hotel-stars": ("dontcare",)}


@pytest.mark.parametrize("part", ["semi", "book"])
def test_null_semi_or_book_is_a_gold_error(tmp_path: Path, gold_samples: Path,
                                           part: str) -> None:
    """``semi: null`` was read as an empty domain (the hotel slots of that turn dropped);
    a present null is a wrong type like ``[]``; an absent part stays allowed."""
    data = _sample(gold_samples)
    data["SMPL001.json"]["log"][1]["metadata"]["hotel"][part] = None
    file = _write(tmp_path / "data.json", data)
    with pytest.raises(GoldDataError, match=f"metadata hotel.{part} must be an object") as info:
        loader21.load(file)
    assert (info.value.file, info.value.dialogue, info.value.turn) == (
        str(file), "SMPL001.json", 1)
    assert info.value.exit_code == 4
    del data["SMPL001.json"]["log"][1]["metadata"]["hotel"][part]
    absent = loader21.load(_write(tmp_path / "absent.json", data))
    state = absent.get("SMPL001.json").turns[0].state  # only hotel semi slots are set there
    assert sorted(state) == ([] if part == "semi" else
                             ["hotel-area", "hotel-pricerange", "hotel-stars"])


def test_goal_that_does_not_parse_is_a_gold_error(tmp_path: Path, gold_samples: Path,
                                                  shared_dir: Path, capsys) -> None:
    """A Latin-1 byte in ``goal`` (parsed lazily, for response scoring) was an exit-1
    JSONDecodeError; it is a one-line exit-4 error naming file and dialogue."""
    from dst_eval.cli.app import main

    folder = tmp_path / "gold"
    folder.mkdir()
    for name in ("testListFile", "valListFile"):
        (folder / name).write_bytes((gold_samples / "multiwoz21" / name).read_bytes())
    data = _sample(gold_samples)
    data["SMPL001.json"]["goal"]["hotel"]["info"]["area"] = "GOAL-AREA"
    file = folder / "data.json"
    file.write_bytes(json.dumps(data).encode().replace(b"GOAL-AREA", b"e\xe9st"))
    gold = loader21.load(file, split="test")  # DST reads no goal: loads
    with pytest.raises(GoldDataError, match="goal entry 'hotel' is not valid JSON") as info:
        dict(gold.get("SMPL001.json").goal)
    assert (info.value.file, info.value.dialogue, info.value.exit_code) == (
        str(file), "SMPL001.json", 4)

    predictions = json.loads((gold_samples / "multiwoz21" / "predictions.json").read_text())
    for turns in predictions.values():
        for turn in turns:
            turn["response"] = "there is a [value_area] hotel"
    pred = _write(tmp_path / "pred.json", predictions)
    for profile in ("strict", "mwzeval"):
        code = main([str(pred), "--gold", str(file), "--split", "test", "--profile", profile,
                     "--db", str(shared_dir / "corpora" / "multiwoz21" / "db"), "-f", "json",
                     "-q"])
        err = capsys.readouterr().err.strip()
        assert code == 4 and "Traceback" not in err and len(err.splitlines()) == 1
        assert f"{file}, dialogue SMPL001.json: goal entry 'hotel'" in err

    # a leaderboard on that gold: a problem of the gold, not of the submission that makes
    # the scorer read the goal (responses), and not one that stops the others' scoring (a
    # DST-only submission never reads the goal): the build ends with exit 4 and still ranks
    # the others; it used to list the submission as invalid (exit 3), then (fc47818) to
    # stop the whole build when one submission carried responses
    subs = tmp_path / "subs"
    subs.mkdir()
    _write(subs / "with_responses.json", predictions)
    _write(subs / "dst_only.json", {d: [{"state": t["state"]} for t in turns]
                                    for d, turns in predictions.items()})
    config = tmp_path / "board.toml"
    config.write_text("\n".join([
        "[leaderboard]", 'corpus = "multiwoz21"', f"gold = {json.dumps(str(file))}",
        'split = "test"', 'metrics = ["joint_goal_accuracy"]',
        'rank_by = "joint_goal_accuracy"',
        "[[submissions]]", f"dir = {json.dumps(str(subs))}",
        "[leaderboard.options]",
        f"db = {json.dumps(str(shared_dir / 'corpora' / 'multiwoz21' / 'db'))}", ""]),
        encoding="utf-8")
    out = tmp_path / "out"
    code = main(["leaderboard", str(config), "--output-dir", str(out), "--no-cache", "-q"])
    err = capsys.readouterr().err
    board = json.loads((out / "leaderboard.json").read_text("utf-8"))
    assert code == 4, err
    assert [row["submission"] for row in board["rows"]] == ["dst_only.json"]
    (refused,) = board["invalid"]
    assert refused["file"] == "with_responses.json"
    assert "problem with the board's gold data, not with this submission" in refused["reason"]
    assert "goal entry 'hotel' is not valid JSON" in refused["reason"]
    for name in ("leaderboard.md", "leaderboard.json", "leaderboard.html"):  # no server path
        assert str(tmp_path) not in (out / name).read_text("utf-8"), name
    for name, expected in (("with_responses.json", 4), ("dst_only.json", 0)):
        code = main(["leaderboard", str(config), "--output-dir", str(out), "--no-cache", "-q",
                     "--check", str(subs / name)])
        capsys.readouterr()
        assert code == expected, name


@pytest.mark.parametrize("stray_first", [False, True])
def test_zip_list_files_count_only_next_to_the_data(tmp_path: Path, gold_samples: Path,
                                                    stray_first: bool) -> None:
    """A ``testListFile`` in another folder of the zip replaced the one beside ``data.json``
    (the last member of that name won): ``--split test`` scored the dev dialogue."""
    import zipfile

    sample = gold_samples / "multiwoz21"
    stray = ("sub/testListFile", "SMPL002.json\n")  # names the dev dialogue
    data = (sample / "data.json").read_text("utf-8")
    members = [("data.json", data),
               ("testListFile", "SMPL001.json\n"), ("valListFile", "SMPL002.json\n")]
    members = [stray, *members] if stray_first else [*members, stray]
    archive = tmp_path / "gold.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, text in members:
            zf.writestr(name, text)
    assert [d.dialogue_id for d in loader21.load(archive, split="test")] == ["SMPL001.json"]
    assert [d.dialogue_id for d in loader21.load(archive, split="dev")] == ["SMPL002.json"]

    alone = tmp_path / "alone.zip"  # data in a folder, list files only elsewhere: none
    with zipfile.ZipFile(alone, "w") as zf:
        zf.writestr("release/data.json", data)
        zf.writestr("testListFile", "SMPL001.json\n")
        zf.writestr("other/testListFile", "SMPL001.json\n")
    with pytest.raises(GoldDataError, match="holds no test split"):
        loader21.load(alone, split="test")
    assert len(loader21.load(alone)) == 2  # no list file: the whole file
