"""Path rules judged on the real path too (issue 38): committed links in a real workspace must not carry an allowed
path to a file no rule allows, nor a denied file past its deny rule; remembered answers do not widen through links."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_server.config import ToolRule, ToolsConfig
from agent_server.tools.builtin import builtin_tools
from agent_server.tools.permissions import InMemoryDecisionStore, PermissionPolicy

TOOLS = {t.name: t for t in builtin_tools()}
RULES = [
    ToolRule(tool="write_file", policy="allow", pattern="docs/**"),
    ToolRule(tool="edit_file", policy="allow", pattern="docs/**"),
    ToolRule(tool="*_file", policy="deny", pattern=".env*"),
    ToolRule(tool="list_directory", policy="deny", pattern="private*"),
    ToolRule(tool="search_text", policy="deny", pattern=".env*"),
    ToolRule(tool="read_file", policy="ask", pattern="secrets/*"),
]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs" / "v2").mkdir(parents=True)
    (root / "secrets").mkdir()
    (root / "private").mkdir()
    (root / "Makefile").write_text("test:\n\ttrue\n")
    (root / ".env").write_text("TOKEN=secret\n")
    (root / "secrets" / "key.pem").write_text("KEY")
    (root / "docs" / "up").symlink_to("..")  # the committed link
    (root / "docs" / "latest").symlink_to("v2")  # a link that stays inside the allowed folder
    (root / "docs" / "later.mk").symlink_to("../Makefile.new")  # its target does not exist yet
    (root / "notes.txt").symlink_to(".env")
    (root / "cfg").symlink_to(".")  # a linked folder
    (root / "box").symlink_to("secrets")
    (root / "stuff").symlink_to("private")
    return root


@pytest.fixture
def policy() -> PermissionPolicy:
    return PermissionPolicy(ToolsConfig(rules=RULES), InMemoryDecisionStore(), InMemoryDecisionStore())


def decide(policy: PermissionPolicy, ws: Path, tool: str, **args: Any) -> str:
    return policy.decide(TOOLS[tool], args, ws)


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("write_file", {"path": "docs/up/Makefile", "content": ""}, "ask"),  # lands on Makefile
        ("edit_file", {"path": "docs/up/Makefile", "old_text": "a", "new_text": "b"}, "ask"),
        ("write_file", {"path": "docs/up/src/new.py", "content": ""}, "ask"),  # a new file under a linked folder
        ("write_file", {"path": "docs/later.mk", "content": ""}, "ask"),  # a link to a file not there yet
        ("read_file", {"path": "notes.txt"}, "deny"),  # notes.txt -> .env
        ("read_file", {"path": "cfg/.env"}, "deny"),  # through a linked folder
        ("read_file", {"path": "docs/up/.env"}, "deny"),
        ("write_file", {"path": "notes.txt", "content": ""}, "deny"),
        ("search_text", {"pattern": "TOKEN", "path": "notes.txt"}, "deny"),
        ("list_directory", {"path": "stuff"}, "deny"),
        ("read_file", {"path": "box/key.pem"}, "ask"),  # an ask rule holds through a link too
    ],
)
def test_a_rule_is_judged_on_the_written_and_the_real_path(
    policy: PermissionPolicy, ws: Path, tool: str, args: dict[str, Any], expected: str
) -> None:
    assert decide(policy, ws, tool, **args) == expected


def test_a_link_that_stays_where_the_rule_allows_is_still_allowed(policy: PermissionPolicy, ws: Path) -> None:
    assert decide(policy, ws, "write_file", path="docs/guide.md", content="") == "allow"  # no link: as before
    assert decide(policy, ws, "write_file", path="docs/latest/a.md", content="") == "allow"  # lands in docs/v2
    assert decide(policy, ws, "read_file", path="docs/up/README.md") == "allow"  # no rule on either form
    assert decide(policy, ws, "write_file", path="docs/up/guide.md", content="") == "ask"  # lands outside docs/


def test_an_absolute_path_through_a_link_is_judged_where_it_lands(policy: PermissionPolicy, ws: Path) -> None:
    assert decide(policy, ws, "write_file", path=str(ws / "docs" / "up" / "Makefile"), content="") == "ask"
    assert decide(policy, ws, "read_file", path=str(ws / "cfg" / ".env")) == "deny"


def test_the_question_says_where_the_path_really_lands(policy: PermissionPolicy, ws: Path) -> None:
    why = policy.why(TOOLS["write_file"], {"path": "docs/up/Makefile", "content": ""}, ws)
    assert why == [
        "write_file on docs/up/Makefile (through a link it is Makefile; a rule must allow both): "
        "no rule or earlier answer allows it"
    ]


@pytest.mark.parametrize("scope", ["always", "session"])
def test_a_remembered_answer_does_not_widen_through_a_link(policy: PermissionPolicy, ws: Path, scope: str) -> None:
    args = {"path": "docs/up/notes.md", "content": ""}
    store = policy.session if scope == "session" else None
    stored = policy.remember(TOOLS["write_file"], args, ws, allow=True, store=store)
    assert sorted(d.pattern or "" for d in stored) == ["docs/up/notes.md", "notes.md"]
    assert decide(policy, ws, "write_file", **args) == "allow"  # the same call is not asked again
    (ws / "docs" / "up").unlink()
    (ws / "docs" / "up").symlink_to("../secrets")  # the link now points elsewhere
    assert decide(policy, ws, "write_file", **args) == "ask"
    assert decide(policy, ws, "write_file", path="docs/up/other.md", content="") == "ask"


def test_an_allow_remembered_for_a_link_s_path_before_does_not_cover_its_target(ws: Path) -> None:
    """A decision stored for the written path alone (as older versions did) no longer lets a link's target through."""
    rules = [ToolRule(tool="write_file", policy="allow", pattern="docs/up/Makefile")]
    policy = PermissionPolicy(ToolsConfig(rules=rules), InMemoryDecisionStore())
    assert decide(policy, ws, "write_file", path="docs/up/Makefile", content="") == "ask"
