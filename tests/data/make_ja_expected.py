"""Regenerate ``ja_mecab_expected.json``: sacrebleu's own ``ja-mecab`` tokens of our sentences.

The expected tokens come from sacrebleu's real ``TokenizerJaMecab`` (mecab-python3 + ipadic),
which is NOT a dependency of dst-eval. Run it from a separate scratch venv, never the project's:

    python3 -m venv /tmp/venv-ja && /tmp/venv-ja/bin/pip install "sacrebleu[ja]"
    /tmp/venv-ja/bin/python tests/data/make_ja_expected.py [SENTENCES.txt]

SENTENCES.txt holds one sentence per line, taken verbatim (only the ``\\n`` is removed, so
leading/trailing spaces, tabs and blank lines are kept as test cases). Without it, the
sentences already stored in the JSON are re-tokenised. The sentences are our own hand-written
task-oriented-dialogue sentences (hotels, restaurants, taxis, weather, shopping...).
The JSON records the tokenizer signature and the package versions that produced it.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path

from sacrebleu.tokenizers.tokenizer_ja_mecab import TokenizerJaMecab

OUT = Path(__file__).with_name("ja_mecab_expected.json")


def read_sentences(argv: list[str]) -> list[str]:
    if len(argv) > 1:
        text = Path(argv[1]).read_text(encoding="utf-8")
        lines = text.split("\n")
        return lines[:-1] if lines and lines[-1] == "" else lines
    stored = json.loads(OUT.read_text(encoding="utf-8"))
    return [item["text"] for item in stored["sentences"]]


def main(argv: list[str]) -> None:
    tokenizer = TokenizerJaMecab()
    sentences = read_sentences(argv)
    payload = {
        "generated_by": "tests/data/make_ja_expected.py (see its docstring)",
        "tokenizer_signature": tokenizer.signature(),
        "versions": {name: version(name) for name in ("sacrebleu", "mecab-python3", "ipadic")},
        "sentences": [{"text": s, "tokens": tokenizer(s)} for s in sentences],
    }
    OUT.write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(sentences)} sentences to {OUT}")


if __name__ == "__main__":
    main(sys.argv)
