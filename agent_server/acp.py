"""Pydantic models of the Agent Client Protocol v1 shapes we speak (under the `agent/` method prefix).

Keys are camelCase on the wire and snake_case in Python; discriminators stay snake_case values as ACP
defines them. Extra data travels only in `_meta`. Tests validate every dumped payload against
`shared/reference/acp-v1-schema.json`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

PROTOCOL_VERSION = 1


class AcpModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    def dump(self) -> dict[str, Any]:
        """The wire form: camelCase keys, no nulls."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class Meta(AcpModel):
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


# --- content blocks -----------------------------------------------------------------------------------


class TextContent(Meta):
    type: Literal["text"] = "text"
    text: str


class ImageContent(Meta):
    type: Literal["image"] = "image"
    data: str
    mime_type: str
    uri: str | None = None


class ResourceLink(Meta):
    type: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    mime_type: str | None = None
    title: str | None = None
    description: str | None = None
    size: int | None = None


class TextResourceContents(AcpModel):
    uri: str
    text: str
    mime_type: str | None = None


class BlobResourceContents(AcpModel):
    uri: str
    blob: str
    mime_type: str | None = None


class EmbeddedResource(Meta):
    type: Literal["resource"] = "resource"
    resource: TextResourceContents | BlobResourceContents


ContentBlock = Annotated[TextContent | ImageContent | ResourceLink | EmbeddedResource, Field(discriminator="type")]


# --- initialize -------------------------------------------------------------------------------------


class Implementation(AcpModel):
    name: str
    version: str
    title: str | None = None


class InitializeRequest(Meta):
    protocol_version: int = PROTOCOL_VERSION
    client_capabilities: dict[str, Any] | None = None
    client_info: Implementation | None = None


class PromptCapabilities(AcpModel):
    image: bool = False
    audio: bool = False
    embedded_context: bool = True


class McpCapabilities(AcpModel):
    http: bool = True
    sse: bool = False


class AgentCapabilities(AcpModel):
    load_session: bool = True
    prompt_capabilities: PromptCapabilities = Field(default_factory=PromptCapabilities)
    mcp_capabilities: McpCapabilities = Field(default_factory=McpCapabilities)
    session_capabilities: dict[str, Any] = Field(default_factory=lambda: {"list": {}})
    auth: dict[str, Any] | None = None  # {"logout": {}}


class InitializeResponse(Meta):
    protocol_version: int = PROTOCOL_VERSION
    agent_capabilities: AgentCapabilities = Field(default_factory=AgentCapabilities)
    auth_methods: list[Any] = Field(default_factory=list)
    agent_info: Implementation | None = None


# --- MCP server configuration (ACP form) ------------------------------------------------------------


class EnvVariable(AcpModel):
    name: str
    value: str


class HttpHeader(AcpModel):
    name: str
    value: str


class McpServerStdio(Meta):
    name: str
    command: str
    args: list[str] = Field(default_factory=list)
    env: list[EnvVariable] = Field(default_factory=list)


class McpServerHttp(Meta):
    type: Literal["http"]
    name: str
    url: str
    headers: list[HttpHeader] = Field(default_factory=list)


class McpServerSse(Meta):
    type: Literal["sse"]
    name: str
    url: str
    headers: list[HttpHeader] = Field(default_factory=list)


McpServer = McpServerHttp | McpServerSse | McpServerStdio


# --- sessions -----------------------------------------------------------------------------------------


class NewSessionRequest(Meta):
    cwd: str
    mcp_servers: list[McpServer] = Field(default_factory=list)
    additional_directories: list[str] = Field(default_factory=list)


class NewSessionResponse(Meta):
    session_id: str
    modes: SessionModeState | None = None


class LoadSessionRequest(Meta):
    session_id: str
    cwd: str
    mcp_servers: list[McpServer] = Field(default_factory=list)
    additional_directories: list[str] = Field(default_factory=list)


class LoadSessionResponse(Meta):
    pass


class ListSessionsRequest(Meta):
    cwd: str | None = None
    cursor: str | None = None


class SessionInfo(Meta):
    session_id: str
    cwd: str
    additional_directories: list[str] | None = None
    title: str | None = None
    updated_at: str | None = None


class ListSessionsResponse(Meta):
    sessions: list[SessionInfo]
    next_cursor: str | None = None


class DeleteSessionRequest(Meta):
    session_id: str


StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]


class PromptRequest(Meta):
    session_id: str
    prompt: list[ContentBlock]


class PromptResponse(Meta):
    stop_reason: StopReason


class CancelNotification(Meta):
    session_id: str


# --- session updates ----------------------------------------------------------------------------------

ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]
ToolCallStatus = Literal["pending", "in_progress", "completed", "failed"]


class ToolCallLocation(Meta):
    path: str
    line: int | None = None


class Content(Meta):
    type: Literal["content"] = "content"
    content: ContentBlock


class Diff(Meta):
    type: Literal["diff"] = "diff"
    path: str
    old_text: str | None = None
    new_text: str


class TerminalContent(Meta):
    """A terminal the client runs for us (`terminal/create`), shown live in the tool call."""

    type: Literal["terminal"] = "terminal"
    terminal_id: str


ToolCallContent = Annotated[Content | Diff | TerminalContent, Field(discriminator="type")]


class AgentMessageChunk(Meta):
    session_update: Literal["agent_message_chunk"] = "agent_message_chunk"
    content: ContentBlock
    message_id: str | None = None


class AgentThoughtChunk(Meta):
    session_update: Literal["agent_thought_chunk"] = "agent_thought_chunk"
    content: ContentBlock
    message_id: str | None = None


class UserMessageChunk(Meta):
    session_update: Literal["user_message_chunk"] = "user_message_chunk"
    content: ContentBlock
    message_id: str | None = None


class ToolCallStart(Meta):
    session_update: Literal["tool_call"] = "tool_call"
    tool_call_id: str
    title: str
    kind: ToolKind = "other"
    status: ToolCallStatus = "pending"
    content: list[ToolCallContent] | None = None
    locations: list[ToolCallLocation] | None = None
    raw_input: Any = None
    raw_output: Any = None


class ToolCallProgress(Meta):
    session_update: Literal["tool_call_update"] = "tool_call_update"
    tool_call_id: str
    title: str | None = None
    kind: ToolKind | None = None
    status: ToolCallStatus | None = None
    content: list[ToolCallContent] | None = None
    locations: list[ToolCallLocation] | None = None
    raw_input: Any = None
    raw_output: Any = None


class PlanEntry(Meta):
    content: str
    priority: Literal["high", "medium", "low"] = "medium"
    status: Literal["pending", "in_progress", "completed"] = "pending"


class PlanUpdate(Meta):
    session_update: Literal["plan"] = "plan"
    entries: list[PlanEntry]


class UsageUpdate(Meta):
    session_update: Literal["usage_update"] = "usage_update"
    used: int
    size: int


class SessionInfoUpdate(Meta):
    session_update: Literal["session_info_update"] = "session_info_update"
    title: str | None = None
    updated_at: str | None = None


class UnstructuredCommandInput(Meta):
    hint: str


class AvailableCommand(Meta):
    name: str
    description: str
    input: UnstructuredCommandInput | None = None


class AvailableCommandsUpdate(Meta):
    session_update: Literal["available_commands_update"] = "available_commands_update"
    available_commands: list[AvailableCommand]


class SessionMode(Meta):
    id: str
    name: str
    description: str | None = None


class SessionModeState(Meta):
    current_mode_id: str
    available_modes: list[SessionMode]


class CurrentModeUpdate(Meta):
    session_update: Literal["current_mode_update"] = "current_mode_update"
    current_mode_id: str


class SessionConfigSelectOption(Meta):
    value: str
    name: str
    description: str | None = None


class SessionConfigOption(Meta):
    """A dropdown (`type: "select"`)."""

    id: str
    name: str
    type: Literal["select"] = "select"
    current_value: str
    options: list[SessionConfigSelectOption]
    description: str | None = None
    category: str | None = None  # "mode", "model", "thought_level", ...


class SessionConfigBoolean(Meta):
    """A switch (`type: "boolean"`)."""

    id: str
    name: str
    type: Literal["boolean"] = "boolean"
    current_value: bool
    description: str | None = None
    category: str | None = None


AnyConfigOption = SessionConfigOption | SessionConfigBoolean


class ConfigOptionUpdate(Meta):
    session_update: Literal["config_option_update"] = "config_option_update"
    config_options: list[AnyConfigOption]


SessionUpdate = (
    AgentMessageChunk
    | AgentThoughtChunk
    | UserMessageChunk
    | ToolCallStart
    | ToolCallProgress
    | PlanUpdate
    | UsageUpdate
    | SessionInfoUpdate
    | AvailableCommandsUpdate
    | CurrentModeUpdate
    | ConfigOptionUpdate
)


class SessionNotification(Meta):
    session_id: str
    update: SessionUpdate


# --- permissions --------------------------------------------------------------------------------------

PermissionOptionKind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]


class PermissionOption(Meta):
    option_id: str
    name: str
    kind: PermissionOptionKind


class ToolCallUpdateFields(Meta):
    tool_call_id: str
    title: str | None = None
    kind: ToolKind | None = None
    status: ToolCallStatus | None = None
    content: list[ToolCallContent] | None = None
    locations: list[ToolCallLocation] | None = None
    raw_input: Any = None


class RequestPermissionRequest(Meta):
    session_id: str
    tool_call: ToolCallUpdateFields
    options: list[PermissionOption]


class SelectedOutcome(AcpModel):
    outcome: Literal["selected"] = "selected"
    option_id: str


class CancelledOutcome(AcpModel):
    outcome: Literal["cancelled"] = "cancelled"


class RequestPermissionResponse(Meta):
    outcome: Annotated[SelectedOutcome | CancelledOutcome, Field(discriminator="outcome")]


def text_block(text: str) -> TextContent:
    return TextContent(text=text)


_CHUNKS = (AgentMessageChunk, AgentThoughtChunk)


def notification_params(session_id: str, update: SessionUpdate) -> dict[str, Any]:
    """The params of a `session/update` notification, for every face (LSP `agent/` prefix or plain ACP).

    `SessionNotification(...).dump()`; streamed text chunks (most notifications) are built directly.
    """
    if type(update) in _CHUNKS and update.meta is None and update.message_id is None:  # type: ignore[union-attr]
        block = update.content  # type: ignore[union-attr]
        if type(block) is TextContent and block.meta is None:
            content = {"type": "text", "text": block.text}
            return {"sessionId": session_id, "update": {"sessionUpdate": update.session_update, "content": content}}
    return SessionNotification(session_id=session_id, update=update).dump()
