/** The chat's brain in the extension host: sessions, prompts, stop, permissions; no `vscode` import (unit-tested). */

import type { McpResource } from "./mcpResources";
import type { SlashCommand } from "./slashCommands";
import type { FromWebview, Mention, PromptImage, ToWebview } from "./messages";
import { mergeProfiles, type AgentProfileInfo } from "./modes";
import {
  attachmentLabel,
  permissionOutcome,
  promptText,
  type ContentBlock,
  type ModeState,
  type ModelsList,
  type PermissionOption,
  type PermissionOutcome,
  type RequestPermissionParams,
  type SessionInfo,
  type SessionNotification,
} from "./protocol";
import type { CancellationLike, ChatHost, Rpc } from "./chatPorts";
import { builtInModelOffer } from "./chatPorts";
import { ChatModels } from "./chatModels";

export type { BuiltInModelOffer, CancellationLike, ChatHost, EditorBridge, Rpc } from "./chatPorts";

interface PendingPermission {
  sessionId: string;
  options: PermissionOption[];
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
  private readonly models: ChatModels;
  private modes: ModeState | undefined;
  private serverState: ToWebview | undefined;
  private lastPrompt: { blocks: ContentBlock[]; attachments: string[] } | undefined;
  private toRestore: string | undefined;
  /** A prompt sent while the server was still starting or a session was loading: sent once both are done; shown
   * meanwhile after the transcript (`pending`), so a replay arriving first goes above it. */
  private queued: { blocks: ContentBlock[]; attachments: string[]; done: () => void } | undefined;
  private pending: ToWebview | undefined;
  private progress: ToWebview | undefined;
  /** The `agent/session/load` in flight: its replay is still arriving. */
  private loading: Promise<void> | undefined;

  constructor(private readonly host: ChatHost) {
    this.models = new ChatModels((m) => host.broadcast(m));
  }

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
    if (rpc && this.toRestore) {
      const id = this.toRestore;
      this.toRestore = undefined;
      if (!this.sessionId) void this.loadSession(id);
    }
    if (rpc) void this.sendQueued();
  }

  /** The waiting prompt, once the server runs and no session is loading: shown after the replay, then sent. */
  private async sendQueued(): Promise<void> {
    const waiting = this.pending;
    if (this.loading && waiting?.type === "pending" && waiting.reason === "server") this.setPending({ ...waiting, reason: "session" });
    while (this.loading) await this.loading;
    const rpc = this.rpc;
    const queued = this.queued;
    if (!rpc || !queued || this.busy) return;
    this.queued = undefined;
    this.setPending(undefined);
    const { blocks, attachments } = queued;
    this.show({ type: "user", text: promptText(blocks), attachments });
    try {
      await this.run(rpc, blocks, attachments);
    } finally {
      queued.done();
    }
  }

  /** The server's progress line (serverProgress.ts), shown by the chat while it runs. */
  setProgress(text: string | undefined): void {
    this.progress = text === undefined ? undefined : { type: "serverProgress", text };
    this.host.broadcast(this.progress ?? { type: "serverProgress" });
  }

  private setPending(pending: ToWebview | undefined): void {
    this.pending = pending;
    this.host.broadcast(pending ?? { type: "pending" });
  }

  /** After a window reload: resume this session once the server is up (the server replays it). */
  restoreOnAttach(sessionId: string | undefined): void {
    this.toRestore = sessionId;
  }

  setServerState(state: "starting" | "running" | "stopped" | "failed", message?: string): void {
    this.serverState = { type: "server", state, message };
    if ((state === "failed" || state === "stopped") && this.queued) {
      const queued = this.queued;
      this.queued = undefined;
      this.setPending(undefined);
      this.show({ type: "user", text: promptText(queued.blocks), attachments: queued.attachments });
      this.show({ type: "error", message: "The agent server did not start: your prompt was not sent (Retry re-sends it)." });
      queued.done();
    }
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
    if (params.update.sessionUpdate === "current_mode_update") {
      const id = (params.update as { currentModeId?: unknown }).currentModeId;
      if (typeof id === "string") this.setModes({ currentModeId: id, availableModes: this.modes?.availableModes ?? [] });
      return;
    }
    this.show({ type: "update", update: params.update });
  }

  /** `agent/session/request_permission`: shown on the tool card, answered when the user clicks. */
  /** `token` is the request's cancellation: the server gave up asking (e.g. the turn was cancelled). */
  requestPermission(params: RequestPermissionParams, token?: CancellationLike): Promise<PermissionOutcome> {
    const requestId = `perm_${this.nextPermission++}`;
    return new Promise((resolve) => {
      this.permissions.set(requestId, { sessionId: params.sessionId, options: params.options, resolve });
      this.show({ type: "permission", requestId, toolCall: params.toolCall, options: params.options });
      this.host.reveal();
      void this.host.editor?.openReview?.(requestId, params.toolCall).catch(() => false);
      token?.onCancellationRequested(() => void this.answerPermission(requestId, undefined));
    });
  }

  /** The user edited a pending file change's proposal in the review diff: the card shows their version. */
  reviewEdited(requestId: string, newText: string): void {
    if (!this.permissions.has(requestId)) return;
    // One current version per request for a webview that reloads.
    this.history = this.history.filter((m) => !(m.type === "reviewEdited" && m.requestId === requestId));
    this.show({ type: "reviewEdited", requestId, newText });
  }

  private async answerPermission(requestId: string, optionId: string | undefined): Promise<void> {
    const pending = this.permissions.get(requestId);
    if (!pending) return;
    this.permissions.delete(requestId);
    const kind = pending.options.find((o) => o.optionId === optionId)?.kind ?? "";
    const outcome = permissionOutcome(optionId);
    try {
      const review = await this.host.editor?.reviewAnswer?.(requestId, kind.startsWith("allow"));
      if (review) outcome._meta = { review };
    } catch {
      // the diff was closed some other way: the proposal as it is
    }
    pending.resolve(outcome);
    this.show({ type: "permissionResolved", requestId, optionId });
  }

  private cancelPermissions(): void {
    for (const id of [...this.permissions.keys()]) void this.answerPermission(id, undefined);
  }

  async handle(message: FromWebview, reply: (m: ToWebview) => void): Promise<void> {
    switch (message.type) {
      case "ready":
        reply({ type: "workspace", root: this.host.cwd() });
        for (const m of this.history) reply(m);
        if (this.pending) reply(this.pending);
        if (this.progress) reply(this.progress);
        if (this.serverState) reply(this.serverState);
        if (this.models.list) reply({ type: "models", list: this.models.list });
        if (this.modes) reply({ type: "modes", modes: this.modes });
        if (this.busy) reply({ type: "turnStart" });
        if (!this.models.list) void this.refreshModels();
        return;
      case "send":
        return this.send(message.text, message.mentions ?? [], message.images ?? []);
      case "retry":
        if (this.lastPrompt) return this.prompt(this.lastPrompt.blocks, this.lastPrompt.attachments);
        return;
      case "editLast": {
        const text = this.lastPrompt ? promptText(this.lastPrompt.blocks) : "";
        if (text) reply({ type: "compose", text });
        return;
      }
      case "deleteSession":
        return this.deleteSession(message.sessionId, reply, message.query);
      case "openDiff":
        return this.host.editor?.openDiff(message.path, message.oldText, message.newText);
      case "openFile":
        return this.host.editor?.openFile(message.path, message.line);
      case "listCommands":
        return this.listCommands(reply);
      case "listResources":
        return this.listResources(reply);
      case "searchFiles": {
        const files = (await this.host.editor?.searchFiles(message.query)) ?? [];
        reply({ type: "files", query: message.query, files });
        return;
      }
      case "attachEditor": {
        const mention = await this.host.editor?.editorMention(message.kind);
        if (mention) reply({ type: "attach", mention });
        else reply({ type: "composerNotice", message: `No ${message.kind} to attach: open a file in the editor first.` });
        return;
      }
      case "insertCode":
        return this.host.editor?.insertCode(message.text, message.mode, async (text, block) =>
          this.rpc ? (await this.rpc.request<{ text: string | null }>("agent/_mergeBlock", { text, block })).text : null,
        );
      case "stop":
        return this.stop();
      case "newChat":
        return this.newChat();
      case "permission":
        return this.answerPermission(message.requestId, message.optionId);
      case "listSessions":
        return this.listSessions(reply, message.query);
      case "loadSession":
        return this.loadSession(message.sessionId);
      case "listModels":
        return this.refreshModels();
      case "selectModel":
        return this.selectModel(message.model);
      case "pickMode":
        return this.host.pickMode?.();
      case "checkpoint":
        return this.host.checkpoint?.(message.action, message.prompt);
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

  /** A prompt typed in the chat: its chips as resource blocks before the text, its pictures as image blocks after. */
  private async send(text: string, mentions: Mention[], images: PromptImage[]): Promise<void> {
    const context = mentions.length && this.host.editor ? await this.host.editor.mentionBlocks(mentions) : [];
    const pictures = images.map((i): ContentBlock => ({ type: "image", mimeType: i.mimeType, data: i.data }));
    const labels = [...mentions.map((m) => m.label), ...images.map((i) => i.name)];
    await this.prompt([...context, { type: "text", text }, ...pictures], labels);
  }

  /** Sends a prompt in the current session (creating one first); resolves when the turn ends. A prompt sent while
   * the server is still starting (the window just opened) waits for it instead of being lost. */
  async prompt(blocks: ContentBlock[], labels?: string[]): Promise<void> {
    if (this.busy || this.queued) {
      this.show({ type: "error", message: "The agent is still answering: stop it (Escape) or wait." });
      return;
    }
    const attachments = labels ?? blocks.map(attachmentLabel).filter((l): l is string => l !== undefined);
    const state = (this.serverState as { state?: string } | undefined)?.state;
    const starting = !this.rpc && state === "starting";
    if (starting || (this.rpc && this.loading)) {
      // The window just opened: the server is starting, or the remembered session is being replayed. The prompt goes
      // after all that, never between the replayed messages.
      this.lastPrompt = { blocks, attachments };
      this.setPending({ type: "pending", text: promptText(blocks), attachments, reason: starting ? "server" : "session" });
      return new Promise((done) => {
        this.queued = { blocks, attachments, done };
        if (!starting) void this.sendQueued();
      });
    }
    const rpc = this.requireRpc();
    if (!rpc) return;
    this.lastPrompt = { blocks, attachments };
    this.show({ type: "user", text: promptText(blocks), attachments });
    return this.run(rpc, blocks, attachments);
  }

  /** The turn itself, its user bubble already shown. */
  private async run(rpc: Rpc, blocks: ContentBlock[], attachments: string[]): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.host.editor?.setBusy(true);
    this.lastPrompt = { blocks, attachments };
    this.show({ type: "turnStart" });
    let stopReason = "error";
    try {
      const sessionId = await this.ensureSession(rpc);
      const result = await rpc.request<{ stopReason: string }>("agent/session/prompt", {
        sessionId,
        prompt: blocks,
      });
      stopReason = result.stopReason;
    } catch (err) {
      this.show({ type: "error", message: errorMessage(err) });
      const offer = builtInModelOffer(err);
      if (offer) this.host.offerBuiltInModel?.(offer);
    } finally {
      this.busy = false;
      this.host.editor?.setBusy(false);
      this.cancelPermissions();
      this.show({ type: "turnEnd", stopReason });
    }
  }

  /** The chat's session, created on first use (a prompt, or picking a mode in an empty chat). */
  private async ensureSession(rpc: Rpc): Promise<string> {
    if (this.sessionId) return this.sessionId;
    const created = await rpc.request<{ sessionId: string; modes?: ModeState | null }>("agent/session/new", {
      cwd: this.host.cwd(),
      mcpServers: [],
    });
    this.sessionId = created.sessionId;
    this.host.editor?.rememberSession(this.sessionId);
    if (created.modes) this.setModes(created.modes);
    return created.sessionId;
  }

  private setModes(modes: ModeState | undefined): void {
    if (!modes && !this.modes) return;
    this.modes = modes;
    this.host.broadcast({ type: "modes", modes });
  }

  get modeState(): ModeState | undefined {
    return this.modes;
  }

  /** The modes of the chat's session, creating the session if the chat is still empty. */
  async sessionModes(): Promise<ModeState | undefined> {
    const rpc = this.requireRpc();
    if (!rpc) return undefined;
    try {
      await this.ensureSession(rpc);
    } catch (err) {
      this.show({ type: "error", message: `Could not start a session: ${errorMessage(err)}` });
      return this.modes;
    }
    // Profiles are files: one created since the session started is a mode now (the server reads them per call).
    if (this.modes) {
      try {
        const listed = await rpc.request<{ agents: AgentProfileInfo[] }>("agent/_agents/list", { cwd: this.host.cwd() });
        this.setModes(mergeProfiles(this.modes, listed.agents));
      } catch {
        // an older server without agent/_agents/list: the session's own list stands
      }
    }
    return this.modes;
  }

  /** Switches the session's mode; the header follows the server's `current_mode_update` (and this answer). */
  async setMode(modeId: string): Promise<void> {
    const rpc = this.requireRpc();
    if (!rpc || !this.sessionId) return;
    try {
      await rpc.request("agent/session/set_mode", { sessionId: this.sessionId, modeId });
      this.setModes({ currentModeId: modeId, availableModes: this.modes?.availableModes ?? [] });
    } catch (err) {
      this.show({ type: "error", message: `Could not switch to mode ${modeId}: ${errorMessage(err)}` });
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
    this.lastPrompt = undefined;
    this.host.editor?.rememberSession(undefined);
    this.setModes(undefined);
    this.reset();
  }

  private async deleteSession(sessionId: string, reply: (m: ToWebview) => void, query?: string): Promise<void> {
    const rpc = this.requireRpc();
    if (!rpc) return;
    try {
      await rpc.request("agent/session/delete", { sessionId });
    } catch (err) {
      reply({ type: "error", message: `Could not delete the session: ${errorMessage(err)}` });
    }
    if (sessionId === this.sessionId) this.newChat();
    await this.listSessions(reply, query);
  }

  /** The session's slash commands; the session is created first (its MCP servers bring prompts). */
  private async listCommands(reply: (m: ToWebview) => void): Promise<void> {
    const rpc = this.requireRpc();
    if (!rpc) return;
    try {
      const sessionId = await this.ensureSession(rpc);
      const result = await rpc.request<{ commands: SlashCommand[] }>("agent/_commands/list", { sessionId });
      reply({ type: "commands", commands: result.commands });
    } catch {
      reply({ type: "commands", commands: [] }); // completion is a convenience: typing the name still works
    }
  }

  /** The session's MCP resources (empty without MCP servers, or while they start). */
  private async listResources(reply: (m: ToWebview) => void): Promise<void> {
    const rpc = this.requireRpc();
    if (!rpc) return;
    try {
      const sessionId = await this.ensureSession(rpc);
      const result = await rpc.request<{ resources: McpResource[] }>("agent/_resources/list", { sessionId });
      reply({ type: "resources", resources: result.resources });
    } catch {
      reply({ type: "resources", resources: [] });
    }
  }

  /** The workspace's sessions; with `query`, those whose title or messages hold it (searched by the server). */
  private async listSessions(reply: (m: ToWebview) => void, query?: string): Promise<void> {
    const rpc = this.requireRpc();
    if (!rpc) return;
    const words = query?.trim();
    try {
      const result = words
        ? await rpc.request<{ sessions: SessionInfo[] }>("agent/session/search", { query: words, cwd: this.host.cwd(), limit: 100 })
        : await rpc.request<{ sessions: SessionInfo[] }>("agent/session/list", { cwd: this.host.cwd() });
      reply(words ? { type: "sessions", sessions: result.sessions, query: words } : { type: "sessions", sessions: result.sessions });
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
    this.lastPrompt = undefined;
    this.host.editor?.rememberSession(sessionId);
    this.reset(sessionId);
    let load: Promise<void> | undefined = undefined;
    load = (async () => {
      try {
        const loaded = await rpc.request<{ modes?: ModeState | null } | null>("agent/session/load", {
          sessionId,
          cwd: this.host.cwd(),
          mcpServers: [],
        });
        this.setModes(loaded?.modes ?? undefined);
      } catch (err) {
        this.sessionId = undefined;
        this.host.editor?.rememberSession(undefined);
        this.show({ type: "error", message: `Could not resume the session: ${errorMessage(err)}` });
      } finally {
        if (this.loading === load) this.loading = undefined;
      }
    })();
    this.loading = load;
    return load;
  }

  refreshModels(): Promise<void> {
    return this.models.refresh(this.rpc);
  }

  get modelList(): ModelsList | undefined {
    return this.models.list;
  }

  /** The view title's History action: the webview opens its session list. */
  showHistory(): void {
    this.host.broadcast({ type: "showHistory" });
  }

  async selectModel(model: string): Promise<void> {
    const rpc = this.requireRpc();
    if (!rpc) return;
    try {
      await this.models.select(rpc, model);
    } catch (err) {
      this.show({ type: "error", message: `Could not select ${model}: ${errorMessage(err)}` });
    }
  }
}
