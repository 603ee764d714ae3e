/** A proposed file change as a real diff editor: the text now (read-only) beside the proposal, an in-memory
 * document the user may edit; "Reject hunk" lenses put a hunk back as it was. The permission answer then carries
 * what the user changed (`_meta.review`), and the server writes exactly that. Nothing here touches the disk. */

import * as path from "node:path";
import * as vscode from "vscode";
import type { ToolCallFields } from "./protocol";
import { lineDiff, reviewAnswer, revertChange, type ReviewAnswer, type ServerHunk, splitLines } from "./reviewHunks";

export const REVIEW_SCHEME = "agent-server-review";
const BASE_SCHEME = "agent-server-review-base";
const REJECT = "agentServer.review.rejectHunk";

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

export class ReviewEditor implements vscode.FileSystemProvider, vscode.TextDocumentContentProvider, vscode.CodeLensProvider {
  private readonly files = new Map<string, Uint8Array>();
  private readonly reviews = new Map<string, Review>();
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeFile = this.changed.event;
  readonly onDidChangeCodeLenses = this.lensesChanged.event;

  register(): vscode.Disposable {
    return vscode.Disposable.from(
      vscode.workspace.registerFileSystemProvider(REVIEW_SCHEME, this, { isCaseSensitive: true }),
      vscode.workspace.registerTextDocumentContentProvider(BASE_SCHEME, this),
      vscode.languages.registerCodeLensProvider({ scheme: REVIEW_SCHEME }, this),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === REVIEW_SCHEME) this.lensesChanged.fire();
      }),
      vscode.commands.registerCommand(REJECT, (uri: vscode.Uri, index: number) => this.reject(uri, index)),
    );
  }

  /** Opens the diff of a permission request that offers a file change for review; false when it offers none. */
  async open(requestId: string, toolCall: ToolCallFields): Promise<boolean> {
    const found = reviewable(toolCall);
    if (!found) return false;
    const name = path.basename(found.file);
    const right = vscode.Uri.from({ scheme: REVIEW_SCHEME, path: `/${requestId}/${name}` });
    const left = vscode.Uri.from({ scheme: BASE_SCHEME, path: `/${requestId}/${name}` });
    this.files.set(right.path, new TextEncoder().encode(found.proposed));
    this.reviews.set(requestId, { requestId, ...found, left, right });
    const title = `${name}: now ↔ proposed (edit it, reject hunks, then Allow in the chat)`;
    await vscode.commands.executeCommand("vscode.diff", left, right, title, { preview: false, preserveFocus: true });
    return true;
  }

  /** The answer's review for an allowed request (undefined: as proposed); closes the diff either way. */
  async answer(requestId: string, allowed: boolean): Promise<ReviewAnswer | undefined> {
    const review = this.reviews.get(requestId);
    if (!review) return undefined;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === review.right.toString());
    const now = doc ? doc.getText() : new TextDecoder().decode(this.files.get(review.right.path) ?? new Uint8Array());
    if (doc?.isDirty) await doc.save(); // into this provider's memory: closing must not ask to save it
    this.reviews.delete(requestId);
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        const input = tab.input;
        if (input instanceof vscode.TabInputTextDiff && input.modified.toString() === review.right.toString()) {
          await vscode.window.tabGroups.close(tab, true);
        }
      }
    }
    this.files.delete(review.right.path);
    return allowed ? reviewAnswer(review.base, review.proposed, now, review.hunks) : undefined;
  }

  private byUri(uri: vscode.Uri): Review | undefined {
    return [...this.reviews.values()].find((r) => r.right.path === uri.path || r.left.path === uri.path);
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const review = this.byUri(doc.uri);
    if (!review) return [];
    const changes = lineDiff(splitLines(review.base), splitLines(doc.getText()));
    return changes.map((c, index) => {
      const line = Math.min(c.bStart, Math.max(0, doc.lineCount - 1));
      const what = c.bCount === 0 ? "put back the removed lines" : "reject this hunk";
      return new vscode.CodeLens(new vscode.Range(line, 0, line, 0), {
        title: `$(discard) ${what}`,
        command: REJECT,
        arguments: [doc.uri, index],
      });
    });
  }

  private async reject(uri: vscode.Uri, index: number): Promise<void> {
    const review = this.byUri(uri);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (!review || !doc) return;
    const now = doc.getText();
    const change = lineDiff(splitLines(review.base), splitLines(now))[index];
    if (!change) return;
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(now.length)), revertChange(review.base, now, change));
    await vscode.workspace.applyEdit(edit);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.byUri(uri)?.base ?? "";
  }

  // --- the in-memory file system of the proposals ---------------------------------------------------------

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const data = this.files.get(uri.path);
    if (!data) throw vscode.FileSystemError.FileNotFound(uri);
    return { type: vscode.FileType.File, ctime: 0, mtime: Date.now(), size: data.byteLength };
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {}

  readFile(uri: vscode.Uri): Uint8Array {
    const data = this.files.get(uri.path);
    if (!data) throw vscode.FileSystemError.FileNotFound(uri);
    return data;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    if (!this.byUri(uri)) throw vscode.FileSystemError.NoPermissions("this review is over");
    this.files.set(uri.path, content);
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  delete(uri: vscode.Uri): void {
    this.files.delete(uri.path);
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions("a review cannot be renamed");
  }
}
