"""Every shell command of README.md, docs/ and the gold_samples READMEs runs on a fresh
clone: the repository's files (tracked and not ignored) are copied to a temporary
directory, and each command runs there with exit code 0 and no traceback.

Plain ``dst-eval ...`` commands run in-process (``dst_eval.cli.app.main``: the same code
as the console script, without an interpreter start per command); a pipeline or
``python -m dst_eval`` runs in a shell with this environment's ``dst-eval`` on ``PATH``.
Fences marked ``text`` (usage synopses), ``json``, ``python``, ``toml`` and ``yaml`` hold
no commands; ``pip install`` lines are what tests/test_packaging.py checks. ``python`` fences
are run as Python in the same clone, and every value a comment documents (``x  # 0.5``) is
checked.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dst_eval.cli.app import main

ROOT = Path(__file__).resolve().parent.parent
NOT_SHELL = {"text", "json", "python", "toml", "yaml", "yml"}


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
            *sorted((ROOT / "gold_samples").glob("*/README.md"))]


def commands(path: Path) -> list[str]:
    """The dst-eval commands of the shell fences of ``path`` (continuations joined,
    trailing comments dropped)."""
    found = []
    text = path.read_text(encoding="utf-8")
    for match in re.finditer(r"^```([^\n]*)\n(.*?)^```", text, re.S | re.M):
        if match.group(1).strip() in NOT_SHELL:
            continue
        for line in match.group(2).replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip().removeprefix("$ ")
            if "pip install" in line or not re.search(r"(^|\| )(dst-eval|python -m dst_eval)\b",
                                                      line):
                continue
            found.append(line)
    return found


ALL = [(str(p.relative_to(ROOT)), c) for p in documents() for c in commands(p)]


def test_the_documents_hold_commands():
    files = {f for f, _ in ALL}
    assert "README.md" in files and "docs/leaderboard.md" in files
    assert {f"gold_samples/{s}/README.md" for s in ("multiwoz21", "multiwoz22", "sgd",
                                                    "crosswoz", "risawoz", "jmultiwoz")} <= files
    assert len(ALL) >= 25


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """The repository's files as a fresh clone has them (git's view: tracked and
    untracked-but-not-ignored files)."""
    target = tmp_path_factory.mktemp("clone")
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target / name)
    return target


@pytest.mark.parametrize(("document", "command"), ALL)
def test_documented_command_runs(document, command, clone, monkeypatch, capsys):
    monkeypatch.chdir(clone)
    if "|" in command or command.startswith("python"):
        bin_dir = str(Path(sys.executable).parent)
        env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
        command = re.sub(r"^python\b", shlex.quote(sys.executable), command)
        run = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=clone, env=env,
                             capture_output=True, text=True, timeout=300)
        code, out, err = run.returncode, run.stdout, run.stderr
    else:
        code = main(shlex.split(command)[1:])
        out, err = capsys.readouterr()
    assert code == 0, f"{document}: {command}\n{err}"
    assert "Traceback" not in err
    assert out or err or " -q" in command  # only a quiet command prints nothing


def python_blocks(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [m.group(1) for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)]


PYTHON = [(str(p.relative_to(ROOT)), i, block) for p in documents()
          for i, block in enumerate(python_blocks(p))]
_NUMBER = re.compile(r"#\s*(-?\d+\.\d+|-?\d+)\b")
_PAIRS = re.compile(r"(\d+(?:\.\d+)?):\s*(\d+(?:\.\d+)?)")


def _documented_values(block: str) -> list[tuple[str, str]]:
    """``(expression, comment)`` for each top-level expression line whose trailing comment
    starts with the value it documents (``x  # 0.5``, ``f(...)  # {0.25: 0.5, ...}``)."""
    import ast

    found = []
    for node in ast.parse(block).body:
        if not isinstance(node, ast.Expr) or node.end_lineno is None:
            continue
        last = block.splitlines()[node.end_lineno - 1]
        comment = last.encode()[node.end_col_offset:].decode().strip()  # offsets in bytes
        if re.match(r"#\s*(-?\d|\{)", comment):
            found.append((ast.get_source_segment(block, node), comment))
    return found


def test_documents_hold_python():
    assert any(document == "README.md" for document, _, _ in PYTHON)
    assert sum(len(_documented_values(block)) for _, _, block in PYTHON) >= 5


@pytest.mark.parametrize(("document", "index", "block"), PYTHON)
def test_documented_python_runs(document, index, block, clone, monkeypatch):
    """Each ``python`` fence runs in the fresh clone, in order within its document (a block
    may use names of the one before), and each value a comment documents is the value."""
    monkeypatch.chdir(clone)
    namespace: dict = {}
    for earlier in python_blocks(ROOT / document)[:index]:
        exec(compile(earlier, f"{document}[python {index}]", "exec"), namespace)
    exec(compile(block, f"{document}[python {index}]", "exec"), namespace)
    for expression, comment in _documented_values(block):
        value = eval(expression, namespace)
        if comment.lstrip("# ").startswith("{"):
            pairs = _PAIRS.findall(comment)
            assert pairs, comment
            for key, expected in pairs:
                got = value[float(key)]
                decimals = len(expected.partition(".")[2])
                assert round(got, decimals) == float(expected), (document, expression, key, got)
        else:
            expected = _NUMBER.search(comment).group(1)
            decimals = len(expected.partition(".")[2])
            assert round(float(value), decimals) == float(expected), (document, expression, value)
