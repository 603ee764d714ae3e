/**
 * The server's work-done progress (the built-in model's download, an index build) where the user sees it: a line in
 * the chat from the start and, once it has lasted NOTIFY_AFTER_MS, a VS Code progress notification (with Cancel when
 * the server allows it). The language client's own handler shows it only as a small status-bar entry, easy to miss
 * during a download of 491 MB; a short refresh of the index at start-up stays quiet.
 */

import * as vscode from "vscode";
import {
  State,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
  type LanguageClient,
  type ProgressToken,
} from "vscode-languageclient/node";
import { ProgressState, type ProgressValue } from "./progressState";

const NOTIFY_AFTER_MS = 1500;

/** One progress as a notification that may open late and must close however the progress ends. */
class Shown {
  private bar: vscode.Progress<{ message?: string; increment?: number }> | undefined;
  private close: (() => void) | undefined;
  private closed = false;
  private pending = 0; // the bar's steps before the notification opened
  private readonly timer: ReturnType<typeof setTimeout>;

  constructor(
    readonly state: ProgressState,
    cancellable: boolean,
    onCancel: () => void,
  ) {
    this.timer = setTimeout(() => {
      const options = { location: vscode.ProgressLocation.Notification, title: `Agent Server: ${state.title}`, cancellable };
      void vscode.window.withProgress(options, (progress, cancel) => {
        if (this.closed) return Promise.resolve();
        this.bar = progress;
        cancel.onCancellationRequested(onCancel);
        progress.report({ message: state.message, increment: this.pending });
        return new Promise<void>((resolve) => (this.close = resolve));
      });
    }, NOTIFY_AFTER_MS);
  }

  step(increment: number): void {
    if (this.bar) this.bar.report({ message: this.state.message, increment });
    else this.pending += increment;
  }

  end(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.close?.();
  }
}

/** Replaces the client's handler of `window/workDoneProgress/create`: call once the client has started. `onLine`
 * gets the latest progress's line, and undefined when none runs any more. */
export function showServerProgress(client: LanguageClient, onLine: (line: string | undefined) => void): vscode.Disposable {
  const running = new Map<ProgressToken, Shown>();
  const latest = (): void => onLine([...running.values()].at(-1)?.state.line);
  // A server that stops (a restart, a crash) ends nothing: its notifications close with it.
  const stopped = client.onDidChangeState((e) => {
    if (e.newState !== State.Stopped) return;
    for (const shown of running.values()) shown.end();
    running.clear();
    latest();
  });
  const created = client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
    const state = new ProgressState();
    const listener = client.onProgress(WorkDoneProgress.type, token, (value: ProgressValue) => {
      const step = state.apply(value);
      if (value.kind === "begin") {
        const cancel = (): void => void client.sendNotification(WorkDoneProgressCancelNotification.type, { token });
        running.set(token, new Shown(state, value.cancellable === true, cancel));
        running.get(token)?.step(step);
      } else if (value.kind === "report") {
        running.get(token)?.step(step);
      } else {
        running.get(token)?.end();
        running.delete(token);
        listener.dispose();
      }
      latest();
    });
  });
  return vscode.Disposable.from(stopped, created);
}
