/**
 * The server's work-done progress (the built-in model's download, an index build) where the user sees it: a VS Code
 * progress notification (with Cancel when the server allows it) and a line in the chat while it runs. The language
 * client's own handler shows it only as a small status-bar entry, easy to miss during a download of 491 MB.
 */

import * as vscode from "vscode";
import {
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
  type LanguageClient,
  type ProgressToken,
} from "vscode-languageclient/node";
import { ProgressState, type ProgressValue } from "./progressState";

/** Replaces the client's handler of `window/workDoneProgress/create`: call once the client has started. `onLine`
 * gets the progress's current line, and undefined when none runs any more. */
export function showServerProgress(client: LanguageClient, onLine: (line: string | undefined) => void): vscode.Disposable {
  const running = new Map<ProgressToken, ProgressState>();
  const latest = (): void => onLine([...running.values()].at(-1)?.line);
  return client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
    const state = new ProgressState();
    let bar: vscode.Progress<{ message?: string; increment?: number }> | undefined;
    let finish: (() => void) | undefined;
    let ended = false;
    const listener = client.onProgress(WorkDoneProgress.type, token, (value: ProgressValue) => {
      const step = state.apply(value);
      if (value.kind === "begin") {
        running.set(token, state);
        const options = { location: vscode.ProgressLocation.Notification, title: `Agent Server: ${state.title}`, cancellable: value.cancellable === true };
        void vscode.window.withProgress(options, (progress, cancel) => {
          bar = progress;
          cancel.onCancellationRequested(() => void client.sendNotification(WorkDoneProgressCancelNotification.type, { token }));
          bar.report({ message: state.message, increment: step });
          return new Promise<void>((resolve) => (ended ? resolve() : (finish = resolve)));
        });
      } else if (value.kind === "report") {
        bar?.report({ message: state.message, increment: step });
      } else {
        ended = true;
        running.delete(token);
        listener.dispose();
        finish?.();
      }
      latest();
    });
  });
}
