"""`agent-server sessions list | show | delete`: rich tables on a terminal, plain text (or JSON) otherwise."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any

from ..config import Settings
from ..errors import SessionNotFoundError
from ..messages import Message
from .records import SessionRecord
from .sessions import Store


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `sessions` command with its list/show/delete subcommands."""
    parser = subparsers.add_parser("sessions", help="list, show or delete saved sessions")
    sub = parser.add_subparsers(dest="sessions_command", required=True)
    p_list = sub.add_parser("list", help="saved sessions, newest first")
    p_list.add_argument("--cwd", help="only sessions started in this directory")
    p_list.add_argument("--limit", type=int, default=100)
    p_list.add_argument("--json", action="store_true", help="print JSON")
    p_list.set_defaults(handler=cmd_list)
    p_show = sub.add_parser("show", help="print a session's transcript")
    p_show.add_argument("id")
    p_show.add_argument("--json", action="store_true", help="print JSON")
    p_show.set_defaults(handler=cmd_show)
    p_delete = sub.add_parser("delete", help="delete a session and its messages")
    p_delete.add_argument("id")
    p_delete.set_defaults(handler=cmd_delete)


def _open(args: argparse.Namespace) -> Store:
    settings: Settings = args.settings
    return Store(settings.database_path())


def _when(ts: float) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def _session_json(s: SessionRecord) -> dict[str, Any]:
    return {
        "sessionId": s.id,
        "cwd": s.cwd,
        "title": s.title,
        "model": s.model,
        "updatedAt": s.updated_at_iso,
        "messages": s.message_count,
    }


def cmd_list(args: argparse.Namespace) -> int:
    with _open(args) as store:
        sessions = store.list_sessions(cwd=args.cwd, limit=args.limit)
    if args.json:
        print(json.dumps([_session_json(s) for s in sessions], indent=2))
    elif sys.stdout.isatty():
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        table = Table("id", "updated", "messages", "title", "cwd")
        for s in sessions:
            table.add_row(s.id, _when(s.updated_at), str(s.message_count), escape(s.title or ""), escape(s.cwd))
        Console().print(table)
    else:
        for s in sessions:
            print(f"{s.id}\t{_when(s.updated_at)}\t{s.message_count}\t{s.title or ''}\t{s.cwd}")
    return 0


def _message_json(m: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.thinking:
        out["thinking"] = m.thinking
    if m.tool_calls:
        out["toolCalls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in m.tool_calls]
    if m.tool_call_id:
        out["toolCallId"] = m.tool_call_id
    return out


def cmd_show(args: argparse.Namespace) -> int:
    with _open(args) as store:
        try:
            session = store.get_session(args.id)
            messages = store.transcript(args.id)
        except SessionNotFoundError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps({**_session_json(session), "transcript": [_message_json(m) for m in messages]}, indent=2))
        return 0
    rich = sys.stdout.isatty()
    if rich:
        from rich.console import Console

        console = Console()
        console.rule(f"{session.title or session.id}  [dim]{session.cwd}[/dim]")
    else:
        print(f"# {session.title or session.id} ({session.cwd})")
    for m in messages:
        lines = [m.content] if m.content else []
        lines += [f"→ {c.name}({json.dumps(c.arguments, ensure_ascii=False)[:200]})" for c in m.tool_calls]
        body = "\n".join(lines)
        if rich:
            console.print(f"[bold]{m.role}:[/bold]", end=" ")
            console.print(body, markup=False, highlight=False)
        else:
            print(f"{m.role}: {body}")
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    with _open(args) as store:
        try:
            store.delete_session(args.id)
        except SessionNotFoundError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
    print(f"deleted session {args.id}")
    return 0
