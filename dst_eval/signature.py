"""Signatures: what a number was computed with, so two numbers are comparable or visibly not.

Like sacrebleu's, a signature is an ordered set of ``key:value`` fields rendered as
``dst-eval|corpus:sgd|split:dev|profile:sgd-official|...|version:0.2.2`` (the last
field named as in sacrebleu's signatures).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dst_eval import __version__


@dataclass(frozen=True)
class Signature:
    corpus: str
    split: str | None
    profile: str
    fields: tuple[tuple[str, str], ...] = field(default=())
    """Further fields in order, e.g. ``(("norm", "basic-v1"), ("match", "exact"))``."""
    version: str = __version__

    def with_fields(self, **extra: str) -> Signature:
        merged = dict(self.fields)
        merged.update({k.replace("_", "-"): str(v) for k, v in extra.items()})
        return Signature(self.corpus, self.split, self.profile, tuple(merged.items()), self.version)

    def as_dict(self) -> dict[str, str]:
        out = {"corpus": self.corpus, "split": self.split or "-", "profile": self.profile}
        out.update(dict(self.fields))
        out["version"] = self.version
        return out

    def format(self) -> str:
        return "dst-eval|" + "|".join(f"{k}:{v}" for k, v in self.as_dict().items())

    def __str__(self) -> str:
        return self.format()
