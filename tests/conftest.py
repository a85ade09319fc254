"""Shared fixtures. ``shared_dir`` is the one way tests reach ``../shared``.

Loaded corpora are session fixtures (``mwz21_test_gold``, ``sgd_dev_gold``,
``crosswoz_test_gold``): read once per
test process and shared by every test module (a :class:`~dst_eval.gold.GoldSet` is
immutable). Under pytest-xdist (``-n auto``, the README's command; ``--dist loadfile`` in
``pyproject.toml``) each worker is one process and runs whole test modules, so a module's
expensive module fixtures (a 15-submission leaderboard, SGD prediction directories made by
the reference script) are built once. (``--dist loadgroup`` with ``xdist_group`` markers
does not group under pytest 9 and pytest-xdist 3.8: the board was built twice, 2 x 45 s.)
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from dst_eval.cli.app import BLAS_THREADS, GC_THRESHOLD

# Every test process runs numpy's BLAS on one thread, as the ``dst-eval`` command does (set
# here, before any test module imports numpy): otherwise two workers on two cores each
# start busy-waiting BLAS threads.
for _name, _value in BLAS_THREADS.items():
    os.environ.setdefault(_name, _value)

# Every test process collects rarely (the ``dst-eval`` command does not collect at all; a
# test worker runs for minutes, so it still does): a worker holds the session's corpora
# (millions of acyclic objects) that Python's default thresholds re-scan over and over.
# Measured (full suite, ``-n auto``, 2 cores, quiet): 119.6 s wall, 220 s CPU with the
# default; 101.4 s, 177 s with this threshold. The library itself never touches the
# collector (tests/test_architecture.py).
gc.set_threshold(*GC_THRESHOLD)

ROOT = Path(__file__).resolve().parent.parent
GOLD_SAMPLES = ROOT / "gold_samples"


def _shared_path() -> Path:
    return Path(os.environ.get("DST_EVAL_SHARED", ROOT.parent / "shared")).resolve()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` (or ``$DST_EVAL_SHARED``): skip when absent, fail when
    ``DST_EVAL_REQUIRE_SHARED=1``."""
    path = _shared_path()
    if not (path / "corpora").is_dir():
        reason = (
            f"shared data not found at {path}: tests on real corpora need the read-only "
            "../shared folder (set DST_EVAL_SHARED to point elsewhere)"
        )
        if os.environ.get("DST_EVAL_REQUIRE_SHARED") == "1":
            pytest.fail(reason + " and DST_EVAL_REQUIRE_SHARED=1 forbids skipping")
        pytest.skip(reason)
    return path


@pytest.fixture(scope="session")
def gold_samples() -> Path:
    return GOLD_SAMPLES


@pytest.fixture(scope="session")
def mwz21_test_gold(shared_dir: Path):
    """MultiWOZ 2.1 test (``corpora/multiwoz21/test.json.zip``, split test), loaded once."""
    from dst_eval.corpora import load_gold

    return load_gold(shared_dir / "corpora" / "multiwoz21" / "test.json.zip",
                     corpus="multiwoz21", split="test")


@pytest.fixture(scope="session")
def sgd_dev_gold(shared_dir: Path):
    """SGD dev (``corpora/sgd/dev``, with the train schema for seen/unseen), loaded once."""
    from dst_eval.corpora.sgd import loader

    return loader.load(shared_dir / "corpora" / "sgd" / "dev")


@pytest.fixture(scope="session")
def crosswoz_test_gold(shared_dir: Path):
    """CrossWOZ test (``corpora/crosswoz/test.json.zip``), loaded once."""
    from dst_eval.corpora.crosswoz import loader

    return loader.load(shared_dir / "corpora" / "crosswoz" / "test.json.zip")
