"""dst-eval: one evaluation harness for dialogue state tracking and task-oriented dialogue."""

from __future__ import annotations


def _version() -> str:
    """The installed distribution's version (``pyproject.toml``), read from its metadata."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dst-eval")
    except PackageNotFoundError:  # imported from a source tree that was never installed
        return "0+unknown"


__version__ = _version()

__all__ = ["EvalOptions", "Result", "__version__", "evaluate", "load_gold", "read_predictions"]

_LAZY = {
    "evaluate": ("dst_eval.api", "evaluate"),
    "EvalOptions": ("dst_eval.options", "EvalOptions"),
    "Result": ("dst_eval.result", "Result"),
    "load_gold": ("dst_eval.corpora", "load_gold"),
    "read_predictions": ("dst_eval.predictions.reader", "read_predictions"),
}


def __getattr__(name: str):  # lazy: `import dst_eval.metrics` must not load pandas/rich
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module 'dst_eval' has no attribute {name!r}")
