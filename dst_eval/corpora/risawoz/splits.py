"""Which RiSAWOZ dialogues a split is: file names and ``dataset_split_ids_dict.json``.

The split-id file (next to the data, or one directory up) lists the dialogue ids of every
split under the release's file names (``all_test600_new.json`` for ``test``). When it is
there it decides, with or without ``--split``:

* a file named for a split (``test.json``, ``sample_train100_original_format.json``) must
  hold only dialogues the split-id file lists for that split, else the file is refused
  (a file of another split renamed: :func:`check_named_files`);
* without ``--split``, gold whose dialogues the split-id file places in several splits
  (``train``, ``dev``, ``test``, or listed in none of them: ``unlisted``) is a usage error
  naming them; gold in one split is scored as that split (:func:`select`);
* gold holding only some of a split's listed dialogues (the release's 100-dialogue train
  sample) is scored with a note saying how many, and dialogues read from several files
  (a folder) with a note naming the files.

Without a split-id file, a file's name is its split (:func:`files_for`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from dst_eval.corpora.layout import split_in_name
from dst_eval.errors import GoldDataError, UsageError

SPLIT_ID_FILE = "dataset_split_ids_dict.json"
SPLIT_KEYS = {
    "train": "all_train10000.json",
    "dev": "all_dev600.json",
    "test": "all_test600_new.json",
    "single_test": "single_test370_new.json",
    "multi_test": "multi_test230_new.json",
}
MAIN_SPLITS = ("train", "dev", "test")
"""The splits that partition the corpus (``single_test``/``multi_test`` are parts of test)."""
UNLISTED = "unlisted"


def split_from_name(path: Path) -> str | None:
    """The split a file's name says, as a word (:func:`~dst_eval.corpora.layout.split_in_name`:
    ``all_train10000.json``, ``val.json``; not ``latest_export.json``)."""
    return split_in_name(path.name)


def split_id_file(path: Path) -> Path | None:
    """``dataset_split_ids_dict.json`` next to ``path`` (a folder or a file) or one level up."""
    base = path if path.is_dir() else path.parent
    for folder in (base, base.parent):
        if (folder / SPLIT_ID_FILE).is_file():
            return folder / SPLIT_ID_FILE
    return None


def files_for(path: Path, files: list[Path], split: str | None,
              id_file: Path | None) -> tuple[list[Path], str | None]:
    """The files to read and the split their names say (None: not known). A folder whose
    files are named for several splits needs ``split``; a file named for another split than
    ``split`` is refused; without a split-id file ``split`` picks the files named for it."""
    named = {f: split_from_name(f) for f in files}
    if split is None:
        held = sorted({s for s in named.values() if s is not None})
        if path.is_dir() and len(held) > 1:
            raise UsageError(f"{path} holds several splits ({', '.join(held)}, by its file "
                             "names); choose one with --split")
        return files, held[0] if len(held) == 1 and all(named.values()) else None
    if not path.is_dir() and named[path] not in (None, split):
        raise GoldDataError(f"--split {split}: the file is named for the {named[path]} split",
                            file=str(path))
    if id_file is not None:
        return files, split
    chosen = [f for f, s in named.items() if s == split]
    if not chosen:
        raise GoldDataError(f"--split {split} needs {SPLIT_ID_FILE} next to {path} "
                            "(or give the split's own file)", file=str(path))
    return chosen, split


def check_table(table: Any, id_file: Path) -> Mapping[str, Any]:
    """The split-id file's content: ``{release file name: [dialogue ids]}``; a dialogue the
    file lists under two of the main splits (train, dev, test) is a :class:`GoldDataError`:
    its split could not be told."""
    if not isinstance(table, Mapping) or not all(isinstance(v, list) for v in table.values()):
        raise GoldDataError("expected an object {split file name: [dialogue ids]}",
                            file=str(id_file))
    owner: dict[str, str] = {}
    for split in MAIN_SPLITS:
        for dialogue_id in table.get(SPLIT_KEYS[split]) or ():
            earlier = owner.setdefault(str(dialogue_id), split)
            if earlier != split:
                raise GoldDataError(f"dialogue {dialogue_id!r} is listed for both the {earlier} "
                                    f"and the {split} split", file=str(id_file),
                                    dialogue=str(dialogue_id))
    return table


def _listed(table: Mapping[str, Any], split: str) -> set[str] | None:
    ids = table.get(SPLIT_KEYS.get(split, split))
    return None if ids is None else {str(i) for i in ids}


def held_splits(table: Mapping[str, Any], ids: Iterable[str]) -> list[str]:
    """The splits of the split-id file that list any of ``ids``: the names ``--split``
    takes (train, dev, ...), or, when none of those does, the file's other keys."""
    ids = set(ids)
    named = [name for name in SPLIT_KEYS if not ids.isdisjoint(_listed(table, name) or ())]
    return named or [str(key) for key in table if key not in SPLIT_KEYS.values()
                     and not ids.isdisjoint(map(str, table[key]))]


def _main_splits(table: Mapping[str, Any], ids: Iterable[str]) -> list[str]:
    """The main splits (train, dev, test) ``ids`` are listed in, plus ``unlisted`` for ids
    in none of them; empty when the split-id file has none of those lists."""
    lists = {s: ids_ for s in MAIN_SPLITS if (ids_ := _listed(table, s)) is not None}
    if not lists:
        return []
    ids = set(ids)
    held = [s for s, listed in lists.items() if not ids.isdisjoint(listed)]
    if ids - set().union(*lists.values()):
        held.append(UNLISTED)
    return held


def check_named_files(ids_of: Mapping[str, list[str]], table: Mapping[str, Any],
                      id_file: Path) -> None:
    """A file named for a split holds only dialogues the split-id file lists for it: a
    file of another split renamed is refused, naming both files (never scored under the
    name's split, nor refused later as holding no dialogue of it)."""
    for source, ids in ids_of.items():
        named = split_from_name(Path(source))
        listed = _listed(table, named) if named is not None else None
        if listed is None:
            continue
        stray = [i for i in ids if i not in listed]
        if stray:
            where = ", ".join(held_splits(table, stray)) or "no split"
            raise GoldDataError(
                f"the file is named for the {named} split, but {len(stray)} of its {len(ids)} "
                f"dialogues are not listed for {named} ({SPLIT_KEYS[named]}) in {id_file}: "
                f"they are listed for {where} (first: {stray[0]}); rename the file or pass "
                "the right split-id file", file=source)


def select(dialogues: dict[str, Any], file_of: Mapping[str, str], table: Mapping[str, Any],
           *, split: str | None, named: str | None, path: Path
           ) -> tuple[dict[str, Any], str | None, tuple[str, ...]]:
    """The dialogues to score, their split and the notes to show (module docstring)."""
    if split is None:
        held = _main_splits(table, dialogues)
        if len(held) > 1:
            raise UsageError(f"{path} holds several splits ({', '.join(held)}, by "
                             f"{SPLIT_ID_FILE}); choose one with --split")
        split = held[0] if held and held[0] != UNLISTED else named
        kept = dialogues
    else:
        wanted = _listed(table, split)
        if wanted is None:
            raise GoldDataError(f"--split {split}: no such split in {SPLIT_ID_FILE} "
                                f"(it holds: {', '.join(map(str, table)) or 'none'})",
                                file=str(path))
        kept = {k: v for k, v in dialogues.items() if k in wanted}
        if not kept:
            held_ = ", ".join(held_splits(table, dialogues)) or "none"
            raise GoldDataError(f"none of the dialogues belongs to the {split} split (by "
                                f"{SPLIT_ID_FILE}); the data holds the splits {held_}",
                                file=str(path))
    notes = []
    listed = _listed(table, split) if split is not None else None
    if listed is not None and len(kept) < len(listed):
        left_out = len(dialogues) - len(kept)
        others = (f"; {left_out:,} dialogues of other splits in the gold are not scored"
                  if left_out else "")
        key = SPLIT_KEYS.get(split, split)
        notes.append(f"partial split: the gold holds {len(kept):,} of the {len(listed):,} "
                     f"dialogues {SPLIT_ID_FILE} lists for {split} ({key}); scores cover "
                     f"those only, not the whole split{others}")
    return kept, split, (*notes, *merged_note(kept, file_of))


def merged_note(kept: Iterable[str], file_of: Mapping[str, str]) -> tuple[str, ...]:
    """A note naming the files the scored dialogues come from, when there are several."""
    counts: dict[str, int] = {}
    for dialogue_id in kept:
        counts[file_of[dialogue_id]] = counts.get(file_of[dialogue_id], 0) + 1
    if len(counts) < 2:
        return ()
    parts = ", ".join(f"{Path(f).name} ({n:,} dialogue{'s' * (n != 1)})"
                      for f, n in counts.items())
    return (f"gold merged from {len(counts)} RiSAWOZ dialogue files: {parts}; give one "
            "file as --gold to score it alone",)
