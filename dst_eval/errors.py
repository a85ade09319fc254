"""Errors with exit codes.

Every error dst-eval raises on bad input is a :class:`DstEvalError` that renders as
one line naming the file, the dialogue and the turn (control and bidirectional
characters shown escaped, :func:`dst_eval.escape.one_line`), and maps to a distinct exit
code: 2 usage, 3 invalid predictions, 4 gold data problem.
"""

from __future__ import annotations

from dst_eval.escape import one_line

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INVALID_PREDICTIONS = 3
EXIT_GOLD_PROBLEM = 4


class DstEvalError(Exception):
    """Base error: one line, with the place it happened."""

    exit_code = 1
    kind = "error"

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        dialogue: str | None = None,
        turn: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.dialogue = dialogue
        self.turn = turn

    def location(self) -> str:
        parts = []
        if self.file is not None:
            parts.append(one_line(str(self.file)))
        if self.dialogue is not None:
            parts.append(f"dialogue {one_line(self.dialogue)}")
        if self.turn is not None:
            parts.append(f"turn {self.turn}")
        return ", ".join(parts)

    def __str__(self) -> str:
        where = self.location()
        text = " ".join(one_line(self.message).split())  # one line: a newline shows as \\n
        return f"{where}: {text}" if where else text


class UsageError(DstEvalError):
    exit_code = EXIT_USAGE
    kind = "usage error"


class PredictionError(DstEvalError):
    exit_code = EXIT_INVALID_PREDICTIONS
    kind = "invalid predictions"


class GoldDataError(DstEvalError):
    exit_code = EXIT_GOLD_PROBLEM
    kind = "gold data problem"


class CoverageError(PredictionError):
    """Predictions matching fewer than the minimum share of the gold dialogues; ``accepts``
    is the largest minimum (two decimals, rounded down) that would accept them."""

    def __init__(self, message: str, *, accepts: float, file: str | None = None) -> None:
        super().__init__(message, file=file)
        self.accepts = accepts
