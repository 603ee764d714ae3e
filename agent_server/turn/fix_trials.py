"""Candidate fixes, a line at a time, for the lines a failing test ran: what to ask the model for each, how its answer
becomes a candidate file, and the command that tries the candidates against the tests (`pytest_trace/
agent_server_trials.py`).

A small model shown the function at fault re-types it with the bug in it, and asked which line is wrong it names the
wrong one (the 1.5B on issue 37's repository tasks). Told that one given line is wrong, it writes a different line,
often the right one; the tests, not the model, judge which rewrite fixes the failure: the localize, rewrite, validate
shape of Agentless (Xia et al., 2024), with the traced run (`failure_path.py`) as the localizer. A candidate is tried
by importing its source in place of the file (nothing is written into the workspace until one works) and is kept only
when the named tests pass and no test of their files that passed before fails.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import io
import keyword
import re
import shlex
import textwrap
import tokenize
from dataclasses import dataclass
from pathlib import Path

from ..messages import Message
from .failure_path import Call, docstring_lines, function_at, is_stub, parsed, pytest_run

DRIVER = Path(__file__).resolve().parent / "pytest_trace" / "agent_server_trials.py"
MAX_UNIT_LINES = 3  # a statement longer than this is not rewritten whole by a small model
MAX_LISTED = 50  # lines of the function listed: the stretch that holds the line asked about
MAX_FAILURE_LINES = 20  # lines of the failing test's output quoted
MAX_CHARS = 160  # characters of a quoted output line
MIN_LIKE = 0.5  # how alike a line must be to the one asked about to be taken as its rewrite (difflib's ratio)
_NUMBERED = re.compile(r"^\s*(?:line\s*)?\d+\s*[:|.]?(?: |$)", re.IGNORECASE)
_HEADERS = {"if", "elif", "while", "for", "with", "except", "async"}
# What a rewrite may use besides the module's own names: the builtins that compute, not those that reach outside the
# program or into it (`open`, `eval`, `__import__`, `getattr`): the candidates run before anyone approved their code.
_SAFE_BUILTINS = {n for n in dir(builtins) if not n.startswith("_")} - {
    "breakpoint", "compile", "copyright", "credits", "delattr", "dir", "eval", "exec", "exit", "getattr", "globals",
    "help", "input", "license", "locals", "memoryview", "open", "quit", "setattr", "vars",
}  # fmt: skip
_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|$)", re.DOTALL)
# Statements a one-line rewrite cannot fix, or whose rewrite says nothing (`try:`, `pass`, a nested `def`).
_SKIPPED = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Try,
    ast.Pass,
    ast.Break,
    ast.Continue,
    ast.Global,
    ast.Nonlocal,
    ast.Import,
    ast.ImportFrom,
)


@dataclass(frozen=True)
class Unit:
    """A statement the failing call ran (a compound one's header alone: `if len(ind) > 2:`), lines `first`-`last`
    of `file`, in the function listed from `start` to `end`."""

    file: str
    first: int
    last: int
    start: int
    end: int

    @property
    def where(self) -> str:
        return f"line {self.first}" if self.first == self.last else f"lines {self.first}-{self.last}"


# A statement to rewrite: the call the request tells the model about, the statement's file, that file's source.
Planned = tuple[Call, Path, str, Unit]


def units(source: str, call: Call) -> list[Unit]:
    """The statements `call` ran in its function, in line order; none for a stub (nothing to fix yet)."""
    node = function_at(source, call.first_line)
    if node is None or is_stub(node):
        return []
    doc = docstring_lines(node)
    found: dict[int, Unit] = {}
    for stmt in ast.walk(node):
        if not isinstance(stmt, ast.stmt) or isinstance(stmt, _SKIPPED) or stmt.lineno not in call.lines:
            continue
        if stmt.lineno in doc:
            continue
        body = getattr(stmt, "body", None)
        if isinstance(body, list) and body:  # a compound statement: its header, up to its body
            last = max(stmt.lineno, body[0].lineno - 1)
        else:
            last = stmt.end_lineno or stmt.lineno
        if last - stmt.lineno < MAX_UNIT_LINES:
            found.setdefault(stmt.lineno, Unit(call.file, stmt.lineno, last, node.lineno, node.end_lineno or last))
    return [found[k] for k in sorted(found)]


def failure_excerpt(output: str) -> str:
    """The lines of pytest's output that say what failed: the test's failing line, its `E` lines, where."""
    rows = [r for r in output.splitlines() if r.startswith(("> ", "E ")) or re.match(r"^\S+\.py:\d+: \w", r)]
    rows = [r if len(r) <= MAX_CHARS else r[: MAX_CHARS - 3] + "..." for r in rows]
    return "\n".join(rows[:MAX_FAILURE_LINES])


def ask(command: str, excerpt: str, call: Call, source: str, unit: Unit, versions: int = 1) -> list[Message]:
    """The request for a rewrite of `unit` (or `versions` of them): the failure, the call that went wrong, the
    function, the line. The function is shown without line numbers or docstring and the line on its own: shown a
    numbered listing and asked for "line 452", the 1.5B copied the listing back from line 450 on, every time. Asked
    for one rewrite it often wrote the line back unchanged; asked for three, one was the fix (`if item in seen:`)."""
    failure = f"Running `{command}` fails:\n```\n{excerpt}\n```\n" if excerpt else f"Running `{command}` fails.\n"
    rows = source.splitlines()
    old = "\n".join(textwrap.dedent("\n".join(rows[unit.first - 1 : unit.last])).splitlines())
    one = unit.first == unit.last
    these, it, they = ("This line is", "it", "it") if one else ("These lines are", "them", "they")
    text = (
        f"{failure}"
        f"The test calls `{call.signature()}`, which {call.outcome()}.\n"
        f"{unit.file}:\n```python\n{listing(source, unit)}\n```\n"
        f"{these} wrong:\n```python\n{old}\n```\n"
        + (
            f"Write {it} as {they} should be so that the test passes. Reply with "
            f"{'that line' if one else 'those lines'} only, in a ```python block."
            if versions == 1
            else f"Write {versions} different versions of {it}, each one a possible fix, each in its own "
            "```python block."
        )
    )
    return [
        Message(role="system", content="You fix bugs in Python code. Reply with code only."),
        Message(role="user", content=text),
    ]


def listing(source: str, unit: Unit) -> str:
    """The function `unit` is in, without its docstring: its first lines, then the stretch of MAX_LISTED lines
    that holds the unit."""
    rows = source.splitlines()
    node = function_at(source, unit.start)
    doc = docstring_lines(node) if node is not None else set()
    body = [n for n in range(unit.start, min(unit.end, len(rows)) + 1) if n not in doc]
    # The same lines for every statement of one stretch of the function, so the requests for its statements share
    # their beginning and the server reads it once (its prompt cache).
    at = body.index(unit.first) if unit.first in body else 0
    shown = body[at // MAX_LISTED * MAX_LISTED :][:MAX_LISTED]
    head = [n for n in body[:2] if shown and n < shown[0]]
    out = [rows[n - 1] for n in head] + (["    ..."] if head else []) + [rows[n - 1] for n in shown]
    return textwrap.dedent("\n".join(out))


@dataclass(frozen=True)
class Rewrite:
    """A candidate: the file's whole new source, and the lines that replace the unit's."""

    source: str
    lines: tuple[str, ...]

    @property
    def shown(self) -> str:
        return " / ".join(r.strip() for r in self.lines)


def candidates(source: str, unit: Unit, answer: str, most: int = 3) -> list[Rewrite]:
    """`source` with `unit` replaced by each rewrite the answer holds (re-indented to the statement's place), at most
    `most`: for one line, the answer's lines like it and not it (asked for several versions, or answering with the
    statement and its body), else the answer's lines that are not the function's when they are as many as the
    statement's. None that is the same code, that makes a file that no longer parses, or that uses a name the module
    does not (other than a harmless builtin): the candidates run in the tests before anyone approved their code, and a
    one-line fix needs none."""
    blocks = _FENCE.findall(answer) or [answer]
    lines = [r for b in blocks for r in b.splitlines() if r.strip() and not r.strip().startswith("#")]
    if lines and all(_NUMBERED.match(r) for r in lines):
        lines = [_NUMBERED.sub("", r, count=1) for r in lines]
    rows = source.splitlines()
    old = rows[unit.first - 1 : unit.last]
    known = {r.strip() for r in rows[unit.start - 1 : unit.end]}  # the function's lines: copied back, not rewrites
    if len(old) == 1 and len(lines) > 1:
        options = [[r] for r in lines if r.strip() not in known and _like(r.strip(), old[0].strip())]
    elif len(lines) == len(old):
        options = [lines]
    else:
        # The function, or the statement with its body, copied back with the change: keep the lines it changed.
        changed = [r for r in lines if r.strip() not in known]
        options = [changed] if len(changed) == len(old) else []
    names = _names_in(rows) | _SAFE_BUILTINS
    seen = {_tree(source)}  # the code as it is, and each rewrite's: the same code spaced or quoted otherwise is none
    indent = old[0][: len(old[0]) - len(old[0].lstrip())]
    out: list[Rewrite] = []
    for option in options:
        new = [indent + r for r in textwrap.dedent("\n".join(option)).splitlines()]
        if not _names_in(new) <= names:
            continue  # a name the module never uses (`os.system`, `__import__`): no fix of a line, never run
        text = "\n".join([*rows[: unit.first - 1], *new, *rows[unit.last :]]) + ("\n" if source.endswith("\n") else "")
        tree = _tree(text)
        if tree is not None and tree not in seen:
            seen.add(tree)
            out.append(Rewrite(text, tuple(new)))
    return out[:most]


def _names_in(lines: list[str]) -> set[str]:
    """The names the lines use (not the words of their strings or comments); one that cannot be read, for code that
    does not tokenize."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(textwrap.dedent("\n".join(lines)) + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        return {"<unreadable>"}
    return {t.string for t in tokens if t.type == tokenize.NAME and not keyword.iskeyword(t.string)}


def _like(line: str, old: str) -> bool:
    """A rewrite of `old`, not `old` itself nor another line of the answer's code (a compound statement's header is
    rewritten as the same kind of header: `if …:` as `if …:`, never as the `for` line above it)."""
    keyword = old.split(maxsplit=1)[0] if old.split() else ""
    if keyword in _HEADERS and (line.split(maxsplit=1) or [""])[0] != keyword:
        return False
    return line != old and difflib.SequenceMatcher(None, line, old).ratio() >= MIN_LIKE


def _tree(source: str) -> str | None:
    """The code's syntax tree, as text (the same code however it is spaced or quoted); None when it does not parse."""
    tree = parsed(source)
    return None if tree is None else ast.dump(tree)


def files_command(command: str) -> tuple[str, list[str]] | None:
    """The test command run on the named tests' whole files, and the node ids it named (none: every test it runs
    must pass); None when `command` is not a pytest run."""
    run = pytest_run(command)
    if run is None:
        return None
    starts, rest = run
    named: list[str] = []
    args: list[str] = []
    for word in rest:
        if "::" in word and not word.startswith("-"):
            named.append(word)
            word = word.split("::", 1)[0]
        if word not in args or word.startswith("-"):
            args.append(word)
    return shlex.join([*starts, *args]), named


def trial_command(python: str, folder: Path, command: str, first: str | None = None) -> str:
    """The command the user sees and approves: the driver, its folder, the test command it runs for each candidate
    (and `first`, the named tests' own command, run before it: a candidate that fails them is not run further)."""
    mode = f" --first {shlex.quote(first)}" if first is not None else ""
    return _driver(python, folder, mode, command)


def compare_command(python: str, folder: Path, command: str) -> str:
    """The command that runs the test command with the files as they were (`<folder>/before.json`) and as they are."""
    return _driver(python, folder, " --compare", command)


def _driver(python: str, folder: Path, mode: str, command: str) -> str:
    return (
        f"{shlex.quote(python)} {shlex.quote(str(DRIVER))} {shlex.quote(str(folder))}{mode} -- {shlex.quote(command)}"
    )


def winner(output: str) -> str | None:
    """The candidate file the driver found to work (its last line, `fix: <file>`), if any."""
    rows = [r.strip() for r in output.strip().splitlines()]
    return rows[-1][len("fix: ") :] if rows and rows[-1].startswith("fix: ") else None
