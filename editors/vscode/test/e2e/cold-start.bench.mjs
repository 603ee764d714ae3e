// Cold start to a usable chat in VS Code (code-server), median of N runs, with the bare editor's own start as the
// baseline in the same run (the VS Code half of tests/benchmarks/bench_editor_cold_start.py).
//
// Each run is a fresh profile (user data, extensions, XDG dirs) and a fresh code-server process; bare and
// with-extension runs alternate, so both see the same machine load. The .vsix is installed before the clock starts
// (installing is not starting). One headless Chromium serves every run (a new page each time).
//   bare:   code-server spawned -> the workbench drawn (activity bar and status bar shown)
//   usable: code-server spawned -> the Agent view opened from the activity bar shows the chat's prompt, and the
//           model picker lists the fake LLM's model (the server answered; a prompt typed now is sent at once)
// Also reported: the with-extension workbench time and the moment the chat's prompt is drawn (before the server
// answered), to separate VS Code's own share from the extension's and the server's.
//
//   bash editors/vscode/scripts/e2e.sh            # installs Node, code-server, Chromium and builds the .vsix once
//   CODE_SERVER=... AGENT_PYTHON=.venv/bin/python VSIX=editors/vscode/agent-server.vsix \
//     node editors/vscode/test/e2e/cold-start.bench.mjs --runs 5      (--quick: one run each, for CI)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  installExtension, launchBrowser, makeProfile, openWorkbench, startCodeServer, startFakeLlm, until, writeSettings,
} from "./boot.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const extRoot = resolve(here, "../..");
const repoRoot = resolve(extRoot, "../..");
const codeServer = process.env.CODE_SERVER ?? "code-server";
const python = process.env.AGENT_PYTHON ?? join(repoRoot, ".venv/bin/python");
const vsix = process.env.VSIX ?? join(extRoot, "agent-server.vsix");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const MODEL = "qwen3:8b";

const argv = process.argv.slice(2);
const quick = argv.includes("--quick");
const runsAt = argv.indexOf("--runs");
const runs = quick ? 1 : runsAt >= 0 ? Number(argv[runsAt + 1]) : 5;
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs wants a positive integer, got ${argv[runsAt + 1]}`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const round = (x) => Math.round(x * 1000) / 1000;
const seconds = (t0) => (performance.now() - t0) / 1000;

async function oneRun(browser, fakeUrl, withExtension) {
  const tmp = mkdtempSync(join(tmpdir(), "agent-vscode-bench-"));
  const profile = makeProfile(tmp, { AGENT_SERVER_STORE__PATH: join(tmp, "agent.db") });
  writeFileSync(join(profile.ws, "main.py"), "print('hi')\n");
  writeSettings(profile, withExtension ? {
    "agentServer.serverCommand": [python, "-m", "agent_server", "serve"],
    "agentServer.llm.provider": "ollama",
    "agentServer.llm.baseUrl": fakeUrl,
    "agentServer.llm.model": MODEL,
  } : {});
  if (withExtension) installExtension(codeServer, profile, vsix);
  let cs;
  let page;
  try {
    const t0 = performance.now();
    cs = await startCodeServer(codeServer, profile);
    page = await openWorkbench(browser, cs.base, profile.ws);
    await page.waitForSelector(".part.activitybar", { state: "visible", timeout: 60000 });
    await page.waitForSelector(".part.statusbar", { state: "visible", timeout: 60000 });
    const workbench = seconds(t0);
    if (!withExtension) return { workbench };
    const entry = await page.waitForSelector('.activitybar [aria-label^="Agent"]', { timeout: 60000 });
    await entry.click();
    const frame = await until("the chat webview", async () => {
      for (const f of page.frames()) if (await f.$("#prompt").catch(() => null)) return f;
      return undefined;
    }, 60000, 20);
    const prompt = seconds(t0);
    await until("the server's model list in the chat", async () =>
      (await frame.$$eval("#model option", (o) => o.map((x) => x.value))).includes(MODEL), 60000, 20);
    return { workbench, prompt, usable: seconds(t0) };
  } finally {
    await page?.close().catch(() => undefined);
    cs?.stop();
    await until("code-server gone", async () => cs === undefined || cs.proc.exitCode !== null || cs.proc.signalCode !== null, 10000, 50)
      .catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  }
}

async function main() {
  const fake = await startFakeLlm(python, repoRoot, { ...process.env }, [MODEL]);
  const browser = await launchBrowser(chromiumPath);
  const bare = [];
  const withExt = [];
  const usable = [];
  const prompt = [];
  try {
    for (let i = 0; i < runs; i++) {
      bare.push((await oneRun(browser, fake.url, false)).workbench);
      const r = await oneRun(browser, fake.url, true);
      withExt.push(r.workbench);
      usable.push(r.usable);
      prompt.push(r.prompt);
    }
  } finally {
    await browser.close().catch(() => undefined);
    fake.proc.kill();
  }
  console.log(JSON.stringify({
    editor: "vscode (code-server)",
    runs,
    bare_start_s_median: round(median(bare)),
    cold_start_to_usable_chat_s_median: round(median(usable)),
    workbench_with_extension_s_median: round(median(withExt)),
    chat_prompt_shown_s_median: round(median(prompt)),
    bare_s: bare.map(round),
    usable_s: usable.map(round),
  }));
}

await main();
