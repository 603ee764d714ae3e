/** How checkpoints are shown in the pickers and the restore confirmation; no `vscode` import (unit-tested). */

import type { Checkpoint, CheckpointFile } from "./protocol";

const STATUS_MARK: Record<string, string> = { added: "A", deleted: "D", modified: "M" };

/** One line of a prompt, shortened: the label of a checkpoint in a quick pick. */
export function checkpointLabel(c: Checkpoint): string {
  const first = (c.prompt ?? "").trim().split("\n")[0] ?? "";
  if (!first) return "(turn without a prompt)";
  return first.length > 80 ? `${first.slice(0, 79)}…` : first;
}

/** "before this turn · 14:02:11 · git snapshot", with "incomplete" when the turn never finished. */
export function checkpointDescription(c: Checkpoint, locale?: string): string {
  const when = new Date(c.createdAt);
  const time = Number.isNaN(when.getTime()) ? c.createdAt : when.toLocaleString(locale);
  const parts = [time, c.kind === "git" ? "git snapshot" : c.kind === "files" ? "file copies" : c.kind];
  if (!c.complete) parts.push("turn not finished");
  return parts.join(" · ");
}

/** Newest first: the turn the user most likely wants is the last one. */
export function newestFirst(list: Checkpoint[]): Checkpoint[] {
  return [...list].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
}

/** A checkpoint's path as the user knows it: relative to the checkpoint's workspace when inside it. */
export function relativePath(file: string, cwd: string): string {
  const root = cwd.replace(/[\\/]+$/, "");
  return root && (file.startsWith(`${root}/`) || file.startsWith(`${root}\\`)) ? file.slice(root.length + 1) : file;
}

/** "M calc.py" per line, for the restore confirmation (at most `max` lines, then "… and N more"). */
export function fileSummary(files: CheckpointFile[], max = 12, cwd = ""): string {
  const lines = files
    .slice(0, max)
    .map((f) => `${STATUS_MARK[f.status] ?? "?"} ${relativePath(f.path, cwd)}${f.binary ? " (binary)" : ""}`);
  if (files.length > max) lines.push(`… and ${files.length - max} more`);
  return lines.join("\n");
}

/** The restore confirmation's text: what a restore would change, by the preview (`dryRun`). */
export function restoreQuestion(c: Checkpoint, preview: CheckpointFile[]): { message: string; detail: string } {
  const n = preview.length;
  const message =
    n === 0
      ? `Restore to before “${checkpointLabel(c)}”? No file differs from the checkpoint.`
      : `Restore ${n} file${n === 1 ? "" : "s"} to before “${checkpointLabel(c)}”?`;
  const detail = [
    n ? fileSummary(preview, 12, c.cwd) : "",
    "“Restore files and conversation” also removes this turn and every later message from the chat: the model no longer sees them.",
  ]
    .filter(Boolean)
    .join("\n\n");
  return { message, detail };
}

/**
 * The checkpoint of the turn whose prompt is `prompt` (a transcript bubble's Review / Restore buttons): the newest
 * with exactly that prompt, else the newest whose prompt contains it (a prompt with attachments stores more text).
 */
export function checkpointForPrompt(list: Checkpoint[], prompt: string): Checkpoint | undefined {
  const wanted = prompt.trim();
  if (!wanted) return undefined;
  const sorted = newestFirst(list);
  return (
    sorted.find((c) => (c.prompt ?? "").trim() === wanted) ?? sorted.find((c) => (c.prompt ?? "").includes(wanted))
  );
}
