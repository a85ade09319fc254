"""An anchor's own gold rebuilt from the MultiWOZ ``data.json`` a gold set was read from.

The ``trade`` and ``trippy`` profiles score against the gold their anchors build
(:mod:`.trade_gold`, :mod:`.trippy_gold`), never against gold a submission carries. Both
read the loader's source file again: :func:`source_bytes` checks its bytes against the
digest the loader recorded (a file changed since loading is an error), :func:`parse_data`
parses a ``.json`` or a ``.zip`` holding one, and :class:`RebuiltGold` -- the speed device
of these modules -- keeps the built gold per (SHA-256 of those bytes, dialogue ids), so
scoring several systems in one process (a leaderboard, the API) builds it once (~0.6 s for
MultiWOZ 2.1 test, 0.002 s after). Keyed by content, it cannot serve another file's gold.
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any

from dst_eval.corpora.layout import GoldZip
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldSet
from dst_eval.jsonio import parse_json_bytes, read_bytes


def parse_data(raw: bytes, path: Path) -> tuple[Any, str]:
    """The parsed ``data.json`` in ``raw`` (the bytes of a ``.json`` file or of a ``.zip``
    holding one) and its name for messages."""
    if path.suffix == ".zip":
        try:
            with GoldZip(path, raw, error=GoldDataError) as archive:
                members = [n for n in archive.namelist()
                           if n.endswith(".json") and not n.startswith("__MACOSX/")]
                named = [n for n in members if PurePosixPath(n).name == "data.json"]
                member = members[0] if len(members) == 1 else (named or [None])[0]
                if member is None:
                    raise GoldDataError("expected one .json member (or data.json) in the zip",
                                        file=str(path))
                return archive.read_json(member), archive.name(member)
        except zipfile.BadZipFile:
            raise GoldDataError("not a valid zip file", file=str(path)) from None
    return parse_json_bytes(raw, file=str(path)), str(path)


def source_bytes(gold_set: GoldSet, *, profile: str, anchor: str) -> tuple[bytes, str]:
    """The bytes of the file ``gold_set`` was loaded from and their SHA-256, which must be
    the digest the loader recorded (``GoldSet.files``): a file changed since is an error,
    never a ``profile`` gold built from other data than the gold scored."""
    path = Path(gold_set.source)
    if not path.is_file():
        raise GoldDataError(f"the {profile} profile rebuilds {anchor}'s gold from the "
                            "MultiWOZ 2.0/2.1 data.json the gold was read from; it is not a "
                            "file", file=gold_set.source)
    raw = read_bytes(path)
    digest = hashlib.sha256(raw).hexdigest()
    recorded = {f.sha256 for f in gold_set.files if Path(f.path) == path}
    if recorded and digest not in recorded:
        raise GoldDataError("the file changed since the gold was loaded; load it again",
                            file=str(path))
    return raw, digest


Build = Callable[[Mapping[str, Any], tuple[str, ...], str], Mapping[str, Any]]
"""``build(parsed data.json, dialogue ids, file name) -> {dialogue_id: per-turn gold}``."""


class RebuiltGold:
    """``profile``'s gold for a gold set, built by ``build`` from its ``data.json`` and kept
    per (content digest, dialogue ids); the last ``keep`` entries are kept, read-only."""

    def __init__(self, build: Build, *, profile: str, anchor: str, keep: int = 2) -> None:
        self.build, self.profile, self.anchor, self.keep = build, profile, anchor, keep
        self._built: dict[tuple[str, tuple[str, ...]], Mapping[str, Any]] = {}

    def __call__(self, gold_set: GoldSet) -> Mapping[str, Any]:
        raw, digest = source_bytes(gold_set, profile=self.profile, anchor=self.anchor)
        ids = tuple(d.dialogue_id for d in gold_set)
        built = self._built.get((digest, ids))
        if built is None:
            data, file = parse_data(raw, Path(gold_set.source))
            if not isinstance(data, dict) or any(
                    not isinstance(data.get(i), dict) or "log" not in data[i] for i in ids):
                raise GoldDataError(f"the {self.profile} profile needs MultiWOZ 2.0/2.1 "
                                    "data.json gold (dialogues with a 'log'); this gold is in "
                                    "another layout", file=file)
            built = MappingProxyType(dict(self.build(data, ids, file)))
            while len(self._built) >= self.keep:
                self._built.pop(next(iter(self._built)))
            self._built[(digest, ids)] = built
        return built
