"""MultiWOZ response-generation scoring as mwzeval does it (Inform, Success, BLEU, richness).

Modules: :mod:`.goals` (goals, booked domains, gold states from 2.1 ``data.json``),
:mod:`.database` (venue DB, cached queries), :mod:`.delex` (response normalisation,
references), :mod:`.domains` (active-domain estimation), :mod:`.response` (the engine:
:func:`load_response_gold`, :func:`score_responses`).
"""

from __future__ import annotations

from .response import ResponseGold, load_response_gold, score_responses

__all__ = ["ResponseGold", "load_response_gold", "score_responses"]
