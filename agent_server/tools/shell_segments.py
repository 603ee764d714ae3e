"""Split a shell command line into the simple commands it runs, so each can be judged on its own.

Separators: `;` `&&` `||` `|` `|&` `&` newlines and subshell parentheses. Substitutions (`$( )`, backticks,
`<( )`, `>( )`), also inside double quotes, are scanned recursively: their commands become segments too.
Single quotes, bash's `$'...'`, backslash escapes and `#` comments are respected. Splitting too much only makes the
policy ask more often.
"""

from __future__ import annotations


class UnbalancedCommandError(ValueError):
    """A quote or substitution is not closed, so we cannot tell what would run."""


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.segments: list[str] = []

    def _peek(self, offset: int = 1) -> str:
        j = self.i + offset
        return self.text[j] if j < len(self.text) else ""

    def _push(self, start: int, end: int) -> None:
        raw = self.text[start:end].replace("\\\n", " ")
        segment = " ".join(raw.split())
        while segment[:2] in ("{ ", "! "):
            segment = segment[2:].lstrip()
        if segment not in ("", "{", "}", "!"):
            self.segments.append(segment)

    def _single_quote(self) -> None:
        end = self.text.find("'", self.i + 1)
        if end < 0:
            raise UnbalancedCommandError("a single quote is not closed")
        self.i = end + 1

    def _ansi_quote(self) -> None:
        """bash's $'...': backslash escapes apply, so \\' does not end it."""
        self.i += 2
        while self.i < len(self.text):
            c = self.text[self.i]
            if c == "\\":
                self.i += 2
            elif c == "'":
                self.i += 1
                return
            else:
                self.i += 1
        raise UnbalancedCommandError("a $'...' quote is not closed")

    def _double_quote(self) -> None:
        self.i += 1
        while self.i < len(self.text):
            c = self.text[self.i]
            if c == "\\":
                self.i += 2
            elif c == '"':
                self.i += 1
                return
            elif c == "`":
                self.i += 1
                self.scan("`")
            elif c == "$" and self._peek() == "(":
                self.i += 2
                self.scan(")")
            else:
                self.i += 1
        raise UnbalancedCommandError("a double quote is not closed")

    def scan(self, closer: str | None) -> None:
        """Scan until `closer` (or the end), pushing segments; leaves `i` after the closer."""
        start = self.i
        while self.i < len(self.text):
            c = self.text[self.i]
            if closer is not None and c == closer:
                self._push(start, self.i)
                self.i += 1
                return
            if c == "\\":
                self.i += 2
            elif c == "#" and (self.i == start or self.text[self.i - 1] in " \t"):
                # A comment runs to the end of the line: quotes inside it mean nothing to the shell.
                self._push(start, self.i)
                newline = self.text.find("\n", self.i)
                self.i = len(self.text) if newline < 0 else newline
                start = self.i
            elif c == "$" and self._peek() == "'":
                self._ansi_quote()
            elif c == "'":
                self._single_quote()
            elif c == '"':
                self._double_quote()
            elif c == "`":
                self.i += 1
                self.scan("`")
            elif c in "$<>" and self._peek() == "(":
                self.i += 2
                self.scan(")")
            elif c in ";\n()" or c == "|":
                self._push(start, self.i)
                self.i += 1
                if c == "|" and self._peek(0) in "|&":
                    self.i += 1
                start = self.i
            elif c == "&":
                prev = self.text[self.i - 1] if self.i else ""
                if prev in "<>" or self._peek() == ">":
                    self.i += 1  # a redirection such as 2>&1 or &>file, not a separator
                    continue
                self._push(start, self.i)
                self.i += 2 if self._peek() == "&" else 1
                start = self.i
            else:
                self.i += 1
        if closer is not None:
            raise UnbalancedCommandError(f"'{closer}' is missing: a substitution is not closed")
        self._push(start, self.i)


def split_segments(command: str) -> list[str]:
    """The simple commands in `command`, whitespace-normalized; raises UnbalancedCommandError if unparseable."""
    scanner = _Scanner(command)
    scanner.scan(None)
    return scanner.segments
