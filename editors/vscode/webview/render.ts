/** Transcript items to HTML strings: markdown (marked, raw HTML escaped), highlighted code, tool cards, diffs. */

import { Marked, type Tokens } from "marked";
import type { ToolContent } from "../src/protocol";
import { diffLines, withContext } from "./diff";
import { escapeHtml } from "./escape";
import { highlight } from "./highlight";
import { formatUsage, type Item, type ToolCard } from "./transcript";

const SAFE_URL = /^(https?:|mailto:|file:|vscode:|#)/i;

const markdown = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }: Tokens.Code): string {
      const language = (lang ?? "").trim().split(/\s+/)[0] ?? "";
      return (
        `<div class="code-block"><div class="code-head"><span class="code-lang">${escapeHtml(language)}</span>` +
        `<button class="insert" type="button" title="Insert at the cursor (replaces the selection)">Insert</button>` +
        `<button class="apply" type="button" title="Apply to the active file (shows the diff first)">Apply</button>` +
        `<button class="copy" type="button" title="Copy code">Copy</button></div>` +
        `<pre><code data-lang="${escapeHtml(language)}">${highlight(text, language)}</code></pre></div>`
      );
    },
    // Model output is untrusted: HTML it writes is shown as text, never parsed.
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(text);
    },
    link({ href, title, tokens }: Tokens.Link): string {
      const inner = this.parser.parseInline(tokens);
      if (!SAFE_URL.test(href)) return inner;
      const t = title ? ` title="${escapeHtml(title)}"` : "";
      return `<a href="${escapeHtml(href)}"${t}>${inner}</a>`;
    },
    image({ text }: Tokens.Image): string {
      return escapeHtml(text ? `[image: ${text}]` : "[image]");
    },
  },
});

export function renderMarkdown(text: string): string {
  return markdown.parse(text, { async: false });
}

const STATUS_LABEL: Record<string, string> = {
  pending: "pending",
  in_progress: "running",
  completed: "done",
  failed: "failed",
  rejected: "rejected",
  stopped: "stopped",
};

let workspaceRoot = "";

/** The workspace folder the card paths are shown relative to. */
export function setWorkspaceRoot(root: string): void {
  workspaceRoot = root.replace(/\/+$/, "");
}

/** `src/app.py` for a path inside the workspace, the path itself otherwise. */
export function relativePath(path: string, root = workspaceRoot): string {
  if (root && path.startsWith(`${root}/`)) return path.slice(root.length + 1);
  if (root && path === root) return ".";
  return path;
}

/** The status a card shows: a call that was not allowed is "rejected", one the user stopped "stopped", not "failed". */
export function cardStatus(card: ToolCard): string {
  return card.rejected ? "rejected" : card.stopped ? "stopped" : card.status;
}

const DECISION_LABEL: Record<string, string> = {
  allow_once: "Allowed once",
  allow_session: "Allowed for this session",
  allow_always: "Always allowed",
  reject_once: "Rejected",
  reject_always: "Always rejected",
  cancelled: "Not answered: the turn was stopped before you chose",
};

/**
 * The note an edit's result ends with when it introduced errors (tools/diagnostics.py: the editor's diagnostics or
 * a `tools.lint` command): shown on the card, not folded away with the rest of the result.
 */
const NEW_PROBLEMS = /\n*((?:The editor reports \d+ new errors? after this change|`[^`\n]+` reports new problems after this change); fix them:)\n((?:[^\n]+\n?)+)/;

/** A result's text without its new-problems note, and the note's head and lines. */
export function splitProblems(text: string): { rest: string; problems?: { head: string; lines: string } } {
  const m = NEW_PROBLEMS.exec(text);
  if (!m) return { rest: text };
  const rest = (text.slice(0, m.index) + text.slice(m.index + m[0].length)).trim();
  return { rest, problems: { head: m[1]!.replace(/; fix them:$/, ""), lines: m[2]!.trimEnd() } };
}

/** Status lines of the server's own progress in the thought stream (turn/prefill_status.py): shown, not folded. */
const PROGRESS_LINE = /\n?\[agent-server: ((?:reading the prompt|waiting for the model)[^\]\n]*)(?:\]|$)\n?/g;

/** A thought's text apart from the server's progress lines (shown as they are). */
export function splitProgress(text: string): { progress: string[]; thinking: string } {
  const progress = [...text.matchAll(PROGRESS_LINE)].map((m) => m[1]!.trim());
  return { progress, thinking: text.replace(PROGRESS_LINE, "\n").trim() };
}

function renderInput(input: unknown): string {
  if (input === undefined || input === null) return "";
  const text = typeof input === "string" ? input : JSON.stringify(input, null, 2);
  return `<details class="tool-input" data-key="input"><summary>Input</summary><pre>${escapeHtml(text)}</pre></details>`;
}

export function renderDiff(path: string, oldText: string, newText: string, index = -1, edited = false): string {
  const lines = withContext(diffLines(oldText, newText));
  const added = lines.filter((l) => l.op === "+").length;
  const removed = lines.filter((l) => l.op === "-").length;
  const body = lines
    .map((l) => {
      const cls = l.op === "+" ? "add" : l.op === "-" ? "del" : l.op === "…" ? "skip" : "ctx";
      const mark = l.op === "…" ? "" : l.op;
      return `<span class="diff-line ${cls}">${escapeHtml(mark + (l.op === "…" ? "… " : "") + l.text)}</span>`;
    })
    .join("");
  return (
    `<div class="diff"><div class="diff-head">` +
    `<a class="diff-path" href="#" data-open="${escapeHtml(path)}" title="Open ${escapeHtml(path)}">${escapeHtml(relativePath(path))}</a>` +
    `<span class="diff-stat"><span class="add">+${added}</span> <span class="del">-${removed}</span></span>` +
    (edited ? `<span class="diff-edited" title="The proposal as you edited it in the review diff">your version</span>` : "") +
    (index >= 0 ? `<button type="button" class="open-diff" data-diff="${index}" title="Open in the diff editor">Open diff</button>` : "") +
    `</div>` +
    `<pre>${body}</pre></div>`
  );
}

function renderContent(card: ToolCard): string {
  return card.content
    .map((c, i) => {
      if (c.type === "diff") return renderDiff(c.path, c.oldText ?? "", c.newText, i, card.edited === true && !!card.permission);
      // The model-facing "Error: The user declined…" says nothing the rejection line does not; nor does "cancelled".
      if (card.rejected || card.stopped) return "";
      if (c.type === "content" && c.content?.type === "text" && c.content.text && card.permission) {
        // A command's preview is drawn from rawInput (renderCommand); other tools' previews are shown as sent.
        return card.toolKind === "execute" ? "" : `<pre class="preview">${escapeHtml(c.content.text)}</pre>`;
      }
      if (c.type === "content" && c.content?.type === "text" && c.content.text) {
        const { rest, problems } = splitProblems(c.content.text);
        const shown = problems
          ? `<div class="problems" role="status"><div class="problems-head">${escapeHtml(problems.head)}</div>` +
            `<pre>${escapeHtml(problems.lines)}</pre></div>`
          : "";
        const folded = rest
          ? `<details class="tool-result" data-key="result"><summary>Result</summary><pre>${escapeHtml(rest)}</pre></details>`
          : "";
        return shown + folded;
      }
      return "";
    })
    .join("");
}

/** What a command will run and where, from the request's rawInput (the server resolves the folder). */
function renderCommand(input: unknown): string {
  const { command, cwd } = (input ?? {}) as { command?: unknown; cwd?: unknown };
  if (typeof command !== "string") return "";
  const folder = typeof cwd === "string" ? relativePath(cwd) : undefined;
  const shown = folder === "." ? "the workspace folder" : folder;
  const where = shown ? `<div class="cwd">in ${escapeHtml(shown)}</div>` : "";
  return `<pre class="command">$ ${escapeHtml(command)}</pre>${where}`;
}

export function renderToolCard(card: ToolCard): string {
  const shown = cardStatus(card);
  const status = STATUS_LABEL[shown] ?? shown;
  const command = card.toolKind === "execute" ? renderCommand(card.rawInput) : "";
  const hasDiff = card.content.some((c) => c.type === "diff");
  const preview = card.permission && card.content.some((c) => c.type === "content");
  let approval = "";
  if (card.permission) {
    const buttons = card.permission.options
      .map(
        (o) =>
          `<button type="button" class="approve ${escapeHtml(o.kind)}" data-request="${escapeHtml(card.permission!.requestId)}"` +
          ` data-option="${escapeHtml(o.optionId)}">${escapeHtml(o.name)}</button>`,
      )
      .join("");
    const why = card.permission.why?.length
      ? `<ul class="why" aria-label="Why this is asked">${card.permission.why.map((w) => `<li>${escapeHtml(w)}</li>`).join("")}</ul>`
      : "";
    const review = card.permission.review
      ? `<div class="review-hint">Open beside: edit the proposal or revert hunks there; Allow writes what it shows.</div>`
      : "";
    approval = `${why}${review}<div class="approval" role="group" aria-label="Approve ${escapeHtml(card.title)}">${buttons}</div>`;
  } else if (card.rejected) {
    const who = card.rejected.by === "policy" ? "Rejected by a policy rule" : "Rejected";
    approval = `<div class="rejection">${escapeHtml(who)}: ${escapeHtml(card.rejected.reason)}</div>`;
  } else if (card.stopped && card.decision !== "cancelled") {
    approval = `<div class="decision">Stopped before it finished.</div>`;
  } else if (card.decision) {
    approval = `<div class="decision">${escapeHtml(DECISION_LABEL[card.decision] ?? card.decision)}</div>`;
  }
  return (
    `<div class="tool-head"><span class="tool-kind">${escapeHtml(card.toolKind)}</span>` +
    `<span class="tool-title">${escapeHtml(card.title)}</span>` +
    `<span class="tool-status status-${escapeHtml(shown)}">${escapeHtml(status)}</span></div>` +
    (command || (hasDiff || preview ? "" : renderInput(card.rawInput))) +
    renderContent(card) +
    approval
  );
}

/** The class list and inner HTML of one transcript item. */
export function renderItem(item: Item): { className: string; html: string } {
  switch (item.kind) {
    case "user": {
      const chips = item.attachments.map((a) => `<span class="attachment">${escapeHtml(a)}</span>`).join("");
      const actions =
        `<div class="user-actions"><button type="button" class="retry" title="Send this prompt again">Retry</button>` +
        `<button type="button" class="edit" title="Edit this prompt in the composer">Edit</button></div>`;
      const turn = item.changed
        ? `<div class="turn-actions"><button type="button" class="review-turn" title="What this turn changed, in the diff editor">Review changes</button>` +
          `<button type="button" class="undo-turn" title="Reverse only this turn's own changes; later changes stay">Undo turn…</button>` +
          `<button type="button" class="restore-turn" title="Put the files (and optionally the chat) back to before this turn">Restore…</button></div>`
        : "";
      return { className: "item user", html: `${chips}<div class="text">${escapeHtml(item.text)}</div>${actions}${turn}` };
    }
    case "agent":
      return { className: "item agent markdown", html: renderMarkdown(item.text) };
    case "thought": {
      const { progress, thinking } = splitProgress(item.text);
      const status = progress.map((p) => `<div class="progress-line" role="status">${escapeHtml(p)}</div>`).join("");
      const fold = thinking
        ? `<details data-key="thought"><summary>Thinking</summary><div class="markdown">${renderMarkdown(thinking)}</div></details>`
        : "";
      return { className: "item thought", html: status + fold };
    }
    case "tool":
      return { className: `item tool status-${cardStatus(item)}${item.permission ? " asking" : ""}`, html: renderToolCard(item) };
    case "plan": {
      const entries = item.entries
        .map((e) => `<li class="plan-${escapeHtml(e.status ?? "pending")}">${escapeHtml(e.content)}</li>`)
        .join("");
      return { className: "item plan", html: `<div class="plan-title">Plan</div><ul>${entries}</ul>` };
    }
    case "notice":
      return { className: `item notice ${item.level}`, html: escapeHtml(item.text) };
  }
}

export { formatUsage };
