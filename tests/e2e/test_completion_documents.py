"""Inline completion and the documents it reads, through the real server (issue 38).

A URI the editor never opened is never read: a FIFO, `/dev/zero` and a file outside the workspace answer at once with
no suggestion, and nothing of them reaches the completion server. A 50 MB open document does not stop the server:
while completions are asked for and the user types, another request is answered within a second; and what the
completion server is sent after incremental edits is exactly the edited text around the cursor.
"""

from __future__ import annotations

import asyncio
import errno
import os
import random
import resource
import time
from pathlib import Path
from typing import Any

import pytest

from agent_server.completion.service import Document, split
from tests.e2e.conftest import Start
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient

LLAMACPP_PROPS = {"default_generation_settings": {"n_ctx": 4096}, "model_alias": "qwen2.5-coder"}
SOURCE = "def area(width, height):\n    \n"
PREFIX_LINES, SUFFIX_LINES = 48, 12  # completion's defaults


def options(fake: FakeLLMServer) -> dict[str, Any]:
    llm = {"provider": "openai", "baseUrl": fake.url, "model": fake.models[0].name}
    # No ring or index context: the request holds the document's own prefix and suffix only.
    return {"llm": llm, "completion": {"debounceMs": 0, "contextTokens": 0}}


def llamacpp(fake: FakeLLMServer) -> None:
    """The fake answers as llama.cpp: completion uses /infill, whose body carries prefix and suffix apart."""
    fake.props = LLAMACPP_PROPS
    fake.flavor = "openai"
    fake.default_reply = Reply.text("return 1\n")


def open_doc(client: LspClient, uri: str, text: str, version: int = 1) -> None:
    item = {"uri": uri, "languageId": "python", "version": version, "text": text}
    client.notify("textDocument/didOpen", {"textDocument": item})


def inline(uri: str, line: int, character: int) -> dict[str, Any]:
    return {
        "textDocument": {"uri": uri},
        "position": {"line": line, "character": character},
        "context": {"triggerKind": 2},
    }


def read_bytes(pid: int) -> int:
    """What the process has read so far, in bytes (every read(): files, devices, pipes)."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/PID/io")


async def answers_quickly(client: LspClient, uri: str) -> Any:
    return await client.request("textDocument/inlineCompletion", inline(uri, 0, 0), timeout=10)


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "outside"])
async def test_completion_for_an_unopened_uri_reads_nothing(
    start_server: Start, workspace: Path, tmp_path: Path, fake_llm: FakeLLMServer, kind: str
) -> None:
    llamacpp(fake_llm)
    os.mkfifo(workspace / "pipe.py")
    outside = tmp_path / "elsewhere" / "secret.py"
    outside.parent.mkdir()
    outside.write_text("API_TOKEN = 'OUTSIDE-SECRET-38'\n" * 2000)
    uri = {"fifo": (workspace / "pipe.py").as_uri(), "dev_zero": "file:///dev/zero", "outside": outside.as_uri()}[kind]
    client = await start_server(workspace, options(fake_llm))
    pid = client.proc.pid
    # A safety net, not the check: should /dev/zero ever be read again, the server fails at 1 GiB more instead of
    # taking the machine's memory with it.
    size = int(Path(f"/proc/{pid}/statm").read_text().split()[0]) * resource.getpagesize()
    resource.prlimit(pid, resource.RLIMIT_AS, (size + (1 << 30), size + (1 << 30)))
    # An open document first: completion is loaded and its server checked, so what follows reads no module either.
    mine = (workspace / "geo.py").as_uri()
    open_doc(client, mine, SOURCE)
    assert (await client.request("textDocument/inlineCompletion", inline(mine, 1, 4)))["items"]
    asked = len(fake_llm.fim_requests())
    before = read_bytes(pid)

    assert await answers_quickly(client, uri) == {"items": []}

    assert read_bytes(pid) - before < 64 * 1024  # the request's own bytes, nothing of the file or device
    if kind == "fifo":  # nobody opened the FIFO for reading: a writer that will not wait finds no reader
        with pytest.raises(OSError) as no_reader:
            os.close(os.open(workspace / "pipe.py", os.O_WRONLY | os.O_NONBLOCK))
        assert no_reader.value.errno == errno.ENXIO
    assert len(fake_llm.fim_requests()) == asked  # nothing was sent to the completion server
    assert all("OUTSIDE-SECRET-38" not in str(r.json) for r in fake_llm.requests)
    # The server goes on: the open document still gets its suggestion.
    got = await client.request("textDocument/inlineCompletion", inline(mine, 1, 4), timeout=10)
    assert got["items"][0]["insertText"] == "return 1"


def big_document(megabytes: int) -> str:
    line = "    total = compute_the_value(alpha, beta, gamma)  # keep going\n"
    return "def main():\n" + line * (megabytes * 1_000_000 // len(line))


def apply(text: str, line: int, character: int, end_line: int, end_character: int, new: str) -> str:
    """An LSP range edit on a string (positions in code points: the tests keep to characters of one UTF-16 unit)."""
    lines = text.split("\n")
    start = sum(len(x) + 1 for x in lines[:line]) + character
    end = sum(len(x) + 1 for x in lines[:end_line]) + end_character
    return text[:start] + new + text[end:]


def change(line: int, character: int, end_line: int, end_character: int, new: str) -> dict[str, Any]:
    rng = {"start": {"line": line, "character": character}, "end": {"line": end_line, "character": end_character}}
    return {"range": rng, "text": new}


def expected(text: str, line: int, character: int) -> tuple[str, str]:
    """The prefix and suffix completion takes from the whole text (the reference: split over every line)."""
    parts = split(Document("k", "big.py", text, line, character), PREFIX_LINES, SUFFIX_LINES)
    return parts.prefix, parts.suffix


def sent(fake: FakeLLMServer) -> tuple[str, str]:
    body = fake.fim_requests()[-1].json
    assert body is not None
    return body["input_prefix"] + body["prompt"], body["input_suffix"]


async def test_a_50_mb_document_keeps_the_server_answering_while_the_user_types(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    llamacpp(fake_llm)
    client = await start_server(workspace, options(fake_llm))
    uri = (workspace / "big.py").as_uri()
    text = big_document(50)
    open_doc(client, uri, text)
    await client.request("agent/_permissions/list", {}, timeout=120)  # the open is processed
    last = text.count("\n") - 1
    slowest = 0.0
    version = 1
    for step in range(6):
        # Three keystrokes near the end (the far side of the document from its start), then a completion there,
        # and meanwhile something else the editor asks: all sent at once, as an editor does.
        line = last - 10 * step
        typed = [change(line, 4 + i, line, 4 + i, "x") for i in range(3)]
        for edit in typed:
            version += 1
            client.notify(
                "textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [edit]}
            )
        _, completion = client.request_nowait("textDocument/inlineCompletion", inline(uri, line, 7))
        began = time.monotonic()
        await client.request("agent/_permissions/list", {}, timeout=60)
        slowest = max(slowest, time.monotonic() - began)
        await asyncio.wait_for(completion, 60)
        text = apply(text, line, 4, line, 4, "xxx")
        assert sent(fake_llm) == expected(text, line, 7)
    assert slowest < 1.0, f"another request waited {slowest:.2f} s behind a 50 MB document"


async def test_incremental_edits_keep_the_text_the_completion_server_sees(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """Seeded random edits (inserts, deletions and replacements across lines and across the document's internal
    chunks, form feeds and non-ASCII text included), several per didChange; after each, the prefix and suffix sent
    to the completion server are those of the same edits applied to a plain string."""
    llamacpp(fake_llm)
    client = await start_server(workspace, options(fake_llm))
    uri = (workspace / "edited.py").as_uri()
    rng = random.Random(38)
    words = ["x", "é", " = 1", "\n", "\n    ", "\x0c", "def f():\n    return 2\n", "ü" * 3000, ""]
    text = "".join(f"line_{i} = {i}  # ünïcödé\x0c tail\n" for i in range(8000))  # ~300 kB: several chunks
    open_doc(client, uri, text)
    for version in range(2, 40):
        changes = []
        for _ in range(rng.randint(1, 3)):
            lines = text.split("\n")
            line = rng.randrange(len(lines))
            character = rng.randint(0, len(lines[line]))
            end_line = min(len(lines) - 1, line + rng.choice([0, 0, 1, 3]))
            end_character = rng.randint(0, len(lines[end_line])) if end_line > line else character
            if end_line == line:
                end_character = min(len(lines[line]), character + rng.choice([0, 0, 1, 7]))
            new = rng.choice(words)
            changes.append(change(line, character, end_line, end_character, new))
            text = apply(text, line, character, end_line, end_character, new)
        client.notify(
            "textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}
        )
        lines = text.split("\n")
        line = rng.randrange(len(lines))
        character = rng.randint(0, min(len(lines[line]), 200))
        await client.request("textDocument/inlineCompletion", inline(uri, line, character), timeout=30)
        assert sent(fake_llm) == expected(text, line, character), f"after version {version}"
