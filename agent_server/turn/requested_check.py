"""The check a request names: "make `pytest -q tests/test_x.py` pass", "running `npm test` fails".

A user who writes the test command into the request expects the agent to run it before saying it is done, as a
developer would; a small model rarely runs it by itself (issue 37: "it never ran the test the request told it to
run"). When `agent.verify_command` is not set and `agent.verify_requested` is on, the verify loop (verify.py) runs the
newest test command the user's own messages name in backticks, under the same approval rules as any command.

Only a plain test-runner invocation is taken: its program is a known test runner, and it has no shell operators
(`;`, `&&`, pipes, redirections, substitutions), so what runs is exactly a test run the user wrote, never a chain.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable

from ..context import request_kind
from ..messages import Message
from .live_session import Session

_SPAN = re.compile(r"`([^`\n]{2,300})`")
_SHELL = re.compile(r"[;&|<>$`(){}\\\n]")
# Runners that are a test run by themselves, and those whose first argument makes one (`npm test`, `cargo test`).
_RUNNERS = {"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "rspec", "phpunit", "ctest", "nose2"}
_SUBCOMMANDS = {
    "npm": {"test", "t"},
    "yarn": {"test"},
    "pnpm": {"test"},
    "bun": {"test"},
    "deno": {"test"},
    "cargo": {"test", "nextest"},
    "go": {"test"},
    "dotnet": {"test"},
    "mvn": {"test", "verify"},
    "gradle": {"test", "check"},
    "./gradlew": {"test", "check"},
    "make": {"test", "check"},
    "mix": {"test"},
}
_MODULES = {"pytest", "unittest", "nose2", "tox"}  # python -m <module>
_WRAPPERS = {("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("hatch", "run"), ("bundle", "exec"), ("npx",)}


def named_check(text: str) -> str | None:
    """The last test command `text` names in backticks, as written; None when it names none."""
    found = None
    for span in _SPAN.findall(text):
        command = span.strip()
        if is_test_command(command):
            found = command
    return found


def requested_check(history: Iterable[Message]) -> str | None:
    """The test command the user's newest message that names one asks for (a follow-up such as "still failing"
    keeps the one named before)."""
    for message in reversed(list(history)):
        if message.typed_by_user and (command := named_check(message.as_typed)):
            return command
    return None


def session_check(session: Session) -> str | None:
    """`requested_check` of the session's history, remembered on the session: once compaction has folded the request
    that named it into a summary, a follow-up ("the tests still fail") still has it."""
    if found := requested_check(session.history):
        session.named_check = found
    return session.named_check


def check_to_fix(session: Session) -> str | None:
    """The failing test command the newest request asks to fix: the one it names, or, for a follow-up that asks for
    a change ("still failing, fix it"), the one named before (also once compaction folded that request away); a
    question or a chat in between asks for none."""
    request = next((m for m in reversed(session.history) if m.typed_by_user), None)
    if request is None or not (named_check(request.as_typed) or request_kind.wants_edit(request.as_typed)):
        return None
    return session_check(session)


def is_test_command(command: str) -> bool:
    if _SHELL.search(command):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    words = unwrapped(words)
    if not words:
        return False
    program = words[0].rsplit("/", 1)[-1] if not words[0].startswith("./") else words[0]
    if program in _RUNNERS:
        return True
    if re.fullmatch(r"python(3(\.\d+)?)?", program):
        return len(words) > 2 and words[1] == "-m" and words[2] in _MODULES
    return (len(words) > 1 and words[1] in _SUBCOMMANDS.get(program, set())) or _npm_run_test(words)


def unwrapped(words: list[str]) -> list[str]:
    """`uv run pytest` → `pytest`: the runner a wrapper starts."""
    for wrapper in _WRAPPERS:
        if tuple(words[: len(wrapper)]) == wrapper:
            return words[len(wrapper) :]
    return words


def _npm_run_test(words: list[str]) -> bool:
    """`npm run test`, `yarn run test:unit`: a package script whose name says it is the tests."""
    return len(words) > 2 and words[0] in {"npm", "yarn", "pnpm"} and words[1] == "run" and words[2].startswith("test")
