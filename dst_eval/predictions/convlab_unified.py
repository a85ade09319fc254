"""ConvLab-3 unified-format DST predictions: the input of ConvLab/ConvLab-3
``convlab/dst/evaluate_unified_datasets.py``::

    [{"utt_idx": 0, "speaker": "user", "utterance": "...", "context": [...],
      "state": {"hotel": {"price range": "cheap", "area": ""}},
      "predictions": {"state": {"hotel": {"price range": "cheap", "area": ""}}}}, ...]

One sample per user turn, as ``load_dst_data`` yields them (``utt_idx`` = index in the
unified dialogue's turns, so the 0-based user turn is ``utt_idx // 2``). The state is
``{domain: {slot: value}}`` with ConvLab's unified slot names (``price range``,
``book people``), spelled for the corpus; values are kept verbatim (``""`` is ConvLab's
unset, ``a|b`` alternatives are reported, the ``convlab`` profile splits them).

ConvLab-3's writers of this file (``convlab/base_models/t5/dst/merge_predict_res.py`` over
``load_unified_data`` samples) write no dialogue id; a file that adds ``dialogue_id``
(the original id, ``PMUL1234.json``) is joined on it. Without it the samples are cut into
dialogues where ``utt_idx`` starts again, and the k-th
dialogue is the k-th dialogue of the gold split in ConvLab's unified order -- the order
of the original data within the split (``data/unified_datasets/<corpus>/preprocess.py``
walks ``data.json`` in file order). :mod:`dst_eval.predictions.bind` checks every
dialogue's turn count and the slots the embedded gold ``state`` fills against the gold
and refuses the file on any mismatch. With ``dialogue_id`` the embedded gold only checks
the alignment (a warning); it is never scored.
"""

from __future__ import annotations

from typing import Any

from dst_eval.predictions.adapted import ORDER_ALIGNED, UNSET_MARKER, TurnTable, require
from dst_eval.predictions.model import PredictionSet

FORMAT = "convlab"


def looks_like(obj: Any) -> bool:
    if type(obj) is not list or not obj or type(obj[0]) is not dict:
        return False
    first = obj[0]
    return "utt_idx" in first and type(first.get("predictions")) is dict


def _flat(state: Any, table: TurnTable, what: str, dialogue: str, turn: int
          ) -> list[tuple[str, Any]]:
    require(state, dict, what, table, dialogue, turn)
    pairs = []
    for domain, slots in state.items():
        require(slots, dict, f"{what} of domain {domain!r}", table, dialogue, turn)
        pairs.extend((f"{domain}-{slot}", value) for slot, value in slots.items())
    return pairs


def read_convlab(obj: Any, file: str, corpus: str | None) -> PredictionSet:
    table = TurnTable(file, corpus, FORMAT)
    require(obj, list, "ConvLab-3 predictions (a list of samples)", table)
    if not obj:
        raise table.error("no predictions in the file (an empty list of samples)")
    require(obj[0], dict, "sample 0", table)
    with_ids = "dialogue_id" in obj[0]
    position, previous = -1, None
    for n, sample in enumerate(obj):
        place = f"sample {n}"
        require(sample, dict, place, table)
        if ("dialogue_id" in sample) != with_ids:
            raise table.error(f"{place}: some samples have 'dialogue_id' and some not")
        if with_ids:
            dialogue = table.dialogue_id(sample["dialogue_id"], f"{place} 'dialogue_id'")
        else:
            dialogue = None
        utt = table.turn_index(sample.get("utt_idx"), f"{place} 'utt_idx'", dialogue or "?")
        if not with_ids:
            if previous is None or utt <= previous:
                position += 1
            previous = utt
            dialogue = f"#{position}"
        turn = utt // 2
        predictions = require(sample.get("predictions"), dict, f"{place} 'predictions'",
                              table, dialogue, turn)
        if "state" not in predictions:
            raise table.error(f"{place}: no 'predictions.state'", dialogue, turn)
        pred = predictions["state"]
        pairs = _flat(pred, table, "'predictions.state'", dialogue, turn)
        embedded = None
        if "state" in sample:
            embedded = [key for key, value in
                        _flat(sample["state"], table, "'state'", dialogue, turn)
                        if value not in (None, "")]
        table.add(dialogue, turn, place, pairs=pairs, raw_state=pred, embedded=embedded)
    if not with_ids:
        table.metadata[ORDER_ALIGNED] = True
    table.metadata[UNSET_MARKER] = ""  # the unified state: every slot, "" when unset
    return table.build()
