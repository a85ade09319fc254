"""Value normalisation: which profile uses which rules (the rules live in ``metrics/``).

The versioned rule table, the policies and :class:`Unset` are implemented once, in
:mod:`dst_eval.metrics.normalization` (pure: the metric functions use them too, so a
metric function and the CLI's strict profile compare values by the same code). This
module re-exports them for the profiles.

Per profile (each reproduces its anchor; see the profile modules):

==========================  ==================  ==========================================
profile                     unset rules         why
==========================  ==================  ==========================================
``strict``                  ``blank+words``     documented: empty, whitespace-only and (for
                                                MultiWOZ) ``none``/``not mentioned`` unset
``convlab``                 ``blank``           ConvLab-3 deletes all whitespace and treats
                                                an empty result as no prediction; ``none``
                                                and ``not mentioned`` are values (false
                                                positives)
``official`` (JMultiWOZ)    ``empty``           ``state_dict2str`` skips falsy values only:
                                                ``" "`` and ``"\t"`` are state items
``trade``                   ``none``            TRADE drops exactly ``none``; any other
                                                string, ``""`` too, is a ``domain-slot-value`` item
==========================  ==================  ==========================================

A slot given twice in one turn (two spellings, :attr:`PredTurn.duplicates`) takes the
first of its values that is not unset (:meth:`Unset.items`).
"""
from __future__ import annotations

from dst_eval.metrics.normalization import (
    POLICIES,
    RULE_TABLE_VERSION,
    RULES,
    UNSET_RULES,
    Normalizer,
    Rule,
    Unset,
    UnsetTest,
    policy_rules,
)

__all__ = ["POLICIES", "RULES", "RULE_TABLE_VERSION", "UNSET_RULES", "Normalizer", "Rule",
           "Unset", "UnsetTest", "policy_rules"]
