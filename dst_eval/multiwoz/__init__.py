"""MultiWOZ response-generation scoring as mwzeval does it (Inform, Success, BLEU, richness).

::

    from dst_eval.jsonio import read_json
    from dst_eval.multiwoz import load_response_gold, score_responses

    gold = load_response_gold("multiwoz21/test.json.zip", "multiwoz21/db")   # once
    result = score_responses(gold, read_json("preds.json"), compat=True, missing="skip")
    result["official"]   # mwzeval's output; result["inform"], ["success"], ["bleu"], ...

Inputs and outputs are documented in :mod:`.response`. Modules: :mod:`.goals` (goals,
booked domains, gold states from 2.1 ``data.json`` or 2.2 dialogues), :mod:`.database`
(venue DB, cached queries), :mod:`.delex` (response normalisation, references),
:mod:`.domains` (active-domain estimation), :mod:`.response` (the engine).
"""

from __future__ import annotations

from .response import ResponseGold, load_response_gold, score_responses

__all__ = ["ResponseGold", "load_response_gold", "score_responses"]
