"""The wheel: ``pip wheel .`` on a fresh copy of the repository builds it, it installs into
a new virtualenv, and the installed command scores a sample from outside the repository
(``dst-eval`` and ``python -m dst_eval``), with ``--version`` read from the package
metadata. ``.ci/run`` builds the wheel once and passes it in ``$DST_EVAL_WHEEL``; without
it the test builds one (pip's isolated build, as a user would).

The new virtualenv gets the dependencies of this environment through a path entry (its
``site-packages`` directory, whose ``.pth`` hooks -- e.g. an editable dst-eval -- are not
run), so the test installs nothing from an index but the build requirements.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.packaging


def _copy_repository(target: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, target / name)


def _wheel(tmp: Path) -> Path:
    given = os.environ.get("DST_EVAL_WHEEL")
    if given:
        return Path(given)
    source, out = tmp / "src", tmp / "wheels"
    _copy_repository(source)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "-q",
                            "-w", str(out)], cwd=source, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    wheels = list(out.glob("dst_eval-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_installs_and_scores_outside_the_repository(tmp_path):
    wheel = _wheel(tmp_path)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig."
                                "get_paths()['purelib'])"], capture_output=True, text=True,
                               check=True).stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                              "--no-deps", "--no-index", "-q", str(wheel)],
                             capture_output=True, text=True)
    assert install.returncode == 0, install.stderr

    work = tmp_path / "elsewhere"  # outside the repository, with its own copy of a sample
    shutil.copytree(ROOT / "gold_samples" / "multiwoz22", work / "sample")
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    where = subprocess.run([str(python), "-c", "import dst_eval, dst_eval.metrics; "
                            "print(dst_eval.__file__)"], cwd=work, env=clean,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).is_relative_to(site), where  # the installed copy, not the repository

    version = subprocess.run([str(env_dir / "bin" / "dst-eval"), "--version"], cwd=work,
                             env=clean, capture_output=True, text=True)
    expected = wheel.name.split("-")[1]
    assert version.returncode == 0 and version.stdout.strip() == f"dst-eval {expected}"

    run = subprocess.run([str(python), "-m", "dst_eval", "sample/predictions.json", "--gold",
                          "sample", "-f", "json"], cwd=work, env=clean, capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["scores"]["joint_goal_accuracy"] == pytest.approx(9 / 13, abs=1e-12)
    assert report["signature"].endswith(f"|version:{expected}")
    assert sorted(p.name for p in work.iterdir()) == ["sample"]  # no file written
