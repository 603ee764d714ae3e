"""`agent-server memory list | show | forget`: the notes kept across sessions (docs/memory-and-skills.md).

The files are plain Markdown: `show` prints where they are and what they hold, `list` numbers the notes (`w1` the
workspace's first, `u1` the user's), `forget REF` removes one. Listing shows the workspace's file even where it is not
loaded (memory off, or the workspace not trusted), and says so.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .config import Settings
from .config_layers import trust_database
from .context_sources.memory import (
    MAX_FILE_BYTES,
    WORKSPACE_FILE,
    NoteError,
    Scope,
    forget,
    read_notes,
    user_memory_path,
)
from .context_sources.session_rules import workspace_trusted
from .errors import SandboxError
from .tools.sandbox import read_regular


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("memory", help="list, show or forget the notes kept across sessions")
    sub = parser.add_subparsers(dest="memory_command", required=True)
    p_list = sub.add_parser("list", help="the notes, numbered (w1: the workspace's, u1: yours)")
    p_list.add_argument("--json", action="store_true", help="print JSON")
    p_show = sub.add_parser("show", help="where the memory files are, whether they are loaded, and their text")
    p_forget = sub.add_parser("forget", help="remove one note: agent-server memory forget w3")
    p_forget.add_argument("ref", help="the note as `list` numbers it: w3 (the workspace's third) or u1 (yours)")
    for p, handler in ((p_list, cmd_list), (p_show, cmd_show), (p_forget, cmd_forget)):
        p.add_argument("--workspace", "-w", help="workspace root (default: the current directory)")
        p.set_defaults(handler=handler)


def _root(args: argparse.Namespace) -> Path:
    return Path(args.workspace or ".").resolve()


def _state(args: argparse.Namespace, root: Path) -> str:
    settings: Settings = args.settings
    if not settings.memory.enabled:
        return "memory is off (memory.enabled = false): no note reaches the model"
    if not workspace_trusted(trust_database(), root):
        return "memory is on; the workspace's file is not loaded (the workspace is not trusted)"
    return "memory is on; both files are loaded"


def cmd_list(args: argparse.Namespace) -> int:
    root = _root(args)
    notes = read_notes("workspace", root) + read_notes("user", root)
    if args.json:
        print(json.dumps([{"ref": n.ref, "scope": n.scope, "text": n.text} for n in notes], indent=2))
        return 0
    print(_state(args, root))
    if not notes:
        print("no notes")
    for note in notes:
        print(f"{note.ref:>4}  {note.text}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    root = _root(args)
    print(_state(args, root))
    for scope, path in (("workspace", root / WORKSPACE_FILE), ("user", user_memory_path())):
        try:
            text = read_regular(path, MAX_FILE_BYTES, truncate=True).decode("utf-8", errors="replace")
        except FileNotFoundError:
            text = "(no file yet)\n"
        except (OSError, SandboxError) as exc:
            text = f"(not read: {exc})\n"
        print(f"\n== {scope}: {path}\n{text.rstrip()}")
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    ref = str(args.ref).strip().lower()
    scopes: dict[str, Scope] = {"w": "workspace", "u": "user"}
    if len(ref) < 2 or ref[0] not in scopes or not ref[1:].isdigit():
        print(f"agent-server: {args.ref!r}: name a note as `list` does (w3, u1)", file=sys.stderr)
        return 2
    try:
        note = forget(scopes[ref[0]], _root(args), int(ref[1:]))
    except NoteError as exc:
        print(f"agent-server: {exc}", file=sys.stderr)
        return 1
    print(f"forgot {ref}: {note.text}")
    return 0
