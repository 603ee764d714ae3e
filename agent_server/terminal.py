"""The terminal face: the same core as the editors, rendered with rich. Proves the core needs no LSP."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Literal

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TaskID, TextColumn
from rich.text import Text

from . import acp
from .client_contract import ClientFeatures, FileChange

Approve = Literal["ask", "all", "none"]
_CHOICES = {"y": "allow_once", "s": "allow_session", "a": "allow_always", "n": "reject_once", "r": "reject_always"}


class _Progress:
    """A progress bar on stderr once a percentage is known (a model download); plain lines otherwise."""

    def __init__(self, console: Console, title: str) -> None:
        self._console = console
        self._title = title
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    @property
    def cancelled(self) -> bool:
        return False

    async def report(self, message: str, percentage: int | None = None) -> None:
        if percentage is None:
            self._console.print(f"[dim]{escape(self._title)} {escape(message)}[/dim]", highlight=False)
            return
        if self._bar is None:
            self._bar = Progress(
                TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                console=self._console, transient=True,
            )  # fmt: skip
            self._bar.start()
            self._task = self._bar.add_task(self._title, total=100)
        assert self._task is not None
        self._bar.update(self._task, completed=percentage, description=f"{self._title}: {message}")

    async def end(self, message: str) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        self._console.print(f"[dim]{escape(self._title)}: {escape(message)}[/dim]", highlight=False)


class TerminalClient:
    """Streams the answer to stdout; tool cards, thinking and questions go to stderr so stdout stays the answer."""

    def __init__(self, approve: Approve = "ask", show_thinking: bool = True) -> None:
        self.features = ClientFeatures()
        self.out = Console(file=sys.stdout, highlight=False, soft_wrap=True)
        self.err = Console(file=sys.stderr, highlight=False, soft_wrap=True)
        self.approve = approve
        self.show_thinking = show_thinking
        self._thinking = False

    async def session_update(self, session_id: str, update: acp.SessionUpdate) -> None:
        if isinstance(update, acp.UserMessageChunk) and isinstance(update.content, acp.TextContent):
            self._end_thinking()
            self.err.print(Text(f"\n› {update.content.text}", style="bold"))
        elif isinstance(update, acp.AgentMessageChunk) and isinstance(update.content, acp.TextContent):
            self._end_thinking()
            sys.stdout.write(update.content.text)
            sys.stdout.flush()
        elif isinstance(update, acp.AgentThoughtChunk) and isinstance(update.content, acp.TextContent):
            if self.show_thinking:
                self._thinking = True
                self.err.print(Text(update.content.text, style="dim italic"), end="")
        elif isinstance(update, acp.ToolCallStart):
            self._end_thinking()
            self.err.print(f"\n[bold cyan]⚙ {escape(update.title or '')}[/]", highlight=False)
        elif isinstance(update, acp.ToolCallProgress) and update.status in ("completed", "failed"):
            mark = "[green]✓[/]" if update.status == "completed" else "[red]✗[/]"
            first = ""
            for item in update.content or []:
                if isinstance(item, acp.Content) and isinstance(item.content, acp.TextContent):
                    first = item.content.text.strip().splitlines()[0][:160] if item.content.text.strip() else ""
                    break
            self.err.print(f"  {mark} {escape(first)}", highlight=False, markup=True)
        elif isinstance(update, acp.PlanUpdate):
            for entry in update.entries:
                box = {"completed": "☑", "in_progress": "◐"}.get(entry.status, "☐")
                self.err.print(f"  {box} {escape(entry.content)}", highlight=False)

    def _end_thinking(self) -> None:
        if self._thinking:
            self.err.print()
            self._thinking = False

    async def request_permission(
        self, session_id: str, tool_call: acp.ToolCallUpdateFields, options: list[acp.PermissionOption]
    ) -> acp.RequestPermissionResponse:
        if self.approve == "all":
            return acp.RequestPermissionResponse(outcome=acp.SelectedOutcome(option_id="allow_once"))
        if self.approve == "none" or not sys.stdin.isatty():
            self.err.print(f"[yellow]declined (not interactive): {escape(tool_call.title or '')}[/]")
            return acp.RequestPermissionResponse(outcome=acp.SelectedOutcome(option_id="reject_once"))
        why = (tool_call.meta or {}).get("why") or []
        for reason in why if isinstance(why, list) else []:
            self.err.print(Text(f"  asks because: {reason}", style="dim"))  # Text: command text is not markup
        prompt = f"Allow {tool_call.title}? [y]es once / [s]ession / [a]lways / [n]o / [r]eject always: "
        answer = (await asyncio.to_thread(input, prompt)).strip().lower()[:1]
        return acp.RequestPermissionResponse(outcome=acp.SelectedOutcome(option_id=_CHOICES.get(answer, "reject_once")))

    async def apply_edit(self, label: str, changes: list[FileChange]) -> bool:
        return False

    async def save_documents(self, paths: list[Path]) -> None:
        return None

    def open_document_text(self, path: Path) -> str | None:
        return None

    async def show_message_request(self, message: str, actions: list[str]) -> str | None:
        if not sys.stdin.isatty():
            return None
        self.err.print(Text(message))
        for i, action in enumerate(actions, 1):
            self.err.print(Text(f"  {i}. {action}"))
        answer = (await asyncio.to_thread(input, "> ")).strip()
        return actions[int(answer) - 1] if answer.isdigit() and 0 < int(answer) <= len(actions) else None

    async def log(self, level: str, message: str) -> None:
        self.err.print(Text(message, style="red" if level == "error" else "yellow"))

    async def begin_progress(self, title: str, cancellable: bool = True) -> _Progress:
        return _Progress(self.err, title)
