"""Readers for auxiliary file formats (neither a corpus's native gold format nor predictions).

Each module documents the format it reads and raises :class:`~dst_eval.errors.DstEvalError`
subclasses with the file, dialogue and turn on malformed input.
"""
