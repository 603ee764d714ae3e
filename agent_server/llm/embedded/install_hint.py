"""The command that installs the built-in model's llama.cpp (xllamacpp) from where this agent-server runs.

agent-server is not on PyPI, so `pip install 'agent-server[local]'` fails for everyone. What works: from a checkout
(an editable install, the quick start's), the checkout's own extra into the interpreter that runs agent-server;
otherwise the pinned xllamacpp itself into that interpreter. The pin is read from the installed metadata, so the
hint and pyproject.toml cannot disagree.
"""

from __future__ import annotations

import functools
import shlex
import sys
from importlib import metadata
from pathlib import Path

FALLBACK_PIN = "xllamacpp"


def _pin() -> str:
    try:
        for requirement in metadata.requires("agent-server") or []:
            spec, _, marker = requirement.partition(";")
            if spec.strip().startswith("xllamacpp") and "local" in marker:
                return spec.strip()
    except metadata.PackageNotFoundError:
        pass
    return FALLBACK_PIN


def _checkout() -> Path | None:
    """The source checkout this agent_server package runs from (an editable install), if any."""
    root = Path(__file__).resolve().parents[3]
    project = root / "pyproject.toml"
    try:
        return root if project.is_file() and 'name = "agent-server"' in project.read_text(encoding="utf-8") else None
    except OSError:
        return None


@functools.cache
def install_command() -> str:
    """A shell command that installs xllamacpp for this agent-server (quoted for a POSIX shell)."""
    python = shlex.quote(sys.executable)
    checkout = _checkout()
    if checkout is not None:
        return f"{python} -m pip install -e {shlex.quote(str(checkout) + '[local]')}"
    return f"{python} -m pip install {shlex.quote(_pin())}"
