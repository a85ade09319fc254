"""Shared fixtures. ``shared_dir`` is the one way tests reach ``../shared``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
