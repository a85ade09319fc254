"""Regenerate ``docs/examples/leaderboard/`` from the 15 mwzeval submissions in ../shared.

    python docs/examples/make_leaderboard_example.py [--shared PATH] [--output-dir DIR]

Runs ``configs/leaderboard_example.toml`` with its gold path and submissions directory
pointed at ``--shared`` (default ``$DST_EVAL_SHARED``, else ``../shared`` next to the repo).
The prediction files are copied into a temporary directory, each with a ``.toml`` metadata
file naming the system as the published mwzeval leaderboard does
(``reference/mwzeval/published.json``), so the example also shows the metadata-file layout.
Only the three computed outputs are written into the repository; the score cache lives in
the temporary directory. Exit code 0, or 3 if a submission is invalid.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from dst_eval.leaderboard import Source, build_leaderboard, load_config, write_outputs

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "configs" / "leaderboard_example.toml"


def stage_submissions(shared: Path, target: Path) -> int:
    """Copy the prediction files into ``target`` with one metadata file each."""
    reference = shared / "reference" / "mwzeval"
    published = json.loads((reference / "published.json").read_text(encoding="utf-8"))
    names = {Path(s["file"]).name: s["system"] for s in published["systems"].values()}
    files = sorted((reference / "predictions").glob("*.json"))
    for file in files:
        shutil.copyfile(file, target / file.name)
        name = names.get(file.name, file.stem)
        (target / f"{file.stem}.toml").write_text(
            f"name = {json.dumps(name)}\npredictions = {json.dumps(file.name)}\n",
            encoding="utf-8")
    return len(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=Path(
        os.environ.get("DST_EVAL_SHARED", REPO.parent / "shared")))
    parser.add_argument("--output-dir", type=Path,
                        default=REPO / "docs" / "examples" / "leaderboard")
    args = parser.parse_args(argv)
    shared = args.shared.resolve()
    config = load_config(CONFIG)
    with tempfile.TemporaryDirectory(prefix="dst-eval-leaderboard-") as temporary:
        submissions = Path(temporary, "submissions")
        submissions.mkdir()
        count = stage_submissions(shared, submissions)
        config = dataclasses.replace(
            config, gold=shared / "corpora" / "multiwoz21" / "test.json.zip",
            sources=(Source(submissions.resolve(), ("*.toml",), "submissions"),))
        board = build_leaderboard(config, cache_dir=Path(temporary, "cache"))
    paths = write_outputs(board, args.output_dir)
    print(f"{count} submissions: {len(board.ranked)} ranked, "
          f"{len(board.rows) - len(board.ranked)} unranked, {len(board.invalid)} invalid; "
          f"wrote {', '.join(str(p) for p in paths)}")
    for invalid in board.invalid:
        print(f"invalid: {invalid.id}: {invalid.reason}", file=sys.stderr)
    return 3 if board.invalid else 0


if __name__ == "__main__":
    sys.exit(main())
