"""MultiWOZ response metrics in a report: the mwzeval engine (:mod:`dst_eval.multiwoz.response`).

Resources
---------
* **goals, booked domains, references, gold states** come from the MultiWOZ 2.1
  ``data.json`` (file or zip): the gold itself for ``--corpus multiwoz21``, or
  ``--goals PATH`` for MultiWOZ 2.2 gold (2.2 has no goals). For 2.2 gold the BLEU
  references are built from the 2.2 span annotations of the gold directory.
* **database**: ``--db DIR`` (the four ``*_db.json`` files), else ``db/`` next to the gold.
* ``--references FILE`` / ``--gold-states FILE`` (mwzeval format) replace the derived ones.

The ``mwzeval`` profile runs the engine in compatibility mode (mwzeval 7f19ee0 number for
number, including its whole-input fallbacks); any other profile runs it strictly (nothing
mutated, missing dialogues/turns count as failures unless ``--missing skip``).
Scores: ``inform``/``success`` as fractions, ``bleu`` 0–100, ``combined`` =
0.5·(100·inform + 100·success) + BLEU, richness as mwzeval computes it.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from dst_eval.alignment import Alignment
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldSet
from dst_eval.metrics.base import Metric, TurnTable, ratio
from dst_eval.metrics.resampling import BleuMetric, bleu_table
from dst_eval.options import EvalOptions
from dst_eval.predictions.model import PredTurn
from dst_eval.responses import ResponseResources
from dst_eval.result import Result

RICHNESS_KEYS = ("avg_lengths", "entropy", "cond_entropy", "msttr", "num_unigrams",
                 "num_bigrams", "num_trigrams")
DB_FILES = ("restaurant_db.json", "hotel_db.json", "attraction_db.json", "train_db.json")


class DialogueRate(Metric):
    """Share of dialogues with ``column`` = 1 (inform or success), per scored dialogue."""

    def __init__(self, name: str, column: str) -> None:
        self.name, self.columns = name, (column, "scored")

    def from_sums(self, sums):
        return ratio(sums[self.columns[0]], sums["scored"])


def _find_db(gold: GoldSet, resources: ResponseResources) -> Path | None:
    if resources.db is not None:
        return Path(resources.db)
    source = Path(gold.source)
    base = source.parent if source.is_file() else source
    for candidate in (base / "db", base.parent / "db"):
        if all((candidate / name).is_file() for name in DB_FILES):
            return candidate
    return None


@lru_cache(maxsize=4)
def _response_gold(data: str, db: str, ids: tuple[str, ...], references: str | None,
                   gold_states: str | None, mwz22_dir: str | None):
    from dst_eval.corpora.multiwoz.delex import load_mwz22_references
    from dst_eval.corpora.multiwoz.engine import load_response_gold

    refs: Any = references
    if refs is None and mwz22_dir is not None:
        refs = load_mwz22_references(mwz22_dir)
    return load_response_gold(data, db, ids=ids, references=refs, gold_states=gold_states)


def _nested(state) -> dict[str, Any]:
    if all(isinstance(v, dict) for v in state.values()):
        return dict(state)
    nested: dict[str, dict[str, Any]] = {}
    for key, value in state.items():
        if isinstance(value, dict):
            nested.setdefault(key, {}).update(value)
            continue
        domain, _, slot = str(key).partition("-")
        nested.setdefault(domain, {})[slot] = value
    return nested


def _engine_turn(pred: PredTurn) -> dict[str, Any]:
    turn: dict[str, Any] = {}
    if pred.response is not None:
        turn["response"] = pred.response
    state = pred.raw_state if pred.raw_state is not None else pred.state
    if state is not None:
        turn["state"] = _nested(state)
    if pred.active_domains is not None:
        turn["active_domains"] = list(pred.active_domains)
    return turn


def _not_applicable(reason: str, target: Result | None) -> Result:
    names = ("inform", "success", "bleu", "combined")
    return (target or Result()).add(not_applicable=dict.fromkeys(names, reason))


def score(alignment: Alignment, options: EvalOptions, target: Result | None = None, *,
          resources: ResponseResources) -> Result:
    gold = alignment.gold
    if gold.corpus == "multiwoz21":
        data = gold.source
        mwz22_dir = None
    elif resources.goals is not None:
        data = str(resources.goals)
        mwz22_dir = gold.source if Path(gold.source).is_dir() else None
    else:
        return _not_applicable("MultiWOZ 2.2 has no user goals: pass --goals with the "
                               "MultiWOZ 2.1 data.json (or zip) to score Inform/Success/BLEU",
                               target)
    db = _find_db(gold, resources)
    if db is None:
        return _not_applicable("no MultiWOZ database: pass --db DIR (restaurant_db.json, "
                               "hotel_db.json, attraction_db.json, train_db.json)", target)
    ids = tuple(d.dialogue_id for d in gold)
    try:
        response_gold = _response_gold(
            str(data), str(db), ids,
            str(resources.references) if resources.references else None,
            str(resources.gold_states) if resources.gold_states else None, mwz22_dir)
    except FileNotFoundError as exc:
        raise GoldDataError(f"cannot read response gold ({exc.strerror})",
                            file=exc.filename) from None
    from dst_eval.corpora.multiwoz.engine import score_responses

    predictions = alignment.predictions
    engine_input = {d: [_engine_turn(t) for t in turns] for d, turns in
                    predictions.dialogues.items()}
    compat = options.profile == "mwzeval"
    result = score_responses(response_gold, engine_input, compat=compat,
                             missing=options.missing, file=predictions.source)
    scores: dict[str, float] = {
        "inform": result["inform"] / 100, "success": result["success"] / 100,
        "bleu": result["bleu"], "combined": result["combined"],
    }
    for key in RICHNESS_KEYS:
        if result["richness"] and key in result["richness"]:
            scores[key] = result["richness"][key]
    groups = {f"domain:{d}": {"inform": v / 100} for d, v in result["inform_by_domain"].items()}
    for d, v in result["success_by_domain"].items():
        groups.setdefault(f"domain:{d}", {})["success"] = v / 100
    notes = [f"responses: {result['setting']} setting (states: {result['state_source']}, "
             f"active domains: {result['domain_source']})"]
    for kind, problem in sorted(result["problems"].items()):
        examples = "; ".join(str(e) for e in problem.get("examples", [])[:3])
        notes.append(f"responses: {problem['count']} × {kind}" + (f" ({examples})"
                                                                   if examples else ""))
    tables = _bootstrap_tables(result, options.missing)
    return (target or Result()).add(
        scores=scores,
        signature_fields={"resp": "mwzeval-7f19ee0" if compat else "mwzeval-strict",
                          "tok": "13a", "bleu": "corpus"},
        groups=groups,
        official=result["official"] if compat else None,
        notes=notes,
        counts={"responses": {k: int(v) for k, v in result["counts"].items()}},
        tables=tables,
    )


class CombinedScore(Metric):
    """Combined = 0.5·(100·inform + 100·success) + BLEU, from per-dialogue sums."""

    name = "combined"

    def __init__(self, bleu: BleuMetric) -> None:
        self.bleu = bleu
        self.columns = ("inform", "success", "scored", *bleu.columns)

    def from_sums(self, sums):
        inform = ratio(sums["inform"], sums["scored"])
        success = ratio(sums["success"], sums["scored"])
        return 50.0 * (np.asarray(inform) + success) + self.bleu.from_sums(sums)


def _bootstrap_tables(result: dict[str, Any], missing: str
                      ) -> list[tuple[TurnTable, list[Metric]]]:
    """One row per gold dialogue: inform, success, whether it counts, and the dialogue's
    summed BLEU statistics — so inform, success, BLEU and combined resample together."""
    per_dialogue = result["per_dialogue"]
    ids = [row["dialogue_id"] for row in per_dialogue]
    counted = [missing == "wrong" or bool(row.get("scored", True)) for row in per_dialogue]
    columns = {
        "inform": np.array([float(r["inform"]) for r in per_dialogue]),
        "success": np.array([float(r["success"]) for r in per_dialogue]),
        "scored": np.array(counted, dtype=float),
    }
    segments = bleu_table(result["bleu_stats"], [str(i) for i in result["bleu_dialogue_index"]])
    index = np.asarray(result["bleu_dialogue_index"], dtype=np.int64)
    for name, values in segments.columns.items():
        columns[name] = np.bincount(index, weights=values, minlength=len(ids))
    bleu = BleuMetric()
    table = TurnTable(columns, np.arange(len(ids), dtype=np.int64), ids)
    return [(table, [DialogueRate("inform", "inform"), DialogueRate("success", "success"),
                     bleu, CombinedScore(bleu)])]
