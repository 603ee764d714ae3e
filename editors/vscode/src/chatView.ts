/** The chat webview in the side bar (WebviewViewProvider) and as an editor tab; all share one ChatController. */

import * as vscode from "vscode";
import type { ChatController } from "./chatController";
import { chatHtml, makeNonce } from "./html";
import type { FromWebview, ToWebview } from "./messages";

export class ChatViews implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = "agentServer.chat";
  private readonly webviews = new Set<vscode.Webview>();
  private view: vscode.WebviewView | undefined;
  private controller: ChatController | undefined;

  constructor(private readonly extensionUri: vscode.Uri) {}

  bind(controller: ChatController): void {
    this.controller = controller;
  }

  broadcast(message: ToWebview): void {
    for (const webview of this.webviews) void webview.postMessage(message);
  }

  /** Shows the chat: the side bar view (resolving it if needed) unless a chat tab is already open. */
  async reveal(): Promise<void> {
    if (this.view) {
      this.view.show(true);
      return;
    }
    if (this.webviews.size === 0) await vscode.commands.executeCommand(`${ChatViews.viewId}.focus`);
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.setup(view.webview, "sidebar");
    view.onDidDispose(() => {
      this.webviews.delete(view.webview);
      this.view = undefined;
    });
  }

  openInEditor(): void {
    const panel = vscode.window.createWebviewPanel("agentServer.chatPanel", "Agent Chat", vscode.ViewColumn.Beside, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, "dist")],
    });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, "media", "agent.svg");
    this.setup(panel.webview, "editor");
    panel.onDidDispose(() => this.webviews.delete(panel.webview));
  }

  private setup(webview: vscode.Webview, placement: "sidebar" | "editor"): void {
    const dist = vscode.Uri.joinPath(this.extensionUri, "dist");
    webview.options = { enableScripts: true, localResourceRoots: [dist] };
    webview.html = chatHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, "webview.js")).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, "webview.css")).toString(),
      placement,
    });
    this.webviews.add(webview);
    webview.onDidReceiveMessage((message: FromWebview) => {
      void this.controller?.handle(message, (reply) => void webview.postMessage(reply));
    });
  }

  dispose(): void {
    this.webviews.clear();
  }
}
