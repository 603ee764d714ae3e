"""The workspace index through its public facade, on real files, real SQLite and real watchfiles."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_server.index.chunker import chunk_text
from agent_server.index.scanner import Scanner
from agent_server.index.tokenize import split_identifier
from agent_server.index.workspace_index import WorkspaceIndex

SAMPLES = {
    "a.py": ("class Greeter:\n    def greet(self):\n        return 1\n\ndef helper_fn():\n    pass\n", {"Greeter", "helper_fn"}),
    "a.js": ("function loadConfig() {}\nclass Widget { render() { return 1 } }\nconst mk = () => 2;\n", {"loadConfig", "Widget", "mk"}),
    "a.ts": ("interface Shape { area(): number }\nexport function makeShape(): Shape { return null as any }\n", {"Shape", "makeShape"}),
    "a.go": ("package a\n\ntype Server struct{}\n\nfunc (s *Server) Start() {}\n\nfunc NewServer() *Server { return nil }\n", {"Server", "Start", "NewServer"}),
    "a.rs": ("struct Parser;\nimpl Parser {\n    fn parse(&self) {}\n}\nfn tokenize() {}\n", {"Parser", "tokenize"}),
    "A.java": ("class Account {\n  void deposit(int n) {}\n}\ninterface Ledger {}\n", {"Account", "Ledger"}),
    "a.c": ("struct point { int x; };\nint add_numbers(int a, int b) { return a + b; }\n", {"point", "add_numbers"}),
    "a.cpp": ("class Matrix {\n public:\n  void invert() {}\n};\nint Matrix_det() { return 0; }\n", {"Matrix", "Matrix_det"}),
    "a.lua": ("local function build_menu(x)\n  return x\nend\nfunction M.open_window() end\n", {"build_menu", "M.open_window"}),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_each_language_is_chunked_by_symbol(name: str) -> None:
    text, expected = SAMPLES[name]
    symbols = {c.symbol for c in chunk_text(name, text).chunks}
    assert expected <= symbols


def test_unknown_language_gets_line_windows() -> None:
    text = "\n".join(f"line {i}" for i in range(150))
    chunks = chunk_text("notes.txt", text).chunks
    assert [c.start_line for c in chunks] == [1, 61, 121]
    assert chunks[-1].end_line == 150


def test_identifier_splitting() -> None:
    assert split_identifier("parseHTTPResponse") == ["parse", "http", "response"]
    assert split_identifier("snake_case_name") == ["snake", "case", "name"]
    assert split_identifier("getURL2Path") == ["get", "url", "2", "path"]


def test_scanner_respects_gitignore_binary_and_size(workspace: Path) -> None:
    (workspace / ".gitignore").write_text("*.log\nbuild/\n")
    (workspace / "keep.py").write_text("x = 1\n")
    (workspace / "debug.log").write_text("noise\n")
    (workspace / "build").mkdir()
    (workspace / "build" / "out.py").write_text("y = 2\n")
    (workspace / "sub").mkdir()
    (workspace / "sub" / ".gitignore").write_text("secret.py\n")
    (workspace / "sub" / "secret.py").write_text("z = 3\n")
    (workspace / "sub" / "open.py").write_text("w = 4\n")
    (workspace / "big.py").write_text("a = 1\n" * 1000)
    (workspace / "image.png").write_bytes(b"\x89PNG\x00\x00")
    paths = {f.path for f in Scanner(workspace, max_file_bytes=2000).walk()}
    assert paths == {".gitignore", "keep.py", "sub/.gitignore", "sub/open.py"}


async def test_binary_content_is_not_indexed(workspace: Path, tmp_path: Path) -> None:
    (workspace / "blob.dat2").write_bytes(b"abc\x00def needle_word")
    (workspace / "text.py").write_text("needle_word = 1\n")
    index = WorkspaceIndex(workspace, tmp_path / "i.db")
    await index.build()
    assert {h.path for h in await index.search("needle_word")} == {"text.py"}
    index.close()


@pytest.fixture
def fixture_repo(workspace: Path) -> Path:
    (workspace / "app").mkdir()
    (workspace / "app" / "http.py").write_text(
        "def parse_response(raw):\n    header, body = raw.split('\\n\\n')\n    return decode_body(body)\n\n"
        "def decode_body(body):\n    return body.decode('utf-8')\n"
    )
    (workspace / "app" / "models.py").write_text(
        "class UserAccount:\n    def __init__(self, name):\n        self.name = name\n\n"
        "    def display_name(self):\n        return self.name.title()\n"
    )
    (workspace / "app" / "views.py").write_text(
        "from app.models import UserAccount\n\ndef show_user(name):\n    user = UserAccount(name)\n"
        "    return user.display_name()\n"
    )
    (workspace / "README.md").write_text("# Demo\nA demo app that shows a user account.\n")
    return workspace


async def test_queries_rank_the_right_file_first(fixture_repo: Path, tmp_path: Path) -> None:
    index = WorkspaceIndex(fixture_repo, tmp_path / "i.db")
    await index.build()
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/proj/app/views.py", line 4, in show_user\n'
        '  File "/home/u/proj/app/http.py", line 6, in decode_body\n'
        "AttributeError: 'str' object has no attribute 'decode'\n"
    )
    assert (await index.search(trace))[0].path == "app/http.py"
    assert (await index.search("where is app/models.py"))[0].path == "app/models.py"
    assert (await index.search("UserAccount displayName"))[0].path == "app/models.py"
    hit = (await index.search("parse_response"))[0]
    assert (hit.path, hit.symbol, hit.start_line) == ("app/http.py", "parse_response", 1)
    assert all(h.path.startswith("app/views") for h in await index.search("user", path_prefix="app/views"))
    index.close()


async def test_restart_skips_unchanged_and_deletion_is_removed(fixture_repo: Path, tmp_path: Path) -> None:
    db = tmp_path / "i.db"
    index = WorkspaceIndex(fixture_repo, db)
    first = await index.build()
    index.close()
    assert first.files_processed == 4
    (fixture_repo / "app" / "http.py").write_text("def brand_new_function():\n    return 1\n")
    (fixture_repo / "app" / "views.py").unlink()
    index = WorkspaceIndex(fixture_repo, db)
    second = await index.build()
    assert (second.files_processed, second.files_removed) == (1, 1)
    assert (await index.search("brand_new_function"))[0].path == "app/http.py"
    assert not [h for h in await index.search("show_user") if h.path == "app/views.py"]
    index.close()


async def test_cancel_stops_a_build_and_the_next_build_resumes(workspace: Path, tmp_path: Path) -> None:
    for i in range(300):
        (workspace / f"mod_{i}.py").write_text(f"def function_{i}():\n    return {i}\n")
    cancel = asyncio.Event()

    async def progress(done: int, total: int, path: str) -> None:
        if done >= 64:
            cancel.set()

    index = WorkspaceIndex(workspace, tmp_path / "i.db")
    partial = await index.build(progress, cancel)
    assert partial.cancelled and 0 < partial.files_processed < 300
    rest = await index.build()
    assert not rest.cancelled
    assert rest.files_processed == 300 - partial.files_processed
    assert index.status().files == 300
    index.close()


async def test_update_file_from_editor_buffer_and_remove(fixture_repo: Path, tmp_path: Path) -> None:
    index = WorkspaceIndex(fixture_repo, tmp_path / "i.db")
    await index.build()
    await index.update_file(fixture_repo / "app" / "views.py", "def unsaved_buffer_symbol():\n    pass\n")
    assert (await index.search("unsaved_buffer_symbol"))[0].path == "app/views.py"
    await index.remove_file(fixture_repo / "app" / "views.py")
    assert not await index.search("unsaved_buffer_symbol")
    index.close()


async def test_edit_is_searchable_after_the_watcher_fires(fixture_repo: Path, tmp_path: Path) -> None:
    index = WorkspaceIndex(fixture_repo, tmp_path / "i.db")
    await index.build()
    index.start_watching()
    await asyncio.sleep(0.3)  # let the watcher register before editing
    (fixture_repo / "app" / "fresh.py").write_text("def watcher_saw_this():\n    return 1\n")
    found: list[str] = []
    for _ in range(100):
        found = [h.path for h in await index.search("watcher_saw_this")]
        if found:
            break
        await asyncio.sleep(0.1)
    (fixture_repo / "app" / "fresh.py").unlink()
    gone = found
    for _ in range(100):
        gone = [h.path for h in await index.search("watcher_saw_this")]
        if not gone:
            break
        await asyncio.sleep(0.1)
    await index.stop_watching()
    index.close()
    assert found == ["app/fresh.py"]
    assert gone == []


def _cli(args: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_server.index.cli", *args], cwd=cwd, input=stdin, capture_output=True,
        text=True, timeout=60,
    )  # fmt: skip


def test_cli_index_and_search_json(fixture_repo: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    done = _cli(["index", str(fixture_repo), "--db", db], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "4 files" in done.stderr
    out = _cli(["search", "--json", "--limit", "3", "--db", db, "-"], fixture_repo, stdin="display_name of UserAccount")
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)
    assert 0 < len(hits) <= 3
    assert hits[0]["path"] == "app/models.py"
    assert {"path", "start_line", "end_line", "score"} <= set(hits[0])
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    bad = _cli(["search", "--db", db, "x", "--workspace", str(tmp_path / "missing")], tmp_path)
    assert bad.returncode != 0 and "not a directory" in bad.stderr


async def test_an_index_from_an_older_version_is_rebuilt_not_misread(fixture_repo: Path, tmp_path: Path) -> None:
    db = tmp_path / "i.db"
    index = WorkspaceIndex(fixture_repo, db)
    await index.build()
    index.db.set_meta("schema_version", "0")  # what an older release would have left behind
    index.close()
    index = WorkspaceIndex(fixture_repo, db)
    assert index.status().files == 0
    again = await index.build()
    assert again.files_processed == 4
    assert (await index.search("parse_response"))[0].path == "app/http.py"
    index.close()


async def test_a_large_build_in_worker_processes_matches_a_file_by_file_update(workspace: Path, tmp_path: Path) -> None:
    for i in range(200):
        (workspace / f"mod_{i}.py").write_text(f"class Model{i}:\n    def save_record_{i}(self):\n        return {i}\n")
    index = WorkspaceIndex(workspace, tmp_path / "i.db")
    stats = await index.build()
    assert (stats.files_processed, stats.chunks) == (200, 200)
    hit = (await index.search("save_record_137"))[0]
    assert (hit.path, hit.symbol) == ("mod_137.py", "Model137")
    await index.update_file(workspace / "mod_137.py", "def renamed_helper():\n    return 1\n")
    assert (await index.search("renamed_helper"))[0].path == "mod_137.py"
    assert not [h for h in await index.search("save_record_137") if "save_record_137" in h.snippet]
    index.close()


async def _search_until(index: WorkspaceIndex, query: str, wanted: list[str]) -> list[str]:
    found: list[str] = []
    for _ in range(100):
        found = sorted({h.path for h in await index.search(query)})
        if found == wanted:
            break
        await asyncio.sleep(0.1)
    return found


async def test_a_folder_moved_in_renamed_or_moved_out_is_followed_file_by_file(
    fixture_repo: Path, tmp_path: Path
) -> None:
    # A moved folder brings one event for the folder, none for its files: a renamed package must not leave its old
    # paths in the index, nor be missing under its new name.
    index = WorkspaceIndex(fixture_repo, tmp_path / "i.db")
    await index.build()
    index.start_watching()
    await asyncio.sleep(0.3)  # let the watcher register
    staged = tmp_path / "plugins"
    (staged / "deep").mkdir(parents=True)
    (staged / "loader.py").write_text("def moved_in_loader():\n    return 1\n")
    (staged / "deep" / "hook.py").write_text("def moved_in_hook():\n    return 2\n")
    staged.rename(fixture_repo / "plugins")
    moved_in = await _search_until(
        index, "moved_in_loader moved_in_hook", ["plugins/deep/hook.py", "plugins/loader.py"]
    )
    (fixture_repo / "plugins").rename(fixture_repo / "extensions")
    renamed = await _search_until(
        index, "moved_in_loader moved_in_hook", ["extensions/deep/hook.py", "extensions/loader.py"]
    )
    (fixture_repo / "extensions").rename(tmp_path / "away")
    gone = await _search_until(index, "moved_in_loader moved_in_hook", [])
    await index.stop_watching()
    index.close()
    assert moved_in == ["plugins/deep/hook.py", "plugins/loader.py"]
    assert renamed == ["extensions/deep/hook.py", "extensions/loader.py"]
    assert gone == []
