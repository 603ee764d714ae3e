/** What the completion status-bar item shows (pure, so it is unit-tested without VS Code). */

export interface CompletionStatus {
  enabled: boolean;
  supported: boolean | null;
  reason?: string;
  backend?: string | null;
}

/** The status-bar text and tooltip for a state (pure: unit-tested). */
export function statusLabel(enabled: boolean, status: CompletionStatus | undefined): { text: string; tooltip: string } {
  if (!enabled) return { text: "$(circle-slash) Completion", tooltip: "Agent Server inline completion is off. Click to turn it on." };
  if (status && status.supported === false) {
    return { text: "$(warning) Completion", tooltip: `Inline completion cannot run: ${status.reason ?? "unknown reason"}. Click to turn it off.` };
  }
  const via = status?.backend ? ` (${status.backend})` : "";
  return { text: "$(sparkle) Completion", tooltip: `Agent Server inline completion is on${via}. Click to turn it off.` };
}
