"""Structure rules of docs/architecture.md, checked on the source (AST, no imports run).

- no import cycle among dst_eval modules (module-level and function-level imports alike);
- ``metrics/`` imports nothing from ``dst_eval`` (it is installed as ``dst_eval.metrics``,
  so only its own modules count);
- outside ``dst_eval/cli/``: no ``gc.`` use, ``os.fork`` or ``os._exit``;
- no module over 500 lines except the data tables listed here;
- outside ``dst_eval/corpora/``: no test of which corpus it is (a corpus or family name
  compared with a literal), and generic modules (all but ``profiles/`` and
  ``predictions/``, whose anchors and formats belong to a corpus) import no corpus folder.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dst_eval"
METRICS = ROOT / "metrics"
MAX_LINES = 500
DATA_TABLES = {"dst_eval/corpora/multiwoz/mwzeval_rules.py",
               "dst_eval/corpora/multiwoz/trippy_labels.py"}
"""Modules that are mostly literal tables (exempt from the size rule)."""


def _module_name(path: Path) -> str:
    if path.is_relative_to(METRICS):
        parts = ["dst_eval", "metrics", *path.relative_to(METRICS).with_suffix("").parts]
    else:
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, tuple[Path, ast.Module]]:
    files = sorted(PACKAGE.rglob("*.py")) + sorted(METRICS.rglob("*.py"))
    return {_module_name(f): (f, ast.parse(f.read_text(encoding="utf-8"))) for f in files}


def _imports(name: str, path: Path, tree: ast.Module, known: set[str]) -> set[str]:
    """dst_eval modules ``name`` imports at run time, at module level or inside functions
    (``from pkg import mod`` counts as ``pkg.mod``; ``if TYPE_CHECKING:`` blocks do not)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
                   for stmt in block.body for n in ast.walk(stmt)}
    for node in ast.walk(tree):
        if id(node) in typing_only:  # annotations only: never imported at run time
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [f"{module}.{a.name}" for a in node.names] + [module]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def test_no_import_cycle():
    sources = _sources()
    known = set(sources)
    graph = {n: _imports(n, p, t, known) for n, (p, t) in sources.items()}
    # a package's __init__ importing its own submodules is not a cycle of design
    for name in graph:
        graph[name] = {t for t in graph[name] if not t.startswith(name + ".")}
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_metrics_import_nothing_from_dst_eval():
    offenders = []
    for path in sorted(METRICS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            offenders += [f"{path.name}:{node.lineno} {n}" for n in names
                          if n == "dst_eval" or (n.startswith("dst_eval.")
                                                 and not n.startswith("dst_eval.metrics"))]
    assert not offenders


def test_no_gc_fork_or_exit_outside_the_cli():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")) + sorted(METRICS.rglob("*.py")):
        if path.is_relative_to(PACKAGE / "cli"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import) and any(a.name == "gc" for a in node.names):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} import gc")
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == "os" and node.attr in ("fork", "_exit", "forkpty")):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} os.{node.attr}")
    assert not offenders


def test_modules_stay_short():
    long = []
    for path in sorted(PACKAGE.rglob("*.py")) + sorted(METRICS.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES and rel not in DATA_TABLES:
            long.append(f"{rel} ({n} lines)")
    assert not long, "modules over 500 lines: " + ", ".join(long)


CORPORA = PACKAGE / "corpora"
CORPUS_BOUND = (PACKAGE / "profiles", PACKAGE / "predictions")
"""Packages whose modules may use one corpus's code: a compatibility profile reproduces an
anchor written for one corpus; a prediction format may be one corpus's (SGD-style files)."""


def _corpus_tests(tree: ast.Module) -> list[int]:
    """Lines comparing a name or attribute named like ``corpus`` or ``family`` with a
    string literal (``corpus == "sgd"``, ``spec.family in ("multiwoz", ...)``; a spec's
    setting such as ``get(corpus).seen_services == "all"`` is configuration, not a test of
    the corpus)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        names = [o.id if isinstance(o, ast.Name) else o.attr for o in operands
                 if isinstance(o, ast.Name | ast.Attribute)]
        literals = [c for o in operands
                    for c in (o.elts if isinstance(o, ast.Tuple | ast.List | ast.Set) else [o])
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)]
        if literals and any("corpus" in n.lower() or "family" in n.lower() for n in names):
            found.append(node.lineno)
    return found


def _corpus_imports(tree: ast.Module) -> list[int]:
    """Lines importing a corpus folder (``dst_eval.corpora.<family>``)."""
    found = []
    for node in ast.walk(tree):
        modules = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                   [f"{node.module}.{a.name}" for a in node.names]
                   if isinstance(node, ast.ImportFrom) and node.module else [])
        if any(m.startswith("dst_eval.corpora.") and m.split(".")[2] in FAMILIES
               for m in modules):
            found.append(node.lineno)
    return found


FAMILIES = {p.name for p in CORPORA.iterdir() if (p / "__init__.py").exists()}


def test_only_the_corpus_folders_know_which_corpus_it_is():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_relative_to(CORPORA):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(ROOT)
        offenders += [f"{rel}:{line} compares a corpus name" for line in _corpus_tests(tree)]
        if not any(path.is_relative_to(p) for p in CORPUS_BOUND):
            offenders += [f"{rel}:{line} imports a corpus folder"
                          for line in _corpus_imports(tree)]
    assert not offenders


def test_the_checks_see_what_they_check(tmp_path):
    """The cycle finder finds a planted cycle (so the tests above can fail)."""
    a = ast.parse("from dst_eval import b\n")
    b = ast.parse("import dst_eval.a\n")
    known = {"dst_eval.a", "dst_eval.b"}
    assert _imports("dst_eval.a", PACKAGE / "a.py", a, known) == {"dst_eval.b"}
    assert _imports("dst_eval.b", PACKAGE / "b.py", b, known) == {"dst_eval.a"}
    typed = ast.parse("from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    import dst_eval.a\n")
    assert _imports("dst_eval.b", PACKAGE / "b.py", typed, known) == set()
    branching = ast.parse("if family == 'multiwoz':\n    pass\n"
                          "if fmt == 'sgd':\n    pass\n"
                          "if spec.corpus in ('sgd', 'crosswoz'):\n    pass\n"
                          "if get(gold.corpus).seen_services == 'all':\n    pass\n")
    assert _corpus_tests(branching) == [1, 5]
    imports = ast.parse("from dst_eval.corpora.multiwoz.mwzeval_rules import normalize_value\n"
                        "from dst_eval.corpora import layout\nimport dst_eval.corpora.sgd\n")
    assert _corpus_imports(imports) == [1, 3]
