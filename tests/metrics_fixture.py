"""A deterministic corrupted-prediction fixture on MultiWOZ 2.1 test gold.

Used by ``tests/test_metrics_reference.py``; the expected numbers there were produced
by running the metric authors' own scripts on exactly these states (written out in
their ``{"dial": {"turn": {"gt": {domain: {slot: value}}, "pr": ...}}}`` format).

Gold states use each slot's first (canonical) gold value, so the authors' exact string
comparison and dst-eval's any-variant comparison agree. Predictions start from the gold
and carry errors across turns, chosen by CRC-32 of the dialogue id and turn:

* value changes (``"<value>-x"``: a value containing ``-``) that persist until a late
  correction clears them;
* slot deletions by the prediction (a gold slot dropped and not recovered until a
  correction);
* extra slots (``"north-east"``), also on turns whose gold state is empty;
* turns with an empty prediction;
* "sticky" dialogues that never delete a slot the gold deletes;
* oracle dialogues (prediction = gold).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

from dst_eval.corpora import load_gold

MWOZ21_TEST = "corpora/multiwoz21/test.json.zip"


def _h(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def corrupted_fixture(shared_dir) -> tuple[list[str], list[dict[str, str]], list[dict[str, str]]]:
    """``(dialogue_ids, gold_states, predicted_states)`` for every MultiWOZ 2.1 test turn."""
    gold_set = load_gold(shared_dir / MWOZ21_TEST, corpus="multiwoz21")
    return corrupt((d.dialogue_id, [{k: v[0] for k, v in t.state.items()} for t in d.turns])
                   for d in gold_set.dialogues)


def corrupt(dialogues: Iterable[tuple[str, list[dict[str, str]]]]
            ) -> tuple[list[str], list[dict[str, str]], list[dict[str, str]]]:
    ids: list[str] = []
    golds: list[dict[str, str]] = []
    preds: list[dict[str, str]] = []
    for dialogue_id, states in dialogues:
        kind = _h(dialogue_id) % 5
        wrong: dict[str, str] = {}
        dropped: set[str] = set()
        extra: dict[str, str] = {}
        previous: dict[str, str] = {}
        for t, gold in enumerate(states):
            ids.append(dialogue_id)
            golds.append(dict(gold))
            if kind == 0:  # oracle
                preds.append(dict(gold))
                continue
            h = _h(f"{dialogue_id}:{t}")
            action = h % 10
            keys = sorted(gold)
            if action == 0 and keys:
                slot = keys[(h // 10) % len(keys)]
                wrong[slot] = gold[slot] + "-x"
            elif action == 1 and keys:
                dropped.add(keys[(h // 10) % len(keys)])
            elif action == 2:
                slot = "hotel-area" if "hotel-area" not in gold else "attraction-area"
                extra[slot] = "north-east"
            elif action == 3:  # late correction
                wrong.clear()
                dropped.clear()
            if action == 5:
                pred: dict[str, str] = {}
            else:
                pred = dict(gold)
                if kind == 1:  # sticky: keeps what the gold deleted
                    for key, value in previous.items():
                        pred.setdefault(key, value)
                for key, value in extra.items():
                    pred.setdefault(key, value)
                for key, value in wrong.items():
                    pred[key] = value
                for key in dropped:
                    pred.pop(key, None)
            preds.append(pred)
            previous = pred
    return ids, golds, preds


def nested(state: dict[str, str]) -> dict[str, dict[str, str]]:
    """``{"hotel-area": v}`` -> ``{"hotel": {"area": v}}`` (the authors' input format)."""
    out: dict[str, dict[str, str]] = {}
    for key, value in state.items():
        domain, _, slot = key.partition("-")
        out.setdefault(domain, {})[slot] = value
    return out
