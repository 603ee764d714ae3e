import assert from "node:assert/strict";
import { test } from "node:test";
import type { Rpc } from "../src/chatController";
import { indexDoneMessage, runIndex, type IndexStatus } from "../src/indexing";

/** A server whose build reports `building` for the first `polls` status requests. */
function server(started: boolean, polls: number, done: IndexStatus): Rpc & { calls: string[] } {
  let left = polls;
  const calls: string[] = [];
  return {
    calls,
    async request<T>(method: string): Promise<T> {
      calls.push(method);
      if (method === "agent/_index/start") return { started } as T;
      if (method === "agent/_index/status") return (left-- > 0 ? { ...done, building: true } : done) as T;
      throw new Error(`Method Not Found: ${method}`);
    },
    notify() {},
  };
}

const noWait = async (): Promise<void> => undefined;

test("waits until the build ends and reports the files and chunks indexed", async () => {
  const rpc = server(true, 3, { files: 12, chunks: 40, building: false });
  const outcome = await runIndex(() => rpc, noWait);
  assert.deepEqual(outcome, {
    kind: "done",
    status: { files: 12, chunks: 40, building: false },
    message: "Workspace indexed: 12 files, 40 chunks.",
  });
  assert.equal(rpc.calls.filter((m) => m === "agent/_index/status").length, 4);
});

test("a build already running is reported, not waited for twice", async () => {
  const rpc = server(false, 0, { files: 1, chunks: 1, building: false });
  assert.deepEqual(await runIndex(() => rpc, noWait), { kind: "already-running" });
  assert.deepEqual(rpc.calls, ["agent/_index/start"]);
});

test("a server that stops mid-build ends the wait with an error", async () => {
  const rpc = server(true, 100, { files: 1, chunks: 1, building: false });
  let polls = 0;
  const going = () => (polls++ < 3 ? rpc : undefined);
  await assert.rejects(runIndex(going, noWait), /stopped while indexing/);
});

test("no server: a clear error instead of a silent no-op", async () => {
  await assert.rejects(runIndex(() => undefined, noWait), /not running/);
});

test("the done message is singular for one file and says so when nothing was indexed", () => {
  assert.equal(indexDoneMessage({ files: 1, chunks: 1, building: false }), "Workspace indexed: 1 file, 1 chunk.");
  assert.match(indexDoneMessage({ files: 0, chunks: 0, building: false }), /no files were indexed/);
});
