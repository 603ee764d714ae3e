/** Chips attached to a prompt -> ACP content blocks (pure; unit-tested). */

import type { Mention } from "./messages";
import { type ContentBlock, mimeTypeFor } from "./protocol";

/** Larger files go as a resource_link (the server reads what it needs) instead of filling a small window. */
export const MAX_EMBEDDED_CHARS = 60000;

export interface DiagnosticLike {
  line: number;
  severity: string;
  message: string;
  source?: string;
}

export function diagnosticsText(diagnostics: DiagnosticLike[]): string {
  if (diagnostics.length === 0) return "No problems reported.";
  return diagnostics
    .map((d) => `line ${d.line + 1}: ${d.severity.toLowerCase()}: ${d.message}${d.source ? ` (${d.source})` : ""}`)
    .join("\n");
}

function name(m: Mention): string {
  return m.kind === "file" ? m.label : decodeURIComponent(m.uri.split("/").pop() ?? m.uri);
}

export function mentionBlock(m: Mention): ContentBlock {
  if (m.text === undefined || m.text.length > MAX_EMBEDDED_CHARS) {
    return { type: "resource_link", uri: m.uri, name: name(m) };
  }
  if (m.kind === "diagnostics") {
    return { type: "resource", resource: { uri: `${m.uri}#diagnostics`, text: m.text, mimeType: "text/plain" } };
  }
  const block: ContentBlock = {
    type: "resource",
    resource: { uri: m.uri, text: m.text, mimeType: mimeTypeFor(m.languageId ?? "") },
  };
  if (m.kind === "selection" && m.range) block._meta = { range: m.range };
  return block;
}

/** The "@query" being typed just before the caret, or undefined (an @ inside a word, e.g. an e-mail, is not one). */
export function mentionQuery(text: string, caret: number): { start: number; query: string } | undefined {
  const before = text.slice(0, caret);
  const m = /(^|\s)@([\w./:-]*)$/.exec(before); // `:` for MCP resources (`@docs:readme`)
  if (!m) return undefined;
  const query = m[2] ?? "";
  return { start: caret - query.length - 1, query };
}
