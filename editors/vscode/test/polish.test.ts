// Issue 42's VS Code items at the controller and webview level (the real editor's scenarios are in
// test/e2e/polish.e2e.mjs): a prompt typed while the window restores a session, the server's progress in view,
// cancelled approvals, new diagnostics, the review card, the composer's notices, the model pickers, the dialogs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatController, type EditorBridge, type Rpc } from "../src/chatController";
import { undoTurnQuestion } from "../src/checkpoints";
import type { ToWebview } from "../src/messages";
import { modalButtons } from "../src/modalButtons";
import { modelDescription } from "../src/models";
import { ProgressState } from "../src/progressState";
import type { Checkpoint } from "../src/protocol";
import { renderItem } from "../webview/render";
import { Transcript, type ToolCard } from "../webview/transcript";

class ScriptedRpc implements Rpc {
  handlers = new Map<string, (params: any) => unknown>();
  on(method: string, handler: (params: any) => unknown): this {
    this.handlers.set(method, handler);
    return this;
  }
  async request<T>(method: string, params: unknown): Promise<T> {
    const h = this.handlers.get(method);
    if (!h) throw new Error(`Method Not Found: ${method}`);
    return (await h(params)) as T;
  }
  notify(): void {}
}

const tick = () => new Promise((r) => setImmediate(r));
const text = (kind: string, t: string, messageId?: string) => ({ sessionUpdate: kind, content: { type: "text", text: t }, ...(messageId ? { messageId } : {}) });

function chat(extra: Partial<{ editor: EditorBridge }> = {}) {
  const shown: ToWebview[] = [];
  const controller = new ChatController({ broadcast: (m) => shown.push(m), reveal() {}, cwd: () => "/proj", copy() {}, indexWorkspace() {}, ...extra });
  return { shown, controller };
}

/** What the chat shows after these messages: each item's kind and text, in order. */
function shownItems(shown: ToWebview[]): [string, string][] {
  const t = new Transcript();
  for (const m of shown) t.apply(m);
  return t.items.map((i) => [i.kind, "text" in i ? i.text : ""]);
}

for (const when of ["while the server starts", "while the remembered session loads"]) {
  test(`a prompt typed ${when} goes after the restored history; its answer gets its own bubble`, async () => {
    const { shown, controller } = chat();
    controller.restoreOnAttach("sess_old");
    controller.setServerState("starting");
    let replay!: () => void;
    const rpc = new ScriptedRpc()
      .on("agent/_models/list", () => ({ current: "m", models: [] }))
      .on("agent/session/load", () => new Promise((done) => (replay = () => {
        // The server replays the stored conversation before it answers the load.
        controller.onSessionUpdate({ sessionId: "sess_old", update: text("user_message_chunk", "Old question", "user-0") });
        controller.onSessionUpdate({ sessionId: "sess_old", update: text("agent_message_chunk", "Old answer.") });
        done({});
      })))
      .on("agent/session/prompt", (p: { sessionId: string }) => {
        controller.onSessionUpdate({ sessionId: p.sessionId, update: text("agent_message_chunk", "New answer.") });
        return { stopReason: "end_turn" };
      });
    let turn: Promise<void>;
    if (when === "while the server starts") {
      turn = controller.handle({ type: "send", text: "New question" }, () => {});
      controller.attach(rpc);
    } else {
      controller.attach(rpc);
      await tick();
      turn = controller.handle({ type: "send", text: "New question" }, () => {});
    }
    await tick();
    const waiting = shown.filter((m) => m.type === "pending").at(-1);
    assert.ok(waiting?.type === "pending" && waiting.text === "New question", "the prompt shows at once, as waiting");
    replay();
    await turn;
    assert.deepEqual(shownItems(shown), [
      ["user", "Old question"],
      ["agent", "Old answer."],
      ["user", "New question"],
      ["agent", "New answer."],
    ]);
    assert.deepEqual(shown.filter((m) => m.type === "pending").at(-1), { type: "pending" }, "the waiting bubble is gone");
  });
}

test("a new turn's answer never joins the bubble of an answer before it", () => {
  const t = new Transcript();
  t.apply({ type: "update", update: text("agent_message_chunk", "Old answer.") });
  t.apply({ type: "turnStart" });
  t.apply({ type: "update", update: text("agent_message_chunk", "New answer.") });
  assert.deepEqual(t.items.map((i) => ("text" in i ? i.text : "")), ["Old answer.", "New answer."]);
});

test("'Models unavailable' is said once per failure, not at every refresh", async () => {
  const { shown, controller } = chat();
  let up = false;
  const rpc = new ScriptedRpc().on("agent/_models/list", () => {
    if (!up) throw new Error("cannot reach the LLM server");
    return { current: "m", models: [{ name: "m" }] };
  });
  controller.attach(rpc);
  await controller.handle({ type: "ready" }, (m) => shown.push(m));
  await controller.handle({ type: "listModels" }, () => {});
  await tick();
  const said = () => shown.filter((m) => m.type === "notice" && m.message.startsWith("Models unavailable")).length;
  assert.equal(said(), 1);
  up = true;
  await controller.refreshModels();
  up = false;
  await controller.refreshModels();
  assert.equal(said(), 2, "a failure after the list came back is said again");
});

const toolCall = (fields: Record<string, unknown>): ToWebview => ({ type: "update", update: { sessionUpdate: "tool_call_update", ...fields } });

test("an approval left unanswered when the turn is stopped shows as stopped, not as a red failure", () => {
  const t = new Transcript();
  t.apply({ type: "update", update: { sessionUpdate: "tool_call", toolCallId: "c1", title: "Write a.txt", kind: "edit", status: "pending" } });
  t.apply({ type: "permission", requestId: "perm_1", toolCall: { toolCallId: "c1" }, options: [] });
  t.apply({ type: "permissionResolved", requestId: "perm_1" });
  t.apply(toolCall({ toolCallId: "c1", status: "failed" })); // the server's cancel: no result
  t.apply({ type: "turnEnd", stopReason: "cancelled" });
  const { className, html } = renderItem(t.items[0]!);
  assert.doesNotMatch(className, /status-failed/);
  assert.match(className, /status-stopped/);
  assert.match(html, /Not answered: the turn was stopped/);
  assert.doesNotMatch(html, />failed</);
});

test("a question still open when the stopped turn ends says it was not answered, whatever comes after", () => {
  const t = new Transcript();
  t.apply({ type: "update", update: { sessionUpdate: "tool_call", toolCallId: "c1", title: "Write a.txt", kind: "edit", status: "pending" } });
  t.apply({ type: "permission", requestId: "perm_1", toolCall: { toolCallId: "c1" }, options: [] });
  t.apply(toolCall({ toolCallId: "c1", status: "failed" }));
  t.apply({ type: "turnEnd", stopReason: "cancelled" }); // before the editor closed the review and said so
  t.apply({ type: "permissionResolved", requestId: "perm_1" });
  const { className, html } = renderItem(t.items[0]!);
  assert.match(className, /status-stopped/);
  assert.match(html, /Not answered: the turn was stopped/);
});

test("a call stopped while it ran, and one replayed as cancelled or interrupted, shows as stopped", () => {
  const t = new Transcript();
  t.apply({ type: "update", update: { sessionUpdate: "tool_call", toolCallId: "run", title: "Run tests", kind: "execute", status: "in_progress" } });
  t.apply({ type: "turnEnd", stopReason: "cancelled" });
  for (const words of ["Error: cancelled by the user before it finished.", "Error: interrupted; the agent stopped before this call finished."]) {
    t.apply({ type: "update", update: { sessionUpdate: "tool_call", toolCallId: words, title: "Write", kind: "edit", status: "pending" } });
    t.apply(toolCall({ toolCallId: words, status: "failed", content: [{ type: "content", content: { type: "text", text: words } }] }));
  }
  t.apply({ type: "update", update: { sessionUpdate: "tool_call", toolCallId: "bad", title: "Read", kind: "read", status: "pending" } });
  t.apply(toolCall({ toolCallId: "bad", status: "failed", content: [{ type: "content", content: { type: "text", text: "Error: no such file" } }] }));
  const classes = t.items.filter((i) => i.kind === "tool").map((i) => renderItem(i).className);
  assert.deepEqual(classes.map((c) => /status-(\w+)/.exec(c)?.[1]), ["stopped", "stopped", "stopped", "failed"]);
  assert.match(renderItem(t.items[0]!).html, /Stopped before it finished/);
});

const EDIT_RESULT =
  "Edited total.py (1 replacement).\n\nThe editor reports 1 new error after this change; fix them:\n" +
  "total.py:2:20: Undefined name `offset` [Ruff (F821)]";

test("the errors an edit introduced show on its card, not folded inside Result", () => {
  for (const result of [EDIT_RESULT, "Edited total.py.\n\n`ruff check .` reports new problems after this change; fix them:\ntotal.py:2:20: F821 Undefined name `offset`"]) {
    const t = new Transcript();
    t.apply({ type: "update", update: { sessionUpdate: "tool_call", toolCallId: "e", title: "Edit total.py", kind: "edit", status: "pending" } });
    t.apply(toolCall({ toolCallId: "e", status: "completed", content: [{ type: "content", content: { type: "text", text: result } }, { type: "diff", path: "/proj/total.py", oldText: "a\n", newText: "b\n" }] }));
    const html = renderItem(t.items[0]!).html;
    const problems = /<div class="problems"[\s\S]*?<\/pre><\/div>/.exec(html)?.[0] ?? "";
    assert.match(problems, /Undefined name `offset`/, html);
    assert.match(problems, /new (error|problems) after this change/);
    const folded = /<details class="tool-result"[\s\S]*?<\/details>/.exec(html)?.[0] ?? "";
    assert.doesNotMatch(folded, /Undefined name/, "not hidden in the fold");
    assert.match(folded, /Edited total\.py/);
  }
});

test("the server's 'reading the prompt' progress shows in the chat, outside the Thinking fold", () => {
  const t = new Transcript();
  const chunks = ["\n[agent-server: reading the prompt (1,731 tokens)…", " 40%…", " 80%…"];
  for (const c of chunks) t.apply({ type: "update", update: text("agent_thought_chunk", c) });
  let html = renderItem(t.items[0]!).html;
  assert.match(html, /<div class="progress-line" role="status">reading the prompt \(1,731 tokens\)… 40%… 80%…<\/div>/);
  assert.doesNotMatch(html, /<details/, "nothing to fold yet");
  t.apply({ type: "update", update: text("agent_thought_chunk", " done]\n") });
  t.apply({ type: "update", update: text("agent_thought_chunk", "Let me look at the file.") });
  html = renderItem(t.items[0]!).html;
  assert.match(html, /progress-line[^>]*>reading the prompt \(1,731 tokens\)… 40%… 80%… done</);
  assert.match(html, /<details data-key="thought"><summary>Thinking<\/summary><div class="markdown"><p>Let me look at the file.<\/p>/);
  const waiting = new Transcript();
  waiting.apply({ type: "update", update: text("agent_thought_chunk", "\n[agent-server: waiting for the model (loading it or reading the prompt)…]\n") });
  assert.match(renderItem(waiting.items[0]!).html, /^<div class="progress-line" role="status">waiting for the model/);
});

test("the server's progress (a download) is one line for the chat and steps for the notification's bar", () => {
  const p = new ProgressState();
  assert.equal(p.apply({ kind: "begin", title: "Downloading the built-in model qwen2.5-coder-0.5b", cancellable: true }), 0);
  assert.equal(p.apply({ kind: "report", message: "downloading part01.bin (40/491 MB)", percentage: 8 }), 8);
  assert.equal(p.line, "Downloading the built-in model qwen2.5-coder-0.5b: downloading part01.bin (40/491 MB) 8%");
  assert.equal(p.apply({ kind: "report", message: "part02.bin", percentage: 30 }), 22);
  assert.equal(p.apply({ kind: "report", percentage: 20 }), 0, "a bar does not go back");
  assert.equal(p.apply({ kind: "end", message: "ready" }), 0);
});

test("the server's progress reaches a chat that opens while it runs", async () => {
  const { controller } = chat();
  controller.setProgress("Downloading the built-in model: 8%");
  const replies: ToWebview[] = [];
  await controller.handle({ type: "ready" }, (m) => replies.push(m));
  assert.deepEqual(replies.find((m) => m.type === "serverProgress"), { type: "serverProgress", text: "Downloading the built-in model: 8%" });
  const t = new Transcript();
  for (const m of replies) t.apply(m);
  assert.equal(t.serverProgress, "Downloading the built-in model: 8%");
});

test("a proposal edited in the review diff is what the approval card's diff shows", async () => {
  const { shown, controller } = chat();
  const diff = { type: "diff" as const, path: "/proj/stats.py", oldText: "a = 1\n", newText: "a = 2\n" };
  void controller.requestPermission({
    sessionId: "s",
    toolCall: { toolCallId: "w1", title: "Write stats.py", kind: "edit", content: [diff], _meta: { review: { hunks: [] } } },
    options: [{ optionId: "allow_once", name: "Allow once", kind: "allow_once" }],
  });
  const asked = shown.find((m) => m.type === "permission");
  assert.ok(asked?.type === "permission");
  controller.reviewEdited(asked.requestId, "a = 3\n");
  controller.reviewEdited("perm_unknown", "x"); // not a pending request: nothing
  const t = new Transcript();
  for (const m of shown) t.apply(m);
  const card = t.items[0] as ToolCard;
  assert.deepEqual(card.content[0], { ...diff, newText: "a = 3\n" });
  const html = renderItem(card).html;
  assert.match(html, /\+a = 3/);
  assert.doesNotMatch(html, /\+a = 2/);
  assert.match(html, /your version/);
  assert.equal(shown.filter((m) => m.type === "reviewEdited").length, 1);
});

test("a picture or a chip that cannot be attached is said above the prompt, never pinned in the transcript", async () => {
  const editor = { editorMention: async () => undefined } as unknown as EditorBridge;
  const { controller } = chat({ editor });
  const replies: ToWebview[] = [];
  await controller.handle({ type: "attachEditor", kind: "selection" }, (m) => replies.push(m));
  assert.deepEqual(replies, [{ type: "composerNotice", message: "No selection to attach: open a file in the editor first." }]);
  const t = new Transcript();
  t.apply(replies[0]!);
  t.apply({ type: "composerNotice", message: "Image not attached: notes.txt: only PNG, JPEG, GIF and WebP pictures can be sent" });
  assert.equal(t.items.length, 0);
  assert.match(t.composerNotice ?? "", /notes\.txt/);
  t.apply({ type: "composerNotice" });
  assert.equal(t.composerNotice, undefined);
});

test("the model pickers mark the models that see pictures", () => {
  assert.equal(modelDescription({ name: "qwen2.5vl:7b", contextLength: 32768, tools: true, vision: true }), "32k context · tools · vision");
  assert.equal(modelDescription({ name: "qwen3:8b", tools: true, vision: false }), "tools");
});

test("the Undo turn… question speaks only of undoing that turn", () => {
  const checkpoint: Checkpoint = { id: "c", sessionId: "s", cwd: "/proj", prompt: "Write the alpha file", kind: "files", createdAt: "2026-11-22T10:00:00Z", complete: true };
  const q = undoTurnQuestion(checkpoint, {
    files: [{ path: "/proj/undo-a.txt", status: "added" }],
    conflicts: [{ path: "/proj/clash.txt", reason: "changed since the turn on the same lines" }],
  });
  assert.equal(q.message, "Undo only “Write the alpha file”? 1 file changes back.");
  assert.match(q.detail, /A undo-a\.txt/);
  assert.match(q.detail, /! clash\.txt/);
  assert.doesNotMatch(q.message, /Restore/);
  assert.doesNotMatch(q.detail, /Restore files|conversation/);
});

test("a modal question has no second Cancel, and a stray Enter never trusts", () => {
  const buttons = modalButtons([{ title: "Not now" }, { title: "Trust this workspace" }, { title: "Don't trust" }]);
  assert.deepEqual(buttons, [{ title: "Don't trust" }, { title: "Trust this workspace" }, { title: "Not now", isCloseAffordance: true }]);
  assert.deepEqual(modalButtons([{ title: "Later" }, { title: "Open the log" }]), [{ title: "Open the log" }, { title: "Later", isCloseAffordance: true }]);
  assert.deepEqual(modalButtons([]), []);
  assert.deepEqual(modalButtons([{ title: "Not now" }, { title: "Trust this workspace" }]), [{ title: "Not now" }, { title: "Trust this workspace" }]);
});

test("the extension activates on the chat view (and a file opened, for inline completion), not after every start-up", async () => {
  const { readFileSync } = await import("node:fs");
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { activationEvents: string[] };
  assert.deepEqual(manifest.activationEvents, ["onView:agentServer.chat", "onLanguage"]);
});
