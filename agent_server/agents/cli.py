"""`agent-server agents list | show NAME | new NAME | edit NAME | trust NAME`: the agent builder in the terminal."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from ..config import Settings
from .builder import create_profile, describe_catalog
from .loader import ProfileError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("agents", help="list, show, create or edit agent profiles (modes)")
    sub = parser.add_subparsers(dest="agents_command", required=True)
    p = sub.add_parser("list", help="the profiles a session in the workspace can use")
    p.add_argument("--workspace", "-w", help="workspace root (default: the current directory)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_list)
    p = sub.add_parser("show", help="a profile's file")
    p.add_argument("name")
    p.add_argument("--workspace", "-w")
    p.set_defaults(handler=cmd_show)
    p = sub.add_parser("new", help="create a profile from a short form")
    p.add_argument("name")
    p.add_argument("--description", "-d", default="", help="what the agent is for")
    p.add_argument("--tools", help="comma-separated allowlist (globs allowed), e.g. read_file,search_*")
    p.add_argument("--model", help="a model of the configured LLM server")
    p.add_argument("--prompt", default="", help="instructions appended to the system prompt")
    p.add_argument("--user", action="store_true", help="in your config dir instead of the workspace")
    p.add_argument("--workspace", "-w")
    p.set_defaults(handler=cmd_new)
    p = sub.add_parser("edit", help="open a profile in $EDITOR")
    p.add_argument("name")
    p.add_argument("--workspace", "-w")
    p.set_defaults(handler=cmd_edit)
    p = sub.add_parser("trust", help="let a workspace profile's 'allow' permissions apply (this file content)")
    p.add_argument("name")
    p.add_argument("--workspace", "-w")
    p.set_defaults(handler=cmd_trust)


def _workspace(args: argparse.Namespace) -> Path:
    return Path(args.workspace or ".").resolve()


def _catalog(args: argparse.Namespace) -> dict[str, object]:
    settings: Settings = args.settings
    return describe_catalog(_workspace(args), settings.database_path())


def _find(args: argparse.Namespace) -> dict[str, object] | None:
    agents = _catalog(args)["agents"]
    assert isinstance(agents, list)
    found = next((a for a in agents if a["name"] == args.name), None)
    if found is None:
        names = ", ".join(sorted(str(a["name"]) for a in agents))
        print(f"agent-server: no agent profile named {args.name!r}; the profiles are: {names}", file=sys.stderr)
    return found


def cmd_list(args: argparse.Namespace) -> int:
    data = _catalog(args)
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    for agent in data["agents"]:  # type: ignore[attr-defined]
        tools = ", ".join(agent["tools"]) if agent["tools"] else "every tool"
        print(f"{agent['name']:14} {agent['scope']:9} {agent['kind']:11} {tools}")
        if agent["description"]:
            print(f"{'':14} {agent['description']}")
        for notice in agent["notices"]:
            print(f"{'':14} note: {notice}")
    for error in data["errors"]:  # type: ignore[attr-defined]
        print(f"agent-server: {error}", file=sys.stderr)
    return 1 if data["errors"] else 0


def cmd_show(args: argparse.Namespace) -> int:
    found = _find(args)
    if found is None:
        return 1
    path = found["path"]
    print(f"# {path}")
    print(Path(str(path)).read_text(encoding="utf-8") if path else "")
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    tools = [t.strip() for t in args.tools.split(",") if t.strip()] if args.tools else None
    try:
        path = create_profile(
            None if args.user else _workspace(args),
            name=args.name,
            description=args.description,
            tools=tools,
            model=args.model,
            prompt=args.prompt,
        )
    except (ProfileError, FileExistsError) as exc:
        print(f"agent-server: {exc}", file=sys.stderr)
        return 1
    print(f"created {path}; use it with `agent-server chat --agent {args.name}` or pick it as a mode in the editor")
    return 0


def cmd_edit(args: argparse.Namespace) -> int:
    found = _find(args)
    if found is None:
        return 1
    if found["scope"] == "builtin":
        print(f"agent-server: {args.name} is built in; create your own: agent-server agents new NAME", file=sys.stderr)
        return 1
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return subprocess.call([*shlex.split(editor), str(found["path"])])


def cmd_trust(args: argparse.Namespace) -> int:
    from ..trust import TrustStore, file_digest
    from .loader import WORKSPACE_DIR

    # A workspace file that would replace a built-in profile is not in the catalog until trusted: look for it first.
    path = _workspace(args) / WORKSPACE_DIR / f"{args.name}.md"
    if not path.is_file():
        found = _find(args)
        if found is None:
            return 1
        if found["scope"] != "workspace":
            print(f"{args.name} is not a workspace profile: its permissions already apply")
            return 0
        path = Path(str(found["path"]))
    settings: Settings = args.settings
    TrustStore(settings.database_path()).remember(_workspace(args), file_digest(path), True)
    print(f"trusted {path} (this content; a change is asked about again)")
    return 0
