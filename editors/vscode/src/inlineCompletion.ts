/**
 * Inline completion (ghost text) comes from the server's `textDocument/inlineCompletion`, which the language client
 * registers by itself (VS Code draws it; Tab accepts; typing cancels the request, and the server ends the model's
 * generation). This module adds the on/off switch: the `agentServer.completion.enabled` setting, a status-bar item
 * that toggles it, and the middleware that asks nothing while it is off.
 */

import * as vscode from "vscode";
import type { Middleware } from "vscode-languageclient/node";
import type { Rpc } from "./chatController";
import { type CompletionStatus, statusLabel } from "./completionStatus";

export const TOGGLE_COMMAND = "agentServer.toggleCompletion";
const SETTING = "completion.enabled";

export class CompletionToggle implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private status: CompletionStatus | undefined;

  constructor(private readonly rpc: () => Rpc | undefined) {
    this.item = vscode.window.createStatusBarItem("agentServer.completion", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "Agent Server Completion";
    this.item.command = TOGGLE_COMMAND;
    this.disposables.push(
      this.item,
      vscode.commands.registerCommand(TOGGLE_COMMAND, () => this.toggle()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`agentServer.${SETTING}`)) this.render();
      }),
    );
    this.render();
    this.item.show();
  }

  get enabled(): boolean {
    return vscode.workspace.getConfiguration("agentServer").get<boolean>(SETTING, true);
  }

  async toggle(): Promise<void> {
    await vscode.workspace.getConfiguration("agentServer").update(SETTING, !this.enabled, vscode.ConfigurationTarget.Global);
    this.render();
  }

  /** Ask the server whether completion can run with its model (once it is up, and after a restart). */
  async refresh(): Promise<void> {
    const rpc = this.rpc();
    if (!rpc) return;
    try {
      this.status = await rpc.request<CompletionStatus>("agent/_completion/status", {});
    } catch {
      this.status = undefined;
    }
    this.render();
  }

  private render(): void {
    const { text, tooltip } = statusLabel(this.enabled, this.status);
    this.item.text = text;
    this.item.tooltip = tooltip;
  }

  /** Language-client middleware: no request at all while completion is off. */
  middleware(): Middleware {
    return {
      provideInlineCompletionItems: (document, position, context, token, next) =>
        this.enabled ? next(document, position, context, token) : undefined,
    };
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
