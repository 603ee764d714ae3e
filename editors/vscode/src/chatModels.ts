/** The chat's model list (the header's picker, "Pick Model"): asked of the server, a failure said once. No `vscode`
 * import (unit-tested through the controller). */

import type { ToWebview } from "./messages";
import type { ModelsList } from "./protocol";
import type { Rpc } from "./chatPorts";

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class ChatModels {
  list: ModelsList | undefined;
  /** The last "Models unavailable" said: the same failure is not said again until the list comes back. */
  private problem: string | undefined;

  constructor(private readonly broadcast: (m: ToWebview) => void) {}

  /** Asked at the start, when the chat opens and when the picker is opened: a failure is said once, not each time. */
  async refresh(rpc: Rpc | undefined): Promise<void> {
    if (!rpc) return;
    try {
      this.list = await rpc.request<ModelsList>("agent/_models/list", {});
      this.problem = undefined;
      this.broadcast({ type: "models", list: this.list });
    } catch (err) {
      const problem = `Models unavailable: ${errorMessage(err)}`;
      if (problem === this.problem) return;
      this.problem = problem;
      this.broadcast({ type: "notice", message: problem });
    }
  }

  /** The model of the next prompts; throws the server's refusal. */
  async select(rpc: Rpc, model: string): Promise<void> {
    const result = await rpc.request<{ current: string }>("agent/_models/select", { model });
    this.list = { current: result.current, models: this.list?.models ?? [] };
    this.broadcast({ type: "models", list: this.list });
  }
}
