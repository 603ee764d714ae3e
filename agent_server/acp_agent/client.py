"""The AgentClient the core talks to, over plain ACP: `session/update`, `session/request_permission`, and the
client's own files (`fs/*`), terminal (`terminal/*`) and questions (`elicitation/create`) when it offers them in
`initialize`. Updates are shaped for ACP clients on the way out (shaping.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

from .. import acp
from ..client_contract import ClientFeatures, CommandRun, FileChange
from ..tools.permissions import SESSION_OPTION
from ..tools.shell_exec import CLIENT_SHELL_ENV, shell_argv
from . import elicit
from .rpc import Connection
from .shaping import UpdateShaper

log = logging.getLogger(__name__)
_RELEASE_TIMEOUT_S = 5.0


def session_option_supported(capabilities: dict[str, Any]) -> bool:
    """Whether the client said (`clientCapabilities._meta.agentServer.sessionPermission: true`) that it understands
    the "Allow for this session" option, which shares its ACP kind with "Allow once"."""
    meta = capabilities.get("_meta")
    ours = meta.get("agentServer") if isinstance(meta, dict) else None
    return isinstance(ours, dict) and ours.get("sessionPermission") is True


def boolean_options_supported(capabilities: dict[str, Any]) -> bool:
    """ACP: `clientCapabilities.session.configOptions.boolean` present (`{}`) means switches may be sent."""
    session = capabilities.get("session")
    config = session.get("configOptions") if isinstance(session, dict) else None
    return isinstance(config, dict) and isinstance(config.get("boolean"), dict)


class _NoProgress:
    """ACP has no progress notifications: progress goes to the log."""

    def __init__(self, title: str) -> None:
        self._title = title

    @property
    def cancelled(self) -> bool:
        return False

    async def report(self, message: str, percentage: int | None = None) -> None:
        log.info("%s: %s", self._title, message)

    async def end(self, message: str) -> None:
        log.info("%s: %s", self._title, message)


class AcpClient:
    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self.features = ClientFeatures()
        self.can_read = False
        self.can_write = False
        self._running: dict[str, str] = {}  # session -> the tool call now executing (tools run one at a time)
        self.shaper = UpdateShaper()
        self.can_elicit = False
        self.session_option = False
        self.boolean_options = False
        self.active_session: str | None = None  # the session a question without one belongs to (the latest used)

    def configure(self, capabilities: dict[str, Any] | None) -> None:
        """`clientCapabilities` from initialize: only what the client says it supports, nothing assumed."""
        caps = capabilities if isinstance(capabilities, dict) else {}
        fs_caps = caps.get("fs")
        fs: dict[str, Any] = fs_caps if isinstance(fs_caps, dict) else {}
        self.can_read = fs.get("readTextFile") is True
        self.can_write = fs.get("writeTextFile") is True
        self.can_elicit = elicit.form_supported(caps)
        self.session_option = session_option_supported(caps)
        self.boolean_options = boolean_options_supported(caps)
        self.features = ClientFeatures(
            show_message_request=self.can_elicit,
            files=self if (self.can_read or self.can_write) else None,
            terminal=self if caps.get("terminal") is True else None,
            questions=self if self.can_elicit else None,
        )

    # --- AgentClient ------------------------------------------------------------------------------------

    async def session_update(self, session_id: str, update: acp.SessionUpdate) -> None:
        self.session_update_nowait(session_id, update)

    def session_update_nowait(self, session_id: str, update: acp.SessionUpdate) -> None:
        if isinstance(update, acp.ToolCallProgress) and update.status is not None:
            if update.status == "in_progress":  # sent right before the tool runs
                self._running[session_id] = update.tool_call_id
            elif self._running.get(session_id) == update.tool_call_id:
                del self._running[session_id]
        params = self.shaper.params(session_id, update)
        if params is not None:
            self._conn.notify("session/update", params)

    async def request_permission(
        self, session_id: str, tool_call: acp.ToolCallUpdateFields, options: list[acp.PermissionOption]
    ) -> acp.RequestPermissionResponse:
        if tool_call.kind == "execute":  # titled by the command, not by the folder it runs in (see shaping.py)
            tool_call = tool_call.model_copy(update={"locations": None})
        if not self.session_option:
            # ACP has no kind for "this session": a client that maps options by kind would take it for `allow_once`
            # (or the other way round), so only clients that said they understand it are offered it.
            options = [o for o in options if o.option_id != SESSION_OPTION]
        request = acp.RequestPermissionRequest(session_id=session_id, tool_call=tool_call, options=options)
        result = await self._conn.request("session/request_permission", request.dump())
        return acp.RequestPermissionResponse.model_validate(result)

    async def apply_edit(self, label: str, changes: list[FileChange]) -> bool:
        return False  # never called: features.apply_edit stays False (writes use fs/write_text_file)

    async def save_documents(self, paths: list[Path]) -> None:
        return None

    def open_document_text(self, path: Path) -> str | None:
        return None  # buffers are read with fs/read_text_file (async), see tools/client_files.py

    async def show_message_request(self, message: str, actions: list[str]) -> str | None:
        """A choice, through elicitation; None (the flow's default) when the client cannot ask or there is no
        session to ask in yet."""
        if not self.can_elicit or self.active_session is None or not actions:
            return None
        return await elicit.choose(self._conn, self.active_session, message, actions)

    # --- ClientQuestions ----------------------------------------------------------------------------------

    async def ask_user(
        self, session_id: str, question: str, options: list[str], tool_call_id: str | None
    ) -> str | None:
        return await elicit.question(self._conn, session_id, tool_call_id, question, options)

    async def log(self, level: str, message: str) -> None:
        # ACP has no log notification; the callers have already logged it to stderr.
        log.debug("%s: %s", level, message)

    async def begin_progress(self, title: str, cancellable: bool = True) -> _NoProgress:
        return _NoProgress(title)

    # --- ClientFiles ------------------------------------------------------------------------------------

    async def read_text_file(self, session_id: str, path: Path) -> str:
        result = await self._conn.request("fs/read_text_file", {"sessionId": session_id, "path": str(path)})
        content = result.get("content") if isinstance(result, dict) else None
        if not isinstance(content, str):
            raise ValueError("fs/read_text_file answered without content")
        return await asyncio.to_thread(keep_file_shape, path, content)

    async def write_text_file(self, session_id: str, path: Path, text: str) -> None:
        await self._conn.request("fs/write_text_file", {"sessionId": session_id, "path": str(path), "content": text})

    # --- ClientTerminal ---------------------------------------------------------------------------------

    async def run_command(
        self, session_id: str, command: str, cwd: Path, env: dict[str, str], timeout_s: float, output_limit: int
    ) -> CommandRun:
        # terminal/create takes a program and its arguments: bash, exactly as a local run (tools/shell_exec.py).
        program, *args = shell_argv(command)
        env = {**env, **CLIENT_SHELL_ENV}
        created = await self._conn.request(
            "terminal/create",
            {
                "sessionId": session_id,
                "command": program,
                "args": args,
                "env": [{"name": k, "value": v} for k, v in env.items()],
                "cwd": str(cwd),
                "outputByteLimit": output_limit,
            },
        )
        terminal_id = created.get("terminalId") if isinstance(created, dict) else None
        if not isinstance(terminal_id, str):
            raise ValueError("terminal/create answered without a terminalId")
        ids = {"sessionId": session_id, "terminalId": terminal_id}
        running = self._running.get(session_id)
        if running is not None:  # the user watches the command run inside its tool call
            self.shaper.terminal(session_id, running, terminal_id)
            live = acp.ToolCallProgress(tool_call_id=running, content=[acp.TerminalContent(terminal_id=terminal_id)])
            self.session_update_nowait(session_id, live)
        try:
            timed_out = False
            try:
                async with asyncio.timeout(timeout_s):
                    await self._conn.request("terminal/wait_for_exit", ids)
            except TimeoutError:
                timed_out = True
                await self._conn.request("terminal/kill", ids)
            output = await self._conn.request("terminal/output", ids)
        finally:
            # Release also kills a command still running (a cancelled turn); it must happen even then.
            release = asyncio.ensure_future(self._conn.request("terminal/release", ids))
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(release), _RELEASE_TIMEOUT_S)
        out: dict[str, Any] = output if isinstance(output, dict) else {}
        exit_status = out.get("exitStatus")
        status: dict[str, Any] = exit_status if isinstance(exit_status, dict) else {}
        code = status.get("exitCode")
        return CommandRun(
            output=str(out.get("output") or ""),
            exit_code=code if isinstance(code, int) else None,
            signal=status.get("signal") if isinstance(status.get("signal"), str) else None,
            timed_out=timed_out,
            truncated=out.get("truncated") is True,
        )


_SHAPE_LIMIT = 1_000_000  # the disk copy read to compare with the client's text


def keep_file_shape(path: Path, text: str) -> str:
    """The client's text with the file's own final newline and line endings.

    Some clients hand over a buffer as lines (avante drops the final newline, a CRLF file comes back with LF):
    taken as is, every edit would rewrite those on disk. What the file on disk has is kept; the buffer's other
    (unsaved) changes stay.
    """
    try:
        if path.stat().st_size > _SHAPE_LIMIT:
            return text
        disk = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return text
    crlf = "\r\n" in disk and "\r\n" not in text and disk.count("\r\n") == disk.count("\n")
    if crlf:
        text = text.replace("\n", "\r\n")
    newline = "\r\n" if crlf or disk.endswith("\r\n") else "\n"
    if text and disk.endswith("\n") and not text.endswith("\n"):
        text += newline
    return text
