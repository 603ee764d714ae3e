"""rename_symbol: the editor's language server computes the workspace edit, the user reviews it like any edit (the
permission request shows the diff of every file it touches), and it lands through the editor (workspace/applyEdit,
one undoable step), then on disk.

Every file the edit touches is judged before anyone is asked: inside the workspace after links, a regular UTF-8
file of one name (the sandbox), and not under a deny rule for rename_symbol. The policy decides the call on the file
the model named; a file the edit also touches must pass on its own unless the user was asked and saw its diff (a
rename let through by an allow rule for one file never changes another file no rule allows). What the user was
shown is what is applied: if a file changed since, nothing is.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import acp
from ..client_contract import ClientCode, FileChange, TextEdit
from ..errors import SandboxError, ToolError
from .base import Policy, Tool, ToolContext, ToolResult
from .client_files import write_through_client
from .code_nav_text import Judge, query_spot
from .editing import UNSAVED_NOTE, atomic_write, current_text_via_client
from .preview import Preview
from .sandbox import read_regular, relative, resolve

RENAME_SYMBOL = "rename_symbol"
KIND: acp.ToolKind = "edit"
POLICY: Policy = "ask"  # the user sees every file it changes first
MAX_KEPT = 8  # previews kept per turn for the calls they were shown for
MAX_NAME = 200
_NEW_NAME = re.compile(r"[^\W\d][\w$]*|\$[\w$]*")
_READ_LIMIT = 16_000_000


@dataclass(frozen=True)
class RenamedFile:
    path: Path
    rel: str
    old: str
    new: str
    change: FileChange


@dataclass(frozen=True)
class RenamePlan:
    name: str
    new_name: str
    files: tuple[RenamedFile, ...]
    note: str = ""

    @property
    def changes(self) -> int:
        return sum(len(f.change.edits) for f in self.files)

    def summary(self) -> str:
        names = ", ".join(f"{f.rel} ({len(f.change.edits)})" for f in self.files)
        count = len(self.files)
        files = f"{count} file{'s' * (count != 1)}"
        return f"Rename `{self.name}` to `{self.new_name}`: {self.changes} changes in {files}: {names}"

    def shown(self) -> tuple[list[acp.Content | acp.Diff], list[acp.ToolCallLocation]]:
        """What the permission request and the result card show: the summary, then each file's diff."""
        content: list[acp.Content | acp.Diff] = [acp.Content(content=acp.TextContent(text=self.summary()))]
        content += [acp.Diff(path=str(f.path), old_text=f.old, new_text=f.new) for f in self.files]
        places = [acp.ToolCallLocation(path=str(f.path), line=_first_line(f.change)) for f in self.files]
        return content, places


def _first_line(change: FileChange) -> int:
    return min((e.start_line for e in change.edits), default=0)


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """`text` with every edit made (positions refer to `text`, as LSP edits do); overlapping edits are refused."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(line: int, character: int) -> int:
        return len(text) if line >= len(lines) else starts[line] + min(character, len(lines[line]))

    spans = sorted((offset(e.start_line, e.start_character), offset(e.end_line, e.end_character), e.new_text)
                   for e in edits)  # fmt: skip
    out, at = [], 0
    for start, end, new in spans:
        if start < at or end < start:
            raise ToolError("the language server's rename has overlapping changes; nothing was changed")
        out += [text[at:start], new]
        at = end
    return "".join(out) + text[at:]


def _read_or_none(path: Path) -> str | None:
    try:
        return read_regular(path, _READ_LIMIT).decode("utf-8")
    except (OSError, UnicodeDecodeError, SandboxError):
        return None


class RenameSymbol:
    """The rename_symbol handler of one turn; `plan` is what its permission request shows (permission_preview.py)."""

    def __init__(self, code: ClientCode, judge: Judge, workspace: Path) -> None:
        self.code = code
        self.judge = judge
        self.workspace = workspace
        self._previewed: dict[str, RenamePlan] = {}
        self._tool: Tool | None = None

    def tool(self) -> Tool:
        self._tool = Tool(
            name=RENAME_SYMBOL,
            description=(
                "Rename a symbol everywhere it is used: the editor's language server finds every use, and the user "
                "reviews the change in each file."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "A file where the symbol appears (workspace-relative)."},
                    "line": {"type": "integer", "minimum": 1, "description": "A 1-based line where it appears."},
                    "symbol": {"type": "string", "description": "Its current name."},
                    "new_name": {"type": "string", "description": "The new name."},
                },
                "required": ["path", "line", "symbol", "new_name"],
                "additionalProperties": False,
            },
            handler=self,
            kind=KIND,
            default_policy=POLICY,
            title=lambda a: f"Rename {a.get('symbol', '')} to {a.get('new_name', '')}",
            preview=self.preview,
        )
        return self._tool

    async def preview(self, ctx: ToolContext, args: dict[str, Any]) -> Preview:
        """Every file the rename touches, each as a diff: what allowing it applies."""
        content, places = (await self.plan(ctx, args)).shown()
        return Preview(raw_input=args, content=content, locations=places)

    @staticmethod
    def _key(ctx: ToolContext, args: dict[str, Any]) -> str:
        return ctx.session_id + "\0" + json.dumps(args, sort_keys=True, default=str)

    async def plan(self, ctx: ToolContext, args: dict[str, Any]) -> RenamePlan:
        """The rename as the user is asked about it; kept, so that allowing it applies exactly this."""
        plan = await self._compute(ctx, args, asked=True)
        self._previewed[self._key(ctx, args)] = plan
        while len(self._previewed) > MAX_KEPT:
            self._previewed.pop(next(iter(self._previewed)))
        return plan

    async def __call__(self, ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        plan = self._previewed.pop(self._key(ctx, args), None)
        if plan is None:  # let through by a rule, never shown: every file must pass on its own
            plan = await self._compute(ctx, args, asked=False)
        else:
            for f in plan.files:
                if await current_text_via_client(ctx, f.path, f.rel) != f.old:
                    raise ToolError(f"{f.rel} changed after the rename was shown; nothing was changed. Ask again.")
        return await self._apply(ctx, plan)

    async def _compute(self, ctx: ToolContext, args: dict[str, Any], asked: bool) -> RenamePlan:
        spot = await query_spot(ctx, self.judge, self.workspace, args)
        new_name = str(args["new_name"]).strip()
        if len(new_name) > MAX_NAME or not _NEW_NAME.fullmatch(new_name):
            raise ToolError(f"'{new_name[:MAX_NAME]}' is not a name; pass the new identifier alone")
        if new_name == spot.name:
            raise ToolError(f"`{spot.name}` already has that name; nothing to rename")

        async def text_of(path: Path) -> str:
            try:
                real = resolve(ctx.roots, str(path))
            except SandboxError as exc:
                problem = f"the rename would change a file the tools may not write ({exc}); nothing was changed"
                raise ToolError(problem) from None
            text = await current_text_via_client(ctx, real, relative(ctx.roots, real))
            if text is None:
                raise ToolError(f"the rename would change {relative(ctx.roots, real)}, which does not exist")
            return text

        changes = await self.code.rename(spot.path, spot.line, spot.character, spot.line_text, new_name, text_of)
        if changes is None:
            raise ToolError(f"no language server of the editor renames in {spot.rel}; change the uses with edit_file")
        files = await self._files(ctx, changes)
        if not files:
            raise ToolError(
                f"the language server found nothing to rename for `{spot.name}` at {spot.rel}:{spot.line + 1}"
            )
        self._judge_files(files, args, asked)
        return RenamePlan(spot.name, new_name, tuple(files), spot.note)

    async def _files(self, ctx: ToolContext, changes: list[FileChange]) -> list[RenamedFile]:
        files: list[RenamedFile] = []
        for change in changes:
            real = resolve(ctx.roots, str(change.path))
            if any(f.path == real for f in files):
                raise ToolError(f"the rename names {relative(ctx.roots, real)} twice; nothing was changed")
            base = change.base or ""
            new = await asyncio.to_thread(apply_edits, base, change.edits)
            if new != base:
                rel = relative(ctx.roots, real)
                files.append(RenamedFile(real, rel, base, new, FileChange(real, change.edits, base=base)))
        return files

    def _judge_files(self, files: list[RenamedFile], args: dict[str, Any], asked: bool) -> None:
        assert self._tool is not None
        for f in files:
            verdict = self.judge.decide(self._tool, {**args, "path": f.rel}, self.workspace)
            if verdict == "deny":
                raise ToolError(f"a deny rule for rename_symbol covers {f.rel}; nothing was changed")
            if not asked and verdict != "allow":
                raise ToolError(
                    f"the rename would also change {f.rel}, which your rules do not let rename_symbol change without "
                    "asking (this call was allowed for its own file only); nothing was changed. Tell the user, or "
                    "make the change with edit_file"
                )

    async def _apply(self, ctx: ToolContext, plan: RenamePlan) -> ToolResult:
        label = f"Rename {plan.name} to {plan.new_name}"
        notes: list[str] = []
        if ctx.client.features.apply_edit:
            dirty = set()
            for f in plan.files:
                unsaved = ctx.client.open_document_text(f.path)
                on_disk = await asyncio.to_thread(_read_or_none, f.path)
                if unsaved is not None and (
                    on_disk is None or unsaved.removesuffix("\n") != on_disk.removesuffix("\n")
                ):
                    dirty.add(f.path)
            if not await ctx.client.apply_edit(label, [f.change for f in plan.files]):
                raise ToolError("the editor refused the rename; no file was changed. Sending it again will not "
                                "change that: tell the user the editor did not apply it")  # fmt: skip
            clean = [f for f in plan.files if f.path not in dirty]
            await ctx.client.save_documents([f.path for f in clean])
            for f in clean:  # a later command must see the new text on disk
                if await asyncio.to_thread(_read_or_none, f.path) != f.new:
                    await asyncio.to_thread(atomic_write, f.path, f.new)
            notes = [UNSAVED_NOTE.format(rel=f.rel) for f in plan.files if f.path in dirty]
        else:
            for f in plan.files:
                if not await write_through_client(ctx, f.path, f.new):
                    await asyncio.to_thread(atomic_write, f.path, f.new)
        content, places = plan.shown()
        done = plan.summary().replace("Rename", "Renamed", 1) + "." + "".join(notes)
        text = (plan.note + "\n" if plan.note else "") + done
        return ToolResult(text=text, content=content, locations=places)
