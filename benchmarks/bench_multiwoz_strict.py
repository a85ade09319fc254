"""MultiWOZ 2.1 test, DST in the strict profile: wall time of load + read + score.

Goal (issue 2): well under a second. Predictions are the gold with every 3rd turn's
alphabetically first slot dropped, written to a temporary file; each repetition runs in a
fresh process so imports and parsing are counted, as a user's `dst-eval` run would be.

    python benchmarks/bench_multiwoz_strict.py [--shared ../shared] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import gc, sys, time
gc.disable()  # as the dst-eval command runs (dst_eval.cli.run)
t0 = time.perf_counter()
from dst_eval import evaluate
report = evaluate(sys.argv[1], gold=sys.argv[2], corpus="multiwoz21", split="test")
t1 = time.perf_counter()
print(t1 - t0, report.scores["joint_goal_accuracy"])
"""


def make_predictions(test_zip: Path, out: Path) -> None:
    from dst_eval.corpora import load_gold

    gold = load_gold(test_zip, corpus="multiwoz21", split="test")
    predictions = {}
    for dialogue in gold:
        turns = []
        for turn in dialogue.turns:
            state = {k: v[0] for k, v in turn.state.items()}
            if turn.turn_index % 3 == 2 and state:
                del state[sorted(state)[0]]
            turns.append({"state": state})
        predictions[dialogue.dialogue_id] = turns
    out.write_text(json.dumps(predictions))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared",
                        default=os.environ.get("DST_EVAL_SHARED", ROOT.parent / "shared"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    test_zip = Path(args.shared) / "corpora" / "multiwoz21" / "test.json.zip"
    with tempfile.TemporaryDirectory() as tmp:
        pred = Path(tmp) / "pred.json"
        make_predictions(test_zip, pred)
        inner, outer = [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            out = subprocess.run([sys.executable, "-c", CHILD, str(pred), str(test_zip)],
                                 check=True, capture_output=True, text=True).stdout.split()
            outer.append(time.perf_counter() - start)
            inner.append(float(out[0]))
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        command = [sys.executable, "-m", "dst_eval.cli", str(pred), "--gold", str(test_zip),
                   "--corpus", "multiwoz21", "--split", "test", "--format", "json",
                   "--output", str(Path(tmp) / "report.json")]
        cli = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            cli.append(time.perf_counter() - start)
    print(f"MultiWOZ 2.1 test strict DST, JGA {float(out[1]):.4f}")
    print(f"  evaluate() incl. gold load + prediction read: best {min(inner):.3f} s, "
          f"median {sorted(inner)[len(inner) // 2]:.3f} s")
    print(f"  whole process incl. interpreter start and imports: best {min(outer):.3f} s")
    print(f"  the dst-eval command (JSON report): best {min(cli):.3f} s, "
          f"median {sorted(cli)[len(cli) // 2]:.3f} s")
    print(f"  peak RSS of a run: {rss:.0f} MB")


if __name__ == "__main__":
    main()
