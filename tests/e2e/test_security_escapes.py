"""Escape attempts through the real server process: the model's tool calls try to reach outside the workspace.

Every attempt is one tool call scripted through the fake LLM. Each asserts that no file outside the workspace
changed or appeared, that no outside content came back, and (for commands) that the user was asked. File tools are
approved whenever they ask, so the sandbox alone has to stop them; writes that the sandbox refuses must fail before
anyone is asked (issue 12 item 11). A summary line counts attempts and escapes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import PERMISSION, final_tool_updates, install_apply_edit, prompt, update_text
from tests.fakes.fake_llm import FakeLLMServer, FakeToolCall, Reply, ToolCalls
from tests.lsp_client import LspClient

SECRET = "OUTSIDE-SECRET-CONTENT-7f3a"
SECRET_NAME = "outside-secret.txt"


@dataclass
class Attempt:
    tool: str
    args: dict[str, Any]
    must_ask: bool = False  # commands: the permission request must come
    must_not_ask: bool = False  # writes the sandbox refuses: refused before asking
    leak_names: bool = False  # listing tools: outside file names must not appear either


@dataclass
class Outcome:
    attempt: Attempt
    text: str
    asked: bool
    problems: list[str] = field(default_factory=list)


@dataclass
class World:
    root: Path  # tmp_path: holds the workspace, the outside folder and the fake home
    ws: Path
    outside: Path
    home: Path

    def marker(self, name: str) -> Path:
        return self.outside / f"pwned-{name}"

    def snapshot(self) -> dict[str, str]:
        """Every file outside the workspace we can watch: outside, home, the root's loose files, /etc/passwd."""
        seen: dict[str, str] = {}
        for base in (self.outside, self.home):
            for path in sorted(base.rglob("*")):
                if path.is_file() and not path.is_symlink():
                    seen[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
        for path in self.root.iterdir():
            if path.is_file() and not path.name.startswith("agent.db"):
                seen[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
        seen["/etc/passwd"] = hashlib.sha256(Path("/etc/passwd").read_bytes()).hexdigest()
        return seen


@pytest.fixture
def world(tmp_path: Path, workspace: Path) -> World:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / SECRET_NAME).write_text(SECRET + "\n")
    (outside / "hard-secret.txt").write_text(SECRET + " (hard)\n")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("# untouched\n")
    (tmp_path / "loose.txt").write_text(SECRET + "\n")
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("print('hello')\n")
    (workspace / "link_out").symlink_to(outside)  # a symlinked folder
    (workspace / "file_link").symlink_to(outside / SECRET_NAME)  # a symlinked file
    (workspace / "parent_link").symlink_to(tmp_path)  # a symlinked parent
    (workspace / "src" / "up").symlink_to("../..")  # a relative link climbing out
    (workspace / "hard.txt").hardlink_to(outside / "hard-secret.txt")  # a hard link
    return World(tmp_path, workspace, outside, home)


def path_attempts(w: World) -> list[Attempt]:
    long_dots = "../" * 300 + "outside/" + SECRET_NAME
    very_long = "a/" * 3000 + "../" * 3001 + "outside/" + SECRET_NAME
    reads = [
        "../outside/" + SECRET_NAME,
        str(w.outside / SECRET_NAME),
        "/etc/passwd",
        "~/.bashrc",
        "link_out/" + SECRET_NAME,
        "file_link",
        "parent_link/outside/" + SECRET_NAME,
        "src/up/outside/" + SECRET_NAME,
        "hard.txt",
        "src/../../outside/" + SECRET_NAME,
        "..\\outside\\" + SECRET_NAME,  # Windows-style separators
        "C:\\Windows\\win.ini",
        "C:/outside/" + SECRET_NAME,
        "src/app.py\x00/../../../outside/" + SECRET_NAME,  # NUL
        "\u2025/outside/" + SECRET_NAME,  # two-dot leader
        "\uff0e\uff0e/outside/" + SECRET_NAME,  # fullwidth dots
        "%2e%2e/outside/" + SECRET_NAME,
        "file://" + str(w.outside / SECRET_NAME),
        "//" + str(w.outside / SECRET_NAME).lstrip("/"),
        "/proc/self/root" + str(w.outside / SECRET_NAME),
        long_dots,
        very_long,
        "../loose.txt",
    ]
    out = [Attempt("read_file", {"path": p}) for p in reads]
    for p in ["..", "link_out", "parent_link", "src/up", "/", str(w.outside), "../outside", "~"]:
        out.append(Attempt("list_directory", {"path": p}, leak_names=True))
    for p in [".", "..", "link_out", "parent_link", "src/up", "/", str(w.outside), "hard.txt", "file_link"]:
        out.append(Attempt("search_text", {"pattern": "OUTSIDE.SECRET", "path": p}))
    for pattern in ["**/*", "../**/*", "/**/outside-*", "link_out/*", "parent_link/**/*", "**/hard*", "~/*"]:
        out.append(Attempt("find_files", {"pattern": pattern}, leak_names=True))
    out.append(Attempt("codebase_search", {"query": "outside secret content"}))
    writes = [
        ("../outside/new.txt", True),
        (str(w.outside / "new-abs.txt"), True),
        ("link_out/new-link.txt", True),
        ("file_link", True),
        ("parent_link/outside/new-parent.txt", True),
        ("src/up/outside/new-up.txt", True),
        ("hard.txt", True),
        ("../loose.txt", True),
        (str(w.home / ".bashrc"), True),
        ("/proc/self/root" + str(w.outside / "new-proc.txt"), True),
        (long_dots.replace(SECRET_NAME, "new-long.txt"), True),
        ("..\\outside\\new-win.txt", False),  # a file name with backslashes, inside the workspace
        ("~/.bashrc", False),  # a folder named "~" inside the workspace
        ("new\x00.txt", True),
    ]
    for p, outside in writes:
        out.append(Attempt("write_file", {"path": p, "content": "pwned"}, must_not_ask=outside))
    for p in ["../outside/" + SECRET_NAME, "file_link", "link_out/" + SECRET_NAME, "hard.txt", "src/up/loose.txt"]:
        out.append(Attempt("edit_file", {"path": p, "old_text": "OUTSIDE", "new_text": "pwned"}, must_not_ask=True))
    for cwd in ["..", str(w.outside), "link_out", "parent_link", "src/up"]:
        command = f"touch {w.marker('cwd')}"
        out.append(Attempt("run_command", {"command": command, "cwd": cwd}, must_not_ask=True))
    return out


# Shell constructs that run or write something an allow for `ls`/`echo` never approved. `{m}` is a marker path
# outside the workspace: if it appears, the command ran.
CONSTRUCTS = [
    "ls \\ #$(touch {m})",
    "ls -la \\\n; touch {m}",
    "ls $(touch {m})",
    "ls `touch {m}`",
    'ls "$(touch {m})"',
    "ls x$(touch {m})y",
    "ls <(touch {m})",
    "ls $'\\x24(touch {m})'",
    "ls ${{X:=$(touch {m})}}",
    "ls > {m}",
    "ls >> {m}",
    "ls &> {m}",
    "ls <<EOF\n$(touch {m})\nEOF",
    "ls <<< $(touch {m})",
    "ls; touch {m}",
    "ls && touch {m}",
    "ls || touch {m}; touch {m}",
    "ls & touch {m}",
    "ls\ntouch {m}",
    "echo touch {m} | sh",
    "ls; eval touch {m}",
    "ls; exec touch {m}",
    "ls; command touch {m}",
    "env X=1 touch {m}",
    "X=1 ls; touch {m}",
    "ls() {{ touch {m}; }}; ls",
    "{{touch,{m}}}",
    "$(echo touch) {m}",
    "ls; if true; then touch {m}; fi",
    "for f in $(touch {m}); do ls; done",
    "ls 'unclosed; touch {m}",
]


# Every redirection and control operator bash and dash know (issue 23): placed between an allowed `ls` and a
# `touch` of a marker outside the workspace. Where a shell other than the policy's parser reads the operator
# differently (dash: `ls &>/dev/null touch M` is `ls &` then `>/dev/null touch M`), the marker appears.
OPERATORS = [
    "&>", "&>>", ">|", "|&", "<>", ">&", "<&", "2>&1", "1>&2", ">&2", "3<>", ">&-", "<&-", "2>&-", "{fd}>", ";;",
    ";&", ";;&", "&", "&&", "||", "|", ";", "\n", "\r\n", "(", ")", "{", "}", "$(", "`", "<(", ">(", "<<", "<<-",
    "<<<", "!", "#", "\\\n", "$((", "((", "[[", "coproc", "time",
]  # fmt: skip
OPERATOR_FORMS = ["ls -la {op}/dev/null touch {m}", "ls {op} touch {m}", "ls{op}touch {m}", "ls {op}1 touch {m}"]


def operator_attempts(w: World, tag: str) -> list[Attempt]:
    out = []
    for i, op in enumerate(OPERATORS):
        for j, form in enumerate(OPERATOR_FORMS):
            command = form.format(op=op, m=w.marker(f"{tag}-op{i}-{j}"))
            out.append(Attempt("run_command", {"command": command}))  # asked or not: the marker must not appear
    return out


def command_attempts(w: World, tag: str, first_words: tuple[str, ...]) -> list[Attempt]:
    out = []
    for i, template in enumerate(CONSTRUCTS):
        command = template.format(m=w.marker(f"{tag}-{i}"))
        for word in first_words:
            if command.startswith("ls") and word != "ls":
                command = word + command[2:]
        out.append(Attempt("run_command", {"command": command}, must_ask=True))
    return out


async def run_attempts(
    client: LspClient, fake: FakeLLMServer, w: World, attempts: list[Attempt], batch: int = 12
) -> list[Outcome]:
    """Script the attempts as tool calls (a fresh session per batch) and check each one."""
    asked: list[dict[str, Any]] = []

    def answer(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        tool_name = str(params["toolCall"].get("title", ""))
        # File tools are approved: the sandbox alone must stop them. Commands are declined, so a marker that
        # appears proves a command ran without asking.
        is_command = params["toolCall"].get("kind") == "execute" or "$ " in tool_name
        option = "reject_once" if is_command else "allow_once"
        return {"outcome": {"outcome": "selected", "optionId": option}}

    client.handlers[PERMISSION] = answer
    # Approved writes land on disk through workspace/applyEdit, as in an editor that saves at once.
    edits = install_apply_edit(client)
    outcomes: list[Outcome] = []
    for start in range(0, len(attempts), batch):
        chunk = attempts[start : start + batch]
        before = w.snapshot()
        markers_before = set(w.outside.glob("pwned-*"))
        edits.clear()
        sid = await new_session(client, w.ws)
        fake.script(
            Reply(steps=[ToolCalls([FakeToolCall(a.tool, a.args) for a in chunk])]),
            Reply.text("done"),
        )
        asked.clear()
        assert await prompt(client, sid, "try") == "end_turn"
        starts = [u for u in client.updates(sid) if u["sessionUpdate"] == "tool_call"]
        finals = {u["toolCallId"]: u for u in final_tool_updates(client, sid)}
        asked_ids = {p["toolCall"]["toolCallId"] for p in asked}
        assert len(starts) == len(chunk), (len(starts), len(chunk))
        after = w.snapshot()
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        for attempt, started in zip(chunk, starts, strict=True):
            call_id = started["toolCallId"]
            text = update_text(finals[call_id])
            outcome = Outcome(attempt, text, call_id in asked_ids)
            if SECRET in text:
                outcome.problems.append("outside content returned")
            if attempt.leak_names and (SECRET_NAME in text or "hard-secret" in text):
                outcome.problems.append("outside file names listed")
            if attempt.must_ask and not outcome.asked:
                outcome.problems.append("ran without asking")
            if attempt.must_not_ask and outcome.asked:
                outcome.problems.append("asked before the sandbox refused it")
            if attempt.must_not_ask and finals[call_id]["status"] != "failed":
                outcome.problems.append("not refused")
            outcomes.append(outcome)
        if changed:
            outcomes[-1].problems.append(f"files outside changed in this batch: {changed}")
        markers = sorted(p.name for p in set(w.outside.glob("pwned-*")) - markers_before)
        if markers:
            outcomes[-1].problems.append(f"commands ran: {markers}")
        uris = [c.get("textDocument", c).get("uri", "") for e in edits for c in e["edit"].get("documentChanges") or []]
        stray = [u for u in uris if not u.startswith(w.ws.as_uri() + "/")]
        if stray:
            outcomes[-1].problems.append(f"edits sent to the editor outside the workspace: {stray}")
    return outcomes


def report(label: str, outcomes: list[Outcome], capsys: pytest.CaptureFixture[str]) -> None:
    escapes = [o for o in outcomes if o.problems]
    with capsys.disabled():  # shown in every run, also in CI's quiet output
        print(f"\nsecurity escapes ({label}): {len(outcomes)} attempts, {len(escapes)} escapes")
    detail = "\n".join(f"{o.attempt.tool} {o.attempt.args!r}: {o.problems} -> {o.text[:200]!r}" for o in escapes)
    assert not escapes, detail


async def test_path_escapes_through_every_file_tool(
    start_server: Start, world: World, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    client = await start_server(world.ws, llm_options(fake_llm), env={"HOME": str(world.home)})
    attempts = path_attempts(world)
    outcomes = await run_attempts(client, fake_llm, world, attempts)
    assert (world.outside / SECRET_NAME).read_text() == SECRET + "\n"
    assert (world.outside / "hard-secret.txt").read_text() == SECRET + " (hard)\n"
    report("paths", outcomes, capsys)
    assert len(outcomes) >= 60
    # The approvals did work: the two odd-looking names that stay inside the workspace were written there.
    assert (world.ws / "..\\outside\\new-win.txt").read_text() == "pwned"
    assert (world.ws / "~" / ".bashrc").read_text() == "pwned"


async def test_command_escapes_under_always_allow_decisions(
    start_server: Start, world: World, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    client = await start_server(world.ws, llm_options(fake_llm), env={"HOME": str(world.home)})
    # The user chose "Always allow" on `ls -la` and on `echo hi`.
    client.handlers[PERMISSION] = lambda p: {"outcome": {"outcome": "selected", "optionId": "allow_always"}}
    sid = await new_session(client, world.ws)
    fake_llm.script(
        Reply(steps=[ToolCalls([FakeToolCall("run_command", {"command": "ls -la"})])]),
        Reply(steps=[ToolCalls([FakeToolCall("run_command", {"command": "echo hi"})])]),
        Reply.text("ok"),
    )
    await prompt(client, sid, "list")
    listed = (await client.request("agent/_permissions/list", {"cwd": str(world.ws)}))["decisions"]
    assert sorted(d["pattern"] for d in listed) == ["echo *", "ls *"]
    attempts = command_attempts(world, "decision", ("ls",))
    outcomes = await run_attempts(client, fake_llm, world, attempts)
    report("commands under always-allow", outcomes, capsys)


async def test_command_escapes_under_allow_pattern_rules(
    start_server: Start, world: World, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = [
        {"tool": "run_command", "policy": "allow", "pattern": "ls*"},
        {"tool": "run_command", "policy": "allow", "pattern": "pytest*"},
        {"tool": "run_command", "policy": "allow", "pattern": "echo *"},
    ]
    options = {**llm_options(fake_llm), "tools": {"rules": rules}}
    client = await start_server(world.ws, options, env={"HOME": str(world.home)})
    attempts = command_attempts(world, "rule-ls", ("ls",)) + command_attempts(world, "rule-pytest", ("pytest",))
    outcomes = await run_attempts(client, fake_llm, world, attempts)
    report("commands under allow patterns", outcomes, capsys)


async def test_every_shell_operator_under_always_allow_and_allow_rules(
    start_server: Start, world: World, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The policy parses bash and the command runs under bash (never `/bin/sh`): whatever the operator, an allowed
    `ls` never runs the `touch` after it."""
    rules = [{"tool": "run_command", "policy": "allow", "pattern": p} for p in ("git status*", "pytest*", "npm test*")]
    rules.append({"tool": "run_command", "policy": "allow", "pattern": "ls -la"})
    options = {**llm_options(fake_llm), "tools": {"rules": rules}}
    client = await start_server(world.ws, options, env={"HOME": str(world.home), "SHELL": "/bin/sh"})
    client.handlers[PERMISSION] = lambda p: {"outcome": {"outcome": "selected", "optionId": "allow_always"}}
    sid = await new_session(client, world.ws)
    fake_llm.script(Reply(steps=[ToolCalls([FakeToolCall("run_command", {"command": "ls -l"})])]), Reply.text("ok"))
    await prompt(client, sid, "list")
    listed = (await client.request("agent/_permissions/list", {"cwd": str(world.ws)}))["decisions"]
    assert [d["pattern"] for d in listed] == ["ls *"]
    attempts = operator_attempts(world, "op")
    for first in ("git status", "pytest"):
        attempts += [
            Attempt("run_command", {"command": a.args["command"].replace("ls", first, 1)})
            for a in operator_attempts(world, first.replace(" ", "_"))[::3]
        ]
    outcomes = await run_attempts(client, fake_llm, world, attempts, batch=15)
    report("every shell operator", outcomes, capsys)
    assert len(outcomes) >= 200
