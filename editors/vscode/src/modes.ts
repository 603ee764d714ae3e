/** Modes (agent profiles) in the extension: the header's label and the profile form's tool list; no `vscode`. */

import type { ModeState } from "./protocol";

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
