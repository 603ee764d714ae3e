/** What the chat controller talks to: the server connection, the editor around it, and the built-in model offer of
 * a "no LLM server" error. Kept apart from the controller so the faces that only need a port import no logic. */

import type { Mention, ToWebview } from "./messages";
import type { ContentBlock, ToolCallFields } from "./protocol";

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
  /** The header's mode button: the editor shows its mode picker. */
  pickMode?(): void;
  /** A turn's Review changes / Restore… buttons: the checkpoint of the turn with this prompt. */
  checkpoint?(action: "review" | "restore" | "undoTurn", prompt: string): void;
  /** The editor-side actions (absent in unit tests that do not need them). */
  editor?: EditorBridge;
  /** No LLM server answered: offer the built-in model (llm.provider = "embedded") in one action. */
  offerBuiltInModel?(offer: BuiltInModelOffer): void;
}

/** `data.embedded` of the server's "no LLM server" error (-32010): what using the built-in model costs. */
export interface BuiltInModelOffer {
  available: boolean;
  model: string;
  downloaded: boolean;
  downloadBytes: number;
  install: string;
}

const LLM_UNAVAILABLE = -32010;

/** The built-in model offer carried by a "no LLM server answered" error, if any. */
export function builtInModelOffer(err: unknown): BuiltInModelOffer | undefined {
  const e = err as { code?: unknown; data?: { embedded?: BuiltInModelOffer } } | undefined;
  const offer = e?.code === LLM_UNAVAILABLE ? e.data?.embedded : undefined;
  return offer && typeof offer.model === "string" ? offer : undefined;
}

/** Editor actions the chat triggers: diffs, files, attachments, code insertion, the remembered session. */
export interface EditorBridge {
  openDiff(path: string, oldText: string | null | undefined, newText: string): Promise<void>;
  openFile(path: string, line?: number): Promise<void>;
  searchFiles(query: string): Promise<string[]>;
  /** The selection, the active buffer or its diagnostics as a chip; undefined if there is none. */
  editorMention(kind: "selection" | "buffer" | "diagnostics"): Promise<Mention | undefined>;
  /** The chips of a prompt as ACP blocks (resource with the text, or resource_link). */
  mentionBlocks(mentions: Mention[]): Promise<ContentBlock[]>;
  /** `merge`: the file with the block merged where it belongs, null when no single place is found. */
  insertCode(text: string, mode: "insert" | "apply", merge?: (file: string, block: string) => Promise<string | null>): Promise<void>;
  /** A permission request that offers a file change for review: open it as an editable diff. */
  openReview?(requestId: string, toolCall: ToolCallFields): Promise<boolean>;
  /** The user's changes to a reviewed proposal (undefined: as proposed, or not allowed); closes the review. */
  reviewAnswer?(requestId: string, allowed: boolean): Promise<{ content: string; rejectedHunks: number[] } | undefined>;
  /** The chat's session, kept across window reloads. */
  rememberSession(sessionId: string | undefined): void;
  /** A turn started or ended (the Stop icon in the view title follows it). */
  setBusy(busy: boolean): void;
}

export interface CancellationLike {
  onCancellationRequested(listener: () => void): unknown;
}
