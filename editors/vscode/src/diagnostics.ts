/**
 * Answers the server's `agent/_diagnostics` request (docs/protocol.md): one file's diagnostics from every language
 * server VS Code runs (`vscode.languages.getDiagnostics`), in LSP shape. With `after`, the answer waits until the
 * file's diagnostics changed since that generation and then stayed quiet for a moment (language servers publish in
 * bursts), bounded by `timeoutMs`, so the server can tell which errors an edit introduced.
 */

import * as vscode from "vscode";

export const DIAGNOSTICS_METHOD = "agent/_diagnostics";
const QUIET_MS = 400; // no further change for this long: the language servers have settled
const MAX_WAIT_MS = 15_000;

export interface DiagnosticsParams {
  uri: string;
  after?: number;
  timeoutMs?: number;
}

interface LspDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  message: string;
  severity: number;
  source?: string;
  code?: string | number;
}

function toLsp(d: vscode.Diagnostic): LspDiagnostic {
  const code = typeof d.code === "object" && d.code !== null ? d.code.value : d.code;
  return {
    range: {
      start: { line: d.range.start.line, character: d.range.start.character },
      end: { line: d.range.end.line, character: d.range.end.character },
    },
    message: d.message,
    severity: d.severity + 1, // vscode: Error = 0 ... Hint = 3; LSP: 1 ... 4
    ...(d.source ? { source: d.source } : {}),
    ...(code !== undefined ? { code } : {}),
  };
}

class DiagnosticsWatch implements vscode.Disposable {
  private readonly generations = new Map<string, { count: number; at: number }>();
  private readonly waiters = new Set<() => void>();
  private readonly listener: vscode.Disposable;

  constructor() {
    this.listener = vscode.languages.onDidChangeDiagnostics((e) => {
      const now = Date.now();
      for (const uri of e.uris) {
        const key = uri.toString();
        this.generations.set(key, { count: (this.generations.get(key)?.count ?? 0) + 1, at: now });
      }
      for (const wake of [...this.waiters]) wake();
    });
  }

  async answer(params: DiagnosticsParams): Promise<{ diagnostics: LspDiagnostic[]; generation: number }> {
    const uri = vscode.Uri.parse(params.uri);
    const key = uri.toString();
    if (params.after !== undefined) {
      const timeout = Math.min(Math.max(params.timeoutMs ?? 3000, 0), MAX_WAIT_MS);
      await this.settle(key, params.after, Date.now() + timeout);
    }
    return {
      diagnostics: vscode.languages.getDiagnostics(uri).map(toLsp),
      generation: this.generations.get(key)?.count ?? 0,
    };
  }

  /** Resolves once generation > after and QUIET_MS passed without a change, or at the deadline. */
  private settle(key: string, after: number, deadline: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const check = (): void => {
        if (timer) clearTimeout(timer);
        const now = Date.now();
        const seen = this.generations.get(key);
        if (now >= deadline) return done();
        if (seen && seen.count > after) {
          const quietFor = now - seen.at;
          if (quietFor >= QUIET_MS) return done();
          timer = setTimeout(check, Math.min(QUIET_MS - quietFor, deadline - now));
        } else {
          timer = setTimeout(check, deadline - now);
        }
      };
      const done = (): void => {
        if (timer) clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
      check();
    });
  }

  dispose(): void {
    this.listener.dispose();
    for (const wake of [...this.waiters]) wake();
  }
}

let watch: DiagnosticsWatch | undefined;

/** The one watch for the extension's lifetime (it must see changes before the server asks). */
export function diagnosticsWatch(): DiagnosticsWatch {
  watch ??= new DiagnosticsWatch();
  return watch;
}
