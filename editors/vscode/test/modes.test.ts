import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatController, type Rpc } from "../src/chatController";
import {
  checkpointDescription,
  checkpointForPrompt,
  checkpointLabel,
  fileSummary,
  newestFirst,
  relativePath,
  restoreOutcome,
  restoreQuestion,
} from "../src/checkpoints";
import type { ToWebview } from "../src/messages";
import { mergeProfiles, modeLabel, profileNameProblem } from "../src/modes";
import type { Checkpoint, ModeState } from "../src/protocol";
import { renderItem } from "../webview/render";
import { Transcript } from "../webview/transcript";

const MODES: ModeState = {
  currentModeId: "code",
  availableModes: [
    { id: "code", name: "Code", description: "The default" },
    { id: "plan", name: "Plan", description: "Read-only" },
  ],
};

class Server implements Rpc {
  calls: [string, any][] = [];
  constructor(private readonly answers: Record<string, (p: any) => unknown>) {}
  async request<T>(method: string, params: unknown): Promise<T> {
    this.calls.push([method, params]);
    const answer = this.answers[method];
    if (!answer) throw new Error(`Method Not Found: ${method}`);
    return answer(params) as T;
  }
  notify(): void {}
}

function controllerWith(answers: Record<string, (p: any) => unknown>) {
  const shown: ToWebview[] = [];
  let picks = 0;
  const controller = new ChatController({
    broadcast: (m) => shown.push(m),
    reveal() {},
    cwd: () => "/proj",
    copy() {},
    indexWorkspace() {},
    pickMode: () => picks++,
  });
  const rpc = new Server({ "agent/_models/list": () => ({ current: "m", models: [] }), ...answers });
  controller.attach(rpc);
  return { controller, rpc, shown, picks: () => picks };
}

const lastModes = (shown: ToWebview[]) => shown.filter((m) => m.type === "modes").at(-1);

test("the header's mode comes from session/new, follows current_mode_update and set_mode, and clears on New Chat", async () => {
  const { controller, rpc, shown, picks } = controllerWith({
    "agent/session/new": () => ({ sessionId: "s1", modes: MODES }),
    "agent/session/set_mode": () => ({}),
    "agent/_agents/list": () => ({ agents: [{ name: "code" }, { name: "plan" }], errors: [] }),
  });
  await controller.handle({ type: "pickMode" }, () => {});
  assert.equal(picks(), 1, "the header's button asks the editor for its picker");
  const modes = await controller.sessionModes(); // an empty chat gets its session (and modes) on first pick
  assert.deepEqual(modes, MODES);
  assert.deepEqual(lastModes(shown), { type: "modes", modes: MODES });
  await controller.setMode("plan");
  assert.deepEqual(rpc.calls.at(-1), ["agent/session/set_mode", { sessionId: "s1", modeId: "plan" }]);
  assert.equal(controller.modeState?.currentModeId, "plan");
  controller.onSessionUpdate({ sessionId: "s1", update: { sessionUpdate: "current_mode_update", currentModeId: "code" } });
  assert.equal(controller.modeState?.currentModeId, "code");
  assert.equal(controller.modeState?.availableModes.length, 2, "an update keeps the list of modes");
  assert.ok(!shown.some((m) => m.type === "update"), "a mode update is header state, not a transcript item");
  // A reloaded webview gets the modes again.
  const replies: ToWebview[] = [];
  await controller.handle({ type: "ready" }, (m) => replies.push(m));
  assert.ok(replies.some((m) => m.type === "modes" && m.modes?.currentModeId === "code"));
  controller.newChat();
  assert.deepEqual(lastModes(shown), { type: "modes", modes: undefined });
});

test("resuming a session shows its stored mode; a refused set_mode is an error in the chat", async () => {
  const { controller, shown } = controllerWith({
    "agent/session/load": () => ({ modes: { ...MODES, currentModeId: "plan" } }),
    "agent/session/set_mode": () => {
      throw new Error("unknown mode: nope");
    },
  });
  await controller.loadSession("old");
  assert.equal(controller.modeState?.currentModeId, "plan");
  await controller.setMode("nope");
  assert.equal(controller.modeState?.currentModeId, "plan");
  const error = shown.find((m) => m.type === "error");
  assert.ok(error && error.type === "error" && error.message.includes("unknown mode: nope"));
});

test("the transcript keeps the modes for the header and modeLabel names the current one", () => {
  const t = new Transcript();
  assert.equal(modeLabel(t.modes), undefined);
  assert.equal(t.apply({ type: "modes", modes: MODES }).chrome, true);
  assert.equal(modeLabel(t.modes), "Code");
  assert.equal(modeLabel({ currentModeId: "custom", availableModes: [] }), "custom");
});

test("profile names are checked before the server is asked", () => {
  assert.equal(profileNameProblem("reviewer"), undefined);
  assert.equal(profileNameProblem("db_expert-2"), undefined);
  assert.match(profileNameProblem("") ?? "", /needed/);
  assert.match(profileNameProblem("My Agent") ?? "", /lowercase/);
  assert.match(profileNameProblem("../evil") ?? "", /lowercase/);
});

const cp = (over: Partial<Checkpoint>): Checkpoint => ({
  id: "c",
  sessionId: "s",
  cwd: "/proj",
  prompt: "Rewrite the todo file",
  kind: "files",
  createdAt: "2026-11-22T10:00:00Z",
  complete: true,
  ...over,
});

test("checkpoints are listed newest first with the prompt's first line", () => {
  const list = newestFirst([cp({ id: "a", createdAt: "2026-11-22T10:00:00Z" }), cp({ id: "b", createdAt: "2026-11-22T11:00:00Z" })]);
  assert.deepEqual(list.map((c) => c.id), ["b", "a"]);
  assert.equal(checkpointLabel(cp({ prompt: "first line\nsecond" })), "first line");
  assert.equal(checkpointLabel(cp({ prompt: "" })), "(turn without a prompt)");
  assert.equal(checkpointLabel(cp({ prompt: "x".repeat(200) })).length, 80);
  assert.match(checkpointDescription(cp({ kind: "git", complete: false })), /git snapshot · turn not finished$/);
});

test("the restore notification starts every sentence with a capital (the server's notes are clauses)", () => {
  const note = "outside git only the files the agent's own tools changed are kept; run_command effects are not";
  const text = restoreOutcome({ files: [{ path: "todo.txt", status: "modified" }], notes: [note] }, "Restored", "");
  assert.equal(text, `Restored 1 file. Outside git only the files the agent's own tools changed are kept; run_command effects are not.`);
  const undone = restoreOutcome(
    { files: [], conflicts: [{ path: "/proj/a.txt" }], notes: ["b.txt was not restored: gone"] } as never,
    "Undid the turn: changed",
    "",
  );
  assert.equal(undone, "Undid the turn: changed 0 files. Left as they are (changed since, on the same lines): a.txt. b.txt was not restored: gone.");
  for (const s of text.split(/(?<=\.) /)) assert.match(s, /^[A-Z]/, s);
  assert.equal(restoreOutcome({ files: [], notes: ["kept."] }, "Restored", " and the conversation"), "Restored 0 files and the conversation. Kept.");
});

test("the restore question lists what would change and explains the conversation choice", () => {
  const files = [
    { path: "todo.txt", status: "modified" },
    { path: "/proj/sub/new.txt", status: "deleted" },
  ];
  const q = restoreQuestion(cp({}), files);
  assert.equal(q.message, "Restore 2 files to before “Rewrite the todo file”?");
  assert.ok(q.detail.includes("before the turn:\nM todo.txt\nD sub/new.txt"), q.detail);
  assert.match(q.detail, /removes this turn and every later message/);
  assert.match(restoreQuestion(cp({}), []).message, /No file differs/);
  const many = Array.from({ length: 15 }, (_, i) => ({ path: `f${i}`, status: "added" }));
  assert.equal(fileSummary(many).split("\n").at(-1), "… and 3 more");
  assert.equal(relativePath("/proj2/x", "/proj"), "/proj2/x", "a sibling folder with the same prefix stays absolute");
  assert.equal(relativePath("/proj/a/b.py", "/proj/"), "a/b.py");
});

test("the restore question offers undoing only the turn, with its conflicts, and names files made later", () => {
  const files = [
    { path: "/proj/a.txt", status: "modified" },
    { path: "/proj/later.txt", status: "deleted", createdLater: true },
  ];
  const undo = { files: [{ path: "/proj/a.txt", status: "modified" }], conflicts: [{ path: "/proj/clash.txt", reason: "changed since the turn on the same lines the turn changed" }] };
  const q = restoreQuestion(cp({}), files, undo);
  assert.match(q.detail, /“Undo only this turn” reverses this turn's own changes and keeps later ones: 1 file; 1 file changed since/);
  assert.match(q.detail, /! clash\.txt: changed since the turn on the same lines/);
  assert.match(q.detail, /D later\.txt \(made after this turn: Undo Last Restore brings it back\)/);
  assert.match(q.detail, /1 file made after this turn would be deleted/);
  assert.deepEqual(newestFirst([cp({ id: "t" }), cp({ id: "r", origin: "restore" })]).map((c) => c.id), ["t"]);
});

test("profiles created or deleted since the session started update the mode list", () => {
  const merged = mergeProfiles({ ...MODES, currentModeId: "plan" }, [
    { name: "code", description: "The default" },
    { name: "code-reviewer", description: "Reviews" },
  ]);
  assert.deepEqual(
    merged.availableModes.map((m) => [m.id, m.name]),
    [
      ["code", "Code"],
      ["plan", "Plan"], // the current mode stays listed even if its file went away
      ["code-reviewer", "Code Reviewer"],
    ],
  );
});

test("a turn whose tool changed files offers Review / Restore on its prompt; a read-only turn does not", () => {
  const t = new Transcript();
  t.apply({ type: "user", text: "Read it", attachments: [] });
  t.apply({ type: "update", update: { sessionUpdate: "tool_call", toolCallId: "r", kind: "read", status: "completed" } });
  t.apply({ type: "user", text: "Write it", attachments: [] });
  t.apply({ type: "update", update: { sessionUpdate: "tool_call", toolCallId: "w", kind: "edit", status: "pending" } });
  const pendingUsers = t.items.filter((i) => i.kind === "user");
  assert.deepEqual(pendingUsers.map((u) => u.kind === "user" && !!u.changed), [false, false], "not before the write ran");
  const changes = t.apply({ type: "update", update: { sessionUpdate: "tool_call_update", toolCallId: "w", status: "completed" } });
  const users = t.items.filter((i) => i.kind === "user");
  assert.deepEqual(users.map((u) => u.kind === "user" && !!u.changed), [false, true]);
  assert.ok(changes.items.includes(users[1]!.id), "the bubble is re-rendered");
  assert.match(renderItem(users[1]!).html, /review-turn[\s\S]*restore-turn/);
  assert.doesNotMatch(renderItem(users[0]!).html, /review-turn/);
  // A replayed session (load) marks its prompts the same way.
  const replay = new Transcript();
  replay.apply({ type: "update", update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "Run it" } } });
  replay.apply({ type: "update", update: { sessionUpdate: "tool_call", toolCallId: "x", kind: "execute", status: "completed" } });
  assert.equal((replay.items[0] as { changed?: boolean }).changed, true);
});

test("a prompt's buttons find its checkpoint: the newest with that prompt, else one containing it", () => {
  const list = [
    cp({ id: "old", prompt: "Fix it", createdAt: "2026-11-22T09:00:00Z" }),
    cp({ id: "new", prompt: "Fix it", createdAt: "2026-11-22T10:00:00Z" }),
    cp({ id: "chips", prompt: "From `a.py`:\n...\nExplain a.py", createdAt: "2026-11-22T11:00:00Z" }),
  ];
  assert.equal(checkpointForPrompt(list, "Fix it")?.id, "new");
  assert.equal(checkpointForPrompt(list, "Explain a.py")?.id, "chips");
  assert.equal(checkpointForPrompt(list, "Something else"), undefined);
  assert.equal(checkpointForPrompt(list, "  "), undefined);
});
