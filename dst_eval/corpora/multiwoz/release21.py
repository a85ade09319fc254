"""MultiWOZ 2.0 / 2.1 / 2.4 gold as people have it: a release folder or one file.

``--gold DIR --split SPLIT`` accepts

* a release folder: ``data.json`` with ``testListFile``/``valListFile`` (``.txt``,
  ``.json`` or no suffix) next to it (the MultiWOZ 2.0/2.1/2.4 zips unpacked; a single
  subfolder holding them, e.g. ``MULTIWOZ2.1/``, is looked into);
* a per-split folder: ``test.json`` / ``val.json`` (or ``.json.zip``; ``dev.json`` too)
  with the list files (the layout of ``../shared/corpora/multiwoz21``); ``--split`` picks
  the file, and there is no train split in it;
* a ``data.json``-style file or its zip, read by :mod:`.loader21` directly.

The release goes in the signature as a corpus name of its own (``multiwoz20``,
``multiwoz21``, ``multiwoz24``): named by the gold path (:func:`release_named`), else read as
``multiwoz21`` with a note saying so (``--corpus`` replaces both:
:func:`dst_eval.corpora.named_version`). Everything else -- the split selection by the list
files, the canonical state -- is :mod:`.loader21`'s; this module only finds the file. A
folder that holds neither layout, or a per-split folder without the file of the asked split,
is a one-line gold error.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from dst_eval.corpora.layout import SPLIT_WORDS, VERSION_NOTE
from dst_eval.corpora.multiwoz import loader21
from dst_eval.errors import GoldDataError, UsageError
from dst_eval.gold import GoldSet

_RELEASE = re.compile(r"multi[-_ ]?woz[-_ ]?v?2[._-]?([014])(?![0-9])", re.IGNORECASE)
RELEASE_ASSUMED = (f"{VERSION_NOTE}: read as multiwoz21 (MultiWOZ 2.0, 2.1 and 2.4 share the "
                   "data.json layout, and neither --corpus nor the gold path names one); name "
                   "it with --corpus multiwoz20, multiwoz21 or multiwoz24")


def release_named(where: str) -> str | None:
    """The MultiWOZ release a gold path names, innermost mention first: ``MULTIWOZ2.1/``,
    ``MultiWOZ_2.4.zip``, ``multiwoz20/`` -> ``multiwoz21``, ``multiwoz24``, ``multiwoz20``;
    None when it names none (the caller says so: never assumed silently)."""
    found = _RELEASE.findall(where)
    return f"multiwoz2{found[-1]}" if found else None


SPLIT_FILES = {"test": ("test",), "dev": ("val", "dev")}
_SUFFIXES = (".json", ".json.zip")


def _release_dir(path: Path) -> Path | None:
    """The folder holding ``data.json`` (``path`` itself or its single subfolder)."""
    if (path / "data.json").is_file():
        return path
    subdirs = [p for p in path.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))]
    if len(subdirs) == 1 and (subdirs[0] / "data.json").is_file():
        return subdirs[0]
    return None


def _split_files(path: Path) -> dict[str, Path]:
    """``{split: file}`` of a per-split folder."""
    found: dict[str, Path] = {}
    for split, stems in SPLIT_FILES.items():
        for stem in stems:
            for suffix in _SUFFIXES:
                candidate = path / f"{stem}{suffix}"
                if candidate.is_file() and split not in found:
                    found[split] = candidate
    return found


def locate(path: Path, split: str | None) -> Path:
    """The ``data.json``-style file to read for ``path`` and ``split``."""
    if not path.is_dir():
        return path
    release = _release_dir(path)
    if release is not None:
        return release / "data.json"
    files = _split_files(path)
    if not files:
        raise GoldDataError("no MultiWOZ data.json, test.json or val.json (or .json.zip) "
                            "in this folder", file=str(path))
    if split is None:
        raise UsageError(f"{path} holds one file per split ({', '.join(sorted(files))}); "
                         "name one with --split")
    wanted = SPLIT_WORDS.get(split.lower())
    if wanted is None:
        raise UsageError(f"unknown MultiWOZ split {split!r}; use train, dev (val) or test")
    if wanted not in files:
        raise GoldDataError(f"no {wanted} file in this per-split folder (it has "
                            f"{', '.join(sorted(files))})", file=str(path))
    return files[wanted]


def sniff(path: str | Path) -> bool:
    """A release or per-split folder whose file :func:`loader21.sniff` recognises, or such a
    file itself."""
    path = Path(path)
    if not path.is_dir():
        return loader21.sniff(path)
    try:
        release = _release_dir(path)
    except OSError:
        return False
    if release is not None:
        return loader21.sniff(release / "data.json")
    files = _split_files(path)
    return bool(files) and all(loader21.sniff(f) for f in files.values())


def load(path: str | Path, *, split: str | None = None) -> GoldSet:
    """Load the split of a release folder, a per-split folder or a file (module docstring)."""
    path = Path(path)
    if not path.exists():
        raise GoldDataError("gold path does not exist", file=str(path))
    gold = loader21.load(locate(path, split), split=split)
    release = release_named(path.resolve().as_posix())
    return replace(gold, corpus=release or gold.corpus,
                   notes=(*gold.notes, *(() if release else (RELEASE_ASSUMED,))))
