"""MultiWOZ response metrics in a report: the mwzeval engine (:mod:`.engine`).

Resources
---------
* **goals, booked domains, references, gold states** come from the loaded gold
  (:mod:`.response_gold`): the MultiWOZ 2.1 ``GoldSet`` itself, or for MultiWOZ 2.2 gold
  (2.2 has no goals) the 2.1 annotations of ``--goals PATH`` attached to it
  (:func:`.response_gold.with_mwz21_annotations`); for a 2.2 split folder or corpus root
  the BLEU references are built from the 2.2 span annotations (``dialog_acts.json``, read
  only when no ``--references`` file replaces them).
* **database**: ``--db DIR`` (the four ``*_db.json`` files), else ``db/`` next to the gold.
* ``--references FILE`` / ``--gold-states FILE`` (mwzeval format) replace the derived ones.

The ``mwzeval`` profile runs the engine in compatibility mode (mwzeval 7f19ee0 number for
number, including its whole-input fallbacks); any other profile runs it strictly (nothing
mutated, missing dialogues/turns count as failures unless ``--missing skip``).
Scores: ``inform``/``success`` as fractions (as the engine returns them), ``bleu`` 0–100,
``combined`` = 50·(inform + success) + BLEU, richness as mwzeval computes it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from dst_eval.alignment import Alignment
from dst_eval.config import corpus_config
from dst_eval.corpora.layout import FileLog, files_digest, probe_file
from dst_eval.corpora.multiwoz.database import MultiwozDatabase
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldSet
from dst_eval.metrics.base import Metric, TurnTable, ratio
from dst_eval.metrics.resampling import BleuMetric, bleu_table
from dst_eval.options import EvalOptions
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


def _gold_folder(gold: GoldSet) -> Path:
    """The gold folder, or the folder of the gold file; absolute, so that its parent is the
    folder above also for a gold path given as ``test.json.zip``."""
    source = Path(gold.source).absolute()
    return source.parent if source.is_file() else source


def _find_db(gold: GoldSet, resources: ResponseResources) -> Path | None:
    """``--db``, else the ``db`` folder next to the gold (its folder for a gold file), else
    the one next to that folder (a MultiWOZ 2.2 split folder inside the corpus root); a run
    that finds one notes which (:func:`score`)."""
    if resources.db is not None:
        return Path(resources.db)
    base = _gold_folder(gold)
    for candidate in (base / "db", base.parent / "db"):
        if all(probe_file(candidate / name) for name in DB_FILES):
            return candidate
    return None


def database_folder(gold: GoldSet, db: str | Path | None) -> Path | None:
    """The database folder scoring would read (``db``, else the one found next to the
    gold), for the CLI's output checks: no output may overwrite one of its tables, whether
    or not a run reads them."""
    return _find_db(gold, ResponseResources(db=db))


def _resources_digest(database: MultiwozDatabase, log: FileLog) -> str:
    """The content digest (8 hex digits) of every response resource read, as read: the
    database tables, then the ``--goals`` data and ``dialog_acts.json`` (MultiWOZ 2.2),
    the references and the gold states files when given (``log``)."""
    return files_digest([*database.files, *log.files])[:8]


def _not_applicable(reason: str, target: Result | None) -> Result:
    names = ("inform", "success", "bleu", "combined")
    return (target or Result()).add(not_applicable=dict.fromkeys(names, reason))


def score(alignment: Alignment, options: EvalOptions, target: Result | None = None, *,
          resources: ResponseResources) -> Result:
    gold = alignment.gold
    data: Path | None = None
    has_goals = corpus_config(gold.corpus).name == "multiwoz21"  # data.json: 2.0 / 2.1 / 2.4
    if has_goals and resources.goals is not None:
        target = (target or Result()).add(notes=[
            f"--goals is not used: the {gold.corpus} gold (data.json) has its own user goals, "
            "and those are used"])
    if not has_goals and resources.goals is not None:
        data = Path(resources.goals)
    elif not has_goals:
        return _not_applicable("MultiWOZ 2.2 has no user goals: pass --goals with the "
                               "MultiWOZ 2.1 data.json (or zip) to score Inform/Success/BLEU",
                               target)
    db = _find_db(gold, resources)
    if db is None:
        return _not_applicable("no MultiWOZ database: pass --db DIR (restaurant_db.json, "
                               "hotel_db.json, attraction_db.json, train_db.json)", target)
    from dst_eval.corpora.multiwoz.engine import score_responses
    from dst_eval.corpora.multiwoz.response_gold import response_gold, with_mwz21_annotations

    log = FileLog()  # the resources read once each: what is parsed is what is digested
    if data is not None:
        gold = with_mwz21_annotations(gold, data, log, spans=not resources.references)
    try:
        database = MultiwozDatabase.load(db)
    except FileNotFoundError as exc:
        raise GoldDataError(f"cannot read response gold ({exc.strerror})",
                            file=exc.filename) from None
    gold_for_responses = response_gold(
        gold, database,
        references=resources.references or None, gold_states=resources.gold_states or None,
        log=log)
    compat = options.profile == "mwzeval"
    result = score_responses(gold_for_responses, alignment, compat=compat,
                             missing="skip" if options.missing == "skip" else "wrong")
    scores: dict[str, float] = {
        "inform": result["inform"], "success": result["success"],
        "bleu": result["bleu"], "combined": result["combined"],
    }
    for key in RICHNESS_KEYS:
        if result["richness"] and key in result["richness"]:
            scores[key] = result["richness"][key]
    groups = {f"domain:{d}": {"inform": v} for d, v in result["inform_by_domain"].items()}
    for d, v in result["success_by_domain"].items():
        groups.setdefault(f"domain:{d}", {})["success"] = v
    notes = [f"responses: {result['setting']} setting (states: {result['state_source']}, "
             f"active domains: {result['domain_source']})"]
    if resources.db is None:  # found, not given: say which (relative: boards publish notes)
        folder = ("the gold folder" if Path(gold.source).is_dir()
                  else "the gold file's folder")
        notes.append(f"responses: database folder {os.path.relpath(db, _gold_folder(gold))}, "
                     f"found next to the gold (relative to {folder}); --db names another")
    for kind, problem in sorted(result["problems"].items()):
        examples = "; ".join(str(e) for e in problem.get("examples", [])[:3])
        notes.append(f"responses: {problem['count']} × {kind}" + (f" ({examples})"
                                                                   if examples else ""))
    tables = _bootstrap_tables(result, "skip" if options.missing == "skip" else "wrong")
    return (target or Result()).add(
        scores=scores,
        signature_fields={"resp": "mwzeval-7f19ee0" if compat else "mwzeval-strict",
                          "tok": "13a", "bleu": "corpus",
                          "res": _resources_digest(database, log)},
        resource_files=[f.path for f in (*database.files, *log.files)],
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
