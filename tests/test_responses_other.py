"""Response metrics of SGD, CrossWOZ, RiSAWOZ and JMultiWOZ (dst_eval.responses.*).

Real data through ``shared_dir`` (CrossWOZ test, RiSAWOZ sample + database, SGD dev file 1)
and the repository's gold samples. Expected values come from sacrebleu itself, from counts
computed here independently of the package (raw JSON read with ``json``), or from the
construction of the corrupted predictions.
"""

from __future__ import annotations

import json
import logging
import re
import unicodedata
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType

import jieba
import numpy as np
import pytest
import sacrebleu
from dst_eval.metrics.entity_inform import (
    EntityInformRate,
    entity_inform_counts,
    entity_inform_rate,
    reference_entities,
)
from dst_eval.metrics.resampling import bootstrap_ci
from dst_eval.metrics.risawoz_success import (
    DomainGoal,
    cell_answered,
    dialogue_inform_success,
    numbers,
    polarity,
)
from msgspec.structs import replace

from dst_eval import evaluate
from dst_eval.alignment import align
from dst_eval.corpora import load_gold
from dst_eval.corpora.risawoz.database import RisawozDatabase, find_database, load_database
from dst_eval.errors import PredictionError, UsageError
from dst_eval.gold import GoldSet, GoldTurn
from dst_eval.options import EvalOptions
from dst_eval.predictions.model import PredictionSet, PredTurn
from dst_eval.predictions.reader import read_predictions
from dst_eval.profiles import jmultiwoz_official
from dst_eval.responses import ResponseResources, score_responses
from dst_eval.result import Result

TOL = 1e-9
EMPTY_STATE = MappingProxyType({})
RISAWOZ_DB = "corpora/risawoz/RiSAWOZ-Database-and-Ontology/DB"
RISAWOZ_SAMPLE = "corpora/risawoz/sample_train100_original_format.json"

# sacrebleu's own ja-mecab tokens (sacrebleu 2.6.0, mecab-python3 1.0.12, ipadic 1.0.0,
# tok:ja-mecab-0.996-IPA) of every system utterance and predicted response of
# gold_samples/jmultiwoz, produced in a scratch venv with ``pip install "sacrebleu[ja]"`` by
# ``TokenizerJaMecab()(text)`` (as tests/data/make_ja_expected.py does for its sentences).
JA_MECAB_TOKENS = {
    "京都駅前タクシーがございます。": "京都 駅 前 タクシー が ござい ます 。",
    "安めのホテルですね。駐車場は必要ですか？":
        "安め の ホテル です ね 。 駐車 場 は 必要 です か ？",
    "ホテル大阪ベイサイドはいかがでしょうか。": "ホテル 大阪 ベイ サイド は いかが でしょ う か 。",
    "予約が完了しました。予約番号は00012です。":
        "予約 が 完了 し まし た 。 予約 番号 は 00012 です 。",
    "どういたしまして。よいご旅行を。": "どういたしまして 。 よい ご 旅行 を 。",
    "札幌きたキッチンがございます。": "札幌 きた キッチン が ござい ます 。",
    "エリアのご希望はありますか？": "エリア の ご 希望 は あり ます か ？",
    "「味処なごや」はいかがでしょう。": "「 味 処 なごや 」 は いかが でしょ う 。",
    "予約しました。予約番号は00345です。": "予約 し まし た 。 予約 番号 は 00345 です 。",
    "何時に出発されますか？": "何 時 に 出発 さ れ ます か ？",
    "タクシーを手配しました。": "タクシー を 手配 し まし た 。",
    "福岡市博物館がございます。": "福岡 市 博物館 が ござい ます 。",
    "福岡市博物館は無料Wi-Fiがございます。": "福岡 市 博物館 は 無料 Wi - Fi が ござい ます 。",
    "明日の博多区は晴れの予報です。": "明日 の 博多 区 は 晴れ の 予報 です 。",
    "安めのホテルですね。駐車場はお使いになりますか？":
        "安め の ホテル です ね 。 駐車 場 は お 使い に なり ます か ？",
    "予約が完了しました。": "予約 が 完了 し まし た 。",
    "どういたしまして。": "どういたしまして 。",
    "予約しました。": "予約 し まし た 。",
    "無料Wi-Fiがございます。": "無料 Wi - Fi が ござい ます 。",
    "明日の博多区は晴れです。": "明日 の 博多 区 は 晴れ です 。",
}


# ---------------------------------------------------------------- helpers
def predictions(gold: GoldSet, response: Callable[[GoldTurn], object],
                keep: Callable[[GoldTurn], bool] = lambda t: True) -> PredictionSet:
    """One PredTurn per gold turn carrying ``response(turn)`` (and an empty state, so that a
    ``None`` response is not an empty turn object, which alignment treats as a missing turn);
    dialogues whose first turn ``keep`` rejects are left out, other rejected turns are gaps."""
    dialogues = {}
    for dialogue in gold:
        if not keep(dialogue.turns[0]):
            continue
        dialogues[dialogue.dialogue_id] = [
            PredTurn(state=EMPTY_STATE, response=response(t)) if keep(t) else PredTurn()
            for t in dialogue.turns]
    return PredictionSet("<test>", "mwzeval", dialogues)


def score(gold: GoldSet, preds: PredictionSet, *, missing: str = "wrong",
          db: Path | None = None) -> Result:
    return score_responses(align(gold, preds), EvalOptions(missing=missing),
                           resources=ResponseResources(db=db))


def gold_response(turn: GoldTurn) -> str:
    return turn.system_response or ""


def check_table(result: Result) -> None:
    """Every metric object reproduces its headline score from the table; bootstrap runs."""
    names = {m.name for m in result.metric_objects}
    assert names == set(result.scores)
    for metric in result.metric_objects:
        assert metric.score(result.table) == pytest.approx(result.scores[metric.name], abs=TOL)
    cis = bootstrap_ci(result.table, result.metric_objects, n_samples=20, seed=1)
    for name, ci in cis.items():
        assert ci["ci_low"] - TOL <= ci["mean"] <= ci["ci_high"] + TOL, name


def nfkc_despace(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", str(text)))


# ---------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def sgd_gold(shared_dir) -> GoldSet:
    return load_gold(shared_dir / "corpora/sgd/dev/dialogues_001.json", corpus="sgd")


@pytest.fixture(scope="module")
def crosswoz_gold(crosswoz_test_gold) -> GoldSet:
    return crosswoz_test_gold  # conftest: equal to load_gold(test.json.zip), loaded once


@pytest.fixture(scope="module")
def crosswoz_raw(shared_dir) -> dict:
    with zipfile.ZipFile(shared_dir / "corpora/crosswoz/test.json.zip") as archive:
        return json.loads(archive.read("test.json"))


@pytest.fixture(scope="module")
def crosswoz_entities(crosswoz_gold, crosswoz_raw) -> list[set[str]]:
    """Independent entity sets per gold turn (gold order): Inform/Recommend act values of the
    system message after each user message, NFKC + no whitespace + lower-case, not a yes/no
    flag, occurring in the normalised system message."""
    def norm(text: str) -> str:
        return nfkc_despace(text).lower()

    by_id = {}
    for dialogue_id, record in crosswoz_raw.items():
        messages = record["messages"]
        turns = []
        for i, message in enumerate(messages):
            if message["role"] != "usr":
                continue
            reply = messages[i + 1]
            values = {norm(a[3]) for a in reply["dialog_act"] if a[0] in ("Inform", "Recommend")}
            values -= {"", "none", "是", "否", "有", "无"}
            turns.append({v for v in values if v in norm(reply["content"])})
        by_id[dialogue_id] = turns
    return [entities for d in crosswoz_gold for entities in by_id[d.dialogue_id]]


@pytest.fixture(scope="module")
def risawoz_gold(shared_dir) -> GoldSet:
    return load_gold(shared_dir / RISAWOZ_SAMPLE, corpus="risawoz")


@pytest.fixture(scope="module")
def risawoz_raw(shared_dir) -> list:
    return json.loads((shared_dir / RISAWOZ_SAMPLE).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def risawoz_db_raw(shared_dir) -> dict:
    files = {"旅游景点": "attraction", "餐厅": "restaurant", "酒店": "hotel", "电脑": "pc",
             "火车": "train", "飞机": "flight", "天气": "weather", "电影": "movie",
             "电视剧": "tv", "辅导班": "class", "汽车": "car", "医院": "hospital"}
    folder = shared_dir / RISAWOZ_DB
    return {d: json.loads((folder / f"{f}_db.json").read_text(encoding="utf-8"))
            for d, f in files.items()}


@pytest.fixture(scope="module")
def jmultiwoz_gold(gold_samples) -> GoldSet:
    return load_gold(gold_samples / "jmultiwoz", corpus="jmultiwoz", split="test")


# ---------------------------------------------------------------- independent RiSAWOZ count
_ENTITY_SLOT = {"旅游景点": "名称", "餐厅": "名称", "酒店": "名称", "电脑": "商品名称",
                "火车": "车次信息", "飞机": "航班信息", "电影": "片名", "电视剧": "片名",
                "辅导班": "班号", "汽车": "名称", "医院": "名称"}
_NEG, _POS = "不没无否非", ("是", "有", "可以", "能", "支持", "提供")
_SEP = r"[\s/、,，;；:：·\-–—~～()（）\[\]【】\"“”'‘’。！!？?…]+"


def _key(domain: str, value: str) -> str:
    value = nfkc_despace(value)
    if domain in ("火车", "飞机"):
        value = re.split("[,，]", value)[0]
        if domain == "飞机":
            found = re.search(r"[A-Z0-9]{2}\d{3,4}", value)
            value = found.group(0) if found else value
    return value


def _cell(x):
    if isinstance(x, bool) or x is None:
        return x
    if isinstance(x, float) and x == int(x):
        return str(int(x))
    if isinstance(x, list):
        return [nfkc_despace(i) for i in x]
    return nfkc_despace(x)


def _fits(row: dict, constraints: dict) -> bool:
    for slot, value in constraints.items():
        if slot not in row:
            continue
        cell = _cell(row[slot])
        if isinstance(cell, bool):
            ok = value in (("是", "有", "true", "True") if cell else ("否", "无", "没有", "false",
                                                                    "False"))
        elif isinstance(cell, list):
            ok = value in cell
        else:
            ok = cell == value
        if not ok:
            return False
    return True


def _polar(text: str):
    if any(c in text for c in _NEG):
        return False
    return True if any(p in text for p in _POS) else None


def _answered(cell, text: str) -> bool:
    if isinstance(cell, list):
        return all(_answered(c, text) for c in cell)
    if isinstance(cell, bool) or cell in ("是", "有", "否", "无", "没有"):
        return _polar(text) == (cell is True or cell in ("是", "有"))
    nums = {str(float(n)) for n in re.findall(r"\d+(?:\.\d+)?", cell)}
    if nums:
        return nums <= {str(float(n)) for n in re.findall(r"\d+(?:\.\d+)?", text)}
    return any(p and p in text for p in re.split(_SEP, cell))


def independent_outcomes(raw: list, db: dict, responses: dict[str, list[str]]) -> dict:
    """The documented RiSAWOZ inform/success, re-implemented from the raw JSON."""
    out = {}
    for record in raw:
        turns = record["dialogue"]
        resp = [nfkc_despace(r) for r in responses[record["dialogue_id"]]]
        gold_resp = [nfkc_despace(t["system_utterance"]) for t in turns]
        final = turns[-1]["belief_state"]["inform slot-values"]
        requests: dict[str, dict[str, int]] = {}
        for i, turn in enumerate(turns):
            acts = {a[2]: a[1] for a in turn["user_actions"] if a[0] == "Request"}
            domains = [d for d in turn["turn_domain"] if d != "通用"]
            for slot in turn["belief_state"]["turn request"]:
                domain = acts.get(slot) or (domains[0] if domains else "")
                slot = "教师" if (domain, slot) == ("辅导班", "老师") else slot
                requests.setdefault(domain, {}).setdefault(slot, i)
        domains = {k.split("-")[0] for k in final} | set(requests)
        informs, successes = [], []
        for domain in domains - {"通用"}:
            rows = db[domain]
            cons = {k.split("-", 1)[1]: nfkc_despace(v) for k, v in final.items()
                    if k.startswith(domain + "-") and nfkc_despace(v)}
            reqs = {s: i for s, i in requests.get(domain, {}).items() if s in rows[0]}
            slot = _ENTITY_SLOT.get(domain)
            if slot is None:  # weather: rows matching the state at each turn
                bad = False
                checked = 0
                for attribute, first in reqs.items():
                    seen = []
                    for u in range(first, len(turns)):
                        state = {k.split("-", 1)[1]: nfkc_despace(v) for k, v in
                                 turns[u]["belief_state"]["inform slot-values"].items()
                                 if k.startswith(domain + "-") and nfkc_despace(v)}
                        seen += [(u, _cell(r.get(attribute))) for r in rows if _fits(r, state)]
                    filled = [(u, c) for u, c in seen if c not in (None, "", [])]
                    if seen and not filled:
                        continue
                    checked += 1
                    bad |= not any(_answered(c, resp[u]) for u, c in filled)
                if checked:
                    successes.append(not bad)
                continue
            keys = {_key(domain, r[slot]) for r in rows}
            named = None
            if slot in cons:
                t0 = min(i for i, t in enumerate(turns)
                         if domain + "-" + slot in t["belief_state"]["inform slot-values"])
                if not any(k in r for r in gold_resp[:t0] for k in keys):
                    named = _key(domain, cons[slot])
                del cons[slot]
            last_by_turn = []
            for r in resp:
                hits = [(r.rfind(k) + len(k), len(k), k) for k in keys if k in r]
                last_by_turn.append((max(hits)[2] if hits else None, {h[2] for h in hits}))
            offered = named
            current = []
            for last, _ in last_by_turn:
                current.append(offered)
                offered = last or offered
            ok, some_answer = True, False
            for attribute, first in reqs.items():
                if attribute == slot:
                    ok &= any(last_by_turn[u][1] for u in range(first, len(turns)))
                    continue
                seen = []
                for u in range(first, len(turns)):
                    for entity in {current[u], *last_by_turn[u][1]} - {None}:
                        own = [r for r in rows if _key(domain, r[slot]) == entity]
                        seen += [(u, _cell(r.get(attribute)))
                                 for r in ([r for r in own if _fits(r, cons)] or own)]
                filled = [(u, c) for u, c in seen if c not in (None, "", [])]
                if seen and not filled:
                    continue
                answered = any(_answered(c, resp[u]) for u, c in filled)
                some_answer |= answered
                ok &= answered
            # v2: an output that names no entity informs of the named one only by answering
            said = any(hits for _, hits in last_by_turn) or some_answer
            inform = said and offered is not None and named in (None, offered) and any(
                _fits(r, cons) for r in rows if _key(domain, r[slot]) == offered)
            ok &= inform
            informs.append(inform)
            successes.append(ok)
        out[record["dialogue_id"]] = (all(informs) if informs else None,
                                      all(successes) if successes else None)
    return out


def rates(outcomes: dict, ids=None) -> tuple[int, int, int, int]:
    ids = outcomes.keys() if ids is None else ids
    inform = [outcomes[i][0] for i in ids if outcomes[i][0] is not None]
    success = [outcomes[i][1] for i in ids if outcomes[i][1] is not None]
    return sum(inform), len(inform), sum(success), len(success)


# ---------------------------------------------------------------- loaders fill the references
def test_loaders_fill_system_responses(sgd_gold, crosswoz_gold, risawoz_gold, jmultiwoz_gold,
                                       crosswoz_raw, risawoz_raw):
    for gold in (sgd_gold, crosswoz_gold, risawoz_gold, jmultiwoz_gold):
        assert all(t.system_response for t in gold.turns()), gold.corpus
    expected = [m["content"] for r in crosswoz_raw.values() for m in r["messages"]
                if m["role"] == "sys"]
    assert sorted(t.system_response for t in crosswoz_gold.turns()) == sorted(expected)
    assert [t.system_response for t in risawoz_gold.turns()] == [
        t["system_utterance"] for r in risawoz_raw for t in r["dialogue"]]


# ---------------------------------------------------------------- SGD
def test_sgd_gold_is_100_and_inform_success_not_applicable(sgd_gold):
    result = score(sgd_gold, predictions(sgd_gold, gold_response))
    assert result.scores == {"bleu": pytest.approx(100.0, abs=TOL)}
    for name in ("inform", "success", "combined"):
        assert "SGD defines no inform/success" in result.not_applicable[name]
    assert result.signature_fields["tok"] == "13a"
    assert result.signature_fields["bleu"] == "corpus"
    assert result.counts["responses"]["scored_turns"] == sgd_gold.n_turns == 825
    check_table(result)


def test_sgd_every_third_response_empty_matches_sacrebleu(sgd_gold):
    result = score(sgd_gold, predictions(
        sgd_gold, lambda t: "" if t.turn_index % 3 == 0 else t.system_response))
    turns = list(sgd_gold.turns())
    hyps = ["" if t.turn_index % 3 == 0 else t.system_response for t in turns]
    expected = sacrebleu.corpus_bleu(hyps, [[t.system_response for t in turns]]).score
    assert 30 < expected < 90
    assert result.scores["bleu"] == pytest.approx(expected, abs=TOL)
    assert result.counts["responses"]["empty_response"] == sum(t.turn_index % 3 == 0 for t in turns)


# ---------------------------------------------------------------- CrossWOZ
def test_crosswoz_gold_is_100_and_entity_rate_1(crosswoz_gold, crosswoz_entities):
    result = score(crosswoz_gold, predictions(crosswoz_gold, gold_response))
    assert result.scores["bleu"] == pytest.approx(100.0, abs=TOL)
    assert result.scores["bleu_jieba"] == pytest.approx(100.0, abs=TOL)
    assert result.scores["entity_inform_rate"] == 1.0
    assert result.counts["responses"]["entities"] == sum(map(len, crosswoz_entities)) == 6455
    assert result.signature_fields["tok"] == "zh"
    assert result.signature_fields["tok-jieba"] == f"jieba-{jieba.__version__}"
    assert "ConvLab/ConvLab-3#15" in result.not_applicable["inform"]
    check_table(result)


def _jieba_words(text: str) -> str:
    jieba.setLogLevel(logging.WARNING)
    return " ".join(w for w in jieba.lcut(text) if w.strip())


def test_crosswoz_bleu_matches_sacrebleu_on_real_responses(crosswoz_gold, crosswoz_entities):
    """Hypothesis of turn i = the gold response of the next turn (real CrossWOZ text), every
    4th emptied; entity rate by construction from the independent entity sets."""
    turns = list(crosswoz_gold.turns())
    shifted = {}
    for a, b in zip(turns, turns[1:] + turns[:1], strict=True):
        shifted[(a.dialogue_id, a.turn_index)] = b.system_response
    k = 4
    hyp_of = {key: ("" if i % k == 0 else text) for i, (key, text) in enumerate(shifted.items())}
    result = score(crosswoz_gold, predictions(
        crosswoz_gold, lambda t: hyp_of[(t.dialogue_id, t.turn_index)]))
    hyps = list(hyp_of.values())
    refs = [t.system_response for t in turns]
    expected = sacrebleu.corpus_bleu(hyps, [refs], tokenize="zh").score
    assert 1 < expected < 30
    assert result.scores["bleu"] == pytest.approx(expected, abs=TOL)
    expected_jieba = sacrebleu.corpus_bleu([_jieba_words(h) for h in hyps],
                                           [[_jieba_words(r) for r in refs]],
                                           tokenize="none").score
    assert result.scores["bleu_jieba"] == pytest.approx(expected_jieba, abs=TOL)
    found = sum(e in nfkc_despace(h).lower() for es, h in zip(crosswoz_entities, hyps,
                                                               strict=True) for e in es)
    assert result.scores["entity_inform_rate"] == pytest.approx(
        found / sum(map(len, crosswoz_entities)), abs=TOL)


def test_crosswoz_entity_corruptions_by_construction(crosswoz_gold, crosswoz_entities,
                                                     crosswoz_raw):
    turns = list(crosswoz_gold.turns())
    totals = [len(e) for e in crosswoz_entities]
    # 1. every 5th response empty: exactly those turns' entities are lost
    result = score(crosswoz_gold, predictions(
        crosswoz_gold, lambda t: "" if t.turn_index % 5 == 0 else t.system_response))
    kept = sum(n for t, n in zip(turns, totals, strict=True) if t.turn_index % 5)
    assert result.scores["entity_inform_rate"] == pytest.approx(kept / sum(totals), abs=TOL)
    # 2. replace one entity per turn where the raw value occurs verbatim, once, and removing
    #    it leaves the turn's other entities intact: exactly one entity lost per such turn
    replaced: dict[tuple[str, int], str] = {}
    for turn, entities in zip(turns, crosswoz_entities, strict=True):
        for entity in sorted(entities):
            text = turn.system_response
            if text.lower().count(entity) != 1 or entity != entity.lower():
                continue
            corrupted = text.replace(entity, "＃")
            low = nfkc_despace(corrupted).lower()
            if entity not in low and all(e in low for e in entities - {entity}):
                replaced[(turn.dialogue_id, turn.turn_index)] = corrupted
                break
    assert len(replaced) > 2000
    result = score(crosswoz_gold, predictions(
        crosswoz_gold, lambda t: replaced.get((t.dialogue_id, t.turn_index), t.system_response)))
    assert result.counts["responses"]["entities_found"] == sum(totals) - len(replaced)
    assert result.scores["entity_inform_rate"] == pytest.approx(
        1 - len(replaced) / sum(totals), abs=TOL)


def test_crosswoz_in_memory_gold_has_no_entity_rate(crosswoz_gold, crosswoz_entities):
    first = crosswoz_gold.dialogues[:3]
    # the acts travel with the turns (GoldTurn.system_annotations), not with the file
    with_acts = GoldSet("crosswoz", "test", first, source="<memory>")
    kept = score(with_acts, predictions(with_acts, gold_response))
    n_turns = sum(len(d.turns) for d in first)
    assert kept.counts["responses"]["entities"] == sum(
        len(e) for e in crosswoz_entities[:n_turns]) > 0
    assert kept.scores["entity_inform_rate"] == 1.0
    bare = tuple(replace(d, turns=tuple(replace(t, system_annotations={}) for t in d.turns))
                 for d in first)
    gold = GoldSet("crosswoz", "test", bare, source="<memory>")
    result = score(gold, predictions(gold, gold_response))
    assert result.scores["bleu"] == pytest.approx(100.0, abs=TOL)
    assert "entity_inform_rate" not in result.scores
    assert "dialogue acts" in result.not_applicable["entity_inform_rate"]
    assert f"{n_turns} of {n_turns} scored" in result.not_applicable["entity_inform_rate"]


# ---------------------------------------------------------------- RiSAWOZ
def test_risawoz_gold_ceiling_matches_independent_count(shared_dir, risawoz_gold, risawoz_raw,
                                                        risawoz_db_raw):
    result = score(risawoz_gold, predictions(risawoz_gold, gold_response))
    assert result.scores["bleu"] == pytest.approx(100.0, abs=TOL)
    assert result.scores["bleu_segmented"] == pytest.approx(100.0, abs=TOL)
    gold_texts = {r["dialogue_id"]: [t["system_utterance"] for t in r["dialogue"]]
                  for r in risawoz_raw}
    inform, n_inform, success, n_success = rates(
        independent_outcomes(risawoz_raw, risawoz_db_raw, gold_texts))
    # the ceiling documented in docs/risawoz_inform_success.md
    assert (inform, n_inform, success, n_success) == (90, 95, 94, 100)
    assert result.scores["inform"] == pytest.approx(inform / n_inform, abs=TOL)
    assert result.scores["success"] == pytest.approx(success / n_success, abs=TOL)
    assert result.counts["responses"]["inform_dialogues"] == n_inform
    assert result.counts["responses"]["success_dialogues"] == n_success
    assert result.scores["combined"] == pytest.approx(
        50 * (inform / n_inform + success / n_success) + 100, abs=1e-6)
    assert result.signature_fields["is"] == "risawoz-is-v2"
    assert result.signature_fields["tok-segmented"].startswith("jieba-")
    assert result.groups["domain:酒店"]["inform"] == 1.0
    check_table(result)


def test_risawoz_corruptions_by_construction(shared_dir, risawoz_gold, risawoz_raw,
                                             risawoz_db_raw):
    gold_texts = {r["dialogue_id"]: [t["system_utterance"] for t in r["dialogue"]]
                  for r in risawoz_raw}
    ceiling = independent_outcomes(risawoz_raw, risawoz_db_raw, gold_texts)
    # 1. a hotel the system offered replaced by one outside the user's constraints
    target = "restaurant_hotel_goal_2-63_v2###7740"
    assert ceiling[target] == (True, True)
    assert not any(r["区域"] == "工业园区" and r["价位"] == "中等"
                   for r in risawoz_db_raw["酒店"] if r["名称"] == "如家酒店")
    swapped = {d: [t.replace("沃姆精品酒店", "如家酒店") if d == target else t for t in texts]
               for d, texts in gold_texts.items()}
    result = score(risawoz_gold, predictions(
        risawoz_gold, lambda t: swapped[t.dialogue_id][t.turn_index]))
    assert result.scores["inform"] == pytest.approx((90 - 1) / 95, abs=TOL)
    assert result.scores["success"] == pytest.approx((94 - 1) / 100, abs=TOL)
    assert independent_outcomes(risawoz_raw, risawoz_db_raw, swapped)[target] == (False, False)
    # 2. every 4th dialogue missing: fails under "wrong", is not scored under "skip"
    order = [d.dialogue_id for d in risawoz_gold]
    dropped = set(order[::4])
    preds = predictions(risawoz_gold, gold_response, keep=lambda t: t.dialogue_id not in dropped)
    kept = [d for d in order if d not in dropped]
    inform, n_inform, success, n_success = rates(ceiling, kept)
    wrong = score(risawoz_gold, preds)
    assert wrong.scores["inform"] == pytest.approx(inform / 95, abs=TOL)
    assert wrong.scores["success"] == pytest.approx(success / 100, abs=TOL)
    skip = score(risawoz_gold, preds, missing="skip")
    assert skip.scores["inform"] == pytest.approx(inform / n_inform, abs=TOL)
    assert skip.scores["success"] == pytest.approx(success / n_success, abs=TOL)
    assert skip.scores["bleu"] == pytest.approx(100.0, abs=TOL)
    assert skip.counts["responses"]["dialogues"] == len(kept)
    # 3. every other response empty: the independent count on the same responses
    halved = {d: ["" if i % 2 else t for i, t in enumerate(texts)]
              for d, texts in gold_texts.items()}
    result = score(risawoz_gold, predictions(
        risawoz_gold, lambda t: halved[t.dialogue_id][t.turn_index]))
    inform, n_inform, success, n_success = rates(
        independent_outcomes(risawoz_raw, risawoz_db_raw, halved))
    assert success < 94
    assert result.scores["inform"] == pytest.approx(inform / n_inform, abs=TOL)
    assert result.scores["success"] == pytest.approx(success / n_success, abs=TOL)
    # 4. every response empty: an output that says nothing informs of nothing (v1 gave
    # inform 4/95: the entities users named were counted as offered)
    silent = score(risawoz_gold, predictions(risawoz_gold, lambda t: ""))
    empty = {d: [""] * len(texts) for d, texts in gold_texts.items()}
    assert rates(independent_outcomes(risawoz_raw, risawoz_db_raw, empty))[0] == 0
    assert silent.scores["inform"] == 0.0 and silent.scores["success"] == 0.0


def test_risawoz_bleu_variants_match_sacrebleu(risawoz_gold, risawoz_raw):
    turns = list(risawoz_gold.turns())
    hyps = [t.system_response[: len(t.system_response) * 2 // 3] + "呢" for t in turns]
    by_turn = {(t.dialogue_id, t.turn_index): h for t, h in zip(turns, hyps, strict=True)}
    result = score(risawoz_gold, predictions(
        risawoz_gold, lambda t: by_turn[(t.dialogue_id, t.turn_index)]))
    refs = [t.system_response for t in turns]
    assert result.scores["bleu"] == pytest.approx(
        sacrebleu.corpus_bleu(hyps, [refs], tokenize="zh").score, abs=TOL)
    segmented = [t["segmented_system_utterance"] for r in risawoz_raw for t in r["dialogue"]]
    expected = sacrebleu.corpus_bleu([_jieba_words(h) for h in hyps], [segmented],
                                     tokenize="none").score
    assert 20 < expected < 90
    assert result.scores["bleu_segmented"] == pytest.approx(expected, abs=TOL)
    assert result.scores["combined_segmented"] - result.scores["combined"] == pytest.approx(
        result.scores["bleu_segmented"] - result.scores["bleu"], abs=1e-9)


def test_risawoz_segmented_bleu_note_names_the_references_used(risawoz_gold):
    """The references of bleu_segmented are the corpus's provided segmentation: the note says
    so as the signature does (it said reftok:none, sacrebleu's name for 'split on spaces')."""
    result = score(risawoz_gold, predictions(risawoz_gold, gold_response))
    assert result.signature_fields["reftok-segmented"] == "provided"
    [note] = [n for n in result.notes if n.startswith("bleu_segmented:")]
    assert note == (f"bleu_segmented: nrefs:1|case:mixed|eff:no|tok:jieba-{jieba.__version__}"
                    f"|smooth:exp|reftok:provided|agg:corpus|version:{sacrebleu.__version__}")
    [plain] = [n for n in result.notes if n.startswith("bleu:")]
    assert "reftok" not in plain


def test_risawoz_segmented_bleu_needs_the_annotation(risawoz_gold):
    first = risawoz_gold.dialogues[:4]
    bare = tuple(replace(d, turns=tuple(replace(t, system_annotations={}) if i == 0 else t
                                        for i, t in enumerate(d.turns))) for d in first)
    for dialogues, lacking in ((first, 0), (bare, 4)):
        gold = GoldSet("risawoz", None, dialogues, source="<memory>")
        result = score(gold, predictions(gold, gold_response))
        assert result.scores["bleu"] == pytest.approx(100.0, abs=TOL)
        if lacking:
            assert "bleu_segmented" not in result.scores
            n_turns = sum(len(d.turns) for d in first)
            assert result.not_applicable["bleu_segmented"].startswith(
                f"{lacking} of {n_turns} scored gold turns have no segmented system utterance")
        else:
            assert result.scores["bleu_segmented"] == pytest.approx(100.0, abs=TOL)


def test_risawoz_database_location(shared_dir, gold_samples):
    gold = load_gold(gold_samples / "risawoz", corpus="risawoz")
    preds = read_predictions(gold_samples / "risawoz/predictions.json", corpus="risawoz")
    without = score(gold, preds)
    assert "inform" not in without.scores and "database" in without.not_applicable["inform"]
    assert "combined" in without.not_applicable and "bleu_segmented" in without.scores
    db = shared_dir / RISAWOZ_DB
    with_db = score(gold, preds, db=db)
    assert 0 <= with_db.scores["inform"] <= 1 and 0 <= with_db.scores["success"] <= 1
    assert find_database(db.parent, None) == db  # the Database-and-Ontology folder works too
    assert find_database(None, shared_dir / RISAWOZ_SAMPLE) == db
    with pytest.raises(UsageError, match="no RiSAWOZ database"):
        score(gold, preds, db=gold_samples)


def test_risawoz_gold_sample_by_hand(shared_dir, gold_samples):
    """gold_samples/risawoz/predictions.json against the real database, worked out by hand:

    * hospital: the user names 苏州大学附属第一医院 before any system turn -> offered by
      default, it has 3.0T MRI and is in 姑苏区 -> inform; 3.0T MRI asked at t1, "有的" is
      positive; 地址 十梓街188号 at t2 answered; 挂号时间 at t3: the DB says
      7:15-11:00,11:15-16:00, the response 7:30-11:30 -> not answered -> no success;
    * car: no 纯电动 car exists in the DB and no response names a car -> neither;
    * attraction + restaurant: 同里古镇 (recommended at t0) is a 水乡古镇 -> attraction
      inform; 松鹤楼 (t2) is 江浙菜/偏贵, not 苏帮菜/中等 -> restaurant inform fails.
    """
    gold = load_gold(gold_samples / "risawoz", corpus="risawoz")
    preds = read_predictions(gold_samples / "risawoz/predictions.json", corpus="risawoz")
    alignment = align(gold, preds)
    from dst_eval.corpora.risawoz.responses import outcomes_for

    outcomes = outcomes_for(alignment, EvalOptions(), load_database(shared_dir / RISAWOZ_DB))
    hospital = outcomes["hospital_goal_1-01###9001"]
    assert (hospital.inform, hospital.success) == (True, False)
    assert hospital.domains[0].unanswered == ("挂号时间",)
    assert hospital.domains[0].offered == "苏州大学附属第一医院"
    car = outcomes["car_goal_2-02###9002"]
    assert (car.inform, car.success, car.domains[0].offered) == (False, False, None)
    mixed = outcomes["attraction_restaurant_goal_3-03###9003"]
    by_domain = {d.domain: d for d in mixed.domains}
    assert (by_domain["旅游景点"].inform, by_domain["旅游景点"].offered) == (True, "同里古镇")
    assert (by_domain["餐厅"].inform, by_domain["餐厅"].offered) == (False, "松鹤楼")
    assert (mixed.inform, mixed.success) == (False, False)
    result = score(gold, preds, db=shared_dir / RISAWOZ_DB)
    assert (result.scores["inform"], result.scores["success"]) == (1 / 3, 0.0)


# ---------------------------------------------------------------- JMultiWOZ
def test_jmultiwoz_gold_is_100(jmultiwoz_gold):
    result = score(jmultiwoz_gold, predictions(jmultiwoz_gold, gold_response))
    assert result.scores["bleu_sentence_mean"] == pytest.approx(100.0, abs=TOL)
    assert result.scores["bleu_corpus"] == pytest.approx(100.0, abs=TOL)
    assert "bleu" not in result.scores  # the two aggregates are named apart
    assert result.signature_fields["tok"] == "ja-mecab-0.996-IPA"
    assert result.signature_fields["bleu"] == "sentence-mean"
    assert "no inform/success" in result.not_applicable["success"]
    check_table(result)


def test_jmultiwoz_official_bleu_identical_and_against_sacrebleu_tokens(gold_samples,
                                                                        jmultiwoz_gold):
    preds = read_predictions(gold_samples / "jmultiwoz/predictions.json", corpus="jmultiwoz")
    alignment = align(jmultiwoz_gold, preds)
    result = score_responses(alignment, EvalOptions(), resources=ResponseResources())
    profile = jmultiwoz_official.score(alignment, EvalOptions())
    assert result.scores["bleu_sentence_mean"] == profile.scores["bleu_sentence_mean"]
    assert result.official["response_bleu"] == profile.official["response_bleu"]
    hyp_tok = [JA_MECAB_TOKENS[p.response] for _, p in alignment.pairs]
    ref_tok = [JA_MECAB_TOKENS[g.system_response] for g, _ in alignment.pairs]
    sentence = [sacrebleu.sentence_bleu(h, [r], tokenize="none").score
                for h, r in zip(hyp_tok, ref_tok, strict=True)]
    assert result.scores["bleu_sentence_mean"] == pytest.approx(np.mean(sentence), abs=TOL)
    assert result.scores["bleu_sentence_mean"] == pytest.approx(71.38, abs=0.005)  # README
    assert result.scores["bleu_corpus"] == pytest.approx(
        sacrebleu.corpus_bleu(hyp_tok, [ref_tok], tokenize="none").score, abs=TOL)
    check_table(result)


def test_jmultiwoz_missing_turns_wrong_vs_skip(jmultiwoz_gold):
    turns = list(jmultiwoz_gold.turns())
    keep = lambda t: t.turn_index != 1  # noqa: E731
    preds = predictions(jmultiwoz_gold, gold_response, keep=keep)
    tokens = {t: JA_MECAB_TOKENS.get(t) for t in (g.system_response for g in turns)}
    if None in tokens.values():
        pytest.skip("a gold utterance lacks stored tokens")
    wrong = score(jmultiwoz_gold, preds)
    skip = score(jmultiwoz_gold, preds, missing="skip")
    n_missing = sum(not keep(t) for t in turns)
    assert wrong.counts["responses"]["missing_turns"] == n_missing
    assert wrong.scores["bleu_sentence_mean"] == pytest.approx(
        100 * (len(turns) - n_missing) / len(turns), abs=TOL)
    assert skip.scores["bleu_sentence_mean"] == pytest.approx(100.0, abs=TOL)
    assert skip.counts["responses"]["scored_turns"] == len(turns) - n_missing


# ---------------------------------------------------------------- bad responses, no responses
BAD = [None, 5, "", ["a", "list"], "   "]


@pytest.mark.parametrize("corpus", ["sgd", "crosswoz", "risawoz", "jmultiwoz"])
def test_bad_responses_are_reported_and_scored_empty(corpus, sgd_gold, gold_samples,
                                                     risawoz_gold, jmultiwoz_gold):
    gold = {"sgd": sgd_gold, "crosswoz": load_gold(gold_samples / "crosswoz", corpus="crosswoz"),
            "risawoz": risawoz_gold, "jmultiwoz": jmultiwoz_gold}[corpus]
    turns = list(gold.turns())
    bad_at = {(t.dialogue_id, t.turn_index): BAD[i % len(BAD)]
              for i, t in enumerate(turns[1::3])}

    def response(turn):
        return bad_at.get((turn.dialogue_id, turn.turn_index), turn.system_response)

    result = score(gold, predictions(gold, response))
    emptied = score(gold, predictions(gold, lambda t: "" if (t.dialogue_id, t.turn_index) in
                                      bad_at else t.system_response))
    assert result.scores == emptied.scores
    kinds = list(bad_at.values())
    assert result.counts["responses"]["no_response"] == kinds.count(None)
    assert result.counts["responses"]["non_string_response"] == sum(
        isinstance(k, int | list) for k in kinds)
    assert result.counts["responses"]["empty_response"] == sum(isinstance(k, str) for k in kinds)
    notes = " ".join(result.notes)
    assert "not a string" in notes and "(first: dialogue" in notes and "(int)" in notes
    main = {"jmultiwoz": "bleu_sentence_mean"}.get(corpus, "bleu")
    assert 0 < result.scores[main] < 100


def test_a_file_s_non_string_responses_are_counted_as_such(gold_samples, tmp_path):
    """Read from a file, a response that is not a string is a warning of the reader and
    counted as ``non_string_response`` (it was turned into "" by the reader and counted,
    and noted, as an empty response)."""
    sample = gold_samples / "crosswoz"
    data = json.loads((sample / "predictions.json").read_text(encoding="utf-8"))
    first = next(iter(data.values()))
    first[0]["response"], first[1]["response"] = 5, ["a", "list"]
    path = tmp_path / "bad_responses.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    result = evaluate(path, gold=sample)
    counts = result.counts["responses"]
    assert counts["non_string_response"] == 2 and "empty_response" not in counts
    assert "bad_response" in [i.kind for i in result.issues]
    notes = " ".join(result.notes)
    assert "not a string" in notes and "(int)" in notes and "empty or whitespace" not in notes


def test_a_response_over_the_limit_is_refused_and_dst_metrics_skip_responses(gold_samples,
                                                                             tmp_path):
    """A response over 10,000 characters is exit 3 (jieba took 16 s on 80,000; 4 MB of ASCII
    1.5 GB); ``--metrics`` without a response metric does not score (tokenise) responses."""
    sample = gold_samples / "crosswoz"
    data = json.loads((sample / "predictions.json").read_text(encoding="utf-8"))
    first = next(iter(data.values()))
    first[0]["response"] = "是" * 10_000
    path = tmp_path / "long.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    dst_only = evaluate(path, gold=sample, metrics=["joint_goal_accuracy"])
    both = evaluate(path, gold=sample, metrics=["joint_goal_accuracy", "bleu"])
    assert dst_only.scores["joint_goal_accuracy"] == both.scores["joint_goal_accuracy"]
    assert "responses" not in dst_only.counts and "responses" in both.counts
    assert "bleu" not in dst_only.scores and 0 < both.scores["bleu"] < 100
    first[0]["response"] = "是" * 10_001
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(PredictionError, match="turn 0: response of 10,001 characters exceeds"):
        evaluate(path, gold=sample, metrics=["joint_goal_accuracy"])


def test_jmultiwoz_official_scores_a_non_string_response_as_empty(gold_samples, tmp_path):
    """Under ``--profile official`` a JMultiWOZ response that is not a string is scored as
    "" (the reader keeps it as written, with a warning), as an empty one is."""
    sample = gold_samples / "jmultiwoz"
    data = json.loads((sample / "predictions.json").read_text(encoding="utf-8"))
    runs = {}
    for name, value in (("number", 5), ("empty", "")):
        next(iter(data.values()))[0]["response"] = value
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        runs[name] = evaluate(path, gold=sample, split="test", profile="official")
    assert runs["number"].scores == runs["empty"].scores
    assert 0 < runs["number"].scores["bleu_sentence_mean"] < 100


def test_no_responses_at_all_is_not_applicable(crosswoz_gold):
    gold = GoldSet("crosswoz", "test", crosswoz_gold.dialogues[:2], source="<memory>")
    result = score(gold, predictions(gold, lambda t: None))
    assert result.scores == {}
    assert result.not_applicable["bleu"] == "no scored turn has a response"
    assert result.counts["responses"]["no_response"] == gold.n_turns


# ---------------------------------------------------------------- pure metric pieces
def test_entity_inform_metric_functions():
    assert reference_entities(["a", "", "b", "a", "zz"], "xaby") == ("a", "b")
    found, total = entity_inform_counts([("ab", "c"), (), ("d",)], ["ab", "x", "d d"])
    assert found.tolist() == [1, 0, 1] and total.tolist() == [2, 0, 1]
    assert entity_inform_rate([("ab", "c"), (), ("d",)], ["ab", "x", "d d"]) == 2 / 3
    assert np.isnan(entity_inform_rate([()], ["x"]))
    metric = EntityInformRate()
    assert metric.from_sums({"entity_found": np.array([1.0, 0]),
                             "entity_total": np.array([2.0, 0])}).tolist()[0] == 0.5
    with pytest.raises(ValueError, match="2 entity sets but 1 responses"):
        entity_inform_counts([(), ()], ["x"])


@pytest.mark.parametrize(("cell", "response", "expected"), [
    ("2017-01-17(日本)", "首播时间是2017年1月17日", True),
    ("2017-01-17(日本)", "首播时间是2017年1月18日", False),
    ("当天10:30", "起飞时间是当天的10:30", True),
    ("4.5", "评分4.50分", True),
    ("0512-67603337", "电话是0512-67603337", True),
    ("周杰伦/桂纶镁/黄秋生", "主演有周杰伦", True),
    ("独立显卡", "配置的是独立的显卡", False),
    (True, "有的，提供停车场", True),
    (True, "没有停车场", False),
    ("否", "不能直达", True),
    ("无", "有停车场", False),
    (("儿科", "妇科"), "重点科室有儿科和妇科", True),
    (("儿科", "妇科"), "重点科室有儿科", False),
    (None, "任何回答", False),
    ("", "任何回答", False),
])
def test_cell_answered(cell, response, expected):
    assert cell_answered(cell, response) is expected


def test_numbers_and_polarity():
    assert numbers("07:05, 8.0 and 4.50") == {"7", "5", "8", "4.5"}
    assert polarity("是的") is True and polarity("不是") is False and polarity("好") is None


class _ToyDatabase:
    """Two hotels; A fits area=north, B does not."""

    rows_by_entity = {"A酒店": ({"名称": "A酒店", "区域": "north", "电话": "111"},),
                      "B酒店": ({"名称": "B酒店", "区域": "south", "电话": "222"},)}

    def mention_keys(self, domain):
        return {e: e for e in self.rows_by_entity}

    def rows(self, domain, entity):
        return self.rows_by_entity.get(entity, ())

    def satisfies(self, domain, row, constraints):
        return all(row.get(k) == v for k, v in constraints.items())

    def query(self, domain, constraints):
        return [r for rs in self.rows_by_entity.values() for r in rs
                if self.satisfies(domain, r, constraints)]


@pytest.mark.parametrize(("responses", "named", "expected"), [
    (["推荐A酒店", "电话111"], None, (True, True)),
    (["推荐A酒店", "电话222"], None, (True, False)),       # wrong phone
    (["推荐B酒店", "电话222"], None, (False, False)),      # B violates area=north
    (["推荐B酒店，还有A酒店", "电话111"], None, (True, True)),  # the last mention counts
    (["", "电话111"], "A酒店", (True, True)),              # user named A
    (["推荐B酒店", "电话222"], "A酒店", (False, False)),   # named A, offered B
    (["", ""], None, (False, False)),
    (["", ""], "A酒店", (False, False)),                  # named A, the output says nothing
    (["好的", "好的"], "A酒店", (False, False)),           # ... nothing about any hotel
    (["", "电话222"], "A酒店", (False, False)),           # ... only B's phone
])
def test_domain_decision_by_construction(responses, named, expected):
    goal = DomainGoal("酒店", {"区域": "north"}, "名称", named, {"电话": 1})
    outcome = dialogue_inform_success([goal], responses, _ToyDatabase())
    assert (outcome.inform, outcome.success) == expected


def test_database_normalisation_and_queries(risawoz_db_raw):
    db = RisawozDatabase(risawoz_db_raw)
    assert db.entity("火车", "G7320，杭州东-上海虹桥") == "G7320"
    assert db.entity("飞机", "东方航空MU2881，禄口国际机场T2-浦东国际机场T1") == "MU2881"
    assert db.column("辅导班", "老师") == "教师" and db.column("酒店", "不存在") is None
    hospital = db.rows("医院", "苏州大学附属第一医院")[0]
    assert isinstance(hospital["3.0T MRI"], bool) and hospital["电话"].isdigit()
    assert db.query("医院", {"3.0T MRI": "是"}) == tuple(
        r for r in db.query("医院", {}) if r["3.0T MRI"] is True)
    cars = db.query("汽车", {"所属价格区间": "15~20"})
    assert cars and all(r["所属价格区间"] == "15~20" for r in cars)
    assert db.query("汽车", {"所属价格区间": "15~20"}) is cars  # cached
    assert "天气" not in {d for d in db.domains if db.entity_slot(d)}


def test_jmultiwoz_inference_on_multiwoz_scores_responses_as_mwzeval_json(shared_dir, tmp_path,
                                                                         mwz21_test_gold):
    """A JMultiWOZ inference file holding a published system's MultiWOZ 2.1 predictions
    gives the Inform, Success and BLEU of the same predictions in mwzeval JSON: its
    ``dialogue_state`` wrapper was read as the state (domains ``belief_state`` and
    ``book_state``), Inform 22.10 for 76.00; under ``--profile mwzeval`` JGA 1.49 for 56.19."""
    source = shared_dir / "reference" / "mwzeval" / "predictions" / "augpt.json"
    system = json.loads(source.read_text(encoding="utf-8"))
    inference = {}
    for dialogue, turns in system.items():
        out = []
        for index, turn in enumerate(turns):
            out.append({"turn_id": 2 * index, "speaker": "USER", "utterance": "..."})
            out.append({"turn_id": 2 * index + 1, "speaker": "SYSTEM",
                        "utterance": turn["response"],
                        "dialogue_state": {"belief_state": turn["state"], "book_state": {}}})
        inference[dialogue] = {"turns": out}
    path = tmp_path / "e2e.inference.json"
    path.write_text(json.dumps(inference), encoding="utf-8")
    same = tmp_path / "augpt.json"  # the format has no active domains: estimated on both
    same.write_text(json.dumps({d: [{k: v for k, v in t.items() if k != "active_domains"}
                                    for t in turns] for d, turns in system.items()}),
                    encoding="utf-8")
    names = ("joint_goal_accuracy", "inform", "success", "bleu")
    for profile in ("strict", "mwzeval"):
        mine = evaluate(path, gold=mwz21_test_gold, profile=profile)
        theirs = evaluate(same, gold=mwz21_test_gold, profile=profile)
        compared = names if profile == "strict" else names[:1]
        assert [mine.scores[n] for n in compared] == [theirs.scores[n] for n in compared]
    assert 0.7 < mine.scores["inform"] < 0.8


@pytest.mark.parametrize("corpus", ["crosswoz", "jmultiwoz"])
def test_a_database_given_to_a_corpus_that_reads_none_is_noted(gold_samples, tmp_path,
                                                                corpus):
    """``--db`` with CrossWOZ or JMultiWOZ gold was ignored without a word."""
    folder = gold_samples / corpus
    split = {"jmultiwoz": "test"}.get(corpus)
    result = evaluate(folder / "predictions.json", gold=folder, split=split, db=tmp_path)
    assert f"--db {tmp_path}: not read, the {corpus} response metrics use no database" in \
        result.notes
    assert not [n for n in evaluate(folder / "predictions.json", gold=folder,
                                    split=split).notes if "--db" in n]


def test_multiwoz_inform_reads_a_state_given_without_the_state_as_written(shared_dir,
                                                                           mwz21_test_gold):
    """A predicted turn built in memory with a state but no state as written (``raw_state``)
    was scored by Inform/Success as a turn without a state; it gives the Inform and Success
    of the same predictions read from their file."""
    import msgspec

    from dst_eval.predictions.model import PredictionSet
    from dst_eval.predictions.reader import read_predictions

    source = shared_dir / "reference" / "mwzeval" / "predictions" / "augpt.json"
    read = read_predictions(source, corpus="multiwoz21")
    bare = PredictionSet(read.source, read.format, {
        d: [msgspec.structs.replace(t, raw_state=None) for t in turns]
        for d, turns in read.dialogues.items()}, read.issues)
    mine, theirs = evaluate(bare, gold=mwz21_test_gold), evaluate(read, gold=mwz21_test_gold)
    assert (mine.scores["inform"], mine.scores["success"]) == (
        theirs.scores["inform"], theirs.scores["success"])
    assert theirs.scores["inform"] > 0.7
