"""Schema-Guided Dialogue (SGD, DSTC8) gold loader.

Accepted layouts (:mod:`.locate`): a split directory, the corpus root plus ``split``, one
``dialogues_*.json`` file, the Hugging Face ``schema_guided_dstc8`` export (JSON or
JSONL). Each file is decoded into typed records holding only what scoring needs
(:mod:`.files`, :mod:`.records`) and turned into gold objects (:mod:`.build`), one file at
a time, in this process.

``GoldSet.schema``/``slots``/``categorical_slots`` come from the split's ``schema.json``
(empty when there is none; then the frames' services and slots are not checked against
it), ``seen_services`` from ``<root>/train/schema.json`` (None when there is none).
Malformed gold (:mod:`.build` lists the checks) raises :class:`GoldDataError` naming the
file, the dialogue and the turn by its position in ``turns``; two dialogues with one id
too (ids that differ only in case, ``.json`` or surrounding spaces are one id:
:func:`~dst_eval.gold.dialogue_key`).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType

from dst_eval.corpora.layout import FileLog, split_label_note
from dst_eval.corpora.sgd.build import GoldBuilder
from dst_eval.corpora.sgd.files import read_dialogues, read_schema
from dst_eval.corpora.sgd.keys import flat_slot_key
from dst_eval.corpora.sgd.locate import SPLITS, Source, locate, sniff
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldDialogue, GoldSet, UniqueIds
from dst_eval.readahead import read_ahead

__all__ = ["SPLITS", "flat_slot_key", "load", "load_source", "sniff"]


SERVICE_NAME = re.compile(r"[A-Z][A-Za-z]*_[0-9]+")
"""How SGD names a service: ``Hotels_1``, ``RideSharing_2``."""


def _check_service_names(services: set[str], file: str) -> None:
    """:class:`GoldDataError` when no service is named as SGD names them: MultiWOZ 2.2 gold
    (``hotel``, ``train``) read with ``--corpus sgd`` would be scored by SGD's rules."""
    if services and not any(SERVICE_NAME.fullmatch(name) for name in services):
        shown = ", ".join(sorted(services)[:4]) + (", ..." if len(services) > 4 else "")
        raise GoldDataError(f"no service is named as SGD's are (Hotels_1, ...): {shown}; is "
                            "this gold another corpus (MultiWOZ 2.2: --corpus multiwoz22)?",
                            file=file)


def load(path: Path, *, split: str | None = None) -> GoldSet:
    """Load an SGD split (see the module docstring for the accepted layouts)."""
    return load_source(locate(Path(path), split))


def load_source(source: Source) -> GoldSet:
    """Load the gold of a located :class:`~dst_eval.corpora.sgd.locate.Source`."""
    log = FileLog()
    schema = read_schema(source.schema, log) if source.schema else {}
    train = read_schema(source.train_schema, log) if source.train_schema else None
    builder = GoldBuilder(schema)
    dialogues: list[GoldDialogue] = []
    ids = UniqueIds()
    for path in read_ahead(source.files):
        file = str(path)
        for record in read_dialogues(path, log):
            ids.add(record.dialogue_id, file)
            dialogues.append(builder.dialogue(record, file))
    _check_service_names(set(schema) or {s for d in dialogues for s in d.services},
                         str(source.schema or source.shown))
    return GoldSet(
        corpus="sgd",
        split=source.split,
        dialogues=tuple(dialogues),
        source=source.shown,
        slots=tuple(flat_slot_key(s.name, slot) for s in schema.values() for slot in s.slots),
        categorical_slots=frozenset(flat_slot_key(s.name, slot) for s in schema.values()
                                    for slot in s.categorical),
        schema=MappingProxyType(schema),
        seen_services=frozenset(train) if train is not None else None,
        files=log.files,
        notes=(split_label_note(source.split),) if source.split_is_label else (),
    )
