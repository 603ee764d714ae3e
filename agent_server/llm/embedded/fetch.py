"""`python -m agent_server.llm.embedded.fetch NAME [--dir DIR]`: fetch a catalogue model, print its path.

For CI and scripts (scripts/real_llm.sh): the same resumable, verified download as the embedded provider, with a
progress bar on stderr. `--dir` defaults to the user cache; with `--by-hash` the file goes into
`DIR/sha256-<first 16 hex>/`, so caches of different models or versions never collide.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

from ...config import EmbeddedConfig
from ...errors import LLMError
from .catalogue import CATALOGUE, lookup
from .download import ensure_model
from .server import models_dir


async def _run(name: str, directory: Path) -> Path:
    entry = lookup(name)
    if entry is None:
        raise LLMError(f"unknown model '{name}' (known: {', '.join(sorted(CATALOGUE))})")
    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn())
    with Progress(*columns, console=Console(file=sys.stderr), transient=True) as bar:
        task = bar.add_task(entry.name, total=None)

        async def progress(done: int, total: int, message: str) -> None:
            bar.update(task, completed=done, total=total, description=message[:60])

        return await ensure_model(entry, directory, progress)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agent_server.llm.embedded.fetch")
    p.add_argument("name", help=f"one of {', '.join(sorted(CATALOGUE))}")
    p.add_argument("--dir", type=Path, help="target directory (default: the user cache)")
    p.add_argument("--by-hash", action="store_true", help="store under DIR/sha256-<hash prefix>/")
    args = p.parse_args(argv)
    directory = args.dir or models_dir(EmbeddedConfig())
    entry = lookup(args.name)
    if entry is not None and args.by_hash:
        directory = directory / f"sha256-{entry.sha256[:16]}"
    try:
        path = asyncio.run(_run(args.name, directory))
    except LLMError as exc:
        print(f"agent-server: {exc}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
