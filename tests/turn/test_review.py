"""The user's review of a proposed file change (turn/review.py): hunks, what gets written, the bounded note."""

from __future__ import annotations

import pytest

from agent_server.turn.review import NOTE_DIFF_CHARS, BadReview, apply_hunks, hunks, read_answer, resolve

OLD = "a\nb\nc\nd\n"
NEW = "a\nB\nc\nD\nE\n"


def test_hunks_and_applying_some_of_them() -> None:
    found = hunks(OLD, NEW)
    assert [(h.old_start, h.old_lines, h.new_start, h.new_lines) for h in found] == [(1, 1, 1, 1), (3, 1, 3, 2)]
    assert apply_hunks(OLD, NEW, found, set()) == NEW
    assert apply_hunks(OLD, NEW, found, {1}) == "a\nB\nc\nd\n"
    assert apply_hunks(None, "x\n", hunks(None, "x\n"), {0}) == ""


def test_a_malformed_review_is_refused_with_the_reason() -> None:
    for raw, why in [
        ({"content": 3}, "content"),
        ({"rejectedHunks": ["0"]}, "rejectedHunks"),
        ({"path": "/etc/passwd"}, "path"),
        ({"rejectedHunks": [2]}, "no hunk 2"),
    ]:
        with pytest.raises(BadReview, match=why):
            read_answer({"review": raw}, 2)
    assert read_answer(None, 2) is None and read_answer({"other": 1}, 2) is None


def test_the_note_to_the_model_stays_bounded_however_much_the_user_changed() -> None:
    proposed = "".join(f"line {i}\n" for i in range(2000))
    edited = "".join(f"LINE {i} changed by the user\n" for i in range(2000))
    answer = read_answer({"review": {"content": edited}}, 1)
    assert answer is not None
    reviewed = resolve("", proposed, answer)
    assert reviewed is not None and reviewed.final == edited
    assert len(reviewed.note) < NOTE_DIFF_CHARS + 400
    assert "more diff lines)" in reviewed.note


def test_crlf_files_keep_their_line_endings() -> None:
    old, new = "a\r\nb\r\n", "a\r\nB\r\n"
    answer = read_answer({"review": {"content": "a\nb2\n"}}, 1)
    assert answer is not None
    reviewed = resolve(old, new, answer)
    assert reviewed is not None and reviewed.final == "a\r\nb2\r\n"
