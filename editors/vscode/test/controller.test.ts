import assert from "node:assert/strict";
import { test } from "node:test";
import { type BuiltInModelOffer, ChatController, type ChatHost, type EditorBridge, type Rpc } from "../src/chatController";
import type { ToWebview } from "../src/messages";
import type { PermissionOutcome } from "../src/protocol";

/** A scripted server connection: answers by method, records every call. */
class ScriptedRpc implements Rpc {
  calls: [string, unknown][] = [];
  notes: [string, unknown][] = [];
  handlers = new Map<string, (params: any) => unknown>();
  on(method: string, handler: (params: any) => unknown): this {
    this.handlers.set(method, handler);
    return this;
  }
  async request<T>(method: string, params: unknown): Promise<T> {
    this.calls.push([method, params]);
    const h = this.handlers.get(method);
    if (!h) throw new Error(`Method Not Found: ${method}`);
    return (await h(params)) as T;
  }
  notify(method: string, params: unknown): void {
    this.notes.push([method, params]);
    this.handlers.get(method)?.(params);
  }
}

async function setup(): Promise<{ host: ChatHost & { shown: ToWebview[]; reveals: number }; controller: ChatController; rpc: ScriptedRpc }> {
  const host = {
    shown: [] as ToWebview[],
    reveals: 0,
    broadcast(m: ToWebview) {
      host.shown.push(m);
    },
    reveal() {
      host.reveals++;
    },
    cwd: () => "/proj",
    copy() {},
    indexWorkspace() {},
  };
  const controller = new ChatController(host);
  const rpc = new ScriptedRpc()
    .on("agent/session/new", () => ({ sessionId: "sess_1" }))
    .on("agent/_models/list", () => ({ current: "m1", models: [{ name: "m1" }, { name: "m2" }] }));
  controller.attach(rpc);
  await new Promise((r) => setImmediate(r)); // let the model list arrive
  return { host, controller, rpc };
}

const types = (shown: ToWebview[]) => shown.map((m) => m.type);

test("send creates a session in the workspace, prompts, and relays only this session's updates", async () => {
  const { host, controller, rpc } = await setup();
  rpc.on("agent/session/prompt", (p: { sessionId: string }) => {
    controller.onSessionUpdate({ sessionId: p.sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hi" } } });
    controller.onSessionUpdate({ sessionId: "sess_other", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "X" } } });
    return { stopReason: "end_turn" };
  });
  host.shown.length = 0;
  await controller.handle({ type: "send", text: "hello" }, () => {});
  assert.deepEqual(rpc.calls.filter(([m]) => m.startsWith("agent/session")), [
    ["agent/session/new", { cwd: "/proj", mcpServers: [] }],
    ["agent/session/prompt", { sessionId: "sess_1", prompt: [{ type: "text", text: "hello" }] }],
  ]);
  assert.deepEqual(types(host.shown), ["user", "turnStart", "update", "turnEnd"]);
  assert.deepEqual(host.shown.at(-1), { type: "turnEnd", stopReason: "end_turn" });
  // The second prompt reuses the session.
  await controller.handle({ type: "send", text: "again" }, () => {});
  assert.equal(rpc.calls.filter(([m]) => m === "agent/session/new").length, 1);
});

test("stop sends agent/session/cancel and the turn ends as cancelled", async () => {
  const { host, controller, rpc } = await setup();
  let finish!: (r: { stopReason: string }) => void;
  rpc.on("agent/session/prompt", () => new Promise((resolve) => (finish = resolve)));
  rpc.on("agent/session/cancel", () => finish({ stopReason: "cancelled" }));
  const turn = controller.handle({ type: "send", text: "long" }, () => {});
  await new Promise((r) => setImmediate(r));
  assert.equal(controller.isBusy, true);
  await controller.handle({ type: "stop" }, () => {});
  await turn;
  assert.deepEqual(rpc.notes, [["agent/session/cancel", { sessionId: "sess_1" }]]);
  assert.deepEqual(host.shown.at(-1), { type: "turnEnd", stopReason: "cancelled" });
  assert.equal(controller.isBusy, false);
});

test("a permission request is shown, revealed, and answered with the clicked option", async () => {
  const { host, controller } = await setup();
  const answer = controller.requestPermission({
    sessionId: "sess_1",
    toolCall: { toolCallId: "c1", title: "Write a.txt" },
    options: [{ optionId: "allow_once", name: "Allow once", kind: "allow_once" }],
  });
  const shown = host.shown.find((m) => m.type === "permission");
  assert.ok(shown && shown.type === "permission");
  assert.equal(host.reveals, 1);
  await controller.handle({ type: "permission", requestId: shown.requestId, optionId: "allow_once" }, () => {});
  assert.deepEqual(await answer, { outcome: { outcome: "selected", optionId: "allow_once" } });
  assert.deepEqual(host.shown.at(-1), { type: "permissionResolved", requestId: shown.requestId, optionId: "allow_once" });
});

test("a permission the server cancels, or one pending at stop, is answered cancelled", async () => {
  const { controller } = await setup();
  let cancel!: () => void;
  const answer = controller.requestPermission(
    { sessionId: "s", toolCall: { toolCallId: "c" }, options: [] },
    { onCancellationRequested: (cb) => (cancel = cb) },
  );
  cancel();
  const expected: PermissionOutcome = { outcome: { outcome: "cancelled" } };
  assert.deepEqual(await answer, expected);
});

test("a failing prompt shows the server's error and ends the turn", async () => {
  const { host, controller, rpc } = await setup();
  rpc.on("agent/session/prompt", () => {
    throw new Error("cannot reach the LLM server at http://127.0.0.1:9: connection refused");
  });
  await controller.handle({ type: "send", text: "hi" }, () => {});
  const error = host.shown.find((m) => m.type === "error");
  assert.ok(error && error.type === "error" && error.message.includes("127.0.0.1:9"));
  assert.deepEqual(host.shown.at(-1), { type: "turnEnd", stopReason: "error" });
});

test("no LLM server: the error's built-in model offer reaches the editor once, other errors offer nothing", async () => {
  const { host, controller, rpc } = await setup();
  const offers: BuiltInModelOffer[] = [];
  host.offerBuiltInModel = (offer) => offers.push(offer);
  const embedded = { available: true, model: "qwen2.5-coder-0.5b-instruct", downloaded: false, downloadBytes: 491400064, install: "pip install 'agent-server[local]'" };
  rpc.on("agent/session/prompt", () => {
    throw Object.assign(new Error("no local LLM server answered"), { code: -32010, data: { url: "x", embedded } });
  });
  await controller.handle({ type: "send", text: "hi" }, () => {});
  assert.deepEqual(offers, [embedded]);
  rpc.on("agent/session/prompt", () => {
    throw Object.assign(new Error("model not found"), { code: -32010, data: { url: "x" } });
  });
  await controller.handle({ type: "send", text: "hi" }, () => {});
  assert.equal(offers.length, 1);
});

test("without a server the chat says how to find out why", async () => {
  const host = { shown: [] as ToWebview[], broadcast: (m: ToWebview) => host.shown.push(m), reveal() {}, cwd: () => "/", copy() {}, indexWorkspace() {} };
  const controller = new ChatController(host);
  await controller.handle({ type: "send", text: "hi" }, () => {});
  assert.match(JSON.stringify(host.shown), /not running.*Show Logs/);
});

test("session list, resume (history replayed after a reset), models list and select", async () => {
  const { host, controller, rpc } = await setup();
  rpc.on("agent/session/list", () => ({ sessions: [{ sessionId: "sess_old", cwd: "/proj", title: "Old chat" }] }));
  rpc.on("agent/session/load", (p: { sessionId: string }) => {
    controller.onSessionUpdate({ sessionId: p.sessionId, update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "old q" } } });
    return {};
  });
  rpc.on("agent/_models/select", (p: { model: string }) => ({ current: p.model }));
  const replies: ToWebview[] = [];
  await controller.handle({ type: "listSessions" }, (m) => replies.push(m));
  assert.deepEqual(replies, [{ type: "sessions", sessions: [{ sessionId: "sess_old", cwd: "/proj", title: "Old chat" }] }]);
  host.shown.length = 0;
  await controller.handle({ type: "loadSession", sessionId: "sess_old" }, () => {});
  assert.deepEqual(types(host.shown), ["reset", "update"]);
  assert.equal(controller.currentSession, "sess_old");
  await controller.handle({ type: "selectModel", model: "m2" }, () => {});
  assert.deepEqual(host.shown.at(-1), { type: "models", list: { current: "m2", models: [{ name: "m1" }, { name: "m2" }] } });
  // A webview that opens later gets the whole chat replayed.
  const late: ToWebview[] = [];
  await controller.handle({ type: "ready" }, (m) => late.push(m));
  assert.deepEqual(types(late), ["workspace", "reset", "update", "models"]);
});

test("new chat forgets the session so the next prompt starts a new one", async () => {
  const { controller, rpc } = await setup();
  rpc.on("agent/session/prompt", () => ({ stopReason: "end_turn" }));
  await controller.prompt([{ type: "text", text: "a" }]);
  await controller.handle({ type: "newChat" }, () => {});
  assert.equal(controller.currentSession, undefined);
  await controller.prompt([{ type: "text", text: "b" }]);
  assert.equal(rpc.calls.filter(([m]) => m === "agent/session/new").length, 2);
});

/** An editor bridge that records what the controller asks of it. */
function fakeEditor() {
  const calls: unknown[][] = [];
  const editor: EditorBridge & { calls: unknown[][]; remembered?: string } = {
    calls,
    async openDiff(...a) {
      calls.push(["openDiff", ...a]);
    },
    async openFile(...a) {
      calls.push(["openFile", ...a]);
    },
    async searchFiles(q) {
      return ["calc.py", "src/calc_test.py"].filter((f) => f.includes(q));
    },
    async editorMention(kind) {
      return kind === "selection" ? { kind, label: "calc.py:2", uri: "file:///proj/calc.py", text: "return a + b" } : undefined;
    },
    async mentionBlocks(mentions) {
      return mentions.map((m) => ({ type: "resource", resource: { uri: `file:///proj/${m.label}`, text: `<${m.label}>` } }) as const);
    },
    async insertCode(...a) {
      calls.push(["insertCode", ...a]);
    },
    rememberSession(id) {
      editor.remembered = id;
    },
    setBusy() {},
  };
  return editor;
}

test("chips go before the text as resource blocks; retry sends the same prompt; edit fills the composer", async () => {
  const { host, controller, rpc } = await setup();
  const editor = fakeEditor();
  host.editor = editor;
  const prompts: unknown[] = [];
  rpc.on("agent/session/prompt", (p: { prompt: unknown }) => {
    prompts.push(p.prompt);
    return { stopReason: "end_turn" };
  });
  await controller.handle({ type: "send", text: "why?", mentions: [{ kind: "file", label: "calc.py", uri: "" }] }, () => {});
  const expected = [{ type: "resource", resource: { uri: "file:///proj/calc.py", text: "<calc.py>" } }, { type: "text", text: "why?" }];
  assert.deepEqual(prompts, [expected]);
  assert.deepEqual(host.shown.find((m) => m.type === "user"), { type: "user", text: "why?", attachments: ["calc.py"] });
  assert.equal(editor.remembered, "sess_1", "the session is remembered for a window reload");
  await controller.handle({ type: "retry" }, () => {});
  assert.deepEqual(prompts, [expected, expected]);
  const replies: ToWebview[] = [];
  await controller.handle({ type: "editLast" }, (m) => replies.push(m));
  await controller.handle({ type: "searchFiles", query: "calc" }, (m) => replies.push(m));
  await controller.handle({ type: "attachEditor", kind: "selection" }, (m) => replies.push(m));
  assert.deepEqual(replies, [
    { type: "compose", text: "why?" },
    { type: "files", query: "calc", files: ["calc.py", "src/calc_test.py"] },
    { type: "attach", mention: { kind: "selection", label: "calc.py:2", uri: "file:///proj/calc.py", text: "return a + b" } },
  ]);
  await controller.handle({ type: "openDiff", path: "/proj/calc.py", oldText: null, newText: "x" }, () => {});
  assert.deepEqual(editor.calls, [["openDiff", "/proj/calc.py", null, "x"]]);
});

test("deleting the open session starts a new chat and refreshes the list", async () => {
  const { host, controller, rpc } = await setup();
  host.editor = fakeEditor();
  let stored = [{ sessionId: "sess_1", cwd: "/proj", title: "One" }];
  rpc.on("agent/session/prompt", () => ({ stopReason: "end_turn" }));
  rpc.on("agent/session/list", () => ({ sessions: stored }));
  rpc.on("agent/session/delete", (p: { sessionId: string }) => {
    stored = stored.filter((s) => s.sessionId !== p.sessionId);
    return {};
  });
  await controller.prompt([{ type: "text", text: "One" }]);
  const replies: ToWebview[] = [];
  await controller.handle({ type: "deleteSession", sessionId: "sess_1" }, (m) => replies.push(m));
  assert.deepEqual(replies, [{ type: "sessions", sessions: [] }]);
  assert.equal(controller.currentSession, undefined);
});

test("the history search asks the server (titles and messages); a delete keeps the search", async () => {
  const { controller, rpc } = await setup();
  let stored = [
    { sessionId: "sess_1", cwd: "/proj", title: "Fix the parser bug", snippet: "…drops escaped quotes inside…" },
    { sessionId: "sess_2", cwd: "/proj", title: "Quotes", snippet: null },
  ];
  rpc.on("agent/session/search", (p: { query: string; cwd: string }) => ({ sessions: p.query === "quotes" ? stored : [] }));
  rpc.on("agent/session/delete", (p: { sessionId: string }) => {
    stored = stored.filter((s) => s.sessionId !== p.sessionId);
    return {};
  });
  const replies: ToWebview[] = [];
  await controller.handle({ type: "listSessions", query: " quotes " }, (m) => replies.push(m));
  assert.deepEqual(rpc.calls.filter(([m]) => m === "agent/session/search").map(([, p]) => p), [
    { query: "quotes", cwd: "/proj", limit: 100 },
  ]);
  assert.deepEqual(replies, [{ type: "sessions", sessions: stored, query: "quotes" }]);
  await controller.handle({ type: "deleteSession", sessionId: "sess_2", query: "quotes" }, (m) => replies.push(m));
  assert.deepEqual(replies.at(-1), { type: "sessions", sessions: [stored[0]], query: "quotes" });
});

test("after a window reload the remembered session is resumed once the server is up", async () => {
  const host = { broadcast() {}, reveal() {}, cwd: () => "/proj", copy() {}, indexWorkspace() {} };
  const controller = new ChatController(host);
  controller.restoreOnAttach("sess_9");
  const rpc = new ScriptedRpc().on("agent/session/load", () => ({})).on("agent/_models/list", () => ({ current: null, models: [] }));
  controller.attach(rpc);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    rpc.calls.filter(([m]) => m === "agent/session/load"),
    [["agent/session/load", { sessionId: "sess_9", cwd: "/proj", mcpServers: [] }]],
  );
  assert.equal(controller.currentSession, "sess_9");
});

test("a prompt sent while the server starts is queued and sent once it runs, not lost", async () => {
  const shown: ToWebview[] = [];
  const controller = new ChatController({
    broadcast: (m) => shown.push(m),
    reveal() {},
    cwd: () => "/proj",
    copy() {},
    indexWorkspace() {},
  });
  controller.setServerState("starting");
  const turn = controller.handle({ type: "send", text: "first words" }, () => {});
  await new Promise((r) => setImmediate(r));
  assert.ok(shown.some((m) => m.type === "pending" && m.text === "first words"), "the prompt shows at once, as waiting");
  assert.ok(!shown.some((m) => m.type === "error"), JSON.stringify(shown));
  const rpc = new ScriptedRpc()
    .on("agent/session/new", () => ({ sessionId: "sess_q" }))
    .on("agent/_models/list", () => ({ current: "m1", models: [] }))
    .on("agent/session/prompt", () => ({ stopReason: "end_turn" }));
  controller.attach(rpc);
  await turn;
  assert.deepEqual(
    rpc.calls.filter(([m]) => m === "agent/session/prompt"),
    [["agent/session/prompt", { sessionId: "sess_q", prompt: [{ type: "text", text: "first words" }] }]],
  );
  assert.equal(shown.filter((m) => m.type === "user").length, 1);
  assert.deepEqual(shown.at(-1), { type: "turnEnd", stopReason: "end_turn" });
});

test("a queued prompt is reported, not silently dropped, when the server fails to start", async () => {
  const shown: ToWebview[] = [];
  const controller = new ChatController({ broadcast: (m) => shown.push(m), reveal() {}, cwd: () => "/", copy() {}, indexWorkspace() {} });
  controller.setServerState("starting");
  const turn = controller.handle({ type: "send", text: "hello" }, () => {});
  controller.setServerState("failed", "no python");
  await turn;
  assert.ok(shown.some((m) => m.type === "error" && m.message.includes("not sent")), JSON.stringify(shown));
});
