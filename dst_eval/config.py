"""Per-corpus configuration read from ``configs/<corpus>.toml`` (installed as ``dst_eval.configs``).

A corpus config holds what is corpus knowledge rather than code. Every key is read here,
validated, and becomes one attribute of :class:`CorpusSpec` (an unknown key is an error,
so a TOML file cannot carry a key nobody reads). ``[corpus]`` keys:

=======================  ========  ==========================================================
key                      required  meaning (attribute of :class:`CorpusSpec`)
=======================  ========  ==========================================================
``name``                 yes       corpus name = the file's stem
``family``               yes       folder ``dst_eval/corpora/<family>/`` holding its code
``loader``               yes       gold loader module in that folder (``sniff``, ``load``)
``alternate_layouts``    no        loader modules of the same folder for single ``.json``
                                   files in another layout, sniffed before ``loader``
``detect_order``         yes       position when the corpus of a gold path is detected
``language``             yes       ISO 639-1 code; a CJK language refuses a tokenizer that
                                   does not split CJK text
``tokenizer``            yes       BLEU tokenizer of the corpus's responses (a name of
                                   ``dst_eval.metrics.tokenizers``)
``default_profile``      yes       profile used when none is named
``profiles``             yes       the profiles that apply to this corpus
``normalisation``        yes       value-normalisation policy of the ``strict`` profile
``slot_key_policy``      yes       how predicted slot keys are spelled (``lower``, ``keep``,
                                   ``verbatim``; :mod:`dst_eval.slotkeys`)
``slot_domain``          no        how a slot key maps to its domain: ``prefix`` (the part
                                   before the first ``-``, default) or ``service-family``
                                   (SGD: ``Hotels_2-area`` -> ``Hotels``)
``slot_universe``        no        slots a dialogue can fill: ``corpus`` (the slot list and
                                   the turn's gold, default) or ``dialogue-services`` (the
                                   slots of the dialogue's services: one schema per service)
``seen_services``        no        which services count as seen: ``train-schema`` (those of
                                   the training schema, default) or ``all`` (the corpus has
                                   one schema, its training schema)
``interchangeable_with`` no        corpora whose gold carries the same canonical keys, so
                                   ``--corpus`` may name either (MultiWOZ 2.1 / 2.2)
``versions``             no        other releases in this corpus's format and code, each a
                                   corpus name of its own for ``--corpus`` and signatures
                                   (``multiwoz20``, ``multiwoz24``: the spec is this one)
``slots``                no        slot list ``domain-slot`` (slot accuracy)
``categorical_slots``    no        slots with a closed value list
``multi_value_slots``    no        slots holding unordered space-separated lists
``unified_slots``        no        slots of ConvLab-3's unified state beyond ``slots`` (the
                                   ``convlab`` profile scores them: MultiWOZ
                                   ``hospital-department``)
=======================  ========  ==========================================================

``[slot_aliases]``: prediction slot key -> canonical key (:attr:`CorpusSpec.slot_aliases`).
``[values]``: ``unset`` = predicted values that leave a slot unset under the strict profile
besides empty ones (:attr:`CorpusSpec.unset_values`). The registry of corpora built from
these files is :mod:`dst_eval.corpora`.
"""

from __future__ import annotations

import importlib
import re
import tomllib
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from functools import cache
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

from dst_eval.errors import UsageError

CORPUS_PACKAGE = "dst_eval.corpora"
SLOT_DOMAINS = ("prefix", "service-family")
SLOT_UNIVERSES = ("corpus", "dialogue-services")
SEEN_SERVICES = ("train-schema", "all")


@dataclass(frozen=True)
class CorpusSpec:
    """One corpus: its ``configs/<name>.toml`` (module docstring) plus where its code lives."""

    name: str
    family: str
    loader: str
    detect_order: int
    language: str
    tokenizer: str
    default_profile: str
    profiles: tuple[str, ...]
    normalisation: str
    slot_key_policy: str
    alternate_layouts: tuple[str, ...] = ()
    slot_domain: str = "prefix"
    slot_universe: str = "corpus"
    seen_services: str = "train-schema"
    interchangeable_with: frozenset[str] = frozenset()
    versions: tuple[str, ...] = ()
    slots: tuple[str, ...] = ()
    categorical_slots: frozenset[str] = frozenset()
    multi_value_slots: frozenset[str] = frozenset()
    unified_slots: tuple[str, ...] = ()
    slot_aliases: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    unset_values: tuple[str, ...] = ()
    raw: MappingProxyType = field(default_factory=lambda: MappingProxyType({}), repr=False)
    """The parsed TOML file, read-only (for diagnostics; every key is an attribute)."""

    # ------------------------------------------------------------------ code of the corpus

    def module(self, name: str) -> ModuleType:
        """Module ``name`` of the corpus folder (``dst_eval.corpora.<family>.<name>``)."""
        try:
            return importlib.import_module(f"{CORPUS_PACKAGE}.{self.family}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith(f"{CORPUS_PACKAGE}.{self.family}"):
                raise UsageError(f"corpus {self.name!r} is not supported by this version "
                                 f"(no module {exc.name})") from exc
            raise

    def loader_module(self) -> ModuleType:
        """The gold loader (``sniff(path) -> bool``, ``load(path, *, split) -> GoldSet``)."""
        return self.module(self.loader)

    def layout_modules(self) -> tuple[ModuleType, ...]:
        """The loaders of :attr:`alternate_layouts` (single ``.json`` files), in order."""
        return tuple(self.module(name) for name in self.alternate_layouts)

    def responses_module(self) -> ModuleType:
        """The response scorer: ``responses.score(alignment, options, *, resources, profile)``."""
        return self.module("responses")

    def surface_tests(self) -> tuple[tuple[str, Callable[[str, str], str | None]], ...]:
        """The corpus's own comparisons for the surface-form diagnostic (:mod:`dst_eval.surface`):
        ``TESTS`` of the folder's ``surface`` module, ``(class, normalise(key, value))``;
        none when the folder has no such module."""
        try:
            module = importlib.import_module(f"{CORPUS_PACKAGE}.{self.family}.surface")
        except ModuleNotFoundError as exc:
            if exc.name == f"{CORPUS_PACKAGE}.{self.family}.surface":
                return ()
            raise
        return tuple(module.TESTS)

    # ------------------------------------------------------------------ corpus knowledge

    def domain_of(self, key: str) -> str:
        """Domain of slot key ``key`` under :attr:`slot_domain`."""
        domain = key.partition("-")[0]
        return domain.split("_")[0] if self.slot_domain == "service-family" else domain

    def accepts(self, corpus: str) -> bool:
        """Whether gold of ``corpus`` may be scored when this corpus was named."""
        return (corpus == self.name or corpus in self.interchangeable_with
                or corpus in self.versions)

    def applies(self, profile: str) -> bool:
        return profile in self.profiles


SPEC_KEYS = frozenset(f.name for f in fields(CorpusSpec)) - {"raw", "slot_aliases",
                                                              "unset_values"}
"""The ``[corpus]`` keys the reader consumes (one per :class:`CorpusSpec` field)."""
REQUIRED_KEYS = frozenset(f.name for f in fields(CorpusSpec)
                          if f.default is MISSING and f.default_factory is MISSING)
TOP_LEVEL_KEYS = frozenset({"corpus", "slot_aliases", "values"})
VALUES_KEYS = frozenset({"unset"})
"""Keys of the ``[values]`` table (``unset`` -> :attr:`CorpusSpec.unset_values`)."""


@cache
def _config_dir() -> Any:
    """The folder of the installed ``dst_eval.configs`` package: a wheel installs it as files,
    read as a :class:`Path` (:mod:`importlib.resources` imports :mod:`tempfile` and
    :mod:`shutil` for it: 9 ms of every run); a package imported from a zip archive is read
    through :mod:`importlib.resources` (a ``Traversable`` with the same methods)."""
    from dst_eval import configs

    folder = Path(configs.__file__).parent
    if folder.is_dir():
        return folder
    from importlib import resources

    return resources.files(configs)


def read_toml(name: str) -> dict[str, Any]:
    """Read ``configs/<name>.toml`` from the installed package, or a path to a TOML file."""
    path = Path(name)
    if path.suffix == ".toml" and path.exists():
        with path.open("rb") as fh:
            return tomllib.load(fh)
    resource = _config_dir() / f"{name}.toml"
    if not resource.is_file():
        raise UsageError(f"no configuration named {name!r}")
    with resource.open("rb") as fh:
        return tomllib.load(fh)


_CORPUS_TABLE = re.compile(rb"^\[corpus\][ \t]*(#.*)?$", re.MULTILINE)


@cache
def config_names() -> tuple[str, ...]:
    """Stems of the packaged ``configs/*.toml`` files that hold a ``[corpus]`` table (a line
    ``[corpus]``; the files are parsed only when their corpus is asked for)."""
    names = []
    for entry in _config_dir().iterdir():
        if (entry.name.endswith(".toml") and entry.is_file()
                and _CORPUS_TABLE.search(entry.read_bytes())):
            names.append(entry.name.removesuffix(".toml"))
    return tuple(sorted(names))


def _strings(value: Any, key: str, where: str, table: str = "corpus") -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where}: [{table}] {key} must be a list of strings")
    return tuple(value)


def _choice(value: Any, key: str, choices: tuple[str, ...], where: str) -> str:
    if value not in choices:
        raise UsageError(f"{where}: [corpus] {key} = {value!r}, expected one of "
                         f"{', '.join(choices)}")
    return value


def spec_from_toml(name: str, data: dict[str, Any]) -> CorpusSpec:
    """Validate one parsed corpus TOML and build its :class:`CorpusSpec` (module docstring)."""
    where = f"configs/{name}.toml"
    unknown = set(data) - TOP_LEVEL_KEYS
    section = data.get("corpus")
    if not isinstance(section, dict):
        raise UsageError(f"{where}: no [corpus] table")
    unknown |= {f"corpus.{k}" for k in set(section) - SPEC_KEYS}
    values = data.get("values", {})
    if not isinstance(values, dict):
        raise UsageError(f"{where}: [values] must be a table")
    unknown |= {f"values.{k}" for k in set(values) - VALUES_KEYS}
    if unknown:
        raise UsageError(f"{where}: unknown keys {', '.join(sorted(unknown))}")
    missing = REQUIRED_KEYS - set(section)
    if missing:
        raise UsageError(f"{where}: [corpus] lacks {', '.join(sorted(missing))}")
    for key in ("name", "family", "loader", "language", "tokenizer", "default_profile",
                "normalisation", "slot_key_policy"):
        if not isinstance(section[key], str) or not section[key]:
            raise UsageError(f"{where}: [corpus] {key} must be a non-empty string")
    if section["name"] != name:
        raise UsageError(f"{where}: [corpus] name is {section['name']!r}, not {name!r}")
    if not isinstance(section["detect_order"], int) or isinstance(section["detect_order"], bool):
        raise UsageError(f"{where}: [corpus] detect_order must be an integer")
    profiles = _strings(section["profiles"], "profiles", where)
    if section["default_profile"] not in profiles:
        raise UsageError(f"{where}: default_profile {section['default_profile']!r} is not "
                         "among its profiles")
    aliases = data.get("slot_aliases", {})
    if not isinstance(aliases, dict) or not all(isinstance(v, str) for v in aliases.values()):
        raise UsageError(f"{where}: [slot_aliases] must map slot keys to slot keys")
    return CorpusSpec(
        name=name,
        family=section["family"],
        loader=section["loader"],
        detect_order=section["detect_order"],
        language=section["language"],
        tokenizer=section["tokenizer"],
        default_profile=section["default_profile"],
        profiles=profiles,
        normalisation=section["normalisation"],
        slot_key_policy=section["slot_key_policy"],
        alternate_layouts=_strings(section.get("alternate_layouts", []), "alternate_layouts",
                                   where),
        slot_domain=_choice(section.get("slot_domain", "prefix"), "slot_domain", SLOT_DOMAINS,
                            where),
        slot_universe=_choice(section.get("slot_universe", "corpus"), "slot_universe",
                              SLOT_UNIVERSES, where),
        seen_services=_choice(section.get("seen_services", "train-schema"), "seen_services",
                              SEEN_SERVICES, where),
        interchangeable_with=frozenset(_strings(section.get("interchangeable_with", []),
                                                "interchangeable_with", where)),
        versions=_strings(section.get("versions", []), "versions", where),
        slots=_strings(section.get("slots", []), "slots", where),
        categorical_slots=frozenset(_strings(section.get("categorical_slots", []),
                                             "categorical_slots", where)),
        multi_value_slots=frozenset(_strings(section.get("multi_value_slots", []),
                                             "multi_value_slots", where)),
        unified_slots=_strings(section.get("unified_slots", []), "unified_slots", where),
        slot_aliases=MappingProxyType(dict(aliases)),
        unset_values=_strings(values.get("unset", []), "unset", where, "values"),
        raw=MappingProxyType(data),
    )


@cache
def corpus_config(corpus: str) -> CorpusSpec:
    """The :class:`CorpusSpec` of ``corpus`` (a version name gives the spec that lists it);
    a usage error naming the known ones otherwise."""
    known = config_names()
    if corpus in known:
        return spec_from_toml(corpus, read_toml(corpus))
    owner = version_owners().get(corpus)
    if owner is None:
        raise UsageError(f"unknown corpus {corpus!r}; known: "
                         f"{', '.join((*known, *version_owners()))}")
    return corpus_config(owner)


@cache
def version_owners() -> dict[str, str]:
    """``{version name: corpus config name}`` over every config's ``versions``."""
    owners: dict[str, str] = {}
    for name in config_names():
        for version in corpus_config(name).versions:
            if version in owners or version in config_names():
                raise UsageError(f"configs/{name}.toml: version {version!r} is named twice")
            owners[version] = name
    return owners


def metric_options(corpus: str) -> dict[str, Any]:
    """The keyword options with which the metric functions (:mod:`dst_eval.metrics`)
    compare states as the CLI's ``strict`` profile does on ``corpus``: its normalisation
    policy, key spelling, ``[slot_aliases]``, unset words (``[values] unset``; none for SGD,
    where ``None`` is a value) and multi-value slots. The key spelling is the corpus's
    ``slot_key_policy``: ``lower`` (MultiWOZ) is ``keys="lower"``, ``keep`` (SGD: whitespace
    around service and slot stripped) ``"strip+gold-case"``, ``verbatim`` (CrossWOZ,
    RiSAWOZ, JMultiWOZ: keys untouched) ``"exact+gold-case"``; ``+gold-case`` spells a
    predicted key that equals a gold key only ignoring case as the gold does, as the CLI's
    alignment does (``Cafes_1-City`` is ``Cafes_1-city``).

    Not reproduced:

    * the CLI spells keys ignoring case against every key of the gold set (slot list,
      schema, every dialogue's states), the functions against the keys of ``y_true``: a
      predicted key matching only a key outside ``y_true`` keeps its spelling (an extra
      slot either way; but two such spellings in one turn are two extra slots, not one,
      and per-domain JGA sees the domain as written);
    * a turn writing one slot in spellings that differ in case: the CLI takes the value of
      the gold's spelling if written, else of the first spelling, even when that value is
      unset (and loses a case variant's repeated values); the functions take the first
      value that is set, the gold's spelling read first;
    * requested slots and intents: ``requested_slots_precision_recall_f1`` spells keys
      only with ``keys=`` and ``aliases=`` from here (its default is ``"exact"``;
      ``+gold-case`` against the requested slots of ``y_true``);
      ``active_intent_accuracy`` compares service names exactly (the CLI ignores case);
    * a predicted value ``None`` (JSON ``null``): the CLI reads the slot as not predicted,
      the functions raise ``TypeError`` (:func:`~dst_eval.metrics.turn_table` leaves it out);
    * options besides the defaults: ``--missing skip`` (pass only the turns with a
      predicted state, and FGA's ``turn_numbers``), ``--dontcare ignore``, an unset marker
      declared by the predictions' format (add it to ``unset_words``).

    >>> from dst_eval.metrics import joint_goal_accuracy
    >>> gold, pred = [{"hotel-bookday": "monday"}], [{"hotel": {"day": "Monday"}}]
    >>> joint_goal_accuracy(gold, pred), joint_goal_accuracy(
    ...     gold, pred, **metric_options("multiwoz21"))
    (0.0, 1.0)
    """
    from dst_eval.metrics.normalization import RULE_TABLE_VERSION

    spec = corpus_config(corpus)
    keys = {"lower": "lower", "keep": "strip+gold-case",
            "verbatim": "exact+gold-case"}.get(spec.slot_key_policy)
    if keys is None:
        raise UsageError(f"configs/{spec.name}.toml: unknown slot_key_policy "
                         f"{spec.slot_key_policy!r} (known: lower, keep, verbatim)")
    return {"norm": f"{spec.normalisation}-v{RULE_TABLE_VERSION}", "keys": keys,
            "aliases": dict(spec.slot_aliases), "unset_words": spec.unset_values,
            "multi_value_slots": tuple(sorted(spec.multi_value_slots))}


def corpus_specs() -> tuple[CorpusSpec, ...]:
    """Every packaged corpus config, by name (:mod:`dst_eval.corpora` orders and checks them)."""
    return tuple(corpus_config(name) for name in config_names())

