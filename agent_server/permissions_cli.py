"""`agent-server permissions list | revoke`: the "always allow / always reject" answers stored per workspace."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

from .config import Settings
from .store import Store


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("permissions", help="list or revoke remembered approvals")
    sub = parser.add_subparsers(dest="permissions_command", required=True)
    p_list = sub.add_parser("list", help="remembered approvals of a workspace")
    p_list.add_argument("--workspace", "-w", help="workspace root (default: the current directory)")
    p_list.add_argument("--json", action="store_true", help="print JSON")
    p_list.set_defaults(handler=cmd_list)
    p_revoke = sub.add_parser("revoke", help="forget one remembered approval")
    p_revoke.add_argument("id")
    p_revoke.set_defaults(handler=cmd_revoke)


def _store(args: argparse.Namespace) -> Store:
    settings: Settings = args.settings
    return Store(settings.database_path())


def cmd_list(args: argparse.Namespace) -> int:
    workspace = str(Path(args.workspace or ".").resolve())
    with _store(args) as store:
        decisions = store.list(workspace)
    if args.json:
        print(json.dumps([d.__dict__ for d in decisions], indent=2))
        return 0
    if not decisions:
        print(f"no remembered approvals for {workspace}")
    for d in decisions:
        verdict = "allow" if d.allow else "deny "
        when = datetime.fromtimestamp(d.created).strftime("%Y-%m-%d %H:%M")
        print(f"{d.id}  {verdict}  {d.tool}  {d.pattern or '(any arguments)'}  {when}")
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    with _store(args) as store:
        revoked = store.revoke(args.id)
    if not revoked:
        print(f"agent-server: no remembered approval with id {args.id}", file=sys.stderr)
        return 1
    print(f"revoked {args.id}")
    return 0
