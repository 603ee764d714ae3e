// Drives `agent-server acp` with the official ACP TypeScript SDK (@agentclientprotocol/sdk, client side over an
// ndjson stream) through whole sessions, against the fake LLM server (scripted over its /_fake/ HTTP routes).
//
// Usage: node driver.mjs CONFIG_JSON   where CONFIG_JSON = {agent: [argv...], env: {...}, fakeUrl, workspace,
// wireLog, models: [name, name]}. Every line on the wire (both directions) is appended to wireLog as
// {"dir": "client->agent" | "agent->client", "line": "..."}; tests/acp/test_acp_sdk.py validates it against the
// ACP schema. Failed expectations throw (exit code 1); the summary of what was seen goes to stdout as JSON.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Editor, fakeLLM, toolCall, waitFor } from "./sdk_client.mjs";

const cfg = JSON.parse(process.argv[2]);
const summary = {};
const { script, lastChatRequest, chatCount } = fakeLLM(cfg.fakeUrl);

// --- phase 1: a client with fs and terminal ----------------------------------------------------------------

async function withCapabilities() {
  const ed = new Editor(cfg, { fs: { readTextFile: true, writeTextFile: true }, terminal: true });
  await ed.start();
  const init = await ed.initialize();
  assert.equal(init.agentCapabilities.loadSession, true);
  assert.deepEqual(init.agentCapabilities.sessionCapabilities.list, {});
  assert.deepEqual(init.authMethods, []);

  const created = await ed.agent.request("session/new", { cwd: cfg.workspace, mcpServers: [] });
  const sid = created.sessionId;
  summary.sessionId = sid;
  assert.equal(created.modes.currentModeId, "code");
  const modeIds = created.modes.availableModes.map((m) => m.id);
  assert.ok(modeIds.includes("code") && modeIds.includes("ask"), modeIds.join(", "));
  const model = created.configOptions.find((o) => o.category === "model");
  assert.equal(model.currentValue, cfg.models[0]);
  assert.deepEqual(model.options.map((o) => o.value), cfg.models);
  await waitFor(() => ed.updatesOf(sid).some((u) => u.sessionUpdate === "available_commands_update"), "commands");
  summary.commands = ed.updatesOf(sid).find((u) => u.sessionUpdate === "available_commands_update")
    .availableCommands.map((c) => c.name);

  // A streamed answer.
  await script({
    steps: [{ text: "Hello from " }, { delay: 0.4 }, { text: "the fake model, " }, { delay: 0.4 }, { text: "streamed in pieces." }],
  });
  const hello = await ed.prompt(sid, "Say hello");
  assert.equal(hello.stopReason, "end_turn");
  assert.equal(hello.text, "Hello from the fake model, streamed in pieces.");
  summary.helloChunks = hello.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").length;
  const helloIds = new Set(hello.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.messageId));
  assert.equal(helloIds.size, 1, "the chunks of one answer share one messageId");
  assert.equal(typeof [...helloIds][0], "string");
  summary.usage = hello.updates.filter((u) => u.sessionUpdate === "usage_update").length;
  assert.ok(hello.updates.some((u) => u.sessionUpdate === "session_info_update" && u.title === "Say hello"));

  // The model reads an unsaved buffer (fs/read_text_file), not the file on disk.
  const notes = path.join(cfg.workspace, "notes.txt");
  ed.buffers.set(notes, "first line\nunsaved line\n");
  await script(
    {
      steps: [
        { thinking: "I should make a plan first." },
        { tool_calls: [{ name: "update_plan", arguments: { entries: [{ content: "Read notes.txt", status: "in_progress" }] } }] },
      ],
    },
    toolCall("read_file", { path: "notes.txt" }),
    { text: "Read it." },
  );
  const read = await ed.prompt(sid, "Read notes.txt");
  assert.equal(read.stopReason, "end_turn");
  const thought = read.updates.filter((u) => u.sessionUpdate === "agent_thought_chunk").map((u) => u.content.text);
  assert.match(thought.join(""), /make a plan first/);
  const plan = read.updates.find((u) => u.sessionUpdate === "plan");
  assert.deepEqual(plan.entries.map((e) => [e.content, e.status]), [["Read notes.txt", "in_progress"]]);
  // The plan is shown once: as a plan, not also as a "think" tool call.
  assert.equal(read.updates.filter((u) => u.sessionUpdate === "plan").length, 1);
  const calls = read.updates.filter((u) => u.sessionUpdate === "tool_call");
  assert.deepEqual(calls.map((u) => u.kind), ["read"], JSON.stringify(calls));
  // rawOutput on every finished call.
  const readDone = read.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
  assert.match(readDone.rawOutput.output, /unsaved line/);
  // messageId: one per message; the thought and the answer are different messages.
  const thoughtIds = new Set(read.updates.filter((u) => u.sessionUpdate === "agent_thought_chunk").map((u) => u.messageId));
  const answerIds = new Set(read.updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.messageId));
  assert.equal(thoughtIds.size, 1);
  assert.equal(answerIds.size, 1);
  const [thoughtId] = thoughtIds;
  const [answerId] = answerIds;
  assert.ok(typeof thoughtId === "string" && typeof answerId === "string" && thoughtId !== answerId);
  const readCall = read.updates.find((u) => u.sessionUpdate === "tool_call" && u.kind === "read").toolCallId;
  const readResult = read.updates.find(
    (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === readCall && u.status === "completed",
  );
  assert.match(JSON.stringify(readResult.content), /unsaved line/);
  assert.ok(ed.methods().includes("fs/read_text_file"), "the buffer was read through the client");
  // The user saves; the agent edits: permission with the diff, written through fs/write_text_file.
  fs.writeFileSync(notes, ed.buffers.get(notes));
  await script(toolCall("edit_file", { path: "notes.txt", old_text: "unsaved line", new_text: "edited line" }), {
    text: "Edited.",
  });
  const edit = await ed.prompt(sid, "Change the unsaved line");
  summary.editUpdates = edit.updates;
  assert.equal(edit.stopReason, "end_turn");
  const asked = ed.calls.filter(([m]) => m === "session/request_permission").map(([, p]) => p);
  assert.equal(asked.length, 1, "one permission request for the edit");
  summary.editPermission = asked[0].toolCall;
  const writes = ed.calls.filter(([m]) => m === "fs/write_text_file").map(([, p]) => p);
  assert.equal(writes.length, 1);
  assert.equal(writes[0].content, "first line\nedited line\n");
  assert.equal(fs.readFileSync(notes, "utf8"), "first line\nedited line\n");
  const done = edit.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
  const diff = done.content.find((c) => c.type === "diff");
  assert.equal(diff.newText, "first line\nedited line\n");
  assert.equal(diff.oldText, "first line\nunsaved line\n");
  const started = edit.updates.find((u) => u.sessionUpdate === "tool_call");
  assert.equal(started.kind, "edit");
  assert.ok(started.locations.some((l) => l.path === notes));
  delete summary.editUpdates;

  // A command in the client's terminal.
  await script(toolCall("run_command", { command: "echo hi-from-terminal" }), { text: "Ran it." });
  const ran = await ed.prompt(sid, "Run echo");
  assert.equal(ran.stopReason, "end_turn");
  const perm = ed.calls.filter(([m]) => m === "session/request_permission").map(([, p]) => p);
  summary.commandPermission = perm[perm.length - 1].toolCall;
  const created_ = ed.calls.filter(([m]) => m === "terminal/create").map(([, p]) => p);
  assert.equal(created_.length, 1);
  assert.deepEqual(created_[0].args.slice(-1), ["echo hi-from-terminal"]);
  for (const m of ["terminal/wait_for_exit", "terminal/output", "terminal/release"]) {
    assert.ok(ed.methods().includes(m), m);
  }
  const runCall = ran.updates.find((u) => u.sessionUpdate === "tool_call" && u.kind === "execute").toolCallId;
  const live = ran.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === runCall && u.content
    && u.content.some((c) => c.type === "terminal"));
  assert.ok(live, "the client's terminal is embedded in the tool call while it runs");
  assert.equal(live.content[0].terminalId, "term-1");
  const output = ran.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
  // The final update keeps the live terminal (Zed's terminal view); the text is in rawOutput.
  assert.deepEqual(output.content, [{ type: "terminal", terminalId: "term-1" }]);
  assert.match(output.rawOutput.output, /hi-from-terminal/);
  assert.equal(output.rawOutput.exit_code, 0);
  // A command card is titled by its command, never by the folder it runs in.
  const runStart = ran.updates.find((u) => u.sessionUpdate === "tool_call" && u.kind === "execute");
  assert.equal(runStart.locations, undefined, JSON.stringify(runStart));
  assert.match(runStart.title, /echo hi-from-terminal/);
  assert.equal(summary.commandPermission.locations, undefined);

  // A rejected command never runs.
  ed.answerPermission = () => ({ outcome: { outcome: "selected", optionId: "reject_once" } });
  const before = ed.methods().filter((m) => m === "terminal/create").length;
  await script(toolCall("run_command", { command: "echo never" }), { text: "Understood." });
  const rejected = await ed.prompt(sid, "Run it again");
  assert.equal(rejected.stopReason, "end_turn");
  assert.equal(ed.methods().filter((m) => m === "terminal/create").length, before);
  ed.answerPermission = () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });

  // Cancel mid-stream: stopReason "cancelled", not an error.
  await script({ steps: [{ text: "Thinking about it" }, { delay: 30 }, { text: " too late" }] });
  const from = ed.updates.length;
  const pending = ed.agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "Slow" }] });
  await waitFor(() => ed.updatesOf(sid, from).some((u) => u.sessionUpdate === "agent_message_chunk"), "first chunk");
  await ed.agent.notify("session/cancel", { sessionId: sid });
  const cancelled = await pending;
  assert.equal(cancelled.stopReason, "cancelled");

  // Modes: "ask" offers the model no tool that changes anything.
  assert.deepEqual(await ed.agent.request("session/set_mode", { sessionId: sid, modeId: "ask" }), {});
  // (it reads the file first: an answer about a named file that never looked at it earns a nudge)
  await script(toolCall("read_file", { path: "notes.txt" }), { text: "Read-only answer." });
  const asking = await ed.prompt(sid, "What is in notes.txt?");
  assert.equal(asking.text, "Read-only answer.");
  const offered = ((await lastChatRequest()).tools || []).map((t) => t.function.name);
  summary.askModeTools = offered;
  assert.ok(offered.includes("read_file"));
  for (const name of ["edit_file", "write_file", "run_command"]) assert.ok(!offered.includes(name), name);
  const back = await ed.agent.request("session/set_config_option", { sessionId: sid, configId: "mode", value: "code" });
  assert.equal(back.configOptions.find((o) => o.id === "mode").currentValue, "code");
  await script({ text: "Full answer." });
  await ed.prompt(sid, "And now?");
  assert.ok(((await lastChatRequest()).tools || []).some((t) => t.function.name === "edit_file"));

  // Model: the next prompt uses the chosen one.
  const chosen = await ed.agent.request("session/set_config_option", {
    sessionId: sid,
    configId: "model",
    value: cfg.models[1],
  });
  assert.equal(chosen.configOptions.find((o) => o.id === "model").currentValue, cfg.models[1]);
  await script({ text: "From the other model." });
  await ed.prompt(sid, "Which model?");
  assert.equal((await lastChatRequest()).model, cfg.models[1]);

  // Slash commands do what they say.
  const modes = await ed.prompt(sid, "/mode");
  assert.match(modes.text, /ask/);
  const switched = await ed.prompt(sid, "/mode ask");
  assert.ok(switched.updates.some((u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "ask"));
  await ed.prompt(sid, "/mode code");
  const models = await ed.prompt(sid, `/model ${cfg.models[0]}`);
  assert.ok(models.updates.some((u) => u.sessionUpdate === "config_option_update"));
  const listed = await ed.prompt(sid, "/sessions");
  assert.match(listed.text, new RegExp(sid));

  // List.
  const list = await ed.agent.request("session/list", { cwd: cfg.workspace });
  const mine = list.sessions.find((s) => s.sessionId === sid);
  assert.ok(mine, "the session is listed");
  assert.equal(mine.title, "Say hello");
  summary.phase1Methods = [...new Set(ed.methods())].sort();
  await ed.stop();
  return sid;
}

// --- phase 2: a client without fs or terminal, loading the session --------------------------------------

async function withoutCapabilities(sid) {
  const ed = new Editor(cfg, {});
  await ed.start();
  await ed.initialize();
  const loaded = await ed.agent.request("session/load", { sessionId: sid, cwd: cfg.workspace, mcpServers: [] });
  assert.equal(loaded.modes.currentModeId, "code");
  // The replay came before the answer.
  const replay = ed.updatesOf(sid);
  summary.replayKinds = [...new Set(replay.map((u) => u.sessionUpdate))].sort();
  // The replayed plan is a plan, not a "think" tool call; messages carry ids there too.
  const replayedPlans = replay.filter((u) => u.sessionUpdate === "plan");
  assert.deepEqual(replayedPlans.map((u) => u.entries.map((e) => e.content)), [["Read notes.txt"]]);
  assert.ok(!replay.some((u) => u.sessionUpdate === "tool_call" && u.kind === "think"));
  assert.ok(replay.filter((u) => u.sessionUpdate === "user_message_chunk").every((u) => typeof u.messageId === "string"));
  const users = replay.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
  assert.equal(users[0], "Say hello");
  const said = replay.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text);
  assert.ok(said.join("").includes("Hello from the fake model"));
  assert.ok(replay.some((u) => u.sessionUpdate === "tool_call"));

  // Commands run by the agent itself; files are written by the agent itself.
  await script(toolCall("run_command", { command: "echo local-run" }), { text: "Ran locally." });
  const ran = await ed.prompt(sid, "Run echo here");
  assert.equal(ran.stopReason, "end_turn");
  const output = ran.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
  assert.match(JSON.stringify(output.content), /local-run/);
  await script(toolCall("write_file", { path: "new.txt", content: "made here\n" }), { text: "Written." });
  await ed.prompt(sid, "Write new.txt");
  assert.equal(fs.readFileSync(path.join(cfg.workspace, "new.txt"), "utf8"), "made here\n");
  const used = ed.methods();
  summary.phase2Methods = [...new Set(used)].sort();
  assert.ok(!used.some((m) => m.startsWith("terminal/") || m.startsWith("fs/")), used.join(", "));
  await ed.stop();
}

// --- phase 3: a client with fs, terminal and elicitation, reading buffers as lines (avante-like), traced -----


async function nativeClient() {
  const ws = cfg.trustWorkspace; // holds an .agent-server.toml that allows run_command: it needs trust
  const ed = new Editor(cfg, { fs: { readTextFile: true, writeTextFile: true }, terminal: true, elicitation: { form: {} }, session: { configOptions: { boolean: {} } } });
  ed.extraArgs = ["--log-level", "DEBUG", "--log-file", cfg.traceLog];
  ed.extraEnv = { AGENT_SERVER_LLM__API_KEY: cfg.apiKey };
  ed.dropFinalNewline = true;
  const asked = [];
  ed.answerElicitation = (p) => {
    asked.push(p);
    if (p.requestedSchema.properties.choice && p.message.includes("trust")) {
      return { action: "accept", content: { choice: "Trust this workspace" } };
    }
    if (p.message.startsWith("Which color")) return { action: "accept", content: { choice: "blue" } };
    return { action: "decline" };
  };
  await ed.start();
  const init = await ed.initialize();
  assert.deepEqual(init.agentCapabilities.auth.logout, {});
  assert.deepEqual(init.agentCapabilities.sessionCapabilities.additionalDirectories, {});
  assert.deepEqual(init.agentCapabilities.sessionCapabilities.fork, {});
  const mcpServers = [{ name: "keyed", command: "/bin/true", args: [], env: [{ name: "TOKEN", value: cfg.apiKey }] }];
  const created = await ed.agent.request("session/new", { cwd: ws, mcpServers, additionalDirectories: [cfg.extraDir] });
  const sid = created.sessionId;

  // 10. Workspace trust asked through elicitation; trusted, the workspace's own policy applies (no approval asked).
  await waitFor(() => asked.some((p) => p.message.includes("trust")), "the workspace-trust question");
  const trustQ = asked.find((p) => p.message.includes("trust"));
  assert.equal(trustQ.mode, "form");
  assert.equal(trustQ.sessionId, sid);
  assert.deepEqual(trustQ.requestedSchema.properties.choice.oneOf.map((o) => o.const), [
    "Not now",
    "Trust this workspace",
    "Don't trust",
  ]);
  const permissionsBefore = ed.methods().filter((m) => m === "session/request_permission").length;
  await script(toolCall("run_command", { command: "echo trusted-run" }), { text: "Ran." });
  const trustedRun = await ed.prompt(sid, "Run echo");
  assert.equal(trustedRun.stopReason, "end_turn");
  assert.equal(ed.methods().filter((m) => m === "session/request_permission").length, permissionsBefore);
  assert.ok(ed.methods().includes("terminal/create"));

  // 1. A slash command in a later block runs (context first; an old prompt re-sent first after a cancel).
  const chats = await chatCount();
  const from = ed.updates.length;
  await ed.agent.request("session/prompt", {
    sessionId: sid,
    prompt: [
      { type: "text", text: "Old question that was cancelled" },
      { type: "resource", resource: { uri: `file://${ws}/keep.txt`, text: "context\n" } },
      { type: "text", text: "/mode ask" },
    ],
  });
  assert.ok(ed.updatesOf(sid, from).some((u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "ask"));
  assert.equal(await chatCount(), chats, "the command ran; the model was not asked");
  await ed.agent.request("session/set_mode", { sessionId: sid, modeId: "code" });

  // 4. The agent's nudges are not the model's reasoning.
  await script({ text: "" }, { text: "Final answer." });
  const nudged = await ed.prompt(sid, "Answer me");
  assert.equal(nudged.text, "Final answer.");
  assert.ok((await lastChatRequest()).messages.some((m) => m.role === "user" && m.content.includes("Continue")), "nudged");
  const thoughts = nudged.updates.filter((u) => u.sessionUpdate === "agent_thought_chunk").map((u) => u.content.text);
  assert.ok(!thoughts.join("").includes("agent-server"), thoughts.join(""));

  // 8. A client that drops the final newline and CRLF: the file keeps its own.
  fs.writeFileSync(path.join(ws, "keep.txt"), "alpha\nbeta\n");
  fs.writeFileSync(path.join(ws, "dos.txt"), "one\r\ntwo\r\n");
  await script(
    toolCall("edit_file", { path: "keep.txt", old_text: "beta", new_text: "gamma" }),
    toolCall("edit_file", { path: "dos.txt", old_text: "two", new_text: "three" }),
    { text: "Edited both." },
  );
  await ed.prompt(sid, "Edit both files");
  assert.equal(fs.readFileSync(path.join(ws, "keep.txt"), "utf8"), "alpha\ngamma\n");
  assert.equal(fs.readFileSync(path.join(ws, "dos.txt"), "utf8"), "one\r\nthree\r\n");

  // 10. The model's question goes to the client's question UI; the answer comes back within the turn.
  await script(toolCall("ask_question", { question: "Which color?", options: ["red", "blue"] }), { text: "Blue it is." });
  const questioned = await ed.prompt(sid, "Pick a color with me");
  assert.equal(questioned.text, "Blue it is.");
  const q = asked.find((p) => p.message.startsWith("Which color"));
  assert.equal(q.sessionId, sid);
  assert.ok(q.toolCallId);
  const toolMessages = (await lastChatRequest()).messages.filter((m) => m.role === "tool");
  assert.match(toolMessages[toolMessages.length - 1].content, /answered: blue/);

  // 10. additionalDirectories: the session reaches the extra folder.
  const outside = path.join(cfg.extraDir, "shared.txt");
  await script(toolCall("read_file", { path: outside }), { text: "Read the shared file." });
  const extra = await ed.prompt(sid, "Read the shared file");
  const finished = (u) => u.sessionUpdate === "tool_call_update" && ["completed", "failed"].includes(u.status);
  const extraDone = extra.updates.find(finished);
  assert.equal(extraDone.status, "completed", JSON.stringify(extraDone));
  assert.match(extraDone.rawOutput.output, /shared content/);
  const plain = await ed.agent.request("session/new", { cwd: ws, mcpServers: [] });
  await script(toolCall("read_file", { path: outside }), { text: "Could not." });
  const refused = await ed.prompt(plain.sessionId, "Read the shared file");
  assert.equal(refused.updates.find(finished).status, "failed");

  // 10. Thinking (boolean) and thought level (select) config options reach the model request.
  const off = await ed.agent.request("session/set_config_option", {
    sessionId: sid,
    configId: "thinking",
    type: "boolean",
    value: false,
  });
  assert.equal(off.configOptions.find((o) => o.id === "thinking").currentValue, false);
  assert.equal(off.configOptions.find((o) => o.id === "thinking").type, "boolean");
  await script({ text: "No thinking." });
  await ed.prompt(sid, "Quick one");
  assert.equal((await lastChatRequest()).think, false);
  const high = await ed.agent.request("session/set_config_option", { sessionId: sid, configId: "thought_level", value: "high" });
  assert.equal(high.configOptions.find((o) => o.id === "thought_level").category, "thought_level");
  assert.equal(high.configOptions.find((o) => o.id === "thinking").currentValue, true);
  await script({ text: "Thinking hard." });
  await ed.prompt(sid, "Hard one");
  assert.equal((await lastChatRequest()).think, "high");

  // 5. session/list: no empty sessions (plain has a turn; a just-opened one has none), pages behind a cursor.
  const empty = await ed.agent.request("session/new", { cwd: ws, mcpServers: [] });
  for (let i = 0; i < 20; i++) {
    const extraSession = await ed.agent.request("session/new", { cwd: ws, mcpServers: [] });
    await script({ text: `answer ${i}` });
    await ed.prompt(extraSession.sessionId, `Filler ${i}`);
  }
  const seen = [];
  const infos = [];
  let cursor;
  let pages = 0;
  do {
    const page = await ed.agent.request("session/list", cursor ? { cwd: ws, cursor } : { cwd: ws });
    seen.push(...page.sessions.map((x) => x.sessionId));
    infos.push(...page.sessions);
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  assert.ok(pages >= 2, `paged (${pages} pages)`);
  assert.equal(new Set(seen).size, seen.length, "no session twice");
  assert.equal(seen.length, 22, "20 fillers, the plain one and this one");
  assert.ok(!seen.includes(empty.sessionId), "the empty session is not listed");
  assert.deepEqual(infos.find((x) => x.sessionId === sid).additionalDirectories, [cfg.extraDir]);

  // 10. session/fork (unstable): a new session with the conversation so far.
  const forked = await ed.agent.request("session/fork", { sessionId: sid, cwd: ws, mcpServers: [] });
  assert.notEqual(forked.sessionId, sid);
  assert.equal(forked.modes.currentModeId, "code");
  await script({ text: "Forked answer." });
  await ed.prompt(forked.sessionId, "Go on in the fork");
  const forkedMessages = JSON.stringify((await lastChatRequest()).messages);
  assert.ok(forkedMessages.includes("Pick a color with me"), "the fork carries the conversation");
  const loadedFork = await ed.agent.request("session/load", { sessionId: forked.sessionId, cwd: ws, mcpServers: [] });
  assert.ok(loadedFork.modes);

  // 10. logout: the agent lets go of its live sessions; stored ones load again.
  assert.deepEqual(await ed.agent.request("logout", {}), {});
  await ed.agent.request("session/load", { sessionId: sid, cwd: ws, mcpServers: [] });
  await script({ text: "Back." });
  assert.equal((await ed.prompt(sid, "Still there?")).text, "Back.");
  summary.nativeMethods = [...new Set(ed.methods())].sort();
  await ed.stop();
}

try {
  const sid = await withCapabilities();
  await withoutCapabilities(sid);
  await nativeClient();
  process.stdout.write(JSON.stringify(summary) + "\n");
} catch (err) {
  process.stdout.write(JSON.stringify(summary) + "\n");
  console.error(err);
  process.exit(1);
}
