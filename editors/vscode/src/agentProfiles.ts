/** "Agent Server: New Agent Profile": a short form (name, purpose, tools, model) → `agent/_agents/create`. */

import * as vscode from "vscode";
import type { ChatController, Rpc } from "./chatController";
import { modelDescription } from "./models";
import { BUILTIN_TOOLS, profileNameProblem } from "./modes";

/** Tools checked at first: the read-only ones, so a new profile asks before nothing it did not mean to allow. */
const READ_ONLY = new Set(["read_file", "list_directory", "find_files", "search_text", "codebase_search", "update_plan"]);

export async function newAgentProfile(rpc: Rpc | undefined, controller: ChatController, cwd: string | undefined): Promise<void> {
  if (!rpc) {
    void vscode.window.showErrorMessage("The agent server is not running. Run “Agent Server: Show Logs”.");
    return;
  }
  const title = "New agent profile";
  const name = await vscode.window.showInputBox({
    title: `${title} (1/4)`,
    prompt: "Name of the profile (the mode's id)",
    placeHolder: "reviewer",
    validateInput: (v) => profileNameProblem(v),
  });
  if (name === undefined) return;
  const description = await vscode.window.showInputBox({
    title: `${title} (2/4)`,
    prompt: "What is it for? (shown in the mode picker and given to the model)",
    placeHolder: "Reviews the change for bugs and explains them; does not edit.",
  });
  if (description === undefined) return;
  const tools = await vscode.window.showQuickPick(
    BUILTIN_TOOLS.map((t) => ({ label: t, picked: READ_ONLY.has(t) })),
    { title: `${title} (3/4)`, placeHolder: "Tools it may use (none checked: every tool)", canPickMany: true },
  );
  if (tools === undefined) return;
  await controller.refreshModels();
  const DEFAULT = "(the chat's model)";
  const models = controller.modelList?.models ?? [];
  const model = await vscode.window.showQuickPick(
    [{ label: DEFAULT, description: "" }, ...models.map((m) => ({ label: m.name, description: modelDescription(m) }))],
    { title: `${title} (4/4)`, placeHolder: "Model for this profile" },
  );
  if (model === undefined) return;
  try {
    const created = await rpc.request<{ path: string; name: string }>("agent/_agents/create", {
      name: name.trim(),
      description: description.trim(),
      tools: tools.length ? tools.map((t) => t.label) : undefined,
      model: model.label === DEFAULT ? undefined : model.label,
      scope: cwd ? "workspace" : "user",
      cwd,
    });
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(created.path));
    await vscode.window.showTextDocument(doc, { preview: false });
    void vscode.window.showInformationMessage(
      `Agent profile “${created.name}” created: pick it with the chat's mode button.`,
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`Could not create the profile: ${err instanceof Error ? err.message : String(err)}`);
  }
}
