"""Settings: one pydantic model, filled from layered sources (later wins).

    built-in defaults < user file (~/.config/agent-server/config.toml) < workspace .agent-server.toml
    < AGENT_SERVER_* environment < LSP initializationOptions / workspace/configuration < CLI flags

Every source is a nested dict; keys may be snake_case or camelCase (`baseUrl` == `base_url`). `build` raises
`ConfigError` naming the dotted key and the expected form; `load` (through `config_layers`) skips each bad key
alone and applies the workspace file's risky keys only in a trusted workspace (`trust.py`).
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import ConfigError

ENV_PREFIX = "AGENT_SERVER_"
log = logging.getLogger(__name__)


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, use_attribute_docstrings=True)


_HTTP_URL = re.compile(r"^https?://[^/\s]+")


def _http_url(value: str | None) -> str | None:
    if value is not None and not _HTTP_URL.match(value):
        raise ValueError("expected an http(s) URL such as http://127.0.0.1:11434")
    return value


# A header name is an HTTP token; the ones agent-server sets itself (the key, the body's framing) cannot be replaced.
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$")
_OWN_HEADERS = {"authorization", "content-type", "content-length", "host", "accept", "transfer-encoding", "connection"}


_SECRET_KEY = re.compile(r"(^|_)(headers|api_key|key|token|secret|password|env)$")


def shown_input(loc: tuple[int | str, ...], value: Any) -> str:
    """A rejected value as a config notice shows it: a header, key, token or password never (notices are logged)."""
    return "(value hidden)" if any(_SECRET_KEY.search(str(part)) for part in loc) else repr(value)


class FallbackConfig(Section):
    provider: Literal["ollama", "openai"] | None = None
    base_url: str | None = None
    model: str

    _check_url = field_validator("base_url")(_http_url)


class EmbeddedConfig(Section):
    """The built-in model (`llm.provider = "embedded"`): llama.cpp run by agent-server itself (docs/providers.md)."""

    context: int = Field(default=8192, ge=0, le=1_000_000)
    """Window the embedded llama.cpp runs with; 0 = the model's trained window (more memory, slower prompts)."""
    threads: int | None = Field(default=None, ge=1, le=256)
    """CPU threads; None = half the cores (a second thread on a busy 2-core machine mostly spins)."""
    port: int | None = Field(default=None, ge=1024, le=65535)
    """Loopback port; None = a free one."""
    cache_dir: str | None = None
    """Where catalogue models are downloaded; default: the user cache dir (platformdirs) + /models."""
    when_no_server: Literal["offer", "use", "never"] = "offer"
    """With no provider set and no server found: `offer` says how to use the built-in model, `use` uses it."""


class LLMConfig(Section):
    provider: Literal["ollama", "openai", "embedded"] | None = None
    """None = auto-detect: Ollama on 127.0.0.1:11434, then LM Studio on 127.0.0.1:1234. `embedded` = the built-in
    llama.cpp with `model` a GGUF path or a catalogue name (default qwen2.5-coder-0.5b-instruct)."""
    base_url: str | None = None
    """An http(s) URL; for `openai`, the server root or with `/v1`."""
    model: str | None = None
    """None = the first model the server lists."""
    api_key: str | None = None
    fallbacks: list[FallbackConfig] = Field(default_factory=list)
    timeout_s: float = Field(default=300.0, gt=0, le=86_400)
    """Longest wait for the next byte of a response (models can take a while to load)."""
    connect_timeout_s: float = Field(default=5.0, gt=0, le=600)
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, gt=0, le=1_000_000)
    think: bool | Literal["low", "medium", "high"] | None = None
    keep_alive: str | None = None
    """Ollama: how long the model stays loaded after a request (unset: 30m, so it is still loaded for the next turn;
    "0" unloads at once)."""
    slot_save_path: str | None = None
    """llama.cpp: the server's --slot-save-path. Set, agent-server saves each session's KV cache there when the
    session goes idle or closes and restores it when the session resumes (the embedded server sets it)."""
    slot_save_max_mb: int = Field(default=2048, ge=0, le=1_000_000)
    """Disk budget of the saved sessions in slot_save_path; the oldest go first."""
    retries: int = Field(default=3, ge=1, le=10)
    """Tries per endpoint for connection errors and 5xx (4xx are never retried)."""
    context_length: int | None = Field(default=None, ge=512, le=10_000_000)
    """Override the model's context window (512 tokens at least: nothing useful fits in less)."""
    tool_mode: Literal["auto", "native", "prompt"] = "auto"
    """How tools reach the model: native tool calls, or schemas in the prompt and calls parsed from text."""
    embedding_model: str | None = None
    vision: Literal["auto", "on", "off"] = "auto"
    """Whether pictures in a prompt are sent to the model: `auto` trusts what the server reports (Ollama's
    capabilities, llama.cpp's modalities, LM Studio's type), an unknown answer counting as no; `on` sends them
    anyway (a server that does not say); `off` never (docs/images.md)."""
    image_max_bytes: int = Field(default=5 * 1024 * 1024, ge=1024, le=50 * 1024 * 1024)
    """The largest picture a prompt may carry (decoded bytes); a bigger one is refused with an error."""
    embedded: EmbeddedConfig = Field(default_factory=EmbeddedConfig)
    headers: dict[str, str] = Field(default_factory=dict, max_length=32)
    """Extra request headers for the LLM server (a gateway's user, tenant or routing headers). Secret like api_key:
    never taken from an untrusted workspace, never logged; `agent-server doctor` names them without their values."""
    session_header: str | None = Field(default="X-Session-Affinity", max_length=64)
    """Header carrying a hash of the session id on each chat request, so a prefix-aware router (SGLang's gateway,
    vLLM's router, llm-d) keeps a session on the replica that holds its KV cache; empty or null = not sent."""
    ca_file: str | None = None
    """A PEM bundle of the CA(s) that signed an https LLM server's certificate (a private CA); unset, SSL_CERT_FILE or
    SSL_CERT_DIR are honoured, else the public CAs."""
    priority: bool = False
    """Send vLLM's `priority` field (its `--scheduling-policy priority`; lower runs first): the user's turn 0,
    subagents 1, summaries 2, embeddings 3. Off by default: a server without that policy refuses the field."""
    retry_after_max_s: float = Field(default=60.0, ge=0, le=3600)
    """A 429 whose Retry-After is at most this long is waited out and the request sent again (the wait is shown); a
    longer one, or a 429 without Retry-After, is shown and not retried."""

    _check_url = field_validator("base_url")(_http_url)

    @field_validator("headers")
    @classmethod
    def _check_headers(cls, value: dict[str, str]) -> dict[str, str]:
        for name, text in value.items():
            if not _HEADER_NAME.match(name) or name.lower() in _OWN_HEADERS:
                raise ValueError(f"{name!r} is not a header name agent-server can send (a token, not one it sets)")
            if len(text) > 8192 or any(c in text for c in "\r\n\x00"):
                raise ValueError(f"the value of {name} has a line break or is longer than 8192 characters")
        return value

    @field_validator("session_header")
    @classmethod
    def _check_session_header(cls, value: str | None) -> str | None:
        if value and (not _HEADER_NAME.match(value) or value.lower() in _OWN_HEADERS):
            raise ValueError(f"{value!r} is not a header name agent-server can send (a token, not one it sets)")
        return value or None


class AgentConfig(Section):
    max_rounds: int = Field(default=20, ge=1, le=500)
    profile: Literal["chat", "task"] = "chat"
    """`task` requires the model to finish with task_completion (reminded when it does not)."""
    system_prompt: str | None = None
    mode: str = Field(default="code", pattern=r"^[a-z0-9][a-z0-9_-]{0,39}$")
    """The agent profile new sessions start in: code, ask, plan, task, orchestrate or one of yours (docs/agents.md)."""
    lean_prompt: Literal["auto", "on", "off"] = "auto"
    """The lean fixed prompt (short system prompt, 7 tools with minimal schemas, under 700 tokens): `auto` uses it
    for windows up to agent.lean_window tokens and for local Ollama / llama.cpp servers, where prompt processing
    is what the user waits for."""
    lean_window: int = Field(default=16_384, ge=0, le=10_000_000)
    hot_context_tokens: int = Field(default=0, ge=0, le=4000)
    """Budget of the note naming the files read and changed in this session and the open plan items, added to
    each prompt (0 = off; 200-400 helps small models that lose track after compaction)."""
    continuation_nudges: int = Field(default=1, ge=0, le=5)
    """Per turn, how often an answer that announces work and stops is told to continue (0 = never)."""
    deflection_retries: int = Field(default=3, ge=0, le=5)
    empty_answer_limit: int = Field(default=2, ge=1, le=5)
    no_tool_reminders: int = Field(default=2, ge=0, le=5)
    recover_text_tool_calls: bool = True
    """Tool calls a model writes as text (JSON, tags) run as calls; off only to measure what it does."""
    max_text_calls: int = Field(default=20, ge=1, le=200)
    """At most this many calls of one answer run: read from its text (tool calls written as text, the edit blocks of
    the `files` format) or native; the rest are not applied, and the model is told so in the next request. A workspace
    file may lower it; raising it needs trust."""
    repetition_guard: bool = True
    """A streamed answer that repeats one span is cut (`max_tokens`) instead of running to the token limit."""
    reduced_tools: bool = True
    """Small windows get the few most relevant tools and the short system prompt when all would not fit well."""
    edit_format: Literal["auto", "tools", "files"] = "auto"
    """How the model changes files: `tools` (edit_file/write_file calls), `files` (the request's files shown in the
    prompt, the answer's whole files or search/replace blocks applied as edits), `auto` (what a scorecard run here
    remembered for the model, else what the project measured for its family and size; tools when unmeasured)."""
    files_tokens: int = Field(default=0, ge=0, le=1_000_000)
    """Budget of the files shown in `files` format (0 = 40% of the window)."""
    verify_command: str | None = None
    """A command that checks the work (`pytest -q`): run when the model says it is done, under the normal approval
    rules; its failures go back to the model (at most `verify_max` times per turn)."""
    verify_requested: bool = True
    """Without a verify_command: a test command the user's request names in backticks ("make `pytest -q t.py`
    pass") is run as the check when the model is done, under the same rules (a plain test-runner invocation only)."""
    trace_failure: bool = False
    """A request naming a failing pytest run of named tests: it is run once more with a tracer first (same approval
    rules), and the model is told the test's call that went wrong (arguments, result, path taken). Off: with the 1.5B
    on the repository tasks it finished none more (it copied the function back); for models that can use it."""
    fix_trials: int = Field(default=12, ge=0, le=40)
    """A request naming a failing pytest run of named tests: up to this many lines the test ran are each rewritten by
    the model first, tried against the tests unwritten (one command, approved as any); the first that passes the named
    tests, failing no test of their files that passed before, is proposed as the turn's edit. 0 turns it off."""
    fix_mutants: int = Field(default=100, ge=0, le=400)
    """With fix_trials, when no rewrite by the model worked: up to this many one-token variants of those lines go
    through the same trials (a comparison one step off, a bound off by one, another variable, ...). 0: off."""
    fix_spectrum: bool = True
    """With fix_trials: the rounds after the first take the lines few passing tests ran first (the first trial records
    which lines each test ran), a helper's among them; off: the first lines the failing call ran, in line order."""
    no_worse: bool = True
    """A request naming a failing pytest run of named tests: a turn that leaves those tests' files worse than before
    (a test that passed fails, or the run hangs) writes the Python files it changed back (one compare command)."""
    resample_temperature: float = Field(default=0.0, ge=0, le=2)
    """After the model sent a file back unchanged, the next request is sampled at least this hot (greedy decoding
    would repeat it); 0 (the default: measured, it finished no more tasks) turns it off."""
    verify_max: int = Field(default=2, ge=0, le=10)
    """How many times per turn a failing check sends the model back to work."""


class ToolRule(Section):
    tool: str
    """Tool name or glob (`run_command`, `mcp.github.*`)."""
    policy: Literal["allow", "ask", "deny"]
    pattern: str | None = None
    """Glob matched against the command (run_command) or the path (file tools)."""


class ToolsConfig(Section):
    rules: list[ToolRule] = Field(default_factory=list)
    policy: dict[str, Literal["allow", "ask", "deny"]] = Field(default_factory=dict)
    """Per-tool default overrides: {"write_file": "allow"}."""
    result_limit: int = Field(default=6000, ge=200, le=1_000_000)
    command_timeout_s: float = Field(default=120.0, gt=0, le=86_400)
    max_per_request: int = Field(default=15, ge=1, le=200)
    mcp_call_timeout_s: float = Field(default=60.0, gt=0, le=86_400)
    diagnostics: bool = True
    """After edit_file/write_file, add the errors the change introduced to the result: from the editor's language
    servers when it reports them, else from the `lint` command for the file's language."""
    diagnostics_timeout_s: float = Field(default=3.0, gt=0, le=60)
    """How long the editor may wait for its language servers to settle after an edit."""
    lint: dict[str, str] = Field(default_factory=dict)
    """Per language (`python`, `typescript`, ... or a file extension such as `.py`), a command run after edits
    where no editor reports diagnostics; `{file}` is the edited file. Asked like any run_command."""
    fetch_timeout_s: float = Field(default=20.0, gt=0, le=600)
    """web_fetch: a deadline for the whole download (lookup, connection, redirects, body; connecting at most 10 s of
    it), then as long again (at least 5 s) for HTML to markdown. A workspace may lower it; raising it needs trust."""
    fetch_max_bytes: int = Field(default=2_000_000, ge=1000, le=100_000_000)
    """web_fetch: a page is read up to this many bytes after decompression, the rest is cut (and said so)."""


class ContextConfig(Section):
    min_remaining: int = Field(default=1500, ge=0, le=1_000_000)
    keep_full_turns: int = Field(default=10, ge=1, le=10_000)
    old_result_chars: int = Field(default=200, ge=20, le=1_000_000)
    compact_at: float = Field(default=0.70, gt=0, lt=1)
    compact_to: float = Field(default=0.40, gt=0, lt=1)
    keep_pairs: int = Field(default=5, ge=1, le=10_000)
    compaction_timeout_s: float = Field(default=60.0, gt=0, le=86_400)
    rules_tokens: int = Field(default=2000, ge=0, le=100_000)
    """Budget of the rules files (AGENTS.md, CLAUDE.md, ...) in the system prompt; at most an eighth of the window
    (512 tokens of a 4k window); what does not fit is cut and named. 0 = rules off. See rules-and-commands.md."""


class IndexConfig(Section):
    enabled: bool = True
    """Keep a code index of the workspace (built by agent/_index/start, the `agent.index` command or the CLI)."""
    on_read: Literal["ask", "full", "metadata", "off"] = "off"
    """After a turn, files the agent read stay in the history as: an outline + indexed (`full`), size and names
    only (`metadata`), or the user's choice (`ask`: full / one symbol's line range / metadata / as is)."""
    auto_context: bool = False
    """Add the index's best matches for each prompt to the turn (shown as a search card)."""
    auto_context_tokens: int = Field(default=1500, ge=0, le=1_000_000)
    """Token budget of the automatic context."""
    max_file_bytes: int = Field(default=1_000_000, gt=0, le=1_000_000_000)
    """Files larger than this are not indexed."""
    watch: bool = True
    """Re-index files changed on disk (watchfiles) after the first build."""
    refresh_on_start: bool = True
    """When the workspace was indexed before, bring the index up to date at startup (unchanged files are skipped)."""
    embeddings: bool = False
    """Also embed chunks with `llm.embedding_model`, in the background, pausing while a turn runs."""


class CheckpointsConfig(Section):
    enabled: bool = True
    """Before each turn that changes files, keep the workspace as it was (git: private refs; else file copies)."""
    max_per_session: int = Field(default=50, ge=1, le=10_000)
    """Older checkpoints of a session are pruned beyond this many."""
    max_age_days: float = Field(default=14.0, gt=0)
    """Checkpoints older than this are pruned."""
    max_file_bytes: int = Field(default=2_000_000, gt=0)
    """Outside git: files larger than this are not copied (so they cannot be restored)."""


class HookSpec(Section):
    matcher: str = "*"
    """Tool names it runs for: a glob (`run_command`, `github__*`), alternatives with `|`; `*` = every tool.
    Ignored by `Stop` hooks."""
    command: str | list[str]
    """A shell line (`sh -c`) or an argument list; gets the event as JSON on stdin (docs/rules-and-commands.md)."""
    timeout_s: float = Field(default=10.0, gt=0, le=600)
    """Killed after this long (its whole process group); the turn goes on as if it had not run."""


class HooksConfig(Section):
    pre_tool_use: list[HookSpec] = Field(default_factory=list)
    """Before a tool call (after its arguments were checked, before approval): exit code 2 blocks it."""
    post_tool_use: list[HookSpec] = Field(default_factory=list)
    """After a tool call ran: exit code 2 adds its stderr to the result the model reads."""
    stop: list[HookSpec] = Field(default_factory=list)
    """When a turn ends."""


class CompletionConfig(Section):
    enabled: bool = True
    """Inline completion (`textDocument/inlineCompletion`): fill-in-the-middle as you type. Models that cannot
    fill in the middle get no requests (`agent-server doctor` says why)."""
    provider: Literal["auto", "llamacpp", "ollama", "openai"] = "auto"
    """`llamacpp` = `/infill` with extra context, `ollama` = `/api/generate` with `suffix`, `openai` =
    `/v1/completions`; `auto` asks the server (`completion.base_url`, else the chat server)."""
    base_url: str | None = None
    """The completion server; None = the chat server (`llm.base_url`, or the one auto-detected)."""
    model: str | None = None
    """The completion model; None = `llm.model` (or the first model the server lists)."""
    api_key: str | None = None
    fim_template: Literal["auto", "server", "qwen", "starcoder", "codellama", "deepseek", "codestral", "codegemma"] = (
        "auto"
    )
    """How the prompt is written for Ollama and OpenAI-compatible servers: `auto` picks the model family's own
    tokens from its name; `server` sends `suffix` and lets the server's template do it."""
    debounce_ms: int = Field(default=150, ge=0, le=5000)
    """Wait this long after a keystroke; a newer request in the same document cancels the older one."""
    max_tokens: int = Field(default=96, ge=1, le=2048)
    """Most tokens generated for one suggestion (generation also stops where the suggestion ends)."""
    max_lines: int = Field(default=8, ge=1, le=200)
    """Longest suggestion; it also ends where the block ends (a line indented less than the cursor's)."""
    multiline: bool = True
    """False: one line at most."""
    prefix_lines: int = Field(default=48, ge=1, le=10_000)
    """Lines before the cursor sent as the prefix (small windows keep a CPU model's cold prompt short)."""
    suffix_lines: int = Field(default=12, ge=0, le=10_000)
    """Lines after the cursor sent as the suffix (re-evaluated on every keystroke: keep it short)."""
    context_tokens: int = Field(default=512, ge=0, le=100_000)
    """Budget of the extra context (recent files' chunks, definitions of names near the cursor); 0 = prefix and
    suffix only."""
    ring_chunks: int = Field(default=16, ge=0, le=1000)
    """How many chunks of recently opened and edited files are remembered (oldest dropped first)."""
    chunk_lines: int = Field(default=32, ge=4, le=1000)
    """Lines of one context chunk (a recent file's, or a definition's)."""
    temperature: float = Field(default=0.1, ge=0, le=2)
    timeout_s: float = Field(default=30.0, gt=0, le=600)
    """Longest wait for the completion server's next byte."""
    cache_size: int = Field(default=256, ge=0, le=100_000)
    """Suggestions kept by prefix (0 = no cache)."""

    _check_url = field_validator("base_url")(_http_url)


class StoreConfig(Section):
    path: str | None = None
    """SQLite file; default: the user data dir (platformdirs)."""


class LogConfig(Section):
    level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "WARNING"
    file: str | None = None


class MemoryConfig(Section):
    enabled: bool = False
    """Notes kept across sessions (docs/memory-and-skills.md): your memory file in every workspace, the workspace's
    `.agent-server/memory.md` only in a trusted one. Turned on by a workspace's `.agent-server.toml`: needs trust."""
    tokens: int = Field(default=800, ge=0, le=100_000)
    """The notes' share of the prompt (at most a sixteenth of the window); the newest and most relevant first."""


class SkillsConfig(Section):
    tokens: int = Field(default=500, ge=0, le=100_000)
    """The skill list's share of the prompt (name and one line each; at most a sixteenth of the window); 0: no
    skills in the prompt and no `load_skill` tool (`/skill-name` still works)."""


class Settings(Section):
    llm: LLMConfig = Field(default_factory=LLMConfig)
    agent: AgentConfig = Field(default_factory=AgentConfig)
    tools: ToolsConfig = Field(default_factory=ToolsConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    index: IndexConfig = Field(default_factory=IndexConfig)
    checkpoints: CheckpointsConfig = Field(default_factory=CheckpointsConfig)
    completion: CompletionConfig = Field(default_factory=CompletionConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    log: LogConfig = Field(default_factory=LogConfig)
    hooks: HooksConfig = Field(default_factory=HooksConfig)
    """Programs run around tool calls (`[[hooks.PreToolUse]]`, `PostToolUse`, `Stop`); a workspace's need trust."""
    mcp_servers: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """The common `mcpServers` object: {"name": {"command", "args", "env", "cwd"} | {"url", "headers"}}."""
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    skills: SkillsConfig = Field(default_factory=SkillsConfig)

    @field_validator("mcp_servers")
    @classmethod
    def _check_mcp(cls, value: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for name, spec in value.items():
            if not isinstance(spec, dict) or not ("command" in spec or "url" in spec):
                raise ValueError(f"server '{name}' needs either 'command' (stdio) or 'url' (HTTP)")
        return value

    def database_path(self) -> Path:
        if self.store.path:
            return Path(self.store.path).expanduser()
        return Path(platformdirs.user_data_dir("agent-server")) / "agent-server.db"


# --- sources ------------------------------------------------------------------------------------------

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _snake(key: str) -> str:
    if key == "mcpServers":
        return "mcp_servers"
    return _CAMEL.sub("_", key).lower()


def normalize_keys(data: dict[str, Any], _top: bool = True) -> dict[str, Any]:
    """camelCase -> snake_case, recursively, except inside free-form maps (mcp_servers, tools.policy)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        skey = _snake(key)
        if isinstance(value, dict) and skey not in ("mcp_servers", "policy", "env", "headers"):
            value = normalize_keys(value, _top=False)
        elif isinstance(value, list):
            value = [normalize_keys(v, _top=False) if isinstance(v, dict) else v for v in value]
        out[skey] = value
    return out


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Deep merge: dicts merge key by key, everything else is replaced."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and key != "mcp_servers":
            out[key] = merge(out[key], value)
        elif key == "mcp_servers" and isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def user_config_path() -> Path:
    return Path(platformdirs.user_config_dir("agent-server")) / "config.toml"


def from_env(environ: dict[str, str] | None = None, names: dict[str, str] | None = None) -> dict[str, Any]:
    """AGENT_SERVER_LLM__BASE_URL=... -> {"llm": {"base_url": ...}}; also the short AGENT_SERVER_LLM_BASE_URL.

    `names`, when given, receives dotted key -> variable name (so a bad value can name its variable)."""
    env = os.environ if environ is None else environ
    out: dict[str, Any] = {}
    sections = set(Settings.model_fields)
    for name, raw in env.items():
        if not name.startswith(ENV_PREFIX):
            continue
        rest = name[len(ENV_PREFIX) :].lower()
        if "__" in rest:
            parts = rest.split("__")
        else:
            section = next((s for s in sections if rest.startswith(s + "_")), None)
            if section is None:
                continue
            parts = [section, rest[len(section) + 1 :]]
        value: Any = raw
        if raw[:1] in "[{":
            try:
                value = json.loads(raw)
            except json.JSONDecodeError:
                value = raw
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
        if names is not None:
            names[".".join(parts)] = name
    return out


def build(*layers: dict[str, Any]) -> Settings:
    """Validate the merged layers; the first error names its dotted key."""
    merged: dict[str, Any] = {}
    for layer in layers:
        if layer:
            merged = merge(merged, normalize_keys(layer))
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"]) or "(root)"
        expected = err["msg"]
        if err["type"] == "extra_forbidden":
            expected = "unknown setting"
        raise ConfigError(key, f"{expected} (got {shown_input(err['loc'], err.get('input'))})") from None
