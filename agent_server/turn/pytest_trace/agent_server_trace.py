"""A pytest plugin that records what the first failing test ran in the workspace's own code (`-p agent_server_trace`).

Loaded into the user's test run by `failure_path.py` (this folder on PYTHONPATH, the output file in
AGENT_SERVER_TRACE_OUT, the workspace in AGENT_SERVER_TRACE_ROOT). While a test's body runs, every call into a
non-test Python file under the workspace is recorded: the function, its arguments and what it returned or raised
(`reprlib`, short), and the lines it ran with their counts. For the first failing test, its last call into that code
and the calls that call made (the last MAX_CALLS) are written as JSON when the session ends. Standalone (the standard library only): it runs inside
the workspace's interpreter, not agent-server's, and must import nowhere else.
"""

from __future__ import annotations

import json
import os
import reprlib
import sys
from collections import deque
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

MAX_CALLS = 40  # calls kept that the test's last call made in turn (the newest ones: the failure is at the end)
MAX_DEPTH = 64  # nested workspace calls below an entry call that are recorded
SKIP_PARTS = ("/site-packages/", "/dist-packages/", "/.venv/", "/venv/", "/.tox/", "/.nox/", "/node_modules/")

_repr = reprlib.Repr()
_repr.maxstring = 60
_repr.maxother = 60
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxdict = 8
_repr.maxlevel = 3


def _short(value: object) -> str:
    try:
        return _repr.repr(value)
    except Exception as exc:  # a broken __repr__ of the user's class
        return f"<{type(value).__name__}: repr failed ({type(exc).__name__})>"


def is_test_file(relative: str) -> bool:
    name = relative.rsplit("/", 1)[-1]
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or "/tests/" in f"/{relative}"
        or "/test/" in f"/{relative}"
    )


def _skipped(relative: str) -> bool:
    return any(part in f"/{relative}" for part in SKIP_PARTS)


class Recorder:
    """The calls into the workspace's code while one test's body runs."""

    def __init__(self, root: str) -> None:
        self.root = root.rstrip("/") + "/"
        self.entry: dict[str, Any] | None = None  # the test's newest call into the project's code
        self.nested: deque[dict[str, Any]] = deque(maxlen=MAX_CALLS)  # the newest calls it made in turn
        self._mine: dict[str, str | None] = {}  # co_filename -> workspace-relative path, or None (not recorded)
        self._open: dict[int, dict[str, Any]] = {}  # id(frame) -> its call record
        self._depth = 0

    def relative(self, filename: str) -> str | None:
        if filename not in self._mine:
            path = os.path.realpath(filename) if filename and not filename.startswith("<") else ""
            rel = path[len(self.root) :] if path.startswith(self.root) else None
            if rel is not None and (
                is_test_file(rel) or not rel.endswith(".py") or any(p in f"/{rel}" for p in SKIP_PARTS)
            ):
                rel = None
            self._mine[filename] = rel
        return self._mine[filename]

    def is_test(self, filename: str) -> bool:
        path = os.path.realpath(filename) if filename and not filename.startswith("<") else ""
        return path.startswith(self.root) and is_test_file(path[len(self.root) :])

    def on_call(self, frame: FrameType, event: str, arg: object) -> Any:
        if event != "call":
            return None
        rel = self.relative(frame.f_code.co_filename)
        if rel is None or self._depth >= MAX_DEPTH:
            return None
        code = frame.f_code
        caller = frame.f_back
        nested = caller is not None and id(caller) in self._open
        # An entry call is the test's own: a call from pytest's internals (the assertion's repr of a value) is not.
        entry = not nested and caller is not None and self.is_test(caller.f_code.co_filename)
        if not nested and not entry:
            return None
        count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4) + bool(code.co_flags & 8)
        names = code.co_varnames[:count]
        record: dict[str, Any] = {
            "file": rel,
            "function": code.co_qualname if hasattr(code, "co_qualname") else code.co_name,
            "first_line": code.co_firstlineno,
            "args": [[n, _short(frame.f_locals.get(n))] for n in names if n in frame.f_locals],
            "lines": {},
            "returned": None,
            "raised": None,
            "entry": entry,
            "depth": self._depth,
        }
        if entry:
            self.entry = record
            self.nested.clear()
        else:
            self.nested.append(record)
        self._open[id(frame)] = record
        self._depth += 1
        return self._local(record)

    def _local(self, record: dict[str, Any]) -> Any:
        lines: dict[int, int] = record["lines"]

        def trace(frame: FrameType, event: str, arg: object) -> Any:
            if event == "line":
                lines[frame.f_lineno] = lines.get(frame.f_lineno, 0) + 1
                record["raised"] = None  # an exception raised here before was handled
            elif event == "exception":
                kind, value = arg[0], arg[1]  # type: ignore[index]
                record["raised"] = f"{getattr(kind, '__name__', kind)}: {_short(str(value))}"
                record["raised_at"] = frame.f_lineno
            elif event == "return":
                if record["raised"] is None:
                    record["returned"] = _short(arg)
                record["returned_at"] = frame.f_lineno
                self._open.pop(id(frame), None)
                self._depth -= 1
            return trace

        return trace


class TracePlugin:
    """Traces each test's body; keeps the calls of the first test that fails, writes them when the session ends."""

    def __init__(self, root: str, out: str) -> None:
        self.root, self.out = root, out
        self.failed: dict[str, Any] | None = None
        self._recorder: Recorder | None = None

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: Any) -> Iterator[None]:
        self._recorder = Recorder(self.root)
        previous = sys.gettrace()
        sys.settrace(self._recorder.on_call)
        try:
            yield
        finally:
            sys.settrace(previous)

    def pytest_runtest_makereport(self, item: Any, call: Any) -> None:
        recorder = self._recorder
        if call.when != "call" or recorder is None or self.failed is not None or call.excinfo is None:
            return
        calls = [recorder.entry, *recorder.nested] if recorder.entry is not None else []
        self.failed = {"test": item.nodeid, "calls": calls}

    def pytest_sessionfinish(self, session: Any) -> None:
        with open(self.out, "w", encoding="utf-8") as f:
            json.dump(self.failed or {"test": None, "calls": []}, f)


def pytest_configure(config: Any) -> None:
    out, root = os.environ.get("AGENT_SERVER_TRACE_OUT"), os.environ.get("AGENT_SERVER_TRACE_ROOT")
    if out and root:
        config.pluginmanager.register(TracePlugin(os.path.realpath(root), out), "agent_server_trace_plugin")
