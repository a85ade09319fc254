"""``--profile trippy`` on MultiWOZ 2.1: TripPy's own labels and ``metric_bert_dst.py``.

Expected numbers: TripPy (trippy-public master as vendored in wise-east/CheckDST 0891e37;
its one CheckDST line in the variant check, ``joint_pd_slot = joint_gt_slot``, removed, as
in every other copy) run in a scratch directory on ``../shared/corpora/multiwoz21``:
``dataset_multiwoz21.py`` ``create_examples`` (the ``DO.example.advanced`` flags, among
them ``label_value_repetitions``; an empty ``dialogue_acts.json``, which changes no label)
gave the labels; :func:`pred_res` below wrote ``pred_res`` files from them (with those
labels as ``slot_groundtruth_*``, which dst-eval never reads, and zeros in the position
fields); ``metric_bert_dst.py`` ``get_joint_slot_correctness`` over the 30 slots, with its
``__main__`` product for the joint goal accuracy, gave the numbers. Only the numbers are
stored here.

Prediction sets (per slot, ``label`` = TripPy's label of the turn, ``last`` = the previous
turn's, ``h`` = ``len(dialogue) + turn + slot index``):

* ``oracle``: a changed label is predicted with its class (``dontcare``/``true``/``false``,
  else ``copy_value`` with the label), an unchanged one with class ``none``;
* ``mixed``: as ``oracle``, except for a changed label other than those words:
  ``h % 9 == 0``: class ``none`` (missed); ``h % 9 == 1``: ``inform`` with ``§§`` + the
  label's first token (TripPy credits it as the label); ``h % 9 == 2``: ``inform`` with
  ``§§ zzz`` (wrong); ``h % 9 == 3``: ``copy_value`` with the label's first variant when
  it has one (right), else the label + ``x``; ``h % 9 == 4``: ``refer`` with the label
  unmarked; ``h % 9 == 5``: ``refer`` with ``§§none`` (keeps the state).
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from dst_eval import evaluate
from dst_eval.corpora import load_gold
from dst_eval.corpora.multiwoz import trippy_gold
from dst_eval.corpora.multiwoz.trippy_labels import CLASS_TYPES, LABEL_MAPS, SLOTS
from dst_eval.errors import PredictionError, UsageError

EXPECTED = {
    "test": {"oracle": 1.0, "mixed": 0.22775366250678242},
    "dev": {"oracle": 1.0, "mixed": 0.22511880515953836},
}
"""Joint goal accuracy from TripPy's metric (module docstring), per split and set."""
FILES = {"test": "test.json.zip", "dev": "val.json.zip"}
TURNS = {"test": 7372, "dev": 7365}
WORDS = ("dontcare", "true", "false")


def _class(name: str) -> int:
    return CLASS_TYPES.index(name)


def pred_res(labels: dict[str, list[dict[str, str]]], kind: str, split: str = "test") -> list:
    """TripPy ``pred_res`` records for ``labels`` ({dialogue: [turn labels]})."""
    records = []
    for dialogue, turns in labels.items():
        state = dict.fromkeys(SLOTS, "none")
        last = dict.fromkeys(SLOTS, "none")
        for turn, label_of in enumerate(turns):
            record: dict = {"guid": [split, dialogue, str(turn)]}
            for n, slot in enumerate(SLOTS):
                label = label_of[slot]
                cls, value = _class("none"), state[slot]
                if label != last[slot] and label != "none":
                    if label in WORDS:
                        cls, value = _class(label), label
                    else:
                        cls, value = _class("copy_value"), label
                        h = (len(dialogue) + turn + n) % 9 if kind == "mixed" else -1
                        if h == 0:
                            cls, value = _class("none"), state[slot]
                        elif h == 1:
                            cls, value = _class("inform"), "§§" + label.split()[0]
                        elif h == 2:
                            cls, value = _class("inform"), "§§ zzz"
                        elif h == 3:
                            variants = LABEL_MAPS.get(label)
                            value = variants[0] if variants else label + "x"
                        elif h == 4:
                            cls = _class("refer")
                        elif h == 5:
                            cls, value = _class("refer"), "§§none"
                    state[slot] = value if cls != _class("none") else state[slot]
                last[slot] = label
                record[f"slot_prediction_{slot}"] = value
                record[f"class_prediction_{slot}"] = cls
                record[f"slot_groundtruth_{slot}"] = label
                for field in ("class_label_id", "start_pos", "start_prediction", "end_pos",
                              "end_prediction", "refer_id", "refer_prediction"):
                    record[f"{field}_{slot}"] = 0
            records.append(record)
    return records


@pytest.fixture(scope="module")
def golds(shared_dir: Path) -> dict:
    return {split: load_gold(shared_dir / "corpora/multiwoz21" / name, corpus="multiwoz21",
                             split=split) for split, name in FILES.items()}


@pytest.fixture(scope="module")
def files(golds, tmp_path_factory) -> dict[tuple[str, str], Path]:
    """The ``pred_res`` files of the module docstring, written once: (split, kind) -> path."""
    root = tmp_path_factory.mktemp("trippy")
    out = {}
    for split in FILES:
        labels = _labels(golds[split])
        for kind in ("oracle", "mixed"):
            out[(split, kind)] = _write(root / f"pred_res.{split}.{kind}.json",
                                        pred_res(labels, kind, split))
    return out


def _write(path: Path, records: list) -> Path:
    path.write_bytes(orjson.dumps(records))
    return path


def _labels(gold) -> dict[str, list[dict[str, str]]]:
    built = trippy_gold.load_for(gold)
    return {d: [dict(t) for t in turns] for d, turns in built.items()}


@pytest.mark.parametrize("split", ["test", "dev"])
def test_labels_cover_every_turn(golds, split: str) -> None:
    labels = _labels(golds[split])
    assert sum(map(len, labels.values())) == TURNS[split]
    assert len(labels) == len(golds[split].dialogues)


@pytest.mark.parametrize(("split", "kind"), [(s, k) for s in FILES for k in ("oracle", "mixed")])
def test_trippy_profile_reproduces_metric_bert_dst(golds, files, split: str,
                                                   kind: str) -> None:
    result = evaluate(files[(split, kind)], gold=golds[split], profile="trippy")
    assert result.official["Joint goal acc"] == pytest.approx(EXPECTED[split][kind], abs=1e-12)
    assert result.counts["turns"] == TURNS[split]
    if kind == "oracle":  # every slot right against TripPy's labels: nothing to name
        assert not [i for i in result.issues if i.kind == "surface-forms"]
    assert result.signature.as_dict()["gold-as"] == "trippy-label-repetitions"


def test_inform_credit_depends_on_the_gold(golds, files, tmp_path: Path) -> None:
    """TripPy's gold-dependent credit, by construction: an informed first token of a
    multi-word label counts as the label under trippy, not under strict."""
    gold = golds["test"]
    oracle = files[("test", "oracle")]
    records = orjson.loads(oracle.read_bytes())
    changed = 0
    for record in records:
        for slot in SLOTS:
            value = record[f"slot_prediction_{slot}"]
            if (record[f"class_prediction_{slot}"] == _class("copy_value")
                    and len(value.split()) > 1):
                record[f"slot_prediction_{slot}"] = "§§" + value.split()[0]
                record[f"class_prediction_{slot}"] = _class("inform")
                changed += 1
    assert changed > 100
    path = _write(tmp_path / "pred_res.test.json", records)
    trippy = evaluate(path, gold=gold, profile="trippy")
    assert trippy.official["Joint goal acc"] == pytest.approx(EXPECTED["test"]["oracle"],
                                                              abs=1e-12)
    strict_oracle = evaluate(oracle, gold=gold).scores["joint_goal_accuracy"]
    strict = evaluate(path, gold=gold).scores["joint_goal_accuracy"]
    assert strict < strict_oracle - 0.1  # 0.536 vs 0.671: strict never credits a fragment


def test_needs_class_predictions(golds, files, tmp_path: Path) -> None:
    records = orjson.loads(files[("test", "oracle")].read_bytes())
    del records[3]["class_prediction_hotel-area"]
    path = _write(tmp_path / "pred_res.test.json", records)
    with pytest.raises(PredictionError, match="class_prediction_hotel-area"):
        evaluate(path, gold=golds["test"], profile="trippy")


def test_dialogue_bootstrap_and_other_formats(golds, files, tmp_path: Path) -> None:
    gold = golds["test"]
    path = files[("test", "mixed")]
    result = evaluate(path, gold=gold, profile="trippy", bootstrap=200, seed=12345)
    ci = result.confidence_intervals["joint_goal_accuracy"]
    assert ci["score"] == result.official["Joint goal acc"] == result.scores[
        "joint_goal_accuracy"]
    assert ci["resamples"] == 200 and ci["ci_low"] < ci["score"] < ci["ci_high"]
    assert result.signature.as_dict()["bs"] == "200"
    plain = tmp_path / "pred.json"  # the same states in the plain format: no classes to replay
    plain.write_text(json.dumps({d.dialogue_id: [{"state": {}} for _ in d.turns]
                                 for d in gold}), "utf-8")
    with pytest.raises(UsageError, match="scores TripPy pred_res files"):
        evaluate(plain, gold=gold, profile="trippy")


def test_nothing_predicted_is_refused_then_all_wrong(golds, tmp_path: Path) -> None:
    gold = golds["test"]
    records = pred_res({"NO-SUCH-DIALOGUE": [dict.fromkeys(SLOTS, "none")]}, "oracle")
    path = tmp_path / "pred_res.test.json"
    path.write_text(json.dumps(records), "utf-8")
    with pytest.raises(PredictionError, match=f"predictions match 0 of {len(gold):,} dialogues"):
        evaluate(path, gold=gold, profile="trippy")
    result = evaluate(path, gold=gold, profile="trippy", min_coverage=0)
    assert result.scores == {"joint_goal_accuracy": 0.0, "trade_slot_accuracy": 0.0}
    with pytest.raises(PredictionError, match="no gold turn has a prediction: with --missing "
                                              "skip nothing is left to score"):
        evaluate(path, gold=gold, profile="trippy", min_coverage=0, missing="skip")


def test_per_turn_frame_has_the_strict_schema(golds, files) -> None:
    gold = golds["test"]
    path = files[("test", "mixed")]
    frames = {p: evaluate(path, gold=gold, profile=p).to_pandas()
              for p in ("strict", "trade", "trippy")}
    schema = {p: [(c, str(t)) for c, t in f.dtypes.items()] for p, f in frames.items()}
    assert schema["trippy"] == schema["strict"] == schema["trade"]
    trippy = frames["trippy"]
    assert len(trippy) == TURNS["test"] and trippy["predicted"].all()
    assert trippy["joint_goal_correct"].mean() == pytest.approx(EXPECTED["test"]["mixed"],
                                                                abs=1e-12)


def test_none_for_unset_is_named_where_a_profile_scores_it(golds, files,
                                                          tmp_path: Path) -> None:
    """TripPy writes ``none`` for each unset slot: strict and trippy read it as unset; convlab
    and mwzeval score it as a value, as their anchors do, and say so in one warning."""
    gold = golds["test"]
    kept = {d.dialogue_id for d in gold.dialogues[:150]}  # a part scores the same way
    records = [r for r in orjson.loads(files[("test", "oracle")].read_bytes())
               if r["guid"][1] in kept]
    path = _write(tmp_path / "pred_res.test.json", records)
    nones = sum(1 for r in records for slot in SLOTS if r[f"slot_prediction_{slot}"] == "none")
    for profile in ("strict", "trippy", "trade", "convlab", "mwzeval"):
        result = evaluate(path, gold=gold, profile=profile, min_coverage=0.1)
        named = [i for i in result.issues if i.kind == "unset_marker_scored"]
        if profile in ("convlab", "mwzeval"):
            assert result.counts["unset_marker_values"] == nones > 20_000
            assert f"{nones:,} predicted 'none' values" in str(named[0])
        else:
            assert not named, profile


def test_dontcare_ignore_is_named_as_not_applying(golds, files) -> None:
    """TripPy scores dontcare as a class value: ``--dontcare ignore`` changes no number of
    the trippy profile, so the run says it does not apply (it was silent)."""
    gold, path = golds["test"], files[("test", "mixed")]
    plain = evaluate(path, gold=gold, profile="trippy")
    ignored = evaluate(path, gold=gold, profile="trippy", dontcare="ignore")
    assert ignored.scores == plain.scores
    assert any("--dontcare ignore is ignored by the trippy profile" in n for n in ignored.notes)
    assert not any("--dontcare" in n for n in plain.notes)

