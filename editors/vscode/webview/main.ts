/** The chat webview: folds extension messages into the transcript and renders only what changed. */

import type { FromWebview, ToWebview } from "../src/messages";
import { formatUsage, renderItem } from "./render";
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
const meter = $("meter");
const sessions = $("sessions");
const serverStatus = $("server-status");

const dirty = new Set<string>();
let frame = 0;

function renderItems(): void {
  frame = 0;
  const nearBottom = view.scrollHeight - view.scrollTop - view.clientHeight < 40;
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
      view.appendChild(el);
    }
    const { className, html } = renderItem(item);
    el.className = className;
    el.innerHTML = html;
    el.querySelectorAll<HTMLDetailsElement>("details[data-key]").forEach((d) => {
      if (open.has(d.dataset.key ?? "")) d.open = true;
    });
  }
  dirty.clear();
  if (nearBottom) view.scrollTop = view.scrollHeight;
}

function renderChrome(): void {
  send.hidden = transcript.busy;
  stop.hidden = !transcript.busy;
  busy.hidden = !transcript.busy;
  document.body.classList.toggle("busy", transcript.busy);
  if (transcript.usage) {
    const { label, percent } = formatUsage(transcript.usage);
    meter.hidden = false;
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
        opt.textContent = n;
        opt.selected = n === models.current;
        return opt;
      }),
    );
  }
  const server = transcript.server;
  serverStatus.hidden = !server || server.state === "running";
  if (server) {
    serverStatus.textContent =
      server.state === "starting" ? "Starting the agent server…" : (server.message ?? `Server ${server.state}.`);
    serverStatus.className = `server-${server.state}`;
  }
  if (transcript.sessions && !sessions.hidden) renderSessions();
}

function renderSessions(): void {
  const list = transcript.sessions ?? [];
  sessions.replaceChildren();
  if (list.length === 0) {
    sessions.textContent = "No saved sessions yet.";
    return;
  }
  for (const s of list) {
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
    sessions.appendChild(b);
  }
}

function apply(message: ToWebview): void {
  const changes = transcript.apply(message);
  if (changes.cleared) {
    view.replaceChildren();
    dirty.clear();
  }
  for (const id of changes.items) dirty.add(id);
  if (changes.chrome) renderChrome();
  if (dirty.size && !frame) frame = requestAnimationFrame(renderItems);
}

function submit(): void {
  const text = prompt.value.trim();
  if (!text || transcript.busy) return;
  post({ type: "send", text });
  prompt.value = "";
}

window.addEventListener("message", (e: MessageEvent<ToWebview>) => apply(e.data));

prompt.addEventListener("keydown", (e) => {
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
send.addEventListener("click", submit);
stop.addEventListener("click", () => post({ type: "stop" }));
$("new-chat").addEventListener("click", () => post({ type: "newChat" }));
$("index").addEventListener("click", () => post({ type: "index" }));
$("history").addEventListener("click", () => {
  sessions.hidden = !sessions.hidden;
  if (!sessions.hidden) {
    sessions.textContent = "Loading…";
    post({ type: "listSessions" });
  }
});
sessions.addEventListener("click", (e) => {
  const b = (e.target as HTMLElement).closest<HTMLElement>("[data-session]");
  if (!b) return;
  sessions.hidden = true;
  post({ type: "loadSession", sessionId: b.dataset.session! });
});
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
  const copy = target.closest<HTMLButtonElement>("button.copy");
  if (copy) {
    const code = copy.closest(".code-block")?.querySelector("code")?.textContent ?? "";
    post({ type: "copy", text: code });
    copy.textContent = "Copied";
    setTimeout(() => (copy.textContent = "Copy"), 1200);
  }
});

post({ type: "ready" });
prompt.focus();
