/** The chat's hands in the editor: native diffs of proposed changes, opening files, @-mentions, code insertion. */

import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { EditorBridge } from "./chatController";
import { diagnosticsText, mentionBlock } from "./mentions";
import type { Mention } from "./messages";
import type { ContentBlock, ToolCallFields } from "./protocol";
import type { ReviewEditor } from "./reviewEditor";
import type { ReviewAnswer } from "./reviewHunks";

/** Virtual documents holding proposed text (the right side of "Open diff"); never written to disk. */
export const PROPOSED_SCHEME = "agent-server-proposed";
const SESSION_KEY = "agentServer.sessionId";
const EXCLUDE = "**/{node_modules,.git,.venv,venv,__pycache__,dist,out,build,.ci-cache}/**";

export class VsCodeEditorBridge implements EditorBridge, vscode.TextDocumentContentProvider {
  private readonly proposed = new Map<string, string>();
  private nextId = 1;
  private files: { at: number; list: string[] } | undefined;

  /** `stateDir`: the extension's storage folder for this workspace. The session id is written there at once:
   * the memento is flushed lazily (in the browser), so a reload right after a prompt would forget it. */
  constructor(
    private readonly state: vscode.Memento,
    private readonly root: () => string,
    private readonly stateDir?: string,
    private readonly review?: ReviewEditor,
  ) {}

  openReview(requestId: string, toolCall: ToolCallFields): Promise<boolean> {
    return this.review?.open(requestId, toolCall) ?? Promise.resolve(false);
  }

  reviewAnswer(requestId: string, allowed: boolean): Promise<ReviewAnswer | undefined> {
    return this.review?.answer(requestId, allowed) ?? Promise.resolve(undefined);
  }

  private get stateFile(): string | undefined {
    return this.stateDir ? path.join(this.stateDir, "chat-session.json") : undefined;
  }

  get rememberedSession(): string | undefined {
    const file = this.stateFile;
    if (file) {
      try {
        const saved = JSON.parse(fs.readFileSync(file, "utf8")) as { sessionId?: unknown };
        return typeof saved.sessionId === "string" ? saved.sessionId : undefined;
      } catch {
        // no file yet, or a broken one: fall back to the memento
      }
    }
    return this.state.get<string>(SESSION_KEY);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.proposed.get(uri.query) ?? "";
  }

  private virtual(file: string, text: string): vscode.Uri {
    const id = String(this.nextId++);
    this.proposed.set(id, text);
    return vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: file, query: id });
  }

  private absolute(file: string): string {
    return path.isAbsolute(file) ? file : path.join(this.root(), file);
  }

  async openDiff(file: string, oldText: string | null | undefined, newText: string): Promise<void> {
    const abs = this.absolute(file);
    // The left side is the live document (unsaved edits included, as the agent saw it); a new file has none.
    const left = oldText === null || oldText === undefined ? this.virtual(abs, "") : vscode.Uri.file(abs);
    const right = this.virtual(abs, newText);
    const rel = path.relative(this.root(), abs) || path.basename(abs);
    await vscode.commands.executeCommand("vscode.diff", left, right, `${rel} ↔ proposed by the agent`, { preview: true });
  }

  async openFile(file: string, line?: number): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(this.absolute(file)));
    const at = new vscode.Position(Math.max(0, line ?? 0), 0);
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(at, at), preview: false });
  }

  async searchFiles(query: string): Promise<string[]> {
    if (!this.files || Date.now() - this.files.at > 10000) {
      const uris = await vscode.workspace.findFiles("**/*", EXCLUDE, 5000);
      const list = uris.map((u) => vscode.workspace.asRelativePath(u, false)).sort();
      this.files = { at: Date.now(), list };
    }
    const q = query.toLowerCase();
    const scored = this.files.list
      .map((f) => ({ f, at: f.toLowerCase().indexOf(q), base: path.basename(f).toLowerCase().startsWith(q) }))
      .filter((x) => x.at >= 0)
      .sort((a, b) => Number(b.base) - Number(a.base) || a.f.length - b.f.length);
    return scored.slice(0, 20).map((x) => x.f);
  }

  private editor(): vscode.TextEditor | undefined {
    return vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === "file");
  }

  async editorMention(kind: "selection" | "buffer" | "diagnostics"): Promise<Mention | undefined> {
    const editor = this.editor();
    if (!editor) return undefined;
    const doc = editor.document;
    const rel = vscode.workspace.asRelativePath(doc.uri, false);
    const uri = doc.uri.toString();
    if (kind === "buffer") return { kind, label: rel, uri, languageId: doc.languageId };
    if (kind === "diagnostics") {
      const text = diagnosticsText(
        vscode.languages.getDiagnostics(doc.uri).map((d) => ({
          line: d.range.start.line,
          severity: vscode.DiagnosticSeverity[d.severity],
          message: d.message,
          source: d.source,
        })),
      );
      return { kind, label: `${rel} problems`, uri, text };
    }
    if (editor.selection.isEmpty) return undefined;
    const { start, end } = editor.selection;
    const last = end.character === 0 && end.line > start.line ? end.line : end.line + 1;
    return {
      kind,
      label: start.line + 1 === last ? `${rel}:${last}` : `${rel}:${start.line + 1}-${last}`,
      uri,
      text: doc.getText(editor.selection),
      languageId: doc.languageId,
      range: { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } },
    };
  }

  async mentionBlocks(mentions: Mention[]): Promise<ContentBlock[]> {
    const blocks: ContentBlock[] = [];
    for (const m of mentions) {
      let text = m.text;
      let languageId = m.languageId;
      if (m.kind === "file" || m.kind === "buffer") {
        // The open buffer if there is one (unsaved edits included), else the file on disk.
        const uri = m.kind === "file" ? vscode.Uri.file(this.absolute(m.label)) : vscode.Uri.parse(m.uri);
        try {
          const doc = await vscode.workspace.openTextDocument(uri);
          text = doc.getText();
          languageId = doc.languageId;
        } catch {
          text = undefined;
        }
        m.uri = uri.toString();
      }
      blocks.push(mentionBlock({ ...m, text, languageId }));
    }
    return blocks;
  }

  /** Insert at the cursor (or over the selection); Apply merges the block into the file as an edit: `merge` (the
   * server's agent/_mergeBlock) finds the definition it replaces; else the user picks where it goes. Either way the
   * change shows as an editable diff first, and the buffer is changed, not saved. */
  async insertCode(text: string, mode: "insert" | "apply", merge?: (file: string, block: string) => Promise<string | null>): Promise<void> {
    const editor = this.editor();
    if (!editor) {
      void vscode.window.showInformationMessage("Open a file in the editor first.");
      return;
    }
    const doc = editor.document;
    const now = doc.getText();
    const name = path.basename(doc.uri.fsPath);
    if (mode === "insert") {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(doc.uri, editor.selection, text);
      await vscode.workspace.applyEdit(edit);
      return;
    }
    let proposed: string | null | undefined = editor.selection.isEmpty ? await merge?.(now, text).catch(() => null) : undefined;
    if (!editor.selection.isEmpty) {
      proposed = now.slice(0, doc.offsetAt(editor.selection.start)) + text + now.slice(doc.offsetAt(editor.selection.end));
    } else if (proposed === null || proposed === undefined) {
      const choice = await vscode.window.showWarningMessage(
        `Where does the code block go? No single place in ${name} matches its first line.`,
        "Replace the whole file",
        "Insert at the cursor",
      );
      if (choice === "Insert at the cursor") {
        const at = doc.offsetAt(editor.selection.active);
        proposed = now.slice(0, at) + text + now.slice(at);
      } else if (choice === "Replace the whole file") {
        proposed = now.endsWith("\n") && !text.endsWith("\n") ? text + "\n" : text; // the file keeps its last newline
      } else return;
    }
    const id = `apply_${this.nextId++}`;
    if (this.review) await this.review.openProposal(id, doc.uri.fsPath, now, proposed);
    else await vscode.commands.executeCommand("vscode.diff", doc.uri, this.virtual(doc.uri.fsPath, proposed), `${name} ↔ code block`);
    const choice = await vscode.window.showInformationMessage(`Apply the code block to ${name} as the diff shows it?`, "Apply");
    const final = (await this.review?.take(id)) ?? proposed;
    if (choice !== "Apply") return;
    if (doc.getText() !== now) {
      void vscode.window.showWarningMessage(`${name} changed meanwhile; the code block was not applied.`);
      return;
    }
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(now.length)), final);
    await vscode.workspace.applyEdit(edit);
  }

  rememberSession(sessionId: string | undefined): void {
    void this.state.update(SESSION_KEY, sessionId);
    const file = this.stateFile;
    if (!file) return;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify({ sessionId: sessionId ?? null }));
    } catch {
      // the memento still has it
    }
  }

  setBusy(busy: boolean): void {
    void vscode.commands.executeCommand("setContext", "agentServer.busy", busy);
  }
}
