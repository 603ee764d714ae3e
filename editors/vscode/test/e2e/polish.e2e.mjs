// Issue 42's VS Code scenarios (imported by chat.e2e.mjs): a cancelled approval is not a failure, the server's wait
// for the model is shown in the chat, the server's progress (an index build) is seen on screen, and a prompt typed
// while the window restores its session goes after the restored history with an answer of its own, and "Models
// unavailable" is said once per failure of the LLM server, not at every ask for the model list.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export async function polishScenarios(t) {
  const { scenario, until, script, fake, send, turnEnded, frame, lastAgentText, page, ws, runCommand, reloadChat, slowAgent, shot } = t;
  const { slowStart, startFakeLlm, log } = t;
  const lastCard = () =>
    frame().$$eval(".item.tool", (cs) => {
      const c = cs[cs.length - 1];
      return { cls: c.className, status: c.querySelector(".tool-status")?.textContent ?? "", text: c.textContent ?? "" };
    });

  await scenario("an approval left unanswered when the turn is stopped shows stopped, not a red failure", async () => {
    await frame().$eval("#sessions", (e) => (e.hidden = true)); // an earlier scenario's history list, out of the way
    await script(fake.url, [{ steps: [{ tool_calls: [{ name: "write_file", arguments: { path: "never.txt", content: "not written\n" } }] }] }]);
    await send("Write the never file");
    await until("the approval", async () => frame().$(".item.tool.asking"), 30000);
    await frame().click("#stop");
    await turnEnded();
    const card = await until("the card settled", async () => {
      const c = await lastCard();
      return c.cls.includes("asking") || c.status === "pending" ? undefined : c;
    }, 10000);
    if (card.cls.includes("status-failed") || card.status === "failed") throw new Error(`the stopped call shows as failed: ${JSON.stringify(card)}`);
    if (!card.cls.includes("status-stopped") || card.status !== "stopped") throw new Error(`the card is not shown stopped: ${JSON.stringify(card)}`);
    if (!card.text.includes("Not answered: the turn was stopped")) throw new Error(`the card does not say why: ${card.text}`);
    if (existsSync(join(ws, "never.txt"))) throw new Error("the file was written");
  });

  await scenario("the wait for the model shows in the chat, not folded inside Thinking", async () => {
    // Silence before the first token: the server says it waits for the model (turn/prefill_status.py).
    await script(fake.url, [{ text: "Loaded and answered.", pieces: 1, first_byte_delay: 4.5 }]);
    await send("Are you still loading?");
    const line = await until("the visible progress line", async () => {
      const lines = await frame().$$eval(".item.thought .progress-line", (els) =>
        els.map((e) => ({ text: e.textContent ?? "", shown: e.getClientRects().length > 0 })),
      );
      return lines.find((l) => l.text.includes("waiting for the model") && l.shown);
    }, 20000, 100);
    if (line.text.includes("[agent-server:")) throw new Error(`the line shows the wire's brackets: ${line.text}`);
    await shot("vscode-stopped-and-waiting.png"); // the stopped approval above, the wait in the open below
    await until("the answer", async () => (await lastAgentText(frame())).includes("Loaded and answered."), 30000);
    await turnEnded();
  });

  await scenario("the server's progress (an index build) is seen on screen, as a notification and in the chat", async () => {
    // A build long enough for the notification (shown once a progress lasts 1.5 s; the chat's line at once), with
    // watchers for what appears rather than polling for it. (The server's file watcher is off in these scenarios:
    // on since the first build, it indexed the new files before the command ran and left the build nothing to do.)
    // How long a build takes depends on the machine: one that showed no notification is run again with twice as
    // many new files.
    const bulk = join(ws, "bulk");
    try {
      for (let round = 0, files = 4000; ; round++, files *= 2) {
        const dir = join(bulk, `r${round}`);
        mkdirSync(dir, { recursive: true });
        for (let i = 0; i < files; i++) {
          writeFileSync(join(dir, `mod${i}.py`), Array.from({ length: 12 }, (_, j) => `def f${i}_${j}(x):\n    return x + ${j}\n`).join("\n"));
        }
        const { notified, lines } = await indexWatched();
        if (notified.some((x) => x.includes("Agent Server: Indexing workspace"))) break;
        // (The time the scenario measures is mostly the palette's and the waits': it cannot tell a short build.)
        const seen = `the chat's progress lines: ${lines.length}, the last ${JSON.stringify(lines.at(-1))}`;
        if (round === 2) throw new Error(`no progress notification in three builds; ${seen}: ${JSON.stringify(notified.slice(0, 5))}`);
        log(`no notification for a build of ${files} new files (${seen}): once more with twice as many`);
      }
    } finally {
      rmSync(bulk, { recursive: true, force: true });
    }
  });

  /** Runs "Index Workspace" and checks its progress was shown in the chat and gone after; returns the texts of the
   * notifications and of the chat's progress line seen while it ran. */
  async function indexWatched() {
    const watch = (target) =>
      target.evaluate(() => {
        window.__seen = [];
        new MutationObserver(() => {
          const texts = [...document.querySelectorAll(".notification-toast, .notifications-toasts, #busy:not([hidden])")].map((e) => e.textContent ?? "");
          window.__seen.push(...texts.filter((x) => x.includes("Indexing workspace")));
        }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
      });
    await runCommand("Notifications: Clear All Notifications"); // an earlier build's "Workspace indexed" among them
    await watch(page);
    await watch(frame());
    await runCommand("Agent Server: Index Workspace");
    await until("the 'Workspace indexed' notification", async () => {
      const texts = await page.$$eval(".notifications-toasts .notification-list-item-message", (els) => els.map((e) => e.textContent ?? ""));
      return texts.some((x) => x.startsWith("Workspace indexed:"));
    }, 60000, 200);
    const notified = await page.evaluate(() => window.__seen);
    const inChat = await frame().evaluate(() => window.__seen);
    if (!inChat.some((x) => /Indexing workspace: \d+ of \d+ files/.test(x))) throw new Error(`the chat did not show the progress: ${JSON.stringify(inChat.slice(0, 5))}`);
    await until("the notification closed with the build", async () =>
      !(await page.$$eval(".notification-toast", (els) => els.some((e) => (e.textContent ?? "").includes("Indexing workspace")))), 10000);
    await until("the chat's line gone with the build", async () => !(await frame().isVisible("#busy")), 10000);
    return { notified, lines: inChat };
  }

  await scenario("a prompt typed while the window restores its session goes after the restored history, answered apart", async () => {
    await script(fake.url, [{ text: "Remember the mango.", pieces: 1 }]);
    await send("Before the slow reload");
    await until("the first answer", async () => (await lastAgentText(frame())).includes("Remember the mango."));
    await turnEnded();
    writeFileSync(slowAgent, ""); // the next server's agent loads 8 s late: the chat is usable before the replay comes
    try {
      await reloadChat();
      // The server answered `initialize` (the chat is usable) and is still loading its agent and the session.
      await until("the server running", async () => frame().$("#server-status.server-running"), 60000, 100);
      await script(fake.url, [{ text: "Answered after the restore.", pieces: 1 }]);
      await frame().fill("#prompt", "Typed while the chat restores");
      await frame().press("#prompt", "Enter");
    } finally {
      rmSync(slowAgent, { force: true });
    }
    await until("the answer to the early prompt", async () => (await lastAgentText(frame())).includes("Answered after the restore."), 60000);
    await turnEnded();
    const items = await frame().$$eval("#transcript > .item.user, #transcript > .item.agent", (els) =>
      els.map((e) => ({ kind: e.classList.contains("user") ? "user" : "agent", text: e.textContent ?? "" })),
    );
    const at = (kind, words) => items.findIndex((i) => i.kind === kind && i.text.includes(words));
    const [old, typed, answer] = [at("agent", "Remember the mango."), at("user", "Typed while the chat restores"), at("agent", "Answered after the restore.")];
    if (!(old >= 0 && old < typed && typed < answer)) throw new Error(`the prompt is not after the restored history: ${JSON.stringify(items)}`);
    if (items[old].text.includes("Answered after")) throw new Error(`the answer was glued onto the old one: ${items[old].text}`);
    if (items.filter((i) => i.text.includes("Typed while the chat restores")).length !== 1) throw new Error(`the prompt shows twice: ${JSON.stringify(items)}`);
  });

  await scenario("'Models unavailable' is said once while the LLM server is down, however often the list is asked for", async () => {
    await modelsUnavailableOnce();
  });

  /** The LLM server stopped (unreachable): the picker's focus, a server restart (the chat's new session) and the
   * Pick Model command each ask for the model list; the chat says the failure once. The list comes back (a model
   * more in the picker), the server stops again: that failure is said once more. */
  async function modelsUnavailableOnce() {
    const BACK = "back-again:1b";
    const said = () =>
      frame().$$eval(".item.notice", (els) => els.map((e) => e.textContent ?? "").filter((x) => x.startsWith("Models unavailable")));
    const options = () => frame().$$eval("#model option", (o) => o.map((x) => x.value));
    const port = new URL(fake.url).port;
    const fakeDown = () => fake.proc.exitCode !== null || fake.proc.signalCode !== null;
    const stopFake = async () => {
      if (fakeDown()) return;
      const gone = new Promise((r) => fake.proc.once("exit", r));
      fake.proc.kill();
      await gone;
    };
    const startFake = async (models) => {
      const up = await startFakeLlm(["--port", port, ...models.flatMap((m) => ["--model", m])]);
      fake.proc = up.proc; // chat.e2e.mjs's cleanup stops the process serving the URL now
      if (up.url !== fake.url) throw new Error(`the fake came back at ${up.url}, not ${fake.url}`);
    };
    const focusPicker = async () => {
      await frame().focus("#model"); // the webview asks for the list when the picker gets focus
      await frame().focus("#prompt");
    };
    /** "Agent Server: Pick Model" asks for the list, then shows it: the ask is over once the picker shows. */
    const pickModel = async () => {
      await page.click(".editor-group-container.active"); // keys typed in the webview may not reach the palette
      await runCommand("Agent Server: Pick Model");
      await until("the Pick Model list", async () =>
        (await page.$$eval(".quick-input-widget .quick-input-title", (els) => els.map((e) => e.textContent ?? ""))).some((x) =>
          x.includes("Model for the next prompts")), 30000);
      await page.keyboard.press("Escape");
      await until("the Pick Model list closed", async () => !(await page.isVisible(".quick-input-widget")), 10000);
    };

    const before = (await said()).length;
    await stopFake();
    try {
      await focusPicker();
      await focusPicker();
      writeFileSync(slowStart, ""); // the restart takes 4 s more: its "Starting" is seen before it runs
      await runCommand("Agent Server: Restart Server");
      await until("the server restarting", async () => frame().$("#server-status.server-starting"), 15000);
      rmSync(slowStart, { force: true });
      await until("the server running", async () => frame().$("#server-status.server-running"), 60000, 100);
      await pickModel();
      await pickModel();
      // Said when the first ask failed; both Pick Model asks are over (the list shows after its ask).
      await until("the notice in the chat", async () => (await said()).length > before, 10000);
      let shown = (await said()).slice(before);
      if (shown.length !== 1) throw new Error(`"Models unavailable" said ${shown.length} times for one failure: ${JSON.stringify(shown)}`);

      await startFake([BACK]);
      await pickModel();
      await until("the list back in the picker", async () => (await options()).includes(BACK), 30000);
      await stopFake();
      await focusPicker();
      await pickModel();
      await pickModel();
      await until("the new failure in the chat", async () => (await said()).length > before + 1, 10000);
      shown = (await said()).slice(before);
      if (shown.length !== 2) throw new Error(`the failure after the list came back is not said exactly once more: ${JSON.stringify(shown)}`);
    } finally {
      rmSync(slowStart, { force: true });
      if (fakeDown()) await startFake([]);
      await pickModel().catch(() => undefined); // the picker's usual models again, for the scenarios after
    }
  }
}
