"""A shell command line as the permission policy sees it: the simple commands it runs, and how sure we are of each.

Parsed with tree-sitter's bash grammar (shipped offline by tree-sitter-language-pack), never by hand. Every simple
command becomes a `Segment`; so do statements whose meaning a pattern cannot capture (a function definition, an
`if`, a redirection that writes). Each segment carries the weakest kind of "allow" that may cover it:

- PLAIN: a program named by a plain word with plain arguments; an allow pattern (`pytest *`) covers it.
- EXACT: something a pattern cannot model (a substitution, `VAR=x` before the command, a wrapper such as `env` or
  `eval`, `$'...'`, a redirection into the workspace...): only an allow for exactly this text covers it.
- BLANKET: only an allow for every call of the tool covers it (a here-document, whose body is not in the segment
  text; a pipe into an interpreter; a function definition).

`doubts` are reasons to ask whatever allow applies: the grammar reports an error, the text has a backslash before
whitespace or a control character (where tree-sitter and `sh` have been seen to disagree), or a redirection writes
outside the workspace. When unsure, ask.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .protected_paths import protected_path

PLAIN, EXACT, BLANKET = 0, 1, 2
PARSE_ERROR = "the command does not parse as shell"
# Judging costs about 5 µs a byte on the event loop; longer commands are asked about without parsing them.
MAX_JUDGED_BYTES = 64 * 1024

# Programs that run another command, or code given as text: a pattern on their name would allow anything.
WRAPPERS = frozenset(
    "env time sudo doas su nice ionice nohup command exec xargs timeout stdbuf builtin eval source . sh bash zsh "
    "dash ksh mksh fish csh tcsh busybox watch strace ltrace setsid chroot unshare nsenter flock parallel coproc "
    "alias unalias trap enable shopt let declare typeset local export readonly unset read mapfile readarray "
    "hash fc caller ssh script runuser chrt taskset".split()
)
# Programs that run code from their standard input or from an argument.
INTERPRETERS = frozenset(
    "sh bash zsh dash ksh mksh fish csh tcsh busybox python python2 python3 pypy pypy3 perl ruby node nodejs deno "
    "bun php lua luajit tclsh wish Rscript osascript jshell irb pwsh powershell".split()
)
# Programs that write, move or delete the paths they are given: a pattern covers them only inside the workspace.
WRITERS = frozenset(
    "cp mv rm rmdir ln install tee dd touch mkdir chmod chown chgrp truncate shred rsync scp sed patch unzip tar "
    "curl wget mktemp dd cpio".split()
)
# Programs whose standard input says what they change (`git diff | patch -p1` can write `../x`).
PIPE_SCRIPTED = frozenset("patch ed ex vi vim nvim cpio".split())
# Programs whose first argument is a program in their own language, which can run commands and write files
# (awk's `system()`, sed's `e` and `w`): a pattern on their name would allow any such program.
SCRIPTED = frozenset("awk gawk mawk nawk sed gsed".split())
# Flags that hand an interpreter its program as text (`python -c`, `node -e`, `perl -E`, `php -r`).
INLINE_CODE_FLAGS = frozenset("-c -e -E -r -p --eval --print --command -x".split())
# Arguments that make a harmless-looking program run another one (`find -exec`) or evaluate `a[$(...)]` names.
RUNS_ARGUMENT = {
    "find": frozenset("-exec -execdir -ok -okdir -fprint -fprintf -fls -delete".split()),
    "test": frozenset({"-v"}),
    "[": frozenset({"-v"}),
    "printf": frozenset({"-v"}),
    "git": frozenset({"-c", "--config-env", "--exec-path", "--upload-pack", "--receive-pack"}),
    "tar": frozenset({"--to-command", "--checkpoint-action", "--use-compress-program", "-I", "--info-script"}),
    "rsync": frozenset({"-e", "--rsh", "--rsync-path"}),
    "sed": frozenset({"-i", "--in-place"}),
}
_SAFE_NAME = re.compile(r"\[|[A-Za-z0-9_][A-Za-z0-9_./+@:-]*|[./][A-Za-z0-9_./+@:-]*")
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
# Backslash before whitespace (an escaped space or a line continuation): tree-sitter has read the `#` after `\ ` as
# a comment where sh does not. Control characters and non-ASCII spaces: words for sh, maybe separators elsewhere.
_DOUBTFUL_TEXT = re.compile(r"\\[\s]|[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]|[^\S \t\n]")
# Node types that only group statements; their children are judged.
_STRUCTURE = frozenset(
    "program list pipeline subshell compound_statement negated_command do_group comment heredoc_start heredoc_end "
    "heredoc_content".split()
)
# Statements with keywords, loop variables or arithmetic: a pattern cannot model them.
_CONTROL = frozenset(
    "if_statement elif_clause else_clause while_statement for_statement c_style_for_statement case_statement "
    "case_item test_command arithmetic_expansion".split()
)
# Every named node type of the bash grammar this walker was written for; any other node makes the command asked.
_KNOWN = frozenset(
    "ansi_c_string arithmetic_expansion array binary_expression brace_expression c_style_for_statement case_item "
    "case_statement command command_name command_substitution comment compound_statement concatenation "
    "declaration_command do_group elif_clause else_clause expansion extglob_pattern file_descriptor file_redirect "
    "for_statement function_definition heredoc_body heredoc_content heredoc_end heredoc_redirect heredoc_start "
    "herestring_redirect if_statement list negated_command number parenthesized_expression pipeline "
    "postfix_expression process_substitution program raw_string redirected_statement regex simple_expansion "
    "special_variable_name string string_content subscript subshell ternary_expression test_command test_operator "
    "translated_string unary_expression unset_command variable_assignment variable_assignments variable_name "
    "while_statement word".split()
)
# Argument node types a pattern models fully.
_PLAIN_WORDS = frozenset({"word", "raw_string", "number", "simple_expansion", "brace_expression"})
_PLAIN_IN_STRING = frozenset({"string_content", "simple_expansion", '"', "$"})


@dataclass(frozen=True)
class Segment:
    """One thing the shell runs: its normalized text (what rules match), how it may be allowed, and why."""

    text: str
    level: int = PLAIN
    reasons: tuple[str, ...] = ()
    argv: tuple[str, ...] | None = None  # the words after quote removal, when they are static
    opaque: bool = False  # the program cannot be known before it runs ($CMD, $(...), a quoted name)


@dataclass
class ShellCommand:
    segments: list[Segment] = field(default_factory=list)
    doubts: list[str] = field(default_factory=list)


_local = threading.local()


def _parser() -> Any:
    parser = getattr(_local, "bash", None)
    if parser is None:
        from tree_sitter_language_pack import get_parser

        parser = get_parser("bash")
        _local.bash = parser
    return parser


def _text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", errors="surrogateescape")


def _first_line(node: Any) -> str:
    lines = _text(node).strip().splitlines()
    return lines[0] if lines else ""


def _static(node: Any) -> str | None:
    """The word after quote removal if nothing in it expands, else None."""
    kind = node.type
    if kind in ("word", "number"):
        text = _text(node)
        if any(c in text for c in "\\$`*?[{~"):
            return None
        return text
    if kind == "raw_string":
        return _text(node)[1:-1]
    if kind == "string":
        parts = [c for c in node.named_children]
        if all(c.type == "string_content" for c in parts):
            inner = "".join(_text(c) for c in parts)
            return None if "\\" in inner else inner
        return None
    if kind == "concatenation":
        pieces = [_static(c) for c in node.named_children]
        return None if any(p is None for p in pieces) else "".join(p for p in pieces if p is not None)
    return None


def _word_level(node: Any) -> int:
    kind = node.type
    if kind in _PLAIN_WORDS:
        return EXACT if kind == "word" and any(c in _text(node) for c in "`$") else PLAIN
    if kind == "string":
        return PLAIN if all(c.type in _PLAIN_IN_STRING for c in node.children) else EXACT
    if kind == "concatenation":
        return max((_word_level(c) for c in node.named_children), default=PLAIN)
    return EXACT  # substitutions, ${...}, $'...', $"...", $((...)), anything new


def _git_writes_config(args: list[str | None]) -> bool:
    """`git config NAME VALUE` and friends (reading with --get/--list is fine); unknown args count as writing."""
    words = [a for a in args]
    if "config" not in words:
        return False
    rest = words[words.index("config") + 1 :]
    if any(a is None for a in rest):
        return True
    reads = {"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch", "--show-origin", "--name-only"}
    if any(a in reads for a in rest) or (rest and rest[0] in ("get", "list")):
        return False
    return len([a for a in rest if a and not a.startswith("-")]) != 1


class _Walker:
    def __init__(self, source: bytes, base: Path, workspace: Path) -> None:
        self.source = source
        self.base = base
        self.workspace = workspace
        self.out = ShellCommand()

    # -- redirections ------------------------------------------------------------------------------------------

    def _outside(self, target: str) -> bool:
        if target.startswith("~"):
            return True
        try:
            real = Path(os.path.realpath(self.base / target))
            root = Path(os.path.realpath(self.workspace))
            if not (real == root or real.is_relative_to(root)):
                return True
            # A hard link inside the workspace writes the file outside it has the same inode as.
            return real.is_file() and real.stat().st_nlink > 1
        except (OSError, ValueError):
            return True

    def _outside_arg(self, arg: str | None) -> bool:
        """An argument (or an `--option=value`'s value) that looks like a path outside the workspace."""
        if arg is None:
            return True  # not static: we cannot tell where it points
        value = arg.split("=", 1)[1] if "=" in arg else arg  # `--output=/x`, dd's `of=/x`
        if value.startswith("-") or not value:
            return False
        if value.startswith(("/", "~")) or ".." in value.split("/"):
            return self._outside(value)
        return False

    def _redirect(self, node: Any) -> tuple[int, str | None]:
        """The level a redirection needs, and a doubt if it writes outside the workspace."""
        if node.type in ("heredoc_redirect", "herestring_redirect"):
            return BLANKET, None
        if node.type != "file_redirect":
            return EXACT, None
        op = "".join(_text(c) for c in node.children if not c.is_named)
        dest = node.child_by_field_name("destination")
        if dest is None:
            return EXACT, None
        target = _static(dest)
        if op.endswith("&") and ((_text(dest).isdecimal() and _text(dest).isascii()) or _text(dest) == "-"):
            return PLAIN, None  # 2>&1, >&2, 2>&-: between descriptors (but `&>1` and `&>>2` write files 1 and 2)
        if target in _HARMLESS_TARGETS:
            return PLAIN, None
        writes = ">" in op
        if writes and (target is None or self._outside(target)):
            return EXACT, f"'{_text(node)}' may write outside the workspace"
        if writes and target is not None and (why := protected_path(self.workspace, target, self.base)):
            return EXACT, f"'{_text(node)}' writes a file that makes tools run programs ({why})"
        return EXACT, None

    # -- segments ----------------------------------------------------------------------------------------------

    def _add(
        self,
        text: str,
        level: int,
        reasons: list[str],
        argv: tuple[str, ...] | None = None,
        opaque: bool = False,
    ) -> None:
        self.out.segments.append(Segment(text.strip(), level, tuple(reasons), argv, opaque))

    def command(self, node: Any, piped: bool, redirects: list[Any]) -> None:
        for child in node.named_children:
            # Substitutions inside become segments first; an assignment here belongs to this command.
            for part in child.named_children if child.type == "variable_assignment" else [child]:
                self.visit(part)
        for r in redirects:
            self.visit(r)
        level = PLAIN
        reasons: list[str] = []
        words: list[Any] = []
        name: Any = None
        for child in node.named_children:
            kind = child.type
            if kind == "command_name":
                name = child
            elif kind == "variable_assignment":
                level, reasons = max(level, EXACT), [*reasons, "sets a variable for the command"]
            elif kind.endswith("_redirect"):
                redirects = [*redirects, child]
            else:
                words.append(child)
                if _word_level(child) > PLAIN:
                    level, reasons = max(level, EXACT), [*reasons, f"'{_text(child)}' expands or substitutes"]
        inner = name.named_children[0] if name is not None and name.named_children else None
        program = _static(inner) if inner is not None else None
        opaque = program is None or inner is None or inner.type != "word" or not _SAFE_NAME.fullmatch(program)
        argv_words = [_static(w) for w in words]
        static_args = None if any(a is None for a in argv_words) else tuple(a for a in argv_words if a is not None)
        argv = (program, *static_args) if program is not None and static_args is not None else None
        if name is None:
            level, reasons = max(level, EXACT), [*reasons, "has no program name"]
        elif opaque:
            level, reasons = max(level, EXACT), [*reasons, "the program name is not a plain word"]
        else:
            assert program is not None
            base = os.path.basename(program)
            if base in WRAPPERS:
                level, reasons = max(level, EXACT), [*reasons, f"'{base}' runs other commands or changes the shell"]
            if base in INTERPRETERS or (piped and (base in WRAPPERS or base in PIPE_SCRIPTED)):
                if piped:
                    # What it runs comes through the pipe (`| sh`, `| xargs rm`): the text does not show it.
                    level, reasons = BLANKET, [*reasons, f"'{base}' runs what is piped into it"]
                elif any(_text(w) in INLINE_CODE_FLAGS or _text(w).startswith(("-c", "-e")) for w in words):
                    level, reasons = max(level, EXACT), [*reasons, f"'{base}' runs code given on the command line"]
            if base in ("cd", "pushd", "popd"):
                # Later redirections and writers are judged from the session's folder: that stays conservative
                # only while every `cd` goes somewhere inside the workspace.
                target = argv_words[0] if len(argv_words) == 1 else None
                if target is None or target == "-" or self._outside(target):
                    level, reasons = max(level, EXACT), [*reasons, f"'{base}' may leave the workspace"]
                elif why := protected_path(self.workspace, target, self.base):
                    # Writes after it are judged from the session's folder: `cd .git && echo x > config`.
                    self.out.doubts.append(f"'{base} {target}' enters a folder of program settings ({why})")
            if base in SCRIPTED:
                level, reasons = max(level, EXACT), [*reasons, f"'{base}' runs a program given as an argument"]
            if base in WRITERS and any(self._outside_arg(a) for a in argv_words):
                level, reasons = max(level, EXACT), [*reasons, f"'{base}' names a path outside the workspace"]
            if base in WRITERS:
                for arg in argv_words:
                    value = arg.split("=", 1)[-1] if arg else arg
                    why = protected_path(self.workspace, value, self.base) if value and value[0] != "-" else None
                    if why:
                        self.out.doubts.append(f"'{base}' may write '{value}': {why}")
                        break
            if base == "git" and _git_writes_config(argv_words):
                self.out.doubts.append("'git config' changes settings that can run programs (core.fsmonitor...)")
            risky_args = RUNS_ARGUMENT.get(base)
            if risky_args and any(_text(w).split("=")[0] in risky_args for w in words):
                level, reasons = max(level, EXACT), [*reasons, f"'{base}' has an option that runs or writes"]
        parts = [_text(c) for c in node.children if c.type not in ("file_redirect", "heredoc_redirect")]
        for r in redirects:
            r_level, doubt = self._redirect(r)
            if r_level > PLAIN:
                level, reasons = max(level, r_level), [*reasons, f"redirects with '{_first_line(r)}'"]
            if doubt:
                self.out.doubts.append(doubt)
            parts.append(_text(r).split("\n")[0] if r.type == "heredoc_redirect" else _text(r))
        self._add(" ".join(parts), level, reasons, argv, opaque)

    def redirected(self, node: Any, piped: bool) -> None:
        body = node.child_by_field_name("body")
        redirects = list(node.children_by_field_name("redirect"))
        if body is not None and body.type == "command":
            self.command(body, piped, redirects)
            return
        if body is not None:
            self.visit(body, piped)
        level, reasons = PLAIN, []
        for r in redirects:
            self.visit(r)
            r_level, doubt = self._redirect(r)
            level = max(level, r_level)
            if doubt:
                self.out.doubts.append(doubt)
            reasons.append(f"redirects with '{_first_line(r)}'")
        if level > PLAIN or body is None:
            self._add(_text(node).split("\n")[0], max(level, EXACT), reasons)

    def visit(self, node: Any, piped: bool = False) -> None:
        kind = node.type
        if node.is_error or node.is_missing:
            if PARSE_ERROR not in self.out.doubts:
                self.out.doubts.append(PARSE_ERROR)
            return
        if kind == "command":
            self.command(node, piped, [])
        elif kind == "redirected_statement":
            self.redirected(node, piped)
        elif kind == "pipeline":
            for index, child in enumerate(c for c in node.named_children if c.type != "comment"):
                self.visit(child, piped=index > 0)
        elif kind in ("variable_assignment", "variable_assignments", "declaration_command", "unset_command"):
            for child in node.named_children:
                self.visit(child)
            self._add(_text(node), EXACT, ["sets variables for the commands after it"])
        elif kind == "function_definition":
            for child in node.named_children:
                self.visit(child)
            self._add(_text(node), BLANKET, ["defines a function"])
        elif kind in ("heredoc_redirect", "herestring_redirect", "heredoc_body"):
            for child in node.named_children:
                self.visit(child)
        elif kind == "comment":
            self._check_comment(node)
        elif kind not in _KNOWN:
            # A node this walker was not written for (a newer grammar): what it runs cannot be judged.
            self.out.doubts.append(f"a shell construct the policy does not know ({kind})")
        elif kind in _CONTROL:
            for child in node.named_children:
                self.visit(child)
            self._add(_text(node), EXACT, [f"is a shell '{kind.split('_')[0]}' construct"])
        else:
            # Structure, words and substitutions: what they run is found in their children. Whatever a pipe feeds
            # is treated as fed by it, down to nested groups: `curl x | (sh)` is a pipe into sh.
            for child in node.named_children:
                self.visit(child, piped)

    def _check_comment(self, node: Any) -> None:
        start = node.start_byte
        before = self.source[start - 1 : start] if start else b""
        if before and before not in (b" ", b"\t", b"\n", b";", b"&", b"|", b"(", b")"):
            self.out.doubts.append("a '#' that may not start a comment")


def parse_command(command: str, workspace: Path, cwd: str | None = None) -> ShellCommand:
    """The segments of `command` as run by `bash -c` (`shell_exec.py`) in `cwd` (relative to `workspace`), with any
    doubts."""
    base = Path(os.path.normpath(workspace / (cwd or ".")))
    source = command.encode("utf-8", errors="surrogatepass")
    walker = _Walker(source, base, workspace)
    if _DOUBTFUL_TEXT.search(command):
        walker.out.doubts.append("a backslash before whitespace, a line continuation or a control character")
    if len(source) > MAX_JUDGED_BYTES:
        walker.out.doubts.append(f"the command is longer than {MAX_JUDGED_BYTES} bytes, too long to judge")
        return walker.out
    root = _parser().parse(source).root_node
    try:
        walker.visit(root)
    except RecursionError:
        walker.out.doubts.append("the command is nested too deeply to judge")
    except Exception as exc:  # a walker bug must never turn into an allow: the command is asked about
        walker.out.doubts.append(f"the command could not be judged ({type(exc).__name__})")
    if root.has_error and PARSE_ERROR not in walker.out.doubts:
        walker.out.doubts.append(PARSE_ERROR)
    return walker.out
