"""What of the model's text becomes the suggestion: one line or a block, the indentation kept, nothing that repeats
the text after the cursor. Applied to the growing text while it streams, so generation stops as soon as the
suggestion is complete (the block ended, a line repeats what follows, enough lines)."""

from __future__ import annotations

from dataclasses import dataclass, field

_OPENERS = (":", "{", "(", "[", "=>", "->", " do", " then")
_CLOSERS = ("}", ")", "]", "end", "fi", "done", "esac")


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


def cut(raw: str, cursor: Cursor, multiline: bool, max_lines: int) -> tuple[str, bool]:
    """(the suggestion so far, whether it is complete and generation can stop)."""
    lines = raw.split("\n")
    if cursor.mid_line or not multiline:
        done = len(lines) > 1  # the overlap with the rest of the line is judged by `finish`
        return (lines[0].rstrip() if done else lines[0]), done
    head = cursor.line_prefix
    base = indent_of(head) if head.strip() else len(head.expandtabs(4))
    opens = head.rstrip().endswith(_OPENERS)
    below = _first_text(cursor.next_lines)
    kept: list[str] = []
    done = False
    finished = lines[:-1]
    for i, line in enumerate(lines):
        if i == len(finished) and i > 0:
            kept.append(line)  # the line still being written: judged when it is finished
            break
        text = line.strip()
        whole = (head + line).strip() if i == 0 else text
        if i > 0 and text:
            if below is not None and text == below:
                done = True  # the model is re-writing the code that follows
                break
            depth = indent_of(line)
            if depth < base or (opens and depth <= base and not text.startswith(_CLOSERS)):
                done = True
                break
            if opens and depth <= base:
                kept.append(line)  # a closing `}` at the opener's level ends the block, included
                done = True
                break
        elif i > 0 and not text and base == 0 and not opens and any(k.strip() for k in kept):
            done = True  # top level: a blank line ends the statement group
            break
        if i == 0 and below is not None and whole == below and head.strip() == "":
            done = True
            break
        kept.append(line)
        if i + 1 >= max_lines and i < len(finished):
            done = True
            break
    text = "\n".join(kept)
    if done or len(lines) > max_lines:
        text = text.rstrip()
    return text, done


def finish(raw: str, cursor: Cursor, multiline: bool, max_lines: int) -> str:
    """The final suggestion once the stream ended (trailing blank lines and spaces dropped)."""
    text, _ = cut(raw, cursor, multiline, max_lines)
    text = text.rstrip()
    if cursor.mid_line:
        if text.strip() == cursor.line_suffix.strip():
            return ""  # the model re-typed the rest of the line
        text = _strip_overlap(text, cursor.line_suffix)
    return text if text.strip() else ""
