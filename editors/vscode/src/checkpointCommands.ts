/**
 * "Review Turn Changes", "Restore Checkpoint…" (undo only a turn, or go back to before it) and "Undo Last Restore": the
 * server's checkpoints in VS Code's native diff and dialogs.
 */

import * as path from "node:path";
import * as vscode from "vscode";
import type { ChatController, Rpc } from "./chatController";
import {
  checkpointDescription,
  checkpointForPrompt,
  checkpointLabel,
  newestFirst,
  restoreOutcome,
  restoreQuestion,
  undoRestoreQuestion,
  undoTurnQuestion,
} from "./checkpoints";
import type { Checkpoint, CheckpointFile, RestoreResult } from "./protocol";

/** Virtual read-only documents holding a checkpoint's before / after text; never written to disk. */
export const CHECKPOINT_SCHEME = "agent-server-checkpoint";

const UNDO_TURN = "Undo only this turn";
const RESTORE_FILES = "Restore files";
const RESTORE_ALL = "Restore files and conversation";
const UNDO_RESTORE = "Undo the restore";

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

  /**
   * Pick a checkpoint, preview both ways back (only that turn's own changes reversed, or every file as before it),
   * confirm one, run it. `only` ("undoTurn") offers the undo of the turn alone (the transcript's Undo button).
   */
  async restore(prompt?: string, only?: "undoTurn"): Promise<void> {
    const rpc = this.requireRpc();
    if (!rpc) return;
    if (this.controller.isBusy) {
      void vscode.window.showWarningMessage("The agent is answering: stop it before restoring a checkpoint.");
      return;
    }
    const checkpoint = await this.pick(rpc, "Undo a turn, or restore the workspace to before it", prompt);
    if (!checkpoint) return;
    let preview: RestoreResult | undefined;
    let undoTurn: RestoreResult;
    try {
      const dry = (onlyTurn: boolean): Promise<RestoreResult> =>
        rpc.request<RestoreResult>("agent/_checkpoints/restore", { checkpointId: checkpoint.id, dryRun: true, onlyTurn });
      [preview, undoTurn] = await Promise.all([only === "undoTurn" ? undefined : dry(false), dry(true)]);
    } catch (err) {
      void vscode.window.showErrorMessage(`Could not preview the restore: ${message(err)}`);
      return;
    }
    const undo = { files: undoTurn.files, conflicts: undoTurn.conflicts ?? [] };
    // The bubble's Undo turn… offers that one choice: its question speaks of nothing else.
    const { message: question, detail } = preview ? restoreQuestion(checkpoint, preview.files, undo) : undoTurnQuestion(checkpoint, undo);
    const choices = preview ? [UNDO_TURN, RESTORE_FILES, RESTORE_ALL] : [UNDO_TURN];
    const choice = await vscode.window.showWarningMessage(question, { modal: true, detail }, ...choices);
    if (!choice) return;
    const conversation = choice === RESTORE_ALL;
    const onlyTurn = choice === UNDO_TURN;
    let result: RestoreResult;
    try {
      result = await rpc.request<RestoreResult>("agent/_checkpoints/restore", { checkpointId: checkpoint.id, conversation, onlyTurn });
    } catch (err) {
      void vscode.window.showErrorMessage(`Restore failed: ${message(err)}`);
      return;
    }
    // The server cut the stored history: reload the chat so the removed messages disappear from the transcript too
    // (the reload also brings the context meter and the title as they are now).
    if (result.conversationCut && checkpoint.sessionId === this.controller.currentSession) {
      await this.controller.loadSession(checkpoint.sessionId);
    }
    await this.done(result, onlyTurn ? "Undid the turn: changed" : "Restored", result.conversationCut ? " and the conversation" : "");
  }

  /** The restore's outcome, with an "Undo the restore" button while the server kept the workspace before it. */
  private async done(result: RestoreResult, verb: string, extra: string): Promise<void> {
    const actions = result.undoCheckpointId ? [UNDO_RESTORE] : [];
    const picked = await vscode.window.showInformationMessage(restoreOutcome(result, verb, extra), ...actions);
    if (picked === UNDO_RESTORE) await this.undoRestore();
  }

  /** "Undo Last Restore": preview what taking the chat's (or workspace's) last restore back changes, confirm, run. */
  async undoRestore(): Promise<void> {
    const rpc = this.requireRpc();
    if (!rpc) return;
    if (this.controller.isBusy) {
      void vscode.window.showWarningMessage("The agent is answering: stop it before undoing a restore.");
      return;
    }
    const sessionId = this.controller.currentSession;
    const where = sessionId ? { sessionId } : { cwd: this.cwd() };
    let preview: RestoreResult & { checkpoint: Checkpoint };
    try {
      preview = await rpc.request<RestoreResult & { checkpoint: Checkpoint }>("agent/_checkpoints/undoRestore", { ...where, dryRun: true });
    } catch (err) {
      void vscode.window.showInformationMessage(`Nothing to undo: ${message(err)}`);
      return;
    }
    const { message: question, detail } = undoRestoreQuestion(preview.checkpoint, preview.files, preview.conflicts ?? []);
    const choice = await vscode.window.showWarningMessage(question, { modal: true, detail }, UNDO_RESTORE);
    if (choice !== UNDO_RESTORE) return;
    let result: RestoreResult;
    try {
      result = await rpc.request<RestoreResult>("agent/_checkpoints/undoRestore", where);
    } catch (err) {
      void vscode.window.showErrorMessage(`Undoing the restore failed: ${message(err)}`);
      return;
    }
    await this.done(result, "Undid the restore: changed", "");
  }
}
