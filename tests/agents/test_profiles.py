"""Agent profiles as files: parsing, validation errors that name the file and key, scopes, trust, the builder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_server.agents import ProfileError, load_catalog, parse_profile
from agent_server.agents.builder import create_profile, render_profile
from agent_server.agents.loader import WORKSPACE_DIR


def write(root: Path, name: str, text: str) -> Path:
    path = root / WORKSPACE_DIR / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_builtin_profiles_all_load(tmp_path: Path) -> None:
    catalog = load_catalog(None, user=tmp_path / "none")
    assert catalog.errors == []
    assert {"code", "ask", "plan", "task", "orchestrate"} <= set(catalog.profiles)
    assert catalog.get("ask").read_only and catalog.get("plan").read_only and not catalog.get("code").read_only
    assert not catalog.get("plan").offers("write_file") and catalog.get("plan").offers("update_plan")
    assert catalog.get("ask").offers("task_completion", loop_breaking=True)
    assert catalog.get("task").spec.kind == "task"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("no frontmatter", "must start with YAML frontmatter"),
        ("---\nname: x\n", "no closing '---'"),
        ("---\nname: [unclosed\n---\n", "not valid YAML"),
        ("---\n- a list\n---\n", "must be a mapping"),
        ("---\nname: rev\nmax_rounds: lots\n---\n", "max_rounds"),
        ("---\nname: rev\ntemperature: 7\n---\n", "temperature"),
        ("---\nname: rev\nkind: wizard\n---\n", "kind"),
        ("---\nname: rev\ntols: [read_file]\n---\n", "tols"),
        ("---\nname: rev\npermissions: {write_file: sometimes}\n---\n", "permissions"),
        ("---\nname: Bad Name\n---\n", "name"),
        ("---\nname: other\n---\n", "differs from the file name"),
    ],
)
def test_errors_name_the_file_and_the_key(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "rev.md"
    with pytest.raises(ProfileError) as err:
        parse_profile(text, path, "workspace")
    assert str(path) in str(err.value) and expected in str(err.value)


@pytest.mark.parametrize("tools", [["read_file", "rename_symbol"], ["*_symbol"], ["hover", "rename_*"]])
def test_a_profile_that_can_rename_or_run_is_not_read_only(tools: list[str]) -> None:
    """Read-only is judged by the tools' kinds: rename_symbol edits files (it was missing from a list of names)."""
    profile = parse_profile(f"---\nname: renamer\ntools: {json.dumps(tools)}\n---\nRename things.\n", None, "user")
    assert not profile.read_only
    assert parse_profile("---\nname: looker\ntools: [read_*, find_*, hover]\n---\nLook.\n", None, "user").read_only


def test_a_broken_file_is_reported_and_the_others_still_load(tmp_path: Path) -> None:
    write(tmp_path, "good", "---\ndescription: fine\ntools: [read_file]\n---\nBe good.\n")
    bad = write(tmp_path, "bad", "---\nmax_rounds: -3\n---\n")
    catalog = load_catalog(tmp_path, user=tmp_path / "none")
    assert catalog.get("good").prompt == "Be good." and catalog.get("good").scope == "workspace"
    assert "bad" not in catalog.profiles
    assert len(catalog.errors) == 1 and str(bad) in catalog.errors[0] and "max_rounds" in catalog.errors[0]


def test_scopes_override_in_order(tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    (user / "ask.md").write_text("---\ndescription: mine\n---\nuser ask\n")
    assert load_catalog(None, user=user).get("ask").prompt == "user ask"
    repo = write(tmp_path, "ask", "---\ndescription: repo\n---\nrepo ask\n")
    # A repository's profile replaces the user's (or a built-in) only once the user trusted it (issue 23).
    assert load_catalog(tmp_path, user=user, trusted=lambda ws, f: f == repo).get("ask").prompt == "repo ask"
    untrusted = load_catalog(tmp_path, user=user)
    assert untrusted.get("ask").prompt == "user ask"
    assert any(str(repo) in e and "trust" in e for e in untrusted.errors)


def test_an_untrusted_workspace_cannot_replace_a_built_in_mode(tmp_path: Path) -> None:
    for name in ("plan", "ask", "code"):
        write(tmp_path, name, f"---\ndescription: evil\npermissions: {{run_command: deny}}\n---\nevil {name}\n")
    catalog = load_catalog(tmp_path, user=tmp_path / "none")
    for name in ("plan", "ask", "code"):
        assert catalog.get(name).scope == "builtin" and "evil" not in catalog.get(name).prompt
    assert sum("would replace the builtin profile" in e for e in catalog.errors) == 3


def test_workspace_profiles_may_tighten_but_not_loosen_untrusted(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "yolo",
        "---\npermissions:\n  run_command: allow\n  write_file: deny\n---\n",
    )
    untrusted = load_catalog(tmp_path, lambda ws, f: False, user=tmp_path / "none").get("yolo")
    assert [(r.tool, r.policy) for r in untrusted.rules()] == [("write_file", "deny")]
    assert untrusted.notices and "run_command" in untrusted.notices[0] and "trust" in untrusted.notices[0]
    seen: list[Path] = []

    def trusted(ws: Path, f: Path) -> bool:
        seen.append(f)
        return True

    kept = load_catalog(tmp_path, trusted, user=tmp_path / "none").get("yolo")
    assert seen == [path] and {r.tool for r in kept.rules()} == {"run_command", "write_file"} and not kept.notices


def test_builder_writes_a_valid_profile_and_never_overwrites(tmp_path: Path) -> None:
    path = create_profile(tmp_path, name="reviewer", description="Reviews: diffs", tools=["read_file", "search_*"])
    profile = load_catalog(tmp_path, user=tmp_path / "none").get("reviewer")
    assert profile.path == path and profile.spec.tools == ["read_file", "search_*"] and profile.offers("search_text")
    assert not profile.offers("write_file")
    with pytest.raises(FileExistsError):
        create_profile(tmp_path, name="reviewer")
    with pytest.raises(ProfileError):
        create_profile(tmp_path, name="Has Spaces")
    assert "name: x" in render_profile("x", "", None, None, "")
