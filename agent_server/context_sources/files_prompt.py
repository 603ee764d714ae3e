"""The chosen files as the `files` format shows them: fenced blocks after their paths, within a token budget, and
what to answer.

A file that fits is shown whole; one the request identified that does not fit is shown in part (`file_excerpt.py`)
and never dropped for a smaller file; one that cannot be shown at all is named, with the reason. A long file, or one
shown in part, is to be answered with search/replace blocks: re-typing a 1,000-line module took a 0.5B model four
minutes. The answer's length is capped by what was asked for (a whole short file, a few blocks, words).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..context import estimate_text, request_kind
from ..errors import SandboxError
from ..tools.sandbox import FileTooLargeError, read_regular
from ..turn import prompts
from ..turn.edit_blocks import Shown
from .file_excerpt import excerpt
from .shown_files import Choice, choose

LANGUAGES = {".py": "python", ".js": "javascript", ".ts": "typescript", ".tsx": "tsx", ".go": "go", ".rs": "rust",
             ".java": "java", ".rb": "ruby", ".c": "c", ".h": "c", ".cpp": "cpp", ".lua": "lua", ".md": "markdown",
             ".toml": "toml", ".json": "json"}  # fmt: skip
MAX_READ = 2_000_000  # bytes of an identified file read to show it in part; a bigger one is named, not shown
MAX_BYTES_PER_TOKEN = 8  # a listed (unidentified) file bigger than this times the budget cannot fit: not read
LONG_LINES = 150  # a file longer than this is answered with search/replace blocks even when it is shown whole
# The answer's cap, in tokens: room for each whole file asked for (and a margin), a few search/replace blocks per
# long file, a new file; words for a question.
ANSWER_FLOOR = 1024
ANSWER_MARGIN = 512
WHOLE_FACTOR = 1.25
PER_BLOCKS = 1024
QUESTION_CAP = 1536
MAX_MISSING = 10  # files named as not shown; more are counted


@dataclass
class Rendered:
    """The block of files for the user's message, the files it shows, and the cap on the answer's tokens; with
    `show`, whether the request asks for a change and for a removal."""

    text: str = ""
    shown: list[Shown] = field(default_factory=list)
    max_tokens: int | None = None
    edit: bool = True
    remove: bool = False


def show(
    text: str, root: Path, previous: list[Shown], budget: int, refuse: Callable[[str], str | None] | None = None
) -> Rendered:
    """Everything the files format adds to a request: the files chosen, shown within `budget` tokens, framed as a
    change or a question. `refuse`: why a file may not be read for the model (read_file's deny rules), else None.
    Reads files and parses them: run it off the event loop."""
    edit = request_kind.wants_edit(text)
    rendered = render(choose(text, root, previous, refuse), root, budget, edit)
    rendered.edit, rendered.remove = edit, request_kind.wants_removal(text)
    return rendered


@dataclass
class _Shape:
    whole: list[tuple[str, int]] = field(default_factory=list)  # (editable file shown whole, its tokens)
    blocks: list[str] = field(default_factory=list)  # editable files to answer with search/replace blocks
    new: list[str] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # "path (why)"


def render(choice: Choice, root: Path, budget: int, edit: bool = True) -> Rendered:
    """The chosen files, editable first, within `budget` tokens, and what to answer (`edit`: a change, else words)."""
    parts: list[str] = []
    kept: list[Shown] = []
    shape = _Shape()
    used = 0
    for item in sorted(choice.shown, key=lambda s: not s.editable):
        if item.path in choice.new:
            parts.append(f"{item.path} (a new file: it does not exist yet)")
            kept.append(item)
            shape.new.append(item.path)
            continue
        block, why = _block(item, choice, root, budget - used, shape)
        if block is None:
            shape.missing.append(f"{item.path} ({why})")
            continue
        parts.append(block)
        kept.append(item)
        used += estimate_text(block)
    if not parts:
        return Rendered()
    missing = shape.missing[:MAX_MISSING] + [f"{n} more" for n in [len(shape.missing) - MAX_MISSING] if n > 0]
    notes = [prompts.FILES_NOT_SHOWN.format(items="; ".join(missing))] if missing else []
    ask = _ask(shape) if edit else prompts.FILES_QUESTION
    text = "The files:\n\n" + "\n\n".join(parts) + "\n\n" + "\n".join([*notes, ask])
    return Rendered(text, kept, _cap(shape) if edit else QUESTION_CAP)


def _block(item: Shown, choice: Choice, root: Path, room: int, shape: _Shape) -> tuple[str | None, str]:
    """The file's block (whole, else in part if the request identified it) and its place in `shape`; or None and
    why it is not shown."""
    listed = item.path in choice.listed
    limit = max(1, room) * MAX_BYTES_PER_TOKEN if listed else MAX_READ
    try:  # a regular file only: a FIFO or a device named in a request is never opened for reading
        text = read_regular(root / item.path, limit).decode("utf-8", "replace")
    except FileTooLargeError:
        return None, "too long for the files budget" if listed else f"larger than {MAX_READ // 1_000_000} MB"
    except (OSError, SandboxError):
        return None, "not a regular file that can be read"
    fence = "```" + LANGUAGES.get(Path(item.path).suffix, "")
    whole = f"{item.path}\n{fence}\n{text}{'' if text.endswith(chr(10)) or not text else chr(10)}```"
    cost = estimate_text(whole)
    if cost <= room:
        long = text.count("\n") > LONG_LINES
        if item.editable:
            (shape.blocks.append(item.path) if long else shape.whole.append((item.path, cost)))
        else:
            shape.fixed.append(item.path)
        return whole, ""
    if listed:
        return None, "too long for the files budget"
    focus = choice.focus.get(item.path)
    part = excerpt(item.path, text, fence, focus.lines if focus else [], focus.names if focus else set(), room)
    if not part.text:
        return None, "no room left in the files budget"
    (shape.blocks if item.editable else shape.fixed).append(item.path)
    return part.text, ""


def _ask(shape: _Shape) -> str:
    """What to answer, naming the files: a small model copies whichever block it saw last unless told which one."""
    sentences: list[str] = []
    if len(shape.whole) == 1:
        sentences.append(prompts.FILES_WHOLE_ONE.format(path=shape.whole[0][0]))
    elif shape.whole:
        sentences.append(prompts.FILES_WHOLE_MANY)
    if shape.blocks:
        are = "is" if len(shape.blocks) == 1 else "are"
        sentences.append(prompts.FILES_SEARCH_REPLACE.format(paths=", ".join(shape.blocks), are=are))
    if shape.new:
        sentences.append(prompts.FILES_NEW.format(paths=", ".join(shape.new)))
    if shape.fixed:
        sentences.append(prompts.FILES_READ_ONLY.format(paths=", ".join(shape.fixed)))
    return "\n".join(sentences)


def _cap(shape: _Shape) -> int:
    """Tokens enough for every whole file asked for (a little longer each), a few blocks per long file and each new
    file; never less than ANSWER_FLOOR."""
    whole = sum(int(tokens * WHOLE_FACTOR) for _path, tokens in shape.whole)
    return max(ANSWER_FLOOR, ANSWER_MARGIN + whole + PER_BLOCKS * (len(shape.blocks) + len(shape.new)))
