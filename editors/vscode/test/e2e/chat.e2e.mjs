// End-to-end: real VS Code (code-server) + the packaged extension + the real agent-server + the fake LLM,
// driven by Playwright in headless Chromium. Prints one line per scenario and exits non-zero on any failure.
//
// Env: CODE_SERVER (bin), AGENT_PYTHON (a Python with agent_server), VSIX, CHROMIUM (default /usr/bin/chromium),
// E2E_ONLY=REGEX (only the scenarios whose name matches, after the first), E2E_FINAL_SHOT=1 (also screenshot the
// end state to test-results/final.png), E2E_SHOTS=DIR (write the README's
// screenshots there: vscode-welcome.png, vscode-approval-diff.png, vscode-mentions.png, vscode-image.png,
// vscode-stopped-and-waiting.png,
// vscode-mode-picker.png, vscode-review-changes.png, vscode-restore-checkpoint.png, vscode-undo-restore.png,
// vscode-review-diff.png, vscode-history-search.png, vscode-trust-question.png).
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  installExtension, launchBrowser, makeProfile, openWorkbench, runPaletteCommand, startCodeServer, startFakeLlm as startFakeLlmIn,
  until, writeSettings,
} from "./boot.mjs";
import { TOTAL, buildRuffLsp, editsScenarios } from "./edits.e2e.mjs";
import { trustSessionsScenarios } from "./trust_sessions.e2e.mjs";
import { restoreScenarios } from "./restore.e2e.mjs";
import { reviewScenarios } from "./review.e2e.mjs";
import { codeNavScenarios } from "./codeNav.e2e.mjs";
import { polishScenarios } from "./polish.e2e.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const extRoot = resolve(here, "../..");
const repoRoot = resolve(extRoot, "../..");
const results = join(extRoot, "test-results");
const codeServer = process.env.CODE_SERVER ?? "code-server";
const python = process.env.AGENT_PYTHON ?? join(repoRoot, ".venv/bin/python");
const vsix = process.env.VSIX ?? join(extRoot, "agent-server.vsix");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const MODEL = "qwen3:8b";
const MODEL_B = "llama3.2:3b"; // the second model the fake lists, for the model picker
const CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n";
const GREET = 'def greet(name):\n    return "hello " + name\n';
const GREET_EDITED = 'def greet(name):\n    return "hello, " + name + "!"\n';

const shots = process.env.E2E_SHOTS ? resolve(process.env.E2E_SHOTS) : undefined;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(`[e2e ${new Date().toISOString().slice(11, 19)}]`, ...a);

// --vision: the models report Ollama's vision capability (the image scenario's picture is sent to them).
// --embedding-model: an embedding-only model the server lists, which the chat's model picker must not offer.
const EMBEDDING_MODEL = "nomic-embed-text:latest";
// `extraArgs` come last (argparse keeps the last --port): polish.e2e.mjs starts the fake again on its old port.
const startFakeLlm = (env, extraArgs = []) =>
  startFakeLlmIn(python, repoRoot, env, [MODEL, MODEL_B], ["--vision", "--embedding-model", EMBEDDING_MODEL, ...extraArgs]);

async function script(url, replies) {
  const r = await fetch(`${url}/_fake/script`, { method: "POST", body: JSON.stringify(replies) });
  if (!r.ok) throw new Error(`POST /_fake/script: ${r.status} ${await r.text()}`);
}

/** The chat requests the fake LLM received (model loads with no messages left out), oldest first. */
async function chatRequests(url) {
  const r = await fetch(`${url}/_fake/requests`);
  if (!r.ok) throw new Error(`GET /_fake/requests: ${r.status}`);
  return (await r.json()).filter((q) => q.path === "/api/chat" && q.json?.messages?.length);
}

/** The text of every message of one recorded chat request, joined. */
const conversation = (request) => request.json.messages.map((m) => `${m.role}: ${m.content ?? ""}`).join("\n");

/** What a failed scenario leaves to read in CI's log, where only the output survives: the LLM requests the fake got
 * last, and the tail of the extension's "Agent Server" log (the server's own log lines among them). */
async function explainFailure(url, userData) {
  const r = await fetch(`${url}/_fake/requests`);
  const last = (await r.json()).slice(-3).map((q) => `${q.method} ${q.path}${q.disconnected ? " (client went away)" : ""}`);
  log(`the fake LLM's last requests: ${JSON.stringify(last)}`);
  const logs = readdirSync(join(userData, "logs"), { recursive: true }).filter((f) => String(f).endsWith("Agent Server.log"));
  for (const f of logs) {
    const lines = readFileSync(join(userData, "logs", String(f)), "utf8").trimEnd().split("\n");
    log(`the last lines of ${f}:\n  ${lines.slice(-25).join("\n  ")}`);
  }
}

async function main() {
  mkdirSync(results, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), "agent-vscode-e2e-"));
  const profile = makeProfile(tmp, {
    AGENT_SERVER_STORE__PATH: join(tmp, "agent.db"),
    // No file watcher: an index build then does what the scenario gave it to do (the watcher has its own tests).
    AGENT_SERVER_INDEX__WATCH: "false",
    AGENT_TEST_RUFF_PYTHON: python, // the ruff-lsp test extension's language server
    AGENT_E2E_SLOW: join(tmp, "slow-start"),
    // While the file $AGENT_E2E_SLOW_AGENT exists, a server started then loads its agent 8 s late (slow_agent/).
    AGENT_E2E_SLOW_AGENT: join(tmp, "slow-agent"),
    PYTHONPATH: [join(here, "slow_agent"), process.env.PYTHONPATH].filter(Boolean).join(":"),
  });
  const { ws, ud, env } = profile;
  writeFileSync(join(ws, "README.md"), "# demo project\n");
  writeFileSync(join(ws, "calc.py"), CALC);
  writeFileSync(join(ws, "greet.py"), GREET);
  writeFileSync(join(ws, "total.py"), TOTAL);
  const cleanups = [];
  const outcomes = [];
  let page;
  try {
    const fake = await startFakeLlm(env);
    cleanups.push(() => fake.proc.kill());
    log("fake LLM at", fake.url);

    writeSettings(profile, {
      // Through sh: while the file $AGENT_E2E_SLOW exists the server takes 4 s more to start (a busy machine).
      "agentServer.serverCommand": ["sh", "-c", 'if [ -e "$AGENT_E2E_SLOW" ]; then sleep 4; fi; exec "$0" "$@"',
        python, "-m", "agent_server", "serve", "--log-level", "INFO"],
      "agentServer.llm.provider": "ollama",
      "agentServer.llm.baseUrl": fake.url,
      "agentServer.llm.model": MODEL,
    });
    installExtension(codeServer, profile, vsix);
    installExtension(codeServer, profile, buildRuffLsp(here, extRoot, tmp));

    const cs = await startCodeServer(codeServer, profile);
    cleanups.push(cs.stop);
    const base = cs.base;
    log("code-server up on", cs.port);

    const browser = await launchBrowser(chromiumPath);
    cleanups.push(() => browser.close());
    page = await openWorkbench(browser, base, ws);
    // Commands exist only once the extension host has registered the extension: wait for its activity bar entry.
    await page.waitForSelector('.activitybar [aria-label^="Agent"]', { timeout: 60000 });
    log("workbench loaded");

    const runCommand = (title) => runPaletteCommand(page, title);
    const chatFrame = async () =>
      until("the chat webview", async () => {
        for (const f of page.frames()) {
          if (await f.$("#prompt").catch(() => null)) return f;
        }
        return undefined;
      }, 60000, 250);
    const agentText = (f) => f.$$eval(".item.agent", (els) => els.map((e) => e.textContent ?? "").join("\n"));
    const lastAgentText = (f) => f.$$eval(".item.agent", (els) => (els.length ? els[els.length - 1].textContent ?? "" : ""));
    // E2E_ONLY=REGEX runs the first scenario (it opens the chat) and those whose name matches: for quick iteration.
    const only = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : undefined;
    const scenario = async (name, body) => {
      if (only && outcomes.length > 0 && !only.test(name)) return;
      const started = Date.now();
      try {
        await body();
        outcomes.push({ name, ok: true });
        log(`PASS ${name} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
      } catch (err) {
        outcomes.push({ name, ok: false });
        log(`FAIL ${name}: ${err.stack ?? err}`);
        const file = join(results, `${name.replace(/\W+/g, "-")}.png`);
        await page?.screenshot({ path: file }).catch(() => undefined);
        log(`screenshot: ${file}`);
        await explainFailure(fake.url, ud).catch((e) => log(`(no diagnostics: ${e})`));
        await recover().catch((e) => log(`(recovery failed: ${e})`));
      }
    };
    /** After a failed scenario: nothing of it may hold up the next one. A turn left running or waiting for an
     * approval would queue every later prompt behind it, and its unsent scripted replies would answer the next
     * scenario's requests (one failure became 32 in CI): close what is open, stop the turn, drop the replies, start
     * a new chat. */
    const recover = async () => {
      for (let i = 0; i < 3; i++) await page.keyboard.press("Escape");
      await runCommand("Agent Server: Stop").catch(() => undefined);
      await page.keyboard.press("Escape");
      await sleep(500); // the stopped turn's last request reaches the fake before its queue is emptied
      await fetch(`${fake.url}/_fake/clear`, { method: "POST" });
      await titleAction("New Chat");
    };

    /** A screenshot of the side bar (the chat panel) for the README, when E2E_SHOTS is set. */
    const shot = async (name) => {
      if (!shots) return;
      mkdirSync(shots, { recursive: true });
      await page.locator(".part.sidebar").screenshot({ path: join(shots, name) });
    };
    /** The whole window (for dialogs and diff editors), when E2E_SHOTS is set; `settleMs` lets a diff finish drawing. */
    const windowShot = async (name, settleMs = 0) => {
      if (!shots) return;
      mkdirSync(shots, { recursive: true });
      if (settleMs) await sleep(settleMs);
      await page.screenshot({ path: join(shots, name) });
    };
    /** Clicks an action icon in the chat view's title bar (by its command title). */
    const titleAction = async (title) => {
      // The view title re-renders its actions (e.g. when Stop comes and goes): find the icon again if it was replaced.
      await until(`the ${title} icon in the view title`, async () => {
        const icon = await page.$(`.part.sidebar .title-actions [aria-label^="${title}"], .part.sidebar .composite.title [aria-label^="${title}"]`);
        if (!icon) return undefined;
        await icon.click({ timeout: 2000 });
        return true;
      }, 10000);
    };
    const atBottom = () => frame.$eval("#transcript", (v) => v.scrollHeight - v.scrollTop - v.clientHeight < 40);
    const lastCard = () => frame.$$eval(".item.tool", (cs) => {
      const c = cs[cs.length - 1];
      return { cls: c.className, text: c.textContent ?? "", diff: c.querySelector(".diff")?.textContent ?? "" };
    });

    // The text of the active editor as rendered (Monaco draws spaces as no-break spaces).
    const editorText = () =>
      page.$eval(".editor-group-container.active .monaco-editor .view-lines", (e) => e.innerText.replace(/\u00a0/g, " "));
    const openFile = async (name, expected) => {
      // A file written just now may not be in quick open's file list yet (the watcher and the search cache lag on a
      // loaded machine): close the picker and ask again, so a fresh search runs.
      const pick = async () => {
        // Keys typed while the chat webview has focus do not all reach the workbench: focus the editor area first.
        await page.click(".editor-group-container.active");
        await page.keyboard.press("Control+P");
        await page.waitForSelector(".quick-input-widget input", { state: "visible" });
        await page.keyboard.type(name);
        // The list re-renders while results arrive: a row found a moment ago may be detached; find it again then.
        return until(`${name} in quick open`, async () => {
          for (const r of await page.$$(".quick-input-widget .quick-input-list .monaco-list-row")) {
            if ((await r.$eval(".label-name", (e) => e.textContent?.trim()).catch(() => "")) === name) {
              await r.click({ timeout: 2000 });
              return true;
            }
          }
          return undefined;
        }, 10000);
      };
      for (let attempt = 1; ; attempt++) {
        try {
          await pick();
          break;
        } catch (err) {
          if (attempt === 3) throw err;
          log(`${name} not in quick open yet (attempt ${attempt}); asking again`);
          await page.keyboard.press("Escape");
          await sleep(1000);
        }
      }
      await until(`${name} open in the editor`, async () => (await editorText()).includes(expected), 15000);
    };
    const send = async (text) => {
      await frame.fill("#prompt", text);
      await frame.press("#prompt", "Enter");
    };
    const turnEnded = () => until("the turn to end", async () => await frame.isVisible("#send"));

    let frame;
    await scenario("chat view streams an answer", async () => {
      await runCommand("Agent Server: New Chat");
      frame = await chatFrame();
      await until("the model picker", async () => (await frame.$$eval("#model option", (o) => o.map((x) => x.value))).includes(MODEL));
      // An empty chat greets with a short help (the welcome view), gone once the chat has content.
      const welcome = await until("the welcome view", async () => (await frame.isVisible("#welcome")) && frame.$eval("#welcome", (e) => e.textContent));
      if (!welcome.includes("@") || !welcome.includes("Escape")) throw new Error(`the welcome view lacks the basics: ${welcome}`);
      await shot("vscode-welcome.png");
      const answer = "Hello from the **fake** model, streamed in pieces!";
      await script(fake.url, [{ steps: [{ thinking: "Greeting the user." }, ...answer.match(/.{1,6}/g).flatMap((p) => [{ text: p }, { delay: 0.05 }])] }]);
      await frame.fill("#prompt", "Say hello");
      await frame.press("#prompt", "Enter"); // Enter sends
      await until("the streamed answer", async () => (await agentText(frame)).includes("Hello from the fake model, streamed in pieces!"));
      if (await frame.isVisible("#welcome")) throw new Error("the welcome view stayed over the chat");
      const strong = await frame.$eval(".item.agent strong", (e) => e.textContent);
      if (strong !== "fake") throw new Error(`markdown not rendered: <strong>${strong}</strong>`);
      const thought = await frame.$eval(".item.thought details", (d) => ({ open: d.open, text: d.textContent }));
      if (thought.open || !thought.text.includes("Greeting the user.")) throw new Error(`thinking not folded: ${JSON.stringify(thought)}`);
      await until("the turn to end", async () => await frame.isVisible("#send"));
    });

    await scenario("approving write_file changes the file on disk", async () => {
      await script(fake.url, [
        { steps: [{ tool_calls: [{ name: "write_file", arguments: { path: "notes.txt", content: "written by the agent\n" } }] }] },
        { text: "done", pieces: 1 },
      ]);
      await frame.fill("#prompt", "Write the notes file");
      await frame.press("#prompt", "Enter");
      const allow = await until("the approval buttons", async () => frame.$('.item.tool button[data-option="allow_once"]'));
      const labels = await frame.$$eval(".item.tool .approval button", (bs) => bs.map((b) => b.textContent));
      const expected = ["Allow once", "Allow for this session", "Always allow", "Reject", "Always reject"];
      if (JSON.stringify(labels) !== JSON.stringify(expected)) throw new Error(`expected ${JSON.stringify(expected)}, got ${JSON.stringify(labels)}`);
      if (existsSync(join(ws, "notes.txt"))) throw new Error("the file was written before approval");
      await allow.click();
      await until("the answer after the tool", async () => (await lastAgentText(frame)).includes("done"));
      await until("notes.txt on disk", async () => existsSync(join(ws, "notes.txt")) && readFileSync(join(ws, "notes.txt"), "utf8") === "written by the agent\n");
      const card = await frame.$eval(".item.tool", (e) => ({ cls: e.className, text: e.textContent }));
      if (!card.cls.includes("status-completed")) throw new Error(`tool card not completed: ${JSON.stringify(card)}`);
      if (!card.text.includes("Allowed once")) throw new Error(`decision not shown: ${card.text}`);
      await until("the turn to end", async () => await frame.isVisible("#send"));
    });

    await scenario("stop button stops a long answer", async () => {
      const steps = [];
      for (let i = 0; i < 300; i++) steps.push({ text: `chunk${i} ` }, { delay: 0.1 });
      await script(fake.url, [{ steps }]);
      await frame.fill("#prompt", "Give me a long answer");
      await frame.press("#prompt", "Enter");
      await until("the long answer to start", async () => (await lastAgentText(frame)).includes("chunk3 "));
      await frame.click("#stop");
      await until("the stopped notice", async () => frame.isVisible(".notice.stopped"), 10000);
      const atStop = (await lastAgentText(frame)).length;
      await sleep(1500);
      const later = await lastAgentText(frame);
      if (later.length !== atStop) throw new Error(`the answer kept growing after stop: ${atStop} -> ${later.length}`);
      if (later.includes("chunk299")) throw new Error("the whole answer arrived: stop had no effect");
      if (!(await frame.isVisible("#send")) || (await frame.isVisible("#stop"))) throw new Error("the composer still shows busy");
      const notice = await frame.$eval(".notice.stopped", (e) => e.textContent);
      if (notice !== "Stopped.") throw new Error(`unexpected notice: ${notice}`);
    });

    await scenario("ask about selection sends the selected code and the question", async () => {
      await openFile("calc.py", "def mul(a, b):");
      await page.keyboard.press("Control+G"); // go to line 5, then select it and the next one
      await until("the go-to-line box", async () => (await page.$eval(".quick-input-widget input", (e) => e.value).catch(() => "")) === ":", 5000);
      await page.keyboard.type("5");
      await page.keyboard.press("Enter");
      await page.waitForSelector(".quick-input-widget", { state: "hidden" });
      await page.keyboard.press("Shift+ArrowDown");
      await page.keyboard.press("Shift+End");
      // "def mul(a, b):\n    return a * b" is 31 characters: the status bar confirms the selection before we go on.
      await until("the selection in the status bar", async () =>
        (await page.$$eval(".statusbar-item", (els) => els.map((e) => e.textContent ?? ""))).some((t) => t.includes("(31 selected)")), 5000);
      await script(fake.url, [{ text: "It multiplies a by b.", pieces: 2 }]);
      const before = (await chatRequests(fake.url)).length;
      await page.keyboard.press("Control+Alt+A"); // the command's keybinding
      // The command's own input box (by its placeholder): typing earlier would go into the editor.
      await page.waitForSelector('.quick-input-widget input[placeholder="What does this do?"]', { state: "visible" });
      await page.keyboard.type("What does this function do?");
      await page.keyboard.press("Enter");
      await until("the answer about the selection", async () => (await lastAgentText(frame)).includes("It multiplies a by b."));
      const bubble = await frame.$$eval(".item.user", (els) => {
        const last = els[els.length - 1];
        return { chips: [...last.querySelectorAll(".attachment")].map((c) => c.textContent), text: last.querySelector(".text")?.textContent };
      });
      if (bubble.chips.join() !== "calc.py:5-6" || bubble.text !== "What does this function do?") {
        throw new Error(`the user bubble shows ${JSON.stringify(bubble)}`);
      }
      const requests = await chatRequests(fake.url);
      if (requests.length !== before + 1) throw new Error(`expected one new LLM request, got ${requests.length - before}`);
      const last = requests[requests.length - 1].json.messages.at(-1);
      const sent = `${last.role}: ${last.content}`;
      for (const part of ["user: ", "calc.py", "lines 5-6", "def mul(a, b):\n    return a * b", "What does this function do?"]) {
        if (!sent.includes(part)) throw new Error(`the prompt the LLM got lacks ${JSON.stringify(part)}:\n${sent}`);
      }
      if (sent.includes("def add")) throw new Error(`the prompt has more than the selection:\n${sent}`);
      await turnEnded();
    });

    await scenario("approved edit_file shows in the editor and Ctrl+Z undoes it", async () => {
      await openFile("greet.py", 'return "hello " + name');
      await script(fake.url, [
        { steps: [{ tool_calls: [{ name: "edit_file", arguments: { path: "greet.py", old_text: 'return "hello " + name', new_text: 'return "hello, " + name + "!"' } }] }] },
        { text: "Made it friendlier.", pieces: 1 },
      ]);
      const cardsBefore = (await frame.$$(".item.tool")).length;
      await send("Make the greeting friendlier");
      const allow = await until("the approval buttons", async () => frame.$('.item.tool.asking button[data-option="allow_once"]'));
      const cards = await frame.$$eval(".item.tool .tool-title", (els) => els.map((e) => e.textContent));
      if (cards.length !== cardsBefore + 1 || !cards.at(-1).includes("greet.py")) throw new Error(`the edit has no card of its own: ${JSON.stringify(cards)}`);
      if ((await editorText()).includes('"hello, "')) throw new Error("the editor changed before approval");
      if (readFileSync(join(ws, "greet.py"), "utf8") !== GREET) throw new Error("the file changed before approval");
      await allow.click();
      await until("the edit in the editor buffer", async () => (await editorText()).includes('return "hello, " + name + "!"'));
      await until("the answer after the edit", async () => (await lastAgentText(frame)).includes("Made it friendlier."));
      await until("the edit saved to disk", async () => readFileSync(join(ws, "greet.py"), "utf8") === GREET_EDITED);
      const diff = await frame.$$eval(".item.tool", (cs) => cs[cs.length - 1].querySelector(".diff")?.textContent ?? "");
      if (!diff.includes("greet.py") || !diff.includes("+1") || !diff.includes("-1")) throw new Error(`no diff on the card: ${diff}`);
      await turnEnded();
      await page.click(".editor-group-container.active .monaco-editor .view-lines"); // focus the editor, not the chat
      await page.keyboard.press("Control+Z");
      await until("the original text back after undo", async () => {
        const text = await editorText();
        return text.includes('return "hello " + name') && !text.includes('"hello, "');
      }, 10000);
      // The workbench saves the file of an undone workspace edit again (seen in code-server 4.139.1): the disk follows.
      await until("the original text back on disk", async () => readFileSync(join(ws, "greet.py"), "utf8") === GREET, 10000);
    });

    await scenario("index workspace reports the files and codebase_search finds code", async () => {
      await runCommand("Agent Server: Index Workspace");
      const done = await until("the 'Workspace indexed' notification", async () => {
        const texts = await page.$$eval(".notifications-toasts .notification-list-item-message", (els) => els.map((e) => e.textContent ?? ""));
        return texts.find((t) => t.startsWith("Workspace indexed:"));
      }, 60000, 200);
      const files = Number(/(\d+) files?/.exec(done)?.[1] ?? 0);
      if (files < 3) throw new Error(`expected at least README.md, calc.py and greet.py indexed: ${done}`);
      await script(fake.url, [
        { steps: [{ tool_calls: [{ name: "codebase_search", arguments: { query: "mul multiply" } }] }] },
        { text: "It is in calc.py.", pieces: 1 },
      ]);
      await send("Where do we multiply?");
      await until("the answer after the search", async () => (await lastAgentText(frame)).includes("It is in calc.py."));
      const result = await frame.$$eval(".item.tool", (cards) => cards[cards.length - 1].textContent ?? "");
      if (!result.includes("Search code for")) throw new Error(`the last card is not the search: ${result}`);
      if (!result.includes("calc.py:") || !result.includes("def mul")) throw new Error(`the search found nothing useful: ${result}`);
      await turnEnded();
    });

    await scenario("history lists earlier sessions and resuming replays one", async () => {
      await titleAction("New Chat");
      await until("an empty chat", async () => (await frame.$$(".item")).length === 0, 10000);
      await script(fake.url, [{ text: "Bananas are berries.", pieces: 1 }]);
      await send("Second topic: bananas");
      await until("the second session's answer", async () => (await lastAgentText(frame)).includes("Bananas are berries."));
      await turnEnded();
      await titleAction("Chat History");
      const titles = await until("both sessions in the history", async () => {
        const t = await frame.$$eval("#sessions .session-title", (els) => els.map((e) => e.textContent));
        return t.includes("Say hello") && t.includes("Second topic: bananas") ? t : undefined;
      }, 10000);
      if (titles.length !== 2) throw new Error(`expected two sessions, got ${JSON.stringify(titles)}`);
      const first = await frame.$('#sessions .session:has(.session-title:text-is("Say hello"))');
      await first.click();
      await until("the earlier answer replayed", async () => (await agentText(frame)).includes("Hello from the fake model, streamed in pieces!"));
      const replayed = await agentText(frame);
      if (replayed.includes("Bananas")) throw new Error("the other session's answer is in the resumed chat");
      const users = await frame.$$eval(".item.user .text", (els) => els.map((e) => e.textContent));
      if (!users.includes("Say hello")) throw new Error(`the earlier prompt was not replayed: ${JSON.stringify(users)}`);
      if (!(await frame.isHidden("#sessions"))) throw new Error("the session list stayed open");
      await script(fake.url, [{ text: "Still here.", pieces: 1 }]);
      await send("Are you still there?");
      await until("an answer in the resumed session", async () => (await lastAgentText(frame)).includes("Still here."));
      const requests = await chatRequests(fake.url);
      const history = conversation(requests[requests.length - 1]);
      if (!history.includes("Hello from the **fake** model") || history.includes("Bananas")) {
        throw new Error(`the resumed session did not continue the earlier conversation:\n${history}`);
      }
      await turnEnded();
    });

    await scenario("the model picker switches the model of the next request", async () => {
      const options = await frame.$$eval("#model option", (o) => o.map((x) => x.value));
      if (!options.includes(MODEL) || !options.includes(MODEL_B)) throw new Error(`the picker lists ${JSON.stringify(options)}`);
      if ((await frame.$eval("#model", (s) => s.value)) !== MODEL) throw new Error("the picker does not show the configured model");
      const used = (await chatRequests(fake.url)).map((r) => r.json.model);
      if (used.some((m) => m !== MODEL)) throw new Error(`requests before the switch used ${JSON.stringify([...new Set(used)])}`);
      await frame.selectOption("#model", MODEL_B);
      await sleep(300); // a models list racing the selection would flip the picker back: give it the chance
      if ((await frame.$eval("#model", (s) => s.value)) !== MODEL_B) throw new Error("the picker did not keep the selected model");
      await script(fake.url, [{ text: "Answered by the other model.", pieces: 1 }]);
      await send("Which model are you?");
      await until("the answer from model b", async () => (await lastAgentText(frame)).includes("Answered by the other model."));
      const requests = await chatRequests(fake.url);
      const model = requests[requests.length - 1].json.model;
      if (model !== MODEL_B) throw new Error(`the request after the switch used ${model}, not ${MODEL_B}`);
      await turnEnded();
    });

    await scenario("the model picker shows context lengths and no embedding model; a model the server lacks gets the available ones", async () => {
      const tags = await (await fetch(`${fake.url}/api/tags`)).json();
      if (!tags.models.some((m) => m.name === EMBEDDING_MODEL)) throw new Error("the fake does not list the embedding model");
      const options = await frame.$$eval("#model option", (o) => o.map((x) => ({ value: x.value, text: x.textContent })));
      if (options.some((o) => o.value === EMBEDDING_MODEL)) throw new Error(`the picker offers the embedding model: ${JSON.stringify(options)}`);
      for (const name of [MODEL, MODEL_B]) {
        const option = options.find((o) => o.value === name);
        if (!option?.text.includes("32k context")) throw new Error(`${name} shows no context length: ${JSON.stringify(option)}`);
        if (!option.text.includes("vision")) throw new Error(`${name} sees pictures (--vision) but is not marked: ${JSON.stringify(option)}`);
      }
      // The chat's model (MODEL_B since the picker scenario) disappears from the server, which answers 404.
      const current = await frame.$eval("#model", (s) => s.value);
      const setModels = (names) => fetch(`${fake.url}/_fake/models`, { method: "POST", body: JSON.stringify(names) });
      await setModels([MODEL, MODEL_B, EMBEDDING_MODEL].filter((m) => m !== current));
      try {
        await script(fake.url, [{ status: 404, error_body: { error: `model '${current}' not found` } }]);
        await send("Are you there?");
        const shown = await until("the missing-model message", async () => {
          const errors = await frame.$$eval(".notice.error", (els) => els.map((e) => e.textContent ?? ""));
          return errors.find((e) => e.includes(`'${current}' is not on the LLM server`));
        });
        const other = current === MODEL ? MODEL_B : MODEL;
        if (!shown.includes(`available: ${other}`)) throw new Error(`the message does not list the available models: ${shown}`);
        await turnEnded();
      } finally {
        await setModels([MODEL, MODEL_B, EMBEDDING_MODEL]);
      }
    });

    await scenario("a command's approval shows the exact command and folder; a rejection is neutral with the reason", async () => {
      await script(fake.url, [
        { steps: [{ tool_calls: [{ name: "run_command", arguments: { command: "touch made-by-agent.txt", cwd: "." } }] }] },
        { text: "Not run, then.", pieces: 1 },
      ]);
      await send("Create a marker file");
      const reject = await until("the approval buttons", async () => frame.$('.item.tool.asking button[data-option="reject_once"]'));
      const command = await frame.$eval(".item.tool.asking pre.command", (e) => e.textContent);
      const where = await frame.$eval(".item.tool.asking .cwd", (e) => e.textContent);
      if (command !== "$ touch made-by-agent.txt" || where !== "in the workspace folder") throw new Error(`the card shows ${command} / ${where}`);
      await reject.click();
      await until("the answer after the rejection", async () => (await lastAgentText(frame)).includes("Not run, then."));
      const card = await lastCard();
      if (!card.cls.includes("status-rejected") || card.cls.includes("status-failed")) throw new Error(`the card is not neutral: ${card.cls}`);
      if (!card.text.includes("Rejected: you declined this call")) throw new Error(`no reason on the card: ${card.text}`);
      if (existsSync(join(ws, "made-by-agent.txt"))) throw new Error("the rejected command ran");
      await turnEnded();
    });

    await scenario("an edit's approval shows the diff before the choice; Open diff opens the native diff; reject keeps the file", async () => {
      await script(fake.url, [
        { steps: [{ tool_calls: [{ name: "edit_file", arguments: { path: "calc.py", old_text: "return a + b", new_text: "return a + b + 0  # proposed" } }] }] },
        { text: "Left it as it was.", pieces: 1 },
      ]);
      await send("Add zero in add()");
      await until("the approval buttons", async () => frame.$('.item.tool.asking button[data-option="reject_once"]'));
      const before = await frame.$eval(".item.tool.asking .diff", (e) => e.textContent ?? "");
      for (const part of ["calc.py", "-    return a + b", "+    return a + b + 0  # proposed"]) {
        if (!before.includes(part)) throw new Error(`the diff before the choice lacks ${JSON.stringify(part)}: ${before}`);
      }
      const link = await frame.$eval(".item.tool.asking .diff-path", (e) => e.textContent);
      if (link !== "calc.py") throw new Error(`the diff header is not workspace-relative: ${link}`);
      if (readFileSync(join(ws, "calc.py"), "utf8") !== CALC) throw new Error("calc.py changed before the choice");
      await shot("vscode-approval-diff.png");
      if (shots) {
        // The editable review diff the approval opened beside the chat (review.e2e.mjs checks it), for the README.
        const tabs = () => page.$$eval(".tab", (els) => els.map((e) => e.textContent ?? ""));
        await until("the review diff tab", async () => (await tabs()).some((x) => x.includes("now ↔ proposed")), 20000)
          .then(() => windowShot("vscode-review-diff.png", 1000))
          .catch((err) => log(`no vscode-review-diff.png: ${err.message}`));
      }
      await frame.click(".item.tool.asking button.open-diff");
      await until("the native diff editor with the proposed text", async () => {
        const text = await page.$eval(".editor-group-container.active .monaco-diff-editor", (e) => e.textContent ?? "").catch(() => "");
        return text.replace(/\u00a0/g, " ").includes("# proposed");
      }, 15000);
      const tab = await page.$eval(".editor-group-container.active .tab.active", (e) => e.textContent ?? "");
      if (!tab.includes("calc.py")) throw new Error(`the diff tab is ${tab}`);
      if (readFileSync(join(ws, "calc.py"), "utf8") !== CALC) throw new Error("opening the diff changed calc.py");
      await frame.click('.item.tool.asking button[data-option="reject_once"]');
      await until("the answer after the rejection", async () => (await lastAgentText(frame)).includes("Left it as it was."));
      const card = await lastCard();
      if (!card.cls.includes("status-rejected")) throw new Error(`the rejected edit is shown as ${card.cls}`);
      if (readFileSync(join(ws, "calc.py"), "utf8") !== CALC) throw new Error("the rejected edit changed calc.py");
      await turnEnded();
      await runCommand("View: Close Editor");
    });

    await scenario("sending while scrolled up scrolls to the latest; jump to latest appears when scrolled up", async () => {
      // Varied sentences: the server's repetition guard rightly stops a stream of near-identical lines.
      const words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu".split(" ");
      const long = Array.from({ length: 45 }, (_, i) => `Point ${i}: ${[0, 1, 2, 3, 4, 5].map((k) => words[(i * 7 + k * (i % 5 + 2)) % 26]).join(" ")}.`).join("\n\n");
      await script(fake.url, [{ text: long, pieces: 4 }, { text: "The short answer at the end.", pieces: 1 }]);
      await send("Give me a long answer");
      await until("the long answer", async () => (await lastAgentText(frame)).includes("Point 44:"));
      await turnEnded();
      await frame.$eval("#transcript", (v) => v.scrollTo(0, 0));
      await until("the jump button", async () => frame.isVisible("#jump"), 5000);
      await send("And now a short one");
      await until("the short answer", async () => (await lastAgentText(frame)).includes("The short answer at the end."));
      await until("the view at the bottom", atBottom, 5000);
      const visible = await frame.$eval("#transcript", (v) => {
        const users = v.querySelectorAll(".item.user");
        const r = users[users.length - 1].getBoundingClientRect();
        const box = v.getBoundingClientRect();
        return r.bottom > box.top && r.top < box.bottom;
      });
      if (!visible) throw new Error("the prompt just sent is not visible");
      if (await frame.isVisible("#jump")) throw new Error("the jump button is shown at the bottom");
      await turnEnded();
      await frame.$eval("#transcript", (v) => v.scrollTo(0, 0));
      await until("the jump button again", async () => frame.isVisible("#jump"), 5000);
      await frame.click("#jump");
      await until("the view at the bottom after jump", atBottom, 5000);
    });

    await scenario("@-mentions and the File chip reach the LLM as the files' text", async () => {
      await openFile("greet.py", "def greet(name):");
      await frame.click("#prompt");
      await frame.type("#prompt", "What do @cal");
      const option = await until("calc.py in the @ completion", async () => frame.$('#mention-list [data-file="calc.py"]'), 10000);
      await option.dispatchEvent("mousedown");
      await frame.type("#prompt", "and this file do?");
      await frame.click("#attach-buffer");
      const chips = await until("two chips", async () => {
        const c = await frame.$$eval("#chips .chip", (els) => els.map((e) => e.firstChild?.textContent ?? ""));
        return c.length === 2 ? c : undefined;
      }, 10000);
      if (chips.join() !== "@calc.py,greet.py") throw new Error(`chips: ${JSON.stringify(chips)}`);
      await shot("vscode-mentions.png");
      await script(fake.url, [{ text: "calc adds and multiplies; greet greets.", pieces: 1 }]);
      await frame.press("#prompt", "Enter");
      await until("the answer", async () => (await lastAgentText(frame)).includes("greet greets."));
      const bubble = await frame.$$eval(".item.user", (els) => [...els[els.length - 1].querySelectorAll(".attachment")].map((c) => c.textContent));
      if (bubble.join() !== "calc.py,greet.py") throw new Error(`the user bubble shows ${JSON.stringify(bubble)}`);
      if ((await frame.$$("#chips .chip")).length) throw new Error("the chips stayed after sending");
      const requests = await chatRequests(fake.url);
      const last = requests[requests.length - 1].json.messages.at(-1).content;
      for (const part of ["From `calc.py`", "def mul(a, b):", "From `greet.py`", 'return "hello " + name', "What do @calc.py and this file do?"]) {
        if (!last.includes(part)) throw new Error(`the prompt the LLM got lacks ${JSON.stringify(part)}:\n${last}`);
      }
      await turnEnded();
    });

    await scenario("a pasted image shows as a removable thumbnail and reaches the LLM; a dropped non-image is refused", async () => {
      // A 1x1 PNG, pasted into the prompt and dropped onto the composer as the browser delivers them (a DataTransfer
      // of File objects), then removed once and pasted again.
      const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC";
      const deliver = (kind, name, type, b64) =>
        frame.evaluate(([kind, name, type, b64]) => {
          const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
          const data = new DataTransfer();
          data.items.add(new File([bytes], name, { type }));
          const target = kind === "paste" ? document.getElementById("prompt") : document.getElementById("composer");
          const event = kind === "paste"
            ? new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true })
            : new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true });
          target.dispatchEvent(event);
        }, [kind, name, type, b64]);
      await frame.fill("#prompt", "What is in this picture?");
      await deliver("paste", "dot.png", "image/png", PIXEL);
      await until("the thumbnail", async () => (await frame.$$("#images .thumb img")).length === 1, 10000);
      await frame.click("#images .thumb-remove");
      await until("the thumbnail removed", async () => (await frame.$$("#images .thumb")).length === 0, 10000);
      await deliver("drop", "notes.txt", "text/plain", btoa("not a picture"));
      // Said above the prompt, about this attempt: never pinned in the transcript.
      await until("the refusal", async () => (await frame.isVisible("#composer-notice")) && (await frame.textContent("#composer-notice")).includes("Image not attached: notes.txt"), 10000);
      if ((await frame.$$eval(".item.notice", (e) => e.map((x) => x.textContent).join("\n"))).includes("notes.txt")) throw new Error("the refusal is in the transcript");
      await deliver("drop", "dot.png", "image/png", PIXEL);
      await until("the thumbnail again", async () => (await frame.$$("#images .thumb img")).length === 1, 10000);
      const src = await frame.$eval("#images .thumb img", (i) => i.getAttribute("src"));
      if (src !== `data:image/png;base64,${PIXEL}`) throw new Error(`the thumbnail shows ${src}`);
      if (shots) {
        // The test pixel is 1x1, too small to see in the README's screenshot: a real picture beside it, removed after.
        const picture = readFileSync(join(repoRoot, "docs/images/vscode-review-changes.png")).toString("base64");
        await deliver("paste", "screenshot.png", "image/png", picture);
        await until("the second thumbnail", async () => (await frame.$$("#images .thumb img")).length === 2, 10000);
        await deliver("drop", "notes.txt", "text/plain", btoa("not a picture")); // the refusal, above the prompt
        await until("the refusal again", async () => frame.isVisible("#composer-notice"), 10000);
        if (await frame.isVisible("#jump")) await frame.click("#jump");
        await sleep(300);
      }
      await shot("vscode-image.png");
      if (shots) {
        await frame.click("#images .thumb:nth-child(2) .thumb-remove");
        await until("the second thumbnail removed", async () => (await frame.$$("#images .thumb")).length === 1, 10000);
      }
      await script(fake.url, [{ text: "A single black pixel.", pieces: 1 }]);
      await frame.press("#prompt", "Enter");
      await until("the answer", async () => (await lastAgentText(frame)).includes("A single black pixel."));
      if ((await frame.$$("#images .thumb")).length) throw new Error("the thumbnail stayed after sending");
      const bubble = await frame.$$eval(".item.user", (els) => [...els[els.length - 1].querySelectorAll(".attachment")].map((c) => c.textContent));
      if (!bubble.includes("dot.png")) throw new Error(`the user bubble shows ${JSON.stringify(bubble)}`);
      const requests = await chatRequests(fake.url);
      const user = requests[requests.length - 1].json.messages.filter((m) => m.role === "user").at(-1);
      if (JSON.stringify(user.images) !== JSON.stringify([PIXEL])) throw new Error(`the LLM got images ${JSON.stringify(user.images)}`);
      if (!user.content.includes("What is in this picture?")) throw new Error(`the LLM got ${user.content}`);
      if (await frame.isVisible("#composer-notice")) throw new Error("the refusal stayed after sending");
      await turnEnded();
    });

    await scenario("Insert puts a code block at the cursor; Retry sends the last prompt again", async () => {
      await openFile("README.md", "# demo project");
      await script(fake.url, [
        { text: "Use this:\n\n```python\nprint('inserted by the chat')\n```\n", pieces: 1 },
        { text: "Second try: same idea.", pieces: 1 },
      ]);
      await send("Show me a print");
      await until("the code block", async () => frame.$(".item.agent .code-block button.insert"));
      await turnEnded();
      await frame.click(".item.agent:last-of-type .code-block button.insert, .item.agent .code-block button.insert");
      await until("the code in the editor", async () => (await editorText()).includes("print('inserted by the chat')"), 10000);
      const before = (await chatRequests(fake.url)).length;
      await frame.click(".item.user.latest button.retry");
      await until("the retried answer", async () => (await lastAgentText(frame)).includes("Second try: same idea."));
      const requests = await chatRequests(fake.url);
      if (requests.length !== before + 1) throw new Error(`retry made ${requests.length - before} requests`);
      const last = requests[requests.length - 1].json.messages.at(-1);
      if (last.role !== "user" || last.content !== "Show me a print") throw new Error(`retry sent ${JSON.stringify(last)}`);
      await turnEnded();
      await page.click(".editor-group-container.active .monaco-editor .view-lines");
      await page.keyboard.press("Control+Z");
      await until("the insertion undone", async () => !(await editorText()).includes("inserted by the chat"), 10000);
    });

    await scenario("view title icons open the history; search filters it and delete removes a session", async () => {
      await titleAction("New Chat");
      await until("an empty chat", async () => (await frame.$$(".item")).length === 0, 10000);
      if (await frame.isVisible("#toolbar #history")) throw new Error("the side bar repeats the view title's actions as buttons");
      await titleAction("Chat History");
      await until("the history list", async () => (await frame.$$("#sessions .session")).length >= 2, 10000);
      await frame.fill("#session-search", "banana");
      const shown = await until("the filtered list", async () => {
        const t = await frame.$$eval("#sessions .session-title", (els) => els.map((e) => e.textContent));
        return t.length === 1 ? t : undefined;
      }, 5000);
      if (shown[0] !== "Second topic: bananas") throw new Error(`search shows ${JSON.stringify(shown)}`);
      await frame.click("#sessions .session-delete");
      await until("the deleted session gone", async () => {
        await frame.fill("#session-search", "");
        const t = await frame.$$eval("#sessions .session-title", (els) => els.map((e) => e.textContent));
        return t.length >= 1 && !t.includes("Second topic: bananas");
      }, 10000);
    });

    await scenario("the chat is restored after a window reload", async () => {
      await frame.$eval("#sessions", (e) => (e.hidden = true));
      await script(fake.url, [{ text: "Remember the pineapple.", pieces: 1 }]);
      await send("Before the reload");
      await until("the answer", async () => (await lastAgentText(frame)).includes("Remember the pineapple."));
      await turnEnded();
      await page.reload();
      await page.waitForSelector(".monaco-workbench", { timeout: 60000 });
      frame = await chatFrame();
      await until("the chat replayed after the reload", async () => (await agentText(frame)).includes("Remember the pineapple."), 60000);
      const users = await frame.$$eval(".item.user .text", (els) => els.map((e) => e.textContent));
      if (!users.includes("Before the reload")) throw new Error(`the prompt was not restored: ${JSON.stringify(users)}`);
    });

    /** Clicks the row of the open quick pick whose label is exactly `label`. */
    const pickQuick = async (label) => {
      await until(`${label} in the quick pick`, async () => {
        for (const r of await page.$$(".quick-input-widget .quick-input-list .monaco-list-row")) {
          if ((await r.$eval(".label-name", (e) => e.textContent?.trim()).catch(() => "")) === label) {
            await r.click({ timeout: 2000 });
            return true;
          }
        }
        return undefined;
      }, 10000);
    };
    const headerMode = () => frame.$eval("#mode", (e) => ({ id: e.dataset.mode, text: e.textContent }));
    const pickMode = async (label, id, shotName) => {
      await frame.click("#mode");
      if (shotName) {
        await until(`${label} in the mode picker`, async () => page.$(".quick-input-widget .quick-input-list .monaco-list-row"), 10000);
        await sleep(300); // the list finishes laying out
        await windowShot(shotName);
      }
      await pickQuick(label);
      await until(`the header showing ${label}`, async () => (await headerMode()).id === id, 10000);
    };
    const toolNames = (request) => (request.json.tools ?? []).map((t) => t.function?.name ?? t.name);

    await scenario("the header's mode picker switches to plan: the next request offers no write tools", async () => {
      // The session resumed after the reload shows its stored mode (agent/session/load answers with it).
      await until("the resumed session's mode in the header", async () => (await headerMode()).text === "Code", 10000);
      await pickMode("Plan", "plan", "vscode-mode-picker.png");
      if ((await headerMode()).text !== "Plan") throw new Error(`the header shows ${JSON.stringify(await headerMode())}`);
      await script(fake.url, [{ text: "Step 1: read calc.py.", pieces: 1 }]);
      await send("Plan how to add a subtract function");
      await until("the plan answer", async () => (await lastAgentText(frame)).includes("Step 1: read calc.py."));
      const planTools = toolNames((await chatRequests(fake.url)).at(-1));
      if (!planTools.includes("update_plan") || ["write_file", "edit_file", "run_command"].some((t) => planTools.includes(t))) {
        throw new Error(`plan mode offered ${JSON.stringify(planTools)}`);
      }
      await turnEnded();
      await pickMode("Code", "code");
      await script(fake.url, [{ text: "Back to coding.", pieces: 1 }]);
      await send("And now in code mode?");
      await until("the code-mode answer", async () => (await lastAgentText(frame)).includes("Back to coding."));
      const codeTools = toolNames((await chatRequests(fake.url)).at(-1));
      if (!codeTools.includes("write_file")) throw new Error(`code mode lost write_file: ${JSON.stringify(codeTools)}`);
      await turnEnded();
    });

    await scenario("New Agent Profile creates the file from the form and the mode picker lists it", async () => {
      await runCommand("Agent Server: New Agent Profile");
      await page.waitForSelector('.quick-input-widget input[placeholder="reviewer"]', { state: "visible" });
      await page.keyboard.type("reviewer");
      await page.keyboard.press("Enter");
      await page.waitForSelector('.quick-input-widget input[placeholder^="Reviews the change"]', { state: "visible" });
      await page.keyboard.type("Reviews changes for bugs; never edits.");
      await page.keyboard.press("Enter");
      // Tools: the read-only ones come checked; Enter accepts them.
      await page.waitForSelector('.quick-input-widget input[placeholder^="Tools it may use"]', { state: "visible" });
      await page.keyboard.press("Enter");
      await page.waitForSelector('.quick-input-widget input[placeholder="Model for this profile"]', { state: "visible" });
      await pickQuick(MODEL_B);
      const file = join(ws, ".agent-server/agents/reviewer.md");
      await until("the profile on disk", async () => existsSync(file), 15000);
      const text = readFileSync(file, "utf8");
      for (const part of ["name: reviewer", "Reviews changes for bugs; never edits.", `model: ${MODEL_B}`, "- read_file"]) {
        if (!text.includes(part)) throw new Error(`the profile lacks ${JSON.stringify(part)}:\n${text}`);
      }
      if (text.includes("write_file")) throw new Error(`the profile allows write_file:\n${text}`);
      await until("the profile open in the editor", async () => (await editorText()).includes("name: reviewer"), 15000);
      await pickMode("Reviewer", "reviewer");
      await pickMode("Code", "code");
      await runCommand("View: Close Editor");
    });

    await scenario("Review changes on a turn opens its diff; Restore Checkpoint puts the file back and cuts the chat", async () => {
      writeFileSync(join(ws, "todo.txt"), "one\n");
      await titleAction("New Chat");
      await until("an empty chat", async () => (await frame.$$(".item")).length === 0, 10000);
      await script(fake.url, [{ text: "Noted.", pieces: 1 }]);
      await send("Keep this message");
      await until("the first answer", async () => (await lastAgentText(frame)).includes("Noted."));
      await turnEnded();
      await script(fake.url, [
        { steps: [{ tool_calls: [{ name: "write_file", arguments: { path: "todo.txt", content: "two\n" } }] }] },
        { text: "Rewrote it.", pieces: 1 },
      ]);
      await send("Rewrite the todo file");
      const allow = await until("the approval buttons", async () => frame.$('.item.tool.asking button[data-option="allow_once"]'));
      await allow.click();
      await until("the answer after the write", async () => (await lastAgentText(frame)).includes("Rewrote it."));
      await until("todo.txt rewritten", async () => readFileSync(join(ws, "todo.txt"), "utf8") === "two\n");
      await turnEnded();

      // The turn that wrote a file offers Review / Restore on its prompt; the earlier, read-only turn does not.
      const offered = await frame.$$eval(".item.user", (els) => els.map((e) => !!e.querySelector("button.review-turn")));
      if (offered.join() !== "false,true") throw new Error(`the Review button is on the wrong prompts: ${offered}`);
      await frame.click(".item.user button.review-turn");
      await until("the turn's diff in the editor", async () => {
        const tab = await page.$eval(".editor-group-container.active .tab.active", (e) => e.textContent ?? "").catch(() => "");
        const lines = await page.$$eval(".editor-group-container.active .view-lines", (els) => els.map((e) => e.innerText).join("\n")).catch(() => "");
        return tab.includes("Rewrite the todo file") && lines.includes("one") && lines.includes("two");
      }, 15000);
      if (readFileSync(join(ws, "todo.txt"), "utf8") !== "two\n") throw new Error("reviewing changed the file");
      await windowShot("vscode-review-changes.png");
      await runCommand("View: Close Editor");

      await runCommand("Agent Server: Restore Checkpoint…");
      await pickQuick("Rewrite the todo file");
      const dialog = await until("the restore confirmation", async () => page.$(".monaco-dialog-box"), 15000);
      const question = (await dialog.textContent()) ?? "";
      if (!question.includes("M todo.txt")) throw new Error(`the confirmation does not list the file: ${question}`);
      if (readFileSync(join(ws, "todo.txt"), "utf8") !== "two\n") throw new Error("the preview restored the file");
      await windowShot("vscode-restore-checkpoint.png");
      await page.click('.monaco-dialog-box .monaco-button:has-text("Restore files and conversation")');
      await until("todo.txt back on disk", async () => readFileSync(join(ws, "todo.txt"), "utf8") === "one\n", 15000);
      await until("the cut turn gone from the chat", async () => {
        const users = await frame.$$eval(".item.user .text", (els) => els.map((e) => e.textContent));
        return users.includes("Keep this message") && !users.includes("Rewrite the todo file");
      }, 15000);
      await script(fake.url, [{ text: "After the restore.", pieces: 1 }]);
      await send("What happened?");
      await until("an answer after the restore", async () => (await lastAgentText(frame)).includes("After the restore."));
      const history = conversation((await chatRequests(fake.url)).at(-1));
      if (!history.includes("Keep this message") || history.includes("Rewrite the todo file")) {
        throw new Error(`the model still sees the removed turn (or lost the earlier one):\n${history}`);
      }
      await turnEnded();
    });

    await restoreScenarios({ scenario, until, script, fake, send, turnEnded, frame: () => frame, lastAgentText, titleAction, runCommand, page, ws, log, windowShot });
    await editsScenarios({ scenario, until, script, chatRequests, fake, send, turnEnded, openFile, frame: () => frame, lastAgentText });
    await reviewScenarios({ scenario, until, script, chatRequests, fake, send, turnEnded, frame: () => frame, lastAgentText, page, ws, openFile });
    await codeNavScenarios({ scenario, until, script, chatRequests, fake, send, turnEnded, frame: () => frame, lastAgentText, ws, openFile });
    await scenario("typing / completes the server's slash commands; the expanded prompt reaches the model", async () => {
      mkdirSync(join(ws, ".agent-server/commands"), { recursive: true });
      writeFileSync(join(ws, ".agent-server/commands/review.md"), "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1 for bugs (command R7).");
      try {
        await frame.fill("#prompt", "/rev");
        const row = await until("the command in the completion list", async () => {
          const rows = await frame.$$eval("#mention-list .mention-option", (els) => els.map((e) => e.textContent ?? ""));
          return rows.find((r) => r.startsWith("/review"));
        });
        if (row !== "/review <file> — Review a file") throw new Error(`unexpected completion row: ${row}`);
        await frame.press("#prompt", "Enter"); // picks the highlighted command, does not send
        const picked = await frame.$eval("#prompt", (e) => e.value);
        if (picked !== "/review ") throw new Error(`the pick left ${JSON.stringify(picked)}`);
        // (it reads the file it is asked about: an answer about a named file that never looked at it earns a nudge)
        await script(fake.url, [
          { steps: [{ tool_calls: [{ name: "read_file", arguments: { path: "calc.py" } }] }] },
          { text: "Reviewed.", pieces: 1 },
        ]);
        const before = (await chatRequests(fake.url)).length;
        await frame.press("#prompt", "End");
        await frame.type("#prompt", "calc.py");
        await frame.press("#prompt", "Enter");
        await until("the answer", async () => (await lastAgentText(frame)).includes("Reviewed."));
        await turnEnded();
        const last = (await chatRequests(fake.url))[before].json.messages.at(-1).content;
        if (last !== "Review calc.py for bugs (command R7).") throw new Error(`the model got: ${last}`);
      } finally {
        rmSync(join(ws, ".agent-server"), { recursive: true, force: true });
      }
    });

    await scenario("@ completes MCP resources beside files; the sent mention is read through the MCP session", async () => {
      // MCP servers come from the user's config file: write it, restart the server, and undo both at the end.
      const userConfig = join(tmp, "xdg/config/agent-server/config.toml");
      mkdirSync(dirname(userConfig), { recursive: true });
      const mcpServer = join(repoRoot, "tests/fakes/mcp_stdio_server.py");
      writeFileSync(userConfig, `[mcpServers.docs]\ncommand = ${JSON.stringify(python)}\nargs = [${JSON.stringify(mcpServer)}]\n`);
      try {
        await runCommand("Agent Server: Restart Server");
        await titleAction("New Chat");
        frame = await chatFrame();
        const row = await until("the MCP resource in the @ completion", async () => {
          await frame.fill("#prompt", "Summarize @read"); // each input asks again while the list is empty
          await new Promise((r) => setTimeout(r, 300));
          const rows = await frame.$$eval("#mention-list .mention-option", (els) => els.map((e) => e.textContent ?? ""));
          return rows.find((r) => r.startsWith("@docs:docs://readme"));
        }, 60000, 500);
        if (row !== "@docs:docs://readme — The project's readme.") throw new Error(`unexpected row: ${row}`);
        const rows = await frame.$$eval("#mention-list .mention-option", (els) => els.map((e) => e.textContent ?? ""));
        const active = rows.findIndex((r) => r === row);
        for (let i = 0; i < active; i++) await frame.press("#prompt", "ArrowDown");
        await frame.press("#prompt", "Enter"); // picks it as text, not a chip
        const picked = await frame.$eval("#prompt", (e) => e.value);
        if (picked !== "Summarize @docs:docs://readme ") throw new Error(`the pick left ${JSON.stringify(picked)}`);
        await script(fake.url, [{ text: "Summarized the readme.", pieces: 1 }]);
        await frame.press("#prompt", "Enter");
        await until("the answer", async () => (await lastAgentText(frame)).includes("Summarized the readme."));
        await turnEnded();
        const last = (await chatRequests(fake.url)).at(-1).json.messages.at(-1).content;
        if (!last.includes("The readme from the MCP server (resource R9).")) throw new Error(`the model got: ${last}`);
      } finally {
        rmSync(userConfig, { force: true });
        await runCommand("Agent Server: Restart Server").catch(() => undefined);
        await titleAction("New Chat").catch(() => undefined);
      }
    });

    await scenario("the context meter shows the rules files (AGENTS.md) and the model gets them", async () => {
      writeFileSync(join(ws, "AGENTS.md"), "Answer like a pirate (workspace rule P1).\n");
      try {
        await script(fake.url, [{ text: "Arr, rules read.", pieces: 1 }]);
        await send("Any house rules?");
        await until("the answer", async () => (await lastAgentText(frame)).includes("Arr, rules read."));
        await turnEnded();
        const system = (await chatRequests(fake.url)).at(-1).json.messages[0].content;
        if (!system.includes("(workspace rule P1)")) throw new Error(`AGENTS.md did not reach the model:\n${system}`);
        const meter = await until("the rules on the meter", async () => {
          const label = await frame.$eval("#meter-label", (e) => e.textContent ?? "");
          return label.includes("· rules") && { label, title: await frame.$eval("#meter", (e) => e.title) };
        });
        if (!meter.title.includes("Rules files:") || !meter.title.includes("AGENTS.md")) {
          throw new Error(`the meter's tooltip does not name the rules: ${meter.title}`);
        }
      } finally {
        rmSync(join(ws, "AGENTS.md"), { force: true });
      }
    });

    await scenario("a prompt typed while the server starts is queued and answered, not lost", async () => {
      writeFileSync(env.AGENT_E2E_SLOW, "");
      await runCommand("Agent Server: Restart Server");
      await until("the starting notice", async () => frame.isVisible("#server-status") && (await frame.textContent("#server-status"))?.includes("Starting"), 15000);
      await script(fake.url, [{ text: "Answered after the start.", pieces: 1 }]);
      await frame.fill("#prompt", "Typed during the start");
      await frame.press("#prompt", "Enter");
      rmSync(env.AGENT_E2E_SLOW, { force: true });
      await until("the answer to the early prompt", async () => (await lastAgentText(frame)).includes("Answered after the start."), 60000);
      const users = await frame.$$eval(".item.user .text", (els) => els.map((e) => e.textContent));
      if (users.filter((u) => u === "Typed during the start").length !== 1) throw new Error(`the prompt shows ${JSON.stringify(users)}`);
      const errors = await frame.$$eval(".notice.error", (els) => els.map((e) => e.textContent));
      if (errors.some((e) => e.includes("not running"))) throw new Error(`an error was shown: ${errors}`);
      await turnEnded();
    });

    await scenario("an agent edit on a non-ASCII last line without newline lands exactly in the open editor", async () => {
      const text = "日本 start 🎉\nmid x\u0301y 🏁 tail\nlast 日本 🎉 the END 🏁";
      writeFileSync(join(ws, "notes-utf.txt"), text);
      await openFile("notes-utf.txt", "the END");
      await script(fake.url, [
        { steps: [{ tool_calls: [{ name: "edit_file", arguments: { path: "notes-utf.txt", old_text: "the END 🏁", new_text: "the end ✅ 🐍" } }] }] },
        { steps: [{ tool_calls: [{ name: "edit_file", arguments: { path: "notes-utf.txt", old_text: "x\u0301y 🏁", new_text: "ÿ 🎌" } }] }] },
        { text: "Edited.", pieces: 1 },
      ]);
      const completed = async () => (await frame.$$(".item.tool.status-completed")).length;
      const before = await completed();
      await send("Fix the notes");
      for (let i = 1; i <= 2; i++) {
        const allow = await until("the approval buttons", async () => frame.$('.item.tool.asking button[data-option="allow_once"]'));
        await allow.click();
        await until(`edit ${i} done`, async () => (await completed()) >= before + i, 15000);
      }
      await until("the answer after the edits", async () => (await lastAgentText(frame)).includes("Edited."));
      const expected = text.replace("the END 🏁", "the end ✅ 🐍").replace("x\u0301y 🏁", "ÿ 🎌");
      await until("the edits on disk", async () => readFileSync(join(ws, "notes-utf.txt"), "utf8") === expected, 10000);
      await until("both edits, exactly, in the editor", async () => {
        const shown = await editorText();
        return shown.includes("last 日本 🎉 the end ✅ 🐍") && shown.includes("mid ÿ 🎌 tail") && !shown.includes("END");
      }, 10000);
      await turnEnded();
    });

    await polishScenarios({
      scenario, until, script, fake, send, turnEnded, frame: () => frame, lastAgentText, page, ws, runCommand, slowAgent: env.AGENT_E2E_SLOW_AGENT, shot,
      slowStart: env.AGENT_E2E_SLOW, startFakeLlm: (extraArgs) => startFakeLlm(env, extraArgs), log,
      reloadChat: async () => {
        await page.reload();
        await page.waitForSelector(".monaco-workbench", { timeout: 60000 });
        frame = await chatFrame();
      },
    });

    await trustSessionsScenarios({
      scenario, until, script, fake, send, turnEnded, frame: () => frame, titleAction, runCommand, page, ws, python, pickMode, lastAgentText,
      windowShot, shot,
    });

    if (process.env.E2E_FINAL_SHOT) await page.screenshot({ path: join(results, "final.png") });
  } catch (err) {
    outcomes.push({ name: "setup", ok: false });
    log(`FAIL setup: ${err.stack ?? err}`);
    await page?.screenshot({ path: join(results, "setup.png") }).catch(() => undefined);
  } finally {
    if (outcomes.some((o) => !o.ok) && existsSync(join(ud, "logs"))) {
      cpSync(join(ud, "logs"), join(results, "code-server-logs"), { recursive: true });
    }
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  }
  const passed = outcomes.filter((o) => o.ok).length;
  const failed = outcomes.length - passed;
  writeFileSync(join(results, "e2e-summary.json"), JSON.stringify({ passed, failed, outcomes }, null, 2));
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

await main();
