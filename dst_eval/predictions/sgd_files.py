"""The documents of an SGD-style prediction path, as the official scorer finds them: a
directory's every ``*.json`` except its own side output (``*dialogues_and_metrics.json``)
and ``schema.json`` (each skipped one is an Issue), one file, or a ``.zip`` of such files."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from dst_eval.errors import PredictionError
from dst_eval.jsonio import iter_zip_bytes, read_bytes
from dst_eval.predictions.model import Issue
from dst_eval.readahead import read_ahead

SIDE_OUTPUT = "dialogues_and_metrics.json"


def _prediction_files(path: Path) -> tuple[list[Path], list[Issue]]:
    if not path.is_dir():
        return [path], []
    os.scandir(path).close()  # glob() hides a folder that cannot be listed: raise (OSError)
    files, issues = [], []
    for candidate in sorted(path.glob("*.json")):
        if SIDE_OUTPUT in candidate.name:
            issues.append(Issue("skipped_file", f"skipped the SGD scorer's side output "
                                f"{candidate.name}", file=str(candidate)))
            continue
        if candidate.name == "schema.json":
            issues.append(Issue("skipped_file", "skipped schema.json", file=str(candidate)))
            continue
        files.append(candidate)
    if not files:
        raise PredictionError("no *.json prediction files in the directory", file=str(path))
    return files, issues


def prediction_documents(path: Path) -> tuple[Iterator[tuple[str, bytes]], list[Issue]]:
    """``(file name, bytes)`` of every prediction document under ``path``, and Issues."""
    if path.suffix.lower() == ".zip" and path.is_file():
        members = ((f"{path}:{name}", data)
                   for name, data in iter_zip_bytes(path, error=PredictionError)
                   if SIDE_OUTPUT not in name)
        return members, []
    files, issues = _prediction_files(path)
    return ((str(f), read_bytes(f, error=PredictionError)) for f in read_ahead(files)), issues
