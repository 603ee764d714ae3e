"""The values inline completion passes between its parts (plain dataclasses; the wire shapes live in protocol/)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Chunk:
    """Some lines of another file (or a definition) given to the model as context. `path` is workspace-relative."""

    path: str
    text: str


@dataclass
class FimRequest:
    """One fill-in-the-middle request, whatever the server.

    `prefix` ends at the cursor and `suffix` starts there; `line_prefix` is the part of `prefix` on the cursor's
    line (llama.cpp's `prompt`, kept apart so the lines before stay a reusable prompt prefix)."""

    prefix: str
    suffix: str
    path: str
    line_prefix: str = ""
    extra: list[Chunk] = field(default_factory=list)
    repo_name: str = "workspace"
    max_tokens: int = 96
    indent: int = 0  # llama.cpp's n_indent: the server may stop at a line indented less
    temperature: float = 0.1


@dataclass(frozen=True)
class FimSupport:
    """Whether the configured model can fill in the middle, and why not (shown by `doctor` and once in the editor)."""

    ok: bool
    reason: str = ""
