"""MultiWOZ's own comparison for the surface-form diagnostic (:mod:`dst_eval.surface`).

``spelling/time``: both values are equal after mwzeval's value tables (names, types such as
``guest house``, food, ``free`` parking, time formats ``7:00``/``7 pm``), the comparison
the ``mwzeval`` profile scores with.
"""

from __future__ import annotations


def _mwzeval(key: str, value: str) -> str:
    from dst_eval.corpora.multiwoz.mwzeval_rules import normalize_slot_name, normalize_value

    return normalize_value(normalize_slot_name(key.partition("-")[2]), value)


TESTS = (("spelling/time", _mwzeval),)
