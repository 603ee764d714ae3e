/** The chat's brain in the extension host: sessions, prompts, stop, permissions; no `vscode` import (unit-tested). */

import type { FromWebview, ToWebview } from "./messages";
import {
  attachmentLabel,
  permissionOutcome,
  promptText,
  type ContentBlock,
  type ModelsList,
  type PermissionOutcome,
  type RequestPermissionParams,
  type SessionInfo,
  type SessionNotification,
} from "./protocol";

/** The server connection as the controller needs it (the language client in production). */
export interface Rpc {
  request<T>(method: string, params: unknown): Promise<T>;
  notify(method: string, params: unknown): void;
}

/** What the controller needs from the editor. */
export interface ChatHost {
  /** Sends to every open chat webview. */
  broadcast(message: ToWebview): void;
  /** Shows the chat (e.g. when the agent asks for permission). */
  reveal(): void;
  /** Directory for new sessions (the first workspace folder). */
  cwd(): string;
  copy(text: string): void;
  indexWorkspace(): void;
}

export interface CancellationLike {
  onCancellationRequested(listener: () => void): unknown;
}

interface PendingPermission {
  sessionId: string;
  resolve: (outcome: PermissionOutcome) => void;
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

export class ChatController {
  private rpc: Rpc | undefined;
  private sessionId: string | undefined;
  private busy = false;
  private nextPermission = 1;
  private readonly permissions = new Map<string, PendingPermission>();
  /** Everything shown since the last reset, replayed to a webview that (re)loads. */
  private history: ToWebview[] = [];
  private models: ModelsList | undefined;
  private serverState: ToWebview | undefined;

  constructor(private readonly host: ChatHost) {}

  get currentSession(): string | undefined {
    return this.sessionId;
  }

  get isBusy(): boolean {
    return this.busy;
  }

  /** A (re)started server: sessions live in the server's store, so the chat keeps its id. */
  attach(rpc: Rpc | undefined): void {
    this.rpc = rpc;
    this.cancelPermissions();
    if (rpc) void this.refreshModels();
  }

  setServerState(state: "starting" | "running" | "stopped" | "failed", message?: string): void {
    this.serverState = { type: "server", state, message };
    this.host.broadcast(this.serverState);
  }

  private show(message: ToWebview): void {
    this.history.push(message);
    this.host.broadcast(message);
  }

  private reset(sessionId?: string, title?: string): void {
    this.history = [];
    this.show({ type: "reset", sessionId, title });
  }

  /** `agent/session/update` from the server. */
  onSessionUpdate(params: SessionNotification): void {
    if (!params || params.sessionId !== this.sessionId) return;
    this.show({ type: "update", update: params.update });
  }

  /** `agent/session/request_permission`: shown on the tool card, answered when the user clicks. */
  /** `token` is the request's cancellation: the server gave up asking (e.g. the turn was cancelled). */
  requestPermission(params: RequestPermissionParams, token?: CancellationLike): Promise<PermissionOutcome> {
    const requestId = `perm_${this.nextPermission++}`;
    return new Promise((resolve) => {
      this.permissions.set(requestId, { sessionId: params.sessionId, resolve });
      this.show({ type: "permission", requestId, toolCall: params.toolCall, options: params.options });
      this.host.reveal();
      token?.onCancellationRequested(() => this.answerPermission(requestId, undefined));
    });
  }

  private answerPermission(requestId: string, optionId: string | undefined): void {
    const pending = this.permissions.get(requestId);
    if (!pending) return;
    this.permissions.delete(requestId);
    pending.resolve(permissionOutcome(optionId));
    this.show({ type: "permissionResolved", requestId, optionId });
  }

  private cancelPermissions(): void {
    for (const id of [...this.permissions.keys()]) this.answerPermission(id, undefined);
  }

  async handle(message: FromWebview, reply: (m: ToWebview) => void): Promise<void> {
    switch (message.type) {
      case "ready":
        for (const m of this.history) reply(m);
        if (this.serverState) reply(this.serverState);
        if (this.models) reply({ type: "models", list: this.models });
        if (this.busy) reply({ type: "turnStart" });
        if (!this.models) void this.refreshModels();
        return;
      case "send":
        return this.prompt([{ type: "text", text: message.text }]);
      case "stop":
        return this.stop();
      case "newChat":
        return this.newChat();
      case "permission":
        return this.answerPermission(message.requestId, message.optionId);
      case "listSessions":
        return this.listSessions(reply);
      case "loadSession":
        return this.loadSession(message.sessionId);
      case "listModels":
        return this.refreshModels();
      case "selectModel":
        return this.selectModel(message.model);
      case "index":
        return this.host.indexWorkspace();
      case "copy":
        return this.host.copy(message.text);
    }
  }

  private requireRpc(): Rpc | undefined {
    if (!this.rpc) this.show({ type: "error", message: "The agent server is not running. Run “Agent Server: Show Logs”." });
    return this.rpc;
  }

  /** Sends a prompt in the current session (creating one first); resolves when the turn ends. */
  async prompt(blocks: ContentBlock[]): Promise<void> {
    if (this.busy) {
      this.show({ type: "error", message: "The agent is still answering: stop it (Escape) or wait." });
      return;
    }
    const rpc = this.requireRpc();
    if (!rpc) return;
    this.busy = true;
    const attachments = blocks.map(attachmentLabel).filter((l): l is string => l !== undefined);
    this.show({ type: "user", text: promptText(blocks), attachments });
    this.show({ type: "turnStart" });
    let stopReason = "error";
    try {
      if (!this.sessionId) {
        const created = await rpc.request<{ sessionId: string }>("agent/session/new", {
          cwd: this.host.cwd(),
          mcpServers: [],
        });
        this.sessionId = created.sessionId;
      }
      const result = await rpc.request<{ stopReason: string }>("agent/session/prompt", {
        sessionId: this.sessionId,
        prompt: blocks,
      });
      stopReason = result.stopReason;
    } catch (err) {
      this.show({ type: "error", message: errorMessage(err) });
    } finally {
      this.busy = false;
      this.cancelPermissions();
      this.show({ type: "turnEnd", stopReason });
    }
  }

  /** Stops the running turn; the pending prompt then ends with `cancelled`. */
  stop(): void {
    if (!this.busy || !this.sessionId || !this.rpc) return;
    this.cancelPermissions();
    this.rpc.notify("agent/session/cancel", { sessionId: this.sessionId });
  }

  newChat(): void {
    this.stop();
    this.sessionId = undefined;
    this.reset();
  }

  private async listSessions(reply: (m: ToWebview) => void): Promise<void> {
    const rpc = this.requireRpc();
    if (!rpc) return;
    try {
      const result = await rpc.request<{ sessions: SessionInfo[] }>("agent/session/list", { cwd: this.host.cwd() });
      reply({ type: "sessions", sessions: result.sessions });
    } catch (err) {
      reply({ type: "error", message: `Could not list sessions: ${errorMessage(err)}` });
    }
  }

  /** Resumes a stored session: the server replays its history as updates before answering. */
  async loadSession(sessionId: string): Promise<void> {
    const rpc = this.requireRpc();
    if (!rpc) return;
    if (this.busy) this.stop();
    this.sessionId = sessionId;
    this.reset(sessionId);
    try {
      await rpc.request("agent/session/load", { sessionId, cwd: this.host.cwd(), mcpServers: [] });
    } catch (err) {
      this.sessionId = undefined;
      this.show({ type: "error", message: `Could not resume the session: ${errorMessage(err)}` });
    }
  }

  async refreshModels(): Promise<void> {
    const rpc = this.rpc;
    if (!rpc) return;
    try {
      this.models = await rpc.request<ModelsList>("agent/_models/list", {});
      this.host.broadcast({ type: "models", list: this.models });
    } catch (err) {
      this.host.broadcast({ type: "notice", message: `Models unavailable: ${errorMessage(err)}` });
    }
  }

  private async selectModel(model: string): Promise<void> {
    const rpc = this.requireRpc();
    if (!rpc) return;
    try {
      const result = await rpc.request<{ current: string }>("agent/_models/select", { model });
      this.models = { current: result.current, models: this.models?.models ?? [] };
      this.host.broadcast({ type: "models", list: this.models });
    } catch (err) {
      this.show({ type: "error", message: `Could not select ${model}: ${errorMessage(err)}` });
    }
  }
}
