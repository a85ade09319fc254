"""Escaping user-controlled text (dialogue ids, slot names, file names, values) for where
it is shown, so that no input can forge output.

==================  =======================================================================
:func:`one_line`    error and warning lines: control characters (a newline too),
                    bidirectional overrides and invisible formatting characters shown as
                    Python-style escapes (``\\n``, ``\\x1b``, ``\\u202e``): a dialogue id
                    holding a newline cannot start a second, forged error line
:func:`markdown`    :func:`one_line`, then Markdown/HTML specials backslash-escaped
                    (``[x](y)``, ``<img>``, ``|``, ``*``): safe in a table cell or list
                    item, e.g. in ``$GITHUB_STEP_SUMMARY``
:func:`html`        :func:`one_line`, then :func:`html.escape`
:func:`rich`        :func:`one_line`, then rich's markup escape (``[/x]`` is no closing tag)
:func:`json_safe`   JSON: a structure whose strings are all UTF-8 encodable
==================  =======================================================================

Every one of them shows a lone surrogate, which is how :func:`os.fsdecode` holds an
undecodable byte of a file name (byte ``0xff`` is ``\\udcff``), as ``\\udcff``: such a
name is legal on Linux, and it cannot be written as UTF-8.
"""

from __future__ import annotations

import re
from typing import Any

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
                    "\u2060-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb]")
"""Control (C0, DEL, C1), bidirectional and invisible formatting characters, and lone
surrogates."""
SURROGATES = re.compile("[\ud800-\udfff]")
_MARKDOWN = re.compile(r"([\\`*_\[\]<>|#~!&{}()])")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match) -> str:
    char = match.group()
    code = ord(char)
    return _SHORT.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def one_line(text: str) -> str:
    """``text`` with control, bidirectional and invisible characters shown escaped."""
    text = str(text)
    return UNSAFE.sub(_escaped, text) if UNSAFE.search(text) else text


def markdown(text: str) -> str:
    """``text`` safe in Markdown (no link, image, HTML, emphasis, cell or line break)."""
    return _MARKDOWN.sub(r"\\\1", one_line(text))


def html(text: str) -> str:
    """``text`` safe in HTML text or a quoted attribute, on one line."""
    import html as _html  # only HTML pages need it: not imported by every run

    return _html.escape(one_line(text), quote=True)


def rich(text: str) -> str:
    """``text`` safe in a rich console string printed with markup."""
    from rich.markup import escape

    return escape(one_line(text))


def json_safe(value: Any) -> Any:
    """``value`` (dicts, lists and tuples of strings and scalars) with every lone surrogate
    of its strings and keys shown as ``\\udcff``; other characters are left to the JSON
    encoder, which escapes them."""
    if isinstance(value, str):
        return SURROGATES.sub(_escaped, value) if SURROGATES.search(value) else value
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value
