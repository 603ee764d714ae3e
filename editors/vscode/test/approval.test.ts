import assert from "node:assert/strict";
import { test } from "node:test";
import { mentionBlock, mentionQuery, MAX_EMBEDDED_CHARS } from "../src/mentions";
import { modelDescription } from "../src/models";
import { relativePath, renderItem, setWorkspaceRoot } from "../webview/render";
import { type ToolCard, Transcript } from "../webview/transcript";

const OLD = "def f():\n    return 1\n";
const NEW = "def f():\n    return 2\n";
const OPTIONS = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

function asked(toolCall: Record<string, unknown>): { t: Transcript; card: ToolCard } {
  const t = new Transcript();
  t.apply({ type: "workspace", root: "/w" });
  setWorkspaceRoot(t.root);
  t.apply({ type: "permission", requestId: "perm_1", toolCall: { toolCallId: "c1", status: "pending", ...toolCall }, options: OPTIONS });
  return { t, card: t.items[0] as ToolCard };
}

test("an edit's approval card shows the diff, an Open diff button and a workspace-relative path before the choice", () => {
  const { card } = asked({
    title: "Edit src/f.py",
    kind: "edit",
    rawInput: { path: "src/f.py", old_text: "return 1", new_text: "return 2" },
    content: [{ type: "diff", path: "/w/src/f.py", oldText: OLD, newText: NEW }],
  });
  const { className, html } = renderItem(card);
  assert.match(className, /asking/);
  assert.match(html, /<span class="diff-line del">-    return 1<\/span><span class="diff-line add">\+    return 2<\/span>/);
  assert.match(html, /class="open-diff" data-diff="0"/);
  assert.match(html, /data-open="\/w\/src\/f.py"[^>]*>src\/f.py<\/a>/);
  assert.match(html, /data-option="allow_once"/);
  assert.doesNotMatch(html, /old_text/, "no raw JSON when the diff is shown");
});

test("a command's approval card shows the exact command and its folder", () => {
  const { card } = asked({
    title: "Run `make test`",
    kind: "execute",
    rawInput: { command: "rm -rf build && make test", cwd: "/w/sub" },
    content: [{ type: "content", content: { type: "text", text: "$ rm -rf build && make test\n\nin /w/sub" } }],
  });
  const { html } = renderItem(card);
  assert.match(html, /<pre class="command">\$ rm -rf build &amp;&amp; make test<\/pre>/);
  assert.match(html, /<div class="cwd">in sub<\/div>/);
  assert.equal(html.split("rm -rf build").length - 1, 1, "the command is shown once");
  const { card: atRoot } = asked({ kind: "execute", rawInput: { command: "ls", cwd: "/w" } });
  assert.match(renderItem(atRoot).html, /<div class="cwd">in the workspace folder<\/div>/);
});

test("a rejected call is neutral 'rejected' with the reason, not a red failure", () => {
  const { t } = asked({ title: "Edit f.py", kind: "edit", content: [{ type: "diff", path: "/w/f.py", oldText: OLD, newText: NEW }] });
  t.apply({ type: "permissionResolved", requestId: "perm_1", optionId: "reject_once" });
  t.apply({
    type: "update",
    update: {
      sessionUpdate: "tool_call_update",
      toolCallId: "c1",
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "Error: The user declined this edit_file call." } }],
      _meta: { rejected: { by: "user", reason: "you declined this call" } },
    },
  });
  const { className, html } = renderItem(t.items[0] as ToolCard);
  assert.match(className, /status-rejected/);
  assert.doesNotMatch(className, /status-failed/);
  assert.match(html, /<span class="tool-status status-rejected">rejected<\/span>/);
  assert.match(html, /Rejected: you declined this call/);
  assert.doesNotMatch(html, /Error: The user declined/);
});

test("a real failure still shows as failed", () => {
  const t = new Transcript();
  t.apply({ type: "update", update: { sessionUpdate: "tool_call", toolCallId: "c2", title: "Edit f.py", kind: "edit", status: "pending" } });
  t.apply({ type: "update", update: { sessionUpdate: "tool_call_update", toolCallId: "c2", status: "failed" } });
  assert.match(renderItem(t.items[0] as ToolCard).className, /status-failed/);
});

test("@ completion triggers at a word start only", () => {
  assert.deepEqual(mentionQuery("look at @cal", 12), { start: 8, query: "cal" });
  assert.deepEqual(mentionQuery("@", 1), { start: 0, query: "" });
  assert.equal(mentionQuery("mail me@host", 12), undefined);
  assert.equal(mentionQuery("@calc.py and more", 17), undefined);
});

test("chips become resource blocks; large files a resource_link; diagnostics a text resource", () => {
  assert.deepEqual(mentionBlock({ kind: "file", label: "calc.py", uri: "file:///w/calc.py", text: "x = 1\n", languageId: "python" }), {
    type: "resource",
    resource: { uri: "file:///w/calc.py", text: "x = 1\n", mimeType: "text/x-python" },
  });
  const range = { start: { line: 4, character: 0 }, end: { line: 5, character: 3 } };
  assert.deepEqual(mentionBlock({ kind: "selection", label: "calc.py:5-6", uri: "file:///w/calc.py", text: "ab", range }), {
    type: "resource",
    resource: { uri: "file:///w/calc.py", text: "ab", mimeType: "text/plain" },
    _meta: { range },
  });
  assert.deepEqual(mentionBlock({ kind: "file", label: "big.txt", uri: "file:///w/big.txt", text: "x".repeat(MAX_EMBEDDED_CHARS + 1) }), {
    type: "resource_link",
    uri: "file:///w/big.txt",
    name: "big.txt",
  });
  const diag = mentionBlock({ kind: "diagnostics", label: "calc.py problems", uri: "file:///w/calc.py", text: "line 3: error: boom" });
  assert.equal(diag.type === "resource" && diag.resource.uri, "file:///w/calc.py#diagnostics");
});

test("the model picker describes context length and capabilities", () => {
  assert.equal(modelDescription({ name: "q", contextLength: 32768, tools: true, thinking: true }), "32k context · tools · thinking");
  assert.equal(modelDescription({ name: "q" }), "");
  assert.equal(modelDescription({ name: "q", tools: false }), "no tools");
});

test("paths inside the workspace are shown relative", () => {
  assert.equal(relativePath("/w/src/a.py", "/w"), "src/a.py");
  assert.equal(relativePath("/other/a.py", "/w"), "/other/a.py");
  assert.equal(relativePath("/wx/a.py", "/w"), "/wx/a.py");
});
