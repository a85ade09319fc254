"""Active-domain estimation from dialogue states (mwzeval, SCORERS.md §1.6).

When a system does not say which domain each response is about, mwzeval guesses it from
the (normalised) states of one dialogue, turn by turn, keeping ``current`` (None at first),
``old`` (the last state that was taken into account, ``{}`` at first) and ``old_changed``:

* ``changed`` = domains of the state (in state order) that gained a (slot, value) item not
  in ``old`` (removals do not count);
* if ``changed`` is empty: with ``current`` None the turn gets ``[]`` and nothing else
  happens (``old`` is kept); otherwise, if more than one domain changed in the previous
  counted turn, ``current`` becomes the first of those still in the state and different
  from ``current`` (if any);
* elif ``current`` is not in ``changed``: ``current`` = the changed domain with the most
  slots (the first one on ties);
* then ``old`` = state, ``old_changed`` = ``changed``, and the turn gets ``[current]``.

Pure; the input states are not modified.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

State = Mapping[str, Mapping[str, str]]


def estimate_active_domains(states: Sequence[State]) -> list[list[str]]:
    """One list of active domains (``[]`` or ``[domain]``) per turn of one dialogue."""
    current: str | None = None
    old: State = {}
    old_changed: list[str] = []
    estimates: list[list[str]] = []
    for state in states:
        changed = [
            domain for domain, slots in state.items()
            if set(slots.items()) - set(old.get(domain, {}).items())
        ]
        if not changed:
            if current is None:
                estimates.append([])
                continue
            if len(old_changed) > 1:
                old_changed = [d for d in old_changed if d in state and d != current]
                if old_changed:
                    current = old_changed[0]
        elif current not in changed:
            current = max(changed, key=lambda d: len(state[d]))
        old = state
        old_changed = changed
        estimates.append([current])
    return estimates
