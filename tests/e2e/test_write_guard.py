"""Issue 37, "do no harm", through the real server: a write that breaks a file's syntax, or replaces most of a file
the request did not ask to rewrite, is refused before anyone is asked, the model is told why, and the file stays as
it was; the model's corrected write, and a real whole-file fix of one line, land. In both edit formats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import answer_permissions, install_apply_edit, prompt, sent_messages, tool_results
from tests.fakes.fake_llm import FakeLLMServer, Reply

# A 400-line module with a bug in one function (f57 adds where it should subtract).
MODULE = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(100))
FIXED = MODULE.replace("return x + 57\n", "return x - 57\n")
BROKEN = FIXED.replace("def f57(x):", "def f57(x)")  # the fix, with the colon lost on the way
README = "# Numbers\n\n" + "".join(f"- f{i} adds {i} to its argument.\n" for i in range(58))


def options(fake: FakeLLMServer, edit_format: str) -> dict[str, Any]:
    return {**llm_options(fake), "agent": {"editFormat": edit_format}}


def told(fake: FakeLLMServer, index: int) -> str:
    """Everything the model was sent in request `index` after its answers: tool results and the user's turns."""
    return "\n".join(str(m["content"]) for m in sent_messages(fake, index) if m["role"] in ("tool", "user"))


async def test_a_tool_call_that_breaks_a_module_is_refused_before_approval_and_the_fix_lands(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "nums.py").write_text(MODULE)
    fake_llm.script(
        Reply.tool_call("write_file", {"path": "nums.py", "content": BROKEN}),
        Reply.tool_call("write_file", {"path": "nums.py", "content": FIXED}),
        Reply.text("Fixed f57."),
    )
    client = await start_server(workspace, options(fake_llm, "tools"))
    asked = answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "f57 in nums.py should subtract; fix it") == "end_turn"
    # The broken write was never put to the user; the model read the parser's line and message.
    [refusal, landed] = tool_results(sent_messages(fake_llm, 2))
    assert "nums.py would no longer parse as Python" in refusal and "line 229" in refusal, refusal
    assert "expected ':'" in refusal and "Nothing was written" in refusal
    assert len(asked) == 1 and asked[0]["toolCall"]["rawInput"]["content"] == FIXED
    assert "Overwrote nums.py" in landed
    assert (workspace / "nums.py").read_text() == FIXED


async def test_a_files_answer_that_replaces_the_readme_in_a_bug_fix_is_refused(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "README.md").write_text(README)
    (workspace / "nums.py").write_text(MODULE)
    unrelated = "".join(f"Step {i}: run the tests.\n" for i in range(10))
    fake_llm.script(Reply.text(f"README.md\n```markdown\n{unrelated}```\n"), Reply.text("Sorry, I will not."))
    client = await start_server(workspace, options(fake_llm, "files"))
    asked = answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Fix the bug in nums.py: f57 should subtract. See README.md.") == "end_turn"
    assert (workspace / "README.md").read_text() == README
    assert asked == []
    said = told(fake_llm, 1)
    assert "would replace most of README.md: it keeps 0 of its 59 lines" in said, said
    assert "SEARCH/REPLACE" in said


async def test_a_re_typed_module_that_does_not_parse_is_refused_and_a_whole_file_one_line_fix_lands(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    # The case: the model re-types the whole module and sends it back unparseable. (Written whole today:
    # a block that does not parse is never merged as an excerpt.) Then it sends the file right: that lands.
    (workspace / "nums.py").write_text(MODULE)
    fake_llm.script(
        Reply.text(f"nums.py\n```python\n{BROKEN}```\n"),
        Reply.text(f"nums.py\n```python\n{FIXED}```\n"),
        Reply.text("Done."),
    )
    client = await start_server(workspace, options(fake_llm, "files"))
    asked = answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Fix the bug in nums.py: f57 should subtract.") == "end_turn"
    said = told(fake_llm, 1)
    assert "nums.py would no longer parse as Python (line 229: expected ':'" in said, said
    assert [a["toolCall"]["rawInput"]["content"] for a in asked] == [FIXED]
    assert (workspace / "nums.py").read_text() == FIXED
