/** Slash commands in the composer (pure; unit-tested): the server lists them (`agent/_commands/list`: prompt files
 * and MCP prompts), the composer completes `/name` at the start of a prompt, and the server expands it on send. */

export interface SlashCommand {
  name: string;
  description: string;
  hint?: string | null;
  source: string;
}

/** The "/query" being typed at the very start of the prompt, caret right after it; undefined otherwise. */
export function commandQuery(text: string, caret: number): { query: string } | undefined {
  const m = /^\/([\w.:-]*)$/.exec(text.slice(0, caret));
  return m ? { query: m[1] ?? "" } : undefined;
}

/** Names starting with the query first, then names containing it; at most 50. */
export function matchCommands(commands: SlashCommand[], query: string): SlashCommand[] {
  const q = query.toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(q));
  const contains = commands.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q));
  return [...starts, ...contains].slice(0, 50);
}

/** "/review <file> — Review a file" for the completion list. */
export function commandLabel(c: SlashCommand): string {
  return `/${c.name}${c.hint ? ` ${c.hint}` : ""} — ${c.description}`;
}
