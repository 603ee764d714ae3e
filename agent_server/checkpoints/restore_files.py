"""Writing a restored file back without ever following a link: every folder on the way is opened relative to the one
before it with O_NOFOLLOW, starting from the workspace root.

A command the user approved may have swapped a folder for a symlink to somewhere outside, or turned a file into a
link; a restore that wrote through `path.open()` would then write (or delete) outside the workspace. Here a link,
or a file, where the checkpoint had a folder is removed and the folder made again; a link where it had a file is
replaced by the file (the link itself, not its target); a link the checkpoint had is restored as a link.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import PurePosixPath

SYMLINK_MODE = "120000"
EXECUTABLE_MODE = "100755"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class UnsafePathError(OSError):
    """The path cannot be restored without leaving the workspace (`..`, an absolute path, a folder in the way)."""


def _parts(rel: str) -> list[str]:
    parts = [p for p in PurePosixPath(rel).parts if p not in ("", ".")]
    if not parts or any(p == ".." or "/" in p for p in parts) or PurePosixPath(rel).is_absolute():
        raise UnsafePathError(f"'{rel}' is not a path inside the workspace")
    return parts


def _open_parent(root: str, parts: list[str], create: bool) -> int | None:
    """An fd of the folder that holds `parts[-1]`, never through a link; None if it is missing and not `create`."""
    fd = os.open(root, _DIR_FLAGS)
    try:
        for name in parts[:-1]:
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                if not stat.S_ISDIR(st.st_mode):
                    if not create:
                        os.close(fd)
                        return None
                    os.unlink(name, dir_fd=fd)  # a link (or a file) where the checkpoint had a folder
                    os.mkdir(name, 0o777, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    os.close(fd)
                    return None
                os.mkdir(name, 0o777, dir_fd=fd)
            child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise
    return fd


def _clear(name: str, parent: int) -> os.stat_result | None:
    """Remove what is at `name` unless it is a folder (a folder in the way is an error); its old stat, if any."""
    try:
        st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(st.st_mode):
        raise UnsafePathError(f"a folder is in the way of '{name}'")
    return st


# Without `dir_fd` (Windows) the same checks run on paths: open to a race, never to a link left in place.
_HAS_DIR_FD = os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd


def _put_by_path(root: str, parts: list[str], data: bytes, mode: str) -> None:
    folder = root
    for name in parts[:-1]:
        folder = os.path.join(folder, name)
        if os.path.islink(folder) or (os.path.lexists(folder) and not os.path.isdir(folder)):
            os.unlink(folder)
        os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, parts[-1])
    if os.path.isdir(target) and not os.path.islink(target):
        raise UnsafePathError(f"a folder is in the way of '{parts[-1]}'")
    if os.path.lexists(target):
        os.unlink(target)
    if mode == SYMLINK_MODE:
        os.symlink(os.fsdecode(data), target)
        return
    with open(target, "xb") as fh:
        fh.write(data)
    os.chmod(target, 0o755 if mode == EXECUTABLE_MODE else 0o644)


def put_file(root: str, rel: str, data: bytes, mode: str = "100644") -> None:
    """Make `root/rel` hold `data` (a regular file, or a symlink whose target is `data` for mode 120000)."""
    parts = _parts(rel)
    if not _HAS_DIR_FD:
        _put_by_path(root, parts, data, mode)
        return
    parent = _open_parent(root, parts, create=True)
    assert parent is not None
    name = parts[-1]
    try:
        old = _clear(name, parent)
        if mode == SYMLINK_MODE:
            if old is not None:
                os.unlink(name, dir_fd=parent)
            os.symlink(os.fsdecode(data), name, dir_fd=parent)
            return
        if old is not None and stat.S_ISREG(old.st_mode):
            perms = stat.S_IMODE(old.st_mode)
        else:
            perms = 0o755 if mode == EXECUTABLE_MODE else 0o644
        tmp = f".{name}.restore.tmp"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=parent)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(tmp, flags, 0o600, dir_fd=parent)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, perms)
        finally:
            os.close(fd)
        # rename replaces a link itself, never what it points to.
        os.replace(tmp, name, src_dir_fd=parent, dst_dir_fd=parent)
    finally:
        os.close(parent)


def remove_file(root: str, rel: str) -> None:
    """Delete `root/rel` (a link is deleted, not its target); nothing if it, or a folder on the way, is gone."""
    parts = _parts(rel)
    if not _HAS_DIR_FD:
        parent_plain = len(parts) == 1 or is_plain_path(root, "/".join(parts[:-1]))
        if parent_plain and not os.path.isdir(os.path.join(root, *parts)):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(root, *parts))
        return
    parent = _open_parent(root, parts, create=False)
    if parent is None:
        return
    try:
        st = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(parts[-1], dir_fd=parent)
    except FileNotFoundError:
        pass
    finally:
        os.close(parent)


def is_plain_path(root: str, rel: str) -> bool:
    """Every folder on the way to `rel`, and `rel` itself if it exists, is not a link (the editor may write it)."""
    current = root
    for name in _parts(rel):
        current = os.path.join(current, name)
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return False
        except FileNotFoundError:
            return True
    return True
