/** Modes (agent profiles) in the extension: the header's label and the profile form's tool list; no `vscode`. */

import type { ModeState, SessionMode } from "./protocol";

/** One entry of `agent/_agents/list`. */
export interface AgentProfileInfo {
  name: string;
  description?: string | null;
  scope?: string;
  path?: string | null;
  readOnly?: boolean;
}

/** "code-review" → "Code Review", as the server names modes. */
function displayName(id: string): string {
  return id
    .split("-")
    .map((w) => (w ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join(" ");
}

/**
 * The session's modes with the profiles on disk now (a profile created or deleted since the session started):
 * the session's order and names first, new profiles after them, vanished ones dropped.
 */
export function mergeProfiles(modes: ModeState, agents: AgentProfileInfo[]): ModeState {
  const onDisk = new Map(agents.map((a) => [a.name, a]));
  const kept = modes.availableModes.filter((m) => onDisk.has(m.id) || m.id === modes.currentModeId);
  const known = new Set(kept.map((m) => m.id));
  const added: SessionMode[] = agents
    .filter((a) => !known.has(a.name))
    .map((a) => ({ id: a.name, name: displayName(a.name), description: a.description ?? null }));
  return { currentModeId: modes.currentModeId, availableModes: [...kept, ...added] };
}

/** The header's mode label: the current mode's display name (its id if the server did not list it). */
export function modeLabel(modes: ModeState | undefined): string | undefined {
  if (!modes) return undefined;
  return modes.availableModes.find((m) => m.id === modes.currentModeId)?.name ?? modes.currentModeId;
}

/** The built-in tools a new profile may allow (MCP tools are added in the file as `server__*`). */
export const BUILTIN_TOOLS = [
  "read_file",
  "list_directory",
  "find_files",
  "search_text",
  "codebase_search",
  "write_file",
  "edit_file",
  "run_command",
  "read_output",
  "update_plan",
  "ask_question",
  "task_completion",
] as const;

/** A profile name the server accepts as a file name: lowercase letters, digits and dashes. */
export function profileNameProblem(name: string): string | undefined {
  if (!name.trim()) return "A name is needed.";
  if (!/^[a-z0-9][a-z0-9_-]{0,39}$/.test(name.trim())) {
    return "Use up to 40 lowercase letters, digits, dashes and underscores (e.g. reviewer).";
  }
  return undefined;
}
