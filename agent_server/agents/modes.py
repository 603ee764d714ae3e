"""What the session's agent profile (its mode) changes for a turn: tools, permissions, model, prompt, limits.

The core of the turn does not know about profiles: it gets a Turn built from these pieces, so a profile is data
(validated files) read by the service, never a second loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import acp
from ..config import Settings, ToolRule
from ..store import Store
from ..tools.base import Tool
from ..turn.live_session import Session
from . import Catalog, Profile, ProfileError, load_catalog

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TurnSetup:
    """One turn as the profile shapes it."""

    profile: Profile
    settings: Settings  # a copy: max_rounds, temperature, kind (agent.profile) and the profile's rules applied
    model: str | None  # None: the session's model

    @property
    def system_extra(self) -> str:
        return f"\n\n{self.profile.prompt}" if self.profile.prompt else ""


def catalog_for(workspace: Path, db_path: Path) -> Catalog:
    """The profiles a session in `workspace` may use; workspace profiles' `allow` rules need trust."""
    from ..trust import file_digest, is_trusted

    def trusted(ws: Path, profile_file: Path) -> bool:
        try:
            return is_trusted(db_path, ws, file_digest(profile_file)) == "trusted"
        except OSError:
            return False

    return load_catalog(workspace, trusted)


def setup(profile: Profile, settings: Settings) -> TurnSetup:
    spec = profile.spec
    copy = settings.model_copy(deep=True)
    if spec.max_rounds is not None:
        copy.agent.max_rounds = spec.max_rounds
    if spec.temperature is not None:
        copy.llm.temperature = spec.temperature
    if spec.kind == "task":
        copy.agent.profile = "task"
    rules = [ToolRule(tool=r.tool, policy=r.policy, pattern=r.pattern) for r in profile.rules()]
    # Profile rules come first; deny wins whatever the order, so a profile can tighten the user's rules.
    copy.tools.rules = [*rules, *copy.tools.rules]
    return TurnSetup(profile=profile, settings=copy, model=spec.model)


def offered(tools: list[Tool], profile: Profile) -> list[Tool]:
    """The profile's allowlist; a tool it leaves out is not offered, and a forged call to it is refused as unknown."""
    return [t for t in tools if profile.offers(t.name, t.loop_breaking)]


def mode_state(catalog: Catalog, current: str) -> acp.SessionModeState:
    modes = [
        acp.SessionMode(id=p.name, name=p.name.replace("-", " ").title(), description=p.spec.description or None)
        for p in sorted(catalog.profiles.values(), key=_order)
    ]
    return acp.SessionModeState(current_mode_id=current, available_modes=modes)


_BUILTIN_ORDER = ["code", "ask", "plan", "task", "orchestrate"]


def _order(profile: Profile) -> tuple[int, str]:
    rank = _BUILTIN_ORDER.index(profile.name) if profile.name in _BUILTIN_ORDER else len(_BUILTIN_ORDER)
    return rank, profile.name


COPILOT_MODES = {"agent": "code", "edit": "code"}  # Copilot prompt files' `mode:` values; `ask` is ours too


async def command_profile(manager: ModeManager, session: Session, name: str, client: Any) -> Profile | None:
    """The profile a custom command names (`mode:` / `agent:`), from the same trust-filtered catalog as the mode
    picker; an unknown one is reported and the session's own mode runs the turn."""
    catalog = manager.catalog(session)
    name = name if name in catalog.profiles else COPILOT_MODES.get(name, name)
    try:
        return catalog.get(name)
    except ProfileError as exc:
        await client.log("warning", f"{exc}; the command runs in the session's mode")
        return None


class ModeManager:
    """The session's mode (agent profile): chosen per session, remembered in the store, read at each turn."""

    def __init__(self, store: Store, default_mode: Callable[[], str]) -> None:
        self.store = store
        self.default_mode = default_mode

    def catalog(self, session: Session) -> Catalog:
        return catalog_for(session.cwd, self.store.path)

    async def restore(self, session: Session) -> None:
        """A session loaded from the store gets the mode it had."""
        stored = await asyncio.to_thread(self.store.get_mode, session.id)
        session.mode = stored or self.default_mode()

    async def set(self, session: Session, mode_id: str) -> Profile:
        profile = self.catalog(session).get(mode_id)  # ProfileError names the modes there are
        session.mode = profile.name
        await asyncio.to_thread(self.store.set_mode, session.id, profile.name)
        return profile

    def profile(self, session: Session) -> Profile:
        """The session's profile; a mode whose file was removed or broken falls back to `code` (logged)."""
        catalog = self.catalog(session)
        try:
            return catalog.get(session.mode)
        except ProfileError as exc:
            log.warning("%s; using the code mode", exc)
            return catalog.get("code")

    def state(self, session: Session) -> acp.SessionModeState:
        return mode_state(self.catalog(session), session.mode)
