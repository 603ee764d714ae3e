"""Issue 41 part 4 in real headless Neovim with a real Python language server (jedi-language-server): the agent's
find_definition and rename_symbol are answered by the buffer's server through the plugin, and the rename of a
function across two files is asked about with both diffs and lands through the editor, saved."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.e2e.code_editor import SAMPLE, write_sample
from tests.editors.test_neovim import Nvim, errors
from tests.editors.test_neovim import nvim as nvim  # the fixture
from tests.fakes.fake_llm import FakeLLMServer, Reply

pytestmark = pytest.mark.timeout(200)
JEDI = shutil.which("jedi-language-server") or str(Path(sys.executable).parent / "jedi-language-server")


def test_a_rename_across_two_files_lands_through_neovim_and_its_language_server(
    nvim: Nvim, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    assert Path(JEDI).exists(), "jedi-language-server is a dev dependency (pip install -e '.[dev]')"
    write_sample(workspace)
    # Four emoji before the use: 20 code points, 32 UTF-8 bytes; an unconverted column would point past the line.
    multi = 'from calc import total\nlabel = "😀😀😀😀"; n = total([1])\n'
    (workspace / "multi.py").write_text(multi)
    rename = {"path": "main.py", "line": 4, "symbol": "total", "new_name": "grand_total"}
    fake_llm.script(
        Reply.tool_call("find_definition", {"path": "multi.py", "line": 2, "symbol": "total"}),
        Reply.tool_call("rename_symbol", rename),
        Reply.text("Renamed it."),
    )
    setup = {"prompt": "Rename total to grand_total", "approval": "allow", "jedi_cmd": [JEDI]}
    result = nvim.run("code_rename.lua", setup=setup, timeout=180)
    assert result["jedi_attached"], "jedi-language-server did not attach"
    assert result["waited"] and result["stop_reason"] == "end_turn", result["code"]

    definition = [m["content"] for m in fake_llm.chat_requests()[1].json["messages"] if m["role"] == "tool"][-1]
    assert "calc.py:4\n" in definition and "def total(xs):" in definition, definition
    # The agent counts UTF-8 with Neovim, the plugin converts for the language server.
    first = result["code"][0]
    assert first["kind"] == "definition" and first["position"] == {"line": 1, "character": 32}, result["code"]
    assert first["served"] and first["encoding"] == "utf-32"  # answered in the language server's own units

    assert (workspace / "calc.py").read_text() == SAMPLE["calc.py"].replace("total", "grand_total")
    assert (workspace / "main.py").read_text() == SAMPLE["main.py"].replace("total", "grand_total")
    assert (workspace / "multi.py").read_text() == multi.replace("total", "grand_total")
    assert result["main_buffer"] + "\n" == SAMPLE["main.py"].replace("total", "grand_total")
    assert result["modified"] == []  # every buffer the rename touched was saved
    rename_asked = [a for a in result["asked"] if a["toolCall"]["title"].startswith("Rename")]
    assert len(rename_asked) == 1
    diffs = [c for c in rename_asked[0]["toolCall"]["content"] if c["type"] == "diff"]
    assert sorted(Path(d["path"]).name for d in diffs) == ["calc.py", "main.py", "multi.py"]
    done = [m["content"] for m in fake_llm.chat_requests()[2].json["messages"] if m["role"] == "tool"][-1]
    assert done.startswith("Renamed `total` to `grand_total`") and "in 3 files" in done, done
    assert errors(result) == []
