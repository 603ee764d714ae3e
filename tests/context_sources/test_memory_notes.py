"""Memory files on disk: notes as the user may write them, appended and forgotten, never a secret, never written
through a link out of the workspace; and the settings a workspace needs trust for."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_server.config import Settings
from agent_server.context_sources.memory import NoteError, append_note, forget, parse, read_notes
from agent_server.context_sources.memory_prompt import render
from agent_server.trust import risky_keys

HAND_WRITTEN = """# agent-server memory

<!-- a comment the user keeps;
two lines long -->

- first note
  continued here
* second
A paragraph note
over two lines.

## Later
+ third
"""


def test_every_note_shape_a_user_may_write_is_read() -> None:
    notes = parse(HAND_WRITTEN, "user")
    assert [n.text for n in notes] == [
        "first note continued here",
        "second",
        "A paragraph note over two lines.",
        "third",
    ]
    assert [n.ref for n in notes] == ["u1", "u2", "u3", "u4"]


def test_append_then_forget_keeps_the_rest_of_the_file(tmp_path: Path) -> None:
    user = tmp_path / "memory.md"
    user.write_text(HAND_WRITTEN.rstrip("\n"))  # no newline at the end: the next note still starts a line
    append_note("user", tmp_path, "Prefer pathlib over os.path", user)
    assert user.read_text().endswith("+ third\n- Prefer pathlib over os.path\n")
    gone = forget("user", tmp_path, 2, user)
    assert gone.text == "second"
    assert [n.text for n in read_notes("user", tmp_path, user)][-2:] == ["third", "Prefer pathlib over os.path"]
    assert "a comment the user keeps" in user.read_text(), "forget removes that note only"
    with pytest.raises(NoteError, match="no note u9"):
        forget("user", tmp_path, 9, user)


@pytest.mark.parametrize(
    "secret",
    [
        "the api_key=abcdef123456 for staging",
        "Authorization: Bearer abcdefghijkl",
        "token ghp_abcdefghijklmnopqrstuvwxyz0123",
        "use sk-proj-abcdefghijklmnop1234",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
    ],
)
def test_a_secret_is_never_written_and_masked_if_typed_in(tmp_path: Path, secret: str) -> None:
    user = tmp_path / "memory.md"
    with pytest.raises(NoteError, match="secret"):
        append_note("user", tmp_path, secret, user)
    assert not user.exists()
    user.write_text(f"- {secret}\n")
    assert "***" in read_notes("user", tmp_path, user)[0].text


def test_the_workspace_file_is_not_written_or_read_through_a_link_out(tmp_path: Path) -> None:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "memory.md").write_text("- outside note\n")
    (root / ".agent-server").symlink_to(outside)
    with pytest.raises(NoteError, match="outside the workspace"):
        append_note("workspace", root, "a note")
    assert read_notes("workspace", root) == []
    assert (outside / "memory.md").read_text() == "- outside note\n"
    (root / ".agent-server").unlink()
    (root / ".agent-server").mkdir()
    os.link(outside / "memory.md", root / ".agent-server" / "memory.md")
    with pytest.raises(NoteError, match="hard link"):
        append_note("workspace", root, "a note")


def test_the_budget_keeps_the_relevant_and_newest_and_says_how_many_were_left_out() -> None:
    text = (
        "".join(f"- note number {i} about nothing much at all\n" for i in range(60)) + "- the deploy runs on fridays\n"
    )
    notes = parse(text, "user")
    block = render(notes, 120, "when does the deploy run?", "~/memory.md")
    assert block.text.index("deploy runs on fridays") < block.text.index("note number 59")
    assert "note number 0 " not in block.text and f"{block.left_out} more notes left out" in block.text
    assert block.tokens <= 120


def test_a_workspace_needs_trust_to_turn_memory_on_or_raise_the_budgets() -> None:
    risky = {
        k.key for k in risky_keys({"memory": {"enabled": True, "tokens": 5000}, "skills": {"tokens": 900}}, Settings())
    }
    assert risky == {"memory.enabled", "memory.tokens", "skills.tokens"}
    assert risky_keys({"memory": {"enabled": False, "tokens": 10}, "skills": {"tokens": 0}}, Settings()) == []
