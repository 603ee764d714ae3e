/** "Review Turn Changes" and "Restore Checkpoint…": the server's checkpoints in VS Code's native diff and dialogs. */

import * as path from "node:path";
import * as vscode from "vscode";
import type { ChatController, Rpc } from "./chatController";
import { checkpointDescription, checkpointForPrompt, checkpointLabel, newestFirst, restoreQuestion } from "./checkpoints";
import type { Checkpoint, CheckpointFile, RestoreResult } from "./protocol";

/** Virtual read-only documents holding a checkpoint's before / after text; never written to disk. */
export const CHECKPOINT_SCHEME = "agent-server-checkpoint";

const RESTORE_FILES = "Restore files";
const RESTORE_ALL = "Restore files and conversation";

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class CheckpointCommands implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private nextId = 1;

  constructor(
    private readonly rpc: () => Rpc | undefined,
    private readonly controller: ChatController,
    private readonly cwd: () => string,
  ) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? "";
  }

  private virtual(file: string, side: string, text: string): vscode.Uri {
    const id = String(this.nextId++);
    this.texts.set(id, text);
    return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: file, query: id, fragment: side });
  }

  private absolute(file: string, cwd: string): string {
    return path.isAbsolute(file) ? file : path.join(cwd, file);
  }

  private requireRpc(): Rpc | undefined {
    const rpc = this.rpc();
    if (!rpc) void vscode.window.showErrorMessage("The agent server is not running. Run “Agent Server: Show Logs”.");
    return rpc;
  }

  /**
   * The chat session's checkpoints (the workspace's when the chat has none yet), newest first, in a quick pick; the
   * turn whose prompt is `prompt` directly when the transcript's buttons name one and it is found.
   */
  private async pick(rpc: Rpc, title: string, prompt?: string): Promise<Checkpoint | undefined> {
    const sessionId = this.controller.currentSession;
    let list: Checkpoint[];
    try {
      const params = sessionId ? { sessionId } : { cwd: this.cwd() };
      list = (await rpc.request<{ checkpoints: Checkpoint[] }>("agent/_checkpoints/list", params)).checkpoints;
    } catch (err) {
      void vscode.window.showErrorMessage(`Could not list checkpoints: ${message(err)}`);
      return undefined;
    }
    if (list.length === 0) {
      void vscode.window.showInformationMessage(
        sessionId ? "No turn of this chat has changed files yet." : "No checkpoints in this workspace yet.",
      );
      return undefined;
    }
    const direct = prompt === undefined ? undefined : checkpointForPrompt(list, prompt);
    if (direct) return direct;
    const picked = await vscode.window.showQuickPick(
      newestFirst(list).map((c) => ({ label: checkpointLabel(c), description: checkpointDescription(c), checkpoint: c })),
      { title, placeHolder: "The turn (newest first)", matchOnDescription: true },
    );
    return picked?.checkpoint;
  }

  /** What a turn changed, as one multi-file diff (or one diff tab per file where `vscode.changes` is missing). */
  async review(prompt?: string): Promise<void> {
    const rpc = this.requireRpc();
    if (!rpc) return;
    const checkpoint = await this.pick(rpc, "Review the changes of a turn", prompt);
    if (!checkpoint) return;
    let files: CheckpointFile[];
    try {
      files = (await rpc.request<{ files: CheckpointFile[] }>("agent/_checkpoints/show", { checkpointId: checkpoint.id })).files;
    } catch (err) {
      void vscode.window.showErrorMessage(`Could not read the checkpoint: ${message(err)}`);
      return;
    }
    const shown = files.filter((f) => !f.binary);
    if (shown.length === 0) {
      void vscode.window.showInformationMessage(
        files.length ? `The turn changed only binary files: ${files.map((f) => f.path).join(", ")}` : "The turn changed no file.",
      );
      return;
    }
    await this.openDiffs(`Changes of “${checkpointLabel(checkpoint)}”`, shown, checkpoint.cwd || this.cwd());
    const binary = files.filter((f) => f.binary).map((f) => f.path);
    if (binary.length) void vscode.window.showInformationMessage(`Binary files changed too (not diffed): ${binary.join(", ")}`);
  }

  private async openDiffs(title: string, files: CheckpointFile[], cwd: string): Promise<void> {
    const triples = files.map((f) => {
      const abs = this.absolute(f.path, cwd);
      return [vscode.Uri.file(abs), this.virtual(abs, "before", f.oldText ?? ""), this.virtual(abs, "after", f.newText ?? "")] as const;
    });
    try {
      await vscode.commands.executeCommand("vscode.changes", title, triples);
      return;
    } catch {
      // An older VS Code without the multi-file diff editor: one diff tab per file.
    }
    for (const [file, before, after] of triples) {
      const rel = path.relative(cwd, file.fsPath) || path.basename(file.fsPath);
      await vscode.commands.executeCommand("vscode.diff", before, after, `${rel} (turn changes)`, { preview: false });
    }
  }

  /** Pick a checkpoint, preview what a restore changes, confirm (files, or files and conversation), restore. */
  async restore(prompt?: string): Promise<void> {
    const rpc = this.requireRpc();
    if (!rpc) return;
    if (this.controller.isBusy) {
      void vscode.window.showWarningMessage("The agent is answering: stop it before restoring a checkpoint.");
      return;
    }
    const checkpoint = await this.pick(rpc, "Restore the workspace to before a turn", prompt);
    if (!checkpoint) return;
    let preview: CheckpointFile[];
    try {
      preview = (
        await rpc.request<RestoreResult>("agent/_checkpoints/restore", { checkpointId: checkpoint.id, dryRun: true })
      ).files;
    } catch (err) {
      void vscode.window.showErrorMessage(`Could not preview the restore: ${message(err)}`);
      return;
    }
    const { message: question, detail } = restoreQuestion(checkpoint, preview);
    const choice = await vscode.window.showWarningMessage(question, { modal: true, detail }, RESTORE_FILES, RESTORE_ALL);
    if (!choice) return;
    const conversation = choice === RESTORE_ALL;
    let result: RestoreResult;
    try {
      result = await rpc.request<RestoreResult>("agent/_checkpoints/restore", { checkpointId: checkpoint.id, conversation });
    } catch (err) {
      void vscode.window.showErrorMessage(`Restore failed: ${message(err)}`);
      return;
    }
    // The server cut the stored history: reload the chat so the removed messages disappear from the transcript too.
    if (result.conversationCut && checkpoint.sessionId === this.controller.currentSession) {
      await this.controller.loadSession(checkpoint.sessionId);
    }
    const n = result.files.length;
    const done = `Restored ${n} file${n === 1 ? "" : "s"}${result.conversationCut ? " and the conversation" : ""}.`;
    void vscode.window.showInformationMessage([done, ...(result.notes ?? [])].join(" "));
  }
}
