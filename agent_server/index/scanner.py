"""Walk a workspace the way git sees it: nested `.gitignore` files, no binaries, no huge files."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pathspec

from ..errors import SandboxError
from ..tools.sandbox import read_regular

ALWAYS_SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", ".idea", ".eggs", ".cache"}
)  # fmt: skip
BINARY_SUFFIXES = frozenset(
    """.png .jpg .jpeg .gif .bmp .ico .webp .pdf .zip .gz .tgz .bz2 .xz .7z .tar .jar .war .class .so .dylib .dll .exe
    .o .a .obj .lib .pyc .pyo .whl .bin .dat .db .sqlite .sqlite3 .woff .woff2 .ttf .otf .eot .mp3 .mp4 .wav .ogg
    .mov .avi .mkv .psd .npy .npz .pkl .pickle .parquet .onnx .pt .gguf .safetensors .lock""".split()
)
SNIFF_BYTES = 8192


@dataclass(frozen=True)
class ScannedFile:
    """One candidate file: workspace-relative posix path plus the stat fields the catalog compares."""

    path: str
    size: int
    mtime_ns: int


def looks_binary(head: bytes) -> bool:
    """Git's rule of thumb: a NUL byte in the first few KiB means binary."""
    return b"\x00" in head[:SNIFF_BYTES]


class Scanner:
    """Lists indexable files under `root`; also answers whether one path would be indexed (for the watcher)."""

    def __init__(self, root: Path, max_file_bytes: int = 1_000_000) -> None:
        self.root = root.resolve()
        self.max_file_bytes = max_file_bytes
        self._specs: dict[str, Any] = {}

    def _spec(self, rel_dir: str) -> Any:
        """The compiled `.gitignore` of one directory (rel_dir '' is the root), cached."""
        if rel_dir not in self._specs:
            spec = None
            ignore = self.root / rel_dir / ".gitignore"
            try:
                # A regular file only, and only its first megabyte: `.gitignore -> /dev/zero` must not hang us.
                data = read_regular(ignore, 1_000_000, truncate=True)
                spec = pathspec.GitIgnoreSpec.from_lines(data.decode("utf-8", errors="replace").splitlines())
            except (OSError, SandboxError):
                pass
            self._specs[rel_dir] = spec
        return self._specs[rel_dir]

    def invalidate(self, rel_path: str) -> None:
        """Forget a cached `.gitignore` after it changed."""
        self._specs.pop(rel_path.rsplit("/", 1)[0] if "/" in rel_path else "", None)

    def _ignored(self, rel_path: str, is_dir: bool) -> bool:
        parts = rel_path.split("/")
        if any(p in ALWAYS_SKIP_DIRS for p in (parts if is_dir else parts[:-1])):
            return True
        # Each ancestor's .gitignore matches paths relative to that ancestor; the deepest verdict wins.
        verdict = False
        for depth in range(len(parts)):
            spec = self._spec("/".join(parts[:depth]))
            if spec is None:
                continue
            sub = "/".join(parts[depth:]) + ("/" if is_dir else "")
            result = spec.check_file(sub)
            if result.include is not None:
                verdict = bool(result.include)
        return verdict

    def accepts(self, path: Path) -> str | None:
        """The workspace-relative path if `path` is an indexable file by name and location, else None."""
        try:
            rel = path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None
        if rel == "." or PurePosixPath(rel).suffix.lower() in BINARY_SUFFIXES:
            return None
        parts = rel.split("/")
        for i in range(1, len(parts)):
            if self._ignored("/".join(parts[:i]), is_dir=True):
                return None
        return None if self._ignored(rel, is_dir=False) else rel

    def walk(self, under: str = "") -> Iterator[ScannedFile]:
        """Every indexable file (size-filtered; binary content is checked when the file is read), of the workspace or
        of its folder `under` (workspace-relative; whether that folder itself is ignored is `accepts`'s to say)."""
        stack = [under]
        while stack:
            rel_dir = stack.pop()
            try:
                entries = sorted(os.scandir(self.root / rel_dir), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                try:
                    if entry.is_symlink():
                        continue
                    if entry.is_dir():
                        if entry.name not in ALWAYS_SKIP_DIRS and not self._ignored(rel, is_dir=True):
                            stack.append(rel)
                        continue
                    if not entry.is_file() or PurePosixPath(entry.name).suffix.lower() in BINARY_SUFFIXES:
                        continue
                    st = entry.stat()
                except OSError:
                    continue
                # A hard link may share its content with a file outside the workspace (tools/sandbox.py refuses it).
                if st.st_size > self.max_file_bytes or st.st_nlink > 1 or self._ignored(rel, is_dir=False):
                    continue
                yield ScannedFile(rel, st.st_size, st.st_mtime_ns)
