"""The package version: the one source of the distribution's metadata (``pyproject.toml``
reads it with ``[tool.setuptools.dynamic]``) and of ``--version`` and signatures, without
importing ``importlib.metadata`` (~45 ms) on every run."""

__version__ = "0.2.2"
