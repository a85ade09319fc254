"""Which dialogues of a MultiWOZ 2.0/2.1/2.4 ``data.json`` a split is.

A file named for a split (``test.json``, ``val.json.zip``) is that split. Otherwise the list
files next to it (``testListFile``, ``valListFile``; ``.txt``/``.json`` too, or in the zip
folder of its data member) name the test and dev dialogues; the dialogues in no list file
are ``train`` when both lists exist, else ``unlisted`` (no ``--split`` names them).
:func:`held_splits` says which splits a file holds, :func:`check_split` refuses a split it
does not hold (exit 4) and no ``--split`` on a file holding several (exit 2),
:func:`check_named_file` refuses a file named for a split that its list file contradicts,
:func:`select` picks the dialogue ids.
"""

from __future__ import annotations

from dst_eval.errors import GoldDataError, UsageError
from dst_eval.gold import dialogue_key

LIST_FILES = {"test": "testListFile", "dev": "valListFile"}
SPLIT_NAMES = {"test": "test", "dev": "dev", "val": "dev", "valid": "dev", "validation": "dev",
               "train": "train"}
LIST_SUFFIXES = ("", ".txt", ".json")
"""How a list file may end: ``testListFile``, ``testListFile.txt``, ``testListFile.json``."""


def held_splits(named: str | None, lists: dict[str, tuple[str, list[str]]],
                data: dict) -> list[str]:
    """The splits a file holds: its own name's, else each split whose list file names some of
    its dialogues, plus the dialogues in no list file: ``train`` when both list files exist,
    ``unlisted`` otherwise (a split no ``--split`` can select)."""
    if named is not None:
        return [named]
    if not lists:
        return []
    keys = {dialogue_key(did) for did in data}
    listed: set[str] = set()
    held = []
    for split in ("dev", "test"):
        if split in lists:
            ids = {dialogue_key(i) for i in lists[split][1]}
            listed |= ids
            if ids & keys:
                held.append(split)
    if keys - listed:
        held.insert(0, "train" if len(lists) == 2 else "unlisted")
    return held


def check_split(split: str | None, named: str | None, held: list[str],
                file: str) -> str | None:
    """The split to load (canonical name); refuses a split the gold does not hold, and no
    ``--split`` when the file holds several (its list files say which)."""
    if split is None:
        if named is None and len(held) > 1:
            raise UsageError(f"{file} holds several splits ({', '.join(held)}, by its list "
                             "files); choose one with --split")
        return named if named is not None or held == ["unlisted"] or not held else held[0]
    wanted = SPLIT_NAMES[split.lower()]
    if wanted not in held:
        how = (f"it holds {', '.join(held)}" if held else
               "no testListFile/valListFile next to it and no split in its name; drop --split "
               "to score the whole file")
        raise GoldDataError(f"--split {split}: the gold holds no {wanted} split ({how})",
                            file=file)
    return wanted


def check_named_file(data: dict, lists: dict[str, tuple[str, list[str]]], named: str | None,
                     file: str) -> None:
    """A file named for a split (``test.json``) holds that split only: when that split's
    list file is at hand, every dialogue of the file must be in it (a file of another
    split, renamed, is refused instead of being scored under the wrong name)."""
    if named is None or named not in lists:
        return
    list_name, ids = lists[named]
    listed = {dialogue_key(i) for i in ids}
    stray = [did for did in data if dialogue_key(did) not in listed]
    if stray:
        raise GoldDataError(f"the file is named for the {named} split but {len(stray)} of its "
                            f"{len(data)} dialogues are not in {list_name} (first: {stray[0]})",
                            file=file)


def select(
    data: dict, lists: dict[str, tuple[str, list[str]]], split: str | None, file: str
) -> list[str]:
    """Dialogue ids to load, in file order."""
    if split is None:
        return list(data)
    wanted = SPLIT_NAMES[split.lower()]
    by_key = {dialogue_key(did): did for did in data}
    if wanted == "train":  # held only when both list files exist (held_splits)
        held_out = {dialogue_key(i) for _name, ids in lists.values() for i in ids}
        return [did for did in data if dialogue_key(did) not in held_out]
    list_name, ids = lists[wanted]  # held: its list file exists (check_split)
    missing = [i for i in ids if dialogue_key(i) not in by_key]
    if missing:
        raise GoldDataError(
            f"{len(missing)} of the {len(ids)} dialogues listed in {list_name} are not in the "
            f"file (first: {missing[0]})",
            file=file,
        )
    keep = {dialogue_key(i) for i in ids}
    return [did for did in data if dialogue_key(did) in keep]
