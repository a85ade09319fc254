"""Submissions are untrusted input: discovery, paths, sizes, content hashes, metadata.

* A glob match, a metadata file's ``predictions`` path or a file inside a submitted
  directory that resolves (symlinks followed) outside its submissions directory is refused.
* Sizes are checked on the files before anything is read (:func:`submission_size`).
* Nothing is executed: metadata TOML and JSON are parsed; metadata strings are single-line
  and length-limited, URLs ``http(s)`` only (:func:`clean_metadata`).

A refused submission becomes a :class:`Candidate` with ``error`` set (or a :class:`Refused`
raised while scoring); the message is the reason shown to its author.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import tomllib
import unicodedata
import zipfile
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dst_eval.errors import UsageError
from dst_eval.escape import UNSAFE  # control, bidi, invisible, lone surrogates (not UTF-8)
from dst_eval.jsonio import special_reason
from dst_eval.leaderboard.config import LeaderboardConfig, Source

MAX_MANIFEST_BYTES = 64 * 1024
MAX_TEXT = 200
MAX_AUTHORS = 30
METADATA_KEYS = ("name", "authors", "paper", "code", "model_size", "description")
MANIFEST_KEYS = (*METADATA_KEYS, "predictions")
URL = re.compile(r"https?://[A-Za-z0-9._~:/?#@!$&'*+,;=%-]+")


class Refused(Exception):
    """A submission that cannot be scored; the message is the reason shown to its author."""


class GoldProblem(Refused):
    """A problem of the board's gold met while scoring one submission: a part of the gold
    that only some submissions make the scorer read (MultiWOZ goals, read to score
    responses). That submission is not scored and the reason says it is the gold's; the
    others are scored and ranked; the build ends with exit 4 (a gold data problem)."""


@dataclass
class Candidate:
    id: str
    source: Source
    predictions: Path
    """The predictions file (or SGD-style directory), resolved."""
    manifest: dict[str, Any] | None = None
    entry: Path | None = None
    """The glob match (the metadata file, or the predictions themselves), resolved."""
    error: str | None = None
    rescore: bool = False
    """Never take this one from the cache (the ``--check`` candidate)."""


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _confined(root: Path, relative: Any, what: str, *, base: Path | None = None) -> Path:
    """``base/relative`` (default ``root/relative``) resolved, symlinks followed; Refused
    unless it stays in ``root``."""
    if not isinstance(relative, str) or not relative.strip() or "\x00" in relative:
        raise Refused(f"{what} must be a non-empty relative path")
    if Path(relative).is_absolute() or re.match(r"^[A-Za-z]:", relative):
        raise Refused(f"{what} {relative!r} is absolute; give a path inside the submissions "
                      "directory")
    resolved = ((base or root) / relative).resolve()
    if not _inside(resolved, root):
        raise Refused(f"{what} {relative!r} escapes the submissions directory")
    return resolved


def _display_id(source: Source, path: Path, several: bool) -> str:
    """The submission's id: its path in the submissions directory (after the directory's
    label when there are several), unsafe characters shown escaped (:func:`visible`)."""
    relative = path.relative_to(source.root).as_posix()
    return visible(f"{source.label}/{relative}" if several else relative)


UNSAFE_NAME = ("its file name holds control, bidirectional or invisible formatting "
               "characters, or bytes that are not UTF-8 (shown escaped); rename it")


def discover(config: LeaderboardConfig, *, keep: Collection[str] = ()) -> list[Candidate]:
    """Every submission the globs name, sorted by id; refused ones carry ``error``. A
    predictions file a metadata file names is not a submission of its own, unless its id is
    in ``keep`` (a row of the published board: a metadata file cannot take it over)."""
    several = len(config.sources) > 1
    found: dict[str, Candidate] = {}
    for source in config.sources:
        if not source.root.is_dir():
            raise UsageError("submissions directory not found", file=str(source.root))
        matches = sorted({m for pattern in source.globs for m in source.root.glob(pattern)
                          if not any(part.startswith(".")
                                     for part in m.relative_to(source.root).parts)})
        referenced: set[Path] = set()
        direct: list[Path] = []
        for match in matches:
            shown = _display_id(source, match, several)
            resolved = match.resolve()
            if UNSAFE.search(match.relative_to(source.root).as_posix()):
                found[shown] = Candidate(shown, source, match, entry=match, error=UNSAFE_NAME)
            elif (special := special_reason(match)) is not None:  # FIFO, device, dead link
                found[shown] = Candidate(shown, source, match, entry=match, error=special)
            elif not _inside(resolved, source.root):
                found[shown] = Candidate(shown, source, match, entry=match,
                                         error="resolves outside the submissions directory "
                                               "(a symlink?)")
            elif match.suffix == ".toml":
                found[shown] = candidate = _from_manifest(shown, source, match)
                referenced.add(candidate.predictions)
            else:
                direct.append(match)
        for match in direct:
            shown = _display_id(source, match, several)
            if match.resolve() not in referenced or shown in keep:
                found[shown] = Candidate(shown, source, match.resolve(),
                                         entry=match.resolve())
    return [found[key] for key in sorted(found)]


def _from_manifest(shown: str, source: Source, manifest: Path) -> Candidate:
    try:
        if manifest.stat().st_size > MAX_MANIFEST_BYTES:
            raise Refused(f"metadata file over {MAX_MANIFEST_BYTES // 1024} KiB")
        try:
            data = tomllib.loads(manifest.read_bytes().decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise Refused(f"invalid metadata TOML ({exc})") from None
        if not isinstance(data.get("predictions"), str):
            raise Refused("metadata file needs 'predictions = \"<predictions file, relative to "
                          "this file>\"'")
        target = _confined(source.root, data["predictions"], "metadata 'predictions' path",
                           base=manifest.parent)
        if not target.exists():
            raise Refused(f"metadata 'predictions' file {data['predictions']!r} not found")
        return Candidate(shown, source, target, manifest=data, entry=manifest.resolve())
    except Refused as exc:
        return Candidate(shown, source, manifest.resolve(), error=str(exc),
                         entry=manifest.resolve())


def submission_size(path: Path, root: Path, *, limit: int | None = None) -> int:
    """Bytes of a file, or of every file under a directory (symlinks must stay in ``root``);
    a ``.zip`` counts its members' decompressed bytes (:func:`zip_size`), up to ``limit``."""
    files = [path] if path.is_file() else []
    if not files:
        for item in sorted(path.rglob("*")):
            if UNSAFE.search(item.relative_to(path).as_posix()):
                raise Refused(f"{visible(item.relative_to(path).as_posix())}: "
                              f"{UNSAFE_NAME.removeprefix('its ')}")
            if not _inside(item.resolve(), root):
                raise Refused(f"{item.relative_to(path).as_posix()} resolves outside the "
                              "submissions directory")
            if item.is_file():
                files.append(item)
    total = 0
    for file in files:
        if file.suffix.lower() == ".zip":
            total += zip_size(file, None if limit is None else limit - total)
        else:
            total += file.stat().st_size
    return total


def zip_size(path: Path, limit: int | None, *, chunk: int = 1 << 20) -> int:
    """The decompressed size of a zip's members, measured by streaming them (a member's
    declared size can lie), stopping as soon as it exceeds ``limit``: memory stays at one
    ``chunk`` whatever the compression ratio (a 1 MB zip bomb is refused, not expanded)."""
    total = 0
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if info.is_dir():
                    continue
                with archive.open(info) as member:
                    while block := member.read(chunk):
                        total += len(block)
                        if limit is not None and total > limit:
                            return total
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError,
            EOFError, RuntimeError, ValueError) as exc:
        raise Refused(f"not a readable zip file ({type(exc).__name__}: "
                      f"{' '.join(str(exc).split())[:120]})") from None
    return total


def content_hash(path: Path, files: list[str] | None = None) -> str:
    """sha256 of a file's bytes; for a directory, sha256 over its files in sorted order,
    each framed unambiguously: its relative name (length-prefixed), its size and the sha256
    of its bytes (fixed length), so no two different file sets give the same sequence.
    ``files`` receives the sha256 (hex) of each file hashed."""
    if path.is_file():
        digest = _file_sha256(path)[1].hex()
        if files is not None:
            files.append(digest)
        return digest
    combined = hashlib.sha256(b"dst-eval directory\x00")
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        name = os.fsencode(file.relative_to(path).as_posix())  # the bytes, UTF-8 or not
        size, sha = _file_sha256(file)
        combined.update(b"%d:%s%d:%s" % (len(name), name, size, sha))
        if files is not None:
            files.append(sha.hex())
    return combined.hexdigest()


def submission_key(path: Path, files: list[str] | None = None) -> list[str]:
    """What identifies a submission in the cache key: a file's name (its suffix decides how
    it is read: ``.zip``, ``.jsonl``, ...) and content hash, or a directory's content hash,
    each tagged with its kind (a file's bytes can never stand for a directory). ``files``
    receives the sha256 of each file (:func:`content_hash`)."""
    if path.is_file():
        return ["file", path.name, content_hash(path, files)]
    return ["dir", content_hash(path, files)]


def _file_sha256(path: Path) -> tuple[int, bytes]:
    """(bytes read, their sha256)."""
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    return size, digest.digest()


def _text(value: Any, key: str, limit: int = MAX_TEXT) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool) and key == "model_size":
        value = f"{value:g}"
    if not isinstance(value, str) or not value.strip():
        raise Refused(f"metadata {key!r} must be a non-empty string")
    text = value.strip()
    if len(text) > limit or any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in text):
        raise Refused(f"metadata {key!r} must be one line of at most {limit} characters")
    if UNSAFE.search(text):
        raise Refused(f"metadata {key!r} holds a bidirectional or invisible formatting "
                      f"character ({visible(UNSAFE.search(text).group())})")
    return text


def visible(text: str) -> str:
    """``text`` with control, bidirectional and invisible formatting characters shown as
    ``\\uXXXX`` escapes (a backslash itself as ``\\\\``): one line that displays as what
    it is."""
    return UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text.replace("\\", "\\\\")) \
        if UNSAFE.search(text) else text


LOOKALIKE_SCRIPTS = frozenset({"LATIN", "GREEK", "CYRILLIC"})
"""Scripts with letters that look alike (Latin O, Greek Ο, Cyrillic О): a word mixing them
is a look-alike of another name, as browsers treat mixed-script domain names."""


def mixed_script_word(text: str) -> str | None:
    """The first word of ``text`` (split at whitespace: ``GPT-4о`` is one word) whose
    letters come from two of :data:`LOOKALIKE_SCRIPTS` (``"Оracle"`` with a Cyrillic О),
    or None. (A name all in one script that looks like another, Cyrillic ``Сосо`` for
    ``Coco``, is left to the maintainer's review.)"""
    for word in text.split():
        scripts = {unicodedata.name(c, "?").split(" ", 1)[0] for c in word if c.isalpha()}
        if len(scripts & LOOKALIKE_SCRIPTS) > 1:
            return word
    return None


_DASHES = re.compile("[\u2010-\u2015\u2212\ufe58\ufe63]")
"""Hyphens and dashes NFKC leaves apart from ``-`` (U+2010 hyphen, en and em dashes,
minus sign, ...)."""


_LOOK_ALIKES = str.maketrans(
    # Cyrillic: а в е і ј к м н о р с т у х ѕ ԁ һ ӏ ԛ ԝ (lower case: names are case-folded)
    "\u0430\u0432\u0435\u0456\u0458\u043a\u043c\u043d\u043e\u0440\u0441\u0442\u0443"
    "\u0445\u0455\u0501\u04bb\u04cf\u051b\u051d"
    # Greek: α β ε ζ η ι κ μ ν ο ρ τ υ χ
    "\u03b1\u03b2\u03b5\u03b6\u03b7\u03b9\u03ba\u03bc\u03bd\u03bf\u03c1\u03c4\u03c5"
    "\u03c7",
    "abeijkmhopctyxsdhlqw"
    "abezhikmnoptyx")
"""Cyrillic and Greek letters whose capital or small form looks like a Latin letter, read
as that letter: ``АВС`` (Cyrillic) and ``ABC`` are one name. (Words that mix the scripts
are refused outright: :func:`mixed_script_word`.)"""


def name_key(name: str) -> str:
    """What two submission names must not share: the name after NFKC (full-width and other
    compatibility forms), with every hyphen and dash read as ``-``, case-folded, and
    Cyrillic and Greek look-alikes of Latin letters read as those (:data:`_LOOK_ALIKES`)."""
    folded = _DASHES.sub("-", unicodedata.normalize("NFKC", name)).casefold()
    return folded.translate(_LOOK_ALIKES)


def clean_metadata(raw: Mapping[str, Any], *, default_name: str,
                   allowed: Sequence[str] = METADATA_KEYS) -> tuple[dict[str, Any], list[str]]:
    """Checked metadata ``{name, authors, paper, code, model_size, description}`` and notes."""
    notes = []
    ignored = sorted(k for k in raw if k not in allowed)
    if ignored:
        notes.append(f"ignored metadata keys: {', '.join(map(str, ignored))}")
    meta: dict[str, Any] = {"name": _text(raw.get("name", default_name), "name", 80),
                            "authors": []}
    if (word := mixed_script_word(meta["name"])) is not None:
        raise Refused(f"metadata 'name' mixes Latin, Greek or Cyrillic letters in the word "
                      f"{visible(word)!r} (a look-alike of another name?); spell each word "
                      "in one script")
    authors = raw.get("authors", [])
    authors = [authors] if isinstance(authors, str) else authors
    if not isinstance(authors, list) or len(authors) > MAX_AUTHORS:
        raise Refused(f"metadata 'authors' must be a string or a list of at most "
                      f"{MAX_AUTHORS} strings")
    meta["authors"] = [_text(a, "authors", 100) for a in authors]
    for key in ("paper", "code"):
        if raw.get(key) is not None:
            url = _text(raw[key], key, 500)
            if not URL.fullmatch(url):
                raise Refused(f"metadata {key!r} must be an http(s) URL without spaces, "
                              "quotes, brackets or parentheses")
            meta[key] = url
    if raw.get("model_size") is not None:
        meta["model_size"] = _text(raw["model_size"], "model_size", 40)
    if raw.get("description") is not None:
        meta["description"] = _text(raw["description"], "description", 300)
    return meta, notes



def check_candidate(config: LeaderboardConfig, path: Path) -> Candidate:
    """The ``--check`` submission (always rescored): the leaderboard's own when ``path`` is a
    discovered submission or the predictions file of one (then with its metadata file);
    otherwise a new one, whose own directory confines its metadata paths. A path inside a
    submissions directory that resolves outside it is refused, as in the leaderboard."""
    if not path.exists():
        raise UsageError("submission to check not found", file=str(path))
    resolved, lexical = path.resolve(), Path(os.path.abspath(path))
    for candidate in discover(config):
        if {resolved, lexical} & {candidate.entry, candidate.predictions}:
            return dataclasses.replace(candidate, rescore=True)
    several = len(config.sources) > 1
    for source in config.sources:
        if _inside(lexical, source.root) and lexical != source.root:
            shown = _display_id(source, lexical, several)
            if not _inside(resolved, source.root):
                return Candidate(shown, source, lexical, error="resolves outside the "
                                 "submissions directory (a symlink?)", rescore=True)
            break
        if _inside(resolved, source.root) and resolved != source.root:
            shown = _display_id(source, resolved, several)
            break
    else:
        source = Source(resolved.parent, (resolved.name,), "check")
        shown = resolved.name
    if UNSAFE.search(path.name) or UNSAFE.search(resolved.name):
        candidate = Candidate(visible(shown), source, resolved, entry=resolved,
                              error=UNSAFE_NAME)
    elif resolved.suffix == ".toml":
        candidate = _from_manifest(shown, source, resolved)
    else:
        candidate = Candidate(shown, source, resolved, entry=resolved)
    return dataclasses.replace(candidate, rescore=True)

