/** The buttons of a modal question from the server (questions.ts); no `vscode` import (unit-tested). */

const GRANTS = /^(trust|allow|always allow|yes)\b/i;

/** The buttons of a modal question: the first action as the close button, a granting one never the Enter default. */
export function modalButtons(actions: { title: string }[]): { title: string; isCloseAffordance?: boolean }[] {
  const [dismiss, ...rest] = actions;
  if (!dismiss) return [];
  const safeFirst = rest.findIndex((a) => !GRANTS.test(a.title));
  // Only granting choices besides the dismissal: it stays the first button (Enter), beside VS Code's Cancel.
  if (safeFirst < 0 && rest.length) return actions.map((a) => ({ title: a.title }));
  const ordered = safeFirst > 0 ? [rest[safeFirst]!, ...rest.filter((_, i) => i !== safeFirst)] : rest;
  return [...ordered.map((a) => ({ title: a.title })), { title: dismiss.title, isCloseAffordance: true }];
}
