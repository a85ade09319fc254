"""``--profile convlab`` against ConvLab-3's unified DST evaluator on current unified states.

Expected numbers: ``../shared/anchors/convlab/run.sh`` (ConvLab-3
``convlab/dst/evaluate_unified_datasets.py``, unmodified) on unified samples built in
scratch from ``../shared/corpora`` (only the numbers are stored here):

* SGD dev ``dialogues_008.json`` (128 multi-service dialogues): each user turn's gold
  ``state`` as ConvLab-3's ``data/unified_datasets/sgd/preprocess.py`` builds it since
  b3f1b23 -- every service of ``dialogue["services"]`` with every schema slot, a framed
  service takes its frame's ``slot_values`` (``|``-joined, other slots ``""``), an
  unframed one keeps its previous state. Predictions (first value of each gold slot):
  ``oracle`` = that state; ``framed`` = only the services framed in the turn (what
  dst-eval scored as gold before); ``perturbed`` = the oracle items sorted by
  ``(service, slot)``, ``k``-th dropped when ``(u + k) % 4 == 0``, ``x`` appended when
  ``(u + k) % 5 == 1`` (``u`` = user-turn index), plus ``foo`` in the first empty slot
  (sorted) of the dialogue's first service when ``u % 3 == 0``.
* MultiWOZ 2.1 val (7365 turns): gold = the loader's values over the 30 slots plus
  ``hospital-department`` (``""`` = empty, the unified ontology's state); predictions =
  the gold, plus ``hospital-department=cardiology`` on every 3rd turn (running count)
  whose gold has none, minus the first slot (sorted) on every 5th.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dst_eval import evaluate
from dst_eval.config import corpus_config
from dst_eval.corpora import load_gold

SGD_EXPECTED = {
    "oracle": (1.0, 1.0, 1.0, 1.0),
    "framed": (0.5711340206185567, 1.0, 0.6820561637315564, 0.8109790605546123),
    "perturbed": (0.01168384879725086, 0.7213617767387492, 0.5874583531651595,
                  0.6475603357817419),
}
"""(accuracy, slot_precision, slot_recall, slot_f1) from the anchor."""
MWZ_EXPECTED = (0.5799049558723693, 0.9493643765176404, 0.9723739393348289,
                0.9607314076465345)
NAMES = ("accuracy", "slot_precision", "slot_recall", "slot_f1")


def _sgd_predictions(dialogues: list[dict], schema: list[dict]) -> dict[str, dict]:
    slots = {s["service_name"]: [sl["name"] for sl in s["slots"]] for s in schema}
    out: dict[str, dict] = {name: {} for name in SGD_EXPECTED}
    for dialogue in dialogues:
        state = {service: dict.fromkeys(slots[service], "") for service in
                 dialogue["services"]}
        user = [t for t in dialogue["turns"] if t["speaker"] == "USER"]
        for u, turn in enumerate(user):
            framed = {}
            for frame in turn["frames"]:
                values = frame["state"]["slot_values"]
                service = frame["service"]
                state[service] = {s: values[s][0] if s in values else "" for s in slots[service]}
                framed[service] = {s: v for s, v in state[service].items() if v}
            oracle = {sv: {s: v for s, v in sl.items() if v} for sv, sl in state.items()}
            perturbed: dict[str, dict[str, str]] = {}
            items = sorted((sv, s) for sv in oracle for s in oracle[sv])
            for k, (sv, s) in enumerate(items):
                if (u + k) % 4:
                    perturbed.setdefault(sv, {})[s] = oracle[sv][s] + (
                        "x" if (u + k) % 5 == 1 else "")
            first = dialogue["services"][0]
            empty = sorted(s for s, v in state[first].items() if not v)
            if u % 3 == 0 and empty:
                perturbed.setdefault(first, {})[empty[0]] = "foo"
            for name, pred in (("oracle", oracle), ("framed", framed),
                               ("perturbed", perturbed)):
                out[name].setdefault(dialogue["dialogue_id"], []).append(
                    {"state": {f"{sv}-{s}": v for sv, sl in pred.items() for s, v in sl.items()}})
    return out


@pytest.fixture(scope="module")
def sgd_case(shared_dir: Path, tmp_path_factory) -> tuple[Path, dict[str, dict]]:
    folder = tmp_path_factory.mktemp("sgd_dev008")
    source = shared_dir / "corpora/sgd/dev"
    for name in ("dialogues_008.json", "schema.json"):
        shutil.copyfile(source / name, folder / name)
    dialogues = json.loads((folder / "dialogues_008.json").read_text("utf-8"))
    schema = json.loads((folder / "schema.json").read_text("utf-8"))
    return folder, _sgd_predictions(dialogues, schema)


@pytest.mark.parametrize("kind", list(SGD_EXPECTED))
def test_sgd_convlab_follows_cumulative_unified_state(sgd_case, kind: str,
                                                      tmp_path: Path) -> None:
    folder, predictions = sgd_case
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(predictions[kind]), "utf-8")
    result = evaluate(path, gold=folder, profile="convlab")
    for name, expected in zip(NAMES, SGD_EXPECTED[kind], strict=True):
        assert result.official[name] == pytest.approx(expected, abs=1e-12), name


def test_multiwoz_hospital_department_false_positive(shared_dir: Path, tmp_path: Path) -> None:
    gold = load_gold(shared_dir / "corpora/multiwoz21/val.json.zip", split="dev")
    assert "hospital-department" in corpus_config("multiwoz21").unified_slots
    predictions: dict[str, list] = {}
    n = 0
    for dialogue in gold:
        for turn in dialogue.turns:
            pred = {k: v[0] for k, v in turn.state.items()}
            if n % 3 == 0 and "hospital-department" not in pred:
                pred["hospital-department"] = "cardiology"
            if n % 5 == 0 and pred:
                pred.pop(sorted(pred)[0])
            n += 1
            predictions.setdefault(dialogue.dialogue_id, []).append({"state": pred})
    assert n == 7365
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(predictions), "utf-8")
    result = evaluate(path, gold=gold, profile="convlab")
    for name, expected in zip(NAMES, MWZ_EXPECTED, strict=True):
        assert result.official[name] == pytest.approx(expected, abs=1e-12), name


def test_sgd_keys_that_match_only_ignoring_case_are_not_found(sgd_case, tmp_path: Path) -> None:
    """ConvLab-3 looks the gold's service and slot names up exactly: a key written in
    another case is no prediction for the slot (an FN), though strict accepts it. By
    construction from the oracle: in every 2nd user turn the first item's slot name is
    capitalised, in every 7th (from the 4th) one service is written lower-case."""
    folder, predictions = sgd_case
    cased: dict[str, list] = {}
    items = renamed = affected = samples = 0
    for dialogue_id, turns in predictions["oracle"].items():
        for u, turn in enumerate(turns):
            state = dict(turn["state"])
            items += len(state)
            samples += 1
            changed: set[str] = set()  # the gold keys written otherwise
            keys = sorted(state)
            if u % 2 == 0 and keys:
                service, _, slot = keys[0].partition("-")
                state[f"{service}-{slot.capitalize()}"] = state.pop(keys[0])
                changed.add(keys[0])
            if u % 7 == 3 and keys:
                service = keys[-1].partition("-")[0]
                for key in [k for k in state if k.startswith(f"{service}-")]:
                    state[key.replace(service, service.lower(), 1)] = state.pop(key)
                    changed.add(next(k for k in keys if k.lower() == key.lower()))
            renamed += len(changed)
            affected += bool(changed)
            cased.setdefault(dialogue_id, []).append({"state": state})
    assert renamed > 100 and affected < samples
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(cased), "utf-8")
    result = evaluate(path, gold=folder, profile="convlab")
    recall = (items - renamed) / items
    expected = (1 - affected / samples, 1.0, recall, 2 * recall / (1 + recall))
    for name, value in zip(NAMES, expected, strict=True):
        assert result.official[name] == pytest.approx(value, abs=1e-12), name
    strict = evaluate(path, gold=folder, profile="strict")
    assert strict.scores["slot_recall"] > recall  # strict reads the other spellings


def test_dontcare_and_norm_are_named_as_not_applying(gold_samples):
    """ConvLab-3's evaluator has neither option (dontcare is a value, values lose their
    whitespace and case): the numbers and signature stay, and a note says so, as the other
    compatibility profiles do (it used to say nothing)."""
    gold = gold_samples / "multiwoz22"
    base = evaluate(gold / "predictions.json", gold=gold, profile="convlab")
    asked = evaluate(gold / "predictions.json", gold=gold, profile="convlab",
                     dontcare="ignore", normalisation="exact")
    assert asked.scores == base.scores and str(asked.signature) == str(base.signature)
    assert "dontcare:" not in str(asked.signature)
    new = [n for n in asked.notes if n not in base.notes]
    assert len(new) == 2
    assert new[0].endswith("--dontcare ignore does not apply")
    assert new[1].endswith("--normalisation exact does not apply")
