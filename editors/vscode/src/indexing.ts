/** "Index Workspace": start a build, wait until it is no longer building, say what got indexed (no `vscode` here). */

import type { Rpc } from "./chatController";

export interface IndexStatus {
  files: number;
  chunks: number;
  building: boolean;
}

export type IndexOutcome = { kind: "already-running" } | { kind: "done"; status: IndexStatus; message: string };

/** The line shown when a build ends, e.g. "Workspace indexed: 12 files, 40 chunks." */
export function indexDoneMessage(status: IndexStatus): string {
  if (status.files === 0) return "Indexing finished, but no files were indexed (all ignored or too large?).";
  const files = status.files === 1 ? "1 file" : `${status.files} files`;
  const chunks = status.chunks === 1 ? "1 chunk" : `${status.chunks} chunks`;
  return `Workspace indexed: ${files}, ${chunks}.`;
}

/**
 * Starts `agent/_index/start` and polls `agent/_index/status` until the build ends: the server reports the build's
 * progress as LSP work-done progress, which has no completion hook in the language client.
 */
export async function runIndex(
  rpc: () => Rpc | undefined,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  everyMs = 500,
): Promise<IndexOutcome> {
  const first = rpc();
  if (!first) throw new Error("the agent server is not running");
  const started = await first.request<{ started: boolean }>("agent/_index/start", {});
  if (!started.started) return { kind: "already-running" };
  for (;;) {
    const current = rpc();
    // A restarted server loses the build; saying so beats polling forever.
    if (!current) throw new Error("the agent server stopped while indexing");
    const status = await current.request<IndexStatus>("agent/_index/status", {});
    if (!status.building) return { kind: "done", status, message: indexDoneMessage(status) };
    await wait(everyMs);
  }
}
