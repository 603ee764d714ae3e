/** A proposed file change as a real diff editor: the text now (read-only) beside the proposal, an in-memory
 * document the user may edit; the diff editor's own revert arrow (or "Diff Editor: Revert") puts a hunk back as it
 * was. The permission answer then carries what the user changed (`_meta.review`), and the server writes exactly
 * that. Nothing here touches the disk. */

import * as path from "node:path";
import * as vscode from "vscode";
import type { ToolCallFields } from "./protocol";
import { reviewAnswer, type ReviewAnswer, type ServerHunk } from "./reviewHunks";

export const REVIEW_SCHEME = "agent-server-review";
const BASE_SCHEME = "agent-server-review-base";

interface Review {
  requestId: string;
  file: string;
  base: string;
  proposed: string;
  hunks: ServerHunk[];
  left: vscode.Uri;
  right: vscode.Uri;
}

/** The one file change a permission request offers for review, if it does. */
function reviewable(toolCall: ToolCallFields): { file: string; base: string; proposed: string; hunks: ServerHunk[] } | undefined {
  const meta = toolCall._meta?.review as { hunks?: ServerHunk[] } | undefined;
  const diffs = (toolCall.content ?? []).filter((c) => c.type === "diff") as { path: string; oldText?: string | null; newText: string }[];
  const d = diffs[0];
  if (!meta || !Array.isArray(meta.hunks) || diffs.length !== 1 || !d) return undefined;
  return { file: d.path, base: d.oldText ?? "", proposed: d.newText, hunks: meta.hunks };
}

/** A review document's key: its path (the file as the user knows it) and its query (the review's id). The id stays
 * out of the path, so the editor's title, breadcrumbs and hovers show the file, never an internal id. */
const key = (uri: vscode.Uri): string => `${uri.path}?${uri.query}`;

export class ReviewEditor implements vscode.FileSystemProvider, vscode.TextDocumentContentProvider {
  private readonly files = new Map<string, Uint8Array>();
  private readonly reviews = new Map<string, Review>();
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;
  private readonly edited = new vscode.EventEmitter<{ id: string; text: string }>();
  /** The user changed a proposal in its diff (typing, a reverted hunk, undo): the review's id and its text now. */
  readonly onDidEditProposal = this.edited.event;

  constructor(private readonly root: () => string = () => "") {}

  register(): vscode.Disposable {
    return vscode.Disposable.from(
      vscode.workspace.registerFileSystemProvider(REVIEW_SCHEME, this, { isCaseSensitive: true }),
      vscode.workspace.registerTextDocumentContentProvider(BASE_SCHEME, this),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme !== REVIEW_SCHEME || e.contentChanges.length === 0) return;
        const review = this.byUri(e.document.uri);
        if (review) this.edited.fire({ id: review.requestId, text: e.document.getText() });
      }),
      this.edited,
    );
  }

  /** Opens the diff of a permission request that offers a file change for review; false when it offers none. */
  async open(requestId: string, toolCall: ToolCallFields): Promise<boolean> {
    const found = reviewable(toolCall);
    if (!found) return false;
    await this.show(requestId, found, "then Allow in the chat");
    return true;
  }

  /** Opens a proposal of the user's own (a code block to apply) the same way; `take` ends it. */
  async openProposal(id: string, file: string, base: string, proposed: string): Promise<void> {
    await this.show(id, { file, base, proposed, hunks: [] }, "then Apply", false);
  }

  private async show(id: string, found: Omit<Review, "requestId" | "left" | "right">, then: string, preserveFocus = true): Promise<void> {
    const name = path.basename(found.file);
    const root = this.root();
    const rel = root && found.file.startsWith(`${root}${path.sep}`) ? path.relative(root, found.file) : name;
    const shown = `/${rel.split(path.sep).join("/")}`;
    const right = vscode.Uri.from({ scheme: REVIEW_SCHEME, path: shown, query: id });
    const left = vscode.Uri.from({ scheme: BASE_SCHEME, path: shown, query: id });
    this.files.set(key(right), new TextEncoder().encode(found.proposed));
    this.reviews.set(id, { requestId: id, ...found, left, right });
    const title = `${name}: now ↔ proposed (edit it, revert hunks, ${then})`;
    await vscode.commands.executeCommand("vscode.diff", left, right, title, { preview: false, preserveFocus });
  }

  /** The answer's review for an allowed request (undefined: as proposed); closes the diff either way. */
  async answer(requestId: string, allowed: boolean): Promise<ReviewAnswer | undefined> {
    const review = this.reviews.get(requestId);
    const now = await this.take(requestId);
    if (!review || now === undefined) return undefined;
    return allowed ? reviewAnswer(review.base, review.proposed, now, review.hunks) : undefined;
  }

  /** The proposal's text as the user left it; closes its diff. */
  async take(id: string): Promise<string | undefined> {
    const review = this.reviews.get(id);
    if (!review) return undefined;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === review.right.toString());
    const now = doc ? doc.getText() : new TextDecoder().decode(this.files.get(key(review.right)) ?? new Uint8Array());
    if (doc?.isDirty) await doc.save(); // into this provider's memory: closing must not ask to save it
    this.reviews.delete(id);
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        const input = tab.input;
        if (input instanceof vscode.TabInputTextDiff && input.modified.toString() === review.right.toString()) {
          await vscode.window.tabGroups.close(tab, true);
        }
      }
    }
    this.files.delete(key(review.right));
    return now;
  }

  private byUri(uri: vscode.Uri): Review | undefined {
    return [...this.reviews.values()].find((r) => key(r.right) === key(uri) || key(r.left) === key(uri));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.byUri(uri)?.base ?? "";
  }

  // --- the in-memory file system of the proposals ---------------------------------------------------------

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const data = this.files.get(key(uri));
    if (!data) throw vscode.FileSystemError.FileNotFound(uri);
    return { type: vscode.FileType.File, ctime: 0, mtime: Date.now(), size: data.byteLength };
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {}

  readFile(uri: vscode.Uri): Uint8Array {
    const data = this.files.get(key(uri));
    if (!data) throw vscode.FileSystemError.FileNotFound(uri);
    return data;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    if (!this.byUri(uri)) throw vscode.FileSystemError.NoPermissions("this review is over");
    this.files.set(key(uri), content);
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  delete(uri: vscode.Uri): void {
    this.files.delete(key(uri));
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions("a review cannot be renamed");
  }
}
