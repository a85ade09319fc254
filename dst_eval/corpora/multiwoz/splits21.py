"""Which dialogues of a MultiWOZ 2.0/2.1/2.4 ``data.json`` a split is.

A file named for a split (``test.json``, ``val.json.zip``) is that split. Otherwise the list
files next to it (``testListFile``, ``valListFile``; ``.txt``/``.json`` too, or in the zip
folder of its data member) name the test and dev dialogues; the dialogues in no list file
are ``train`` when both lists exist, else ``unlisted`` (no ``--split`` names them).
:func:`resolve` is what the loader calls: :func:`check_lists` refuses list files that
contradict each other or the file (a dialogue in both, an id matching a dialogue only after
Unicode normalisation), :func:`held_splits` says which splits a file holds,
:func:`check_split` refuses a split it does not hold (exit 4) and no ``--split`` on a file
holding several (exit 2), :func:`check_named_file` refuses a file named for a split that its
list file contradicts (a dialogue it does not list, or one it lists missing), :func:`select`
picks the dialogue ids. :func:`~dst_eval.corpora.layout.split_in_name` is the split a
file's own name says.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection
from pathlib import Path

from dst_eval.corpora.layout import SPLIT_WORDS, FileLog
from dst_eval.errors import GoldDataError, UsageError
from dst_eval.gold import dialogue_key

LIST_FILES = {"test": "testListFile", "dev": "valListFile"}
LIST_SUFFIXES = ("", ".txt", ".json")
"""How a list file may end: ``testListFile``, ``testListFile.txt``, ``testListFile.json``."""
Lists = dict[str, tuple[str, list[str]]]
"""``{split: (list file name, dialogue ids)}`` of the list files found."""


def parse_id_list(text: bytes, file: str) -> list[str]:
    """The dialogue ids of a list file (whitespace-separated)."""
    try:
        lines = text.decode("utf-8").split()
    except UnicodeDecodeError:
        raise GoldDataError("list file is not valid UTF-8", file=file) from None
    return [line.strip() for line in lines if line.strip()]


def lists_beside(path: Path, log: FileLog | None) -> Lists:
    """The list files next to ``path`` (read through ``log``, which records them, when
    given)."""
    lists: Lists = {}
    for split, stem in LIST_FILES.items():
        for candidate in (path.parent / (stem + suffix) for suffix in LIST_SUFFIXES):
            if candidate.is_file():
                raw = log.read_bytes(candidate) if log is not None else candidate.read_bytes()
                lists[split] = (str(candidate), parse_id_list(raw, str(candidate)))
                break
    return lists


def resolve(data: dict, lists: Lists, split: str | None, named: str | None,
            file: str) -> tuple[str | None, list[str]]:
    """The split to load (canonical name) and its dialogue ids, in file order, after every
    check of this module."""
    check_lists(data, lists, file)
    split = check_split(split, named, held_splits(named, lists, data), file)
    if split == named:
        check_named_file(data, lists, named, file)
        return split, list(data)
    return split, select(data, lists, split, file)


def _unicode_key(dialogue_id: str) -> str:
    return unicodedata.normalize("NFKC", dialogue_key(dialogue_id)).casefold()


def check_lists(data: Collection[str], lists: Lists, file: str) -> None:
    """Refuse a dialogue listed in both list files (scored in either split: leakage) and a
    listed id that matches a dialogue of the file only after Unicode normalisation (NFKC,
    case folded): ids match as written (:func:`dialogue_key`), never silently so."""
    if len(lists) == 2:
        (test_name, test_ids), (dev_name, dev_ids) = lists["test"], lists["dev"]
        in_dev = {dialogue_key(i) for i in dev_ids}
        both = [i for i in test_ids if dialogue_key(i) in in_dev]
        if both:
            more = f" (as are {len(both) - 1} more)" if len(both) > 1 else ""
            raise GoldDataError(f"this dialogue is listed in both {test_name} and {dev_name}"
                                f"{more}; a dialogue belongs to one split",
                                file=file, dialogue=both[0])
    keys = {dialogue_key(did) for did in data}
    unmatched = [(name, i) for name, ids in lists.values() for i in ids
                 if dialogue_key(i) not in keys]
    if not unmatched:
        return
    by_unicode = {_unicode_key(did): did for did in data}
    for name, listed in unmatched:
        found = by_unicode.get(_unicode_key(listed))
        if found is not None:
            raise GoldDataError(
                f"{name} lists {ascii(listed)}, which matches the dialogue {ascii(found)} of "
                "the file only after Unicode normalisation (NFKC); ids are matched as "
                "written: spell them alike", file=file)


def held_splits(named: str | None, lists: Lists, data: Collection[str]) -> list[str]:
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
    wanted = SPLIT_WORDS[split.lower()]
    if wanted not in held:
        how = (f"it holds {', '.join(held)}" if held else
               "no testListFile/valListFile next to it and no split in its name; drop --split "
               "to score the whole file")
        raise GoldDataError(f"--split {split}: the gold holds no {wanted} split ({how})",
                            file=file)
    return wanted


def check_named_file(data: Collection[str], lists: Lists, named: str | None,
                     file: str) -> None:
    """A file named for a split (``test.json``) holds that split, whole: when that split's
    list file is at hand, every dialogue of the file must be in it (a file of another
    split, renamed, is refused instead of being scored under the wrong name) and every
    dialogue it lists must be in the file (a partial split is not scored as the split)."""
    if named is None or named not in lists:
        return
    list_name, ids = lists[named]
    listed = {dialogue_key(i) for i in ids}
    stray = [did for did in data if dialogue_key(did) not in listed]
    if stray:
        raise GoldDataError(f"the file is named for the {named} split but {len(stray)} of its "
                            f"{len(data)} dialogues are not in {list_name} (first: {stray[0]})",
                            file=file)
    _check_listed_present(data, ids, list_name, file, f"the file is named for the {named} "
                          "split but ")


def _check_listed_present(data: Collection[str], ids: list[str], list_name: str, file: str,
                          prefix: str = "") -> None:
    """:class:`GoldDataError` when a dialogue ``list_name`` lists is not in ``data`` (ids, or
    their :func:`dialogue_key`)."""
    keys = {dialogue_key(did) for did in data}
    missing = [i for i in ids if dialogue_key(i) not in keys]
    if missing:
        raise GoldDataError(f"{prefix}{len(missing)} of the {len(ids)} dialogues listed in "
                            f"{list_name} are not in the file (first: {missing[0]})", file=file)


def select(data: dict, lists: Lists, split: str | None, file: str) -> list[str]:
    """Dialogue ids to load, in file order."""
    if split is None:
        return list(data)
    wanted = SPLIT_WORDS[split.lower()]
    if wanted == "train":  # held only when both list files exist (held_splits)
        held_out = {dialogue_key(i) for _name, ids in lists.values() for i in ids}
        return [did for did in data if dialogue_key(did) not in held_out]
    list_name, ids = lists[wanted]  # held: its list file exists (check_split)
    _check_listed_present(data, ids, list_name, file)
    keep = {dialogue_key(i) for i in ids}
    return [did for did in data if dialogue_key(did) in keep]
