/**
 * Answers the server's `agent/_code` request (docs/protocol.md): one code question to the language servers VS Code
 * runs for the file, through VS Code's own commands (vscode.executeDefinitionProvider, executeReferenceProvider,
 * executeHoverProvider, executeDocumentSymbolProvider, executeDocumentRenameProvider), in LSP shape with UTF-16
 * positions (VS Code's own). A rename's WorkspaceEdit is returned, never applied here: the server shows it for review
 * and applies it with workspace/applyEdit. `served: false` when no extension serves the file's language.
 */

import * as vscode from "vscode";

export const CODE_METHOD = "agent/_code";
const MAX_WAIT_MS = 30_000;

export interface CodeParams {
  kind: string;
  uri: string;
  position?: { line: number; character: number };
  newName?: string;
  timeoutMs?: number;
}

interface LspPosition {
  line: number;
  character: number;
}
interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

function range(r: vscode.Range): LspRange {
  return {
    start: { line: r.start.line, character: r.start.character },
    end: { line: r.end.line, character: r.end.character },
  };
}

function location(l: vscode.Location | vscode.LocationLink): { uri: string; range: LspRange } {
  return "targetUri" in l
    ? { uri: l.targetUri.toString(), range: range(l.targetSelectionRange ?? l.targetRange) }
    : { uri: l.uri.toString(), range: range(l.range) };
}

function hoverText(part: vscode.MarkdownString | vscode.MarkedString): string {
  if (typeof part === "string") return part;
  return "language" in part ? `\`\`\`${part.language}\n${part.value}\n\`\`\`` : part.value;
}

type AnySymbol = vscode.DocumentSymbol | vscode.SymbolInformation;

function symbol(s: AnySymbol): Record<string, unknown> {
  const kind = s.kind + 1; // vscode.SymbolKind counts from 0, LSP's from 1
  if ("location" in s) return { name: s.name, kind, location: location(s.location) };
  return {
    name: s.name,
    kind,
    detail: s.detail,
    range: range(s.range),
    selectionRange: range(s.selectionRange),
    children: s.children.map(symbol),
  };
}

function workspaceEdit(edit: vscode.WorkspaceEdit): { changes: Record<string, unknown[]> } {
  const changes: Record<string, unknown[]> = {};
  for (const [uri, edits] of edit.entries()) {
    changes[uri.toString()] = edits.map((e) => ({ range: range(e.range), newText: e.newText }));
  }
  return { changes };
}

/** Whether some extension serves this language (activating it first, so its providers are registered). */
async function serveLanguage(languageId: string): Promise<boolean> {
  const event = `onLanguage:${languageId}`;
  const extensions = vscode.extensions.all.filter((e) => {
    const events = (e.packageJSON as { activationEvents?: string[] }).activationEvents ?? [];
    return events.includes(event);
  });
  await Promise.all(extensions.filter((e) => !e.isActive).map((e) => Promise.resolve(e.activate()).catch(() => undefined)));
  return extensions.length > 0;
}

function withTimeout<T>(work: Thenable<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${what} within ${ms} ms`)), ms);
    Promise.resolve(work).then(
      (value) => (clearTimeout(timer), resolve(value)),
      (err: unknown) => (clearTimeout(timer), reject(err instanceof Error ? err : new Error(String(err)))),
    );
  });
}

async function ask(params: CodeParams, document: vscode.TextDocument): Promise<unknown> {
  const uri = document.uri;
  const at = params.position ? new vscode.Position(params.position.line, params.position.character) : undefined;
  const run = <T>(command: string, ...args: unknown[]): Thenable<T> => vscode.commands.executeCommand<T>(command, uri, ...args);
  switch (params.kind) {
    case "definition":
      return ((await run<(vscode.Location | vscode.LocationLink)[]>("vscode.executeDefinitionProvider", at)) ?? []).map(location);
    case "references":
      return ((await run<vscode.Location[]>("vscode.executeReferenceProvider", at)) ?? []).map(location);
    case "hover": {
      const hovers = (await run<vscode.Hover[]>("vscode.executeHoverProvider", at)) ?? [];
      const parts = hovers.flatMap((h) => h.contents.map(hoverText)).filter((t) => t.trim());
      return parts.length ? { contents: { kind: "markdown", value: parts.join("\n\n") } } : null;
    }
    case "documentSymbol":
      return ((await run<AnySymbol[]>("vscode.executeDocumentSymbolProvider")) ?? []).map(symbol);
    case "rename": {
      const edit = await run<vscode.WorkspaceEdit | undefined>("vscode.executeDocumentRenameProvider", at, params.newName);
      return edit ? workspaceEdit(edit) : null;
    }
    default:
      throw new Error(`unknown kind ${params.kind}`);
  }
}

export async function answerCode(params: CodeParams): Promise<Record<string, unknown>> {
  const timeout = Math.min(Math.max(params.timeoutMs ?? 10_000, 1), MAX_WAIT_MS);
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(params.uri));
  const served = await serveLanguage(document.languageId);
  const result = await withTimeout(ask(params, document), timeout, params.kind);
  const found = Array.isArray(result) ? result.length > 0 : result !== null;
  if (!served && !found) return { served: false };
  return { served: true, result, positionEncoding: "utf-16" };
}
