// Issue 42's VS Code scenarios (imported by chat.e2e.mjs): a cancelled approval is not a failure, the server's wait
// for the model is shown in the chat, the server's progress (an index build) is seen on screen, and a prompt typed
// while the window restores its session goes after the restored history with an answer of its own.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export async function polishScenarios(t) {
  const { scenario, until, script, fake, send, turnEnded, frame, lastAgentText, page, ws, runCommand, reloadChat, slowAgent, shot } = t;
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
    // watchers for what appears rather than polling for it.
    const bulk = join(ws, "bulk");
    mkdirSync(bulk, { recursive: true });
    for (let i = 0; i < 4000; i++) {
      writeFileSync(join(bulk, `mod${i}.py`), Array.from({ length: 12 }, (_, j) => `def f${i}_${j}(x):\n    return x + ${j}\n`).join("\n"));
    }
    try {
      await indexWatched();
    } finally {
      rmSync(bulk, { recursive: true, force: true });
    }
  });

  /** Runs "Index Workspace" and checks its progress was shown: a notification and the chat's line, both gone after. */
  async function indexWatched() {
    const watch = (target) =>
      target.evaluate(() => {
        window.__seen = [];
        new MutationObserver(() => {
          const texts = [...document.querySelectorAll(".notification-toast, .notifications-toasts, #busy:not([hidden])")].map((e) => e.textContent ?? "");
          window.__seen.push(...texts.filter((x) => x.includes("Indexing workspace")));
        }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
      });
    await watch(page);
    await watch(frame());
    await runCommand("Agent Server: Index Workspace");
    await until("the 'Workspace indexed' notification", async () => {
      const texts = await page.$$eval(".notifications-toasts .notification-list-item-message", (els) => els.map((e) => e.textContent ?? ""));
      return texts.some((x) => x.startsWith("Workspace indexed:"));
    }, 60000, 200);
    const notified = await page.evaluate(() => window.__seen);
    if (!notified.some((x) => x.includes("Agent Server: Indexing workspace"))) throw new Error(`no progress notification: ${JSON.stringify(notified.slice(0, 5))}`);
    const inChat = await frame().evaluate(() => window.__seen);
    if (!inChat.some((x) => /Indexing workspace: \d+ of \d+ files/.test(x))) throw new Error(`the chat did not show the progress: ${JSON.stringify(inChat.slice(0, 5))}`);
    await until("the notification closed with the build", async () =>
      !(await page.$$eval(".notification-toast", (els) => els.some((e) => (e.textContent ?? "").includes("Indexing workspace")))), 10000);
    await until("the chat's line gone with the build", async () => !(await frame().isVisible("#busy")), 10000);
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
}
