/** Entry point: the output channel, the server, the chat views and the Agent Server: commands. */

import * as os from "node:os";
import * as vscode from "vscode";
import { newAgentProfile } from "./agentProfiles";
import { type BuiltInModelOffer, ChatController } from "./chatController";
import { CHECKPOINT_SCHEME, CheckpointCommands } from "./checkpointCommands";
import { ChatViews } from "./chatView";
import { runIndex } from "./indexing";
import { CompletionToggle } from "./inlineCompletion";
import { PROPOSED_SCHEME, VsCodeEditorBridge } from "./editorBridge";
import { ReviewEditor } from "./reviewEditor";
import { modelDescription } from "./models";
import { selectionPrompt } from "./protocol";
import { AgentServer } from "./server";

let running: AgentServer | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("Agent Server", { log: true });
  const views = new ChatViews(context.extensionUri);
  let server: AgentServer | undefined;
  const cwd = (): string => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
  const review = new ReviewEditor(cwd);
  const bridge = new VsCodeEditorBridge(context.workspaceState, cwd, context.storageUri?.fsPath, review);
  const controller = new ChatController({
    editor: bridge,
    broadcast: (m) => views.broadcast(m),
    reveal: () => void views.reveal(),
    cwd,
    copy: (text) => void vscode.env.clipboard.writeText(text),
    indexWorkspace: () => void indexWorkspace(),
    pickMode: () => void pickMode(),
    checkpoint: (action, prompt) =>
      void (action === "review" ? checkpoints.review(prompt) : checkpoints.restore(prompt, action === "undoTurn" ? "undoTurn" : undefined)),
    offerBuiltInModel: (offer) => void offerBuiltInModel(offer),
  });
  let switchingToBuiltIn = false;

  /** One action: set agentServer.llm.provider = "embedded" (user settings) and restart the server with it. */
  async function offerBuiltInModel(offer: BuiltInModelOffer): Promise<void> {
    if (!offer.available) {
      void vscode.window.showInformationMessage(
        `No local LLM server answered. Start one, or install the built-in local model: ${offer.install}`,
      );
      return;
    }
    const use = "Use the built-in model";
    const cost = offer.downloaded ? "" : ` (${Math.round(offer.downloadBytes / 1e6)} MB, downloaded once)`;
    const choice = await vscode.window.showInformationMessage(
      `No local LLM server answered. Use the built-in local model ${offer.model}${cost}?`,
      use,
    );
    if (choice !== use) return;
    switchingToBuiltIn = true;
    await vscode.workspace
      .getConfiguration("agentServer")
      .update("llm.provider", "embedded", vscode.ConfigurationTarget.Global);
    await server?.restart();
    void vscode.window.showInformationMessage("The built-in model is set: send your message again.");
  }
  context.subscriptions.push(review.onDidEditProposal(({ id, text }) => controller.reviewEdited(id, text)));
  views.bind(controller);
  controller.restoreOnAttach(bridge.rememberedSession);
  const completion = new CompletionToggle(() => server?.rpc);
  context.subscriptions.push(completion);
  server = new AgentServer(output, controller, completion);
  running = server;
  const checkpoints = new CheckpointCommands(() => server?.rpc, controller, cwd);

  async function indexWorkspace(): Promise<void> {
    if (!server?.rpc) {
      void vscode.window.showErrorMessage("The agent server is not running. Run “Agent Server: Show Logs” to see why.");
      return;
    }
    try {
      // The build's progress is LSP work-done progress (shown natively); the outcome is ours to report.
      const outcome = await runIndex(() => server?.rpc);
      if (outcome.kind === "already-running") void vscode.window.showInformationMessage("Indexing is already running.");
      else void vscode.window.showInformationMessage(outcome.message);
    } catch (err) {
      void vscode.window.showErrorMessage(`Index workspace failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async function pickModel(): Promise<void> {
    await controller.refreshModels();
    const list = controller.modelList;
    if (!list || list.models.length === 0) {
      void vscode.window.showInformationMessage("The LLM server lists no models.");
      return;
    }
    const picked = await vscode.window.showQuickPick(
      list.models.map((m) => ({
        label: m.name,
        description: modelDescription(m),
        picked: m.name === list.current,
        detail: m.name === list.current ? "current model" : undefined,
      })),
      { title: "Model for the next prompts", placeHolder: list.current ?? undefined },
    );
    if (picked) await controller.selectModel(picked.label);
  }

  async function pickMode(): Promise<void> {
    const modes = await controller.sessionModes();
    if (!modes || modes.availableModes.length === 0) return;
    const picked = await vscode.window.showQuickPick(
      modes.availableModes.map((m) => ({
        label: m.name,
        description: m.id === modes.currentModeId ? "current" : m.id,
        detail: m.description ?? undefined,
        id: m.id,
      })),
      { title: "Mode of this chat", placeHolder: "The agent profile for the next prompts", matchOnDetail: true },
    );
    if (picked && picked.id !== modes.currentModeId) await controller.setMode(picked.id);
  }

  async function askAboutSelection(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.selection.isEmpty) {
      void vscode.window.showInformationMessage("Select some code first, then run “Agent Server: Ask About Selection”.");
      return;
    }
    const question = await vscode.window.showInputBox({
      prompt: "Ask the agent about the selection",
      placeHolder: "What does this do?",
    });
    if (!question) return;
    const { start, end } = editor.selection;
    await views.reveal();
    await controller.prompt(
      selectionPrompt(question, {
        uri: editor.document.uri.toString(),
        text: editor.document.getText(editor.selection),
        languageId: editor.document.languageId,
        range: { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } },
      }),
    );
  }

  context.subscriptions.push(
    output,
    views,
    server,
    vscode.window.registerWebviewViewProvider(ChatViews.viewId, views, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.commands.registerCommand("agentServer.newChat", async () => {
      controller.newChat();
      await views.reveal();
    }),
    vscode.commands.registerCommand("agentServer.askAboutSelection", askAboutSelection),
    vscode.commands.registerCommand("agentServer.indexWorkspace", indexWorkspace),
    vscode.commands.registerCommand("agentServer.stop", () => controller.stop()),
    vscode.commands.registerCommand("agentServer.showLogs", () => output.show()),
    vscode.commands.registerCommand("agentServer.restartServer", () => server?.restart()),
    vscode.commands.registerCommand("agentServer.openChatInEditor", () => views.openInEditor()),
    vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, bridge),
    review.register(),
    vscode.commands.registerCommand("agentServer.showHistory", async () => {
      await views.reveal();
      controller.showHistory();
    }),
    vscode.commands.registerCommand("agentServer.pickModel", pickModel),
    vscode.commands.registerCommand("agentServer.pickMode", pickMode),
    vscode.commands.registerCommand("agentServer.newAgentProfile", () =>
      newAgentProfile(server?.rpc, controller, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath),
    ),
    vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, checkpoints),
    vscode.commands.registerCommand("agentServer.reviewTurnChanges", () => checkpoints.review()),
    vscode.commands.registerCommand("agentServer.restoreCheckpoint", () => checkpoints.restore()),
    vscode.commands.registerCommand("agentServer.undoRestore", () => checkpoints.undoRestore()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration("agentServer")) return;
      if (switchingToBuiltIn) {
        switchingToBuiltIn = false; // the offer restarts the server itself
        return;
      }
      void vscode.window
        .showInformationMessage("Agent Server settings changed.", "Restart Server")
        .then((choice) => choice && server?.restart());
    }),
  );
  void server.start();
}

export function deactivate(): Promise<void> | undefined {
  return running?.stop();
}
