"""A text kept in chunks with each chunk's newline count, so that finding a line, reading the lines around a position
and applying an edit cost the chunks they touch, never the whole text.

An editor's open document can be tens of megabytes; every keystroke is an edit and every pause a completion request.
Splitting or copying the whole text for each of them stops the server for seconds (issue 38). Here an edit rebuilds
only the chunks it spans, and the line index (the newline counts, one per chunk) is kept up to date with it, version
after version. Lines are separated by `\\n` alone (a `\\r` before it stays at the line's end), as everywhere in the
server (`protocol/positions.py`).
"""

from __future__ import annotations

CHUNK = 1 << 16  # characters per chunk: an edit copies at most about two of them


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


class TextLines:
    """A mutable text, addressed by (line, code point column) or by character offset."""

    def __init__(self, text: str = "", chunk: int = CHUNK) -> None:
        self._size = max(1, chunk)
        self._chunks = _pieces(text, self._size) or [""]
        self._newlines = [c.count("\n") for c in self._chunks]
        self._length = len(text)
        self._lines = sum(self._newlines) + 1
        # The whole text as one string, made when asked for and kept until the next edit; not kept from the start,
        # so a document costs its chunks alone until something needs it whole.
        self._joined: str | None = None

    def __len__(self) -> int:
        return self._length

    @property
    def line_count(self) -> int:
        return self._lines

    @property
    def text(self) -> str:
        """The whole text (joined once per version: only callers that need all of it pay for it)."""
        if self._joined is None:
            self._joined = "".join(self._chunks)
        return self._joined

    # -- finding ------------------------------------------------------------------------------------------------

    def _chunk_at(self, offset: int) -> tuple[int, int]:
        """(chunk index, offset of that chunk) holding `offset`; the end of the text is in the last chunk."""
        base = 0
        last = len(self._chunks) - 1
        for i, chunk in enumerate(self._chunks):
            if offset < base + len(chunk) or i == last:
                return i, base
            base += len(chunk)
        return last, base  # pragma: no cover - the loop always returns

    def line_start(self, line: int) -> int:
        """The offset of `line`'s first character (lines past the end: the last line's)."""
        line = min(max(line, 0), self._lines - 1)
        if line == 0:
            return 0
        seen = 0
        base = 0
        for chunk, count in zip(self._chunks, self._newlines, strict=True):
            if seen + count >= line:
                at = -1
                for _ in range(line - seen):
                    at = chunk.find("\n", at + 1)
                return base + at + 1
            seen += count
            base += len(chunk)
        return self._length  # pragma: no cover - line < line_count always finds its newline

    def line_end(self, line: int) -> int:
        """The offset of the `\\n` that ends `line`, or the end of the text for the last line."""
        start = self.line_start(line)
        index, base = self._chunk_at(start)
        for i in range(index, len(self._chunks)):
            chunk = self._chunks[i]
            at = chunk.find("\n", max(0, start - base))
            if at >= 0:
                return base + at
            base += len(chunk)
        return self._length

    def slice(self, start: int, end: int) -> str:
        """text[start:end], read from the chunks it spans."""
        start, end = max(0, start), min(self._length, end)
        if start >= end:
            return ""
        if self._joined is not None:
            return self._joined[start:end]
        index, base = self._chunk_at(start)
        parts: list[str] = []
        for chunk in self._chunks[index:]:
            if base >= end:
                break
            parts.append(chunk[max(0, start - base) : end - base])
            base += len(chunk)
        return "".join(parts)

    def line(self, line: int) -> str:
        """The text of `line`, without its `\\n`."""
        return self.slice(self.line_start(line), self.line_end(line))

    def lines(self, first: int, last: int) -> list[str]:
        """Lines `first` to `last` included (clamped to the text)."""
        first = min(max(first, 0), self._lines - 1)
        last = min(max(last, first), self._lines - 1)
        return self.slice(self.line_start(first), self.line_end(last)).split("\n")

    def offset(self, line: int, column: int) -> int:
        """The offset of (line, code point column); a column past the line's end is its end, a line past the text's
        end is the end of the text."""
        if line >= self._lines:
            return self._length
        start = self.line_start(line)
        return min(start + max(column, 0), self.line_end(line))

    # -- editing ------------------------------------------------------------------------------------------------

    def replace(self, start: int, end: int, new: str) -> None:
        """text[start:end] = new, rebuilding only the chunks the range spans."""
        start = min(max(start, 0), self._length)
        end = min(max(end, start), self._length)
        first, first_base = self._chunk_at(start)
        last, last_base = self._chunk_at(end)
        middle = self._chunks[first][: start - first_base] + new + self._chunks[last][end - last_base :]
        if len(middle) < self._size // 2 and last + 1 < len(self._chunks):
            last += 1  # a small rest joins its neighbour: edits never leave a trail of tiny chunks
            middle += self._chunks[last]
        pieces = _pieces(middle, self._size) if len(middle) > self._size else [middle]
        # Empty pieces are dropped (a deletion that emptied a chunk) unless nothing else would be left.
        pieces = [p for p in pieces if p] or ([] if len(self._chunks) > last - first + 1 else [""])
        removed = sum(self._newlines[first : last + 1])
        counts = [p.count("\n") for p in pieces]
        self._chunks[first : last + 1] = pieces
        self._newlines[first : last + 1] = counts
        self._length += len(new) - (end - start)
        self._lines += sum(counts) - removed
        self._joined = None
