"""``layout.read_member`` (a zip member inflated in one buffer) against zipfile's reading.

Seeded random archives -- deflated at every level, stored, bzip2 and lzma members, empty
and non-ASCII names, data before the archive, a comment -- must read the bytes
``ZipFile.read`` reads, and archives with a byte changed anywhere must give the same bytes
or the same error as zipfile read within the declared size (``jsonio.read_declared``: never
more than a member declares, where ``ZipFile.read`` inflates whatever the data holds).
"""

from __future__ import annotations

import io
import random
import zipfile

import pytest

from dst_eval.corpora.layout import read_member
from dst_eval.jsonio import read_declared


def _declared(archive: zipfile.ZipFile, name: str) -> bytes:
    return read_declared(archive, archive.getinfo(name))


def _archive(rng: random.Random) -> bytes:
    out = io.BytesIO()
    out.write(b"#!prefix\n" * rng.randint(0, 1))  # a self-extracting stub before the zip
    with zipfile.ZipFile(out, "a" if out.tell() else "w") as archive:
        for number in range(rng.randint(1, 3)):
            name = rng.choice(["data.json", "é/données.json", f"m{number}.json", "x"])
            if name in archive.namelist():
                continue
            size = rng.choice([0, 1, 100, 5000, 70000])
            content = (bytes(rng.randrange(256) for _ in range(size)) if rng.random() < 0.3
                       else b'{"a": "b"}, ' * (size // 12))
            method = rng.choice([zipfile.ZIP_DEFLATED] * 4 + [zipfile.ZIP_STORED,
                                                               zipfile.ZIP_BZIP2,
                                                               zipfile.ZIP_LZMA])
            info = zipfile.ZipInfo(name)
            info.compress_type = method
            if rng.random() < 0.3:
                info.extra = b"\xfe\xca\x04\x00abcd"  # an extra field of 4 bytes
            archive.writestr(info, content, compresslevel=rng.randint(0, 9)
                             if method == zipfile.ZIP_DEFLATED else None)
        archive.comment = b"comment" * rng.randint(0, 1)
    return out.getvalue()


def _outcome(read, archive: zipfile.ZipFile, name: str) -> object:
    try:
        return read(archive, name)
    except Exception as exc:  # the same error either way
        return (type(exc), str(exc))


def _same(data: bytes) -> None:
    try:
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    except Exception:
        return  # no archive to read from
    for name in names:
        expected = _outcome(_declared, zipfile.ZipFile(io.BytesIO(data)), name)
        assert _outcome(read_member, zipfile.ZipFile(io.BytesIO(data)), name) == expected


@pytest.mark.parametrize("seed", range(30))
def test_read_member_reads_what_zipfile_reads(seed: int) -> None:
    rng = random.Random(seed)
    data = _archive(rng)
    _same(data)
    archive = zipfile.ZipFile(io.BytesIO(data))
    for name in archive.namelist():  # an intact archive: exactly what ZipFile.read reads
        assert read_member(archive, name) == archive.read(name)
    for _ in range(20):  # one byte changed anywhere: local headers, data, directory
        changed = bytearray(data)
        changed[rng.randrange(len(changed))] ^= 1 << rng.randrange(8)
        _same(bytes(changed))


def test_a_recorded_size_deflate_cannot_reach_is_left_to_zipfile(tmp_path) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.json", b"[]" * 1000)
    data = bytearray(out.getvalue())
    directory = data.rindex(b"PK\x01\x02")
    data[directory + 24:directory + 28] = (10 ** 9).to_bytes(4, "little")  # recorded size
    expected = _outcome(_declared, zipfile.ZipFile(io.BytesIO(bytes(data))), "a.json")
    assert _outcome(read_member, zipfile.ZipFile(io.BytesIO(bytes(data))), "a.json") == expected
    path = tmp_path / "a.zip"  # an archive read from its file, not from memory
    path.write_bytes(out.getvalue())
    with zipfile.ZipFile(path) as archive:
        assert read_member(archive, "a.json") == b"[]" * 1000
