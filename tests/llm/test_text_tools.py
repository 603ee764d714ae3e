"""Tool calls recovered from text: every recognized form, offered names only, nothing inside <think>."""

from __future__ import annotations

import pytest

from agent_server.llm.base import ToolSpec
from agent_server.llm.prompt_tool_mode import render_tool_prompt
from agent_server.llm.text_tools import recover_tool_calls

NAMES = {"read_file", "grep", "mcp.github.create_issue"}

CASES = [
    ('{"name": "read_file", "arguments": {"path": "a.py"}}', [("read_file", {"path": "a.py"})], ""),
    ('{"name": "read_file", "parameters": {"path": "a.py"}}', [("read_file", {"path": "a.py"})], ""),
    ('{"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}', [("read_file", {"path": "a.py"})], ""),
    (
        'I will read it.\n```json\n{"name": "read_file", "arguments": {"path": "a"}}\n```',
        [("read_file", {"path": "a"})],
        "I will read it.",
    ),
    ('```tool\n{"name": "grep", "arguments": {"pattern": "x"}}\n```', [("grep", {"pattern": "x"})], ""),
    ('<tool_call>{"name": "grep", "arguments": {"pattern": "x"}}</tool_call>', [("grep", {"pattern": "x"})], ""),
    (
        '<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>\n<tool_call>{"name":"grep","arguments":{}}</tool_call>',
        [("read_file", {"path": "a"}), ("grep", {})],
        "",
    ),
    (
        "<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a.py\n</parameter>\n<parameter=start>\n3\n</parameter>\n</function>\n</tool_call>",
        [("read_file", {"path": "src/a.py", "start": 3})],
        "",
    ),
    (
        '[TOOL_REQUEST]{"name": "read_file", "arguments": {"path": "b"}}[END_TOOL_REQUEST]',
        [("read_file", {"path": "b"})],
        "",
    ),
    (
        '<tool>{"server_name": "github", "tool_name": "create_issue", "arguments": {"title": "t"}}</tool>',
        [("mcp.github.create_issue", {"title": "t"})],
        "",
    ),
    (
        '[{"name": "read_file", "arguments": {"path": "a"}}, {"name": "grep", "arguments": {}}]',
        [("read_file", {"path": "a"}), ("grep", {})],
        "",
    ),
    ('{"name": "delete_everything", "arguments": {}}', [], '{"name": "delete_everything", "arguments": {}}'),
    ('<think>maybe {"name": "read_file", "arguments": {"path": "x"}}</think>The answer is 4.', [], "The answer is 4."),
    ('Use {"a": 1} as config.', [], 'Use {"a": 1} as config.'),
    ("Plain answer with no calls.", [], "Plain answer with no calls."),
]


@pytest.mark.parametrize(("text", "calls", "visible"), CASES)
def test_recover(text: str, calls: list[tuple[str, dict[str, object]]], visible: str) -> None:
    found, rest = recover_tool_calls(text, NAMES)
    assert [(c.name, c.arguments) for c in found] == calls
    assert rest == visible
    assert all(c.id.startswith("call_") and c.arguments_error is None for c in found)


def test_bad_argument_json_is_flagged() -> None:
    found, _ = recover_tool_calls('<tool_call>{"name": "grep", "arguments": "{oops"}</tool_call>', NAMES)
    assert found[0].name == "grep" and "not valid JSON" in str(found[0].arguments_error)


def test_prompt_section_lists_tools_and_the_calling_form() -> None:
    spec = ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}})
    text = render_tool_prompt([spec])
    assert "## read_file" in text and "Read a file." in text and '"path"' in text and "<tool_call>" in text
    example = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>'
    assert recover_tool_calls(example, {"read_file"})[0][0].arguments == {"path": "a"}
    assert render_tool_prompt([]) == ""


def test_arguments_written_beside_the_name_are_the_arguments() -> None:
    from agent_server.llm.text_tools import recover_tool_calls

    calls, visible = recover_tool_calls(
        '```json\n{"name": "task_completion", "summary": "Done"}\n```', {"task_completion"}
    )
    assert [(c.name, c.arguments) for c in calls] == [("task_completion", {"summary": "Done"})]
    assert visible == ""
