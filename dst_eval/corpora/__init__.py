"""Gold loaders: each corpus's native format -> the canonical :class:`~dst_eval.gold.GoldSet`.

Every loader module exposes

* ``sniff(path: Path) -> bool`` -- cheap check whether ``path`` looks like this corpus;
* ``load(path: Path, *, split: str | None = None) -> GoldSet``.

Loaders raise :class:`~dst_eval.errors.GoldDataError` (exit code 4) with the file,
dialogue and turn on malformed gold data, never a bare exception.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from dst_eval.errors import GoldDataError, UsageError
from dst_eval.gold import GoldSet

# corpus name -> module in this package. Detection tries them in this order.
LOADER_MODULES: dict[str, str] = {
    "multiwoz22": "multiwoz.loader22",
    "sgd": "sgd.loader",
    "multiwoz21": "multiwoz.loader21",
    "crosswoz": "crosswoz.loader",
    "risawoz": "risawoz.loader",
    "jmultiwoz": "jmultiwoz.loader",
}


def loader_module(corpus: str) -> ModuleType:
    if corpus not in LOADER_MODULES:
        raise UsageError(f"unknown corpus {corpus!r}; known: {', '.join(LOADER_MODULES)}")
    try:
        return importlib.import_module(f"{__name__}.{LOADER_MODULES[corpus]}")
    except ModuleNotFoundError as exc:  # a corpus whose loader is not built yet
        raise UsageError(f"corpus {corpus!r} is not supported by this version") from exc


def detect_corpus(path: str | Path) -> str:
    """Name the corpus whose native format ``path`` is in, or raise UsageError."""
    path = Path(path)
    if not path.exists():
        raise GoldDataError("gold path does not exist", file=str(path))
    for corpus in LOADER_MODULES:
        try:
            module = loader_module(corpus)
        except UsageError:
            continue
        try:
            if module.sniff(path):
                return corpus
        except (OSError, ValueError):
            continue
    raise UsageError(
        f"cannot tell which corpus {path} holds; name it with --corpus "
        f"({', '.join(LOADER_MODULES)})"
    )


def load_gold(path: str | Path, *, corpus: str | None = None, split: str | None = None) -> GoldSet:
    """Load gold data from ``path`` (file, directory or zip), detecting the corpus if not named."""
    path = Path(path)
    if not path.exists():
        raise GoldDataError("gold path does not exist", file=str(path))
    if corpus in (None, "multiwoz22", "multiwoz21") and _is_mwzeval_states(path):
        from dst_eval.corpora.multiwoz import mwzeval_states

        return mwzeval_states.load(path, split=split)
    corpus = corpus or detect_corpus(path)
    module = loader_module(corpus)
    return module.load(path, split=split)


def _is_mwzeval_states(path: Path) -> bool:
    """mwzeval-format gold states ``{dialogue_id: [{domain: {slot: value}}]}`` (a JSON file)."""
    if not path.is_file() or path.suffix != ".json":
        return False
    from dst_eval.corpora.multiwoz import mwzeval_states

    try:
        return bool(mwzeval_states.sniff(path))
    except (OSError, ValueError):
        return False
