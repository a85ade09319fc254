"""Per-corpus configuration read from ``configs/<corpus>.toml`` (installed as ``dst_eval.configs``).

A corpus config holds what is corpus knowledge rather than code: its language,
default profile, value-normalisation policy, BLEU tokenizer, slot list (for slot
accuracy), categorical slots, unordered multi-value slots and slot-name aliases
accepted in predictions.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from dst_eval.errors import UsageError

CORPORA = ("multiwoz22", "multiwoz21", "sgd", "crosswoz", "risawoz", "jmultiwoz")


@dataclass(frozen=True)
class CorpusConfig:
    name: str
    language: str = "en"
    default_profile: str = "strict"
    normalisation: str = "basic"
    tokenizer: str = "13a"
    slots: tuple[str, ...] = ()
    categorical_slots: frozenset[str] = frozenset()
    multi_value_slots: frozenset[str] = frozenset()
    slot_aliases: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    profiles: tuple[str, ...] = ("strict",)
    raw: MappingProxyType = field(default_factory=lambda: MappingProxyType({}), repr=False)


def read_toml(name: str) -> dict[str, Any]:
    """Read ``configs/<name>.toml`` from the installed package, or a path to a TOML file."""
    path = Path(name)
    if path.suffix == ".toml" and path.exists():
        with path.open("rb") as fh:
            return tomllib.load(fh)
    resource = resources.files("dst_eval.configs").joinpath(f"{name}.toml")
    if not resource.is_file():
        raise UsageError(f"no configuration named {name!r}")
    with resource.open("rb") as fh:
        return tomllib.load(fh)


@cache
def corpus_config(corpus: str) -> CorpusConfig:
    if corpus not in CORPORA:
        raise UsageError(f"unknown corpus {corpus!r}; known: {', '.join(CORPORA)}")
    data = read_toml(corpus)
    section = data.get("corpus", {})
    return CorpusConfig(
        name=corpus,
        language=section.get("language", "en"),
        default_profile=section.get("default_profile", "strict"),
        normalisation=section.get("normalisation", "basic"),
        tokenizer=section.get("tokenizer", "13a"),
        slots=tuple(section.get("slots", ())),
        categorical_slots=frozenset(section.get("categorical_slots", ())),
        multi_value_slots=frozenset(section.get("multi_value_slots", ())),
        slot_aliases=MappingProxyType(dict(data.get("slot_aliases", {}))),
        profiles=tuple(section.get("profiles", ("strict",))),
        raw=MappingProxyType(data),
    )
