"""Every position the server sends or reads is in the encoding negotiated at `initialize`.

The client here keeps its own buffers and counts positions the way the editor that offered the encoding does
(Neovim: utf-8 bytes, VS Code: utf-16 units), independently of the server's code: applyEdit ranges it receives and
didChange ranges it sends are both in that encoding. Non-ASCII text sits at the start, in the middle and on a last
line without newline, with astral characters and combining marks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import answer_permissions, prompt
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient

TEXT = "日本 start 🎉\nmid x\u0301y 🏁 tail\nlast 日本 🎉 the END 🏁"
_CODECS = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2)}


def _offset(text: str, line: int, character: int, encoding: str) -> int:
    codec, width = _CODECS[encoding]
    lines = text.split("\n")
    if line >= len(lines):
        return len(text)
    start = sum(len(x) + 1 for x in lines[:line])
    raw = lines[line].encode(codec)
    assert character * width <= len(raw), f"position {line}:{character} is past the end of {lines[line]!r}"
    # strict decoding: a position inside a character (a split UTF-8 sequence or surrogate pair) fails here
    return start + len(raw[: character * width].decode(codec))


class Editor:
    """Open buffers, edited by the server's applyEdit and by the user (didChange), positions in one encoding."""

    def __init__(self, client: LspClient, encoding: str) -> None:
        self.client, self.encoding = client, encoding
        self.buffers: dict[Path, str] = {}
        self.versions: dict[Path, int] = {}
        client.handlers["workspace/applyEdit"] = self._apply

    def open(self, path: Path) -> None:
        self.buffers[path] = path.read_text()
        self.versions[path] = 1
        self.client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": path.as_uri(), "languageId": "text", "version": 1, "text": self.buffers[path]}},
        )

    def type_at(self, path: Path, line: int, index: int, new: str) -> None:
        """The user types `new` before the code point `index` of `line`."""
        text = self.buffers[path]
        line_text = text.split("\n")[line]
        codec, width = _CODECS[self.encoding]
        character = len(line_text[:index].encode(codec)) // width
        at = _offset(text, line, character, self.encoding)
        self.buffers[path] = text[:at] + new + text[at:]
        self.versions[path] += 1
        where = {"line": line, "character": character}
        self.client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": path.as_uri(), "version": self.versions[path]},
                "contentChanges": [{"range": {"start": where, "end": where}, "text": new}],
            },
        )

    def _apply(self, params: dict[str, Any]) -> dict[str, Any]:
        for change in params["edit"].get("documentChanges") or []:
            if change.get("kind"):
                continue
            path = Path(unquote(urlparse(change["textDocument"]["uri"]).path))
            text = self.buffers[path] if path in self.buffers else path.read_text()
            spans = []
            for e in change["edits"]:
                r = e["range"]
                start = _offset(text, r["start"]["line"], r["start"]["character"], self.encoding)
                end = _offset(text, r["end"]["line"], r["end"]["character"], self.encoding)
                spans.append((start, end, e["newText"]))
            for start, end, new in sorted(spans, reverse=True):
                text = text[:start] + new + text[end:]
            if path in self.buffers:
                self.buffers[path] = text
            path.write_text(text)  # like an editor that saves at once
        return {"applied": True}


async def start(start_server: Start, workspace: Path, fake_llm: FakeLLMServer, encoding: str) -> Editor:
    caps = {
        "general": {"positionEncodings": [encoding]},
        "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True, "resourceOperations": ["create"]}},
        "window": {"workDoneProgress": True, "showMessage": {}},
    }
    client = await start_server(workspace, llm_options(fake_llm), capabilities=caps)
    return Editor(client, encoding)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("日本 start", "始め start"),  # the first characters of the file
        ("x\u0301y 🏁", "ÿ 🎌"),  # the middle, after a combining mark and an astral character
        ("the END 🏁", "the end ✅ 🐍"),  # the end of a last line without newline
    ],
)
async def test_agent_edits_land_exactly_in_the_open_buffer(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, encoding: str, old: str, new: str
) -> None:
    target = workspace / "notes.txt"
    target.write_text(TEXT)
    editor = await start(start_server, workspace, fake_llm, encoding)
    answer_permissions(editor.client, "allow_once")
    editor.open(target)
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "notes.txt", "old_text": old, "new_text": new}), Reply.text("done")
    )
    sid = await new_session(editor.client, workspace)
    assert await prompt(editor.client, sid, "edit notes") == "end_turn"
    assert editor.buffers[target] == TEXT.replace(old, new)
    assert target.read_text() == TEXT.replace(old, new)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
async def test_overwrite_typing_and_checkpoint_restore_keep_the_buffer_exact(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, encoding: str
) -> None:
    target = workspace / "notes.txt"
    target.write_text(TEXT)
    editor = await start(start_server, workspace, fake_llm, encoding)
    answer_permissions(editor.client, "allow_once")
    editor.open(target)
    # The user types after the astral character on the last line: the server must read that range in its encoding.
    editor.type_at(target, 2, TEXT.split("\n")[2].index("🎉") + 1, " typed 🐍")
    rewritten = "rewritten 🎌\nlast é 🏁"
    fake_llm.script(
        Reply.tool_call("read_file", {"path": "notes.txt"}),
        Reply.tool_call("write_file", {"path": "notes.txt", "content": rewritten}),
        Reply.text("done"),
    )
    sid = await new_session(editor.client, workspace)
    assert await prompt(editor.client, sid, "rewrite notes") == "end_turn"
    read_result = [m for m in fake_llm.chat_requests()[1].json["messages"] if m["role"] == "tool"][-1]["content"]
    assert "🎉 typed 🐍 the END 🏁" in read_result
    assert editor.buffers[target] == rewritten

    # Restoring the checkpoint (taken from disk before the turn, without the unsaved typing) replaces the whole open
    # buffer, whose range ends after a last line of non-ASCII text.
    [ckpt] = (await editor.client.request("agent/_checkpoints/list", {"sessionId": sid}))["checkpoints"]
    restored = await editor.client.request("agent/_checkpoints/restore", {"checkpointId": ckpt["id"]})
    assert restored["restored"]
    assert editor.buffers[target] == TEXT
