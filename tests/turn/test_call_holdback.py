"""What the user sees of streamed text that may be a tool call: held until known, calls never shown, nothing lost."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agent_server.turn.guards.call_holdback import CallHoldback
from agent_server.turn.guards.unlooked_files import named_files


def shown(text: str, cuts: list[int]) -> tuple[str, list[str]]:
    hold = CallHoldback()
    out, start = [], 0
    for cut in [*sorted({c % (len(text) + 1) for c in cuts}), len(text)]:
        out.append(hold.feed(text[start:cut]))
        start = cut
    out.append(hold.close())
    return "".join(out), hold.hidden


CASES = [
    ('Reading it.\n{"name": "read_file", "arguments": {"path": "a.py"}}', "Reading it.\n"),
    ('```json\n{"name": "add", "arguments": {"a": 2}}\n```\nDone.', "Done."),
    ('Use <tool_call>{"name": "x", "arguments": {}}</tool_call> then more.', "Use then more."),
    ('{"name": "a", "arguments": {}}\n\n{"name": "a", "arguments": {}}\n\n', ""),
    ('<tool_call>\n{"name": "list_directory", "arguments": {}}\n</tool_call>', ""),
    ("<function=read_file><parameter=path>a.py</parameter></function>", ""),
    ('[{"name": "a", "arguments": {}}, {"name": "b", "parameters": {}}]', ""),
    ('{"name": "read_file", "argu', ""),  # cut short by the stream's end: still a call
]
PROSE = [
    "Use a dict like {} or {1: 2}; sets are {1, 2}.",
    'Config: {"debug": true, "level": 3} is valid JSON.',
    '```python\nd = {"name": "x", "arguments": 1}\nprint(d)\n```\nThat is code.',
    "Compare a < b and [1, 2] with `x` and ``y``.",
    "",
]


@given(st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_calls_are_never_shown_however_the_stream_is_cut(cuts: list[int]) -> None:
    for text, visible in CASES:
        out, hidden = shown(text, cuts)
        assert out == visible, text
        assert hidden


@given(st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_prose_and_code_come_out_unchanged_however_the_stream_is_cut(cuts: list[int]) -> None:
    for text in PROSE:
        out, hidden = shown(text, cuts)
        assert out == text
        assert hidden == []


def test_text_before_a_possible_call_is_shown_at_once() -> None:
    hold = CallHoldback()
    assert hold.feed("Let me check. ") == "Let me check."  # the space waits: a call may follow
    assert hold.feed('{"na') == ""  # may be a call: held
    assert hold.feed('me": "read_file", "arguments": {}} ok') == " ok"  # one separator, not two


def test_named_files_are_existing_workspace_files_only(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x")
    (tmp_path / "calc.py").write_text("x")
    text = "Read calc.py and src/app.py, not missing.py nor ../etc/passwd or e.g. version 1.2."
    assert named_files(text, [tmp_path]) == ["calc.py", "src/app.py"]


def test_a_named_picture_is_not_a_file_to_read_first(tmp_path: Path) -> None:
    """`#image shot.png` attaches the picture: the model is not told to read_file a PNG before answering."""
    (tmp_path / "shot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "calc.py").write_text("x")
    assert named_files("what is in #image shot.png, next to calc.py?", [tmp_path]) == ["calc.py"]


def test_an_offered_tool_named_without_an_arguments_key_is_a_call() -> None:
    """Qwen2.5-Coder-0.5B, recorded: ```json {"name": "task_completion", "summary": "Completed"} ``` was shown."""
    text = '```json\n{"name": "task_completion", "summary": "Completed"}\n```'
    hold = CallHoldback({"task_completion", "read_file"})
    assert hold.feed(text) + hold.close() == ""
    plain = CallHoldback({"read_file"})
    assert plain.feed('{"name": "Bob", "age": 3}') + plain.close() == '{"name": "Bob", "age": 3}'
