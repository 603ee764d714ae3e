/** The chat webview's HTML: a strict Content-Security-Policy (nonce'd script, no network), local resources only. */

export interface WebviewAssets {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  /** In the side bar the view title carries New / History / Model / Index as icons; an editor tab has none. */
  placement?: "sidebar" | "editor";
}

export function makeNonce(random: () => number = Math.random): string {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let nonce = "";
  for (let i = 0; i < 32; i++) nonce += chars[Math.floor(random() * chars.length)];
  return nonce;
}

export function chatHtml(a: WebviewAssets): string {
  const csp = [
    "default-src 'none'",
    `style-src ${a.cspSource}`,
    `script-src 'nonce-${a.nonce}'`,
    `img-src ${a.cspSource} data:`,
    `font-src ${a.cspSource}`,
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${a.styleUri}">
<title>Agent</title>
</head>
<body class="${a.placement ?? "editor"}">
<header id="toolbar">
  <button id="mode" type="button" title="Pick the agent's mode" aria-label="Mode">Mode</button>
  <select id="model" title="Model" aria-label="Model"></select>
  <div id="meter" title="Context used" hidden><div id="meter-bar"><div id="meter-fill"></div></div><span id="meter-label"></span></div>
  <span class="spacer"></span>
  <button id="history" type="button" title="Sessions">History</button>
  <button id="index" type="button" title="Index the workspace for code search">Index</button>
  <button id="new-chat" type="button" title="New chat">New</button>
</header>
<div id="server-status" hidden></div>
<section id="sessions" hidden aria-label="Sessions">
  <input id="session-search" type="search" placeholder="Search sessions…" aria-label="Search sessions">
  <div id="session-list"></div>
</section>
<section id="welcome" hidden>
  <h2>Ask the agent about this workspace</h2>
  <p>It reads, searches and edits files and runs commands; every change and command is shown to you before it happens.</p>
  <ul>
    <li>Type <kbd>@</kbd> to attach a file; <b>Selection</b>, <b>File</b> and <b>Problems</b> attach what the editor shows.</li>
    <li>Paste or drop a picture to send it to a model that can see.</li>
    <li><kbd>Enter</kbd> sends, <kbd>Shift+Enter</kbd> adds a line, <kbd>Escape</kbd> stops.</li>
    <li>The icons above start a new chat, open the history, pick the model and index the workspace.</li>
  </ul>
</section>
<main id="transcript" aria-live="polite"></main>
<button id="jump" type="button" title="Jump to the latest message" hidden>↓ Latest</button>
<footer id="composer">
  <div id="chips" aria-label="Attached context"></div>
  <div id="images" aria-label="Attached images"></div>
  <div id="composer-notice" role="alert" hidden></div>
  <div id="mention-list" role="listbox" hidden></div>
  <textarea id="prompt" rows="3" placeholder="Ask the agent… (@ to attach a file, paste or drop a picture, Enter to send, Shift+Enter for a new line)" aria-label="Prompt"></textarea>
  <div class="composer-actions">
    <button id="attach-selection" class="attach" type="button" title="Attach the editor's selection">Selection</button>
    <button id="attach-buffer" class="attach" type="button" title="Attach the active file">File</button>
    <button id="attach-diagnostics" class="attach" type="button" title="Attach the active file's problems">Problems</button>
    <span class="spacer"></span>
    <span id="busy" hidden>Working…</span>
    <button id="stop" type="button" title="Stop (Escape)" hidden>Stop</button>
    <button id="send" type="button" title="Send (Enter)">Send</button>
  </div>
</footer>
<script nonce="${a.nonce}" src="${a.scriptUri}"></script>
</body>
</html>`;
}
