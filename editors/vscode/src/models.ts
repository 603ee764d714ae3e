/** How a model is described in the pickers: context length and capabilities, when the server knows them. */

import type { ModelEntry } from "./protocol";

export function contextLabel(tokens: number): string {
  return tokens >= 1024 ? `${Math.round(tokens / 1024)}k` : String(tokens);
}

/** e.g. "32k context · tools · thinking · vision"; empty when nothing is known. */
export function modelDescription(m: ModelEntry): string {
  const parts: string[] = [];
  if (m.contextLength) parts.push(`${contextLabel(m.contextLength)} context`);
  if (m.tools) parts.push("tools");
  if (m.tools === false) parts.push("no tools");
  if (m.thinking) parts.push("thinking");
  if (m.vision) parts.push("vision");
  return parts.join(" · ");
}
