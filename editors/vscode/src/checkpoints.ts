/** How checkpoints are shown in the pickers and the restore confirmation; no `vscode` import (unit-tested). */

import type { Checkpoint, CheckpointFile, RestoreConflict } from "./protocol";

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

/** The turns' checkpoints, newest first (the ones kept before restores are reached by "Undo Last Restore"). */
export function newestFirst(list: Checkpoint[]): Checkpoint[] {
  return list.filter((c) => c.origin !== "restore").sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
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
    .map(
      (f) =>
        `${STATUS_MARK[f.status] ?? "?"} ${relativePath(f.path, cwd)}${f.binary ? " (binary)" : ""}` +
        (f.createdLater ? " (made after this turn: Undo Last Restore brings it back)" : ""),
    );
  if (files.length > max) lines.push(`… and ${files.length - max} more`);
  return lines.join("\n");
}

const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? "" : "s"}`;

/** "! clash.txt: changed since the turn on the same lines" per conflict an undo leaves alone. */
export function conflictSummary(conflicts: RestoreConflict[], cwd = ""): string {
  return conflicts.map((c) => `! ${relativePath(c.path, cwd)}: ${c.reason}`).join("\n");
}

/**
 * The restore confirmation's text, by the two previews (`dryRun`): "Undo only this turn" (its own changes reversed,
 * later ones kept, conflicts left) and "back to this point" (every file as before the turn, files made later deleted).
 */
export function restoreQuestion(
  c: Checkpoint,
  preview: CheckpointFile[],
  undoTurn?: { files: CheckpointFile[]; conflicts: RestoreConflict[] },
): { message: string; detail: string } {
  const n = preview.length;
  const message =
    n === 0
      ? `Restore to before “${checkpointLabel(c)}”? No file differs from the checkpoint.`
      : `Restore ${plural(n, "file")} to before “${checkpointLabel(c)}”?`;
  const later = preview.filter((f) => f.createdLater).length;
  const undo = undoTurn
    ? [
        `“Undo only this turn” reverses this turn's own changes and keeps later ones: ${plural(undoTurn.files.length, "file")}` +
          (undoTurn.conflicts.length ? `; ${plural(undoTurn.conflicts.length, "file")} changed since on the same lines stay as they are:` : "."),
        [fileSummary(undoTurn.files, 8, c.cwd), conflictSummary(undoTurn.conflicts, c.cwd)].filter(Boolean).join("\n"),
      ]
    : [];
  const detail = [
    ...undo,
    n ? `“Restore files” puts back every file as it was before the turn:\n${fileSummary(preview, 12, c.cwd)}` : "",
    later ? `${plural(later, "file")} made after this turn would be deleted; “Undo Last Restore” brings them back.` : "",
    "“Restore files and conversation” also removes this turn and every later message from the chat: the model no longer sees them. " +
      "“Undo Last Restore” brings the files back, not the messages.",
  ]
    .filter(Boolean)
    .join("\n\n");
  return { message, detail };
}

/**
 * The question of a turn's own **Undo turn…** button: it offers that one choice, so it says only what undoing the
 * turn changes (its own changes reversed, later ones kept, files changed since on the same lines left as they are).
 */
export function undoTurnQuestion(
  c: Checkpoint,
  undo: { files: CheckpointFile[]; conflicts: RestoreConflict[] },
): { message: string; detail: string } {
  const n = undo.files.length;
  const message =
    n === 0
      ? `Undo only “${checkpointLabel(c)}”? No file would change back.`
      : `Undo only “${checkpointLabel(c)}”? ${plural(n, "file")} ${n === 1 ? "changes" : "change"} back.`;
  const detail = [
    "Undo only this turn reverses this turn's own changes; changes made after it stay.",
    fileSummary(undo.files, 12, c.cwd),
    undo.conflicts.length
      ? `Changed since on the same lines, left as they are:\n${conflictSummary(undo.conflicts, c.cwd)}`
      : "",
    "“Undo Last Restore” takes it back.",
  ]
    .filter(Boolean)
    .join("\n\n");
  return { message, detail };
}

/** The confirmation of "Undo Last Restore": what taking the last restore back changes. */
export function undoRestoreQuestion(
  c: Checkpoint,
  preview: CheckpointFile[],
  conflicts: RestoreConflict[],
): { message: string; detail: string } {
  const message = preview.length
    ? `Undo the last restore? ${plural(preview.length, "file")} change back.`
    : "Undo the last restore? No file would change.";
  const detail = [
    fileSummary(preview, 12, c.cwd),
    conflicts.length ? `Changed since the restore, left as they are:\n${conflictSummary(conflicts, c.cwd)}` : "",
    "Files changed after the restore keep those changes. Undoing again redoes the restore.",
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

/** A note as a sentence: the server's notes are clauses ("outside git only …"), shown after a full stop. */
function sentence(text: string): string {
  const t = text.trim();
  if (!t) return "";
  // A leading file name ("b.txt was not restored") keeps its spelling; a leading word gets its capital.
  const word = /^[a-z]+[,:;.!?]?$/.test(t.split(/\s/)[0] ?? "");
  const capital = word ? t.charAt(0).toUpperCase() + t.slice(1) : t;
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

/** The notification after a restore: "Restored 1 file. Outside git only … ." — every sentence with a capital. */
export function restoreOutcome(
  result: { files: CheckpointFile[]; conflicts?: RestoreConflict[]; notes?: string[] },
  verb: string,
  extra: string,
): string {
  const n = result.files.length;
  const conflicts = result.conflicts ?? [];
  const parts = [sentence(`${verb} ${plural(n, "file")}${extra}`)];
  if (conflicts.length) {
    const names = conflicts.map((c) => c.path.split(/[\\/]/).pop() ?? c.path);
    parts.push(`Left as they are (changed since, on the same lines): ${names.join(", ")}.`);
  }
  parts.push(...(result.notes ?? []).map(sentence).filter(Boolean));
  return parts.join(" ");
}
