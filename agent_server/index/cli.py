"""`agent-server index [PATH]` and `agent-server search QUERY`: no LLM needed."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # `agent-server serve` builds this parser too: the index itself loads when a command runs
    from .workspace_index import IndexStats


def _workspace(args: argparse.Namespace, positional: str | None = None) -> Path:
    root = Path(positional or args.workspace or ".").expanduser()
    if not root.is_dir():
        raise SystemExit(f"agent-server: not a directory: {root}")
    return root


async def _index(root: Path, db: Path | None) -> IndexStats:
    from .workspace_index import WorkspaceIndex

    index = WorkspaceIndex(root, db)
    try:
        if sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            with Progress(
                TextColumn("indexing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                TextColumn("{task.description}"), transient=True,
            ) as bar:  # fmt: skip
                task = bar.add_task("", total=None)

                async def report(done: int, total: int, path: str) -> None:
                    bar.update(task, completed=done, total=total, description=path[-60:])

                return await index.build(report)
        return await index.build()
    finally:
        index.close()


def run_index(args: argparse.Namespace) -> int:
    import asyncio

    root = _workspace(args, args.path)
    try:
        stats = asyncio.run(_index(root, args.db))
    except KeyboardInterrupt:
        print("indexing interrupted; the next run resumes where it stopped", file=sys.stderr)
        return 130
    rate = stats.files_processed / stats.seconds if stats.seconds > 0 else 0.0
    print(
        f"indexed {root.resolve()}: {stats.files_total} files ({stats.files_processed} processed, "
        f"{stats.files_unchanged} unchanged, {stats.files_removed} removed, {stats.files_skipped} skipped), "
        f"{stats.chunks} chunks in {stats.seconds:.2f}s ({rate:.0f} files/s)",
        file=sys.stderr,
    )
    return 0


async def _search(
    root: Path, db: Path | None, query: str, limit: int, prefix: str | None, files: bool = False
) -> list[dict[str, Any]]:
    from .workspace_index import WorkspaceIndex

    index = WorkspaceIndex(root, db)
    try:
        if index.status().files == 0:
            await index.build()
        if files:
            return [asdict(f) for f in await index.search_files(query, limit, prefix)]
        return [asdict(h) for h in await index.search(query, limit, prefix)]
    finally:
        index.close()


def _quick_search(
    root: Path, db_path: Path | None, query: str, limit: int, prefix: str | None, files: bool
) -> list[dict[str, Any]] | None:
    """A search of an already built index without the event loop or the indexer; None when it must be built."""
    from .db import default_db_path
    from .quick import open_existing, search_once

    db = open_existing(db_path or default_db_path(root.resolve()))
    if db is None:
        return None
    try:
        return [asdict(h) for h in search_once(db, query, limit, prefix, files)]
    finally:
        db.close()


def run_search(args: argparse.Namespace) -> int:
    root = _workspace(args)
    query = sys.stdin.read() if args.query == "-" else args.query
    if not query.strip():
        print("agent-server search: empty query", file=sys.stderr)
        return 2
    from ..tools.search_query import QueryTooLongError, shorten_query

    try:
        query, note = shorten_query(query)
    except QueryTooLongError as exc:
        print(f"agent-server search: {exc}", file=sys.stderr)
        return 2
    if note:
        print(f"agent-server search: {note}", file=sys.stderr)
    hits = _quick_search(root, args.db, query, args.limit, args.path, args.files)
    if hits is None:
        import asyncio

        hits = asyncio.run(_search(root, args.db, query, args.limit, args.path, args.files))
    if args.json:
        print(json.dumps(hits, indent=2))
        return 0
    if not hits:
        print("no results", file=sys.stderr)
        return 1
    if args.files:
        for f in hits:
            print(f"{f['path']}  ({f['score']:.3f})")
            for h in f["chunks"]:
                label = f" {h['symbol']}" if h["symbol"] else ""
                print(f"    {h['start_line']}-{h['end_line']}{label}  ({h['score']:.3f})")
        return 0
    for h in hits:
        label = f" {h['symbol']}" if h["symbol"] else ""
        print(f"{h['path']}:{h['start_line']}-{h['end_line']}{label}  ({h['score']:.3f})")
    return 0


def register(subparsers: Any) -> None:
    """Add the `index` and `search` subcommands; each sets `func` returning an exit code."""
    p = subparsers.add_parser("index", help="index a workspace for code search")
    p.add_argument("path", nargs="?", help="workspace root (default: --workspace or the current directory)")
    p.add_argument("--workspace", default=None, help=argparse.SUPPRESS)
    p.add_argument("--db", type=Path, default=None, help="index database file (default: the user cache)")
    p.set_defaults(func=run_index)
    s = subparsers.add_parser("search", help="search the workspace index")
    s.add_argument("query", help="the query; '-' reads it from stdin")
    s.add_argument("--path", default=None, help="only results under this workspace-relative prefix")
    s.add_argument("--limit", type=int, default=10)
    s.add_argument("--json", action="store_true", help="print a JSON array of hits")
    s.add_argument("--files", action="store_true", help="rank distinct files, each with its best chunks")
    s.add_argument("--workspace", default=None, help="workspace root (default: the current directory)")
    s.add_argument("--db", type=Path, default=None, help="index database file (default: the user cache)")
    s.set_defaults(func=run_search)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="agent-server")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
