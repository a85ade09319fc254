"""Fuzzing the prediction readers: 10,000+ malformed prediction files, in-process.

A seeded generator (reproducible, bounded in time) takes a clean prediction file for each
of the six corpora (gold from ``gold_samples/``, so this runs on a fresh clone) in each
input format -- mwzeval JSON, the ``{"metadata", "predictions"}`` wrapper, JSONL lines,
a JSON array of JSONL records, SGD-style frames -- and mutates it: truncation, invalid
UTF-8, a byte order mark, CRLF line ends, NaN/Infinity, huge numbers, depth 10,000, 1 MB
strings, duplicate keys, wrong types and nulls at every level, empty containers, hostile
dialogue ids (path separators, NUL, newlines, markup, bidi overrides), negative, float,
string and huge turn indexes, gaps, extra and missing turns and dialogues, hedged and
list values.

Each file is read by :func:`read_predictions` and, when it reads, aligned with the gold
and (one in eight) scored by :func:`dst_eval.evaluate`. The only exceptions allowed are
:class:`DstEvalError` with a documented exit code (2 usage, 3 predictions), rendered on
one line that names the file; anything else is a crash.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dst_eval import evaluate
from dst_eval.alignment import align
from dst_eval.corpora import load_gold
from dst_eval.errors import DstEvalError, PredictionError
from dst_eval.gold import GoldSet
from dst_eval.predictions.reader import predictions_from_object, read_predictions

CORPORA = {"multiwoz21": "multiwoz21/data.json", "multiwoz22": "multiwoz22",
           "sgd": "sgd", "crosswoz": "crosswoz", "risawoz": "risawoz",
           "jmultiwoz": "jmultiwoz"}
FORMATS = ("mwzeval", "wrapped", "jsonl", "jsonl-array", "sgd")
CASES_PER_BASE = 340  # 6 corpora x 5 formats x 340 = 10,200 files
SEED = 20261123

HOSTILE_IDS = ["../../etc/passwd", "a/b\\c", "nul\x00id", "new\nline", "[/x]",
               "[link](https://x.example)", "<img src=x>", "rtl\u202eoverride", "",
               " ", "x" * 2000, "\ud800", "PMUL0001.json", "emoji 😀"]
JUNK = [None, 0, -1, 1.5, True, "", " ", "x", [], {}, [None], {"a": None}, [[]],
        {"": ""}, 10**30, -(10**30), 1e308, "a|b", ["a", "b"], ["a"]]


# --------------------------------------------------------------------------- clean bases


def _state_nested(state: dict[str, Any]) -> dict[str, dict[str, str]]:
    nested: dict[str, dict[str, str]] = {}
    for key, variants in state.items():
        domain, _, slot = key.partition("-")
        value = next(iter(variants), "") if not isinstance(variants, str) else variants
        nested.setdefault(domain or "d", {})[slot or "s"] = value
    return nested


def _mwzeval(gold: GoldSet) -> dict[str, list[dict[str, Any]]]:
    out = {}
    for dialogue in gold:
        out[dialogue.dialogue_id] = [
            {"state": _state_nested(dict(turn.state)), "response": "a response",
             "requested_slots": sorted(turn.requested_slots),
             "active_intents": dict(turn.active_intents)} for turn in dialogue.turns]
    return out


def _sgd_frames(gold: GoldSet) -> list[dict[str, Any]]:
    dialogues = []
    for dialogue in gold:
        turns = []
        for turn in dialogue.turns:
            frames = {}
            for key, variants in dict(turn.state).items():
                service, _, slot = key.partition("-")
                frame = frames.setdefault(service, {"service": service, "slots": [],
                                                    "state": {"active_intent": "NONE",
                                                              "requested_slots": [],
                                                              "slot_values": {}}})
                frame["state"]["slot_values"][slot] = list(variants)[:2]
            turns.append({"speaker": "USER", "utterance": turn.user_utterance,
                          "frames": list(frames.values()) or [
                              {"service": "none", "slots": [],
                               "state": {"active_intent": "NONE", "requested_slots": [],
                                         "slot_values": {}}}]})
            turns.append({"speaker": "SYSTEM", "utterance": "ok", "frames": []})
        dialogues.append({"dialogue_id": dialogue.dialogue_id, "services": [],
                          "turns": turns})
    return dialogues


def base_document(fmt: str, gold: GoldSet) -> Any:
    mwz = _mwzeval(gold)
    if fmt == "mwzeval":
        return mwz
    if fmt == "wrapped":
        return {"metadata": {"model": "fuzz"}, "predictions": mwz}
    if fmt in ("jsonl", "jsonl-array"):
        return [{"dialogue_id": d, "turn_index": i, **turn}
                for d, turns in mwz.items() for i, turn in enumerate(turns)]
    return _sgd_frames(gold)


def encode(fmt: str, doc: Any) -> bytes:
    if fmt == "jsonl" and isinstance(doc, list):
        return b"\n".join(json.dumps(r, ensure_ascii=False, allow_nan=True).encode("utf-8",
                                                                                  "surrogatepass")
                          for r in doc) + b"\n"
    return json.dumps(doc, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")


# --------------------------------------------------------------------------- mutations


def _containers(obj: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every (path, container) in ``obj`` (depth-first, bounded)."""
    stack = [(path, obj)]
    while stack:
        here, node = stack.pop()
        if isinstance(node, dict):
            yield here, node
            stack.extend((here + (k,), v) for k, v in node.items())
        elif isinstance(node, list):
            yield here, node
            stack.extend((here + (i,), v) for i, v in enumerate(node))


def _pick_slot(rng: random.Random, doc: Any) -> tuple[Any, Any] | None:
    """A random (container, key) anywhere in the document."""
    places = [(c, k) for _, c in _containers(doc)
              for k in (list(c) if isinstance(c, dict) else range(len(c)))]
    return rng.choice(places) if places else None


def junk(rng: random.Random) -> Any:
    return copy.deepcopy(rng.choice(JUNK))


def m_junk(rng: random.Random, doc: Any) -> Any:  # wrong types and nulls at every level
    for _ in range(rng.randint(1, 3)):
        place = _pick_slot(rng, doc)
        if place is None:
            return junk(rng)
        container, key = place
        container[key] = junk(rng)
    return doc


def m_empty(rng: random.Random, doc: Any) -> Any:  # empty containers
    containers = [c for _, c in _containers(doc)]
    for c in rng.sample(containers, min(len(containers), rng.randint(1, 4))):
        c.clear()
    return doc


def m_delete(rng: random.Random, doc: Any) -> Any:  # missing keys, turns, dialogues
    for _ in range(rng.randint(1, 3)):
        place = _pick_slot(rng, doc)
        if place is not None:
            container, key = place
            del container[key]
    return doc


def m_duplicate(rng: random.Random, doc: Any) -> Any:  # extra turns and dialogues
    for _ in range(rng.randint(1, 3)):
        place = _pick_slot(rng, doc)
        if place is None:
            continue
        container, key = place
        if isinstance(container, list):
            container.insert(key, json.loads(json.dumps(container[key])))
        else:
            container[f"{key}x"] = copy.deepcopy(container[key])
    return doc


def m_ids(rng: random.Random, doc: Any) -> Any:  # hostile dialogue ids
    new = rng.choice(HOSTILE_IDS)
    if isinstance(doc, dict):
        inner = doc.get("predictions", doc)
        if isinstance(inner, dict) and inner:
            old = rng.choice(list(inner))
            inner[new] = inner.pop(old)
    elif isinstance(doc, list) and doc and isinstance(doc[0], dict):
        rng.choice(doc)["dialogue_id"] = new
    return doc


def m_turn_index(rng: random.Random, doc: Any) -> Any:  # odd indexes and gaps
    if isinstance(doc, list) and doc and isinstance(doc[0], dict) and "turn_index" in doc[0]:
        record = rng.choice(doc)
        record["turn_index"] = rng.choice([-1, 1.5, "2", 10**6, 10_000, 9_999, None, True,
                                           record["turn_index"] + rng.randint(1, 40)])
        if rng.random() < 0.5:
            doc.remove(rng.choice(doc))
        return doc
    return m_delete(rng, doc)


def m_values(rng: random.Random, doc: Any) -> Any:  # hedged, list, huge and odd values
    dicts = [c for path, c in _containers(doc) if isinstance(c, dict) and c
             and ("state" in path or "slot_values" in path)]
    for c in rng.sample(dicts, min(len(dicts), 3)):
        key = rng.choice(list(c))
        c[key] = rng.choice([["north", "south"], "north|south", [], ["x"], 3, 2.5, None,
                             float("nan"), float("inf"), "x" * rng.choice([10_001, 2**20]),
                             {"nested": "object"}, "dontcare", "", " "])
    return doc


def m_huge_names(rng: random.Random, doc: Any) -> Any:  # long keys, 1 MB strings
    dicts = [c for _, c in _containers(doc) if isinstance(c, dict) and c]
    if dicts:
        c = rng.choice(dicts)
        c["k" * rng.choice([1_001, 2**20])] = c.pop(rng.choice(list(c)))
    return doc


STRUCTURAL: list[Callable[[random.Random, Any], Any]] = [
    m_junk, m_empty, m_delete, m_duplicate, m_ids, m_turn_index, m_values, m_huge_names]


def b_truncate(rng: random.Random, data: bytes) -> bytes:
    return data[:rng.randrange(len(data))]


def b_invalid_utf8(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data))
    return data[:at] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80"]) + data[at:]


def b_bom(rng: random.Random, data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data


def b_crlf(rng: random.Random, data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n").replace(b", ", b",\r\n ")


def b_nan(rng: random.Random, data: bytes) -> bytes:
    return data.replace(b': "', rng.choice([b': NaN, "x', b': Infinity, "x', b': -Infinity, "x']),
                        1)


def b_huge_number(rng: random.Random, data: bytes) -> bytes:
    number = rng.choice([b"1" * 5000, b"1e400", b"-1e400", b"123456789012345678901234567890"])
    return data.replace(b': "', b": " + number + b', "y": "', 1)


def b_depth(rng: random.Random, data: bytes) -> bytes:
    depth = rng.choice([1_100, 10_000])
    bomb = b"[" * depth + b"]" * depth
    if rng.random() < 0.5:
        return bomb
    return data.replace(b': "', b": " + bomb + b', "z": "', 1)


def b_duplicate_key(rng: random.Random, data: bytes) -> bytes:
    at = data.find(b'{"', rng.randrange(len(data)))
    if at < 0:
        at = data.find(b'{"')
    if at < 0:
        return data + data
    end = data.find(b'":', at)
    key = data[at + 1:end + 1]
    escaped = key[:2] + b"\\u%04x" % key[2] + key[3:] if len(key) > 3 else key
    return data[:at + 1] + rng.choice([key, escaped]) + b': "dup", ' + data[at + 1:]


def b_garbage(rng: random.Random, data: bytes) -> bytes:
    return bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))


BYTES: list[Callable[[random.Random, bytes], bytes]] = [
    b_truncate, b_invalid_utf8, b_bom, b_crlf, b_nan, b_huge_number, b_depth,
    b_duplicate_key, b_garbage]


# --------------------------------------------------------------------------- the run


@pytest.fixture(scope="module")
def golds(gold_samples: Path) -> dict[str, GoldSet]:
    return {corpus: load_gold(gold_samples / where, corpus=corpus,
                              split="test" if corpus in ("multiwoz21", "jmultiwoz") else None)
            for corpus, where in CORPORA.items()}  # their samples hold several splits


def _check(exc: DstEvalError, source: str, case: str) -> None:
    text = str(exc)
    assert exc.exit_code in (2, 3), (case, text)
    assert "\n" not in text and "\r" not in text, (case, text)
    if isinstance(exc, PredictionError):
        assert text.startswith(source), (case, text)


def test_ten_thousand_malformed_prediction_files(golds, tmp_path):
    rng = random.Random(SEED)
    outcomes: dict[str, int] = {"read": 0, "rejected": 0, "scored": 0}
    kinds: dict[str, int] = {}
    stats: dict[str, int] = {}
    n = 0
    for corpus, gold in golds.items():
        for fmt in FORMATS:
            clean = json.dumps(base_document(fmt, gold))
            base = encode(fmt, json.loads(clean))
            suffix = ".jsonl" if fmt == "jsonl" else ".json"
            for i in range(CASES_PER_BASE):
                doc = json.loads(clean)
                mutation = rng.choice(STRUCTURAL + BYTES)
                if mutation in STRUCTURAL:
                    data = encode(fmt, mutation(rng, doc))
                    if rng.random() < 0.2:
                        data = rng.choice(BYTES)(rng, data)
                else:
                    data = mutation(rng, base)
                kinds[mutation.__name__] = kinds.get(mutation.__name__, 0) + 1
                path = tmp_path / f"{corpus}-{fmt}-{i}{suffix}"
                path.write_bytes(data)
                case = f"{path.name} ({mutation.__name__})"
                forced = {"sgd": "sgd", "jsonl-array": "jsonl"}.get(fmt) if i % 3 == 0 else None
                n += 1
                try:
                    preds = read_predictions(path, corpus=corpus, pred_format=forced)
                    outcomes["read"] += 1
                    if mutation is b_duplicate_key and fmt != "sgd":  # never silent
                        assert "duplicate_key" in {i.kind for i in preds.issues}, case
                    align(gold, preds)
                    if i % 8 == 0:
                        evaluate(preds, gold=gold)
                        outcomes["scored"] += 1
                except DstEvalError as exc:
                    outcomes["rejected"] += 1
                    _check(exc, str(path), case)
                    stats[f"{fmt}/{mutation.__name__}/{type(exc).__name__}"] = stats.get(
                        f"{fmt}/{mutation.__name__}/{type(exc).__name__}", 0) + 1
                else:
                    stats[f"{fmt}/{mutation.__name__}/ok"] = stats.get(
                        f"{fmt}/{mutation.__name__}/ok", 0) + 1
                path.unlink()
    assert n >= 10_000
    assert outcomes["read"] > 1_000 and outcomes["rejected"] > 1_000, outcomes
    assert len(kinds) == len(STRUCTURAL) + len(BYTES), kinds
    # every mutation both reads and is rejected somewhere, in every format (no dead case)
    for fmt in FORMATS:
        assert any(k.startswith(f"{fmt}/") and k.endswith("/ok") for k in stats), fmt
        assert any(k.startswith(f"{fmt}/") and k.endswith("Error") for k in stats), fmt


def test_in_memory_objects_are_fuzzed_too(golds):
    rng = random.Random(SEED + 1)
    for corpus, gold in golds.items():
        for fmt in ("mwzeval", "wrapped", "jsonl-array"):
            base = json.dumps(base_document(fmt, gold))
            for _ in range(40):
                doc = rng.choice(STRUCTURAL)(rng, json.loads(base))
                try:
                    preds = predictions_from_object(doc, corpus=corpus)
                    align(gold, preds)
                except DstEvalError as exc:
                    _check(exc, "<memory>", f"{corpus}/{fmt}")
