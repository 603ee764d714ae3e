"""The edit format of one turn (agent.edit_format): resolved for the turn's model, and in `files` format the
request's files shown in the user's message, as the model needs them to answer with whole files."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import sqlite3
from pathlib import Path
from typing import Protocol

from ..agents import modes
from ..client_contract import AgentClient
from ..context_sources import files_prompt
from ..errors import AgentServerError, StoreError
from ..llm.base import ModelInfo, Provider
from ..turn.edit_format import choose, model_key
from ..turn.live_session import Session

log = logging.getLogger(__name__)

FILES_SHARE = 0.4  # of the window, for the files shown when agent.files_tokens is 0


class MeasuredFormats(Protocol):
    def get_measured_format(self, model_key: str) -> tuple[str, str] | None: ...


class ReadRefusals(Protocol):
    def read_refusal(self, path: Path | str, workspace: Path | str) -> str | None: ...


class ModelHost(Protocol):
    @property
    def store(self) -> MeasuredFormats: ...

    @property
    def policy(self) -> ReadRefusals: ...

    async def provider(self, client: AgentClient | None = None) -> tuple[Provider, str, ModelInfo | None]: ...


def remembered_format(host: ModelHost, model: str) -> str | None:
    """The format a scorecard run on this machine measured for `model`; a store that cannot answer is no answer."""
    if not model:
        return None
    try:
        found = host.store.get_measured_format(model_key(model))
    except (StoreError, sqlite3.Error) as exc:
        log.warning("could not read the measured edit format of %s: %s", model, exc)
        return None
    return found[0] if found else None


async def with_edit_format(
    host: ModelHost, session: Session, shaped: modes.TurnSetup, text: str, content: str, client: AgentClient
) -> tuple[modes.TurnSetup, str]:
    """`shaped` with the edit format resolved (never "auto" after this) and the user message's `content`, with the
    files shown appended in `files` format."""
    agent = shaped.settings.agent
    info: ModelInfo | None = None
    model = shaped.model or ""
    if agent.edit_format == "auto" or agent.edit_format == "files":
        try:
            _provider, listed, info = await host.provider(client)
            model = model or listed
        except AgentServerError:  # the server is down: the turn reports that itself
            pass
    fmt = choose(agent.edit_format, model, remembered_format(host, model) if agent.edit_format == "auto" else None)
    settings = shaped.settings.model_copy(update={"agent": agent.model_copy(update={"edit_format": fmt})})
    shaped = dataclasses.replace(shaped, settings=settings)
    if fmt != "files":
        return shaped, content
    window = (info.context_length if info and info.context_length else None) or settings.llm.context_length or 8192
    budget = agent.files_tokens or int(window * FILES_SHARE)

    # A follow-up ("the tests failed: ...") still works on the files shown before. Files are read and parsed there:
    # off the event loop.
    def refuse(path: str) -> str | None:  # a read_file deny rule keeps a file out of the prompt too
        return host.policy.read_refusal(path, session.cwd)

    shown = await asyncio.to_thread(files_prompt.show, text, session.cwd, session.shown_files, budget, refuse)
    session.files_edit, session.files_remove, session.shown_files = shown.edit, shown.remove, shown.shown
    if shown.max_tokens and not settings.llm.max_tokens:  # the answer asked for, not a re-typed module
        llm = settings.llm.model_copy(update={"max_tokens": shown.max_tokens})
        shaped = dataclasses.replace(shaped, settings=settings.model_copy(update={"llm": llm}))
    if not shown.text:
        return shaped, content
    # A change request reads best before the files; a question after them (a small model answers what it read last).
    return shaped, f"{content}\n\n{shown.text}" if shown.edit else f"{shown.text}\n\n{content}"
