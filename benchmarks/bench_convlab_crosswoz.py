"""Job 5 -- CrossWOZ test: ConvLab-3's unified DST evaluator against ``--profile convlab``.

Inputs are built here from the raw gold (``<shared>/corpora/crosswoz/test.json.zip``): one
sample per user message followed by a system message (4,238); its gold state is that system
message's ``sys_state_init`` without ``selectedResults`` (every slot of every domain, ``""``
when unset, as in ConvLab's unified CrossWOZ). Predictions = the gold state with every 7th
sample's alphabetically first filled slot dropped and every 11th sample's first filled value
changed (``+ "X"``), given to each side in its own format:

    anchor:   <shared>/anchors/convlab/run.sh unified.json
              (a list of samples, gold ``state`` and ``predictions.state``: the gold travels
              with the predictions, so the anchor parses no corpus)
    dst-eval: dst-eval pred.json --gold <shared>/corpora/crosswoz/test.json.zip
              --corpus crosswoz --profile convlab --format json --output dst.json
              (mwzeval-style predictions, filled slots only; dst-eval loads the corpus)

No target in issue 8; the ratio is reported. Numbers compared: ConvLab's ``accuracy``,
``slot_precision``, ``slot_recall``, ``slot_f1`` against dst-eval's joint goal accuracy,
slot precision, recall, F1 (1e-12).

    python benchmarks/bench_convlab_crosswoz.py [--quick] [--dry-run] [--rounds N]
"""

from __future__ import annotations

import ast
import json
import zipfile
from pathlib import Path

from harness import Bench, Command, JobReport, cache_note, comparison_rows, standalone

JOB = "CrossWOZ test, convlab vs ConvLab-3 unified evaluator"
PAIRS = {"accuracy": "joint_goal_accuracy", "slot_precision": "slot_precision",
         "slot_recall": "slot_recall", "slot_f1": "slot_f1"}


def make_inputs(gold: Path, unified: Path, pred: Path) -> int:
    """Write both prediction files; return the number of samples."""
    with zipfile.ZipFile(gold) as archive:
        data = json.loads(archive.read(archive.namelist()[0]))
    samples, predictions, index = [], {}, 0
    for dialogue_id, dialogue in data.items():
        messages, rows = dialogue["messages"], []
        for user, system in zip(messages, messages[1:], strict=False):
            if user["role"] != "usr" or system["role"] != "sys":
                continue
            state = {domain: {slot: value for slot, value in slots.items()
                              if slot != "selectedResults"}
                     for domain, slots in system["sys_state_init"].items()}
            predicted = json.loads(json.dumps(state))
            filled = sorted((d, s) for d, slots in state.items() for s, v in slots.items()
                            if v.strip())
            if filled and index % 7 == 6:
                domain, slot = filled[0]
                predicted[domain][slot] = ""
            elif filled and index % 11 == 10:
                domain, slot = filled[0]
                predicted[domain][slot] = predicted[domain][slot] + "X"
            index += 1
            samples.append({"dialogue_id": dialogue_id, "utterance": user["content"],
                            "state": state, "predictions": {"state": predicted}})
            rows.append({"state": {d: {s: v for s, v in slots.items() if v.strip()}
                                   for d, slots in predicted.items()
                                   if any(v.strip() for v in slots.values())}})
        predictions[dialogue_id] = rows
    unified.write_text(json.dumps(samples, ensure_ascii=False), "utf-8")
    pred.write_text(json.dumps(predictions, ensure_ascii=False), "utf-8")
    return len(samples)


def same_numbers(anchor_stdout: str, dst_json: Path) -> str:
    anchor = ast.literal_eval(anchor_stdout[anchor_stdout.rindex("{"):].strip())
    mine = json.loads(dst_json.read_text()).get("scores", {})
    diffs = {k: abs(anchor[k] - mine[v]) for k, v in PAIRS.items() if v in mine}
    if len(diffs) < len(PAIRS):
        return f"could not compare (dst-eval lacks {sorted(set(PAIRS.values()) - set(mine))})"
    worst = max(diffs.values())
    return (f"{'yes' if worst <= 1e-12 else 'NO'}: accuracy/JGA {anchor['accuracy']:.6f} vs "
            f"{mine['joint_goal_accuracy']:.6f}, max Δ {worst:.1e}")


def run(bench: Bench) -> JobReport:
    bench.section(JOB)
    gold = bench.shared / "corpora" / "crosswoz" / "test.json.zip"
    work = bench.workdir / "convlab"
    if not bench.dry_run:
        work.mkdir(parents=True)
    unified, pred, dst_out = work / "unified.json", work / "pred.json", work / "dst.json"
    count = bench.prepare(f"gold-derived samples -> {unified} (ConvLab) and {pred} (dst-eval)",
                          lambda: make_inputs(gold, unified, pred))
    anchor = Command("convlab", (str(bench.anchor_script("convlab")), str(unified)))
    dst = Command("dst-eval", (str(bench.dst_eval), str(pred), "--gold", str(gold), "--corpus",
                               "crosswoz", "--profile", "convlab", "--format", "json",
                               "--output", str(dst_out)))
    rounds = bench.rounds(7, 2)
    comp = bench.interleaved(anchor, dst, [{}] * rounds, warm_home=work / "warm-cache",
                             capture=True)
    if bench.dry_run:
        return JobReport()
    numbers = same_numbers(comp.anchor[-1].stdout, dst_out)
    report = JobReport(comparison_rows("5 CrossWOZ test convlab", comp,
                                       {"cold": ["no target (report only)"]}, numbers))
    report.details.append(
        f"ConvLab CrossWOZ: {count} samples, {rounds} rounds; the anchor reads one file that "
        "already pairs gold and predictions, dst-eval parses the corpus and the predictions; "
        f"{cache_note(comp)}.")
    return report


if __name__ == "__main__":
    raise SystemExit(standalone(run, __doc__.splitlines()[0]))
