"""The core, started the one way every face starts it.

A face (the editors' LSP server, the ACP agent, the terminal) adapts its protocol's vocabulary and nothing else:
it tells the host where the workspace is, what its client sent as settings, how to show a notice and how to ask
a question. The host reads the settings layers, shows what was wrong with them once each, settles workspace trust,
opens the store (the default one, said so, when the configured one cannot be opened), builds the `AgentService`
(the LLM endpoint, the tools, the index, the MCP servers of each session) and closes it again. So the three faces
cannot drift apart, and a new face (a web face) is one more adapter that calls the same five methods.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import logging_setup
from ..client_contract import AgentClient
from ..config import Settings, ToolRule
from ..config_layers import ConfigIssue, LoadResult, load_layers, settle_trust
from ..errors import StoreError
from ..trust import Ask

if TYPE_CHECKING:  # the service (tools, store, index) loads when a face starts it, not with the face
    from ..session.service import AgentService

log = logging.getLogger(__name__)
Show = Callable[[str], None]


async def _nobody(message: str, actions: list[str]) -> str | None:
    """A face that cannot ask: the same as a dismissed question (nothing remembered, the notice shown)."""
    return None


class FaceHost:
    """Settings, trust, store and service for one face's client; every face goes through these methods."""

    def __init__(
        self,
        client: AgentClient,
        show: Show,
        cli_overrides: dict[str, Any] | None = None,
        extra_rules: Sequence[ToolRule] = (),
    ) -> None:
        self.client = client
        self._show = show  # how the face shows a notice: window/showMessage, a log line, stderr
        self.cli_overrides = cli_overrides or {}
        self.extra_rules = list(extra_rules)  # rules a script gives on the command line (`chat --allow/--deny`)
        self.client_options: dict[str, Any] = {}
        self.roots: list[Path] = []
        self.loaded: LoadResult | None = None
        self.service: AgentService | None = None
        self._shown: set[str] = set()
        self._store_error: StoreError | None = None  # the configured store failed: the default one for good
        self._trust = asyncio.Lock()

    @property
    def settings(self) -> Settings:
        if self.loaded is None:
            raise RuntimeError("the settings are not loaded yet")
        return self.loaded.settings

    # --- settings ---------------------------------------------------------------------------------------

    def load(self, roots: list[Path] | None = None, client_options: dict[str, Any] | None = None) -> LoadResult:
        """Read every layer for the workspace (the first root) and what the client sent; kept for `start`. The
        problems are not shown yet: `show_notices` does, when the face may speak."""
        if roots is not None:
            self.roots = roots
        if client_options is not None:
            self.client_options = client_options
        self.loaded = self._read()
        logging_setup.remember_secrets(logging_setup.secrets_in(self.loaded.settings))
        return self.loaded

    def _read(self) -> LoadResult:
        workspace = self.roots[0] if self.roots else None
        try:
            loaded = load_layers(workspace, self.client_options, self.cli_overrides)
        except Exception as exc:  # a bad setting must not stop the face: the command line's only, and why
            loaded = load_layers(None, None, self.cli_overrides)
            loaded.issues.append(ConfigIssue("settings", "", f"{type(exc).__name__}: {exc}", "running on defaults"))
        if self.extra_rules:
            loaded.settings.tools.rules = [*loaded.settings.tools.rules, *self.extra_rules]
        if self._store_error is not None:  # the service keeps the store it opened: the settings say which
            loaded.use_default_store(self._store_error)
        return loaded

    def show_notices(self) -> None:
        """Each problem with the settings, once per face (a reload repeats the unchanged ones)."""
        for issue in self.loaded.issues if self.loaded is not None else []:
            self._say(str(issue))

    def _say(self, text: str) -> None:
        if text not in self._shown:
            self._shown.add(text)
            self._show(text)

    async def reload(self, roots: list[Path] | None = None, client_options: dict[str, Any] | None = None) -> None:
        """The settings read again (the client's changed, the workspace file changed) and applied."""
        if roots is not None:
            self.roots = roots
        if client_options is not None:
            self.client_options = client_options
        await self._apply(self._read())

    async def _apply(self, loaded: LoadResult) -> None:
        self.loaded = loaded
        self.show_notices()
        logging_setup.remember_secrets(logging_setup.secrets_in(loaded.settings))
        if self.service is not None:
            await self.service.reconfigure(loaded.settings)

    # --- workspace trust --------------------------------------------------------------------------------

    async def settle_trust(self, ask: Ask | None) -> None:
        """Ask whether to trust the workspace file's withheld settings (once per file content; one question at a
        time), then apply them. `ask` None: the face cannot ask, so only the notice of what stays ignored."""
        if self._trust.locked():
            return  # a reload while the question is open is covered by its answer
        async with self._trust:
            loaded = self.loaded
            if loaded is None or not loaded.withheld:
                return

            async def notify(text: str) -> None:
                self._say(text)

            try:
                fresh = await settle_trust(loaded, self._read, ask or _nobody, notify)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the question failed: the risky settings stay ignored
                log.warning("workspace trust: %s", exc)
                return
            if fresh is not None:
                await self._apply(fresh)

    async def trust_settled(self) -> None:
        """Wait while the trust question is open: a turn runs with its answer."""
        if self._trust.locked():
            async with self._trust:
                pass

    # --- the service ------------------------------------------------------------------------------------

    def start(self, refresh_index: bool = True) -> AgentService:
        """The service, made once from the loaded settings: the configured store, or the default one when that
        cannot be opened (a notice says so, and later reloads keep to it)."""
        if self.service is not None:
            return self.service
        from ..session.service import AgentService

        loaded = self.loaded if self.loaded is not None else self.load()
        try:
            self.service = AgentService(loaded.settings, self.roots, self.client)
        except StoreError as exc:
            self._store_error = exc
            loaded.use_default_store(exc)
            self.service = AgentService(loaded.settings, self.roots, self.client)
        self.show_notices()
        if refresh_index:
            self.refresh_index()
        return self.service

    def refresh_index(self) -> None:
        """Bring an index built by an earlier run up to date in the background (index.refresh_on_start)."""
        indexer = self.service.indexer if self.service is not None else None
        if indexer is not None and self.settings.index.refresh_on_start and indexer.built_before:
            indexer.start(self.client)

    async def aclose(self) -> None:
        if self.service is not None:
            await self.service.aclose()
