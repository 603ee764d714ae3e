"""What every request to one LLM server carries besides its body, for a server a team shares behind a gateway.

- `llm.headers`: the gateway's user, tenant or routing headers, on every request (chat, models, props, embeddings,
  slots). Secret-bearing: never from an untrusted workspace (trust.py), masked in logs (logging_setup.py).
- `llm.session_header`: a hash of the session id on each chat request, so a prefix-aware router keeps a session on
  the replica that holds its KV cache. A hash, not the id: the router needs a stable key, not the id itself.
- `llm.priority`: vLLM's `priority` field (lower runs first under `--scheduling-policy priority`).
- `llm.ca_file`: the CA bundle an https server's certificate is checked against. Unset, httpx honours SSL_CERT_FILE
  and SSL_CERT_DIR, else certifi's public CAs.

The user's own headers win over the session header of the same name; neither can replace Authorization or the body's
framing headers (config.py refuses those names).
"""

from __future__ import annotations

import hashlib
import os
import ssl
from dataclasses import dataclass, field
from typing import Any

from ..config import LLMConfig
from ..errors import LLMError
from .base import ChatRequest, Purpose

# vLLM's priority: lower runs first. The user waits on the turn; the rest can wait on it.
PRIORITIES: dict[Purpose, int] = {"turn": 0, "subagent": 1, "summary": 2, "embedding": 3}


@dataclass(frozen=True)
class Wire:
    headers: dict[str, str] = field(default_factory=dict)
    session_header: str | None = None
    priority: bool = False
    verify: ssl.SSLContext | bool = True
    ca: str = "system"  # where the trusted CAs come from, for doctor

    def request_headers(self, request: ChatRequest) -> dict[str, str]:
        """The session header of a chat request (the static headers are the client's already)."""
        if not self.session_header or not request.session_id:
            return {}
        if self.session_header.lower() in (k.lower() for k in self.headers):
            return {}
        return {self.session_header: session_key(request.session_id)}

    def priority_field(self, purpose: Purpose) -> dict[str, Any]:
        return {"priority": PRIORITIES[purpose]} if self.priority else {}

    def describe(self) -> dict[str, Any]:
        """What doctor shows: header names only, never their values."""
        return {
            "headers": sorted(self.headers),
            "sessionHeader": self.session_header,
            "priority": "vLLM priority field" if self.priority else "off",
            "ca": self.ca,
        }


def session_key(session_id: str) -> str:
    return hashlib.sha256(b"agent-server session " + session_id.encode()).hexdigest()[:32]


def wire_for(llm: LLMConfig) -> Wire:
    verify, ca = trust_store(llm.ca_file)
    return Wire(dict(llm.headers), llm.session_header, llm.priority, verify, ca)


def trust_store(ca_file: str | None) -> tuple[ssl.SSLContext | bool, str]:
    """The `verify` httpx gets and a line saying where its CAs come from."""
    if ca_file:
        path = os.path.expanduser(ca_file)
        try:
            return ssl.create_default_context(cafile=path), f"llm.ca_file {path}"
        except (OSError, ssl.SSLError) as exc:
            raise LLMError(f"llm.ca_file: cannot use {path} as a CA bundle: {exc}") from None
    for variable in ("SSL_CERT_FILE", "SSL_CERT_DIR"):
        if os.environ.get(variable):
            return True, f"{variable} {os.environ[variable]}"
    return True, "the public CAs (certifi)"
