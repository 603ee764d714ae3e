// Issue 42's ACP rough edges, each as the official ACP TypeScript SDK's client meets it (tests/acp/sdk_client.mjs):
// the permission options it receives and answers, the config options it parses, the prompts it sends, the answers
// it is streamed. One scenario per run, against the fake LLM server.
//
// Usage: node rough_edges.mjs CONFIG_JSON   where CONFIG_JSON = {scenario, agent: [argv...], env: {...}, fakeUrl,
// workspace, wireLog, traceLog?}. Failed expectations throw (exit code 1); what was seen goes to stdout as JSON.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Editor, fakeLLM, toolCall } from "./sdk_client.mjs";

const cfg = JSON.parse(process.argv[2]);
const summary = {};
const { script, chatCount, lastChatRequest } = fakeLLM(cfg.fakeUrl);

const editors = []; // their stderr is shown when a scenario fails

async function session(caps, extraArgs = []) {
  const ed = new Editor(cfg, caps);
  editors.push(ed);
  ed.extraArgs = extraArgs;
  await ed.start();
  await ed.initialize();
  const created = await ed.agent.request("session/new", { cwd: cfg.workspace, mcpServers: [] });
  return { ed, sid: created.sessionId, created };
}

const asked = (ed) => ed.calls.filter(([m]) => m === "session/request_permission").map(([, p]) => p);

// --- permission options: one per kind; "Allow for this session" only for clients that say they know it ----------

async function permissionKinds() {
  const notes = path.join(cfg.workspace, "notes.md");
  const twoWrites = [
    toolCall("write_file", { path: "notes.md", content: "one\n" }),
    toolCall("write_file", { path: "notes.md", content: "two\n" }),
    { text: "Wrote it twice." },
  ];
  // A client that maps options by kind (as CodeCompanion does: the last option of a kind wins) and whose Accept
  // button is "the allow_once option".
  const { ed, sid } = await session({});
  ed.answerPermission = (p) => {
    const byKind = Object.fromEntries(p.options.map((o) => [o.kind, o]));
    return { outcome: { outcome: "selected", optionId: byKind.allow_once.optionId } };
  };
  fs.writeFileSync(notes, "old\n");
  await script(...twoWrites);
  assert.equal((await ed.prompt(sid, "Write notes twice")).stopReason, "end_turn");
  const requests = asked(ed);
  summary.byKind = requests.map((p) => p.options.map((o) => [o.name, o.kind]));
  assert.equal(requests.length, 2, "Accept (allow_once) allowed more than once: the second write was not asked");
  const kinds = requests[0].options.map((o) => o.kind);
  assert.equal(new Set(kinds).size, kinds.length, `two options of one kind: ${JSON.stringify(summary.byKind[0])}`);
  assert.ok(!requests[0].options.some((o) => /session/i.test(o.name)), JSON.stringify(summary.byKind[0]));
  assert.equal(fs.readFileSync(notes, "utf8"), "two\n");
  await ed.stop();

  // A client that announces it understands the session option is offered it, and it means the session.
  const caps = { _meta: { agentServer: { sessionPermission: true } } };
  const withSession = await session(caps);
  withSession.ed.answerPermission = (p) => {
    const option = p.options.find((o) => o.name === "Allow for this session");
    assert.ok(option, JSON.stringify(p.options));
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  };
  fs.writeFileSync(notes, "old\n");
  await script(...twoWrites);
  assert.equal((await withSession.ed.prompt(withSession.sid, "Write notes twice")).stopReason, "end_turn");
  summary.sessionOffered = asked(withSession.ed).map((p) => p.options.map((o) => [o.name, o.kind]));
  assert.equal(asked(withSession.ed).length, 1, "allowed for the session: the second write was not asked about");
  assert.equal(fs.readFileSync(notes, "utf8"), "two\n");
  await withSession.ed.stop();
}

// --- thinking: a switch only for clients that draw switches, a dropdown for the others --------------------------

async function thinkingOption() {
  const { ed, sid, created } = await session({ fs: { readTextFile: true, writeTextFile: true } });
  const thinking = created.configOptions.find((o) => o.id === "thinking");
  summary.withoutBooleans = thinking;
  assert.equal(thinking.type, "select", `a client that announced no boolean options got ${JSON.stringify(thinking)}`);
  assert.deepEqual(thinking.options.map((o) => o.value), ["on", "off"]);
  assert.equal(typeof thinking.currentValue, "string");
  const off = await ed.agent.request("session/set_config_option", { sessionId: sid, configId: "thinking", value: "off" });
  assert.equal(off.configOptions.find((o) => o.id === "thinking").currentValue, "off");
  await script({ text: "Quick answer." });
  await ed.prompt(sid, "Quick one");
  assert.equal((await lastChatRequest()).think, false, "off in the dropdown turned thinking off");
  await ed.stop();

  const switches = await session({ session: { configOptions: { boolean: {} } } });
  const toggle = switches.created.configOptions.find((o) => o.id === "thinking");
  summary.withBooleans = toggle;
  assert.equal(toggle.type, "boolean");
  assert.equal(typeof toggle.currentValue, "boolean");
  await switches.ed.stop();
}

// --- plan mode: an answer that says what would change is the plan, not an action to be nudged --------------------

async function planMode() {
  fs.writeFileSync(path.join(cfg.workspace, "a.py"), "x = 1\n");
  const { ed, sid } = await session({});
  assert.deepEqual(await ed.agent.request("session/set_mode", { sessionId: sid, modeId: "plan" }), {});
  const plan = "x is set on line 1 of a.py. I will change that line to set x to 2, then run the tests.";
  const before = await chatCount();
  await script(toolCall("read_file", { path: "a.py" }), { text: plan }, { text: "I cannot edit files in plan mode." });
  const answer = await ed.prompt(sid, "Plan how to set x to 2 in a.py");
  summary.planAnswer = answer.text;
  summary.planRequests = (await chatCount()) - before;
  const nudges = (await lastChatRequest()).messages.filter((m) => m.role === "user" && /call the tools/.test(m.content));
  assert.deepEqual(nudges, [], "the plan was answered with 'call the tools needed to do it'");
  assert.equal(answer.stopReason, "end_turn");
  assert.equal(answer.text.trim(), plan, "the user sees the plan, and only the plan");
  assert.equal(summary.planRequests, 2, "read, then the plan: no third round");
  await ed.stop();
}

// --- avante's wrapped prompts: the typed /command runs, the history is not sent again ----------------------------

function avante(...typedNewestFirst) {
  const blocks = typedNewestFirst.map((t) => ({ type: "text", text: `<previous_user_message>${t}</previous_user_message>` }));
  const note = `<system_context>Continuing from previous session with ${blocks.length} recent user messages</system_context>`;
  return [...blocks, { type: "text", text: note }];
}

async function avanteWrapped() {
  const { ed, sid } = await session({ fs: { readTextFile: true, writeTextFile: true }, terminal: true });
  await script({ text: "First answer." }, { text: "Second answer." });
  assert.equal((await ed.prompt(sid, "first question")).text, "First answer.");
  const chats = await chatCount();
  const command = await ed.prompt(sid, avante("/mode plan", "first question"));
  summary.commandText = command.text;
  assert.ok(command.updates.some((u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "plan"),
    `the wrapped /mode plan did not run: ${command.text}`);
  assert.equal(await chatCount(), chats, "the command went to the model");
  const second = await ed.prompt(sid, avante("second question", "first question"));
  assert.equal(second.text, "Second answer.");
  const sent = (await lastChatRequest()).messages.at(-1).content;
  summary.sent = sent;
  assert.ok(sent.includes("second question") && !sent.includes("previous_user_message"), sent);
  assert.ok(!sent.includes("first question"), "the session's history was sent again inside the prompt");
  await ed.stop();
}

// --- the DEBUG trace: a command line is its length, not the command ---------------------------------------------

async function traceCommands() {
  const trace = ["--log-level", "DEBUG", "--log-file", cfg.traceLog];
  const { ed, sid } = await session({ fs: { readTextFile: true, writeTextFile: true }, terminal: true }, trace);
  const command = `echo ${cfg.secret} | wc -c`; // a token as a plain argument: no pattern of a credential
  await script(toolCall("run_command", { command }), { text: "Checked." });
  const ran = await ed.prompt(sid, "Check the deploy header");
  assert.equal(ran.stopReason, "end_turn");
  const permission = asked(ed).at(-1);
  assert.ok(JSON.stringify(permission.toolCall).includes(cfg.secret), "the user is shown the command they approve");
  const created = ed.calls.filter(([m]) => m === "terminal/create").map(([, p]) => p);
  assert.equal(created.length, 1);
  assert.ok(JSON.stringify(created[0]).includes(cfg.secret), "the client's terminal runs the command itself");
  await ed.stop();
}

// --- a block repeated back to back is cut, not streamed to its end -------------------------------------------------

const BLOCK = "    def push(self, item):\n        self.items.append(item)\n        return len(self.items)  # len\n\n";
const HEAD = "queue.py\n```python\nclass Queue:\n    def __init__(self):\n        self.items = []\n\n";

async function repeatedBlock() {
  assert.equal(BLOCK.length, 97);
  const { ed, sid } = await session({});
  // As a 0.5B model wrote it: the same 97-character block 37 times, each arriving as the model generates it.
  await script({ steps: [{ text: HEAD }, ...Array.from({ length: 37 }, () => [{ text: BLOCK }, { delay: 0.02 }]).flat(),
    { text: "```\n" }] });
  const answer = await ed.prompt(sid, "Write a queue class");
  const copies = answer.text.split(BLOCK).length - 1;
  summary.repeat = { stopReason: answer.stopReason, copies, tail: answer.text.slice(-300) };
  assert.equal(answer.stopReason, "max_tokens", `the loop ran to its end (${copies} copies shown)`);
  assert.ok(copies < 30, `${copies} copies reached the user`);
  assert.match(answer.text, /Stopped early: the model repeated/);
  const requests = (await fetch(`${cfg.fakeUrl}/_fake/requests`).then((r) => r.json())).filter((r) => r.path === "/api/chat");
  assert.equal(requests.at(-1).disconnected, true, "the model server was told to stop (the stream was closed)");
  await ed.stop();
}

// --- the server's own instructions copied back are no answer; the session is named by what the user typed --------

async function echoedInstructions() {
  const leap = path.join(cfg.workspace, "leap.py");
  fs.writeFileSync(leap, "def is_leap(year):\n    return False\n");
  const fixed = "def is_leap(year):\n    return year % 4 == 0\n";
  const { ed, sid } = await session({});
  await script({ text: cfg.echo }, { text: `leap.py\n\`\`\`python\n${fixed}\`\`\`\n` }, { text: "Done." });
  const answer = await ed.prompt(sid, "Fix is_leap in leap.py");
  summary.echo = { stopReason: answer.stopReason, text: answer.text };
  assert.equal(fs.readFileSync(leap, "utf8"), fixed, `the turn ended with the instructions as its answer: ${answer.text}`);
  const titles = answer.updates.filter((u) => u.sessionUpdate === "session_info_update" && u.title).map((u) => u.title);
  summary.titles = titles;
  assert.deepEqual(titles, ["Fix is_leap in leap.py"]);
  // A question is sent after the files it is about ("The files: …" first): still named by the question.
  const asking = (await ed.agent.request("session/new", { cwd: cfg.workspace, mcpServers: [] })).sessionId;
  await script({ text: "It says whether a year is a leap year." });
  const question = await ed.prompt(asking, "What does leap.py do?");
  assert.ok((await lastChatRequest()).messages.at(-1).content.startsWith("The files:"), "the files came first");
  summary.questionTitles = question.updates.filter((u) => u.sessionUpdate === "session_info_update" && u.title)
    .map((u) => u.title);
  const listed = (await ed.agent.request("session/list", { cwd: cfg.workspace })).sessions;
  summary.listed = listed.map((x) => x.title);
  assert.equal(listed.find((x) => x.sessionId === sid).title, "Fix is_leap in leap.py");
  assert.equal(listed.find((x) => x.sessionId === asking).title, "What does leap.py do?");
  await ed.stop();
}

const scenarios = {
  permissionKinds, thinkingOption, planMode, avanteWrapped, traceCommands, repeatedBlock, echoedInstructions,
};

try {
  await scenarios[cfg.scenario]();
  process.stdout.write(JSON.stringify(summary) + "\n");
} catch (err) {
  process.stdout.write(JSON.stringify(summary) + "\n");
  console.error(err);
  for (const ed of editors) console.error(`--- agent stderr ---\n${ed.stderr.slice(-3000)}`);
  process.exit(1);
}
