"""A pytest plugin that records what the first failing test ran in the workspace's own code (`-p agent_server_trace`),
and, for trials of candidate fixes, imports a file from a given source instead (AGENT_SERVER_OVERLAY), writes
each test's outcome (AGENT_SERVER_OUTCOMES) and which lines of given files each test ran (AGENT_SERVER_SPECTRUM).

Loaded into the user's test run by `failure_path.py` (this folder on PYTHONPATH, the output file in
AGENT_SERVER_TRACE_OUT, the workspace in AGENT_SERVER_TRACE_ROOT). While a test's body runs, every call the test makes
into a non-test Python file under the workspace is recorded, and the calls that call makes in turn: the function, its
arguments and what it returned or raised (`reprlib`, short), and the lines it ran with their counts. For the first
failing test, its last such call and the functions that call ran in turn (one record each: the newest call's
arguments and outcome, every call's lines; the MAX_FUNCTIONS newest functions) are written as JSON when the session
ends. Standalone (the standard library and pytest only): it runs inside the workspace's interpreter, not agent-server's,
and must import nothing else.
"""

from __future__ import annotations

import json
import os
import reprlib
import sys
from collections import deque
from collections.abc import Iterator
from importlib.machinery import SourceFileLoader
from types import FrameType
from typing import Any

import pytest

# Functions kept that the test's last call ran in turn (the newest first seen: the failure is at the end). One record
# a function, so a helper called once early is not pushed out by a hundred calls of a small one after it.
MAX_FUNCTIONS = 40
MAX_GROUPS = 20  # the test's own calls kept (the newest)
MAX_DEPTH = 64  # nested workspace calls below an entry call that are recorded
# What an assertion calls to compare and show values (`assert boxed(x) == Box(y)`): not the call that went wrong.
COMPARING = {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__repr__", "__str__", "__hash__"}
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
        # The test's calls into the project's code (the newest MAX_GROUPS), each with the functions it ran in turn
        # ((file, first line) -> the newest call's record, in the order first called).
        self.groups: deque[tuple[dict[str, Any], dict[tuple[str, int], dict[str, Any]]]] = deque(maxlen=MAX_GROUPS)
        self._places: dict[str, tuple[str, bool] | None] = {}  # co_filename -> (workspace-relative, a test file)
        self._open: dict[int, dict[str, Any]] = {}  # id(frame) -> its call record
        self._depth = 0

    def place(self, filename: str) -> tuple[str, bool] | None:
        """`filename` relative to the workspace and whether it is a test file; None outside it (or in a virtualenv
        in it). Cached: asked at every call event."""
        if filename not in self._places:
            path = os.path.realpath(filename) if filename and not filename.startswith("<") else ""
            rel = path[len(self.root) :] if path.startswith(self.root) else ""
            self._places[filename] = (rel, is_test_file(rel)) if rel and not _skipped(rel) else None
        return self._places[filename]

    def relative(self, filename: str) -> str | None:
        """`filename` relative to the workspace when it is the project's own (non-test) Python code, else None."""
        place = self.place(filename)
        return place[0] if place is not None and not place[1] and place[0].endswith(".py") else None

    def test_file(self, filename: str) -> str | None:
        """`filename` relative to the workspace when it is a test file there, else None."""
        place = self.place(filename)
        return place[0] if place is not None and place[1] else None

    def chosen(self, failed_at: tuple[str, int] | None) -> list[dict[str, Any]]:
        """The call that went wrong, then the calls it made: the first the test made on the line that failed
        (`assert get(x) == Box(y)`: `get`, not `Box`), else the last it made before it failed."""
        if not self.groups:
            return []
        on_line = [g for g in self.groups if failed_at is not None and g[0].get("called_from") == list(failed_at)]
        entry, nested = on_line[0] if on_line else self.groups[-1]
        return [entry, *nested.values()]

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
        test = None if nested or caller is None else self.test_file(caller.f_code.co_filename)
        entry = test is not None
        if not (nested or entry) or (entry and code.co_name in COMPARING):
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
        }
        if caller is not None and test is not None:
            record["called_from"] = [test, caller.f_lineno]
            self.groups.append((record, {}))
        elif self.groups:
            self._nested(self.groups[-1][1], record)
        self._open[id(frame)] = record
        self._depth += 1
        return self._local(record)

    @staticmethod
    def _nested(functions: dict[tuple[str, int], dict[str, Any]], record: dict[str, Any]) -> None:
        key = (record["file"], record["first_line"])
        earlier = functions.get(key)
        if earlier is not None:
            record["lines"] = earlier["lines"]  # shared: the lines every call of it ran, counted together
        elif len(functions) >= MAX_FUNCTIONS:
            del functions[next(iter(functions))]
        functions[key] = record  # (a function seen before keeps its place: the order they were first called)

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
        failed_at = None
        tb = call.excinfo.tb
        while tb is not None:  # the test's own line the failure went through last (its assert)
            test = recorder.test_file(tb.tb_frame.f_code.co_filename)
            failed_at = (test, tb.tb_lineno) if test is not None else failed_at
            tb = tb.tb_next
        self.failed = {"test": item.nodeid, "calls": recorder.chosen(failed_at)}

    def pytest_sessionfinish(self, session: Any) -> None:
        if self.failed is None and os.path.exists(self.out):
            return  # (under pytest-xdist every worker finishes a session: one that saw no failure keeps out of it)
        with open(self.out, "w", encoding="utf-8") as f:
            json.dump(self.failed or {"test": None, "calls": []}, f)


class Outcomes:
    """Each test's outcome (`passed`, `failed`, `skipped`), written as JSON when the session ends: what a trial of a
    candidate fix is judged on (`agent_server_trials.py`)."""

    def __init__(self, out: str) -> None:
        self.out = out
        self.seen: dict[str, str] = {}

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.failed:
            self.seen[report.nodeid] = "failed"  # a failing setup or teardown fails the test too
        elif report.when == "call" or report.skipped:
            self.seen.setdefault(report.nodeid, report.outcome)

    def pytest_sessionfinish(self, session: Any) -> None:
        if getattr(session.config, "workerinput", None) is not None:
            return  # a pytest-xdist worker: the controller gets every worker's reports and writes them all
        with open(self.out, "w", encoding="utf-8") as f:
            json.dump(self.seen, f)


class Spectrum:
    """Which lines of the given files (real paths) each test's body ran, and its outcome: where the trials look first
    for the line at fault (lines the failing test ran that few passing tests ran; `fix_spectrum.py`). Written as JSON
    when the session ends, by each process that ran tests (a pytest-xdist worker to its own file)."""

    def __init__(self, files: set[str], out: str) -> None:
        self.files, self.out = files, out
        self.tests: list[list[str]] = []  # [node id, outcome], in the order they ran
        self.hits: dict[str, dict[int, list[int]]] = {}  # real path -> line -> the tests (indices) that ran it
        self._seen: set[tuple[str, int]] = set()
        self._paths: dict[str, str | None] = {}  # co_filename -> its real path when it is one of the files

    def _path(self, filename: str) -> str | None:
        if filename not in self._paths:
            real = os.path.realpath(filename) if filename and not filename.startswith("<") else ""
            self._paths[filename] = real if real in self.files else None
        return self._paths[filename]

    def on_call(self, frame: FrameType, event: str, arg: object) -> Any:
        path = self._path(frame.f_code.co_filename) if event == "call" else None
        if path is None:
            return None
        seen = self._seen

        def line(frame: FrameType, event: str, arg: object) -> Any:
            if event == "line":
                seen.add((path, frame.f_lineno))
            return line

        return line

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: Any) -> Iterator[None]:
        self._seen = set()
        previous = sys.gettrace()
        sys.settrace(self.on_call)
        try:
            yield
        finally:
            sys.settrace(previous)

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.when != "call":
            return
        index = len(self.tests)
        self.tests.append([report.nodeid, report.outcome])
        for path, number in self._seen:
            self.hits.setdefault(path, {}).setdefault(number, []).append(index)
        self._seen = set()

    def pytest_sessionfinish(self, session: Any) -> None:
        worker = getattr(session.config, "workerinput", None)
        if worker is None and not self.tests:
            return  # a pytest-xdist controller: its workers ran the tests and write them
        tag = f"-{worker.get('workerid', os.getpid())}" if worker is not None else ""
        with open(f"{self.out}{tag}.json", "w", encoding="utf-8") as f:
            json.dump({"tests": self.tests, "hits": self.hits}, f)


def overlay(sources: dict[str, str]) -> None:
    """Import the given files' modules from these sources instead of the files on disk (real paths as keys): a
    candidate fix is tried without writing it into the workspace. The compiled code is never cached."""
    original = SourceFileLoader.get_code

    def get_code(self: SourceFileLoader, fullname: str) -> Any:
        source = sources.get(os.path.realpath(self.path))
        return original(self, fullname) if source is None else compile(source, self.path, "exec", dont_inherit=True)

    SourceFileLoader.get_code = get_code  # type: ignore[method-assign,assignment]


def _overlay_from_env() -> None:
    # At import (`-p` loads this before any conftest.py), so a conftest that imports the project gets the overlay.
    path = os.environ.get("AGENT_SERVER_OVERLAY")
    if path:
        with open(path, encoding="utf-8") as f:
            overlay({os.path.realpath(k): str(v) for k, v in json.load(f).items()})


_overlay_from_env()


def pytest_configure(config: Any) -> None:
    out, root = os.environ.get("AGENT_SERVER_TRACE_OUT"), os.environ.get("AGENT_SERVER_TRACE_ROOT")
    if out and root:
        config.pluginmanager.register(TracePlugin(os.path.realpath(root), out), "agent_server_trace_plugin")
    if outcomes := os.environ.get("AGENT_SERVER_OUTCOMES"):
        config.pluginmanager.register(Outcomes(outcomes), "agent_server_outcomes_plugin")
    spectrum, files = os.environ.get("AGENT_SERVER_SPECTRUM"), os.environ.get("AGENT_SERVER_SPECTRUM_FILES")
    if spectrum and files:
        with open(files, encoding="utf-8") as f:
            wanted = {os.path.realpath(str(p)) for p in json.load(f)}
        config.pluginmanager.register(Spectrum(wanted, spectrum), "agent_server_spectrum_plugin")
