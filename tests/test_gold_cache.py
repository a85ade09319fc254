"""The on-disk gold cache returns a gold set equal to a fresh load, and is never stale."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from dst_eval.gold_cache import from_compact, to_compact
from dst_eval.loaders import load_gold

SAMPLES = Path(__file__).resolve().parent.parent / "gold_samples"


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("DST_EVAL_NO_CACHE", raising=False)
    return tmp_path / "cache" / "dst-eval"


def _fresh(path, corpus, monkeypatch):
    monkeypatch.setenv("DST_EVAL_NO_CACHE", "1")
    gold = load_gold(path, corpus=corpus)
    monkeypatch.delenv("DST_EVAL_NO_CACHE")
    return gold


@pytest.mark.parametrize("corpus", ["multiwoz22", "multiwoz21", "crosswoz", "risawoz",
                                    "jmultiwoz"])
def test_round_trip_is_equal_for_every_corpus(corpus):
    path = SAMPLES / corpus / "data.json" if corpus == "multiwoz21" else SAMPLES / corpus
    gold = load_gold(path, corpus=corpus)
    assert len(gold) > 0
    again = from_compact(to_compact(gold))
    assert again == gold
    assert [d.goal for d in again] == [d.goal for d in gold]
    assert [t.system_annotations for t in again.turns()] == [
        t.system_annotations for t in gold.turns()]


def test_cache_is_used_then_invalidated_by_a_change(tmp_path, cache_home, monkeypatch):
    source = tmp_path / "mwz22"
    shutil.copytree(SAMPLES / "multiwoz22", source)
    fresh = _fresh(source, "multiwoz22", monkeypatch)
    assert load_gold(source, corpus="multiwoz22") == fresh  # writes the entry
    entries = list(cache_home.glob("gold-*.marshal"))
    assert len(entries) == 1
    assert load_gold(source, corpus="multiwoz22") == fresh  # reads it
    # change one gold value: the cached entry must not be returned
    dialogues = source / "dialogues_001.json"
    text = dialogues.read_text(encoding="utf-8")
    first_value = text.index('"slot_values"')
    assert '"centre"' in text[first_value:] or '"cheap"' in text[first_value:]
    changed = text.replace('"cheap"', '"expensive"', 1) if '"cheap"' in text else \
        text.replace('"centre"', '"north"', 1)
    dialogues.write_text(changed, encoding="utf-8")
    reloaded = load_gold(source, corpus="multiwoz22")
    assert reloaded == _fresh(source, "multiwoz22", monkeypatch)
    assert reloaded != fresh


def test_corrupt_entries_are_ignored_and_no_cache_writes_nothing(tmp_path, cache_home,
                                                                 monkeypatch):
    fresh = _fresh(SAMPLES / "crosswoz", "crosswoz", monkeypatch)
    load_gold(SAMPLES / "crosswoz", corpus="crosswoz")
    for entry in cache_home.glob("gold-*.marshal"):
        entry.write_bytes(b"garbage" * 10)
    assert load_gold(SAMPLES / "crosswoz", corpus="crosswoz") == fresh
    shutil.rmtree(cache_home)
    monkeypatch.setenv("DST_EVAL_NO_CACHE", "1")
    load_gold(SAMPLES / "crosswoz", corpus="crosswoz")
    assert not cache_home.exists()


def test_unwritable_cache_directory_is_not_an_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.delenv("DST_EVAL_NO_CACHE", raising=False)
    assert len(load_gold(SAMPLES / "jmultiwoz", corpus="jmultiwoz")) > 0
    assert os.path.isfile(blocker)


def test_response_gold_cache_equals_a_fresh_derivation(shared_dir, cache_home, monkeypatch):
    from dst_eval.multiwoz.response import load_response_gold

    data = shared_dir / "corpora" / "multiwoz21" / "test.json.zip"
    db = shared_dir / "corpora" / "multiwoz21" / "db"
    monkeypatch.setenv("DST_EVAL_NO_CACHE", "1")
    fresh = load_response_gold(data, db)
    monkeypatch.delenv("DST_EVAL_NO_CACHE")
    first = load_response_gold(data, db)  # builds and writes the entry
    assert len(list(cache_home.glob("mwz-response-*.marshal"))) == 1
    cached = load_response_gold(data, db)  # reads it
    for gold in (first, cached):
        assert dict(gold.goals) == dict(fresh.goals)
        assert dict(gold.booked) == dict(fresh.booked)
        assert dict(gold.references) == dict(fresh.references)
        assert dict(gold.states) == dict(fresh.states)
