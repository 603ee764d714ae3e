"""write_file and edit_file: through the editor (workspace/applyEdit, undoable) when it can, else atomically on disk."""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import acp
from ..client_contract import FileChange, TextEdit
from ..errors import SandboxError, ToolError
from .base import LeanForm, ToolContext, ToolResult
from .client_files import buffer_text, write_through_client
from .definition import BuiltinTool, ToolArgs, lean_object, path_location
from .edit_matching import find_match
from .preview import Preview, diff_preview
from .sandbox import FileTooLargeError, NotRegularFileError, read_regular, relative, resolve
from .write_guard import judge_write, note_created

UNCHANGED = "already has exactly this content"  # write_file's refusal of a file sent back as it is
EDIT_MAX_BYTES = 16_000_000  # past this, edit_file and write_file refuse to load the file whole


def atomic_write(path: Path, text: str) -> None:
    """Write via a temp file and os.replace, keeping the old file's mode (new files get 0666 minus umask)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def end_position(text: str) -> tuple[int, int]:
    """The position just past the last character, in code points like every TextEdit (the protocol layer converts
    it to the editor's encoding)."""
    lines = text.split("\n")
    return len(lines) - 1, len(lines[-1])


def current_text(ctx: ToolContext, path: Path, rel: str) -> str | None:
    """The text the user sees: the unsaved buffer if open, else the file on disk, None if it does not exist."""
    unsaved = ctx.client.open_document_text(path)
    if unsaved is not None:
        return unsaved
    if not path.exists():
        return None
    if path.is_dir():
        raise ToolError(f"{rel} is a directory")
    try:
        return read_regular(path, EDIT_MAX_BYTES).decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{rel} is not UTF-8 text; it cannot be edited with this tool") from None
    except NotRegularFileError:
        raise ToolError(f"{rel} is not a regular file (a FIFO, a device or a socket); it cannot be edited") from None
    except FileTooLargeError:
        raise ToolError(f"{rel} is larger than {EDIT_MAX_BYTES} bytes; edit it with a command instead") from None


async def current_text_via_client(ctx: ToolContext, path: Path, rel: str) -> str | None:
    """current_text, asking the client for its buffer when it reads files itself (ACP fs)."""
    unsaved = await buffer_text(ctx, path)
    return unsaved if unsaved is not None else await asyncio.to_thread(current_text, ctx, path, rel)


UNSAVED_NOTE = (
    " {rel} has unsaved changes of the user in the editor, so it was not saved: the change is in the editor's"
    " buffer, and commands that read the file from disk do not see it until the user saves."
)


async def _via_editor(ctx: ToolContext, path: Path, rel: str, label: str, change: FileChange, final: str) -> str:
    """Send the change to the editor (undoable, respects open buffers), then make sure the disk has it too; the
    returned note (else "") says when it could not: saving would have saved the user's own unsaved changes."""
    if change.create:
        path.parent.mkdir(parents=True, exist_ok=True)
    unsaved = ctx.client.open_document_text(path)
    dirty = not change.create and unsaved is not None and _differ(unsaved, await asyncio.to_thread(_read_or_none, path))
    if not await ctx.client.apply_edit(label, [change]):
        # Said so the model stops: the same edit sent again gets the same answer from the same editor.
        raise ToolError(
            f"the editor refused the edit to {rel}; the file is unchanged. Sending the same edit again will not "
            "change that: tell the user the editor did not apply it"
        )
    if dirty:  # the user's unsaved text is theirs to save: the change stays in the buffer
        return UNSAVED_NOTE.format(rel=rel)
    # A later run_command must see the new text on disk: our own plugins save the buffer; for other
    # clients (or if saving failed) we write it ourselves.
    await ctx.client.save_documents([path])
    on_disk = await asyncio.to_thread(_read_or_none, path)
    if on_disk != final:
        await asyncio.to_thread(atomic_write, path, final)
    return ""


def _differ(buffer: str, disk: str | None) -> bool:
    """Whether an open buffer has unsaved changes; editors disagree about a file's final newline (Neovim's 'eol',
    'fixeol'), which is no change of the user's."""
    return disk is None or buffer.removesuffix("\n") != disk.removesuffix("\n")


def _read_or_none(path: Path) -> str | None:
    try:
        return read_regular(path, EDIT_MAX_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError, SandboxError):
        return None


def _result(path: Path, rel: str, old: str | None, new: str, message: str, line: int) -> ToolResult:
    return ToolResult(
        text=message,
        content=[acp.Diff(path=str(path), old_text=old, new_text=new)],
        locations=[acp.ToolCallLocation(path=str(path), line=line)],
    )


class WriteFileArgs(ToolArgs):
    path: str
    """Path relative to the workspace root."""
    content: str
    """The full new text."""


class WriteFile(BuiltinTool[WriteFileArgs]):
    name = "write_file"
    description = "Create a file or replace its whole content. Prefer edit_file for changes to existing files."
    args = WriteFileArgs
    kind = "edit"
    policy = "ask"
    touches = "writes"
    lean = LeanForm("Create or overwrite a file.", lean_object(["path", "content"]), 60)

    def title(self, args: dict[str, Any]) -> str:
        return f"Write {args['path']}"

    def locations(self, ctx: ToolContext, args: dict[str, Any]) -> list[acp.ToolCallLocation]:
        return path_location(ctx, args)

    async def preview(self, ctx: ToolContext, args: WriteFileArgs) -> Preview:
        return diff_preview(*await proposed_write(ctx, args))

    async def run(self, ctx: ToolContext, args: WriteFileArgs) -> ToolResult:
        path, old, content = await proposed_write(ctx, args)
        rel = relative(ctx.roots, path)
        unsaved = await _write(ctx, path, rel, f"Write {rel}", _whole_file(path, old, content), content)
        if old is None:
            note_created(path)
        lines = len(content.splitlines())
        verb = "Created" if old is None else "Overwrote"
        return _result(path, rel, old, content, f"{verb} {rel} ({lines} lines).{unsaved}", 0)


def _whole_file(path: Path, old: str | None, content: str) -> FileChange:
    """The change that replaces a file's whole text (or creates it when there is none)."""
    if old is None:
        return FileChange(path=path, edits=[TextEdit(0, 0, 0, 0, content)], create=True)
    end_line, end_char = end_position(old)
    return FileChange(path=path, edits=[TextEdit(0, 0, end_line, end_char, content)], base=old)


async def _write(ctx: ToolContext, path: Path, rel: str, label: str, change: FileChange, final: str) -> str:
    features = ctx.client.features
    if features.apply_edit and (not change.create or features.resource_operations):
        return await _via_editor(ctx, path, rel, label, change, final)
    if not await write_through_client(ctx, path, final):
        await asyncio.to_thread(atomic_write, path, final)
    return ""


async def write_reviewed(ctx: ToolContext, path: Path, base: str | None, final: str, note: str) -> ToolResult:
    """Write the text the user settled on in their review of a proposed change to `path` (the path the policy
    checked; the review only changes content). `base` is the text the review started from: if the file changed
    meanwhile, nothing is written."""
    rel = relative(ctx.roots, path)
    now = await current_text_via_client(ctx, path, rel)
    if now != base:
        raise ToolError(f"{rel} changed while the user reviewed the change; nothing was written. Read it again.")
    if final == (base or ""):
        return ToolResult(text=f"Nothing was written to {rel}: the user kept it as it was.\n{note}")
    unsaved = await _write(ctx, path, rel, f"Write {rel}", _whole_file(path, base, final), final)
    pairs = zip((base or "").splitlines(), final.splitlines(), strict=False)
    line = next((number for number, (a, b) in enumerate(pairs) if a != b), 0)
    message = f"Wrote {rel} as the user reviewed it ({len(final.splitlines())} lines).{unsaved}\n{note}"
    return _result(path, rel, base, final, message, line)


@dataclass(frozen=True)
class Replacement:
    """edit_file's change, computed once for the permission preview and for the edit itself."""

    path: Path
    rel: str
    original: str  # the text the user sees now (unsaved buffer included), line endings as they are
    text: str  # `original` with \n line endings
    at: int  # where old_text starts in `text`
    old_text: str  # the text replaced, as it is in the file (the model's old_text may have differed, see `how`)
    new_text: str
    crlf: bool
    how: str = "exact"  # how old_text was matched (edit_matching.Match.how)

    @property
    def final(self) -> str:
        updated = self.text[: self.at] + self.new_text + self.text[self.at + len(self.old_text) :]
        return updated.replace("\n", "\r\n") if self.crlf else updated


async def plan_edit(ctx: ToolContext, args: EditFileArgs) -> Replacement:
    """Fails exactly as edit_file would: outside the sandbox, no such file, old_text missing or ambiguous."""
    path = resolve(ctx.roots, args.path, must_exist=True)
    rel = relative(ctx.roots, path)
    old_text, new_text = args.old_text, args.new_text
    if not old_text:
        raise ToolError("old_text is empty; use write_file to create or overwrite a whole file")
    if old_text == new_text:
        raise ToolError("old_text and new_text are the same, so there is nothing to change")
    original = await current_text_via_client(ctx, path, rel)
    if original is None:
        raise ToolError(f"no such file: '{rel}'")
    crlf = "\r\n" in original
    text = original.replace("\r\n", "\n") if crlf else original
    old_text, new_text = old_text.replace("\r\n", "\n"), new_text.replace("\r\n", "\n")
    found = find_match(text, old_text, new_text, rel)
    matched = text[found.start : found.end]
    plan = Replacement(path, rel, original, text, found.start, matched, found.new_text, crlf, found.how)
    await _guard(path, rel, original, plan.final)
    return plan


async def proposed_write(ctx: ToolContext, args: WriteFileArgs) -> tuple[Path, str | None, str]:
    """write_file's change without making it: (path, the text now or None for a new file, the text after)."""
    path = resolve(ctx.roots, args.path)
    old = await current_text_via_client(ctx, path, relative(ctx.roots, path))
    content = args.content
    if old is not None and "\r\n" in old and "\r\n" not in content:
        content = content.replace("\n", "\r\n")  # keep the file's line endings
    if old is not None and old.rstrip() == content.rstrip():
        # A small model asked to fix a file often sends it back as it was: saying "Overwrote" would tell it the fix
        # was made. Refused before any approval: there is nothing to approve.
        raise ToolError(
            f"{relative(ctx.roots, path)} {UNCHANGED}, so nothing was written. Sending it again "
            "will not change anything: if it still needs a fix, send the fixed version; if it is done, say so",
            unchanged=True,
        )
    await _guard(path, relative(ctx.roots, path), old, content)
    return path, old, content


async def _guard(path: Path, rel: str, old: str | None, new: str) -> None:
    """Refuse a write that would do harm (write_guard): before it lands and, as the permission preview computes its
    change with this module, before anyone is asked to approve it."""
    verdict = await judge_write(path, rel, old, new)
    if verdict.refused is not None:
        raise ToolError(verdict.reason)


class EditFileArgs(ToolArgs):
    path: str
    """Path relative to the workspace root."""
    old_text: str
    """Exact text to replace."""
    new_text: str
    """Replacement text."""


class EditFile(BuiltinTool[EditFileArgs]):
    name = "edit_file"
    description = (
        "Replace one exact occurrence of old_text with new_text in a file. old_text must match exactly once "
        "(copy it from read_file output without the line numbers, including indentation)."
    )
    args = EditFileArgs
    kind = "edit"
    policy = "ask"
    touches = "writes"
    lean = LeanForm("Replace old_text (exact, once) with new_text.", lean_object(["path", "old_text", "new_text"]), 50)

    def title(self, args: dict[str, Any]) -> str:
        return f"Edit {args['path']}"

    def locations(self, ctx: ToolContext, args: dict[str, Any]) -> list[acp.ToolCallLocation]:
        return path_location(ctx, args)

    async def preview(self, ctx: ToolContext, args: EditFileArgs) -> Preview:
        plan = await plan_edit(ctx, args)
        return diff_preview(plan.path, plan.original, plan.final)

    async def run(self, ctx: ToolContext, args: EditFileArgs) -> ToolResult:
        return await _edit(ctx, await plan_edit(ctx, args))


async def _edit(ctx: ToolContext, plan: Replacement) -> ToolResult:
    path, rel, original, text, at, crlf = plan.path, plan.rel, plan.original, plan.text, plan.at, plan.crlf
    old_text, new_text = plan.old_text, plan.new_text

    # Replace whole lines so that every position but the end of the file is at character 0.
    first_line = text.count("\n", 0, at)
    line_start = text.rfind("\n", 0, at) + 1
    stop = at + len(old_text)
    newline_after = text.find("\n", stop)
    line_end = len(text) if newline_after < 0 else newline_after + 1
    replaced_lines = text[line_start:line_end]
    replacement = replaced_lines[: at - line_start] + new_text + replaced_lines[stop - line_start :]
    if newline_after < 0:
        end_line, end_char = end_position(text)
    else:
        end_line, end_char = text.count("\n", 0, line_end), 0
    final = plan.final
    edit = TextEdit(first_line, 0, end_line, end_char, replacement.replace("\n", "\r\n") if crlf else replacement)
    change = FileChange(path=path, edits=[edit], base=original)
    unsaved = await _write(ctx, path, rel, f"Edit {rel}", change, final)
    last = first_line + new_text.count("\n") + 1
    message = f"Edited {rel}: replaced 1 occurrence at line {first_line + 1} (now lines {first_line + 1}-{last})."
    if plan.how != "exact":
        message += f" old_text did not match exactly; it was matched by {plan.how}."
    message += unsaved
    return _result(path, rel, original, final, message, first_line)
