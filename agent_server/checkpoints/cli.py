"""`agent-server checkpoints list | show | restore`: review and undo what a turn changed, from the terminal."""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import sys
from datetime import datetime
from pathlib import Path

from ..config import Settings
from ..store import Store
from .manager import CheckpointLimits, CheckpointNotFoundError, CheckpointService, FileDiff


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("checkpoints", help="review or undo what the agent's turns changed")
    sub = parser.add_subparsers(dest="checkpoints_command", required=True)
    p = sub.add_parser("list", help="checkpoints of a session, or of a workspace (oldest first)")
    p.add_argument("--session", "-s", help="a session id (default: every session of the workspace)")
    p.add_argument("--workspace", "-w", help="workspace root (default: the current directory)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_list)
    p = sub.add_parser("show", help="what the checkpoint's turn changed, as a diff")
    p.add_argument("id")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_show)
    p = sub.add_parser("restore", help="put the files back as they were before the checkpoint's turn")
    p.add_argument("id")
    p.add_argument("--conversation", action="store_true", help="also cut the conversation at that turn")
    p.add_argument("--dry-run", action="store_true", help="only show what would change")
    p.add_argument("--only-turn", action="store_true", help="reverse only that turn's own changes (later changes stay)")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    p.set_defaults(handler=cmd_restore)


def _service(args: argparse.Namespace) -> tuple[Store, CheckpointService]:
    settings: Settings = args.settings
    cfg = settings.checkpoints
    store = Store(settings.database_path())
    return store, CheckpointService(store, CheckpointLimits(cfg.max_per_session, cfg.max_age_days, cfg.max_file_bytes))


def unified(diff: FileDiff) -> str:
    """A git-style diff of one file (binary files are named, not shown)."""
    old_name = "/dev/null" if diff.status == "added" else f"a/{diff.path}"
    new_name = "/dev/null" if diff.status == "deleted" else f"b/{diff.path}"
    if diff.binary:
        return f"Binary file {diff.path} {diff.status}\n"
    lines = difflib.unified_diff(
        (diff.old_text or "").splitlines(keepends=True),
        (diff.new_text or "").splitlines(keepends=True),
        old_name,
        new_name,
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def cmd_list(args: argparse.Namespace) -> int:
    workspace = None if args.session else str(Path(args.workspace or ".").resolve())
    store, service = _service(args)
    with store:
        records = asyncio.run(service.list_checkpoints(args.session, workspace))
    if args.json:
        print(json.dumps([r.__dict__ for r in records], indent=2))
        return 0
    if not records:
        print(f"no checkpoints for {args.session or workspace}")
    for r in records:
        when = datetime.fromtimestamp(r.created_at).strftime("%Y-%m-%d %H:%M")
        prompt = r.prompt.splitlines()[0][:60] if r.prompt else ""
        print(f"{r.id}  {when}  {r.kind:5}  {r.session_id}  {prompt}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    store, service = _service(args)
    with store:
        try:
            diffs = asyncio.run(service.changes(args.id))
        except CheckpointNotFoundError as exc:
            print(f"agent-server: {exc}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps([d.__dict__ for d in diffs], indent=2))
        return 0
    if not diffs:
        print("the turn changed nothing (or it was undone since)")
    for d in diffs:
        sys.stdout.write(unified(d))
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from . import hook as checkpointing

    store, service = _service(args)
    with store:
        try:
            preview = asyncio.run(service.preview_restore(args.id, args.only_turn))
        except CheckpointNotFoundError as exc:
            print(f"agent-server: {exc}", file=sys.stderr)
            return 1
        for d in preview.files:
            sys.stdout.write(unified(d))
            if d.created_later:
                print(f"note: {d.path} was created after that turn (kept in the checkpoint taken before restoring)")
        for c in preview.conflicts:
            print(f"conflict, left as it is: {c.path}: {c.reason}")
        if not preview.files:
            print("the files are already as they were before that turn")
        if args.dry_run:
            return 0
        if not args.yes:
            if not sys.stdin.isatty():
                print("agent-server: not restoring without --yes (no terminal to confirm on)", file=sys.stderr)
                return 1
            what = "files and conversation" if args.conversation else "files"
            if input(f"Restore the {what} shown above? [y/N] ").strip().lower() not in ("y", "yes"):
                print("nothing restored")
                return 1
        result = asyncio.run(
            checkpointing.restore(service, store, {}, args.id, None, args.conversation, args.only_turn)
        )
    print(f"restored {len(result.files)} file(s)" + (" and cut the conversation" if result.conversation_cut else ""))
    for note in result.notes:
        print(f"note: {note}")
    if result.undo_checkpoint_id:
        print(f"to undo this restore: agent-server checkpoints restore {result.undo_checkpoint_id} --only-turn")
    return 0
