"""The policy against the real shells: every generated command the policy lets through under `ls *` / `cat *` is run
by `sh` (and bash), and must run nothing but `ls` and `cat` and create no file.

Commands are built (seeded, 2,000 of them) from shell metacharacters, so they hit the places where a grammar and a shell can disagree
(escapes, comments, quotes, substitutions, redirections). Every program name a command could reach is a logging
stub on a private PATH; the shell's own builtins cannot create files here except through redirections, which
the check on the folder catches.
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

RUN = next(t for t in builtin_tools() if t.name == "run_command")
ALLOWED = ("ls", "cat")
STUBS = ("ls", "cat", "touch", "id", "rm", "x", "sh", "bash", "env", "python3", "xargs", "tee", "true", "whoami")
TOKENS = [
    "ls", "cat", " ", " ", " ", "\\", "#", "$", "(", ")", "`", "'", '"', ";", "|", "&", ">", "<", "\n", "{", "}",
    "x", "id", "touch", "=", "*", "~", "-la", "$'", "\t", "!", "[", "]", ",", "\\ ", "$(", "<(", "${", "2>&1",
    "/dev/null", "sh", "a",
]  # fmt: skip
SHELLS = sorted({os.path.realpath(s) for s in ("/bin/sh", shutil.which("bash"), shutil.which("dash")) if s})


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


def _run(shell: str, command: str, root: Path) -> tuple[list[str], list[str]]:
    """What ran (stub names) and which files appeared, for `command` under `shell -c` in a fresh folder."""
    work = root / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    log = root / "ran.log"
    log.write_text("")
    env = {"PATH": str(root / "bin"), "HOME": str(work / "home"), "RAN_LOG": str(log)}
    try:
        subprocess.run([shell, "-c", command], cwd=work, env=env, timeout=5, capture_output=True, check=False)
    except subprocess.TimeoutExpired:
        pass
    ran = log.read_text().split()
    created = sorted(p.name for p in work.iterdir())
    return ran, created


def _generated(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        parts = [rng.choice(TOKENS) for _ in range(rng.randint(1, 12))]
        out.append(rng.choice(ALLOWED) + " " + "".join(parts))
    return out


def test_what_the_policy_allows_runs_only_the_allowed_programs(
    sandbox: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _policy()
    allowed = [
        c for c in _generated(seed=12, count=2000) if policy.decide(RUN, {"command": c}, sandbox / "work") == "allow"
    ]
    problems = []
    for command in allowed:
        for shell in SHELLS:
            ran, created = _run(shell, command, sandbox)
            if not set(ran) <= set(ALLOWED) or created:
                problems.append((shell, command, ran, created))
    with capsys.disabled():
        print(
            f"\nshell differential: 2000 generated, {len(allowed)} allowed, run by {len(SHELLS)} shells, {len(problems)} escapes"
        )
    assert len(allowed) >= 150  # the generator must reach the allowed side often enough to mean something
    assert problems == []


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
    ran, created = _run("/bin/sh", command, sandbox)
    assert "touch" in ran or created == ["pwned"], (ran, created)


def test_the_allowed_commands_do_run(sandbox: Path) -> None:
    assert _policy().decide(RUN, {"command": "ls -la; cat a | cat"}, sandbox / "work") == "allow"
    ran, _ = _run("/bin/sh", "ls -la; cat a | cat", sandbox)
    assert sorted(ran) == ["cat", "cat", "ls"]
    assert os.environ.get("RAN_LOG") is None  # the stubs' log is only in the children's environment
