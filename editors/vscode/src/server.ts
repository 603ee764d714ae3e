/** The agent-server process through vscode-languageclient: find, start, restart, and the agent/ handlers. */

import * as vscode from "vscode";
import {
  LanguageClient,
  ResponseError,
  State,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import type { ChatController, Rpc } from "./chatController";
import {
  initializationOptions,
  serverConfigurationSection,
  type LlmSettings,
  type RequestPermissionParams,
  type SessionNotification,
} from "./protocol";
import type { CompletionToggle } from "./inlineCompletion";
import { makeWhich, resolveServerCommand } from "./serverCommand";
import { DIAGNOSTICS_METHOD, diagnosticsWatch, type DiagnosticsParams } from "./diagnostics";
import { CODE_METHOD, answerCode, type CodeParams } from "./codeNav";
import { showMessageRequest, type ShowMessageRequestParams } from "./questions";
import { showServerProgress } from "./serverProgress";

function llmSettings(): LlmSettings {
  const config = vscode.workspace.getConfiguration("agentServer");
  return {
    provider: config.get<string>("llm.provider"),
    baseUrl: config.get<string>("llm.baseUrl"),
    model: config.get<string>("llm.model"),
  };
}

export class AgentServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly controller: ChatController,
    private readonly completion?: CompletionToggle,
  ) {}

  get rpc(): Rpc | undefined {
    const client = this.client;
    if (!client || client.state !== State.Running) return undefined;
    return {
      request: <T>(method: string, params: unknown) => client.sendRequest<T>(method, params),
      notify: (method: string, params: unknown) => void client.sendNotification(method, params),
    };
  }

  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const config = vscode.workspace.getConfiguration("agentServer");
    const resolution = resolveServerCommand(
      {
        serverCommand: config.get<string[]>("serverCommand") ?? [],
        pythonPath: config.get<string>("pythonPath") ?? "",
        logLevel: config.get<string>("logLevel") ?? "WARNING",
      },
      makeWhich(),
    );
    if (!resolution.ok) {
      this.output.error(resolution.message);
      this.controller.setServerState("failed", resolution.message);
      void vscode.window.showErrorMessage(resolution.message, "Open Settings", "Show Logs").then((choice) => {
        if (choice === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettings", "agentServer");
        if (choice === "Show Logs") this.output.show();
      });
      return;
    }
    const { command, args, source } = resolution.command;
    this.output.info(`starting ${command} ${args.join(" ")} (from ${source})`);
    this.controller.setServerState("starting");
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const serverOptions: ServerOptions = { command, args, options: { cwd: folder } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      outputChannel: this.output,
      initializationOptions: () => initializationOptions(llmSettings()),
      middleware: {
        ...this.completion?.middleware(),
        workspace: {
          // The server pulls "agentServer" as its own settings: answer with those only, not the editor's keys.
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (answers instanceof ResponseError || !Array.isArray(answers)) return answers;
            return params.items.map((item, i) =>
              item.section === "agentServer" ? serverConfigurationSection(llmSettings()) : answers[i],
            );
          },
        },
      },
    };
    const client = new LanguageClient("agentServer", "Agent Server", serverOptions, clientOptions);
    client.onNotification("agent/session/update", (params: SessionNotification) =>
      this.controller.onSessionUpdate(params),
    );
    client.onRequest("agent/session/request_permission", (params: RequestPermissionParams, token) =>
      this.controller.requestPermission(params, token),
    );
    // Replaces the language client's own handler: a question with details is a modal dialog (see questions.ts).
    client.onRequest("window/showMessageRequest", (params: ShowMessageRequestParams) => showMessageRequest(params));
    client.onRequest("agent/_saveDocuments", async (params: { uris?: string[] }) => {
      const wanted = new Set((params.uris ?? []).map((u) => vscode.Uri.parse(u).toString()));
      const docs = vscode.workspace.textDocuments.filter((d) => wanted.has(d.uri.toString()) && d.isDirty);
      await Promise.all(docs.map((d) => d.save()));
      return {};
    });
    const diagnostics = diagnosticsWatch(); // created now: it must see the changes before the server asks
    client.onRequest(DIAGNOSTICS_METHOD, (params: DiagnosticsParams) => diagnostics.answer(params));
    client.onRequest(CODE_METHOD, (params: CodeParams) => answerCode(params)); // the code tools (codeNav.ts)
    let initialStart = true;
    client.onDidChangeState((e) => {
      if (this.client !== client) return;
      if (e.newState === State.Stopped) {
        this.controller.attach(undefined);
        this.controller.setServerState("stopped", "The agent server stopped. Run “Agent Server: Restart Server”.");
      } else if (e.newState === State.Running && !initialStart) {
        // The language client restarted a crashed server by itself: handshake again, then resume.
        void this.handshake(client).catch((err) => this.output.error(`after an automatic restart: ${String(err)}`));
      }
    });
    this.client = client;
    try {
      // Progress in the status bar from the start of the process to the answer to `initialize`: that answer comes
      // before the server loads its agent, and from then on the chat is usable (requests wait for the agent).
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: "Agent Server: starting" },
        () => client.start(),
      );
      // After the start: it replaces the language client's status-bar progress with a notification and a chat line.
      showServerProgress(client, (line) => this.controller.setProgress(line));
      initialStart = false;
      await this.handshake(client);
    } catch (err) {
      const message = `Could not start the agent server (${command} ${args.join(" ")}): ${
        err instanceof Error ? err.message : String(err)
      }. Check "agentServer.serverCommand" / "agentServer.pythonPath"; details in “Agent Server: Show Logs”.`;
      this.output.error(message);
      this.controller.setServerState("failed", message);
      void vscode.window.showErrorMessage(message, "Show Logs").then((c) => c && this.output.show());
    }
  }

  private async handshake(client: LanguageClient): Promise<void> {
    // Attach at once: a prompt typed meanwhile goes out now and the server answers it once its agent is loaded.
    this.controller.attach(this.rpc);
    this.controller.setServerState("running");
    this.output.info("agent server running");
    await client.sendRequest("agent/initialize", { protocolVersion: 1, clientCapabilities: {} });
    void this.completion?.refresh();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.controller.attach(undefined);
    if (client) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.output.warn(`stopping the server: ${err instanceof Error ? err.message : String(err)}`);
      }
      await client.dispose().catch(() => undefined);
    }
  }

  async restart(): Promise<void> {
    // From now on a prompt waits for the new server instead of failing on the stopped one.
    this.controller.setServerState("starting");
    await this.starting?.catch(() => undefined);
    await this.stop();
    await this.start();
  }

  dispose(): void {
    void this.stop();
  }
}
