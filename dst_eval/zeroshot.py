"""The zero-shot (leave-one-domain-out) protocol of TRADE (Wu et al., 2019) and its successors.

``--zero-shot-domain D`` scores a model trained without domain D on D alone, exactly as
trade-dst's test reader does with ``--except_domain D`` (``utils/utils_multiWOZ_DST.py``,
``read_langs`` for ``dataset == "test"``):

* **dialogues**: only those that involve D -- TRADE keeps a test dialogue when D is in its
  ``domains``, which ``create_data.py`` takes from the dialogue's *goal* (every goal entry
  that is a non-empty object). dst-eval uses the gold dialogue's annotated domains
  (:attr:`GoldDialogue.services`: the goal domains for MultiWOZ 2.0/2.1/2.4, the
  ``services`` list for MultiWOZ 2.2 and SGD); a corpus without such an annotation falls
  back to the domains of the dialogue's gold slots. MultiWOZ 2.1 test: 394 hotel
  dialogues (TRADE's Table 1).
* **turns**: every turn of those dialogues (also those before D is mentioned: their D
  state is empty, and an empty prediction is correct).
* **slots**: only D's slots, on both sides (TRADE's ``slot_temp = [k for k in SLOTS if D in
  k]`` and the same filter on ``turn_belief``; its decoder only predicts those slots, so a
  predicted slot of another domain is dropped here, not counted as an error). Slot
  accuracy's N is the number of D's slots in the corpus slot list (TRADE:
  ``len(slot_temp)``, 10 for hotel).

The domain is part of the signature (``zero-shot:hotel``). The alignment is made on the
dialogues involving D alone (so the coverage check, ``--strict`` and the missing-dialogue
warnings count only the dialogues the protocol scores: a file of exactly D's dialogues
is complete, one covering none of them exits 3; predictions for the other dialogues are
not scored and not checked), and restricted to D's slots before the profile scores it, so
every metric (JGA, slot accuracy, F1, ...) is the zero-shot number. The ``strict`` and ``trade``
profiles take it (``trade`` restricts the gold it rebuilds as trade-dst does: the numbers
of ``--except_domain D``); the other compatibility profiles rebuild their anchor's own
gold, which would not see the restriction (a usage error, exit 2).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from dst_eval.alignment import Alignment
from dst_eval.config import corpus_config
from dst_eval.errors import UsageError
from dst_eval.gold import GoldDialogue, GoldSet, GoldTurn

SIGNATURE_FIELD = "zero-shot"


def _replace(obj, **changes):
    """A copy of a frozen record (dataclass or msgspec Struct) with ``changes``."""
    if dataclasses.is_dataclass(obj):
        return dataclasses.replace(obj, **changes)
    import msgspec

    return msgspec.structs.replace(obj, **changes)


def dialogue_domains(dialogue: GoldDialogue, domain_of: Callable[[str], str]) -> set[str]:
    """The domains a dialogue involves: its annotated services (goal domains for MultiWOZ
    2.1), else the domains of its gold slots."""
    if dialogue.services:
        return {domain_of(f"{service}-") for service in dialogue.services}
    return {domain_of(key) for turn in dialogue.turns for key in turn.state}


def _keep(mapping: Mapping | None, keep: Callable[[str], bool]) -> Mapping | None:
    if mapping is None:
        return None
    return {k: v for k, v in mapping.items() if keep(k)}


def _gold_turn(turn: GoldTurn, keep: Callable[[str], bool], domain: str,
               domain_of: Callable[[str], str]) -> GoldTurn:
    return _replace(turn, state=_keep(turn.state, keep),
                    requested_slots=frozenset(k for k in turn.requested_slots if keep(k)),
                    active_intents={s: i for s, i in turn.active_intents.items()
                                    if domain_of(f"{s}-") == domain},
                    frames=tuple(f for f in turn.frames
                                 if domain_of(f"{f.service}-") == domain))


def _pred_turn(pred, keep: Callable[[str], bool], domain: str,
               domain_of: Callable[[str], str]):
    if pred is None:
        return None
    changes = {"state": _keep(pred.state, keep), "duplicates": _keep(pred.duplicates, keep)}
    if pred.requested_slots is not None:
        changes["requested_slots"] = frozenset(k for k in pred.requested_slots if keep(k))
    if pred.active_intents is not None:
        changes["active_intents"] = {s: i for s, i in pred.active_intents.items()
                                     if domain_of(f"{s}-") == domain}
    return _replace(pred, **changes)


def scored_dialogues(gold: GoldSet, domain: str, domain_of: Callable[[str], str]) -> set[str]:
    """The ids of the gold dialogues the protocol scores: those involving ``domain``. The
    alignment is made on these alone (:func:`dst_eval.alignment.align` ``scored``), so the
    coverage check, ``--strict`` and the missing warnings see only them.

    A domain no gold dialogue involves is a :class:`UsageError` naming the known ones.
    """
    involved = {d.dialogue_id for d in gold.dialogues if domain in dialogue_domains(d, domain_of)}
    if not involved:
        known = sorted(set().union(*(dialogue_domains(d, domain_of) for d in gold.dialogues)))
        raise UsageError(f"--zero-shot-domain {domain}: no dialogue of {gold.corpus}"
                         f"{'/' + gold.split if gold.split else ''} involves it (domains: "
                         f"{', '.join(known) or 'none'})")
    return involved


def restrict(alignment: Alignment, domain: str, domain_of: Callable[[str], str]) -> Alignment:
    """The alignment restricted to ``domain`` under the zero-shot protocol (module docstring):
    its dialogues that involve ``domain`` (all of them when it was aligned on
    :func:`scored_dialogues`), only ``domain``'s slots.
    """
    gold = alignment.gold
    involved = scored_dialogues(gold, domain, domain_of)

    def keep(key: str) -> bool:
        return domain_of(key) == domain

    dialogues = tuple(
        _replace(d, turns=tuple(_gold_turn(t, keep, domain, domain_of) for t in d.turns))
        for d in gold.dialogues if d.dialogue_id in involved)
    by_id = {d.dialogue_id: {t.turn_index: t for t in d.turns} for d in dialogues}
    restricted_gold: GoldSet = dataclasses.replace(
        gold, dialogues=dialogues,
        slots=tuple(s for s in (gold.slots or corpus_config(gold.corpus).slots) if keep(s)),
        categorical_slots=frozenset(s for s in gold.categorical_slots if keep(s)), _by_key={})
    pairs = [(by_id[g.dialogue_id][g.turn_index], _pred_turn(p, keep, domain, domain_of))
             for g, p in alignment.pairs if g.dialogue_id in involved]
    return dataclasses.replace(
        alignment, gold=restricted_gold, pairs=pairs,
        missing_dialogues=[d for d in alignment.missing_dialogues if d in involved],
        n_missing_turns=sum(p is None for _, p in pairs))


def note(gold: GoldSet, restricted: Alignment, domain: str) -> str:
    return (f"zero-shot {domain}: {len(restricted.gold.dialogues)} of "
            f"{len(gold.dialogues)} dialogues (those involving {domain}), "
            f"{restricted.n_turns} turns, only {domain} slots "
            f"({len(restricted.gold.slots)} in the slot list)")
