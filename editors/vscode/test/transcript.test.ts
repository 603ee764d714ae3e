import assert from "node:assert/strict";
import { test } from "node:test";
import type { ToWebview } from "../src/messages";
import { renderItem } from "../webview/render";
import { formatUsage, Transcript, type ToolCard } from "../webview/transcript";

const chunk = (kind: string, text: string): ToWebview => ({
  type: "update",
  update: { sessionUpdate: kind, content: { type: "text", text } },
});

test("a streamed answer accumulates into one agent message and renders as markdown", () => {
  const t = new Transcript();
  t.apply({ type: "user", text: "hi <b>", attachments: [] });
  t.apply({ type: "turnStart" });
  for (const piece of ["Here is ", "**bold** and ", "`code`", "\n\n```python\ndef f():\n", "    return 'x'  # note\n```\n"]) {
    t.apply(chunk("agent_message_chunk", piece));
  }
  assert.deepEqual(
    t.items.map((i) => i.kind),
    ["user", "agent"],
  );
  const html = renderItem(t.items[1]!).html;
  assert.match(html, /<strong>bold<\/strong>/);
  assert.match(html, /<code>code<\/code>/);
  assert.match(html, /<span class="tok-k">def<\/span>/);
  assert.match(html, /<span class="tok-s">&#39;x&#39;<\/span>/);
  assert.match(html, /<span class="tok-c"># note<\/span>/);
  assert.match(html, /<button class="copy"/);
  assert.equal(renderItem(t.items[0]!).html.includes("<b>"), false, "user text is escaped");
});

test("thinking is folded and kept apart from the answer", () => {
  const t = new Transcript();
  t.apply(chunk("agent_thought_chunk", "Let me "));
  t.apply(chunk("agent_thought_chunk", "think."));
  t.apply(chunk("agent_message_chunk", "Answer."));
  assert.deepEqual(
    t.items.map((i) => [i.kind, "text" in i ? i.text : ""]),
    [
      ["thought", "Let me think."],
      ["agent", "Answer."],
    ],
  );
  const html = renderItem(t.items[0]!).html;
  assert.match(html, /^<details data-key="thought"><summary>Thinking<\/summary>/);
  assert.doesNotMatch(html, /<details[^>]* open/);
});

test("raw HTML and javascript: links from the model are not live", () => {
  const t = new Transcript();
  t.apply(chunk("agent_message_chunk", '<img src=x onerror="alert(1)"> [click](javascript:alert(1)) [ok](https://a.b)'));
  const html = renderItem(t.items[0]!).html;
  assert.doesNotMatch(html, /<img/);
  assert.doesNotMatch(html, /href="javascript/);
  assert.match(html, /&lt;img/);
  assert.match(html, /<a href="https:\/\/a.b">ok<\/a>/);
});

test("a tool call becomes one card that follows its status, shows result and the edit's diff (not raw input)", () => {
  const t = new Transcript();
  t.apply({
    type: "update",
    update: {
      sessionUpdate: "tool_call",
      toolCallId: "call_1",
      title: "Write notes.md",
      kind: "edit",
      status: "pending",
      rawInput: { path: "notes.md", content: "a\nB\nc\n" },
    },
  });
  t.apply({ type: "update", update: { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "in_progress" } });
  t.apply({
    type: "update",
    update: {
      sessionUpdate: "tool_call_update",
      toolCallId: "call_1",
      status: "completed",
      content: [
        { type: "content", content: { type: "text", text: "wrote 3 lines" } },
        { type: "diff", path: "/w/notes.md", oldText: "a\nb\nc\n", newText: "a\nB\nc\n" },
      ],
    },
  });
  assert.equal(t.items.length, 1);
  const card = t.items[0] as ToolCard;
  assert.equal(card.status, "completed");
  const { className, html } = renderItem(card);
  assert.match(className, /status-completed/);
  assert.match(html, /Write notes.md/);
  assert.doesNotMatch(html, /&quot;path&quot;/, "the diff says it all; the raw JSON input is not repeated");
  assert.match(html, /wrote 3 lines/);
  assert.match(html, /<span class="diff-line del">-b<\/span><span class="diff-line add">\+B<\/span>/);
  assert.match(html, /<span class="add">\+1<\/span> <span class="del">-1<\/span>/);
});

test("a new call under the id of a finished one gets its own card; updates still go to the newest", () => {
  const t = new Transcript();
  const call = (sessionUpdate: string, title: string, status: "pending" | "completed") =>
    t.apply({ type: "update", update: { sessionUpdate, toolCallId: "call_1", title, status } as never });
  call("tool_call", "Write notes.txt", "pending");
  call("tool_call_update", "Write notes.txt", "completed");
  call("tool_call", "Edit greet.py", "pending");
  call("tool_call_update", "Edit greet.py", "completed");
  const cards = t.items.filter((i): i is ToolCard => i.kind === "tool");
  assert.deepEqual(
    cards.map((c) => [c.title, c.status]),
    [
      ["Write notes.txt", "completed"],
      ["Edit greet.py", "completed"],
    ],
  );
});

test("a permission request puts the four buttons on the card; the answer replaces them with the decision", () => {
  const t = new Transcript();
  t.apply({ type: "update", update: { sessionUpdate: "tool_call", toolCallId: "c2", title: "Write a.txt", kind: "edit" } });
  t.apply({
    type: "permission",
    requestId: "perm_1",
    toolCall: { toolCallId: "c2", title: "Write a.txt" },
    options: [
      { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
      { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
      { optionId: "reject_once", name: "Reject", kind: "reject_once" },
      { optionId: "reject_always", name: "Always reject", kind: "reject_always" },
    ],
  });
  let html = renderItem(t.items[0]!).html;
  const buttons = [...html.matchAll(/data-request="perm_1" data-option="(\w+)">([^<]+)</g)].map((m) => [m[1], m[2]]);
  assert.deepEqual(buttons, [
    ["allow_once", "Allow once"],
    ["allow_always", "Always allow"],
    ["reject_once", "Reject"],
    ["reject_always", "Always reject"],
  ]);
  assert.match(renderItem(t.items[0]!).className, /asking/);
  t.apply({ type: "permissionResolved", requestId: "perm_1", optionId: "reject_always" });
  html = renderItem(t.items[0]!).html;
  assert.doesNotMatch(html, /data-request/);
  assert.match(html, /Always rejected/);
});

test("a permission for a call not seen yet creates its card", () => {
  const t = new Transcript();
  t.apply({
    type: "permission",
    requestId: "perm_9",
    toolCall: { toolCallId: "new", title: "Run ls", kind: "execute" },
    options: [{ optionId: "allow_once", name: "Allow once", kind: "allow_once" }],
  });
  assert.equal(t.items.length, 1);
  assert.match(renderItem(t.items[0]!).html, /Run ls/);
});

test("a stopped turn says so, and a reset clears everything", () => {
  const t = new Transcript();
  t.apply({ type: "turnStart" });
  assert.equal(t.busy, true);
  t.apply(chunk("agent_message_chunk", "partial"));
  const changes = t.apply({ type: "turnEnd", stopReason: "cancelled" });
  assert.equal(t.busy, false);
  assert.equal(changes.chrome, true);
  const last = t.items[t.items.length - 1]!;
  assert.deepEqual(renderItem(last), { className: "item notice stopped", html: "Stopped." });
  t.apply({ type: "turnEnd", stopReason: "end_turn" });
  assert.equal(t.items.length, 2, "a normal end adds no notice");
  t.apply({ type: "reset" });
  assert.deepEqual(t.items, []);
});

test("usage updates drive the context meter; a replayed session shows the user's words", () => {
  const t = new Transcript();
  t.apply({ type: "update", update: { sessionUpdate: "usage_update", used: 3200, size: 32768 } });
  assert.deepEqual(formatUsage(t.usage!), {
    label: "3.2k / 33k (10%)",
    percent: 10,
    title: "Context used: 3200 of 32768 tokens",
  });
  // The rules files' share comes in the update's _meta: shown on the meter, named in its tooltip with what was cut.
  const rules = { tokens: 498, files: ["AGENTS.md", "CONVENTIONS.md"], cut: ["CONVENTIONS.md (lines 25-400)"] };
  t.apply({ type: "update", update: { sessionUpdate: "usage_update", used: 900, size: 4096, _meta: { agentServer: { rules } } } });
  const shown = formatUsage(t.usage!);
  assert.equal(shown.label, "900 / 4.1k (22%) · rules 498 (cut)");
  assert.ok(shown.title.includes("Rules files: 498 tokens (AGENTS.md, CONVENTIONS.md)"), shown.title);
  assert.ok(shown.title.includes("Cut to fit the window: CONVENTIONS.md (lines 25-400)"), shown.title);
  t.apply(chunk("user_message_chunk", "earlier "));
  t.apply(chunk("user_message_chunk", "question"));
  t.apply(chunk("agent_message_chunk", "earlier answer"));
  assert.deepEqual(
    t.items.map((i) => [i.kind, "text" in i ? i.text : ""]),
    [
      ["user", "earlier question"],
      ["agent", "earlier answer"],
    ],
  );
});

test("two replayed prompts in a row (different message ids) stay two user messages", () => {
  const t = new Transcript();
  const user = (text: string, messageId: string) =>
    ({ type: "update", update: { sessionUpdate: "user_message_chunk", messageId, content: { type: "text", text } } }) as ToWebview;
  t.apply(user("one", "user-0"));
  t.apply(user("two", "user-1"));
  t.apply(chunk("agent_message_chunk", "answer"));
  assert.deepEqual(
    t.items.map((i) => [i.kind, "text" in i ? i.text : ""]),
    [
      ["user", "one"],
      ["user", "two"],
      ["agent", "answer"],
    ],
  );
});

test("a replayed prompt's picture is named on its bubble", () => {
  const t = new Transcript();
  t.apply({ type: "update", update: { sessionUpdate: "user_message_chunk", messageId: "user-0", content: { type: "text", text: "what is this?" } } } as ToWebview);
  t.apply({ type: "update", update: { sessionUpdate: "user_message_chunk", messageId: "user-0", content: { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" } } } as ToWebview);
  const users = t.items.filter((i) => i.kind === "user");
  assert.equal(users.length, 1);
  assert.deepEqual((users[0] as { attachments: string[] }).attachments, ["image"]);
});

test("a session_info_update renames the chat's session in the history list", () => {
  const t = new Transcript();
  t.apply({ type: "reset", sessionId: "s1" });
  t.apply({ type: "sessions", sessions: [{ sessionId: "s1", cwd: "/w", title: "removed prompt" }, { sessionId: "s2", cwd: "/w", title: "other" }] });
  const changes = t.apply({ type: "update", update: { sessionUpdate: "session_info_update", title: null } });
  assert.ok(changes.chrome);
  assert.deepEqual(t.sessions?.map((s) => s.title), [null, "other"]);
});
