"""Bind adapter output to the gold: order-aligned dialogues and the gold a file carries.

:func:`bind_to_gold` runs once the gold is loaded (:func:`dst_eval.api.as_predictions`):

* **Order-aligned predictions** (ConvLab-3 samples without ``dialogue_id``, metadata
  :data:`~dst_eval.predictions.adapted.ORDER_ALIGNED`): the k-th predicted dialogue is
  the k-th dialogue of the gold split, in the gold file's order (ConvLab's unified order
  for MultiWOZ). Each dialogue must have the gold's number of turns and, turn by turn,
  the embedded gold must fill exactly the slots the gold fills; any difference refuses
  the file (:class:`PredictionError`, exit 3, naming the sample's dialogue and turn).
* **Positional dialogues** (LDST / DST-as-prompting lines of the SGD and MultiWOZ 2.2
  layouts, metadata :data:`~dst_eval.predictions.adapted.POSITIONAL`): dialogue
  ``dialogues_001.json#7`` is the 8th dialogue of ``dialogues_001.json`` in the gold's
  split directory (``--gold``); a file that is not there, or a position past its end,
  refuses the predictions (exit 3). Only a plain file name is a position (no path
  separator, drive, ``.`` or ``..``): any other name stays a dialogue id, so nothing a
  prediction file names is opened outside the gold folder.
* **Turn ids** (JMultiWOZ's inference output, metadata
  :data:`~dst_eval.predictions.adapted.TURN_IDS`): a predicted turn is the gold turn whose
  ``system_annotations["turn_id"]`` is its turn id, whatever its position in the file; a
  gold turn no predicted id names is a gap (Issue ``missing_turn``, scored per
  ``--missing``), a predicted id the gold lacks is reported (``extra_turn``) and ignored.
  Without ids on both sides (gold of another corpus) the turns are read in order.
* **Embedded gold** (metadata :data:`~dst_eval.predictions.adapted.EMBEDDED_GOLD`): the
  slots the file's own gold fills are compared with the slots the gold fills, per turn,
  restricted to the slots the file's gold ever names (TRADE's 30 slots, ...). It is
  never scored. When more than half of the compared turns differ the predictions are
  not aligned with this gold (wrong split, corpus or turn numbering): exit 3. Fewer
  differences are expected (each system preprocesses its gold: TRADE's label fixes, ...)
  and are reported in one warning (Issue ``embedded_gold_mismatch``) with the count
  and the first place.

The bound set carries none of these markers, so binding it again changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from dst_eval.errors import PredictionError
from dst_eval.gold import GoldSet, dialogue_key
from dst_eval.jsonio import read_json
from dst_eval.predictions.adapted import (
    EMBEDDED_GOLD,
    GAP,
    ORDER_ALIGNED,
    POSITION,
    POSITIONAL,
    TURN_IDS,
)
from dst_eval.predictions.model import Issue, PredictionSet

MAX_MISMATCH_SHARE = 0.5


def bind_to_gold(predictions: PredictionSet, gold: GoldSet) -> PredictionSet:
    metadata = predictions.metadata
    if metadata.get(ORDER_ALIGNED):
        predictions = _by_order(predictions, gold)
    if metadata.get(POSITIONAL):
        predictions = _by_position(predictions, gold)
    if metadata.get(TURN_IDS) is not None:
        predictions = _by_turn_id(predictions, gold)
    embedded = predictions.metadata.get(EMBEDDED_GOLD)
    if embedded is not None:
        if embedded:
            _check_embedded(predictions, gold, embedded)
        metadata = {k: v for k, v in predictions.metadata.items() if k != EMBEDDED_GOLD}
        predictions = PredictionSet(predictions.source, predictions.format,
                                    predictions.dialogues, predictions.issues,
                                    MappingProxyType(metadata))  # bound: checked once
    return predictions


def _by_turn_id(predictions: PredictionSet, gold: GoldSet) -> PredictionSet:
    """Each predicted turn placed at the gold turn of its turn id (module docstring)."""
    turn_ids = predictions.metadata[TURN_IDS]
    by_key = {dialogue_key(d.dialogue_id): d for d in gold}
    dialogues: dict[str, list] = {}
    issues = list(predictions.issues)
    for name, turns in predictions.dialogues.items():
        gold_dialogue = by_key.get(dialogue_key(name))
        place = {t.system_annotations.get("turn_id"): t.turn_index
                 for t in gold_dialogue.turns} if gold_dialogue is not None else {}
        # ids on neither side, or a dialogue the gold lacks (alignment reports it as
        # extra): read in order
        if name not in turn_ids or gold_dialogue is None or None in place:
            dialogues[name] = turns
            continue
        placed: list = [GAP] * len(gold_dialogue.turns)
        unknown = []
        for turn_id, turn in zip(turn_ids[name], turns, strict=True):
            index = place.get(turn_id)
            if index is None:
                unknown.append(turn_id)
            else:
                placed[index] = turn
        if unknown:
            issues.append(Issue("extra_turn", f"SYSTEM turns with turn_id {unknown[:5]} "
                                "are not in the gold dialogue and are ignored",
                                file=predictions.source, dialogue=name))
        gaps = [i for i, turn in enumerate(placed) if turn is GAP]
        if gaps:
            issues.append(Issue("missing_turn", f"no SYSTEM turn has the turn_id of gold "
                                f"turns {gaps[:5]}{', ...' if len(gaps) > 5 else ''}; "
                                "scored as missing", file=predictions.source,
                                dialogue=name, turn=gaps[0]))
        dialogues[name] = placed
    metadata = {k: v for k, v in predictions.metadata.items() if k != TURN_IDS}
    return PredictionSet(predictions.source, predictions.format, dialogues, issues,
                         MappingProxyType(metadata))


def _gold_keys(state: Mapping) -> frozenset[str]:
    return frozenset(key for key, value in state.items() if value)


def _by_order(predictions: PredictionSet, gold: GoldSet) -> PredictionSet:
    file = predictions.source
    dialogues = list(gold)
    embedded = predictions.metadata.get(EMBEDDED_GOLD) or {}
    renamed = {}
    moved = {}
    for position, (placeholder, turns) in enumerate(predictions.dialogues.items()):
        if position >= len(dialogues):
            raise PredictionError(f"predicted dialogue {placeholder} (the samples carry no "
                                  f"dialogue_id) has no counterpart: the gold has only "
                                  f"{len(dialogues)} dialogues", file=file)
        target = dialogues[position]
        where = f"{placeholder} = gold dialogue {target.dialogue_id} by ConvLab's sample order"
        if len(turns) != len(target.turns):
            raise PredictionError(f"{where}: {len(turns)} predicted turns, the gold has "
                                  f"{len(target.turns)}; the samples are not in the gold "
                                  "split's order (give dialogue_id)", file=file,
                                  dialogue=placeholder)
        for index, gold_turn in enumerate(target.turns):
            own = embedded.get((placeholder, index))
            if own is None:
                raise PredictionError(f"{where}: the sample carries no gold 'state' to "
                                      "verify the order against", file=file,
                                      dialogue=placeholder, turn=index)
            expected = _gold_keys(gold_turn.state)
            if own != expected:
                diff = sorted(own ^ expected)[:3]
                raise PredictionError(f"{where}: the sample's gold state differs from the "
                                      f"gold (slots {', '.join(diff)}); refusing to align by "
                                      "order (give dialogue_id)", file=file,
                                      dialogue=placeholder, turn=index)
            moved[(target.dialogue_id, index)] = own
        renamed[target.dialogue_id] = turns
    if len(renamed) < len(dialogues):
        predictions.issues.append(Issue(
            "order_aligned", f"the samples cover the first {len(renamed)} of the gold's "
            f"{len(dialogues)} dialogues (aligned by ConvLab's sample order)", file=file))
    metadata = dict(predictions.metadata)
    metadata.pop(ORDER_ALIGNED)
    metadata[EMBEDDED_GOLD] = MappingProxyType(moved)
    return PredictionSet(predictions.source, predictions.format, renamed, predictions.issues,
                         MappingProxyType(metadata))


def _by_position(predictions: PredictionSet, gold: GoldSet) -> PredictionSet:
    """Positions ``<file>#<n>`` resolved in the gold file of that name that the gold loader
    read (``GoldSet.files``): never any other file, whatever the name says (``../x.json``)."""
    read: dict[str, list[str]] = {}
    for gold_file in gold.files:
        read.setdefault(Path(gold_file.path).name, []).append(gold_file.path)
    ids: dict[str, list[str]] = {}
    renamed: dict = {}
    for name, turns in predictions.dialogues.items():
        file, sep, position = name.rpartition(POSITION)
        if not sep or not (position.isascii() and position.isdigit()) or not _plain_name(file):
            renamed[name] = turns  # not a position in a file of the gold folder: an id
            continue
        if file not in ids:
            paths = read.get(file, [])
            if len(paths) != 1:
                where = "several gold files" if paths else "no gold file read for this run"
                raise PredictionError(f"the dialogue field is a position in {file!r}, which "
                                      f"names {where} (read: "
                                      f"{', '.join(sorted(read)[:5]) or 'none'}); give the "
                                      "split as --gold", file=predictions.source,
                                      dialogue=name)
            document = read_json(paths[0], error=PredictionError)
            if not isinstance(document, list):
                raise PredictionError(f"{paths[0]} is not a list of dialogues, so positions "
                                      "in it name nothing", file=predictions.source,
                                      dialogue=name)
            ids[file] = [str(d.get("dialogue_id")) if isinstance(d, dict) else "" for d in document]
        if int(position) >= len(ids[file]):
            raise PredictionError(f"position {position} is past the {len(ids[file])} "
                                  f"dialogues of {file}", file=predictions.source, dialogue=name)
        renamed[ids[file][int(position)]] = turns
    metadata = dict(predictions.metadata)
    metadata.pop(POSITIONAL)
    return PredictionSet(predictions.source, predictions.format, renamed, predictions.issues,
                         MappingProxyType(metadata))


def _plain_name(file: str) -> bool:
    """Whether ``file`` can only name a file directly in a folder: no path separator, drive,
    ``.`` or ``..`` (a dialogue name must never make the scorer open a file elsewhere)."""
    return bool(file) and file not in (".", "..") and not any(c in file for c in "/\\:\x00")


def _check_embedded(predictions: PredictionSet, gold: GoldSet,
                    embedded: Mapping[tuple[str, int], frozenset[str]]) -> None:
    vocabulary = frozenset().union(*embedded.values())
    by_key = {dialogue_key(d.dialogue_id): d for d in gold}
    compared = differing = 0
    first = None
    for (dialogue, index), own in embedded.items():
        target = by_key.get(dialogue_key(dialogue))
        if target is None or index >= len(target.turns):
            continue
        expected = _gold_keys(target.turns[index].state) & vocabulary
        compared += 1
        if own != expected:
            differing += 1
            if first is None:
                first = (dialogue, index, sorted(own ^ expected)[:3])
    if not differing:
        return
    dialogue, index, slots = first
    text = (f"the gold the file carries fills other slots than the gold on {differing:,} of "
            f"{compared:,} turns (first: dialogue {dialogue}, turn {index}, slots "
            f"{', '.join(slots)}); it is never scored")
    if differing > MAX_MISMATCH_SHARE * compared:
        raise PredictionError(f"{text}, but so many differences mean the predictions are not "
                              "aligned with this gold (wrong split, corpus or turn "
                              "numbering?)", file=predictions.source)
    predictions.issues.append(Issue("embedded_gold_mismatch", text, file=predictions.source))
