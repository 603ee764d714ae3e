"""Telling text from binary and naming a file's type, for summaries instead of raw bytes."""

from __future__ import annotations

import mimetypes
from pathlib import Path

SNIFF_BYTES = 8192
_MAGIC = (
    (b"\x89PNG", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"%PDF", "PDF document"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"\x7fELF", "ELF executable"),
    (b"\x1f\x8b", "gzip archive"),
    (b"SQLite format 3", "SQLite database"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (b"MZ", "Windows executable"),
)


def is_binary(head: bytes) -> bool:
    """True for data that is not UTF-8 text (NUL bytes, or bytes that do not decode)."""
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut at the end of the sample is still text.
        return exc.start < len(head) - 4
    return False


def describe_type(path: Path, head: bytes) -> str:
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    guessed, _ = mimetypes.guess_type(path.name)
    if guessed:
        return guessed
    return "binary data" if is_binary(head) else "text"


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} bytes"
