"""What of the model's text becomes the suggestion: one line or a block, the indentation kept, nothing that repeats
the text after the cursor. Applied to the growing text while it streams, so generation stops as soon as the
suggestion is complete (the block ended, a line repeats what follows, enough lines).

A suggestion that starts inside a block ends where that block ends: at a line indented less than the cursor, at the
bracket that closes what was opened before the cursor, or before a second block at the cursor's level (at top level,
before a new definition after the current one). Once the stream has ended, its last line is judged like the others
(a stream cut by the token limit ends mid-line), and a trailing line that opens what the suggestion never fills
(`def x(`, `class Y:`, `if (a) {`) is dropped: accepting a suggestion must not leave the file unparsable."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_OPENERS = (":", "{", "(", "[", "=>", "->", " do", " then")
# A line ending so starts a block whose body follows on the next lines (brackets alone continue an expression).
_BLOCK_OPENERS = (":", "{", " do", " then")
# A line that closes a block (`done = 1` is an assignment, not the shell's `done`).
_CLOSES = re.compile(r"^([}\])]|(end|fi|done|esac)\b(?!\s*[=.(\[]))")
# A line at the block's own level that continues it rather than starting the next statement.
_CONTINUES = re.compile(r"^((else|elif|except|finally|catch|case|default|rescue|ensure|when)\b|[}\])])")
# A line that starts a definition even before its opener (a signature over several lines, a decorator above it).
_DEFINES = re.compile(
    r"^(@\w|(async\s+)?def\s|class\s|(export\s+)?(default\s+)?(async\s+)?function\b|(pub\s+)?fn\s|func\s|impl\b)"
)
_ONLY_CLOSERS = re.compile(r"^[}\])][}\]);,]*$")
# The end of an expression the next line must finish (`x = a +`, `return a.`); `i++`, `...`, `import *` aside.
_OPERATOR_END = re.compile(r"((?<![+-])[-+]|(?<!\.)\.|(?<!import )\*|[/%&|^=]|\b(and|or|not|in|is))$")
_STRINGS = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')


@dataclass
class Cursor:
    """The text around the cursor that decides where a suggestion ends."""

    line_prefix: str  # the cursor's line before it
    line_suffix: str  # the cursor's line after it
    next_lines: list[str] = field(default_factory=list)  # the lines below, a few are enough

    @property
    def mid_line(self) -> bool:
        return self.line_suffix.strip() != ""


def indent_of(line: str) -> int:
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


def _strip_overlap(line: str, after: str) -> str:
    """`line` without its longest tail that is the start of `after` (the model re-typing the `)` already there)."""
    after = after.strip()
    stripped = line.rstrip()
    for k in range(min(len(after), len(stripped)), 0, -1):
        if stripped.endswith(after[:k]):
            return stripped[: len(stripped) - k]
    return line


def _first_text(lines: list[str]) -> str | None:
    return next((ln.strip() for ln in lines if ln.strip()), None)


def _balance(text: str) -> int:
    """Brackets opened minus brackets closed on one line, string literals left out."""
    code = _STRINGS.sub("", text)
    return sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")


def _opens_block(text: str) -> bool:
    return text.endswith(_BLOCK_OPENERS) or _DEFINES.match(text) is not None


def _dangling(text: str) -> bool:
    """A line that opens something (a body, a bracket, a decorated definition) that nothing after it fills."""
    ends_open = text.endswith((*_OPENERS, "\\")) or _OPERATOR_END.search(text) is not None
    return ends_open or _balance(text) > 0 or text.startswith("@")


@dataclass
class _Block:
    """Where the cursor's block is and what the suggestion has done at its level so far."""

    base: int  # the cursor's indentation: a line indented less is outside the block
    opens: bool  # the cursor's line ends with an opener: the suggestion is its body
    below: str | None  # the first line of code after the cursor
    floor: int = 0  # bracket balance below which a line closes what was opened before the cursor
    balance: int = 0
    content: bool = False  # the suggestion holds code at the cursor's level
    opened: bool = False  # ... and one of its lines there started a block
    decorated: bool = False  # the last line at the level was a decorator: its definition follows

    def verdict(self, line: str, cut_short: bool = False) -> tuple[bool, bool]:
        """(keep the line, the suggestion ends after it) for one finished line after the first. `cut_short`: the
        stream stopped inside this line (the token limit), so it may be only the start of a statement."""
        text = line.strip()
        depth = indent_of(line)
        if self.below is not None and text == self.below and not _ONLY_CLOSERS.match(text):
            return False, True  # the model is re-writing the code that follows (a lone `}` is judged by the balance)
        self.balance += _balance(text)
        if self.balance < self.floor:  # closes the block opened before the cursor: the end of the suggestion
            below_closes = self.below is not None and _CLOSES.match(self.below) is not None
            return _CLOSES.match(text) is not None and not below_closes and depth <= self.base, True
        if depth < self.base:
            return False, True
        if self.opens and depth <= self.base:
            return _CLOSES.match(text) is not None, True  # a closing `}` at the opener's level ends the block, included
        if depth > self.base or _CONTINUES.match(text):
            return True, False
        starts = _opens_block(text) or cut_short  # the start of a statement may be the start of a block
        if starts and not self.decorated and (self.opened or (self.base == 0 and self.content)):
            return False, True  # a second block at this level, or a new definition after the current one
        self.note(text)
        return True, False

    def note(self, text: str) -> None:
        """A line at the cursor's level was kept."""
        self.decorated = text.startswith("@")
        self.opened = self.opened or (_opens_block(text) and not self.decorated)
        self.content = True


def cut(raw: str, cursor: Cursor, multiline: bool, max_lines: int, final: bool = False) -> tuple[str, bool]:
    """(the suggestion so far, whether it is complete and generation can stop). `final`: the stream has ended, so
    its last line is finished too and is judged like the others."""
    lines = raw.split("\n")
    if cursor.mid_line or not multiline:
        done = len(lines) > 1  # the overlap with the rest of the line is judged by `finish`
        return (lines[0].rstrip() if done else lines[0]), done
    head = cursor.line_prefix
    block = _Block(
        base=indent_of(head) if head.strip() else len(head.expandtabs(4)),
        opens=head.rstrip().endswith(_OPENERS),
        below=_first_text(cursor.next_lines),
    )
    kept: list[str] = []
    done = False
    finished = len(lines) if final else len(lines) - 1
    for i, line in enumerate(lines):
        if i == finished and i > 0:
            kept.append(line)  # the line still being written: judged when it is finished
            break
        text = line.strip()
        if i == 0:
            whole = (head + line).strip()
            if block.below is not None and whole == block.below and head.strip() == "":
                done = True
                break
            block.balance = _balance(line)
            block.floor = min(0, block.balance)
            if whole:
                block.note(whole)
        elif text:
            keep, done = block.verdict(line, cut_short=final and i == len(lines) - 1)
            if not keep:
                break
        elif block.base == 0 and not block.opens and any(k.strip() for k in kept):
            done = True  # top level: a blank line ends the statement group
            break
        kept.append(line)
        if done:
            break
        if i + 1 >= max_lines and i < finished:
            done = True
            break
    text = "\n".join(kept)
    if done or len(lines) > max_lines:
        text = text.rstrip()
    return text, done


def _without_dangling_end(text: str) -> str:
    """`text` without trailing lines (after the first) that open a body or a bracket nothing fills."""
    lines = text.rstrip().split("\n")
    while len(lines) > 1:
        last = lines[-1].strip()
        still_open = sum(_balance(line) for line in lines[1:]) > 0  # a bracket opened after the first line
        if last and not _dangling(last) and not still_open:
            break
        lines.pop()
    return "\n".join(lines).rstrip()


def finish(raw: str, cursor: Cursor, multiline: bool, max_lines: int) -> str:
    """The final suggestion once the stream ended (trailing blank lines and spaces dropped)."""
    text, _ = cut(raw, cursor, multiline, max_lines, final=True)
    text = _without_dangling_end(text)
    if cursor.mid_line:
        if text.strip() == cursor.line_suffix.strip():
            return ""  # the model re-typed the rest of the line
        text = _strip_overlap(text, cursor.line_suffix)
    return text if text.strip() else ""
