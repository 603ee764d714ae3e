/** Messages between the extension host and the chat webview (both directions). */

import type { ModeState, ModelsList, PermissionOption, SessionInfo, SessionUpdate, ToolCallFields } from "./protocol";
import type { McpResource } from "./mcpResources";
import type { SlashCommand } from "./slashCommands";

export type ToWebview =
  | { type: "reset"; sessionId?: string; title?: string }
  | { type: "update"; update: SessionUpdate }
  | { type: "user"; text: string; attachments: string[] }
  | { type: "turnStart" }
  | { type: "turnEnd"; stopReason: string }
  | { type: "error"; message: string }
  | { type: "notice"; message: string }
  | { type: "permission"; requestId: string; toolCall: ToolCallFields; options: PermissionOption[] }
  | { type: "permissionResolved"; requestId: string; optionId?: string }
  /** The user edited the proposal of a pending file change in the review diff: its text now. */
  | { type: "reviewEdited"; requestId: string; newText: string }
  /** A prompt waiting to be sent, shown after the transcript (no `text`: none waits any more). */
  | { type: "pending"; text?: string; attachments?: string[]; reason?: "server" | "session" }
  /** The server's long work in progress (the built-in model's download, an index build); no `text`: none runs. */
  | { type: "serverProgress"; text?: string }
  /** A notice about the composer (a picture not attached), shown above the prompt; no `message` clears it. */
  | { type: "composerNotice"; message?: string }
  | { type: "sessions"; sessions: SessionInfo[]; query?: string }
  | { type: "models"; list: ModelsList }
  /** The session's modes for the header (none before the first session exists). */
  | { type: "modes"; modes?: ModeState }
  | { type: "server"; state: "starting" | "running" | "stopped" | "failed"; message?: string }
  /** The workspace folder (diff headers show paths relative to it). */
  | { type: "workspace"; root: string }
  /** Files for @-mention completion, workspace-relative. */
  | { type: "files"; query: string; files: string[] }
  /** The session's slash commands (prompt files, MCP prompts) for `/` completion. */
  | { type: "commands"; commands: SlashCommand[] }
  /** The session's MCP resources and templates for `@server:uri` completion. */
  | { type: "resources"; resources: McpResource[] }
  /** An attachment the editor added (selection, buffer, diagnostics) shown as a chip in the composer. */
  | { type: "attach"; mention: Mention }
  | { type: "showHistory" }
  /** Put text into the composer (edit of the last prompt). */
  | { type: "compose"; text: string };

/** Context attached to a prompt, shown as a chip; the host turns it into a resource / resource_link block. */
export interface Mention {
  kind: "file" | "selection" | "buffer" | "diagnostics";
  /** Workspace-relative path (file) or the label of the chip. */
  label: string;
  /** file: URI of the document. */
  uri: string;
  /** selection only: the selected text and its range. */
  text?: string;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
  languageId?: string;
}

/** A picture pasted or dropped into the composer, sent as an ACP `image` block. */
export interface PromptImage {
  name: string;
  mimeType: string;
  /** base64, without the data: prefix */
  data: string;
}

export type FromWebview =
  | { type: "ready" }
  | { type: "send"; text: string; mentions?: Mention[]; images?: PromptImage[] }
  | { type: "openDiff"; path: string; oldText?: string | null; newText: string }
  | { type: "openFile"; path: string; line?: number }
  | { type: "searchFiles"; query: string }
  | { type: "listCommands" }
  | { type: "listResources" }
  | { type: "attachEditor"; kind: "selection" | "buffer" | "diagnostics" }
  | { type: "deleteSession"; sessionId: string; query?: string }
  | { type: "retry" }
  | { type: "editLast" }
  | { type: "insertCode"; text: string; mode: "insert" | "apply" }
  | { type: "stop" }
  | { type: "newChat" }
  | { type: "permission"; requestId: string; optionId: string }
  | { type: "listSessions"; query?: string }
  | { type: "loadSession"; sessionId: string }
  | { type: "listModels" }
  | { type: "selectModel"; model: string }
  | { type: "pickMode" }
  /** A turn's Review / Restore buttons: `prompt` is the turn's prompt text (matched to its checkpoint). */
  | { type: "checkpoint"; action: "review" | "restore" | "undoTurn"; prompt: string }
  | { type: "index" }
  | { type: "copy"; text: string };
