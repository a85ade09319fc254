"""Issues grouped for display: one per kind (and per label, e.g. per unknown slot), with
the count and the first place (:func:`group_issues`); every instance stays in
``Alignment.issue_details``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from dst_eval.predictions.model import Issue


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


class _Group:
    __slots__ = ("kind", "label", "first", "count", "unlisted", "turns", "dialogues",
                 "severity", "keys")

    def __init__(self, kind: str, label: str, first: Issue) -> None:
        self.kind, self.label, self.first = kind, label, first
        self.count = self.unlisted = 0
        self.turns: set[tuple[str | None, int | None]] = set()
        self.dialogues: set[str | None] = set()
        self.severity = "warning"
        self.keys: set[str] = set()

    def add(self, issue: Issue, key: str | None) -> None:
        if issue.severity == "error":
            self.severity = "error"
        if issue.unlisted:  # the end of a capped list: its problems have no places
            self.count += issue.unlisted
            self.unlisted += issue.unlisted
            return
        self.count += 1
        self.turns.add((issue.dialogue, issue.turn))
        self.dialogues.add(issue.dialogue)
        if issue.severity == "error":
            self.severity = "error"
        if key is not None:
            self.keys.add(key)

    def where(self) -> str:
        first = self.first
        place = f"dialogue {first.dialogue}" if first.dialogue is not None else "the file"
        return place + (f" turn {first.turn}" if first.turn is not None else "")

    def issue(self) -> Issue:
        first = self.first
        if self.count == 1 and not self.unlisted:
            return replace(first, severity=self.severity)
        n_turns, n_dialogues = len(self.turns), len(self.dialogues)
        if self.unlisted:  # the places of the first ones only
            message = (f"{self.kind.replace('_', ' ')}: {self.count:,} times; the first "
                       f"{self.count - self.unlisted:,} (listed) in {_count(n_turns, 'turn')} "
                       f"of {_count(n_dialogues, 'dialogue')}, first at {self.where()}: "
                       f"{first.message}")
            return Issue(self.kind, message, file=first.file, dialogue=first.dialogue,
                         turn=first.turn, severity=self.severity)
        if self.kind in ("unknown_slot", "unknown_domain"):
            what = "slot" if self.kind == "unknown_slot" else "domain"
            extra = ""
            shown = sorted(key for key in self.keys if key)  # "": an intent of the domain
            if self.kind == "unknown_domain" and shown:
                extra = f" (slots {', '.join(shown[:5])}{', ...' if len(shown) > 5 else ''})"
            message = (f"unknown {what} {self.label}{extra} in {_count(n_turns, 'turn')} of "
                       f"{_count(n_dialogues, 'dialogue')}, first at {self.where()}")
        else:
            message = (f"{self.kind.replace('_', ' ')}: {self.count} times in "
                       f"{_count(n_turns, 'turn')} of {_count(n_dialogues, 'dialogue')}, "
                       f"first at {self.where()}: {first.message}")
        return Issue(self.kind, message, file=first.file, dialogue=first.dialogue,
                     turn=first.turn, severity=self.severity)


def group_issues(issues: Iterable[Issue], labels: dict[int, tuple[str, str]] | None = None
                 ) -> list[Issue]:
    """One Issue per kind (and per label where ``labels[id(issue)] = (label, key)`` gives one).

    A kind that occurs once is kept as it is; repeated ones become one Issue with the count
    and the first place, in order of first appearance.
    """
    labels = labels or {}
    groups: dict[tuple[str, str], _Group] = {}
    for issue in issues:
        label, key = labels.get(id(issue), ("", None))
        group = groups.get((issue.kind, label))
        if group is None:
            group = groups[(issue.kind, label)] = _Group(issue.kind, label, issue)
        group.add(issue, key)
    return [group.issue() for group in groups.values()]
