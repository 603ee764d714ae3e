/** The chat webview: folds extension messages into the transcript and renders only what changed. */

import { mentionQuery } from "../src/mentions";
import { firstArgument, matchResources, resourceLabel, type McpResource } from "../src/mcpResources";
import { commandLabel, commandQuery, matchCommands, type SlashCommand } from "../src/slashCommands";
import type { FromWebview, Mention, PromptImage, ToWebview } from "../src/messages";
import { imageFiles, readImage, thumbnails } from "./images";
import { modelDescription } from "../src/models";
import { modeLabel } from "../src/modes";
import { formatUsage, renderItem, setWorkspaceRoot } from "./render";
import { Transcript } from "./transcript";

declare function acquireVsCodeApi(): { postMessage(message: FromWebview): void };

const vscode = acquireVsCodeApi();
const post = (m: FromWebview): void => vscode.postMessage(m);
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

const transcript = new Transcript();
const view = $("transcript");
const prompt = $<HTMLTextAreaElement>("prompt");
const send = $<HTMLButtonElement>("send");
const stop = $<HTMLButtonElement>("stop");
const busy = $("busy");
const model = $<HTMLSelectElement>("model");
const mode = $<HTMLButtonElement>("mode");
const meter = $("meter");
const sessions = $("sessions");
const sessionList = $("session-list");
const sessionSearch = $<HTMLInputElement>("session-search");
const serverStatus = $("server-status");
const welcome = $("welcome");
const jump = $<HTMLButtonElement>("jump");
const chips = $("chips");
const imageStrip = $("images");
const composer = $("composer");
const mentionList = $("mention-list");
const composerNotice = $("composer-notice");
/** The prompt waiting to be sent: always the transcript's last element, after anything replayed meanwhile (not a
 * `div`, so the items' own `div:last-of-type` stays the last item). */
const pending = document.createElement("aside");
pending.id = "pending";
pending.setAttribute("aria-label", "Prompt waiting to be sent");
pending.hidden = true;
view.appendChild(pending);

const dirty = new Set<string>();
let frame = 0;
/** Follow new output: true at the bottom, false once the user scrolls up, true again on send or "jump". */
let follow = true;
let mentions: Mention[] = [];
/** Pictures pasted or dropped into the composer, sent with the next prompt. */
let images: PromptImage[] = [];
/** The open completion: `@` files (`values` are paths) or `/` commands (`values` are names, `labels` shown). */
let completion:
  | {
      start: number;
      query: string;
      files: string[];
      active: number;
      kind?: "command";
      labels?: string[];
      /** How many of `files` (at the end) are MCP resource mentions rather than paths. */
      resources?: number;
    }
  | undefined;
let commands: SlashCommand[] = [];
let resources: McpResource[] = [];

/** Files found for the query, then the MCP resources that match it. */
function withResources(files: string[], query: string): Pick<NonNullable<typeof completion>, "files" | "labels" | "resources"> {
  const found = matchResources(resources, query);
  return {
    files: [...files, ...found.map((r) => r.mention)],
    labels: [...files, ...found.map(resourceLabel)],
    resources: found.length,
  };
}

const atBottom = (): boolean => view.scrollHeight - view.scrollTop - view.clientHeight < 40;

function scrollToLatest(): void {
  follow = true;
  view.scrollTop = view.scrollHeight;
  jump.hidden = true;
}

/**
 * Keeps a following view at its true bottom when something changes size after the scroll: the composer's buttons
 * swapping as a turn ends, a block finishing its layout. Setting scrollTop once per render left the last line cut
 * (issue 29: 17 px short at the end of each turn). Content growth is seen through the items themselves; the view
 * shrinking through the view.
 */
const pin = new ResizeObserver(() => {
  if (follow && view.scrollHeight - view.scrollTop - view.clientHeight > 0) view.scrollTop = view.scrollHeight;
});
pin.observe(view);

function renderItems(): void {
  frame = 0;
  const nearBottom = follow || atBottom();
  for (const id of dirty) {
    const item = transcript.get(id);
    if (!item) continue;
    let el = document.getElementById(id);
    const open = new Set<string>();
    if (el) {
      el.querySelectorAll<HTMLDetailsElement>("details[data-key]").forEach((d) => {
        if (d.open) open.add(d.dataset.key ?? "");
      });
    } else {
      el = document.createElement("div");
      el.id = id;
      view.insertBefore(el, pending);
      pin.observe(el);
    }
    const { className, html } = renderItem(item);
    el.className = className;
    el.innerHTML = html;
    el.querySelectorAll<HTMLDetailsElement>("details[data-key]").forEach((d) => {
      if (open.has(d.dataset.key ?? "")) d.open = true;
    });
  }
  dirty.clear();
  view.querySelectorAll(".item.user.latest").forEach((e) => e.classList.remove("latest"));
  const users = view.querySelectorAll(".item.user");
  users[users.length - 1]?.classList.add("latest");
  if (nearBottom) scrollToLatest();
  else jump.hidden = false;
}

function renderChrome(): void {
  send.hidden = transcript.busy;
  stop.hidden = !transcript.busy;
  // The server's long work (the built-in model's download, an index build) shows here, busy or not.
  busy.hidden = !transcript.busy && !transcript.serverProgress;
  busy.textContent = transcript.serverProgress ?? "Working…";
  busy.title = busy.textContent;
  document.body.classList.toggle("busy", transcript.busy);
  if (transcript.usage) {
    const { label, percent, title } = formatUsage(transcript.usage);
    meter.hidden = false;
    meter.title = title;
    $("meter-label").textContent = label;
    $("meter-fill").style.width = `${percent}%`;
    meter.classList.toggle("high", percent >= 80);
  } else {
    meter.hidden = true;
  }
  const models = transcript.models;
  if (models) {
    const names = models.models.map((m) => m.name);
    if (models.current && !names.includes(models.current)) names.unshift(models.current);
    model.replaceChildren(
      ...names.map((n) => {
        const opt = document.createElement("option");
        opt.value = n;
        const entry = models.models.find((m) => m.name === n);
        const about = entry ? modelDescription(entry) : "";
        opt.textContent = about ? `${n} · ${about}` : n;
        opt.title = about;
        opt.selected = n === models.current;
        return opt;
      }),
    );
  }
  const modes = transcript.modes;
  const current = modes?.availableModes.find((m) => m.id === modes.currentModeId);
  mode.textContent = modeLabel(modes) ?? "Mode";
  mode.dataset.mode = modes?.currentModeId ?? "";
  mode.title = current?.description ? `Mode: ${current.name}: ${current.description}` : "Pick the agent's mode";
  const server = transcript.server;
  serverStatus.hidden = !server || server.state === "running";
  if (server) {
    serverStatus.textContent =
      server.state === "starting" ? "Starting the agent server…" : (server.message ?? `Server ${server.state}.`);
    serverStatus.className = `server-${server.state}`;
  }
  renderPending();
  composerNotice.hidden = !transcript.composerNotice;
  composerNotice.textContent = transcript.composerNotice ?? "";
  if (transcript.sessions && !sessions.hidden) renderSessions();
  setWorkspaceRoot(transcript.root);
  welcome.hidden = transcript.items.length > 0 || transcript.pending !== undefined;
}

const PENDING_NOTE = {
  server: "Waiting for the agent server to start: sent as soon as it runs.",
  session: "Waiting for the earlier conversation to load: sent right after it.",
};

function renderPending(): void {
  const waiting = transcript.pending;
  pending.hidden = !waiting;
  if (!waiting) {
    pending.replaceChildren();
    return;
  }
  const chips = waiting.attachments.map((a) => {
    const chip = document.createElement("span");
    chip.className = "attachment";
    chip.textContent = a;
    return chip;
  });
  const text = document.createElement("div");
  text.className = "text";
  text.textContent = waiting.text;
  const note = document.createElement("div");
  note.className = "pending-note";
  note.textContent = PENDING_NOTE[waiting.reason];
  pending.replaceChildren(...chips, text, note);
  if (follow) scrollToLatest();
}

function renderSessions(): void {
  const all = transcript.sessions ?? [];
  const q = sessionSearch.value.trim();
  // The server's answer for these words matches titles and messages; until it comes, filter what is shown by title.
  const answered = transcript.sessionsQuery === q;
  const list = answered || !q ? all : all.filter((s) => (s.title ?? s.sessionId).toLowerCase().includes(q.toLowerCase()));
  sessionList.replaceChildren();
  if (list.length === 0) {
    sessionList.textContent = all.length ? "No session matches." : "No saved sessions yet.";
    return;
  }
  for (const s of list) {
    const row = document.createElement("div");
    row.className = "session-row";
    const b = document.createElement("button");
    b.type = "button";
    b.className = "session";
    b.dataset.session = s.sessionId;
    const title = document.createElement("span");
    title.className = "session-title";
    title.textContent = s.title || s.sessionId;
    const when = document.createElement("span");
    when.className = "session-when";
    when.textContent = s.updatedAt ? new Date(s.updatedAt).toLocaleString() : "";
    b.append(title, when);
    if (s.snippet && s.snippet !== s.title) {
      const snippet = document.createElement("span");
      snippet.className = "session-snippet";
      snippet.textContent = s.snippet;
      b.append(snippet);
    }
    const del = document.createElement("button");
    del.type = "button";
    del.className = "session-delete";
    del.dataset.delete = s.sessionId;
    del.title = `Delete “${s.title || s.sessionId}”`;
    del.textContent = "✕";
    row.append(b, del);
    sessionList.appendChild(row);
  }
}

function renderChips(): void {
  chips.replaceChildren(
    ...mentions.map((m, i) => {
      const chip = document.createElement("span");
      chip.className = `chip chip-${m.kind}`;
      chip.textContent = m.kind === "file" ? `@${m.label}` : m.label;
      const x = document.createElement("button");
      x.type = "button";
      x.className = "chip-remove";
      x.dataset.chip = String(i);
      x.title = "Remove";
      x.textContent = "✕";
      chip.appendChild(x);
      return chip;
    }),
  );
}

function addMention(m: Mention): void {
  if (!mentions.some((x) => x.kind === m.kind && x.label === m.label)) mentions.push(m);
  renderChips();
}

function renderCompletion(): void {
  if (!completion || completion.files.length === 0) {
    mentionList.hidden = true;
    return;
  }
  mentionList.hidden = false;
  mentionList.replaceChildren(
    ...completion.files.map((f, i) => {
      const row = document.createElement("div");
      row.className = `mention-option${i === completion!.active ? " active" : ""}`;
      row.setAttribute("role", "option");
      row.dataset.file = f;
      row.textContent = completion!.labels?.[i] ?? f;
      return row;
    }),
  );
}

function pickFile(file: string): void {
  if (!completion) return;
  if (completion.kind === "command") {
    // The name only: the server expands `/name args` when the prompt is sent.
    const caret = prompt.selectionStart;
    prompt.value = `/${file} ${prompt.value.slice(caret).trimStart()}`;
    prompt.setSelectionRange(file.length + 2, file.length + 2);
    completion = undefined;
    renderCompletion();
    prompt.focus();
    return;
  }
  const caret = prompt.selectionStart;
  if (completion.resources && completion.files.indexOf(file) >= completion.files.length - completion.resources) {
    // An MCP resource stays text (`@server:uri`): the server reads it when the prompt is sent. A template's first
    // `{argument}` is selected, to be typed over.
    const start = completion.start;
    prompt.value = `${prompt.value.slice(0, start)}@${file} ${prompt.value.slice(caret)}`;
    const arg = firstArgument(prompt.value, start);
    const end = start + file.length + 2;
    if (arg && arg[1] < end) prompt.setSelectionRange(arg[0], arg[1]);
    else prompt.setSelectionRange(end, end);
    completion = undefined;
    renderCompletion();
    prompt.focus();
    return;
  }
  prompt.value = `${prompt.value.slice(0, completion.start)}@${file} ${prompt.value.slice(caret)}`;
  const at = completion.start + file.length + 2;
  prompt.setSelectionRange(at, at);
  completion = undefined;
  renderCompletion();
  addMention({ kind: "file", label: file, uri: "" });
  prompt.focus();
}

function showCommands(query: string): void {
  const found = matchCommands(commands, query);
  completion = { start: 0, query, files: found.map((c) => c.name), labels: found.map(commandLabel), active: 0, kind: "command" };
  renderCompletion();
}

function onPromptInput(): void {
  const slash = commandQuery(prompt.value, prompt.selectionStart);
  if (slash) {
    if (slash.query === "" || commands.length === 0) post({ type: "listCommands" }); // fresh at each new `/`
    showCommands(slash.query);
    return;
  }
  const q = mentionQuery(prompt.value, prompt.selectionStart);
  if (!q) {
    completion = undefined;
    renderCompletion();
    return;
  }
  completion = { start: q.start, query: q.query, files: completion?.files ?? [], active: 0 };
  if (q.query === "" || resources.length === 0) post({ type: "listResources" }); // fresh at each new `@`
  post({ type: "searchFiles", query: q.query });
}

function apply(message: ToWebview): void {
  switch (message.type) {
    case "files":
      if (completion && completion.query === message.query) {
        Object.assign(completion, withResources(message.files, message.query));
        completion.active = 0;
        renderCompletion();
      }
      return;
    case "resources":
      resources = message.resources;
      if (completion && completion.kind !== "command") {
        const paths = completion.files.slice(0, completion.files.length - (completion.resources ?? 0));
        Object.assign(completion, withResources(paths, completion.query));
        renderCompletion();
      }
      return;
    case "commands": {
      commands = message.commands;
      const slash = commandQuery(prompt.value, prompt.selectionStart);
      if (slash) showCommands(slash.query);
      return;
    }
    case "attach":
      addMention(message.mention);
      apply({ type: "composerNotice" });
      return;
    case "compose":
      prompt.value = message.text;
      prompt.focus();
      return;
    case "showHistory":
      openHistory(true);
      return;
  }
  const changes = transcript.apply(message);
  if (changes.cleared) {
    view.replaceChildren(pending);
    pin.disconnect();
    pin.observe(view);
    dirty.clear();
  }
  for (const id of changes.items) dirty.add(id);
  if (changes.chrome) renderChrome();
  welcome.hidden = transcript.items.length > 0 || transcript.pending !== undefined;
  if (dirty.size && !frame) frame = requestAnimationFrame(renderItems);
}

function renderImages(): void {
  imageStrip.replaceChildren(...thumbnails(images));
}

/** Pasted or dropped files: the pictures are attached (thumbnails); a file that cannot be sent says why, above the
 * prompt (about this attempt only: the next attachment or the send clears it), never in the transcript. */
async function attachImages(files: File[]): Promise<void> {
  const refused: string[] = [];
  for (const file of files) {
    const read = await readImage(file);
    if (typeof read === "string") refused.push(`Image not attached: ${read}`);
    else images.push(read);
  }
  apply({ type: "composerNotice", message: refused.length ? refused.join("\n") : undefined });
  renderImages();
}

function submit(): void {
  const text = prompt.value.trim();
  if ((!text && !images.length) || transcript.busy) return;
  post({ type: "send", text, mentions, images });
  apply({ type: "composerNotice" });
  prompt.value = "";
  mentions = [];
  images = [];
  renderImages();
  renderChips();
  completion = undefined;
  renderCompletion();
  scrollToLatest(); // the prompt and its answer must be visible even if the user had scrolled up
}

function openHistory(open: boolean): void {
  sessions.hidden = !open;
  if (open) {
    sessionList.textContent = "Loading…";
    // Not the list of the last opening meanwhile: a restore or a prompt may have renamed or emptied sessions since.
    transcript.sessions = undefined;
    post({ type: "listSessions", query: sessionSearch.value.trim() || undefined });
    sessionSearch.focus();
  }
}

window.addEventListener("message", (e: MessageEvent<ToWebview>) => apply(e.data));

prompt.addEventListener("input", onPromptInput);
prompt.addEventListener("keydown", (e) => {
  if (completion && completion.files.length) {
    const n = completion.files.length;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      completion.active = (completion.active + (e.key === "ArrowDown" ? 1 : n - 1)) % n;
      renderCompletion();
      return;
    }
    if (e.key === "Enter" || e.key === "Tab") {
      e.preventDefault();
      pickFile(completion.files[completion.active] ?? "");
      return;
    }
    if (e.key === "Escape") {
      e.preventDefault();
      completion = undefined;
      renderCompletion();
      return;
    }
  }
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
  }
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && transcript.busy) {
    e.preventDefault();
    post({ type: "stop" });
  }
});
prompt.addEventListener("paste", (e) => {
  const files = imageFiles(e.clipboardData);
  if (!files.length) return; // text pastes as usual
  e.preventDefault();
  void attachImages(files);
});
composer.addEventListener("dragover", (e) => {
  if (e.dataTransfer && [...e.dataTransfer.items].some((i) => i.kind === "file")) e.preventDefault();
});
composer.addEventListener("drop", (e) => {
  const files = [...(e.dataTransfer?.files ?? [])]; // every dropped file: one that is not a picture says so
  if (!files.length) return;
  e.preventDefault();
  void attachImages(files);
});
imageStrip.addEventListener("click", (e) => {
  const x = (e.target as HTMLElement).closest<HTMLElement>("[data-image]");
  if (!x) return;
  images.splice(Number(x.dataset.image), 1);
  renderImages();
});
send.addEventListener("click", submit);
stop.addEventListener("click", () => post({ type: "stop" }));
$("new-chat").addEventListener("click", () => post({ type: "newChat" }));
$("index").addEventListener("click", () => post({ type: "index" }));
$("history").addEventListener("click", () => openHistory(sessions.hidden));
let searchTimer: ReturnType<typeof setTimeout> | undefined;
sessionSearch.addEventListener("input", () => {
  renderSessions();
  clearTimeout(searchTimer);
  // The server searches what was said too: ask once typing pauses.
  searchTimer = setTimeout(() => post({ type: "listSessions", query: sessionSearch.value.trim() || undefined }), 200);
});
mentionList.addEventListener("mousedown", (e) => {
  const row = (e.target as HTMLElement).closest<HTMLElement>("[data-file]");
  if (!row) return;
  e.preventDefault();
  pickFile(row.dataset.file!);
});
chips.addEventListener("click", (e) => {
  const x = (e.target as HTMLElement).closest<HTMLElement>("[data-chip]");
  if (!x) return;
  mentions.splice(Number(x.dataset.chip), 1);
  renderChips();
});
for (const kind of ["selection", "buffer", "diagnostics"] as const) {
  $(`attach-${kind}`).addEventListener("click", () => post({ type: "attachEditor", kind }));
}
view.addEventListener("scroll", () => {
  follow = atBottom();
  jump.hidden = follow;
});
jump.addEventListener("click", scrollToLatest);
sessions.addEventListener("click", (e) => {
  const del = (e.target as HTMLElement).closest<HTMLElement>("[data-delete]");
  if (del) {
    post({ type: "deleteSession", sessionId: del.dataset.delete!, query: sessionSearch.value.trim() || undefined });
    return;
  }
  const b = (e.target as HTMLElement).closest<HTMLElement>("[data-session]");
  if (!b) return;
  sessions.hidden = true;
  post({ type: "loadSession", sessionId: b.dataset.session! });
});
mode.addEventListener("click", () => post({ type: "pickMode" }));
model.addEventListener("change", () => post({ type: "selectModel", model: model.value }));
model.addEventListener("focus", () => post({ type: "listModels" }));
view.addEventListener("click", (e) => {
  const target = e.target as HTMLElement;
  const approve = target.closest<HTMLButtonElement>("button[data-request]");
  if (approve) {
    approve.closest(".approval")?.querySelectorAll("button").forEach((b) => (b.disabled = true));
    post({ type: "permission", requestId: approve.dataset.request!, optionId: approve.dataset.option! });
    return;
  }
  const openDiff = target.closest<HTMLButtonElement>("button.open-diff");
  if (openDiff) {
    const item = transcript.get(openDiff.closest(".item")?.id ?? "");
    const diff = item?.kind === "tool" ? item.content[Number(openDiff.dataset.diff)] : undefined;
    if (diff?.type === "diff") post({ type: "openDiff", path: diff.path, oldText: diff.oldText, newText: diff.newText });
    return;
  }
  const link = target.closest<HTMLElement>("[data-open]");
  if (link) {
    e.preventDefault();
    post({ type: "openFile", path: link.dataset.open! });
    return;
  }
  const turnAction = target.closest<HTMLButtonElement>("button.review-turn, button.restore-turn, button.undo-turn");
  if (turnAction) {
    const item = transcript.get(turnAction.closest(".item")?.id ?? "");
    if (item?.kind === "user") {
      const classes = turnAction.classList;
      const action = classes.contains("review-turn") ? "review" : classes.contains("undo-turn") ? "undoTurn" : "restore";
      post({ type: "checkpoint", action, prompt: item.text });
    }
    return;
  }
  if (target.closest("button.retry")) {
    if (!transcript.busy) {
      scrollToLatest();
      post({ type: "retry" });
    }
    return;
  }
  if (target.closest("button.edit")) {
    post({ type: "editLast" });
    return;
  }
  const insert = target.closest<HTMLButtonElement>("button.insert, button.apply");
  if (insert) {
    const code = insert.closest(".code-block")?.querySelector("code")?.textContent ?? "";
    post({ type: "insertCode", text: code, mode: insert.classList.contains("apply") ? "apply" : "insert" });
    return;
  }
  const copy = target.closest<HTMLButtonElement>("button.copy");
  if (copy) {
    const code = copy.closest(".code-block")?.querySelector("code")?.textContent ?? "";
    post({ type: "copy", text: code });
    copy.textContent = "Copied";
    setTimeout(() => (copy.textContent = "Copy"), 1200);
  }
});

post({ type: "ready" });
// Typed while the window was still loading this script: Enter only added a newline then. Send it now.
if (/\S\n+$/.test(prompt.value)) {
  prompt.value = prompt.value.replace(/\n+$/, "");
  submit();
}
prompt.focus();
