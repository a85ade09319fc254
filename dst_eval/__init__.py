"""dst-eval: one evaluation harness for dialogue state tracking and task-oriented dialogue."""

from __future__ import annotations

from dst_eval._version import __version__

__all__ = ["EvalOptions", "Result", "__version__", "evaluate", "load_gold", "metric_options",
           "read_predictions"]

_LAZY = {
    "evaluate": ("dst_eval.api", "evaluate"),
    "EvalOptions": ("dst_eval.options", "EvalOptions"),
    "Result": ("dst_eval.result", "Result"),
    "load_gold": ("dst_eval.corpora", "load_gold"),
    "metric_options": ("dst_eval.config", "metric_options"),
    "read_predictions": ("dst_eval.predictions.reader", "read_predictions"),
}


def __getattr__(name: str):  # lazy: `import dst_eval.metrics` must not load pandas/rich
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module 'dst_eval' has no attribute {name!r}")
