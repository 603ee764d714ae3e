"""Rules discovery and budgeting on real files: formats, links out of the workspace, cuts in small windows."""

from __future__ import annotations

from pathlib import Path

from agent_server.context import estimate_text
from agent_server.context_sources.rules import discover, nested_for
from agent_server.context_sources.rules_prompt import RulesCache, budget_for, render


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_formats_scopes_and_links(tmp_path: Path) -> None:
    ws, user, outside = tmp_path / "ws", tmp_path / "user", tmp_path / "secret.md"
    outside.write_text("TOKEN=outside")
    write(user, "rules/b.md", "user b")
    write(user, "rules/a.md", "user a")
    write(ws, ".clinerules", "cline as a file")
    write(ws, ".continue/rules/always.md", "---\nglobs: '**/*.py'\nalwaysApply: true\n---\ncontinue always")
    write(ws, ".continue/rules/py.md", "---\nglobs: ['**/*.py', 'tests/**']\n---\ncontinue py")
    write(ws, ".cursor/rules/broken.mdc", "---\nglobs: [unclosed\n---\nbroken header is kept as text")
    (ws / "AGENTS.md").symlink_to(outside)  # a repository cannot make the server read a file outside it
    write(ws, "CLAUDE.md", "   \n")  # empty: nothing to say
    rules = discover(ws, user)
    assert rules[0].label.endswith("rules/a.md") and rules[1].label.endswith("rules/b.md")
    assert [(r.label, r.scope) for r in rules[2:]] == [
        (".cursor/rules/broken.mdc", "workspace"),
        (".clinerules", "workspace"),
        (".continue/rules/always.md", "workspace"),
        (".continue/rules/py.md", "workspace"),
    ]
    assert [(r.body, r.scope) for r in rules[:2]] == [("user a", "user"), ("user b", "user")]
    assert "broken header is kept" in rules[2].body
    assert rules[4].globs == () and rules[5].globs == ("**/*.py", "tests/**")
    assert all("TOKEN" not in r.body for r in rules)


def test_nested_stops_at_the_path_and_ignores_the_root(tmp_path: Path) -> None:
    write(tmp_path, "AGENTS.md", "root")
    write(tmp_path, "a/AGENTS.md", "a rules")
    write(tmp_path, "a/b/CLAUDE.md", "b rules")
    write(tmp_path, "a/b/c/x.py", "")
    write(tmp_path, "z/AGENTS.md", "z rules")
    found = nested_for(tmp_path, "a/b/c/x.py")
    assert [(r.label, r.folder) for r in found] == [("a/AGENTS.md", "a"), ("a/b/CLAUDE.md", "a/b")]
    assert nested_for(tmp_path, "x.py") == []


def test_budget_keeps_order_cuts_at_lines_and_names_the_cut(tmp_path: Path) -> None:
    write(tmp_path, "AGENTS.md", "short root rule")
    write(tmp_path, "CONVENTIONS.md", "".join(f"rule line {i}\n" for i in range(2000)))
    write(tmp_path, ".cursorrules", "tiny")
    rules = discover(tmp_path, tmp_path / "no-user")
    for window in (4096, 8192, 32768):
        block = render(rules, budget_for(window, 2000), trusted=False)
        assert estimate_text(block.text) <= budget_for(window, 2000)
        assert block.files == ["AGENTS.md", "CONVENTIONS.md", ".cursorrules"]
        assert block.cut[0].startswith("CONVENTIONS.md (lines ") and "rule line 1999" not in block.text
    assert render(rules, 0, trusted=False).text == ""


def test_cache_reads_again_only_when_a_file_changes(tmp_path: Path) -> None:
    path = write(tmp_path, "AGENTS.md", "v1")
    cache = RulesCache(tmp_path / "no-user")
    first, _ = cache.get(tmp_path, 500, False)
    assert cache.get(tmp_path, 500, False)[0] is first
    path.write_text("version two")
    second, _ = cache.get(tmp_path, 500, False)
    assert "version two" in second.text and "v1" not in second.text
    write(tmp_path, ".cursorrules", "new file")
    assert "new file" in cache.get(tmp_path, 500, False)[0].text
