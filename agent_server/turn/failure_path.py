"""The failing test's path through the code: the call of the project's own code that went wrong, with what
arguments, what it returned or raised, and the path it took (each decision, in words).

A bug report that names a failing test (issue 37's repository tasks: "running `pytest t.py::test_x` fails") shows the
test's assertion, rarely the line at fault; a small model shown the whole function re-typed it with the bug still in
it. What a developer does next is step through the call: this runs the named test once more with a tracer
(`pytest_trace/agent_server_trace.py`, a pytest plugin loaded with `-p`) and tells the model the call that went
wrong, `get(ind=[1, 3], seq='ABCDE')` → `('B',)`, and the decisions it took ("`if len(ind) > 2:` was false").
Only a pytest run that names its tests (a node id, a test file, `-k`) is traced: never a whole suite.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SandboxError
from ..tools.sandbox import read_regular, resolve
from .requested_check import unwrapped

PLUGIN_DIR = Path(__file__).resolve().parent / "pytest_trace"
PLUGIN = "agent_server_trace"
MAX_SOURCE = 2_000_000  # bytes of a traced file read to show its lines
MAX_NESTED = 6  # calls the traced call made into the project's code, listed
MAX_STEPS = 16  # decisions told (a longer path: its last ones, where it went wrong)
MAX_LINE = 100  # characters of a line quoted
MAX_ARGS = 300  # characters of a call's arguments quoted
_PYTHON = re.compile(r"python(3(\.\d+)?)?")
_TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$")


def pytest_run(command: str) -> tuple[list[str], list[str]] | None:
    """`command` split into what starts pytest (`uv run python -m pytest`) and pytest's own arguments; None when it
    is not a pytest run."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    runner = unwrapped(words)
    program = runner[0].rsplit("/", 1)[-1] if runner else ""
    if program in ("pytest", "py.test"):
        skip = 1
    elif _PYTHON.fullmatch(program) and runner[1:3] == ["-m", "pytest"]:
        skip = 3
    else:
        return None
    head = len(words) - len(runner) + skip
    return words[:head], words[head:]


def traced(command: str, out: Path, root: Path, pythonpath: str | None) -> str | None:
    """`command` with the tracer loaded (its output in `out`); None when it is not a pytest run of named tests."""
    run = pytest_run(command)
    if run is None or not any("::" in a or _TEST_FILE.search(a.split("::", 1)[0]) or a == "-k" for a in run[1]):
        return None  # not pytest, or a whole suite, which traced could take many times its own run
    path = ":".join(p for p in (str(PLUGIN_DIR), pythonpath) if p)
    env = {"AGENT_SERVER_TRACE_OUT": str(out), "AGENT_SERVER_TRACE_ROOT": str(root), "PYTHONPATH": path}
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"{prefix} {command} -p {PLUGIN}"


@dataclass
class Call:
    """One recorded call of the project's code."""

    file: str
    function: str
    first_line: int
    args: list[tuple[str, str]] = field(default_factory=list)
    lines: dict[int, int] = field(default_factory=dict)
    returned: str | None = None
    raised: str | None = None
    raised_at: int | None = None
    returned_at: int | None = None
    entry: bool = True

    @classmethod
    def of(cls, raw: dict[str, Any]) -> Call:
        return cls(
            file=str(raw["file"]),
            function=str(raw["function"]),
            first_line=int(raw["first_line"]),
            args=[(str(n), str(v)) for n, v in raw.get("args", [])],
            lines={int(k): int(v) for k, v in raw.get("lines", {}).items()},
            returned=None if raw.get("returned") is None else str(raw["returned"]),
            raised=None if raw.get("raised") is None else str(raw["raised"]),
            raised_at=None if raw.get("raised_at") is None else int(raw["raised_at"]),
            returned_at=None if raw.get("returned_at") is None else int(raw["returned_at"]),
            entry=bool(raw.get("entry", True)),
        )

    def signature(self) -> str:
        args = ", ".join(f"{n}={v}" for n, v in self.args if n not in ("self", "cls"))
        args = args if len(args) <= MAX_ARGS else args[: MAX_ARGS - 5] + ", ..."
        return f"{self.function.rsplit('.', 1)[-1]}({args})"

    def outcome(self) -> str:
        if self.raised is not None:
            where = f" at line {self.raised_at}" if self.raised_at else ""
            return f"raised `{self.raised}`{where}"
        return f"returned `{self.returned}`"


def read_trace(out: Path) -> tuple[str, list[Call]] | None:
    """The failing test's id and its recorded calls, from the plugin's file; None when nothing usable is there."""
    try:
        data = json.loads(read_regular(out, 4_000_000))
        test = data.get("test")
        calls = [Call.of(c) for c in data.get("calls", [])]
    except (OSError, SandboxError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return (str(test), calls) if test and calls else None


@dataclass
class Told:
    """What the model is told of the failing test's path, and the file that path went wrong in."""

    text: str
    path: str


def render(test: str, calls: list[Call], roots: list[Path]) -> Told | None:
    """What the model is told: the test's call that went wrong, its outcome, the calls it made and the path it took."""
    last = max((i for i, c in enumerate(calls) if c.entry), default=None)
    if last is None:
        return None
    call = calls[last]
    try:
        source = read_regular(resolve(roots, call.file), MAX_SOURCE).decode("utf-8", "replace")
    except (OSError, SandboxError):
        return None
    steps = path_steps(source, call)
    if not steps:
        return None
    nested = [c for c in calls[last + 1 :] if not c.entry and not c.function.endswith(">")][-MAX_NESTED:]
    parts = [
        f"agent-server ran the failing test `{test}` once more with a tracer. The call it made into the project's code "
        f"that went wrong: `{call.signature()}` ({call.file}) {call.outcome()}."
    ]
    if nested:
        listed = "; ".join(f"`{c.signature()}` {c.outcome()}" for c in nested)
        parts.append(f"Inside it, it called: {listed}.")
    name = call.function.rsplit(".", 1)[-1]
    parts.append(f"The path this call took through `{name}`, line by line:")
    parts += [f"- {step}" for step in steps]
    return Told("\n".join(parts), call.file)


def path_steps(source: str, call: Call) -> list[str]:
    """The decisions the call took, in line order: each condition that was tested and how it came out, the loops
    and how often they ran, the exceptions caught, and where it returned or raised. Told as lines of text, not as a
    block of code: a small model shown the lines that ran as code copied that block back as its answer (the 1.5B,
    tune split, boltons-ellipsize)."""
    node = function_at(source, call.first_line)
    if node is None or is_stub(node):
        return []  # a stub's path says nothing: there is no code yet to find a bug in
    rows = source.splitlines()
    ran = call.lines
    steps: list[tuple[int, str]] = []
    # The return statement that returned: the one the return event names, else the last that ran (a `with` block
    # reports its own line; `return seq[ind]` that raised and was caught ran too, and returned nothing).
    returns = sorted(s.lineno for s in ast.walk(node) if isinstance(s, ast.Return) and s.lineno in ran)
    returned = (
        None
        if call.raised is not None or not returns
        else (call.returned_at if call.returned_at in returns else returns[-1])
    )
    for stmt in ast.walk(node):
        if stmt is node or not isinstance(stmt, ast.stmt | ast.excepthandler) or stmt.lineno not in ran:
            continue
        code = f"`{_line(rows, stmt.lineno)}`"
        where = f"line {stmt.lineno} {code}"
        if isinstance(stmt, ast.If):
            steps.append((stmt.lineno, f"{where} was {_outcome(ran[stmt.lineno], ran.get(stmt.body[0].lineno, 0))}"))
        elif isinstance(stmt, ast.While | ast.For | ast.AsyncFor):
            times = ran.get(stmt.body[0].lineno, 0)
            steps.append((stmt.lineno, f"{where} looped {times} time{'' if times == 1 else 's'}"))
        elif isinstance(stmt, ast.ExceptHandler):
            steps.append((stmt.lineno, f"{where} caught an exception"))
        elif isinstance(stmt, ast.Return) and stmt.lineno == returned:
            steps.append((stmt.lineno, f"{where} returned `{call.returned}`"))
        elif call.raised is not None and stmt.lineno == call.raised_at and not isinstance(stmt, ast.If):
            steps.append((stmt.lineno, f"{where} raised `{call.raised}`"))
    if call.raised is None and returned is None:
        steps.append((node.end_lineno or node.lineno, f"it reached the end of `{node.name}` and returned `None`"))
    steps.sort()
    out = [text for _line_no, text in steps]
    return out if len(out) <= MAX_STEPS else ["...", *out[-MAX_STEPS:]]


def _outcome(tested: int, true: int) -> str:
    """How a condition tested `tested` times came out (in a loop, each way can happen)."""
    if tested <= 1 or true in (0, tested):
        return ("true" if true else "false") + (f" all {tested} times" if tested > 1 else "")
    return f"true {true} of {tested} times"


def _line(rows: list[str], number: int) -> str:
    text = rows[number - 1].strip() if 0 < number <= len(rows) else ""
    text = text.replace("`", "'")
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 3] + "..."


def function_at(source: str, first_line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    tree = parsed(source)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first_line in (first, node.lineno):
                return node
    return None


@functools.lru_cache(maxsize=8)
def parsed(source: str) -> ast.Module | None:
    """`source` parsed, None when it does not parse. Cached (read, never changed, by its callers): the fix trials ask
    about a dozen statements of one module, and a module can be thousands of lines."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def is_stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`pass`, `...` or `raise NotImplementedError` (after a docstring): a function still to be written."""
    body = node.body[1:] if docstring_lines(node) else node.body
    for stmt in body:
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            continue
        raised = stmt.exc if isinstance(stmt, ast.Raise) else None
        name = raised.func if isinstance(raised, ast.Call) else raised
        if not (isinstance(name, ast.Name) and name.id == "NotImplementedError"):
            return False
    return True


def docstring_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    head = node.body[0]
    if isinstance(head, ast.Expr) and isinstance(head.value, ast.Constant) and isinstance(head.value.value, str):
        return set(range(head.lineno, (head.end_lineno or head.lineno) + 1))
    return set()
