"""What a request asks for, in the `files` format: a change, an answer in words, tests written (request_kind.py)."""

from __future__ import annotations

import pytest

from agent_server.context.request_kind import is_chat, wants_edit, wants_tests
from tests.benchmarks.scorecard.tasks import all_tasks

TRACEBACK = (
    'Traceback (most recent call last):\n  File "shop/cart.py", line 3, in add_item\n    update_total()\n'
    "E   assert 2 == 3\n"
)


@pytest.mark.parametrize(
    "request_text",
    [
        "Fix leap.py",
        "Look at leap.py and fix it",
        "Can you fix leap.py?",
        "No, fix the other file",
        "Make tests/test_slug.py pass.",
        "days_between gives a negative number when the later date comes first.",  # a bug report
        "leap_test.py still fails: FAILED leap_test.py::test_2000",
        f"tests/test_cart.py::test_total fails:\n\n{TRACEBACK}",  # pasted output alone
        "What is wrong here? Fix it.",
    ],
)
def test_a_change_request_is_an_edit(request_text: str) -> None:
    assert wants_edit(request_text)


@pytest.mark.parametrize(
    "request_text",
    [
        "Say hello",
        "hello!",
        "Thanks!",
        "What does leap.py do?",
        "explain calc.py",
        "How do I add a test?",
        "Don't change anything, just tell me what calc.py does",
        f"Why does this fail?\n{TRACEBACK}",  # `add_item`, `update_total` in the output are no request
    ],
)
def test_a_question_or_a_greeting_is_no_edit(request_text: str) -> None:
    assert not wants_edit(request_text)


def test_only_a_greeting_is_chat() -> None:
    assert is_chat("Say hello") and is_chat("hi, thanks!")
    assert not is_chat("What does this project do?") and not is_chat("hello, fix calc.py")


@pytest.mark.parametrize(
    ("request_text", "tests"),
    [
        ("Add a function sub to calc.py and a test for it in tests/test_calc.py.", True),
        ("Write tests/test_calc.py", True),
        ("write tests for parse_bool", True),
        ("Please also add a unit test for leap", True),
        ("Update the tests", True),
        ("Make tests/test_slug.py pass.", False),
        ("Fix the converter so the tests pass.", False),
        ("update the code so that tests/test_x.py passes", False),
        ("I added a test that fails; fix the code", False),
        ("Fix the failing test", False),  # the code is wrong, not the test
        ("The tests in leap_test.py must pass", False),
    ],
)
def test_a_request_for_tests_is_told_apart_from_tests_that_must_pass(request_text: str, tests: bool) -> None:
    assert wants_tests(request_text) is tests


def test_every_scorecard_task_is_an_edit_that_leaves_its_tests_alone() -> None:
    """The scorecard's protocol: its tests judge the answer; no request of it may make them editable."""
    tasks = all_tasks()
    assert len(tasks) > 60
    assert [t.name for t in tasks if not wants_edit(t.request) or wants_tests(t.request)] == []
