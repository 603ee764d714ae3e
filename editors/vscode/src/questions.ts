/** The server's questions (window/showMessageRequest). One with details (more than one line, such as the
 * workspace-trust question: its first line asks, the rest lists the programs, URLs and rules at stake) is a modal
 * dialog that stays until answered, the details under the question; a one-line question stays a notification. */

import * as vscode from "vscode";

export interface ShowMessageRequestParams {
  type: number;
  message: string;
  actions?: { title: string }[];
}

const ERROR = 1;
const WARNING = 2;

/** Splits a question into what is asked and its details; `undefined` details for a one-line question. */
export function splitQuestion(message: string): { ask: string; detail?: string } {
  const [ask = "", ...rest] = message.split("\n");
  const detail = rest.join("\n").trim();
  return detail ? { ask, detail } : { ask };
}

export async function showMessageRequest(params: ShowMessageRequestParams): Promise<{ title: string } | null> {
  const actions = params.actions ?? [];
  const { ask, detail } = splitQuestion(params.message);
  if (detail !== undefined) {
    const choice = await vscode.window.showWarningMessage(ask, { modal: true, detail }, ...actions);
    return choice ?? null; // the dialog's own Cancel: no answer (the server takes it as "Not now")
  }
  const show =
    params.type === ERROR
      ? vscode.window.showErrorMessage
      : params.type === WARNING
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  return (await show(params.message, ...actions)) ?? null;
}
