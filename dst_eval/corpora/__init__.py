"""The corpus registry: corpus name -> :class:`~dst_eval.config.CorpusSpec`.

One spec per ``configs/<corpus>.toml`` that has a ``[corpus]`` table; its code lives in
``dst_eval/corpora/<family>/``. Everything that differs between corpora is an attribute of
the spec (``profiles``, ``default_profile``, ``tokenizer``, ``slot_key_policy``,
``domain_of``, ``slot_universe``, ``seen_services``, ``accepts``, ...) or a module of its
folder (``loader_module()``, ``responses_module()``, ``surface_tests()`` from an optional
``surface.py``), so no code outside this package asks which corpus it is looking at
(``tests/test_architecture.py`` checks it).

Every loader module exposes

* ``sniff(path: Path) -> bool`` -- cheap check whether ``path`` looks like this corpus;
* ``load(path: Path, *, split: str | None = None) -> GoldSet``.

Loaders raise :class:`~dst_eval.errors.GoldDataError` (exit code 4) with the file,
dialogue and turn on malformed gold data, never a bare exception, and read gold files
through :class:`~dst_eval.corpora.layout.FileLog` so that ``GoldSet.files`` lists them.

Adding a corpus: write ``configs/<name>.toml`` (every ``[corpus]`` key is documented in
:mod:`dst_eval.config`), put its loader (``sniff``, ``load``) and ``responses.py``
(``score``) in ``dst_eval/corpora/<family>/``, list the package in ``pyproject.toml``, and
name the profiles that apply in the config. Nothing else changes.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from dst_eval.config import CorpusSpec, corpus_config, corpus_specs
from dst_eval.corpora.layout import VERSION_NOTE
from dst_eval.errors import GoldDataError, UsageError
from dst_eval.gold import GoldSet
from dst_eval.jsonio import check_path, special_reason

if TYPE_CHECKING:
    from dst_eval.metrics.tokenizers import Tokenizer

__all__ = ["CorpusSpec", "all_names", "applicable", "detect_corpus", "get", "load_gold", "names",
           "tokenizer"]


def get(name: str) -> CorpusSpec:
    """The spec of corpus ``name``; a usage error naming the known corpora otherwise."""
    return check(corpus_config(name))


WORD_TOKENIZERS = frozenset({"13a", "intl", "none"})
"""Tokenizers that do not split CJK runs (BLEU would be ~0 on Chinese or Japanese)."""
CJK_LANGUAGES = frozenset({"zh", "ja", "ko"})


def check(spec: CorpusSpec) -> CorpusSpec:
    """Refuse a spec whose BLEU tokenizer is unknown or cannot segment its language (usage
    errors; the tokenizer's library is not loaded here)."""
    from dst_eval.metrics.tokenizers import TokenizerError, get_tokenizer

    try:
        get_tokenizer(spec.tokenizer)
    except TokenizerError as exc:
        raise UsageError(f"configs/{spec.name}.toml: {exc}") from None
    if spec.language in CJK_LANGUAGES and spec.tokenizer in WORD_TOKENIZERS:
        raise UsageError(f"configs/{spec.name}.toml: tokenizer {spec.tokenizer!r} does not "
                         f"split {spec.language} text (BLEU would be ~0)")
    return spec


@cache
def names() -> tuple[str, ...]:
    """Known corpus names, in detection order (``detect_order`` of each config). Names only:
    a spec's tokenizer is checked when the corpus is used (:func:`get`), so listing the
    corpora does not load the BLEU tokenizers' module."""
    specs = sorted(corpus_specs(), key=lambda s: (s.detect_order, s.name))
    return tuple(s.name for s in specs)


@cache
def all_names() -> tuple[str, ...]:
    """Every name ``--corpus`` accepts: each corpus of :func:`names` followed by its
    ``versions`` (``multiwoz21``, ``multiwoz20``, ``multiwoz24``)."""
    return tuple(n for name in names() for n in (name, *corpus_config(name).versions))


def applicable(profile: str) -> tuple[str, ...]:
    """The corpora (and versions) whose config lists ``profile`` among its ``profiles``."""
    return tuple(name for name in all_names() if get(name).applies(profile))


def tokenizer(name: str) -> Tokenizer:
    """BLEU tokenizer ``name``, its library loaded; a missing one is a usage error (exit 2)."""
    from dst_eval.metrics.tokenizers import TokenizerError, get_tokenizer

    try:
        tok = get_tokenizer(name)
        tok.signature()  # loads jieba / MeCab: a missing library fails here, before scoring
    except TokenizerError as exc:
        raise UsageError(str(exc)) from None
    return tok


def loader_module(corpus: str) -> ModuleType:
    return get(corpus).loader_module()


def _layouts(spec: CorpusSpec, path: Path) -> list[ModuleType]:
    """Loaders to sniff for ``path``: alternate layouts (single ``.json`` files), then the
    corpus's own loader."""
    modules = list(spec.layout_modules()) if path.is_file() and path.suffix == ".json" else []
    return [*modules, spec.loader_module()]


def _sniffs(module: ModuleType, path: Path) -> bool:
    try:
        return bool(module.sniff(path))
    except (OSError, ValueError):
        return False


def detect_corpus(path: str | Path) -> str:
    """Name the corpus whose native format ``path`` is in, or raise GoldDataError."""
    return _detect(Path(path))[0]


def _detect(path: Path) -> tuple[str, ModuleType]:
    check_path(path, error=GoldDataError)  # not found, broken symlink, FIFO, device
    tried: set[str] = set()
    for name in names():
        try:
            modules = _layouts(get(name), path)
        except UsageError:  # a corpus whose code is not built yet
            continue
        for module in modules:
            if module.__name__ not in tried and _sniffs(module, path):
                return name, module
            tried.add(module.__name__)
    if path.is_dir() and not any(path.iterdir()):
        raise GoldDataError("the gold directory is empty", file=str(path))
    unreadable = _unreadable_member(path) if path.is_dir() else None
    if unreadable is not None:
        raise GoldDataError(f"cannot tell which corpus {path} holds: {unreadable[1]}",
                            file=unreadable[0])
    # not gold data of any known corpus (e.g. a predictions file): a gold problem, exit 4
    raise GoldDataError(
        f"cannot tell which corpus {path} holds (is it gold data?); name it with --corpus "
        f"({', '.join(names())})", file=str(path))


def _unreadable_member(folder: Path) -> tuple[str, str] | None:
    """``(file, reason)`` of the first JSON file in ``folder`` that no sniffer could read
    (empty, a folder, a FIFO, unreadable): the likely reason detection failed."""
    for child in sorted(folder.glob("*.json*"))[:100]:
        reason = special_reason(child)
        if reason is None and child.is_dir():
            reason = "a directory, where a JSON file was expected"
        if reason is None:
            try:
                with child.open("rb") as handle:
                    if not handle.read(1):
                        reason = "empty file"
            except OSError as exc:
                reason = f"cannot read ({exc.strerror})"
        if reason is not None:
            return str(child), reason
    return None


def load_gold(path: str | Path, *, corpus: str | None = None, split: str | None = None) -> GoldSet:
    """Load gold data from ``path`` (file, directory or zip), detecting the corpus if not named.

    A named corpus is read by the first of its alternate layouts that recognises ``path``
    (mwzeval-format states for MultiWOZ), else by its own loader.
    """
    path = Path(path)
    check_path(path, error=GoldDataError)
    if corpus is None:
        _, module = _detect(path)
        return _scorable(module.load(path, split=split))
    spec = get(corpus)
    *alternates, own = _layouts(spec, path)
    module = next((m for m in alternates if _sniffs(m, path)), own)
    return named_version(_scorable(module.load(path, split=split)), corpus)


def _scorable(gold: GoldSet) -> GoldSet:
    """``gold``, unless it has no turn to score (an empty file or archive): that is a gold
    problem, never a perfect score."""
    if not any(dialogue.turns for dialogue in gold.dialogues):
        what = "no dialogues" if not gold.dialogues else "no user turns in any dialogue"
        raise GoldDataError(f"{what}: nothing to score", file=gold.source)
    return gold


def named_version(gold: GoldSet, corpus: str) -> GoldSet:
    """``gold`` under the release ``--corpus`` names (``multiwoz24`` for gold a loader
    read as ``multiwoz21``): the user's word wins over the path's, and a disagreement
    is noted."""
    spec = get(corpus)
    if corpus not in (spec.name, *spec.versions) or get(gold.corpus).name != spec.name:
        return gold  # another corpus (e.g. 2.2 gold under --corpus multiwoz21): as read
    notes = tuple(n for n in gold.notes if not n.startswith(VERSION_NOTE))
    if len(notes) == len(gold.notes) and corpus != gold.corpus:  # the path named a release
        notes += (f"--corpus {corpus}: the gold path names {gold.corpus}; scored as "
                  f"{corpus}",)
    if (corpus, notes) == (gold.corpus, gold.notes):
        return gold
    return replace(gold, corpus=corpus, notes=notes)

