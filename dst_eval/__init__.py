"""dst-eval: one evaluation harness for dialogue state tracking and task-oriented dialogue."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "evaluate", "load_gold", "read_predictions"]


def __getattr__(name: str):  # lazy: `import dst_eval.metrics` must not load pandas/rich
    if name == "evaluate":
        from dst_eval.api import evaluate

        return evaluate
    if name == "load_gold":
        from dst_eval.corpora import load_gold

        return load_gold
    if name == "read_predictions":
        from dst_eval.predictions.reader import read_predictions

        return read_predictions
    raise AttributeError(f"module 'dst_eval' has no attribute {name!r}")
