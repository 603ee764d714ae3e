/** Wire shapes of the agent/ methods (ACP v1 under LSP framing) and the pure mappings the extension needs. */

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export type ContentBlock =
  | { type: "text"; text: string }
  | {
      type: "resource";
      resource: { uri: string; text: string; mimeType?: string };
      _meta?: { range?: Range };
    }
  | { type: "resource_link"; uri: string; name: string }
  | { type: "image"; mimeType: string; data: string; uri?: string };

export type ToolContent =
  | { type: "content"; content: { type: string; text?: string } }
  | { type: "diff"; path: string; oldText?: string | null; newText: string }
  | { type: "terminal"; terminalId: string };

export interface ToolCallFields {
  toolCallId: string;
  title?: string;
  kind?: string;
  status?: "pending" | "in_progress" | "completed" | "failed";
  rawInput?: unknown;
  rawOutput?: unknown;
  content?: ToolContent[];
  locations?: { path: string; line?: number }[];
  /** agent-server: `rejected` when the call did not run because the user or a policy rule said no; `why` on a
   * permission request: the reasons it asks, one per command segment (or for the call). */
  _meta?: { rejected?: Rejection; why?: string[]; [key: string]: unknown };
}

export interface Rejection {
  by: "user" | "policy" | string;
  reason: string;
}

export interface PlanEntry {
  content: string;
  priority?: string;
  status?: string;
}

export type SessionUpdate =
  | { sessionUpdate: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk"; content: ContentBlock }
  | ({ sessionUpdate: "tool_call" } & ToolCallFields)
  | ({ sessionUpdate: "tool_call_update" } & ToolCallFields)
  | { sessionUpdate: "plan"; entries: PlanEntry[] }
  | { sessionUpdate: "usage_update"; used: number; size: number }
  | { sessionUpdate: string; [key: string]: unknown };

export interface SessionNotification {
  sessionId: string;
  update: SessionUpdate;
}

export interface PermissionOption {
  optionId: string;
  name: string;
  kind: "allow_once" | "allow_always" | "reject_once" | "reject_always" | string;
}

export interface RequestPermissionParams {
  sessionId: string;
  toolCall: ToolCallFields;
  options: PermissionOption[];
}

/** `_meta.review`: what the user changed in a proposed file change before allowing it (see reviewHunks.ts). */
export type PermissionOutcome = {
  outcome: { outcome: "selected"; optionId: string } | { outcome: "cancelled" };
  _meta?: { review: { content: string; rejectedHunks: number[] } };
};

export interface SessionInfo {
  sessionId: string;
  cwd: string;
  title?: string | null;
  updatedAt?: string | null;
  /** agent/session/search: the words around the match in a message (absent when the title matched). */
  snippet?: string | null;
}

export interface ModelEntry {
  name: string;
  contextLength?: number | null;
  tools?: boolean | null;
  thinking?: boolean | null;
  /** The model sees pictures (a prompt's images reach it). */
  vision?: boolean | null;
}

export interface ModelsList {
  current: string | null;
  models: ModelEntry[];
}

export interface LlmSettings {
  provider?: string;
  baseUrl?: string;
  model?: string;
}

/** initializationOptions for `initialize`: only the LLM settings the user actually set, and the save, diagnostics and
 * code (agent/_code, codeNav.ts) opt-ins. */
export function initializationOptions(llm: LlmSettings): Record<string, unknown> {
  const picked: Record<string, string> = {};
  for (const key of ["provider", "baseUrl", "model"] as const) {
    const value = llm[key]?.trim();
    if (value) picked[key] = value;
  }
  const options: Record<string, unknown> = { saveDocumentsRequest: true, diagnosticsRequest: true, codeRequest: true };
  if (Object.keys(picked).length > 0) options.llm = picked;
  return options;
}

/**
 * The answer to the server's `workspace/configuration` pull of the section "agentServer": the same LLM settings as
 * initializationOptions, without the editor-only keys (serverCommand, pythonPath, logLevel) the server rejects.
 */
export function serverConfigurationSection(llm: LlmSettings): Record<string, unknown> {
  const { llm: picked } = initializationOptions(llm);
  return picked ? { llm: picked } : {};
}

/** The answer to `agent/session/request_permission`: the chosen option, or cancelled when none was chosen. */
export function permissionOutcome(optionId: string | undefined): PermissionOutcome {
  return optionId ? { outcome: { outcome: "selected", optionId } } : { outcome: { outcome: "cancelled" } };
}

const MIME_BY_LANGUAGE: Record<string, string> = {
  python: "text/x-python",
  javascript: "text/javascript",
  typescript: "text/x-typescript",
  json: "application/json",
  markdown: "text/markdown",
  html: "text/html",
  css: "text/css",
  rust: "text/x-rust",
  go: "text/x-go",
  c: "text/x-c",
  cpp: "text/x-c++",
  java: "text/x-java",
  shellscript: "text/x-shellscript",
  yaml: "text/yaml",
};

export function mimeTypeFor(languageId: string): string {
  return MIME_BY_LANGUAGE[languageId] ?? "text/plain";
}

export interface Selection {
  uri: string;
  text: string;
  languageId: string;
  range: Range;
}

/** The prompt for "Ask About Selection": the selection as an embedded resource with its range, then the question. */
export function selectionPrompt(question: string, selection: Selection): ContentBlock[] {
  return [
    {
      type: "resource",
      resource: { uri: selection.uri, text: selection.text, mimeType: mimeTypeFor(selection.languageId) },
      _meta: { range: selection.range },
    },
    { type: "text", text: question },
  ];
}

/** A short label for a resource attachment shown in the user's bubble, e.g. `main.py:3-10` (1-based lines). */
export function attachmentLabel(block: ContentBlock): string | undefined {
  if (block.type === "resource_link") return block.name;
  if (block.type === "image") return block.uri?.split("/").pop() ?? "image";
  if (block.type !== "resource") return undefined;
  const name = decodeURIComponent(block.resource.uri.split("/").pop() ?? block.resource.uri);
  const range = block._meta?.range;
  if (!range) return name;
  const first = range.start.line + 1;
  const last = range.end.character === 0 && range.end.line > range.start.line ? range.end.line : range.end.line + 1;
  return first === last ? `${name}:${first}` : `${name}:${first}-${last}`;
}

/** The user-visible text of a prompt (its text blocks joined). */
export function promptText(blocks: ContentBlock[]): string {
  return blocks
    .filter((b): b is { type: "text"; text: string } => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}

/** A session's modes (agent profiles), as `agent/session/new` and `agent/session/load` answer them. */
export interface SessionMode {
  id: string;
  name: string;
  description?: string | null;
}

export interface ModeState {
  currentModeId: string;
  availableModes: SessionMode[];
}

/** One entry of `agent/_checkpoints/list`: the workspace as it was before a turn that changed files. */
export interface Checkpoint {
  id: string;
  sessionId: string;
  cwd: string;
  turnMessageId?: string | null;
  prompt?: string | null;
  kind: string;
  createdAt: string;
  complete: boolean;
  /** "turn": before a turn's first change; "restore": the workspace kept just before a restore (to undo it). */
  origin?: "turn" | "restore";
}

/** A file a checkpoint's turn changed (show), or that a restore would change / changed (restore). */
export interface CheckpointFile {
  path: string;
  status: string;
  oldText?: string | null;
  newText?: string | null;
  binary?: boolean;
  /** A restore deletes it though the turn did not create it: made after the turn (kept in the undo checkpoint). */
  createdLater?: boolean;
}

/** A file an "undo only this turn" leaves as it is: a later change touched what the turn changed. */
export interface RestoreConflict {
  path: string;
  reason: string;
}

export interface RestoreResult {
  files: CheckpointFile[];
  conversationCut: boolean;
  restored: boolean;
  notes?: string[];
  conflicts?: RestoreConflict[];
  /** The checkpoint taken just before this restore: `agent/_checkpoints/undoRestore` takes the restore back. */
  undoCheckpointId?: string | null;
}
