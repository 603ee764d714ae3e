// The official ACP TypeScript SDK (@agentclientprotocol/sdk) as a real client of `agent-server acp`: one agent
// process, one SDK client over an ndjson stream, and what an editor does for the agent (buffers, files, terminals,
// permission answers). Shared by driver.mjs (whole sessions) and rough_edges.mjs (one behaviour per run).
//
// cfg = {agent: [argv...], env: {...}, fakeUrl, workspace, wireLog}: every line on the wire (both directions) is
// appended to wireLog as {"dir": "client->agent" | "agent->client", "line": "..."}.

import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import { Readable, Writable } from "node:stream";

// --- the fake LLM (tests/fakes/fake_llm.py, scripted over its /_fake/ routes) -------------------------------

export function fakeLLM(fakeUrl) {
  async function chatRequests() {
    const all = await (await fetch(`${fakeUrl}/_fake/requests`)).json();
    return all.filter((r) => r.path === "/api/chat");
  }
  return {
    async script(...replies) {
      const res = await fetch(`${fakeUrl}/_fake/script`, { method: "POST", body: JSON.stringify(replies) });
      assert.equal(res.status, 200);
    },
    chatRequests,
    async chatCount() {
      return (await chatRequests()).length;
    },
    async lastChatRequest() {
      const chats = await chatRequests();
      return chats[chats.length - 1].json;
    },
  };
}

export const toolCall = (name, args) => ({ steps: [{ tool_calls: [{ name, arguments: args }] }] });

// --- one agent process with one SDK client ---------------------------------------------------------------

function lineTap(wireLog, dir) {
  const decoder = new TextDecoder();
  let pending = "";
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      let at;
      while ((at = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, at);
        pending = pending.slice(at + 1);
        if (line.trim()) fs.appendFileSync(wireLog, JSON.stringify({ dir, line }) + "\n");
      }
      controller.enqueue(chunk);
    },
  });
}

export class Editor {
  // What a real ACP client does for the agent: buffers, files, terminals, permission answers.
  constructor(cfg, capabilities) {
    this.cfg = cfg;
    this.capabilities = capabilities;
    this.buffers = new Map(); // path -> unsaved text
    this.calls = []; // [method, params] of every request the agent made
    this.updates = []; // every session/update params
    this.terminals = new Map();
    this.nextTerminal = 1;
    this.answerPermission = () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });
    this.answerElicitation = () => ({ action: "decline" });
    this.dropFinalNewline = false; // avante hands a buffer over as lines: no final newline, LF only
    this.extraArgs = [];
    this.extraEnv = {};
  }

  async start() {
    const cfg = this.cfg;
    const [cmd, ...args] = cfg.agent;
    this.proc = spawn(cmd, [...args, ...this.extraArgs], {
      env: { ...process.env, ...cfg.env, ...this.extraEnv },
      cwd: cfg.workspace,
      stdio: "pipe",
    });
    this.stderr = "";
    this.proc.stderr.on("data", (d) => (this.stderr += d));
    const toAgent = lineTap(cfg.wireLog, "client->agent");
    toAgent.readable.pipeTo(Writable.toWeb(this.proc.stdin)).catch(() => {});
    const fromAgent = Readable.toWeb(this.proc.stdout).pipeThrough(lineTap(cfg.wireLog, "agent->client"));
    const app = acp.client({ name: "acp-e2e-driver" });
    const record = (method, handler) =>
      app.onRequest(method, async (cx) => {
        this.calls.push([method, cx.params]);
        return handler(cx.params);
      });
    record("session/request_permission", async (p) => this.answerPermission(p));
    record("fs/read_text_file", async (p) => {
      const text = this.buffers.has(p.path) ? this.buffers.get(p.path) : fs.readFileSync(p.path, "utf8");
      return { content: this.dropFinalNewline ? text.replace(/\r\n/g, "\n").replace(/\n$/, "") : text };
    });
    record("elicitation/create", async (p) => this.answerElicitation(p));
    record("fs/write_text_file", async (p) => {
      // An editor writes its buffer and saves it.
      this.buffers.delete(p.path);
      fs.writeFileSync(p.path, p.content);
      return {};
    });
    record("terminal/create", async (p) => this.createTerminal(p));
    record("terminal/output", async (p) => this.terminalOutput(p.terminalId));
    record("terminal/wait_for_exit", async (p) => this.terminals.get(p.terminalId).exited);
    record("terminal/kill", async (p) => {
      this.terminals.get(p.terminalId).proc.kill("SIGKILL");
      return {};
    });
    record("terminal/release", async (p) => {
      const t = this.terminals.get(p.terminalId);
      if (t.status === null) t.proc.kill("SIGKILL");
      this.terminals.delete(p.terminalId);
      return {};
    });
    app.onNotification("session/update", async (cx) => {
      this.updates.push(cx.params);
    });
    this.conn = app.connect(acp.ndJsonStream(toAgent.writable, fromAgent));
    this.agent = this.conn.agent;
  }

  createTerminal(p) {
    const id = `term-${this.nextTerminal++}`;
    const env = Object.fromEntries((p.env || []).map((e) => [e.name, e.value]));
    const proc = spawn(p.command, p.args || [], { cwd: p.cwd, env: { ...process.env, ...env } });
    const t = { proc, output: "", status: null, limit: p.outputByteLimit };
    const take = (d) => (t.output += d);
    proc.stdout.on("data", take);
    proc.stderr.on("data", take);
    t.exited = new Promise((resolve) =>
      proc.on("close", (code, signal) => {
        t.status = { exitCode: code, signal };
        resolve(t.status);
      }),
    );
    this.terminals.set(id, t);
    return { terminalId: id };
  }

  terminalOutput(id) {
    const t = this.terminals.get(id);
    let output = t.output;
    const truncated = t.limit != null && Buffer.byteLength(output) > t.limit;
    if (truncated) output = Buffer.from(output).subarray(-t.limit).toString();
    return t.status ? { output, truncated, exitStatus: t.status } : { output, truncated };
  }

  updatesOf(sessionId, from = 0) {
    return this.updates.slice(from).filter((u) => u.sessionId === sessionId).map((u) => u.update);
  }

  methods() {
    return this.calls.map(([m]) => m);
  }

  async initialize() {
    const result = await this.agent.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: this.capabilities,
      clientInfo: { name: "acp-e2e-driver", version: "1.0.0" },
    });
    assert.equal(result.protocolVersion, 1);
    return result;
  }

  // A prompt turn: returns {stopReason, text, updates} (updates of this turn only). `text` or a list of blocks.
  async prompt(sessionId, text) {
    const from = this.updates.length;
    const response = await this.agent.request("session/prompt", {
      sessionId,
      prompt: typeof text === "string" ? [{ type: "text", text }] : text,
    });
    await new Promise((r) => setTimeout(r, 50)); // notifications sent just before the answer
    const updates = this.updatesOf(sessionId, from);
    const text_ = updates
      .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
      .map((u) => u.content.text)
      .join("");
    return { stopReason: response.stopReason, text: text_, updates };
  }

  async stop() {
    this.proc.stdin.end();
    await new Promise((resolve) => {
      if (this.proc.exitCode !== null) resolve();
      else this.proc.on("exit", resolve);
    });
  }
}

export async function waitFor(predicate, what, ms = 20000) {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
