"""Memory files: short notes kept across sessions, as plain Markdown the user can open and edit.

Two files: the user's (`<config dir>/memory.md`, every workspace) and the workspace's (`.agent-server/memory.md`,
only in a trusted workspace: a repository could commit one). A note is a top-level list item (`- `, `* `, `+ `) with
its indented continuation lines, or any other paragraph; headings and `<!-- comments -->` are not notes. The file is
in the order the notes were added, so the last note is the newest.

Reads and writes follow the rules files' rule for the workspace's file: a file (or a folder on its way) that is a link
out of the workspace, a hard-linked file and anything but a regular file are neither read nor written. Writes append
(O_APPEND: two servers adding at once lose nothing); `forget` rewrites the file through a temporary file.

A note never holds a secret: one the log redaction rules (logging_setup.redact) or a well-known key shape would catch
is refused when written, and masked when read (a note the user typed into the file by hand).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import platformdirs

from ..errors import SandboxError
from ..logging_setup import redact
from ..tools.sandbox import hard_linked, read_regular, resolve

Scope = Literal["workspace", "user"]

WORKSPACE_FILE = ".agent-server/memory.md"
MAX_FILE_BYTES = 64_000  # read at most this; a file this big takes no more notes (forget some first)
MAX_NOTE_CHARS = 500  # a note is short: a fact or a preference, not a document
MAX_NOTES = 500  # per file: the budget keeps far fewer, a huge file is not parsed whole each turn
HEADER = (
    "# agent-server memory\n\n"
    "<!-- Notes agent-server keeps {where}: one per list item, newest last. They reach the model at the start of "
    "every session (within memory.tokens). Edit or delete them freely; `agent-server memory list` shows them. -->\n\n"
)
# Key shapes that are secrets whatever surrounds them (the redaction rules catch `api_key=…`, bearer headers and
# the configured keys; these have no such label around them).
_KEY_SHAPES = re.compile(
    r"""(?x)
    \b(?: sk-[A-Za-z0-9_-]{16,} | gh[pousr]_[A-Za-z0-9]{20,} | github_pat_[A-Za-z0-9_]{20,}
      | xox[abprs]-[A-Za-z0-9-]{10,} | AKIA[0-9A-Z]{16} | glpat-[A-Za-z0-9_-]{20,} | AIza[0-9A-Za-z_-]{30,} )
    | -----BEGIN[ A-Z]*PRIVATE\ KEY-----
    """
)
_ITEM = re.compile(r"^[-*+]\s+")
_COMMENT = re.compile(r"<!--.*?-->", re.S)


class NoteError(ValueError):
    """A note that cannot be written (a secret, too long, a file that is not the workspace's own)."""


@dataclass(frozen=True)
class Note:
    text: str
    scope: Scope
    number: int
    """1-based, in file order (the last is the newest): `agent-server memory forget w3`."""
    lines: tuple[int, int] = (0, 0)
    """The 0-based line span [start, end) in the file, for `forget`."""

    @property
    def ref(self) -> str:
        return f"{self.scope[0]}{self.number}"


def user_memory_path() -> Path:
    return Path(platformdirs.user_config_dir("agent-server")) / "memory.md"


def holds_secret(text: str) -> bool:
    return redact(text) != text or _KEY_SHAPES.search(text) is not None


def masked(text: str) -> str:
    return _KEY_SHAPES.sub("***", redact(text))


def clean_note(text: str) -> str:
    """The note as it is stored: one line, trimmed; NoteError for an empty, long or secret one."""
    note = " ".join(text.split())
    if note.startswith(("- ", "* ", "+ ")):
        note = note[2:].strip()
    if not note:
        raise NoteError("the note is empty")
    if len(note) > MAX_NOTE_CHARS:
        raise NoteError(f"the note is {len(note)} characters; keep it under {MAX_NOTE_CHARS} (one fact, one line)")
    if holds_secret(note):
        raise NoteError("the note looks like it holds a secret (a key, token or password); notes never keep one")
    return note


def parse(text: str, scope: Scope) -> list[Note]:
    """The notes of a memory file, in file order."""
    text = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text.replace("\r\n", "\n"))
    lines = text.split("\n")
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for number, line in enumerate(lines):
        blank = not line.strip()
        boundary = blank or line.lstrip().startswith("#") or _ITEM.match(line) is not None
        if start is not None:
            # An item goes on over its indented lines; a paragraph up to a blank line, a heading or an item.
            in_item = _ITEM.match(lines[start]) is not None
            if not boundary and (not in_item or line[:1] in (" ", "\t")):
                continue
            spans.append((start, number))
            start = None
        if not blank and not line.lstrip().startswith("#"):
            start = number
    if start is not None:
        spans.append((start, len(lines)))
    notes: list[Note] = []
    for first, end in spans[:MAX_NOTES]:
        body = _ITEM.sub("", " ".join(" ".join(lines[first:end]).split()), count=1).strip()
        if body:
            notes.append(Note(text=body, scope=scope, number=len(notes) + 1, lines=(first, end)))
    return notes


def workspace_path(root: Path) -> Path:
    """The workspace's memory file as it really is; SandboxError if it (or a folder on its way) leads out of the
    workspace or is a hard link."""
    return resolve([root], WORKSPACE_FILE)


def path_for(scope: Scope, root: Path, user_path: Path | None = None) -> Path:
    if scope == "workspace":
        return workspace_path(root)
    return Path(os.path.realpath(user_path or user_memory_path()))


def read_notes(scope: Scope, root: Path, user_path: Path | None = None) -> list[Note]:
    """The notes of one file ([] when it is missing, not a regular file, or not the workspace's own)."""
    try:
        path = path_for(scope, root, user_path)
        data = read_regular(path, MAX_FILE_BYTES, truncate=True)
    except (OSError, SandboxError):
        return []
    notes = parse(data.decode("utf-8", errors="replace"), scope)
    return [Note(masked(n.text), n.scope, n.number, n.lines) for n in notes]


def signature(root: Path, user_path: Path | None = None) -> tuple[tuple[str, int, int], ...]:
    """What the notes were read from: a file added, changed or removed gives another signature."""
    out = []
    for path in (root / WORKSPACE_FILE, user_path or user_memory_path()):
        try:
            st = path.stat()
        except OSError:
            continue
        out.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(out)


def append_note(scope: Scope, root: Path, text: str, user_path: Path | None = None) -> tuple[Path, str]:
    """Add a note at the end of the file (made with a short header if missing); returns (path, the stored note)."""
    note = clean_note(text)
    try:
        path = path_for(scope, root, user_path)
    except SandboxError as exc:
        raise NoteError(str(exc)) from None
    path.parent.mkdir(parents=True, exist_ok=True)
    if scope == "workspace":
        workspace_path(root)  # the folder just made (or found) is still inside the workspace
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        raise NoteError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or hard_linked(st):
            raise NoteError(f"{path} is not a plain file of its own (a FIFO, device or hard link); not written")
        if st.st_size >= MAX_FILE_BYTES:
            raise NoteError(f"{path} is full ({st.st_size} bytes); forget some notes first (agent-server memory)")
        lead = _lead(path, st.st_size, scope)
        os.write(fd, f"{lead}- {note}\n".encode())
    finally:
        os.close(fd)
    return path, note


def _lead(path: Path, size: int, scope: Scope) -> str:
    """What goes before the note: the header of a new file, a newline after a last line without one."""
    if size == 0:
        return HEADER.format(where="for this workspace" if scope == "workspace" else "for you, in every workspace")
    try:
        with path.open("rb") as handle:
            handle.seek(size - 1)
            last = handle.read(1)
    except OSError:
        return "\n"
    return "" if last == b"\n" else "\n"


def forget(scope: Scope, root: Path, number: int, user_path: Path | None = None) -> Note:
    """Remove note `number` (as `read_notes` numbers them); NoteError if there is none."""
    from ..tools.editing import atomic_write

    try:
        path = path_for(scope, root, user_path)
        text = read_regular(path, MAX_FILE_BYTES).decode("utf-8", errors="replace")
    except (OSError, SandboxError) as exc:
        raise NoteError(f"cannot read the {scope} memory file: {exc}") from None
    notes = parse(text, scope)
    found = next((n for n in notes if n.number == number), None)
    if found is None:
        raise NoteError(f"no note {scope[0]}{number} (the {scope} memory file has {len(notes)})")
    lines = text.replace("\r\n", "\n").split("\n")
    start, end = found.lines
    atomic_write(path, "\n".join(lines[:start] + lines[end:]))
    return found
