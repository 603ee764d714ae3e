/** One work-done progress of the server ($/progress begin/report/end) as the editor shows it: a title, the latest
 * message and percentage, and the step to add to a progress bar. No `vscode` import (unit-tested). */

export interface ProgressValue {
  kind: "begin" | "report" | "end";
  title?: string;
  message?: string;
  percentage?: number;
  cancellable?: boolean;
}

export class ProgressState {
  title = "";
  message = "";
  percentage: number | undefined;
  private reported = 0;

  /** Folds one value in; returns the increment for a progress bar (VS Code's `report` adds, LSP's sets). */
  apply(value: ProgressValue): number {
    if (value.kind === "begin") this.title = value.title ?? "";
    if (value.message !== undefined) this.message = value.message;
    if (value.kind === "end") return 0;
    if (typeof value.percentage !== "number") return 0;
    const percentage = Math.max(0, Math.min(100, value.percentage));
    this.percentage = percentage;
    const step = Math.max(0, percentage - this.reported);
    this.reported += step;
    return step;
  }

  /** One line for the chat: "Downloading the built-in model qwen…: part01.bin (40/491 MB) 8%". */
  get line(): string {
    const parts = [this.title, this.message].filter(Boolean).join(": ");
    return this.percentage === undefined ? parts : `${parts} ${this.percentage}%`;
  }
}
