/** The server's questions (window/showMessageRequest). One with details (more than one line, such as the
 * workspace-trust question: its first line asks, the rest lists the programs, URLs and rules at stake) is a modal
 * dialog that stays until answered, the details under the question; a one-line question stays a notification.
 *
 * In the modal, the server's first action (what no answer means, "Not now") is the dialog's own close button:
 * Escape and ✕ pick it, and VS Code adds no "Cancel" beside it. VS Code's Enter then picks the first of the other
 * buttons, so one that grants something (Trust…, Allow…) is never put first: a question that opens while the user
 * types must not be answered yes by a stray Enter. */

import * as vscode from "vscode";
import { modalButtons } from "./modalButtons";

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
    const choice = await vscode.window.showWarningMessage(ask, { modal: true, detail }, ...modalButtons(actions));
    return choice ? { title: choice.title } : null; // closed: the first action, or no answer (both "Not now")
  }
  const show =
    params.type === ERROR
      ? vscode.window.showErrorMessage
      : params.type === WARNING
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  return (await show(params.message, ...actions)) ?? null;
}
