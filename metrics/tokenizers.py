"""BLEU tokenizers registered by name, sacrebleu style.

A tokenizer maps one segment to its space-joined tokens (``__call__(text) -> str``) and
names itself with ``signature()``, the ``tok:`` field of a BLEU signature. Registered names:

=====================  =================================================  =========================
name                   tokens                                             signature
=====================  =================================================  =========================
``none``               the text as is (split on whitespace by BLEU)       ``none``
``13a``                sacrebleu's mteval-v13a tokenizer (English;        ``13a``
                       same output, sacrebleu not imported)
``intl``               sacrebleu's mteval-v14 international tokenizer     ``intl``
``zh``                 sacrebleu's: one token per CJK character, other    ``zh``
                       runs as ``13a`` (segmentation independent)
``jieba``              ``jieba.lcut(text, HMM=True)`` words, whitespace   ``jieba-<version>``
                       tokens dropped (ConvLab-2 CrossWOZ NLG)
``ja-mecab-ipadic``    MeCab + IPAdic through fugashi                     ``ja-mecab-<mecab>-IPA``
(alias ``ja-mecab``)   (``ipadic.MECAB_ARGS -Owakati``); the same tokens
                       as sacrebleu ``ja-mecab``
=====================  =================================================  =========================

Unknown names and missing libraries raise :class:`TokenizerError` (a ``ValueError``).
Never use ``13a`` on raw Chinese or Japanese: it does not split CJK runs, so BLEU is ~0.
Heavy libraries (sacrebleu's tokenizer modules, jieba, fugashi) are imported on first use;
each tokenizer object is a module-level singleton, so a MeCab tagger or a jieba dictionary is
built once per process, and repeated segments are served from a per-tokenizer cache.
"""

from __future__ import annotations

import ctypes
from abc import ABC, abstractmethod
from functools import lru_cache
from importlib import import_module
from pathlib import Path

__all__ = [
    "ALIASES",
    "TOKENIZERS",
    "JaMecabIpadicTokenizer",
    "JiebaTokenizer",
    "SacrebleuTokenizer",
    "Tokenizer",
    "TokenizerError",
    "ZhTokenizer",
    "get_tokenizer",
]

_CACHE_SIZE = 2**16
IPADIC_SYS_DIC_SIZE = 392126
"""Entries in the IPAdic system dictionary; sacrebleu's ``ja-mecab`` asserts the same size."""


class TokenizerError(ValueError):
    """An unknown tokenizer name, or a tokenizer whose library is missing or unusable.

    One line; ``dst_eval`` reports it as a usage error (exit 2).
    """


class Tokenizer(ABC):
    """A named segment tokenizer; calling it returns the tokens joined by single spaces."""

    name: str

    def __init__(self) -> None:
        self._cached = lru_cache(maxsize=_CACHE_SIZE)(self._tokenize)

    def __call__(self, text: str) -> str:
        return self._cached(text)

    @abstractmethod
    def _tokenize(self, text: str) -> str: ...

    @abstractmethod
    def signature(self) -> str:
        """The ``tok:`` value of a BLEU signature (name plus version where it matters)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class SacrebleuTokenizer(Tokenizer):
    """One of sacrebleu's own tokenizer classes, instantiated on first use."""

    def __init__(self, name: str, module: str, class_name: str) -> None:
        super().__init__()
        self.name = name
        self._module = module
        self._class_name = class_name
        self._impl = None

    @property
    def impl(self):
        if self._impl is None:
            cls = getattr(import_module(f"sacrebleu.tokenizers.{self._module}"), self._class_name)
            self._impl = cls()
        return self._impl

    def __call__(self, text: str) -> str:  # sacrebleu's classes cache themselves
        return self.impl(text)

    def _tokenize(self, text: str) -> str:
        return self.impl(text)

    def signature(self) -> str:
        return self.impl.signature()


_REGEXP_RULES = (
    r"([\{-\~\[-\` -\&\(-\+\:-\@\/])",
    r"([^0-9])([\.,])",
    r"([\.,])([^0-9])",
    r"([0-9])(-)",
)
"""sacrebleu's ``TokenizerRegexp`` rules (shared by ``13a`` and ``zh``); fast ``zh`` needs them."""

_RULE_REPLACEMENTS = (r"\1 \2 ", r" \1 \2", r"\1 \2 ")
"""sacrebleu's replacements of the last three :data:`_REGEXP_RULES` rules."""


class _LastRules:
    """sacrebleu's last three ``TokenizerRegexp`` rules, applied in order with the same
    output, faster: each replacement is a function building the template's string from the
    match (on Python 3.11, ``sub`` with a group-reference template runs Python code on
    every call, matched or not); and the two punctuation rules run only on a line holding
    ``.`` or ``,``, the digit-dash rule on one holding ``-`` (otherwise their patterns
    cannot match, and no rule adds or removes these characters)."""

    def __init__(self) -> None:
        import re

        self._dot_before, self._dot_after, self._dash = (
            re.compile(pattern).sub for pattern in _REGEXP_RULES[1:])

    def __call__(self, line: str) -> str:
        if "." in line or "," in line:
            line = self._dot_before(_pair_space_after, line)  # r"\1 \2 "
            line = self._dot_after(_space_pair, line)  # r" \1 \2"
        if "-" in line:
            line = self._dash(_pair_space_after, line)  # r"\1 \2 "
        return line


def _pair_space_after(match) -> str:
    return f"{match[1]} {match[2]} "


def _space_pair(match) -> str:
    return f" {match[1]} {match[2]}"


_ASCII_PADDED = frozenset(
    "{|}~[\\]^_` !\"#$%&()*+:;<=>?@/"
)
"""The characters of the first :data:`_REGEXP_RULES` rule (each is padded with spaces)."""


class Tokenizer13a(Tokenizer):
    """sacrebleu's ``13a`` tokenizer (mteval-v13a): the same output, without sacrebleu.

    sacrebleu's ``Tokenizer13a``: delete ``<skipped>`` and ``-\\n``, newlines -> spaces,
    unescape ``&quot;`` ``&amp;`` ``&lt;`` ``&gt;``, pad with one space each side, then its
    ``TokenizerRegexp`` rules (:data:`_REGEXP_RULES`) and whitespace collapsing. The first
    rule pads every character of an ASCII class (space included) with spaces; one match is
    one character, so a ``str.translate`` table (:data:`_ASCII_PADDED`) gives the identical
    string without a Python template expansion per match (most of sacrebleu's time on
    Python 3.11); the other three rules are sacrebleu's regular expressions
    (:class:`_LastRules`). ``tests/test_tokenizers.py`` checks the output against
    sacrebleu's class and the rules against its source.
    """

    name = "13a"

    def __init__(self) -> None:
        super().__init__()
        self._table = {ord(c): f" {c} " for c in _ASCII_PADDED}
        self._rules: _LastRules | None = None

    def _tokenize(self, text: str) -> str:
        if self._rules is None:
            self._rules = _LastRules()
        line = text.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
        if "&" in line:
            line = (line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
                    .replace("&gt;", ">"))
        line = self._rules(f" {line} ".translate(self._table))
        return " ".join(line.split())

    def signature(self) -> str:
        return "13a"


class ZhTokenizer(Tokenizer):
    """sacrebleu's ``zh`` tokenizer: the same output, several times faster.

    sacrebleu pads every "Chinese" character (its ``_UCODE_RANGES``, compared as strings as it
    does, so e.g. U+2001..U+2A6D count too) with spaces in a per-character Python loop, then
    applies its ``TokenizerRegexp`` rules; the first rule pads every character of an ASCII class
    (space included) with spaces. Both single-character paddings are done here by one
    ``str.translate`` that yields the identical intermediate string; the remaining three rules
    (:class:`_LastRules`) and the whitespace collapsing are sacrebleu's own. If sacrebleu's
    rules or replacements ever differ from :data:`_REGEXP_RULES`, sacrebleu's class is used
    as is.
    """

    name = "zh"

    def __init__(self) -> None:
        super().__init__()
        self._table: dict[int, str] | None = None
        self._rules: _LastRules | None = None
        self._fallback = None

    def _load(self) -> None:
        if self._table is not None or self._fallback is not None:
            return
        zh = import_module("sacrebleu.tokenizers.tokenizer_zh")
        rules = import_module("sacrebleu.tokenizers.tokenizer_re").TokenizerRegexp()._re
        patterns = tuple(pattern.pattern for pattern, _ in rules)
        replacements = tuple(replacement for _, replacement in rules)
        if patterns != _REGEXP_RULES or replacements != (r" \1 ", *_RULE_REPLACEMENTS):
            self._fallback = zh.TokenizerZh()
            return
        first_rule = rules[0][0]
        padded = [cp for cp in range(128) if first_rule.fullmatch(chr(cp))]
        table = {cp: f" {chr(cp)} " for cp in padded}
        for start, end in zh._UCODE_RANGES:
            # single characters c with start <= c <= end under str comparison
            low = ord(start) if len(start) == 1 else ord(start[0]) + 1
            high = ord(end[0])
            for cp in range(low, high + 1):
                table[cp] = f"   {chr(cp)}   "  # " x " with both spaces padded again
        self._rules = _LastRules()
        self._table = table

    def _tokenize(self, text: str) -> str:
        self._load()
        if self._fallback is not None:
            return self._fallback(text)
        return " ".join(self._rules(text.strip().translate(self._table)).split())

    def signature(self) -> str:
        return "zh"


class JiebaTokenizer(Tokenizer):
    """Chinese words by jieba (HMM on), whitespace tokens dropped.

    Uses a private ``jieba.Tokenizer`` with the default dictionary, so words a caller adds to
    jieba's global tokenizer cannot change scores.
    """

    name = "jieba"

    def __init__(self) -> None:
        super().__init__()
        self._jieba = None
        self._segmenter = None

    def _load(self):
        if self._segmenter is None:
            try:
                jieba = import_module("jieba")
            except ImportError as exc:
                raise TokenizerError(f"tokenizer 'jieba' needs the jieba package ({exc})") from exc
            import logging  # loaded with jieba anyway; not imported by every run

            jieba.setLogLevel(logging.WARNING)  # no "Building prefix dict..." on stderr
            segmenter = jieba.Tokenizer()
            segmenter.initialize()
            self._jieba, self._segmenter = jieba, segmenter
        return self._segmenter

    def _tokenize(self, text: str) -> str:
        words = self._load().lcut(text, HMM=True)
        return " ".join(word for word in words if word.strip())

    def signature(self) -> str:
        self._load()
        return f"jieba-{self._jieba.__version__}"


def _mecab_version(fugashi_module) -> str:
    """Version string of the MeCab library bundled with fugashi (``mecab_version()``)."""
    package = Path(fugashi_module.__file__).parent
    candidates = [
        *sorted(package.parent.glob("fugashi.libs/*mecab*")),  # Linux wheels (auditwheel)
        *sorted(package.glob(".dylibs/*mecab*")),  # macOS wheels (delocate)
        *sorted(package.glob("*mecab*")),  # Windows wheels
        *sorted(package.glob("fugashi*.so")),  # statically linked builds
        *sorted(package.glob("fugashi*.pyd")),
    ]
    for path in candidates:
        try:
            function = ctypes.CDLL(str(path)).mecab_version
        except (OSError, AttributeError):
            continue
        function.restype = ctypes.c_char_p
        return function().decode("ascii")
    return "unknown"


class JaMecabIpadicTokenizer(Tokenizer):
    """Japanese morphemes by MeCab with the IPAdic dictionary, through fugashi.

    Same procedure as sacrebleu's ``ja-mecab`` (mecab-python3): strip the line, parse with
    ``ipadic.MECAB_ARGS + " -Owakati"``, strip the output. The tagger is built once.
    mecab-python3 hands MeCab a C string, so MeCab never sees what follows a NUL
    character; fugashi passes the length, so the text is cut at the first NUL here.
    """

    name = "ja-mecab-ipadic"

    def __init__(self) -> None:
        super().__init__()
        self._tagger = None
        self._version = None

    def _load(self):
        if self._tagger is None:
            try:
                fugashi = import_module("fugashi")
                ipadic = import_module("ipadic")
            except ImportError as exc:
                raise TokenizerError(
                    f"tokenizer 'ja-mecab-ipadic' needs fugashi and ipadic ({exc})"
                ) from exc
            tagger = fugashi.GenericTagger(ipadic.MECAB_ARGS + " -Owakati")
            info = tagger.dictionary_info
            if len(info) != 1 or info[0]["size"] != IPADIC_SYS_DIC_SIZE:
                raise TokenizerError(
                    "tokenizer 'ja-mecab-ipadic' expects exactly the IPAdic system dictionary "
                    f"({IPADIC_SYS_DIC_SIZE} entries), got {[d['size'] for d in info]}"
                )
            self._version = _mecab_version(fugashi)
            self._tagger = tagger
        return self._tagger

    def _tokenize(self, text: str) -> str:
        return self._load().parse(text.strip().partition("\x00")[0]).strip()

    def signature(self) -> str:
        self._load()
        return f"ja-mecab-{self._version}-IPA"


TOKENIZERS: dict[str, Tokenizer] = {
    "none": SacrebleuTokenizer("none", "tokenizer_none", "NoneTokenizer"),
    "13a": Tokenizer13a(),
    "intl": SacrebleuTokenizer("intl", "tokenizer_intl", "TokenizerV14International"),
    "zh": ZhTokenizer(),
    "jieba": JiebaTokenizer(),
    "ja-mecab-ipadic": JaMecabIpadicTokenizer(),
}
"""Registered tokenizers by name; the objects load their libraries on first call."""

ALIASES: dict[str, str] = {"ja-mecab": "ja-mecab-ipadic"}
"""Other accepted names (sacrebleu's name for the same tokenisation)."""


def get_tokenizer(name: str) -> Tokenizer:
    """The registered tokenizer called ``name`` (or an alias); one shared object per name."""
    try:
        return TOKENIZERS[ALIASES.get(name, name)]
    except (KeyError, TypeError):
        known = ", ".join([*TOKENIZERS, *ALIASES])
        raise TokenizerError(f"unknown BLEU tokenizer {name!r}; known: {known}") from None
