"""What a scorecard run records about itself (date, machine, the command line, the model file) and where
`--model 0.5b|1.5b` finds its GGUF: the embedded provider's catalogue, in the caches the project already fills."""

from __future__ import annotations

import asyncio
import os
import platform
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from agent_server.llm.embedded.catalogue import CatalogueModel, lookup
from agent_server.llm.embedded.download import cached_path, ensure_model


def catalogue_entry(name: str | None) -> CatalogueModel | None:
    return lookup(name) if name else None


def model_dirs(entry: CatalogueModel) -> list[Path]:
    """Where a catalogue model may already be: the real_llm lane's cache (by hash), then the user's models."""
    from agent_server.config import EmbeddedConfig
    from agent_server.llm.embedded.server import models_dir

    by_hash = f"sha256-{entry.sha256[:16]}"
    ci = Path(os.environ.get("AGENT_SERVER_CACHE") or Path.home() / ".cache" / "agent-server-ci")
    return [ci / by_hash, models_dir(EmbeddedConfig())]


def model_file(entry: CatalogueModel) -> Path:
    """The verified GGUF of a catalogue model, fetched into the user's models folder when no cache has it."""
    dirs = model_dirs(entry)
    for directory in dirs:
        found = cached_path(entry, directory)
        if found is not None:
            return found
    print(f"fetching {entry.name} into {dirs[-1]}", file=sys.stderr, flush=True)
    return asyncio.run(ensure_model(entry, dirs[-1]))


def _memory_mib() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def machine() -> dict[str, Any]:
    return {
        "system": f"{platform.system()} {platform.release()}",
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_mib": _memory_mib(),
        "python": platform.python_version(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def run_record(argv: list[str], gguf: Path | None) -> dict[str, Any]:
    from agent_server import __version__

    return {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": shlex.join([Path(sys.executable).name, *argv]),
        "machine": machine(),
        "agent_server": __version__,
        "model_file": str(gguf) if gguf else None,
    }
