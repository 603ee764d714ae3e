"""The editor-facing server assembled: the pygls server with every method module registered on it.

The method modules import the server class; the server never imports them back (this module does), so a new
family of methods is one module with a `register(server)` and one line here.
"""

from __future__ import annotations

import logging
from typing import Any

from . import (
    agent_methods,
    checkpoint_methods,
    command_methods,
    completion_methods,
    index_methods,
    merge_methods,
    session_methods,
    settings_methods,
)
from .server import AgentLanguageServer, ExpectedErrors


def create_server(cli_overrides: dict[str, Any] | None = None) -> AgentLanguageServer:
    server = AgentLanguageServer(cli_overrides)
    logging.getLogger("pygls.protocol.json_rpc").addFilter(ExpectedErrors())
    session_methods.register(server)
    checkpoint_methods.register(server)
    agent_methods.register(server)
    command_methods.register(server)
    settings_methods.register(server)
    merge_methods.register(server)
    completion = completion_methods.register(server)
    index_methods.register(server, documents=[completion])
    return server
