"""What MultiWOZ response scoring compares against, read from the loaded :class:`GoldSet`.

:func:`response_gold` takes everything from the gold the user loaded -- nothing is re-read:

* **goals**: :func:`.goals.dialogue_goal` of ``GoldDialogue.goal``;
* **booked domains**: ``GoldTurn.system_annotations["booked_domains"]``;
* **references**: :func:`.delex.turn_reference` of ``GoldTurn.system_response`` and its
  ``system_annotations["span_info"]`` (``span_unit`` ``word``: 2.1 spans, ``char``: 2.2);
* **gold states** (policy-optimisation setting, built only when used):
  :func:`.goals.mwzeval_state` of ``system_annotations["belief"]``.

``references`` / ``gold_states`` optionally name mwzeval-format files
(``{dialogue id: [normalised text | state]}``, e.g. ``approx_references_mwz21_test.json``)
used instead, as they are (mwzeval stores them normalised); they must cover every gold
dialogue with one entry per system turn.

MultiWOZ 2.2 has no goals: :func:`with_mwz21_annotations` copies goal, booked domains and
belief (and, when the 2.2 gold has no span annotations, the 2.1 text and spans) from the
MultiWOZ 2.1 ``data.json`` given with ``--goals``, loaded by :mod:`.loader21`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

from msgspec import structs

from dst_eval.corpora.layout import FileLog
from dst_eval.corpora.multiwoz.database import MultiwozDatabase
from dst_eval.corpora.multiwoz.delex import turn_reference
from dst_eval.corpora.multiwoz.goals import booked_domains, dialogue_goal, goal_domains, gold_states
from dst_eval.errors import GoldDataError
from dst_eval.gold import GoldDialogue, GoldSet, dialogue_key
from dst_eval.metrics.inform_success import GoalDomain


@dataclass
class ResponseGold:
    """Per gold dialogue (by matching key, gold order): goal domains, booked domains and
    references; gold states on first use. Built by :func:`response_gold`."""

    gold: GoldSet
    database: MultiwozDatabase
    goals: dict[str, Mapping[str, GoalDomain]]
    booked: dict[str, list[list[str]]]
    references: dict[str, list[str]]
    sources: dict[str, str] = field(default_factory=dict)
    given_states: dict[str, list] | None = None
    """Gold states from an mwzeval-format file, when one was given."""

    @property
    def dialogue_ids(self) -> tuple[str, ...]:
        return tuple(self.goals)

    def n_turns(self, key: str) -> int:
        return len(self.booked[key])

    @cached_property
    def states(self) -> dict[str, list[dict[str, dict[str, str]]]]:
        """mwzeval-normalised gold state per system turn (policy-optimisation setting)."""
        if self.given_states is not None:
            return self.given_states
        file = self.gold.source
        return {dialogue_key(d.dialogue_id): gold_states(d, file=file) for d in self.gold}


def response_gold(gold: GoldSet, database: MultiwozDatabase, *,
                  references: str | Path | None = None,
                  gold_states: str | Path | None = None,
                  log: FileLog | None = None) -> ResponseGold:
    """:class:`ResponseGold` of ``gold`` (see the module docstring); ``log`` records the
    ``references`` and ``gold_states`` files read (each read once: the bytes parsed are the
    bytes the signature's digest covers)."""
    log = log if log is not None else FileLog()
    file = gold.source
    goals, booked = _goals_and_booked(gold)
    sources: dict[str, str] = {}
    if references is None:
        refs = _derived_references(gold)
        unit = next((t.system_annotations.get("span_unit") for t in gold.turns()), "word")
        sources["references"] = f"{Path(file).name}: {'2.2' if unit == 'char' else '2.1'} span_info"
    else:
        refs = _turn_lists(references, {k: len(v) for k, v in booked.items()}, "references",
                           log)
        for key, turns in refs.items():
            if not all(isinstance(t, str) for t in turns):
                raise GoldDataError("references must be strings", file=str(references),
                                    dialogue=key)
        sources["references"] = str(references)
    given_states = None
    if gold_states is not None:
        given_states = _turn_lists(gold_states, {k: len(v) for k, v in booked.items()},
                                   "gold states", log)
        for key, turns in given_states.items():
            for index, state in enumerate(turns):
                _check_gold_state(state, file=str(gold_states), dialogue=key, turn=index)
    sources["gold_states"] = (str(gold_states) if gold_states is not None
                              else f"{Path(file).name}: 2.1 metadata")
    return ResponseGold(gold, database, goals, booked, refs, sources, given_states)


def _goals_and_booked(gold: GoldSet) -> tuple[dict[str, Mapping[str, GoalDomain]],
                                               dict[str, list[list[str]]]]:
    """Goal domains and booked domains per dialogue key, computed once per gold set
    (``GoldSet.derived``: a leaderboard scores many submissions against one)."""
    derived = gold.derived.get("mwz_goals_booked")
    if derived is None:
        file = gold.source
        goals: dict[str, Mapping[str, GoalDomain]] = {}
        booked: dict[str, list[list[str]]] = {}
        for dialogue in gold:
            key = dialogue_key(dialogue.dialogue_id)
            if key in goals:
                raise GoldDataError("duplicate dialogue id", file=file,
                                    dialogue=dialogue.dialogue_id)
            goals[key] = goal_domains(dialogue_goal(dialogue, file=file))
            booked[key] = booked_domains(dialogue, file=file)
        derived = gold.derived["mwz_goals_booked"] = (goals, booked)
    return derived


def _derived_references(gold: GoldSet) -> dict[str, list[str]]:
    """The BLEU reference of every system turn from the gold's own spans
    (:func:`.delex.turn_reference`), computed once per gold set (``GoldSet.derived``)."""
    refs = gold.derived.get("mwz_references")
    if refs is None:
        file = gold.source
        refs = gold.derived["mwz_references"] = {
            dialogue_key(d.dialogue_id): [turn_reference(t, file=file) for t in d.turns]
            for d in gold}
    return refs


def _turn_lists(source: str | Path, lengths: Mapping[str, int], what: str, log: FileLog
                ) -> dict[str, list]:
    """Per-dialogue lists from an mwzeval-format file, checked against the gold."""
    path = str(source)
    data = log.read_json(source)
    if not isinstance(data, dict):
        raise GoldDataError(f"expected an mwzeval {what} file {{dialogue id: [...]}}",
                            file=path)
    out = {dialogue_key(k): v for k, v in data.items()}
    for key, n_turns in lengths.items():
        turns = out.get(key)
        if not isinstance(turns, list):
            raise GoldDataError(f"no {what} for this dialogue", file=path, dialogue=key)
        if len(turns) != n_turns:
            raise GoldDataError(f"{len(turns)} {what} for {n_turns} system turns",
                                file=path, dialogue=key)
    return {key: out[key] for key in lengths}


def _check_gold_state(state: Any, *, file: str, dialogue: str, turn: int) -> None:
    ok = isinstance(state, dict) and all(
        isinstance(slots, dict) and all(isinstance(v, str) for v in slots.values())
        for slots in state.values()
    )
    if not ok:
        raise GoldDataError("a gold state must be {domain: {slot: string}}", file=file,
                            dialogue=dialogue, turn=turn)


# --------------------------------------------------------------------------- MultiWOZ 2.2


def with_mwz21_annotations(gold: GoldSet, data21: str | Path, log: FileLog | None = None,
                           *, spans: bool = True) -> GoldSet:
    """A copy of a MultiWOZ 2.2 ``gold`` whose dialogues carry the 2.1 goal and whose turns
    carry the 2.1 ``booked_domains`` and ``belief`` (from ``data21``, the ``--goals`` file,
    read whole: its list files do not matter).
    References: when the 2.2 gold is a split folder or a corpus root and ``spans`` is true
    (no ``--references`` file replaces them), its system utterances with the character spans
    of ``dialog_acts.json`` (next to the ``schema.json`` the loader read: the corpus root in
    the release, the folder itself in the one-folder layout; the split folder's parent when
    no schema was read; mwzeval's references); otherwise the 2.1 system text and word
    spans. Every 2.2 dialogue must be in ``data21`` with as many system turns. ``log``
    records the files read (the 2.1 data, as its loader read them, and ``dialog_acts.json``
    when read)."""
    from dst_eval.corpora.multiwoz import loader21

    log = log if log is not None else FileLog()
    mwz21 = loader21.load(data21, whole=True)  # goals by dialogue id, whatever the split
    log.extend(mwz21.files)
    acts = None
    if spans and Path(gold.source).is_dir():
        acts_path = _acts_folder(gold) / "dialog_acts.json"
        acts = log.read_json(acts_path)
        if not isinstance(acts, dict):
            raise GoldDataError("expected an object {dialogue id: {turn id: acts}}",
                                file=str(acts_path))
        acts = {dialogue_key(k): v for k, v in acts.items()}
    dialogues = []
    for dialogue in gold:
        source = mwz21.get(dialogue.dialogue_id)
        if source is None:
            raise GoldDataError("dialogue not in the --goals data", file=str(data21),
                                dialogue=dialogue.dialogue_id)
        dialogue_acts = None
        if acts is not None:
            dialogue_acts = acts.get(dialogue_key(dialogue.dialogue_id))
            if not isinstance(dialogue_acts, dict):
                raise GoldDataError("dialogue missing from dialog_acts.json",
                                    file=gold.source, dialogue=dialogue.dialogue_id)
        dialogues.append(_merge(dialogue, source, str(data21), dialogue_acts))
    return replace(gold, dialogues=tuple(dialogues), _by_key={})


def _acts_folder(gold: GoldSet) -> Path:
    """Where ``dialog_acts.json`` is: next to the ``schema.json`` the loader read (the corpus
    root, or the one folder holding dialogues and schema), else the split folder's parent."""
    schemas = {Path(f.path).parent for f in gold.files if Path(f.path).name == "schema.json"}
    return schemas.pop() if len(schemas) == 1 else _split_folder(gold).parent


def _split_folder(gold: GoldSet) -> Path:
    """The folder of the ``dialogues_*.json`` files the loader read: ``gold.source`` for a
    split folder, ``source/test`` (etc.) for a corpus root with ``--split``."""
    folders = {Path(f.path).parent for f in gold.files
               if Path(f.path).name.startswith("dialogues_")}
    return folders.pop() if len(folders) == 1 else Path(gold.source)


def _merge(dialogue: GoldDialogue, source: GoldDialogue, file: str,
           acts: Mapping[str, Any] | None) -> GoldDialogue:
    if len(source.turns) != len(dialogue.turns):
        raise GoldDataError(f"{len(source.turns)} system turns in the --goals data for "
                            f"{len(dialogue.turns)} in the gold: references, gold states and "
                            "booked domains disagree on the number of system turns", file=file,
                            dialogue=dialogue.dialogue_id)
    turns = []
    for turn, turn21 in zip(dialogue.turns, source.turns, strict=True):
        notes: dict[str, Any] = dict(turn.system_annotations)
        notes["booked_domains"] = turn21.system_annotations["booked_domains"]
        notes["belief"] = turn21.system_annotations["belief"]
        response = turn.system_response
        act = None
        if acts is not None and turn.raw_turn_index is not None:
            act = acts.get(str(turn.raw_turn_index + 1))
        if isinstance(act, dict) and isinstance(response, str):
            notes["span_info"] = act.get("span_info", ())
            notes["span_unit"] = "char"
        elif acts is not None:
            raise GoldDataError("system turn without an utterance or dialogue acts",
                                file=file, dialogue=dialogue.dialogue_id, turn=turn.turn_index)
        else:
            notes["span_info"] = turn21.system_annotations["span_info"]
            notes["span_unit"] = "word"
            response = turn21.system_response
        turns.append(structs.replace(turn, system_annotations=MappingProxyType(notes),
                             system_response=response))
    return structs.replace(dialogue, turns=tuple(turns), goal=source.goal)
