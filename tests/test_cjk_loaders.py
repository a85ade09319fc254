"""CrossWOZ, RiSAWOZ and JMultiWOZ gold loaders: real-data counts and states, layouts, errors.

Expected states are re-derived here from the raw files with a few lines of independent
code (the SCORERS.md §10 recipes), never read back from the loader.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import unicodedata
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from dst_eval.config import corpus_config
from dst_eval.corpora import detect_corpus, load_gold
from dst_eval.corpora.crosswoz import loader as crosswoz
from dst_eval.corpora.jmultiwoz import loader as jmultiwoz
from dst_eval.corpora.layout import files_digest
from dst_eval.corpora.risawoz import loader as risawoz
from dst_eval.errors import GoldDataError, UsageError
from dst_eval.gold import GoldSet
from dst_eval.slotkeys import split_slot_key

# ----------------------------------------------------------------------------- helpers


def states(gold: GoldSet) -> dict[tuple[str, int], dict[str, tuple[str, ...]]]:
    return {(t.dialogue_id, t.turn_index): dict(t.state) for t in gold.turns()}


def raw_crosswoz(path: Path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read(archive.namelist()[0]))


def expected_crosswoz_states(raw: dict) -> dict[tuple[str, int], dict[str, tuple[str, ...]]]:
    """State of user message i = messages[i+1].sys_state_init, no selectedResults/blanks,
    values as annotated."""
    out = {}
    for dialogue_id, dialogue in raw.items():
        messages = dialogue["messages"]
        user_positions = [i for i, m in enumerate(messages) if m["role"] == "usr"]
        for turn_index, i in enumerate(user_positions):
            state = {}
            for domain, slots in messages[i + 1]["sys_state_init"].items():
                for slot, value in slots.items():
                    if slot != "selectedResults" and value.strip():
                        state[f"{domain}-{slot}"] = (value,)
            out[(dialogue_id, turn_index)] = state
    return out


def to_gem_crosswoz(dialogue_id: str, dialogue: dict, *, stringify_state: bool = False) -> dict:
    """The GEM/HF layout of one original CrossWOZ dialogue (columns, stringified goals)."""
    def goal(entries):
        return [[str(e[0]), e[1], e[2], str(e[3]) if not isinstance(e[3], str) else e[3],
                 str(e[4])] for e in entries]

    messages = dialogue["messages"]
    empty = {d: {k: ([] if k == "selectedResults" else "") for k in s}
             for d, s in messages[1]["sys_state_init"].items()}
    init = [m.get("sys_state_init", empty) for m in messages]
    return {
        "dialog_id": dialogue_id,
        "gem_id": f"GEM-CrossWOZ-test-{dialogue_id}",
        "sys_id": str(dialogue["sys-usr"][0]),
        "usr_id": str(dialogue["sys-usr"][1]),
        "type": dialogue["type"],
        "task description": dialogue["task description"],
        "goal": goal(dialogue["goal"]),
        "final_goal": goal(dialogue["final_goal"]),
        "messages": {
            "content": [m["content"] for m in messages],
            "role": [m["role"] for m in messages],
            "dialog_act": [m["dialog_act"] for m in messages],
            "sys_state_init": [repr(s) if stringify_state else s for s in init],
        },
    }


# ----------------------------------------------------------------------------- CrossWOZ real


@pytest.fixture(scope="session")
def crosswoz_dir(shared_dir: Path) -> Path:
    return shared_dir / "corpora" / "crosswoz"


@pytest.fixture(scope="session")
def crosswoz_test(crosswoz_test_gold: GoldSet) -> GoldSet:
    return crosswoz_test_gold  # conftest: crosswoz.load(test.json.zip), loaded once


@pytest.fixture(scope="session")
def crosswoz_test_raw(crosswoz_dir: Path) -> dict:
    return raw_crosswoz(crosswoz_dir / "test.json.zip")


def test_crosswoz_test_counts(crosswoz_test: GoldSet) -> None:
    assert crosswoz_test.corpus == "crosswoz" and crosswoz_test.split == "test"
    assert len(crosswoz_test) == 500
    assert crosswoz_test.n_turns == 4238
    assert sum(1 for t in crosswoz_test.turns() if not t.state) == 2  # SCORERS §11.4
    types = Counter(d.meta["type"] for d in crosswoz_test)
    assert types == {"CM": 166, "M": 157, "M+T": 84, "CM+T": 58, "S": 35}
    assert len(crosswoz_test.slots) == 26


def test_crosswoz_val_counts_from_directory(crosswoz_dir: Path) -> None:
    gold = load_gold(crosswoz_dir, split="dev")  # alias of val
    assert gold.split == "val"
    assert (len(gold), gold.n_turns) == (500, 4229)
    assert sum(1 for t in gold.turns() if not t.state) == 0
    assert Counter(d.meta["type"] for d in gold) == {"CM": 168, "M": 162, "M+T": 68,
                                                      "CM+T": 63, "S": 39}


def test_crosswoz_states_match_the_recipe(crosswoz_test: GoldSet, crosswoz_test_raw: dict) -> None:
    assert states(crosswoz_test) == expected_crosswoz_states(crosswoz_test_raw)


def test_crosswoz_specific_turns(crosswoz_test: GoldSet) -> None:
    dialogue = crosswoz_test.get("2303")  # the GEM card's example dialogue
    first, second = dialogue.turns[0], dialogue.turns[1]
    assert dict(first.state) == {"餐馆-人均消费": ("50-100元",), "餐馆-推荐菜": ("美食街",)}
    assert first.requested_slots == {"餐馆-名称"}
    assert first.services == ("餐馆",)
    assert first.raw_turn_index == 0 and second.raw_turn_index == 2
    assert first.user_utterance.startswith("你好，我想吃美食街")
    assert first.system_response.startswith("为您推荐鲜鱼口老字号美食街")
    assert dialogue.meta["type"] == "CM" and dialogue.meta["type_name"] == "不独立多领域"
    assert dialogue.services == ("餐馆", "景点", "酒店")
    assert dialogue.goal["goal"][1] == (1, "餐馆", "推荐菜", ("美食街",), False)


def test_crosswoz_system_annotations_are_the_answering_acts(crosswoz_test: GoldSet,
                                                            crosswoz_test_raw: dict) -> None:
    first, second = crosswoz_test.get("2303").turns[:2]
    assert dict(first.system_annotations) == {"acts": (
        ("Inform", "餐馆", "人均消费", "75元"), ("Inform", "餐馆", "名称", "鲜鱼口老字号美食街"))}
    assert second.system_annotations["acts"] == (
        ("Inform", "餐馆", "营业时间", "周一至周日 10:00-22:00"),)
    with pytest.raises(TypeError):
        first.system_annotations["acts"] = ()  # type: ignore[index]
    # every turn: the dialog_act of messages[raw_turn_index + 1], read independently
    raw_messages = {k: v["messages"] for k, v in crosswoz_test_raw.items()}
    expected = {(t.dialogue_id, t.turn_index): tuple(
        map(tuple, raw_messages[t.dialogue_id][t.raw_turn_index + 1]["dialog_act"]))
        for t in crosswoz_test.turns()}
    assert {(t.dialogue_id, t.turn_index): t.system_annotations["acts"]
            for t in crosswoz_test.turns()} == expected
    assert sum(len(a) for a in expected.values()) == 7712


def test_crosswoz_dirty_values_kept_as_annotated(crosswoz_test: GoldSet,
                                                 crosswoz_test_raw: dict) -> None:
    """The reader rewrites no value: the 11 padded test values keep their spaces and tabs
    (the profiles' policies strip them, or not: ``--norm exact``, trade)."""
    raw_padded = sorted(
        v for d in crosswoz_test_raw.values() for m in d["messages"] if m["role"] == "sys"
        for slots in m["sys_state_init"].values() for k, v in slots.items()
        if k != "selectedResults" and v.strip() and v != v.strip())
    assert len(raw_padded) == 11 and "3小时 " in raw_padded and "\t中国古动物馆" in raw_padded
    values = [v for t in crosswoz_test.turns() for vs in t.state.values() for v in vs]
    assert all(v.strip() for v in values)
    assert sorted(v for v in values if v != v.strip()) == raw_padded
    # full-width parentheses are kept: 116 test values change under NFKC (SCORERS §10)
    assert sum(unicodedata.normalize("NFKC", v) != v for v in values) == 116
    assert any(" " in v for t in crosswoz_test.turns()
               for k, vs in t.state.items() if k == "酒店-酒店设施" for v in vs)


def test_crosswoz_slot_list_is_the_release_template(crosswoz_test_raw: dict) -> None:
    template = next(iter(crosswoz_test_raw.values()))["messages"][1]["sys_state_init"]
    keys = {f"{d}-{s}" for d, slots in template.items() for s in slots if s != "selectedResults"}
    assert set(corpus_config("crosswoz").slots) == keys and len(keys) == 26
    assert corpus_config("crosswoz").multi_value_slots == {"餐馆-推荐菜", "酒店-酒店设施"}


def test_crosswoz_plain_json_equals_zip(crosswoz_dir: Path, crosswoz_test: GoldSet,
                                        tmp_path: Path) -> None:
    with zipfile.ZipFile(crosswoz_dir / "test.json.zip") as archive:
        (tmp_path / "test.json").write_bytes(archive.read("test.json"))
    plain = crosswoz.load(tmp_path / "test.json")
    assert plain.split == "test"
    assert states(plain) == states(crosswoz_test)


def test_crosswoz_gem_layout(crosswoz_test: GoldSet, crosswoz_test_raw: dict,
                             tmp_path: Path) -> None:
    ids = list(crosswoz_test_raw)[:40]
    records = [to_gem_crosswoz(i, crosswoz_test_raw[i], stringify_state=n % 2 == 1)
               for n, i in enumerate(ids)]
    jsonl = tmp_path / "crosswoz_gem.jsonl"
    jsonl.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records), "utf-8")
    as_list = tmp_path / "crosswoz_gem.json"
    as_list.write_text(json.dumps(records, ensure_ascii=False), "utf-8")
    expected = {k: v for k, v in states(crosswoz_test).items() if k[0] in set(ids)}
    for path in (jsonl, as_list):
        assert crosswoz.sniff(path) and detect_corpus(path) == "crosswoz"
        gem = crosswoz.load(path)
        assert gem.split == "test"  # from gem_id
        assert states(gem) == expected
    gem = crosswoz.load(jsonl)
    original = crosswoz_test.get(ids[0])
    loaded = gem.get(ids[0])
    assert loaded.goal["goal"] == original.goal["goal"]  # "['美食街']" and 'True' parsed back
    assert loaded.meta["type"] == original.meta["type"]
    assert [t.requested_slots for t in loaded.turns] == [t.requested_slots for t in original.turns]
    for gem_turn, turn in zip(loaded.turns, original.turns, strict=True):
        assert gem_turn.system_annotations == turn.system_annotations


def test_crosswoz_gem_layout_never_evaluates_code(tmp_path: Path) -> None:
    record = {"dialog_id": "1", "type": "单领域", "goal": [["1", "餐馆", "推荐菜",
                                                         "[__import__('os').getcwd()]", "False"]],
              "messages": {"content": ["你好", "你好"], "role": ["usr", "sys"],
                           "dialog_act": [[], []], "sys_state_init": [{}, {}]}}
    path = tmp_path / "evil.jsonl"
    path.write_text(json.dumps(record), "utf-8")
    with pytest.raises(GoldDataError, match="not a valid literal"):
        crosswoz.load(path)


# ----------------------------------------------------------------------------- CrossWOZ sample


def test_crosswoz_gold_sample(gold_samples: Path) -> None:
    gold = load_gold(gold_samples / "crosswoz")
    assert detect_corpus(gold_samples / "crosswoz") == "crosswoz"
    assert (gold.split, len(gold), gold.n_turns) == ("test", 3, 13)
    by_turn = states(gold)
    assert by_turn[("9001", 2)]["餐馆-名称"] == ("四季民福烤鸭店（故宫店） ",)  # trailing space
    assert by_turn[("9003", 3)]["餐馆-名称"] == ("\t砂锅居（西四店）",)  # leading tab
    assert by_turn[("9001", 1)]["餐馆-推荐菜"] == ("北京烤鸭 炸酱面",)
    assert by_turn[("9002", 4)] == {} and by_turn[("9003", 0)] == {}
    assert [d.meta["type"] for d in gold] == ["S", "M+T", "CM"]


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["9001"]["messages"][2].pop("role"), "role"),
    (lambda d: d["9001"]["messages"].pop(), "not followed by a system message"),
    (lambda d: d["9002"]["messages"][3]["sys_state_init"]["餐馆"].update(推荐菜=["a"]),
     "is a list"),
    (lambda d: d["9003"]["messages"][1].pop("sys_state_init"), "sys_state_init"),
])
def test_crosswoz_malformed_gold(gold_samples: Path, tmp_path: Path, mutate, message) -> None:
    data = json.loads((gold_samples / "crosswoz" / "test.json").read_text("utf-8"))
    mutate(data)
    path = tmp_path / "test.json"
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    with pytest.raises(GoldDataError, match=message) as info:
        crosswoz.load(path)
    text = str(info.value)
    assert "\n" not in text and str(path) in text and "dialogue 900" in text and "turn" in text


def test_crosswoz_not_json_and_wrong_split(tmp_path: Path, gold_samples: Path) -> None:
    bad = tmp_path / "test.json"
    bad.write_text("{not json", "utf-8")
    with pytest.raises(GoldDataError, match="invalid JSON"):
        crosswoz.load(bad)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "test.json.zip").write_bytes(b"PK\x03\x04 not really a zip")
    assert not crosswoz.sniff(broken)
    with pytest.raises(GoldDataError, match="not a valid zip file"):
        crosswoz.load(broken)
    with pytest.raises(GoldDataError, match="holds the test split"):  # exit 4 (issue 9)
        crosswoz.load(gold_samples / "crosswoz" / "test.json", split="val")
    with pytest.raises(GoldDataError, match="no CrossWOZ 'train' split"):
        crosswoz.load(gold_samples / "crosswoz", split="train")


# ----------------------------------------------------------------------------- RiSAWOZ real


@pytest.fixture(scope="session")
def risawoz_dir(shared_dir: Path) -> Path:
    return shared_dir / "corpora" / "risawoz"


def expected_risawoz_states(dialogues: list) -> dict[tuple[str, int], dict[str, tuple[str, ...]]]:
    return {(d["dialogue_id"], i): {k: (str(v),) for k, v in
                                    t["belief_state"]["inform slot-values"].items()
                                    if str(v).strip()}
            for d in dialogues for i, t in enumerate(d["dialogue"])}


def test_risawoz_real_counts_and_states(risawoz_dir: Path) -> None:
    sample = risawoz_dir / "sample_train100_original_format.json"
    gold = risawoz.load(sample)
    assert (len(gold), gold.n_turns, gold.split) == (100, 659, "train")
    assert states(gold) == expected_risawoz_states(json.loads(sample.read_text("utf-8")))
    card = risawoz.load(risawoz_dir / "gem_card_examples.json")
    assert (len(card), card.n_turns) == (3, 22)
    merged = risawoz.load(risawoz_dir)
    assert (len(merged), merged.n_turns) == (103, 681)
    train = risawoz.load(risawoz_dir, split="train")  # all in the official train ids
    assert (train.split, len(train)) == ("train", 103)
    with pytest.raises(GoldDataError, match="none of the dialogues belongs to the test split"):
        risawoz.load(risawoz_dir, split="test")


def test_risawoz_specific_turn_and_raw_values(risawoz_dir: Path) -> None:
    gold = risawoz.load(risawoz_dir / "gem_card_examples.json")
    turn = gold.get("attraction_goal_4-63###6177").turns[2]
    assert dict(turn.state) == {"旅游景点-景点类型": ("水乡 古镇",), "旅游景点-消费": ("中等",),
                                "旅游景点-名称": ("山塘 街",)}
    assert turn.requested_slots == {"旅游景点-特点"}
    assert turn.system_response.startswith("特点是欣赏苏州老城风貌")
    sample = risawoz.load(risawoz_dir / "sample_train100_original_format.json")
    values = {v for t in sample.turns() for vs in t.state.values() for v in vs}
    assert "<   15" in values  # word-segmented values are kept as annotated


def test_risawoz_system_annotations_are_the_segmentation(risawoz_dir: Path,
                                                         tmp_path: Path) -> None:
    sample = risawoz_dir / "sample_train100_original_format.json"
    gold = risawoz.load(sample)
    turn = gold.get("movie_tv_goal_4-21###6617").turns[1]
    assert turn.system_response == "您平时都喜欢看什么类型的日剧呢？"
    assert dict(turn.system_annotations) == {
        "segmented_response": "您 平时 都 喜欢 看 什么 类型 的 日剧 呢 ？"}
    with pytest.raises(TypeError):
        turn.system_annotations["segmented_response"] = ""  # type: ignore[index]
    raw = json.loads(sample.read_text("utf-8"))
    expected = {(d["dialogue_id"], i): {"segmented_response": t["segmented_system_utterance"]}
                for d in raw for i, t in enumerate(d["dialogue"])}
    assert {(t.dialogue_id, t.turn_index): dict(t.system_annotations)
            for t in gold.turns()} == expected
    # GEM/HF columns carry it too; a turn whose segmentation is null has no annotation
    raw[0]["dialogue"][0]["segmented_system_utterance"] = None
    path = tmp_path / "risawoz_gem.jsonl"
    path.write_text("\n".join(json.dumps(to_gem_risawoz(d, n), ensure_ascii=False)
                              for n, d in enumerate(raw[:2])), "utf-8")
    gem = risawoz.load(path)
    assert dict(gem.dialogues[0].turns[0].system_annotations) == {}
    assert [dict(t.system_annotations) for d in gem for t in d.turns][1:] == [
        expected[(t.dialogue_id, t.turn_index)] for d in gem for t in d.turns][1:]


def test_risawoz_slots_are_the_ontology(risawoz_dir: Path) -> None:
    ontology = json.loads((risawoz_dir / "RiSAWOZ-Database-and-Ontology" / "Ontology" /
                           "ontology.json").read_text("utf-8"))
    keys = [f"{d}-{s}" for d, slots in ontology.items() for s in slots]
    assert list(corpus_config("risawoz").slots) == keys and len(keys) == 159
    gold = risawoz.load(risawoz_dir)
    assert {k for t in gold.turns() for k in t.state} <= set(keys)
    assert split_slot_key("医院-3.0T MRI") == ("医院", "3.0T MRI")


def to_gem_risawoz(dialogue: dict, n: int) -> dict:
    """GEM/HF variants: turns as columns; belief states stringified or as slot-value lists."""
    turns = []
    for i, turn in enumerate(dialogue["dialogue"]):
        turn = dict(turn)
        belief = dict(turn["belief_state"])
        if (n + i) % 3 == 0:
            belief["inform slot-values"] = [{"slot": k, "value": v}
                                            for k, v in belief["inform slot-values"].items()]
            turn["belief_state"] = belief
        elif (n + i) % 3 == 1:
            turn["belief_state"] = repr(belief)
        turns.append(turn)
    columns = {key: [t[key] for t in turns] for key in turns[0]}
    return {"gem_id": f"GEM-RiSAWOZ-train-{n}", "dialogue_id": dialogue["dialogue_id"],
            "goal": dialogue["goal"], "domains": dialogue["domains"], "dialogue": columns}


def test_risawoz_gem_layout(risawoz_dir: Path, tmp_path: Path) -> None:
    sample = risawoz_dir / "sample_train100_original_format.json"
    raw = json.loads(sample.read_text("utf-8"))
    path = tmp_path / "risawoz_gem.jsonl"
    path.write_text("\n".join(json.dumps(to_gem_risawoz(d, n), ensure_ascii=False)
                              for n, d in enumerate(raw)), "utf-8")
    assert risawoz.sniff(path) and not crosswoz.sniff(path)
    gem = risawoz.load(path)
    assert states(gem) == expected_risawoz_states(raw)
    assert gem.dialogues[0].meta["gem_id"] == "GEM-RiSAWOZ-train-0"


def test_risawoz_gold_sample_and_dirty_values(gold_samples: Path) -> None:
    gold = load_gold(gold_samples / "risawoz")
    assert detect_corpus(gold_samples / "risawoz") == "risawoz"
    assert (len(gold), gold.n_turns) == (3, 11)
    by_turn = states(gold)
    hospital = "hospital_goal_1-01###9001"
    assert by_turn[(hospital, 2)]["医院-3.0T MRI"] == ("是",)
    car = "car_goal_2-02###9002"
    assert by_turn[(car, 1)] == {"汽车-能源类型": ("纯 电动",),
                                 "汽车-所属价格区间": ("15   ~   20",),
                                 "汽车-座位数": ("5",)}  # int 5 -> "5"
    mixed = "attraction_restaurant_goal_3-03###9003"
    assert by_turn[(mixed, 1)]["旅游景点-名称"] == (" 同里 古镇",)  # raw; despace at scoring
    assert "餐厅-区域" not in by_turn[(mixed, 2)]  # "" dropped
    assert gold.get(mixed).turns[2].requested_slots == {"餐厅-名称"}


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d[0]["dialogue"][1]["belief_state"]["inform slot-values"].update(
        {"名称": "x"}), "is not 'domain-slot'"),
    (lambda d: d[1]["dialogue"][0].pop("belief_state"), "inform slot-values"),
    (lambda d: d[2]["dialogue"][3]["belief_state"]["inform slot-values"].update(
        {"餐厅-推荐菜": ["a", "b"]}), "is a list"),
])
def test_risawoz_malformed_gold(gold_samples: Path, tmp_path: Path, mutate, message) -> None:
    data = json.loads((gold_samples / "risawoz" / "dialogues.json").read_text("utf-8"))
    mutate(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    with pytest.raises(GoldDataError, match=message) as info:
        risawoz.load(path)
    assert str(path) in str(info.value) and "dialogue " in str(info.value)
    assert "turn " in str(info.value)


# ----------------------------------------------------------------------------- JMultiWOZ


@pytest.fixture(scope="session")
def jmultiwoz_sample(gold_samples: Path) -> Path:
    return gold_samples / "jmultiwoz"


def expected_jmultiwoz_states(dialogues: dict, names: list[str]
                              ) -> dict[tuple[str, int], dict[str, tuple[str, ...]]]:
    out = {}
    for name in names:
        system_turns = [t for t in dialogues[name]["turns"] if t["speaker"] == "SYSTEM"]
        for i, turn in enumerate(system_turns):
            state = {}
            for part, prefix in (("belief_state", ""), ("book_state", "book_")):
                for domain, slots in turn["dialogue_state"][part].items():
                    for slot, value in slots.items():
                        if value:
                            state[f"{domain}-{prefix}{slot}"] = (value,)
            out[(name, i)] = state
    return out


def test_jmultiwoz_release_layout(jmultiwoz_sample: Path) -> None:
    raw = json.loads((jmultiwoz_sample / "dialogues.json").read_text("utf-8"))
    split_list = json.loads((jmultiwoz_sample / "split_list.json").read_text("utf-8"))
    with pytest.raises(UsageError, match=r"holds the splits train, dev, test \(by "
                       r"split_list.json\); name one with --split"):
        load_gold(jmultiwoz_sample)  # as for MultiWOZ's list files: no default split
    gold = load_gold(jmultiwoz_sample, split="test")
    assert detect_corpus(jmultiwoz_sample) == "jmultiwoz"
    assert (gold.split, len(gold), gold.n_turns) == ("test", 3, 12)
    assert [d.dialogue_id for d in gold] == split_list["test"]
    assert states(gold) == expected_jmultiwoz_states(raw, split_list["test"])
    for split in ("dev", "train"):
        other = jmultiwoz.load(jmultiwoz_sample, split=split)
        assert [d.dialogue_id for d in other] == split_list[split]
        assert states(other) == expected_jmultiwoz_states(raw, split_list[split])
    assert jmultiwoz.load(jmultiwoz_sample, split="validation").split == "dev"
    assert states(jmultiwoz.load(jmultiwoz_sample / "dialogues.json", split="test")) == \
        states(gold)

    assert len(corpus_config("jmultiwoz").slots) == 43


def test_split_lists_naming_one_split_need_no_split(jmultiwoz_sample: Path,
                                                   gold_samples: Path, tmp_path: Path) -> None:
    """A folder or split list holding one split is that split; several need ``--split``
    (CrossWOZ ``test.json`` + ``val.json`` too), as for SGD and MultiWOZ."""
    split_list = json.loads((jmultiwoz_sample / "split_list.json").read_text("utf-8"))
    folder = tmp_path / "jmw"
    folder.mkdir()
    shutil.copy(jmultiwoz_sample / "dialogues.json", folder / "dialogues.json")
    (folder / "split_list.json").write_text(json.dumps(
        {"train": [], "dev": split_list["dev"], "test": []}), "utf-8")
    gold = jmultiwoz.load(folder)
    assert (gold.split, [d.dialogue_id for d in gold]) == ("dev", split_list["dev"])
    cw = tmp_path / "cw"
    cw.mkdir()
    shutil.copy(gold_samples / "crosswoz" / "test.json", cw / "val.json")
    assert crosswoz.load(cw).split == "val"  # one file: its split
    shutil.copy(gold_samples / "crosswoz" / "test.json", cw / "test.json")
    with pytest.raises(UsageError, match="holds the splits val, test; name one with --split"):
        crosswoz.load(cw)
    assert crosswoz.load(cw, split="test").split == "test"


def test_jmultiwoz_specific_turns(jmultiwoz_sample: Path) -> None:
    gold = jmultiwoz.load(jmultiwoz_sample, split="test")
    hotel = gold.get("dialogue_9001AbCd")
    booked = hotel.turns[2]
    assert dict(booked.state) == {
        "general-active_domain": ("hotel",), "general-city": ("大阪",),
        "hotel-name": ("ホテル大阪ベイサイド",), "hotel-pricerange": ("安め",),
        "hotel-parking": ("有り(無料)",), "hotel-book_people": ("2",),
        "hotel-book_day": ("土曜日",), "hotel-book_stay": ("2",)}
    assert booked.raw_turn_index == 4 and booked.user_utterance.startswith("そこにします")
    assert booked.system_response.startswith("予約が完了しました")
    assert booked.services == ("hotel",)
    assert hotel.services == ("hotel",) and hotel.meta["system_name"] == "operator_0901aaaa"
    fukuoka = gold.get("dialogue_9003IjKl")
    assert len(fukuoka.turns) == 3  # the trailing USER turn is not evaluable
    assert fukuoka.turns[1].state["attraction-wifi"] == ("有り（無料）",)  # width kept
    assert set(corpus_config("jmultiwoz").slots) >= {k for t in gold.turns() for k in t.state}


def to_hf_jmultiwoz(dialogue: dict) -> dict:
    """HF layout: states as lists of {domain, slot, value} ("" = unset), turns as columns."""
    def entries(part):
        return [{"domain": d, "slot": s, "value": v or ""} for d, slots in part.items()
                for s, v in slots.items()]

    turns = []
    for turn in dialogue["turns"]:
        state = turn.get("dialogue_state")
        hf_state = {"belief_state": entries(state["belief_state"]) if state else [],
                    "book_state": entries(state["book_state"]) if state else []}
        turns.append({"turn_id": turn["turn_id"], "speaker": turn["speaker"],
                      "utterance": turn["utterance"], "dialogue_state": hf_state})
    goal = [{"domain": d, "task": task, "slot": s, "value": "" if task == "reqt" else slots[s]}
            for d, tasks in dialogue["goal"].items() for task, slots in tasks.items()
            for s in slots]
    return {"dialogue_id": dialogue["dialogue_id"], "dialogue_name": dialogue["dialogue_name"],
            "system_name": dialogue["system_name"], "user_name": dialogue["user_name"],
            "goal": goal, "turns": {k: [t[k] for t in turns] for k in turns[0]}}


def test_jmultiwoz_hf_layout_and_zip(jmultiwoz_sample: Path, tmp_path: Path) -> None:
    raw = json.loads((jmultiwoz_sample / "dialogues.json").read_text("utf-8"))
    split_list = json.loads((jmultiwoz_sample / "split_list.json").read_text("utf-8"))
    records = [to_hf_jmultiwoz(raw[name]) for name in split_list["test"]]
    path = tmp_path / "test.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records), "utf-8")
    assert jmultiwoz.sniff(path) and not crosswoz.sniff(path) and not risawoz.sniff(path)
    assert detect_corpus(path) == "jmultiwoz"  # not taken for MultiWOZ 2.2 (turns, speaker)
    hf = jmultiwoz.load(path)
    assert hf.split == "test"
    assert states(hf) == expected_jmultiwoz_states(raw, split_list["test"])
    assert hf.get("dialogue_9002EfGh").services == ("restaurant", "taxi")
    release = jmultiwoz.load(jmultiwoz_sample, split="test")
    assert hf.get("dialogue_9001AbCd").goal == release.get("dialogue_9001AbCd").goal
    assert hf.get("dialogue_9001AbCd").goal["hotel"]["reqt"] == ("name",)

    archive = tmp_path / "JMultiWOZ_1.0.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name in ("dialogues.json", "split_list.json"):
            zf.write(jmultiwoz_sample / name, f"JMultiWOZ_1.0/{name}")
    assert jmultiwoz.sniff(archive) and detect_corpus(archive) == "jmultiwoz"
    assert states(jmultiwoz.load(archive, split="test")) == states(hf)


def test_jmultiwoz_malformed(jmultiwoz_sample: Path, tmp_path: Path) -> None:
    raw = json.loads((jmultiwoz_sample / "dialogues.json").read_text("utf-8"))
    folder = tmp_path / "jmw"
    folder.mkdir()
    shutil.copy(jmultiwoz_sample / "split_list.json", folder / "split_list.json")
    del raw["dialogue_9002EfGh"]["turns"][3]["dialogue_state"]
    (folder / "dialogues.json").write_text(json.dumps(raw, ensure_ascii=False), "utf-8")
    with pytest.raises(GoldDataError, match="no dialogue_state") as info:
        jmultiwoz.load(folder, split="test")
    assert "dialogue dialogue_9002EfGh" in str(info.value) and "turn 3" in str(info.value)
    with pytest.raises(GoldDataError, match="no JMultiWOZ 'extra' split: split_list.json "
                       "holds the splits train, dev, test"):
        jmultiwoz.load(jmultiwoz_sample, split="extra")
    del raw["dialogue_9003IjKl"]
    (folder / "dialogues.json").write_text(json.dumps(raw, ensure_ascii=False), "utf-8")
    with pytest.raises(GoldDataError, match="not in dialogues.json"):
        jmultiwoz.load(folder, split="test")



@pytest.mark.parametrize("entry", ["dialogue_9001AbCd",
                                   {"dialogue_9001AbCd": 1, "dialogue_9002EfGh": 2},
                                   ["dialogue_9001AbCd", 5]])
def test_jmultiwoz_split_entry_must_be_a_list_of_names(jmultiwoz_sample: Path, tmp_path: Path,
                                                       entry: object) -> None:
    """A split entry of ``split_list.json`` that is not a list of names is a gold error
    naming ``split_list.json`` and the split. A string used to be read as names of one
    character each ("17 dialogues ... are not in dialogues.json"), an object by its keys
    (scored)."""
    folder = tmp_path / "jmw"
    folder.mkdir()
    shutil.copy(jmultiwoz_sample / "dialogues.json", folder / "dialogues.json")
    (folder / "split_list.json").write_text(json.dumps(
        {"train": ["dialogue_9005QrSt"], "test": entry}), "utf-8")
    for split in ("test", "train", None):
        with pytest.raises(GoldDataError) as info:
            jmultiwoz.load(folder, split=split)
        assert str(info.value) == (f"{folder / 'split_list.json'}: split 'test' is not a "
                                   "list of dialogue names")

# ----------------------------------------------------------------------------- detection


def test_sniffers_do_not_claim_each_other(gold_samples: Path, shared_dir: Path) -> None:
    samples = {"crosswoz": gold_samples / "crosswoz", "risawoz": gold_samples / "risawoz",
               "jmultiwoz": gold_samples / "jmultiwoz"}
    real = {"crosswoz": shared_dir / "corpora" / "crosswoz" / "test.json.zip",
            "risawoz": shared_dir / "corpora" / "risawoz" / "gem_card_examples.json"}
    modules = {"crosswoz": crosswoz, "risawoz": risawoz, "jmultiwoz": jmultiwoz}
    for corpus, path in [*samples.items(), *real.items()]:
        for name, module in modules.items():
            assert module.sniff(path) == (name == corpus), (name, path)
    others = [shared_dir / "corpora" / "multiwoz22" / "test" / "dialogues_001.json",
              shared_dir / "corpora" / "sgd" / "dev" / "dialogues_001.json",
              shared_dir / "corpora" / "multiwoz21" / "test.json.zip",
              shared_dir / "corpora" / "risawoz" / "dataset_split_ids_dict.json"]
    for path in others:
        for module in modules.values():
            assert not module.sniff(path), (module.__name__, path)


# ----------------------------------------------------------------------------- files read


def sha256_of(path: Path) -> tuple[str, str, int]:
    data = path.read_bytes()
    return str(path), hashlib.sha256(data).hexdigest(), len(data)


def recorded(gold: GoldSet) -> list[tuple[str, str, int]]:
    return [(f.path, f.sha256, f.size) for f in gold.files]


def test_cjk_loaders_record_every_file_they_read(shared_dir: Path, gold_samples: Path,
                                                 tmp_path: Path) -> None:
    """``GoldSet.files``: each file whose bytes the loader used, with the SHA-256 computed
    here from the file itself; files only sniffed are not listed."""
    test_zip = shared_dir / "corpora" / "crosswoz" / "test.json.zip"
    assert recorded(crosswoz.load(test_zip)) == [sha256_of(test_zip)]
    assert recorded(load_gold(shared_dir / "corpora" / "crosswoz", split="val")) == [
        sha256_of(shared_dir / "corpora" / "crosswoz" / "val.json.zip")]
    # RiSAWOZ --split reads the split-id file one directory up
    folder = shared_dir / "corpora" / "risawoz"
    train = risawoz.load(folder / "sample_train100_original_format.json", split="train")
    assert recorded(train) == [sha256_of(folder / "sample_train100_original_format.json"),
                               sha256_of(folder / "dataset_split_ids_dict.json")]
    assert len(train) == 100
    # a directory: the dialogue files that hold RiSAWOZ data, then the split-id file (read
    # without --split too: it says which split the data is, tests/test_split_trust.py)
    whole = risawoz.load(folder)
    assert [f.path for f in whole.files] == [
        str(folder / "gem_card_examples.json"),
        str(folder / "sample_train100_original_format.json"),
        str(folder / "dataset_split_ids_dict.json")]
    # JMultiWOZ: dialogues.json and split_list.json; a zip is one file
    sample = jmultiwoz.load(gold_samples / "jmultiwoz", split="test")
    assert sorted(recorded(sample)) == sorted(
        [sha256_of(gold_samples / "jmultiwoz" / "dialogues.json"),
         sha256_of(gold_samples / "jmultiwoz" / "split_list.json")])
    archive = tmp_path / "jmultiwoz.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for name in ("dialogues.json", "split_list.json"):
            out.write(gold_samples / "jmultiwoz" / name, f"JMultiWOZ_1.0/{name}")
    zipped = jmultiwoz.load(archive, split="test")
    assert recorded(zipped) == [sha256_of(archive)] and states(zipped) == states(sample)


def test_file_log_hashes_large_files_off_the_main_thread(tmp_path: Path) -> None:
    """A large file's SHA-256 is computed on a helper thread, a small one's at once;
    ``files`` gives them in reading order, as hashlib gives them here, once every helper
    has ended; a log dropped before ``files`` leaves no thread running."""
    from dst_eval.corpora.digests import INLINE_BYTES, THREAD_NAME, PendingDigest
    from dst_eval.corpora.layout import FileLog

    sizes = {"big1.json": INLINE_BYTES + 1, "small.json": 10, "big2.json": 3 * INLINE_BYTES}
    paths = []
    for name, size in sizes.items():
        path = tmp_path / name
        path.write_bytes(bytes(range(256)) * (size // 256) + b"x" * (size % 256))
        paths.append(path)
    log = FileLog()
    for path in [*paths, paths[0]]:  # a file read twice is recorded once
        assert log.read_bytes(path) == path.read_bytes()
    pending = [r for r in log._files.values() if isinstance(r, PendingDigest)]
    assert [r.path for r in pending] == [str(paths[0]), str(paths[2])]
    threads = [r._thread for r in pending]
    assert all(t.name == THREAD_NAME for t in threads)
    assert [(f.path, f.sha256, f.size) for f in log.files] == [sha256_of(p) for p in paths]
    assert not any(t.is_alive() for t in threads)
    dropped = FileLog()
    dropped.read_bytes(paths[2])
    (record,) = dropped._files.values()
    thread = record._thread
    del dropped, record
    thread.join(timeout=10)
    assert not thread.is_alive()


def test_a_failed_background_digest_is_raised_by_files(tmp_path: Path, monkeypatch) -> None:
    """An error while hashing on the helper thread is not lost: ``files`` raises it."""
    from dst_eval.corpora import digests
    from dst_eval.corpora.layout import FileLog

    def failing(_data: bytes):
        raise MemoryError("no room to hash")

    path = tmp_path / "big.json"
    path.write_bytes(b" " * digests.INLINE_BYTES)
    monkeypatch.setattr(digests.hashlib, "sha256", failing)
    log = FileLog()
    log.read_bytes(path)
    with pytest.raises(MemoryError, match="no room to hash"):
        _ = log.files


def test_files_digest_follows_content_not_paths(gold_samples: Path, tmp_path: Path) -> None:
    """The stale-gold scenarios of issue 8: a symlinked copy digests as the original; a
    patched copy at the same path does not."""
    original = gold_samples / "crosswoz" / "test.json"
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "test.json").symlink_to(original)
    first = crosswoz.load(original)
    second = crosswoz.load(linked / "test.json")
    assert files_digest(first.files) == files_digest(second.files)
    assert [f.sha256 for f in first.files] == [sha256_of(original)[1]]
    patched = tmp_path / "test.json"
    raw = json.loads(original.read_text("utf-8"))
    dialogue_id = next(iter(raw))
    raw[dialogue_id]["type"] = "单领域"
    patched.write_text(json.dumps(raw, ensure_ascii=False), "utf-8")
    assert files_digest(crosswoz.load(patched).files) != files_digest(first.files)
    assert files_digest([]) == hashlib.sha256(b"").hexdigest()


def test_files_digest_follows_the_reading_order(gold_samples: Path, tmp_path: Path) -> None:
    """SGD files renamed into another order are read, summed and resampled in another
    order: another ``gold:`` digest (the same signature must mean the same numbers)."""
    from dst_eval.corpora.sgd import loader as sgd

    dialogues = json.loads((gold_samples / "sgd" / "dialogues_001.json").read_text("utf-8"))
    assert len(dialogues) > 1
    halves = {"dialogues_001.json": dialogues[:1], "dialogues_002.json": dialogues[1:]}
    for name, swap in (("same", False), ("again", False), ("swapped", True)):
        folder = tmp_path / name
        folder.mkdir()
        shutil.copy(gold_samples / "sgd" / "schema.json", folder)
        for file, content in halves.items():
            target = {"dialogues_001.json": "dialogues_002.json",
                      "dialogues_002.json": "dialogues_001.json"}[file] if swap else file
            (folder / target).write_text(json.dumps(content), "utf-8")
    same, again, swapped = (sgd.load(tmp_path / n) for n in ("same", "again", "swapped"))
    assert files_digest(same.files) == files_digest(again.files)
    assert sorted(f.sha256 for f in same.files) == sorted(f.sha256 for f in swapped.files)
    assert files_digest(same.files) != files_digest(swapped.files)
    assert [d.dialogue_id for d in same] != [d.dialogue_id for d in swapped]


def test_file_log_reads_like_jsonio_and_records_once(tmp_path: Path) -> None:
    from dst_eval.corpora.layout import FileLog

    lines = tmp_path / "d.jsonl"
    lines.write_bytes(b'{"a": 1}\n\n{"a": 2}\n')
    log = FileLog()
    assert log.read_records(lines) == [{"a": 1}, {"a": 2}]
    assert log.read_records(lines) == [{"a": 1}, {"a": 2}]
    assert recorded(log) == [(str(lines), hashlib.sha256(b'{"a": 1}\n\n{"a": 2}\n').hexdigest(),
                              19)]  # 9 + 1 + 9 bytes, read twice, recorded once
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"a": 1}\n{"a": \n')
    with pytest.raises(GoldDataError, match=r"bad.jsonl: line 2: invalid JSON"):
        FileLog().read_records(bad)
    two = tmp_path / "two.zip"
    with zipfile.ZipFile(two, "w") as out:
        out.writestr("x.json", "{}")
        out.writestr("y.json", "{}")
    with pytest.raises(GoldDataError, match="expected one JSON file in the zip, found 2"):
        FileLog().read_json(two)
    not_zip = tmp_path / "n.zip"
    not_zip.write_bytes(b"not a zip")
    with pytest.raises(GoldDataError, match="not a valid zip file"):
        FileLog().read_json(not_zip)
    with pytest.raises(GoldDataError, match="file not found"):
        FileLog().read_json(tmp_path / "missing.json")


def test_risawoz_split_files_say_their_split(tmp_path: Path, gold_samples: Path) -> None:
    """Files named for their splits (``train.json``, ``test.json``): a folder holding
    several needs --split (it merged them silently), --split picks the file named for it
    when there is no split-id file, and a split's own file is accepted with its split (it
    was refused for lack of the split-id file)."""
    records = json.loads((gold_samples / "risawoz" / "dialogues.json").read_text("utf-8"))
    folder = tmp_path / "splits"
    folder.mkdir()
    (folder / "train.json").write_text(json.dumps(records[:2], ensure_ascii=False), "utf-8")
    (folder / "test.json").write_text(json.dumps(records[2:], ensure_ascii=False), "utf-8")
    with pytest.raises(UsageError, match="holds several splits \\(test, train"):
        risawoz.load(folder)
    test = risawoz.load(folder, split="test")
    assert test.split == "test" and [d.dialogue_id for d in test.dialogues] == [
        r["dialogue_id"] for r in records[2:]]
    assert risawoz.load(folder / "test.json", split="test").split == "test"
    assert risawoz.load(folder / "train.json").split == "train"
    with pytest.raises(GoldDataError, match="the file is named for the train split"):
        risawoz.load(folder / "train.json", split="test")


def test_crosswoz_file_named_for_no_split_takes_split(tmp_path: Path,
                                                       crosswoz_test_raw: dict) -> None:
    """``--split test`` on a GEM ``data.jsonl`` whose gem_ids say test was refused ("names
    no split") though it is scored as test without it; on a file that says no split at all,
    the split is the user's label, with the usual note."""
    ids = sorted(crosswoz_test_raw)[:3]
    gem = tmp_path / "data.jsonl"
    gem.write_text("\n".join(json.dumps(to_gem_crosswoz(i, crosswoz_test_raw[i]),
                                        ensure_ascii=False) for i in ids), "utf-8")
    for split in (None, "test"):
        loaded = crosswoz.load(gem, split=split)
        assert loaded.split == "test" and not loaded.notes
    with pytest.raises(GoldDataError, match="is of the test split, not val"):
        crosswoz.load(gem, split="val")
    plain = tmp_path / "data.json"
    plain.write_text(json.dumps({i: crosswoz_test_raw[i] for i in ids}, ensure_ascii=False),
                     "utf-8")
    labelled = crosswoz.load(plain, split="val")
    assert labelled.split == "val" and "is the --split label" in labelled.notes[0]


def test_crosswoz_gem_file_named_for_another_split_is_refused(tmp_path: Path,
                                                              crosswoz_test_raw: dict) -> None:
    """A GEM file named ``val.jsonl`` whose records' gem_id say test (it was loaded as val)."""
    ids = sorted(crosswoz_test_raw)[:3]
    path = tmp_path / "val.jsonl"
    path.write_text("\n".join(json.dumps(to_gem_crosswoz(i, crosswoz_test_raw[i]),
                                         ensure_ascii=False) for i in ids), "utf-8")
    with pytest.raises(GoldDataError, match="gem_id 'GEM-CrossWOZ-test-.*' is of the test "
                       "split, not val"):
        crosswoz.load(path)
    assert crosswoz.load(path.rename(tmp_path / "test.jsonl")).split == "test"



def _cli_error(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str]:
    from dst_eval.cli.app import main

    code = main([*argv, "--format", "json"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [line] = err.strip().splitlines()
    return code, line


def test_jmultiwoz_split_not_in_split_list_exits_4(tmp_path: Path, gold_samples: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    """README (exit 4): a --split the gold does not hold is a gold problem and the message
    lists the splits it holds, as for CrossWOZ and RiSAWOZ (JMultiWOZ exited 2)."""
    folder = tmp_path / "jm"
    folder.mkdir()
    shutil.copy(gold_samples / "jmultiwoz" / "dialogues.json", folder / "dialogues.json")
    split_list = json.loads((gold_samples / "jmultiwoz" / "split_list.json").read_text("utf-8"))
    del split_list["dev"]
    (folder / "split_list.json").write_text(json.dumps(split_list), "utf-8")
    code, line = _cli_error(capsys, str(gold_samples / "jmultiwoz" / "predictions.json"),
                            "--gold", str(folder), "--split", "dev")
    assert code == 4
    assert line.endswith("no JMultiWOZ 'dev' split: split_list.json holds the splits "
                         "train, test"), line
    assert str(folder / "dialogues.json") in line


@pytest.mark.parametrize("repeat", ["last", "first"])
def test_jmultiwoz_split_naming_a_dialogue_twice_exits_4(
        tmp_path: Path, gold_samples: Path, capsys: pytest.CaptureFixture, repeat: str) -> None:
    """A ``split_list.json`` split naming a dialogue twice was scored twice with exit 0 (the
    repeat right after it) or ended in an internal error, exit 1 (elsewhere) (g1 #2). It is a
    gold error, exit 4, naming ``split_list.json``, the split and the dialogue."""
    folder = tmp_path / "jm"
    folder.mkdir()
    shutil.copy(gold_samples / "jmultiwoz" / "dialogues.json", folder / "dialogues.json")
    split_list = json.loads((gold_samples / "jmultiwoz" / "split_list.json").read_text("utf-8"))
    name = split_list["test"][-1 if repeat == "last" else 0]
    split_list["test"].append(name)
    (folder / "split_list.json").write_text(json.dumps(split_list), "utf-8")
    code, line = _cli_error(capsys, str(gold_samples / "jmultiwoz" / "predictions.json"),
                            "--gold", str(folder), "--split", "test")
    assert code == 4
    assert line.endswith(f"{folder / 'split_list.json'}, dialogue {name}: split 'test' "
                         "names this dialogue twice"), line


def test_risawoz_split_matching_no_dialogue_lists_the_held_splits(
        tmp_path: Path, risawoz_dir: Path, capsys: pytest.CaptureFixture) -> None:
    """The message names the splits the data's dialogues are in (it only said that none is
    in the asked one)."""
    ids_by_key = json.loads((risawoz_dir / "dataset_split_ids_dict.json").read_text("utf-8"))
    sample = json.loads((risawoz_dir / "sample_train100_original_format.json").read_text("utf-8"))
    ids = [str(d["dialogue_id"]) for d in sample]
    # the release's id file: the 100 sample dialogues are train ones, in no other split
    in_train = set(map(str, ids_by_key["all_train10000.json"]))
    assert set(ids) <= in_train
    assert all(set(ids).isdisjoint(map(str, ids_by_key[key])) for key in (
        "all_dev600.json", "all_test600_new.json", "single_test370_new.json",
        "multi_test230_new.json"))
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps({i: [{"state": {}}] for i in ids}), "utf-8")
    code, line = _cli_error(capsys, str(preds), "--gold", str(risawoz_dir), "--split", "test")
    assert code == 4
    assert line.endswith("none of the dialogues belongs to the test split (by "
                         "dataset_split_ids_dict.json); the data holds the splits train"), line
    # an id file placing three sample dialogues in dev and the rest in train
    own = tmp_path / "ris"
    own.mkdir()
    shutil.copy(risawoz_dir / "sample_train100_original_format.json", own / "data.json")
    (own / "dataset_split_ids_dict.json").write_text(json.dumps({
        "all_train10000.json": ids[3:], "all_dev600.json": ids[:3],
        "all_test600_new.json": ["nowhere"]}), "utf-8")
    with pytest.raises(GoldDataError, match="the data holds the splits train, dev$") as info:
        risawoz.load(own, split="test")
    assert info.value.exit_code == 4
