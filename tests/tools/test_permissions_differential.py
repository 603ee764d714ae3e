"""The policy against the real shell: every generated command the policy lets through under `ls *` / `cat *` is run
exactly as run_command runs it (`shell_exec.shell_argv`: bash by its path), and must run nothing but `ls` and
`cat` and create no file.

Commands are built from every redirection and control operator bash and dash know (`&>`, `&>>`, `>|`, `|&`, `<>`,
fd duplication and closing, `;;`, `;&`, `;;&`, `&`, `&&`, `||`, `|`, `;`, newlines, subshells, groups,
substitutions, here-documents and here-strings...) placed before a program that must not run, plus seeded random
strings of shell metacharacters, so they hit the places where a grammar and a shell can disagree. Every program name
a command could reach is a logging stub on a private PATH; the shell's own builtins cannot create files here except
through redirections, which the check on the folder catches.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_server.config import ToolRule, ToolsConfig
from agent_server.tools.builtin import builtin_tools
from agent_server.tools.permissions import InMemoryDecisionStore, PermissionPolicy
from agent_server.tools.shell_exec import shell_argv, shell_env

RUN = next(t for t in builtin_tools() if t.name == "run_command")
ALLOWED = ("ls", "cat")
STUBS = ("ls", "cat", "touch", "id", "rm", "x", "sh", "bash", "env", "python3", "xargs", "tee", "true", "whoami", "evil",
         "EOF", "a")  # fmt: skip
# Every redirection and control operator of bash and dash, and the keywords and brackets around them.
OPERATORS = [
    "&>", "&>>", ">|", "|&", "<>", ">&", "<&", "2>&1", "1>&2", ">&2", "2<&0", "<&0", "3<&-", ">&-", "<&-", "2>&-",
    "3<>", "9>", "{fd}>", "{fd}<", "{fd}>&-", ">", ">>", "<", "2>", "2>>", "&", "&&", "||", "|", ";", ";;", ";&",
    ";;&", "\n", "\r\n", "(", ")", "$(", "`", "<(", ">(", "<<EOF\n", "<<-EOF\n", "<<'EOF'\n", "<<<", "{ ", " }", "!",
    "#", "\\\n", "$((", "$[", "((", "))", "[[", "]]", "coproc ", "time ", "function ", "case ", " in ", " esac", "${",
    "}", "$'", "'", '"', "=", "\t", "\\",
]  # fmt: skip
# What follows the operator: a program that must not run, in the places a shell may find it.
RIGHT = ["evil", "/dev/null evil", "x evil", "1 evil", "- evil", "evil)", "EOF\nevil\nEOF", "\nevil", " x; evil",
         "/dev/null; evil", "&evil", "(evil)", "evil}", "2#evil", "fd evil"]  # fmt: skip
TOKENS = [
    "ls", "cat", " ", " ", " ", "\\", "#", "$", "(", ")", "`", "'", '"', ";", "|", "&", ">", "<", "\n", "{", "}",
    "x", "id", "touch", "=", "*", "~", "-la", "$'", "\t", "!", "[", "]", ",", "\\ ", "$(", "<(", "${", "2>&1",
    "/dev/null", "sh", "a",
]  # fmt: skip


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("shells")
    bin_dir = root / "bin"
    bin_dir.mkdir()
    for name in STUBS:
        stub = bin_dir / name
        stub.write_text('#!/bin/sh\nprintf "%s\\n" "${0##*/}" >> "$RAN_LOG"\n')
        stub.chmod(0o755)
    return root


def _policy() -> PermissionPolicy:
    rules = [ToolRule(tool="run_command", policy="allow", pattern=f"{name} *") for name in ALLOWED]
    return PermissionPolicy(ToolsConfig(rules=rules), InMemoryDecisionStore())


def _run(argv: list[str], root: Path) -> tuple[list[str], list[str]]:
    """What ran (stub names) and which files appeared, for `argv` in a fresh folder."""
    work = root / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    log = root / "ran.log"
    log.write_text("")
    env = shell_env({"PATH": str(root / "bin"), "HOME": str(work / "home"), "RAN_LOG": str(log)})
    try:
        subprocess.run(argv, cwd=work, env=env, timeout=5, capture_output=True, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pass
    ran = log.read_text().split()
    created = sorted(p.name for p in work.iterdir())
    return ran, created


def _generated(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for op in OPERATORS:  # each operator, spaced four ways, before each place a program may hide
        for right in RIGHT:
            for before, after in (("", ""), (" ", ""), (" ", " "), ("", " ")):
                out.append(f"ls{before}{op}{after}{right}")
    for op1 in OPERATORS:  # every pair of operators
        for op2 in OPERATORS[::3]:
            out.append(f"ls {op1} x {op2} evil")
    tokens = [*TOKENS, *OPERATORS, "evil", "EOF"]
    for _ in range(count):
        parts = [rng.choice(tokens) for _ in range(rng.randint(1, 12))]
        out.append(rng.choice(ALLOWED) + " " + "".join(parts))
    return out


def test_what_the_policy_allows_runs_only_the_allowed_programs(
    sandbox: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _policy()
    generated = _generated(seed=12, count=3000)
    allowed = [c for c in generated if policy.decide(RUN, {"command": c}, sandbox / "work") == "allow"]
    problems = []
    for command in allowed:
        ran, created = _run(shell_argv(command), sandbox)
        if not set(ran) <= set(ALLOWED) or created:
            problems.append((command, ran, created))
    with capsys.disabled():
        print(
            f"\nshell differential: {len(generated)} generated from {len(OPERATORS)} operators, {len(allowed)} allowed, "
            f"run as run_command runs them, {len(problems)} escapes"
        )
    assert len(allowed) >= 600  # the generator must reach the allowed side often enough to mean something
    assert problems == []


@pytest.mark.parametrize("command", ["ls -la &>/dev/null evil", "ls &>>/dev/null evil", "ls &>/dev/null; ls"])
def test_dash_reads_what_bash_allows_differently(sandbox: Path, command: str) -> None:
    """Why commands never run under `/bin/sh`: dash reads `ls &>x evil` as `ls &` then `>x evil`. The policy
    allows what bash does (an `ls` with a redirection); bash runs only `ls`, dash would have run `evil`."""
    assert _policy().decide(RUN, {"command": command}, sandbox / "work") == "allow"
    assert set(_run(shell_argv(command), sandbox)[0]) <= set(ALLOWED)
    dash = shutil.which("dash")
    if dash is not None and "evil" in command:
        assert "evil" in _run([dash, "-c", command], sandbox)[0]


@pytest.mark.parametrize(
    "command",
    [
        "ls \\ #$(touch pwned)",  # issue 12
        "ls \\\n;touch pwned",
        'ls "$(touch pwned)"',
        "ls > pwned",
        "ls $(touch pwned)",
    ],
)
def test_the_stubs_see_what_a_shell_runs(sandbox: Path, command: str) -> None:
    """The harness itself: these commands do run something else in a real shell (and the policy asks about them)."""
    assert _policy().decide(RUN, {"command": command}, sandbox / "work") == "ask"
    ran, created = _run(shell_argv(command), sandbox)
    assert "touch" in ran or created == ["pwned"], (ran, created)


def test_the_allowed_commands_do_run(sandbox: Path) -> None:
    assert _policy().decide(RUN, {"command": "ls -la; cat a | cat"}, sandbox / "work") == "allow"
    ran, _ = _run(shell_argv("ls -la; cat a | cat"), sandbox)
    assert sorted(ran) == ["cat", "cat", "ls"]
    assert os.environ.get("RAN_LOG") is None  # the stubs' log is only in the children's environment
