/** The chat transcript as data: every message from the extension folds into it (no DOM here, unit-tested). */

import type { ToWebview } from "../src/messages";
import type {
  ModeState,
  ModelsList,
  PermissionOption,
  PlanEntry,
  Rejection,
  SessionInfo,
  ToolCallFields,
  ToolContent,
} from "../src/protocol";

export interface ToolCard {
  kind: "tool";
  id: string;
  toolCallId: string;
  title: string;
  toolKind: string;
  status: string;
  rawInput: unknown;
  content: ToolContent[];
  /** `review`: the change is open in a diff editor the user may edit before allowing. */
  permission?: { requestId: string; options: PermissionOption[]; why?: string[]; review?: boolean };
  decision?: string;
  /** The call did not run because the user or a policy said no: shown neutral, not as a failure. */
  rejected?: Rejection;
  /** The turn was stopped before the call ran or finished (its approval was never answered): neutral, not a failure. */
  stopped?: boolean;
  /** It failed without a result: what the server sends for a call the turn's cancellation interrupted. */
  bareFailure?: boolean;
  /** The user edited the proposal in the review diff: the card's diff is their version. */
  edited?: boolean;
}

export type Item =
  | {
      kind: "user";
      id: string;
      text: string;
      attachments: string[];
      /** A tool of this turn changed files (or may have: a command): the bubble offers Review / Restore. */
      changed?: boolean;
    }
  | { kind: "agent"; id: string; text: string }
  | { kind: "thought"; id: string; text: string }
  | ToolCard
  | { kind: "plan"; id: string; entries: PlanEntry[] }
  | { kind: "notice"; id: string; text: string; level: "info" | "error" | "stopped" };

type NewItem = Item extends infer T ? (T extends Item ? Omit<T, "id"> : never) : never;

export interface Changes {
  /** Ids of items added or changed, in transcript order. */
  items: string[];
  cleared: boolean;
  /** Header/footer state changed (busy, usage, models, sessions, server). */
  chrome: boolean;
}

/** Tool kinds whose completed call may have changed files, so the turn has a checkpoint to review or restore. */
const CHANGING_KINDS = new Set(["edit", "delete", "move", "execute"]);

/** A call's result when the turn was stopped before it finished (the server's words: turn/loop.py, interrupted.py). */
const STOPPED_RESULT = /^Error: (cancelled by the user before it finished|interrupted; the agent stopped before this call finished)/;

/** Whether a failed update is a replayed "stopped" (a live cancel sends no result: judged when the turn ends). */
function stoppedUpdate(fields: ToolCallFields): boolean {
  if (fields.status !== "failed" || !fields.content) return false;
  return fields.content.some((c) => c.type === "content" && c.content?.type === "text" && STOPPED_RESULT.test(c.content.text ?? ""));
}

const STOP_TEXT: Record<string, string> = {
  cancelled: "Stopped.",
  max_tokens: "Stopped: the answer hit the model's token limit.",
  max_turn_requests: "Stopped: too many tool rounds in one turn.",
  refusal: "The model refused to answer.",
};

/** The context meter: tokens used of the window, and the rules files' share (usage_update `_meta`). */
export interface Usage {
  used: number;
  size: number;
  rules?: { tokens: number; files: string[]; cut: string[] };
}

export class Transcript {
  items: Item[] = [];
  busy = false;
  usage: Usage | undefined;
  models: ModelsList | undefined;
  /** The session's modes (the header's mode button); undefined before a session exists. */
  modes: ModeState | undefined;
  sessions: SessionInfo[] | undefined;
  /** The search the sessions answer ("" for the whole list). */
  sessionsQuery = "";
  /** The chat's session (from the last reset): its `session_info_update` renames it in the history list. */
  sessionId: string | undefined;
  server: { state: string; message?: string } | undefined;
  /** A prompt waiting to be sent (the server starting, the session loading): shown after the transcript. */
  pending: { text: string; attachments: string[]; reason: "server" | "session" } | undefined;
  /** The server's progress line (a download, an index build) while it runs. */
  serverProgress: string | undefined;
  /** The composer's own notice (a picture that cannot be attached): shown above the prompt, not in the transcript. */
  composerNotice: string | undefined;
  /** The workspace folder: paths on cards are shown relative to it. */
  root = "";
  private nextId = 1;
  private readonly byToolCall = new Map<string, ToolCard>();
  /** The prompt of the turn in progress (or being replayed): tool cards that change files mark it. */
  private turnPrompt: Item | undefined;

  get(id: string): Item | undefined {
    return this.items.find((i) => i.id === id);
  }

  private add<T extends Item = Item>(item: NewItem): T {
    const full = { ...item, id: `i${this.nextId++}` } as T;
    this.items.push(full);
    return full;
  }

  private last(): Item | undefined {
    return this.items[this.items.length - 1];
  }

  private toolCard(fields: ToolCallFields, announced = false): ToolCard {
    let card = this.byToolCall.get(fields.toolCallId);
    // Models and servers reuse tool call ids across turns (e.g. "call_1" every time): a new call announced under
    // the id of a finished one is another call and gets its own card.
    if (card && announced && (card.status === "completed" || card.status === "failed")) card = undefined;
    if (!card) {
      card = this.add<ToolCard>({
        kind: "tool",
        toolCallId: fields.toolCallId,
        title: fields.title ?? fields.toolCallId,
        toolKind: fields.kind ?? "other",
        status: fields.status ?? "pending",
        rawInput: fields.rawInput,
        content: [],
      });
      this.byToolCall.set(fields.toolCallId, card);
    }
    if (fields.title) card.title = fields.title;
    if (fields.kind) card.toolKind = fields.kind;
    if (fields.status) card.status = fields.status;
    if (fields.rawInput !== undefined) card.rawInput = fields.rawInput;
    if (fields.content) card.content = fields.content;
    if (fields._meta?.rejected) card.rejected = fields._meta.rejected;
    if (fields.status) {
      card.bareFailure = fields.status === "failed" && !fields.content;
      card.stopped = stoppedUpdate(fields) || (card.stopped === true && fields.status !== "completed");
    }
    return card;
  }

  private lastMessageId: string | undefined;
  /** A turn started: its first chunk starts a new message whatever came before (never glued onto an old answer). */
  private turnBoundary = false;

  /** Chunks join the last item of their kind, unless they carry another message id (a new message). */
  private appendText(kind: "agent" | "thought" | "user", text: string, messageId?: string): Item {
    const last = this.last();
    const sameMessage = (messageId === undefined || messageId === this.lastMessageId) && !this.turnBoundary;
    this.lastMessageId = messageId;
    this.turnBoundary = false;
    if (last && last.kind === kind && sameMessage) {
      (last as { text: string }).text += text;
      return last;
    }
    if (kind === "user") return this.add({ kind, text, attachments: [] });
    return this.add({ kind, text });
  }

  apply(message: ToWebview): Changes {
    const changes: Changes = { items: [], cleared: false, chrome: false };
    const touch = (item: Item): void => {
      if (!changes.items.includes(item.id)) changes.items.push(item.id);
    };
    switch (message.type) {
      case "reset":
        this.sessionId = message.sessionId;
        this.turnPrompt = undefined;
        this.items = [];
        this.byToolCall.clear();
        this.usage = undefined;
        this.busy = false;
        changes.cleared = true;
        changes.chrome = true;
        break;
      case "user":
        this.turnPrompt = this.add({ kind: "user", text: message.text, attachments: message.attachments });
        touch(this.turnPrompt);
        break;
      case "turnStart":
        this.busy = true;
        this.turnBoundary = true;
        changes.chrome = true;
        break;
      case "turnEnd": {
        this.busy = false;
        changes.chrome = true;
        const text = STOP_TEXT[message.stopReason];
        if (text) {
          touch(this.add({ kind: "notice", text, level: message.stopReason === "cancelled" ? "stopped" : "info" }));
        }
        for (const card of this.byToolCall.values()) {
          if (card.permission) {
            card.permission = undefined; // never answered: the turn ended first
            card.decision ??= "cancelled";
            touch(card);
          }
          // Stopped while it waited or ran: the server ends such a call without a result, or not at all.
          const open = card.status === "pending" || card.status === "in_progress" || card.bareFailure === true;
          if (message.stopReason === "cancelled" && open && !card.stopped) {
            card.stopped = true;
            touch(card);
          }
        }
        break;
      }
      case "error":
        touch(this.add({ kind: "notice", text: message.message, level: "error" }));
        break;
      case "notice":
        touch(this.add({ kind: "notice", text: message.message, level: "info" }));
        break;
      case "permission": {
        const card = this.toolCard(message.toolCall);
        const why = message.toolCall._meta?.why;
        const review = message.toolCall._meta?.review !== undefined;
        card.permission = { requestId: message.requestId, options: message.options, why: Array.isArray(why) ? why : undefined, review };
        touch(card);
        break;
      }
      case "permissionResolved": {
        for (const card of this.byToolCall.values()) {
          if (card.permission?.requestId === message.requestId) {
            card.permission = undefined;
            card.decision = message.optionId ?? "cancelled";
            if (!message.optionId) card.stopped = true; // nobody answered: the turn was stopped
            touch(card);
          }
        }
        break;
      }
      case "reviewEdited": {
        // The user edits the proposal in the review diff: the card shows their version, as Allow will write it.
        const card = [...this.byToolCall.values()].find((c) => c.permission?.requestId === message.requestId);
        const at = card?.content.findIndex((c) => c.type === "diff") ?? -1;
        const diff = card?.content[at];
        if (card && diff?.type === "diff") {
          card.content = card.content.map((c, i) => (i === at ? { ...diff, newText: message.newText } : c));
          card.edited = true;
          touch(card);
        }
        break;
      }
      case "pending":
        this.pending = message.text === undefined ? undefined : { text: message.text, attachments: message.attachments ?? [], reason: message.reason ?? "server" };
        changes.chrome = true;
        break;
      case "serverProgress":
        this.serverProgress = message.text;
        changes.chrome = true;
        break;
      case "composerNotice":
        this.composerNotice = message.message;
        changes.chrome = true;
        break;
      case "modes":
        this.modes = message.modes;
        changes.chrome = true;
        break;
      case "sessions":
        this.sessions = message.sessions;
        this.sessionsQuery = message.query ?? "";
        changes.chrome = true;
        break;
      case "models":
        this.models = message.list;
        changes.chrome = true;
        break;
      case "server":
        this.server = { state: message.state, message: message.message };
        changes.chrome = true;
        break;
      case "workspace":
        this.root = message.root;
        changes.chrome = true;
        break;
      case "update": {
        const u = message.update;
        switch (u.sessionUpdate) {
          case "agent_message_chunk":
          case "agent_thought_chunk":
          case "user_message_chunk": {
            const content = (u as { content?: { type?: string; text?: string } }).content;
            const prompt = this.last();
            if (u.sessionUpdate === "user_message_chunk" && content?.type === "image" && prompt?.kind === "user") {
              prompt.attachments.push("image"); // a replayed picture: named on its prompt's bubble, not drawn again
              touch(prompt);
              break;
            }
            if (content?.type !== "text" || !content.text) break;
            const kind =
              u.sessionUpdate === "agent_message_chunk"
                ? "agent"
                : u.sessionUpdate === "agent_thought_chunk"
                  ? "thought"
                  : "user";
            const messageId = (u as { messageId?: unknown }).messageId;
            const item = this.appendText(kind, content.text, typeof messageId === "string" ? messageId : undefined);
            if (kind === "user") this.turnPrompt = item;
            touch(item);
            break;
          }
          case "tool_call":
          case "tool_call_update": {
            const card = this.toolCard(u as unknown as ToolCallFields, u.sessionUpdate === "tool_call");
            touch(card);
            const prompt = this.turnPrompt;
            if (prompt?.kind === "user" && !prompt.changed && card.status === "completed" && CHANGING_KINDS.has(card.toolKind)) {
              prompt.changed = true;
              touch(prompt);
            }
            break;
          }
          case "plan": {
            const entries = (u as { entries?: PlanEntry[] }).entries ?? [];
            const existing = this.items.find((i) => i.kind === "plan");
            if (existing && existing.kind === "plan") {
              existing.entries = entries;
              touch(existing);
            } else {
              touch(this.add({ kind: "plan", entries }));
            }
            break;
          }
          case "session_info_update": {
            // Sent when a prompt names the session and after a load (a restore may have re-derived it).
            const title = (u as { title?: string | null }).title;
            const entry = this.sessions?.find((s) => s.sessionId === this.sessionId);
            if (entry && title !== undefined) {
              entry.title = title;
              changes.chrome = true;
            }
            break;
          }
          case "usage_update": {
            const { used, size } = u as { used?: number; size?: number };
            if (typeof used === "number" && typeof size === "number") {
              const rules = (u as { _meta?: { agentServer?: { rules?: Usage["rules"] } } })._meta?.agentServer?.rules;
              this.usage = typeof rules?.tokens === "number" ? { used, size, rules } : { used, size };
              changes.chrome = true;
            }
            break;
          }
        }
        break;
      }
    }
    return changes;
  }
}

/** "3.2k / 32k (10%)" for the context meter. */
export function formatUsage(usage: Usage): { label: string; percent: number; title: string } {
  const k = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(n >= 10000 ? 0 : 1)}k` : String(n));
  const percent = usage.size > 0 ? Math.min(100, Math.round((usage.used / usage.size) * 100)) : 0;
  let label = `${k(usage.used)} / ${k(usage.size)} (${percent}%)`;
  let title = `Context used: ${usage.used} of ${usage.size} tokens`;
  const rules = usage.rules;
  if (rules) {
    label += ` · rules ${k(rules.tokens)}${rules.cut?.length ? " (cut)" : ""}`;
    title += `\nRules files: ${rules.tokens} tokens (${(rules.files ?? []).join(", ") || "none"})`;
    if (rules.cut?.length) title += `\nCut to fit the window: ${rules.cut.join(", ")}`;
  }
  return { label, percent, title };
}
