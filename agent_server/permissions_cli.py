"""`agent-server permissions list | revoke | trust`: remembered approvals per workspace, and workspace trust."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

from .config import Settings
from .config_layers import WORKSPACE_FILE, trust_database
from .store import Store
from .trust import TrustStore, file_digest


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
    p_trust = sub.add_parser("trust", help="workspaces whose .agent-server.toml may loosen settings (workspace trust)")
    trust_sub = p_trust.add_subparsers(dest="trust_command", required=True)
    t_list = trust_sub.add_parser("list", help="remembered trust answers")
    t_list.add_argument("--json", action="store_true", help="print JSON")
    t_list.set_defaults(handler=cmd_trust_list)
    t_add = trust_sub.add_parser("add", help="trust a workspace's current .agent-server.toml (no question asked)")
    t_add.add_argument("path", help="the workspace root")
    t_add.set_defaults(handler=cmd_trust_add)
    t_revoke = trust_sub.add_parser("revoke", help="forget the answers for a workspace (it is asked about again)")
    t_revoke.add_argument("path", help="the workspace root")
    t_revoke.set_defaults(handler=cmd_trust_revoke)


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


# --- workspace trust ------------------------------------------------------------------------------------------


def _trust_store() -> TrustStore:
    return TrustStore(trust_database())


def cmd_trust_list(args: argparse.Namespace) -> int:
    records = _trust_store().list()
    rows = []
    for r in records:
        config = Path(r.workspace) / WORKSPACE_FILE
        try:
            current = config.is_file() and file_digest(config) == r.config_hash
        except OSError:
            current = False
        rows.append({**r.__dict__, "current": current})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("no workspace has been trusted or distrusted")
    for row in rows:
        verdict = "trusted  " if row["trusted"] else "untrusted"
        when = datetime.fromtimestamp(row["decided_at"]).strftime("%Y-%m-%d %H:%M")
        state = "" if row["current"] else "  (the file has changed since: not in effect)"
        print(f"{verdict}  {row['workspace']}  {row['config_hash'][:12]}  {when}{state}")
    return 0


def cmd_trust_add(args: argparse.Namespace) -> int:
    workspace = Path(args.path).expanduser().resolve()
    config = workspace / WORKSPACE_FILE
    if not config.is_file():
        print(f"agent-server: {config} does not exist: there is nothing to trust", file=sys.stderr)
        return 1
    _trust_store().remember(workspace, file_digest(config), True)
    print(f"trusted {workspace} (this content of {WORKSPACE_FILE}; a change is asked about again)")
    return 0


def cmd_trust_revoke(args: argparse.Namespace) -> int:
    workspace = Path(args.path).expanduser().resolve()
    count = _trust_store().revoke(workspace)
    if not count:
        print(f"agent-server: no trust answer is remembered for {workspace}", file=sys.stderr)
        return 1
    print(f"forgot the trust answers for {workspace}: its risky settings are ignored until it is trusted again")
    return 0
