"""The workspace sandbox: every path a tool touches is resolved here and must stay inside a workspace root.

Hard links: a regular file with more than one link (`st_nlink > 1`) may share its content with a file outside the
workspace, and no path check can tell (every name of the file is equally real). Tools refuse such files: reading,
writing, editing, and searching skip them. See docs/security.md.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from ..errors import SandboxError


def _check_text(path: str) -> None:
    if not isinstance(path, str):
        raise SandboxError(f"path must be a string, got {type(path).__name__}")
    if "\x00" in path:
        raise SandboxError(f"path {path!r} contains a NUL byte")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise SandboxError(f"path {path!r} is not valid text (it contains an unpaired surrogate)") from None


def hard_linked(st: os.stat_result) -> bool:
    """A regular file with more than one name: one of the others may be outside the workspace."""
    return stat.S_ISREG(st.st_mode) and st.st_nlink > 1


def _refuse_hard_link(path: str, real: Path) -> None:
    try:
        st = os.stat(real)
    except OSError:
        return  # a file that does not exist yet has no other names
    if hard_linked(st):
        raise SandboxError(
            f"'{path}' is a hard link ({st.st_nlink} names share this file, and one may be outside the workspace), "
            "so tools do not read, write or search it. To work on it, make it a file of its own first "
            "(for example: cp --remove-destination <path> <path>.tmp && mv <path>.tmp <path>)."
        )


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def resolve(roots: Sequence[Path], path: str, must_exist: bool = False) -> Path:
    """The absolute, symlink-free path for `path` (relative to the first root); SandboxError if it leaves the roots."""
    if not roots:
        raise SandboxError("no workspace folder is open, so no file can be reached")
    _check_text(path)
    text = path.strip() or "."
    real_roots = [Path(os.path.realpath(r)) for r in roots]
    candidate = Path(text)
    if not candidate.is_absolute():
        candidate = real_roots[0] / candidate
    # realpath follows every symlink, so a link that points outside lands outside and is refused below.
    real = Path(os.path.realpath(candidate))
    if not any(_inside(real, root) for root in real_roots):
        where = ", ".join(str(r) for r in real_roots)
        raise SandboxError(f"path '{path}' is outside the workspace ({where}); use a path relative to the workspace")
    if must_exist and not real.exists():
        raise SandboxError(f"no such file or directory: '{path}'")
    _refuse_hard_link(path, real)
    return real


def relative(roots: Sequence[Path], abs_path: Path) -> str:
    """`abs_path` relative to the root that holds it, `/`-separated ("." for the root itself)."""
    real = Path(os.path.realpath(abs_path))
    for root in roots:
        real_root = Path(os.path.realpath(root))
        if _inside(real, real_root):
            rel = real.relative_to(real_root).as_posix()
            return rel or "."
    return real.as_posix()


def root_of(roots: Sequence[Path], abs_path: Path) -> Path:
    """The (real) workspace root that holds `abs_path`; the first root if none does."""
    real = Path(os.path.realpath(abs_path))
    real_roots = [Path(os.path.realpath(r)) for r in roots]
    return next((r for r in real_roots if _inside(real, r)), real_roots[0])


# O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer (POSIX; Windows has no FIFOs here).
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


class NotRegularFileError(SandboxError):
    """Not a regular file (a FIFO, a device such as /dev/zero, a socket, or a link to one): reading could block for
    good or never end, so tools do not read it."""


class FileTooLargeError(SandboxError):
    """A file larger than the reader's limit."""


def read_regular(path: Path | str, limit: int, *, truncate: bool = False) -> bytes:
    """The bytes of `path` if it is a regular file (after links), at most `limit` of them.

    Opened with O_NONBLOCK so that opening a FIFO cannot block; the type is checked on the open descriptor, so a
    file swapped for a FIFO after a check is still refused. Past `limit`: FileTooLargeError, or the first `limit`
    bytes when `truncate`.
    """
    fd = os.open(path, _READ_FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(f"'{path}' is not a regular file (a FIFO, device or socket); it is not read")
        if st.st_size > limit and not truncate:
            raise FileTooLargeError(f"'{path}' is larger than {limit} bytes")
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        if not truncate:
            raise FileTooLargeError(f"'{path}' is larger than {limit} bytes")
        data = data[:limit]
    return data


def open_regular(path: Path | str) -> BinaryIO:
    """`path` opened for reading if it is a regular file (after links); NotRegularFileError otherwise. Never blocks
    on a FIFO (O_NONBLOCK, then the type is checked on the descriptor itself)."""
    fd = os.open(path, _READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(f"'{path}' is not a regular file (a FIFO, device or socket); it is not read")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
