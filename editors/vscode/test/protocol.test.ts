import assert from "node:assert/strict";
import { test } from "node:test";
import { chatHtml, makeNonce } from "../src/html";
import {
  attachmentLabel,
  initializationOptions,
  permissionOutcome,
  selectionPrompt,
  serverConfigurationSection,
} from "../src/protocol";
import { makeWhich, resolveServerCommand } from "../src/serverCommand";

test("initializationOptions carries the LLM settings that are set, and always opts in to saveDocuments, diagnostics and code", () => {
  assert.deepEqual(initializationOptions({ provider: "ollama", baseUrl: " http://127.0.0.1:11434 ", model: "" }), {
    saveDocumentsRequest: true,
    diagnosticsRequest: true,
    codeRequest: true,
    llm: { provider: "ollama", baseUrl: "http://127.0.0.1:11434" },
  });
  assert.deepEqual(initializationOptions({}), {
    saveDocumentsRequest: true,
    diagnosticsRequest: true,
    codeRequest: true,
  });
});

test("the pulled agentServer configuration holds only the LLM settings that are set", () => {
  assert.deepEqual(serverConfigurationSection({ provider: "ollama", baseUrl: "", model: "qwen3:8b" }), {
    llm: { provider: "ollama", model: "qwen3:8b" },
  });
  assert.deepEqual(serverConfigurationSection({ provider: "", baseUrl: "", model: "" }), {});
});

test("Ask About Selection sends the selection as a resource with its range, then the question", () => {
  const range = { start: { line: 2, character: 0 }, end: { line: 9, character: 5 } };
  const blocks = selectionPrompt("why?", { uri: "file:///p/main.py", text: "def f(): ...", languageId: "python", range });
  assert.deepEqual(blocks, [
    { type: "resource", resource: { uri: "file:///p/main.py", text: "def f(): ...", mimeType: "text/x-python" }, _meta: { range } },
    { type: "text", text: "why?" },
  ]);
  assert.equal(attachmentLabel(blocks[0]!), "main.py:3-10");
});

test("permission answers: the chosen option, or cancelled", () => {
  assert.deepEqual(permissionOutcome("allow_always"), { outcome: { outcome: "selected", optionId: "allow_always" } });
  assert.deepEqual(permissionOutcome(undefined), { outcome: { outcome: "cancelled" } });
});

test("server command: serverCommand wins, then pythonPath, then agent-server on PATH", () => {
  const exists = new Set(["/venv/bin/python", "/usr/local/bin/agent-server", "/opt/as"]);
  const which = makeWhich({ PATH: "/usr/bin:/usr/local/bin" }, (f) => exists.has(f));
  const base = { serverCommand: [] as string[], pythonPath: "", logLevel: "WARNING" };
  assert.deepEqual(resolveServerCommand({ ...base, serverCommand: ["/opt/as", "serve", "--x"] }, which), {
    ok: true,
    command: { command: "/opt/as", args: ["serve", "--x"], source: "agentServer.serverCommand" },
  });
  assert.deepEqual(resolveServerCommand({ ...base, pythonPath: "/venv/bin/python" }, which), {
    ok: true,
    command: { command: "/venv/bin/python", args: ["-P", "-m", "agent_server", "serve", "--log-level", "WARNING"], source: "agentServer.pythonPath" },
  });
  assert.deepEqual(resolveServerCommand(base, which), {
    ok: true,
    command: { command: "/usr/local/bin/agent-server", args: ["serve", "--log-level", "WARNING"], source: "PATH" },
  });
});

test("server command: a clear message with the fix when nothing works", () => {
  const which = makeWhich({ PATH: "/nowhere" }, () => false);
  const base = { serverCommand: [] as string[], pythonPath: "", logLevel: "WARNING" };
  const none = resolveServerCommand(base, which);
  assert.equal(none.ok, false);
  assert.match(!none.ok ? none.message : "", /agent-server was not found on PATH.*pipx install \/path\/to\/agent-server.*agentServer.pythonPath/);
  const badPython = resolveServerCommand({ ...base, pythonPath: "/no/python" }, which);
  assert.match(!badPython.ok ? badPython.message : "", /agentServer.pythonPath: "\/no\/python" is not an executable/);
});

test("the webview page allows only its own nonce'd script and no network", () => {
  const nonce = makeNonce();
  assert.match(nonce, /^[A-Za-z0-9]{32}$/);
  const html = chatHtml({ cspSource: "vscode-resource:", nonce, scriptUri: "vscode-resource:/w.js", styleUri: "vscode-resource:/w.css" });
  const csp = /Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, new RegExp(`script-src 'nonce-${nonce}'`));
  assert.match(csp, /connect-src 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
  assert.match(html, new RegExp(`<script nonce="${nonce}" src="vscode-resource:/w.js">`));
});
