"""The exception tree of agent-server. The protocol layer maps it to JSON-RPC errors in one table.

AgentServerError
├── ConfigError              a setting has a bad value (names the key and the expected form)
├── LLMError                 anything between us and the model server
│   ├── LLMConnectionError   cannot reach the server (names the URL and the cause)
│   ├── LLMHTTPError         the server answered with an error status (status, message, retryable)
│   ├── LLMStreamError       an error reported inside a 200 stream, or a stream we cannot parse
│   └── ContextOverflowError the prompt does not fit the model's window
├── SessionNotFoundError     an unknown session id (names it)
├── InvalidParamsError       a request's value is wrong for what it asks (a relative cwd); -32602 on the wire
├── StateError               a valid request the current state does not allow (nothing to undo, a turn running,
│                            checkpoints off); -32803 (request failed) on the wire, never an internal error
├── ToolError                a tool failed; the loop turns it into an "Error: ..." tool result
│   └── SandboxError         a path outside the workspace roots
└── StoreError               the SQLite store failed
"""

from __future__ import annotations


class AgentServerError(Exception):
    """Base of every error we raise on purpose; its message is meant for the user."""


class ConfigError(AgentServerError):
    def __init__(self, key: str, message: str) -> None:
        self.key = key
        super().__init__(f"configuration error at '{key}': {message}")


class LLMError(AgentServerError):
    retryable = False


class LLMConnectionError(LLMError):
    retryable = True

    def __init__(self, url: str, cause: str) -> None:
        self.url = url
        self.cause = cause
        super().__init__(f"cannot reach the LLM server at {url}: {cause}")


class LLMHTTPError(LLMError):
    def __init__(self, url: str, status: int, message: str, retry_after: float | None = None) -> None:
        self.url = url
        self.status = status
        self.message = message
        self.retry_after = retry_after  # seconds the server asked to wait (its Retry-After), if it said
        # 5xx (and 503 "busy"/"loading") are worth another try; 4xx never are. A 429 only after the wait it asks for
        # (resilient.py): retried blindly, a rate limit or a spent budget only fails again.
        self.retryable = status >= 500
        said = f"LLM server at {url} answered {status}"
        if status == 429:
            said += " (rate limited)"
        if retry_after is not None:
            said += f", asking to wait {retry_after:g} s"
        super().__init__(f"{said}: {message}")


class LLMStreamError(LLMError):
    def __init__(self, url: str, message: str) -> None:
        self.url = url
        self.message = message
        super().__init__(f"LLM server at {url} reported an error mid-stream: {message}")


class ContextOverflowError(LLMError):
    def __init__(self, message: str, prompt_tokens: int | None = None, n_ctx: int | None = None) -> None:
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx
        super().__init__(message)


class InvalidParamsError(AgentServerError):
    """The caller sent a value of the right type that cannot be used; its message says which and why."""


class StateError(AgentServerError):
    """The request is well-formed, but what it asks cannot be done now; the message says why and what to do."""


class SessionNotFoundError(AgentServerError):
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        super().__init__(f"unknown session: {session_id}")


class ToolError(AgentServerError):
    """`unchanged`: the call asked for what already is (write_file of a file's own text), so nothing was done; the
    result says so in a typed flag (`ToolResult.unchanged`) that no text of a file can imitate."""

    def __init__(self, message: str = "", *, unchanged: bool = False) -> None:
        super().__init__(message)
        self.unchanged = unchanged


class SandboxError(ToolError):
    pass


class StoreError(AgentServerError):
    pass
