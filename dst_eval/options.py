"""``EvalOptions``: every scoring option, in one frozen object validated in one place.

The command line (:meth:`EvalOptions.from_args`), a TOML table
(:meth:`EvalOptions.from_mapping`) and keyword arguments (:meth:`EvalOptions.build`,
``evaluate(..., **overrides)``) all end in the constructor, whose ``__post_init__`` is the
only validation: a bad option is a :class:`~dst_eval.errors.UsageError` (exit code 2),
raised before any gold or prediction file is opened.

``build``/``from_mapping``/``replace`` first *parse* loose spellings into the canonical
types (``"a,b"`` or a list -> a tuple, ``"12"`` -> 12, a path string ->
:class:`~pathlib.Path`; None -> the field's default); the constructor accepts canonical
values only.

Limits: ``bootstrap`` is 0 (off) or 2 ≤ N ≤ :data:`MAX_BOOTSTRAP` (10,000 — sacrebleu's
largest default, for approximate randomisation; the resample matrix is N × dialogues
float64, ≈ 340 MB for SGD test's 4,201 dialogues at the limit). ``seed`` is None (use
``$DST_EVAL_SEED``/``$SACREBLEU_SEED``, else 12345), ``"none"`` (unseeded) or an integer
0 ≤ seed < 2**63.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from dst_eval.errors import UsageError

MISSING_POLICIES = ("wrong", "empty", "skip")
BREAKDOWNS = ("domain", "slot", "service", "seen", "depth")
DONTCARE_POLICIES = ("value", "ignore")
MWZEVAL_RULES = ("7f19ee0", "cd3f0ee")
PRED_FORMATS = ("mwzeval", "jsonl", "sgd", "trade", "somdst", "trippy", "simpletod", "icdst",
                "ldst", "convlab", "jmultiwoz-inference")
MAX_BOOTSTRAP = 10_000
MAX_SEED = 2**63 - 1  # metrics.resampling.MAX_SEED (not imported here: it loads numpy)
DEFAULT_MIN_COVERAGE = 0.5
PATH_FIELDS = ("db", "goals", "references", "gold_states")

RESPONSE_METRIC_NAMES = frozenset({
    # responses (corpora/*/responses.py), MultiWOZ richness
    "bleu", "bleu_corpus", "bleu_jieba", "bleu_segmented", "bleu_sentence_mean", "inform",
    "success", "combined", "combined_segmented", "entity_inform_rate", "avg_lengths",
    "entropy", "cond_entropy", "msttr", "num_unigrams", "num_bigrams", "num_trigrams",
})
"""The metrics of the corpus response scorers (scored only when the predictions carry
responses)."""
METRIC_NAMES = frozenset({
    # DST: strict (metrics/), mwzeval, convlab, trade, JMultiWOZ official
    "joint_goal_accuracy", "slot_accuracy", "slot_f1", "slot_precision", "slot_recall",
    "average_goal_accuracy", "relative_slot_accuracy", "relative_slot_accuracy_micro",
    "turn_accuracy", "active_intent_accuracy", "requested_slots_f1",
    "requested_slots_precision", "requested_slots_recall", "requested_slots_f1_turn_macro",
    "slot_f1_turn_macro", "trade_slot_accuracy", "improved_average_goal_accuracy",
    "granular_change_accuracy", "final_turn_joint_goal_accuracy",
    "domain_joint_goal_accuracy_mean",
    # DST: the SGD official scorer's names (metrics/sgd_frame.py METRICS)
    "slot_tagging_f1", "slot_tagging_precision", "slot_tagging_recall",
    "joint_cat_accuracy", "joint_noncat_accuracy", "average_cat_accuracy",
    "average_noncat_accuracy",
}) | RESPONSE_METRIC_NAMES
"""Every metric name a profile or corpus response scorer reports (``--metrics`` refuses any
other); ``tests/test_options.py`` checks the list against what the scorers report."""
METRIC_PREFIXES = ("flexible_goal_accuracy@", "domain_joint_goal_accuracy:")
"""Parametrised names: ``flexible_goal_accuracy@0.5`` (one per λ),
``domain_joint_goal_accuracy:hotel`` (one per domain)."""


def _known_corpora() -> tuple[str, ...]:
    from dst_eval.corpora import all_names

    return all_names()


def _known_profiles() -> tuple[str, ...]:
    from dst_eval.profiles import PROFILES

    return tuple(PROFILES)


NOUNS = {"corpus": "corpus", "profile": "profile", "pred_format": "prediction format",
         "missing": "missing-prediction policy", "dontcare": "dontcare policy",
         "mwzeval_rules": "mwzeval rule tables"}


def _one_of(name: str, value: Any, allowed: Iterable[str], *, optional: bool = False) -> None:
    allowed = tuple(allowed)
    if value is None and optional:
        return
    if not isinstance(value, str) or value not in allowed:
        raise UsageError(f"{_flag(name)}: unknown {NOUNS[name]} {value!r}; known: "
                         f"{', '.join(allowed)}")


def _flag(name: str) -> str:
    return "--" + {"normalisation": "norm"}.get(name, name).replace("_", "-")


def _show(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_norm(value: str) -> None:
    from dst_eval.normalize import policy_rules

    if not value.strip() or any(not part.strip() for part in value.split("+")):
        raise UsageError(f"--norm {value!r}: empty policy name")
    try:
        policy_rules(value)
    except ValueError as exc:
        raise UsageError(f"--norm {value}: {exc}") from None


def known_metric(name: str) -> bool:
    return name in METRIC_NAMES or name.startswith(METRIC_PREFIXES)


@dataclass(frozen=True)
class EvalOptions:
    """What a run scores and how. Attribute names are the ones profiles read."""

    corpus: str | None = None
    """Corpus name (detected from the gold when None)."""
    split: str | None = None
    """Split when the gold path is a corpus root (``dev``, ``test``)."""
    profile: str | None = None
    """Scoring profile (the corpus's default, ``strict``, when None)."""
    pred_format: str | None = None
    """``mwzeval``, ``jsonl`` or ``sgd`` (detected when None)."""
    strict: bool = False
    """Every prediction problem is an error (exit 3)."""
    missing: str = "wrong"
    """``wrong`` (default): a missing dialogue/turn/frame is wrong for every metric
    (README "Missing predictions"); ``empty``: it scores as an empty prediction;
    ``skip``: score only what is present, as the official scorers silently do."""
    min_coverage: float = DEFAULT_MIN_COVERAGE
    """Stop (exit 3) when the predictions match less than this share of the gold dialogues
    (a wrong ``--gold`` or ``--split``); in [0, 1], 0 = no check."""
    metrics: tuple[str, ...] | None = None
    """Restrict the headline metrics to these names (None: all the profile computes)."""
    by: tuple[str, ...] = ()
    """Breakdowns: any of ``domain``, ``slot``, ``service``, ``seen``, ``depth``."""
    dontcare: str = "value"
    """``value``: dontcare is an ordinary value (default); ``ignore``: removed on both sides."""
    normalisation: str | None = None
    """Override the corpus's default normalisation policy (strict profile only)."""
    mwzeval_rules: str = "7f19ee0"
    """mwzeval rule tables: ``7f19ee0`` (published leaderboard) or ``cd3f0ee`` (latest)."""
    bootstrap: int = 0
    """Dialogue-level bootstrap resamples for 95 % intervals (0: none)."""
    seed: int | str | None = None
    """Resampling seed: an int, ``"none"`` (unseeded) or None (environment, else 12345)."""
    db: Path | None = None
    """Response metrics: database directory."""
    goals: Path | None = None
    """Response metrics: MultiWOZ 2.1 ``data.json`` (or zip) with the user goals."""
    references: Path | None = None
    """Response metrics: reference responses file overriding the gold's."""
    gold_states: Path | None = None
    """Response metrics: mwzeval-format gold states (policy-optimisation setting)."""
    fga_lambdas: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)
    """Flexible goal accuracy penalties λ, each in (0, 1]."""
    zero_shot_domain: str | None = None
    """Zero-shot (leave-one-domain-out) protocol: score only the dialogues involving this
    domain and only its slots (``dst_eval/zeroshot.py``); in the signature."""

    def __post_init__(self) -> None:  # the one validation of every option
        if self.corpus is not None:
            _one_of("corpus", self.corpus, _known_corpora())
        for name in ("split",):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise UsageError(f"{_flag(name)} {_show(value)}: must be a non-empty name")
        _one_of("profile", self.profile, _known_profiles(), optional=True)
        if self.profile is not None and self.corpus is not None:
            from dst_eval.corpora import applicable

            corpora = applicable(self.profile)
            if corpora and self.corpus not in corpora:
                raise UsageError(f"--profile {self.profile}: profile {self.profile!r} does not "
                                 f"apply to corpus {self.corpus!r} (it applies to "
                                 f"{', '.join(corpora)})")
        _one_of("pred_format", self.pred_format, PRED_FORMATS, optional=True)
        if not isinstance(self.strict, bool):
            raise UsageError(f"--strict {_show(self.strict)}: must be true or false")
        _one_of("missing", self.missing, MISSING_POLICIES)
        if (not isinstance(self.min_coverage, float | int) or isinstance(self.min_coverage, bool)
                or not 0 <= self.min_coverage <= 1):
            raise UsageError(f"--min-coverage {_show(self.min_coverage)}: must be a number "
                             "from 0 to 1")
        _one_of("dontcare", self.dontcare, DONTCARE_POLICIES)
        _one_of("mwzeval_rules", self.mwzeval_rules, MWZEVAL_RULES)
        if self.metrics is not None:
            if not isinstance(self.metrics, tuple) or not self.metrics:
                raise UsageError("--metrics: give one or more metric names")
            unknown = [m for m in self.metrics if not isinstance(m, str) or not known_metric(m)]
            if unknown:
                raise UsageError(f"--metrics: unknown metric {', '.join(map(_show, unknown))}")
            repeated = sorted({m for m in self.metrics if self.metrics.count(m) > 1})
            if repeated:
                raise UsageError(f"--metrics: {', '.join(map(_show, repeated))} named more than "
                                 "once (-b prints one line per name, in the order given)")
        if not isinstance(self.by, tuple):
            raise UsageError(f"--by {_show(self.by)}: must be a tuple of breakdown names "
                             "(EvalOptions.build and evaluate() take a list or a string)")
        for kind in self.by:
            if kind not in BREAKDOWNS:
                raise UsageError(f"--by: unknown breakdown {_show(kind)}; known: "
                                 f"{', '.join(BREAKDOWNS)}")
        if self.profile is not None and self.by:
            from dst_eval.profiles import breakdowns_of

            offered = breakdowns_of(self.profile)
            lacking = [kind for kind in self.by if kind not in offered]
            if lacking:
                raise UsageError(f"--by {','.join(lacking)}: the {self.profile} profile has "
                                 f"no such breakdown (it has: {', '.join(offered) or 'none'}; "
                                 "the strict profile has all)")
        if self.normalisation is not None:
            if not isinstance(self.normalisation, str):
                raise UsageError(f"--norm {_show(self.normalisation)}: must be a policy name")
            _check_norm(self.normalisation)
        if not _is_int(self.bootstrap) or not (
                self.bootstrap == 0 or 2 <= self.bootstrap <= MAX_BOOTSTRAP):
            raise UsageError(f"--bootstrap {_show(self.bootstrap)}: must be 0 (off) or an "
                             f"integer from 2 to {MAX_BOOTSTRAP}")
        if self.bootstrap and self.profile is not None:
            check_resamples(self.profile, "--bootstrap")
        if self.seed is not None and self.seed != "none" and not (
                _is_int(self.seed) and 0 <= self.seed <= MAX_SEED):
            raise UsageError(f"--seed {_show(self.seed)}: seed must be a non-negative "
                             f"integer (at most {MAX_SEED}) or 'none'")
        for name in PATH_FIELDS:
            value = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, Path):
                raise UsageError(f"{_flag(name)} {_show(value)}: must be a path")
            if not value.exists():
                raise UsageError(f"{_flag(name)} {value}: no such file or directory")
        if self.zero_shot_domain is not None and (
                not isinstance(self.zero_shot_domain, str) or not self.zero_shot_domain.strip()
                or "-" in self.zero_shot_domain):
            raise UsageError(f"--zero-shot-domain {_show(self.zero_shot_domain)}: must be one "
                             "domain name (e.g. hotel)")
        if self.zero_shot_domain is not None and self.profile not in (None, "strict", "trade"):
            raise UsageError(f"--zero-shot-domain: the {self.profile} profile reads its own "
                             "gold, which the protocol cannot restrict; use --profile strict "
                             "or trade")
        if (not isinstance(self.fga_lambdas, tuple) or not all(
                isinstance(x, float | int) and not isinstance(x, bool) and 0 < x <= 1
                for x in self.fga_lambdas)):
            raise UsageError(f"fga_lambdas {self.fga_lambdas!r}: must be numbers in (0, 1]")

    # ---- construction from loose spellings ------------------------------------------
    @classmethod
    def build(cls, **values: Any) -> EvalOptions:
        """Options from keyword arguments in any accepted spelling (see :func:`parse_value`);
        an unknown name is a UsageError."""
        return cls(**_parsed(values))

    @classmethod
    def from_mapping(cls, table: Mapping[str, Any]) -> EvalOptions:
        """Options from a TOML table (``-`` or ``_`` in keys; ``norm`` = ``normalisation``)."""
        return cls.build(**{str(k).replace("-", "_"): v for k, v in table.items()})

    @classmethod
    def from_args(cls, args: Any) -> EvalOptions:
        """Options from an ``argparse`` namespace: every attribute named like a field."""
        names = {f.name for f in fields(cls)} | {"norm"}
        return cls.build(**{k: v for k, v in vars(args).items() if k in names})

    def replace(self, **overrides: Any) -> EvalOptions:
        """A copy with ``overrides`` (loose spellings accepted), validated again. An override
        of None is not given: the value stays (a wrapper passing ``profile=args.profile``
        keeps the profile of ``options``)."""
        _parsed(overrides)  # every name checked, None ones included
        given = {key: value for key, value in overrides.items() if value is not None}
        return dataclasses.replace(self, **_parsed(given)) if given else self

    def as_dict(self) -> dict[str, Any]:
        """Field name -> value (paths as strings), e.g. for a JSON record of a run."""
        return {f.name: (str(v) if isinstance(v := getattr(self, f.name), Path) else v)
                for f in fields(self)}


FIELD_NAMES = frozenset(f.name for f in fields(EvalOptions))
DEFAULTS = {f.name: f.default for f in fields(EvalOptions)}
ALIASES = {"norm": "normalisation", "normalization": "normalisation"}


def _parsed(values: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for key, value in values.items():
        name = ALIASES.get(key, key)
        if name not in FIELD_NAMES:
            raise UsageError(f"unknown option {key!r}; known: {', '.join(sorted(FIELD_NAMES))}")
        if value is None:  # not given: the field's default (unless another spelling gives it)
            out.setdefault(name, DEFAULTS[name])
            continue
        if spelled.setdefault(name, key) != key:  # norm= and normalisation=: which one?
            raise UsageError(f"options {spelled[name]!r} and {key!r} are one option; give one")
        out[name] = parse_value(name, value)
    return out


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _names(value: Any) -> tuple[str, ...] | Any:
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if isinstance(value, list | tuple | set | frozenset):
        return tuple(value)
    return value


def _int(name: str, value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if name == "seed" and text.lower() == "none":
            return "none"
        try:
            if not re.fullmatch(r"[+-]?[0-9]+", text):  # int() also reads "０５" and "5_0"
                raise ValueError(text)
            return int(text)
        except ValueError:
            what = ("seed must be a non-negative integer or 'none'" if name == "seed"
                    else "not an integer")
            raise UsageError(f"{_flag(name)} {value!r}: {what}") from None
    return value


def parse_value(name: str, value: Any) -> Any:
    """One option from a loose spelling into its canonical type (validated afterwards)."""
    if name == "metrics":
        names = _names(value)
        if isinstance(names, tuple) and not names:  # as a bare -m: leave it out for all
            raise UsageError("metrics: empty; leave the option out to report every metric")
        return names
    if name == "by":
        return _names(value)
    if name in ("bootstrap", "seed"):
        return _int(name, value)
    if name == "min_coverage" and isinstance(value, str):
        if not _DECIMAL.fullmatch(value.strip()):  # float() also reads "０.９" and "0_5"
            raise UsageError(f"--min-coverage {value!r}: not a number")
        return float(value.strip())
    if name in PATH_FIELDS and isinstance(value, str):
        return Path(value)
    if name == "fga_lambdas" and isinstance(value, list):
        return tuple(value)
    if name == "normalisation" and isinstance(value, str) and not value.strip():
        raise UsageError("--norm '': empty policy name")
    return value


def check_resamples(profile: str, what: str) -> None:
    """A usage error when ``profile`` keeps no per-turn statistics to resample."""
    from dst_eval.profiles import PROFILES, RESAMPLING_PROFILES

    if profile in PROFILES and profile not in RESAMPLING_PROFILES:
        raise UsageError(f"{what}: the {profile} profile keeps no per-turn statistics, so "
                         "no bootstrap or significance test is possible; use --profile "
                         f"{' or '.join(RESAMPLING_PROFILES)}")
