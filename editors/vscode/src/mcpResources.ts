/** MCP resources in the composer (pure; unit-tested): the server lists the session's resources and templates
 * (`agent/_resources/list`); `@` completion offers them beside files as `@server:uri` text, which the server reads
 * through the MCP session when the prompt is sent. A template's `{name}` parts are typed over by the user. */

export interface McpResource {
  mention: string;
  name: string;
  description: string;
  template: boolean;
  arguments: string[];
}

/** Resources whose mention or name contains the query (case-insensitive); at most 20. */
export function matchResources(resources: McpResource[], query: string): McpResource[] {
  const q = query.toLowerCase();
  return resources.filter((r) => r.mention.toLowerCase().includes(q) || r.name.toLowerCase().includes(q)).slice(0, 20);
}

/** "@docs:docs://readme — The project's readme." for the completion list. */
export function resourceLabel(r: McpResource): string {
  return `@${r.mention}${r.description ? ` — ${r.description}` : ""}`;
}

/** The first `{argument}` of a template mention, to select after inserting it: [start, end) in `text`. */
export function firstArgument(text: string, from: number): [number, number] | undefined {
  const m = /\{[^{}]+\}/.exec(text.slice(from));
  return m ? [from + m.index, from + m.index + m[0].length] : undefined;
}
