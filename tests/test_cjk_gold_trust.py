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
