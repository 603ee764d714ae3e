/** Messages between the extension host and the chat webview (both directions). */

import type { ModelsList, PermissionOption, SessionInfo, SessionUpdate, ToolCallFields } from "./protocol";

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
  | { type: "sessions"; sessions: SessionInfo[] }
  | { type: "models"; list: ModelsList }
  | { type: "server"; state: "starting" | "running" | "stopped" | "failed"; message?: string };

export type FromWebview =
  | { type: "ready" }
  | { type: "send"; text: string }
  | { type: "stop" }
  | { type: "newChat" }
  | { type: "permission"; requestId: string; optionId: string }
  | { type: "listSessions" }
  | { type: "loadSession"; sessionId: string }
  | { type: "listModels" }
  | { type: "selectModel"; model: string }
  | { type: "index" }
  | { type: "copy"; text: string };
