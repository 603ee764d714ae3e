// Issue 29 items 6 and 8 in VS Code (imported by chat.e2e.mjs): undo only one turn, undo a restore, the transcript
// ending at its true bottom after each turn, and the context meter and session title after a resume and a restore.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** How far the transcript is from its true bottom, and where its last element is against the viewport. */
export function bottomGap(frame) {
  return frame.$eval("#transcript", (v) => {
    const items = v.querySelectorAll(".item");
    const last = items[items.length - 1];
    const box = v.getBoundingClientRect();
    const r = last ? last.getBoundingClientRect() : box;
    return {
      gap: v.scrollHeight - v.scrollTop - v.clientHeight,
      lastBottomOver: r.bottom - box.bottom, // > 0: the last element is cut at the bottom
      lastTopUnder: box.top - r.top, // > 0 while the element is taller than the view is fine; its bottom must show
    };
  });
}

/** True when the last line of the transcript is fully visible at the bottom (within a pixel of rounding). */
export async function atTrueBottom(frame) {
  const g = await bottomGap(frame);
  return g.gap <= 1 && g.lastBottomOver <= 1 ? g : undefined;
}

export async function restoreScenarios(t) {
  const { scenario, until, script, fake, send, turnEnded, frame: f, lastAgentText, titleAction, runCommand, page, ws, log, windowShot } = t;
  const frame = () => f();
  const read = (name) => (existsSync(join(ws, name)) ? readFileSync(join(ws, name), "utf8") : null);
  const dialog = () => until("the confirmation dialog", async () => page.$(".monaco-dialog-box"), 15000);
  const clickDialog = (label) => page.click(`.monaco-dialog-box .monaco-button:has-text("${label}")`);
  const approveWrite = async (file, content, answer, promptText) => {
    await script(fake.url, [
      { steps: [{ tool_calls: [{ name: "write_file", arguments: { path: file, content } }] }] },
      { text: answer, pieces: 1 },
    ]);
    await send(promptText);
    const allow = await until("the approval buttons", async () => frame().$('.item.tool.asking button[data-option="allow_once"]'));
    await allow.click();
    await until(`the answer "${answer}"`, async () => (await lastAgentText(frame())).includes(answer));
    await turnEnded();
  };
  const meter = () => frame().$eval("#meter", (m) => ({ hidden: m.hidden, label: m.querySelector("#meter-label")?.textContent ?? "" }));

  await scenario("each turn ends at the true bottom of the transcript: the last line is fully visible", async () => {
    await titleAction("New Chat");
    await until("an empty chat", async () => (await frame().$$(".item")).length === 0, 10000);
    const words = "amber basil cedar dune ember fjord grove heath inlet juniper kelp larch".split(" ");
    for (let turn = 0; turn < 3; turn++) {
      const paragraphs = Array.from({ length: 14 }, (_, i) => `Turn ${turn} part ${i}: ${words.map((w, k) => words[(k * (i + 3) + turn) % words.length]).join(" ")}.`);
      const last = `The very last line of turn ${turn}.`;
      await script(fake.url, [{ text: [...paragraphs, last].join("\n\n"), pieces: 5 }]);
      await send(`Long answer number ${turn}`);
      await until(`answer ${turn}`, async () => (await lastAgentText(frame())).includes(last));
      await turnEnded();
      // The view settles at the bottom once the turn's last layout changes are done; then the last line is whole.
      const g = await until(`turn ${turn} scrolled to the true bottom`, () => atTrueBottom(frame()), 5000).catch(async (err) => {
        throw new Error(`${err.message}; now ${JSON.stringify(await bottomGap(frame()))}`);
      });
      log(`turn ${turn}: ${JSON.stringify(g)}`);
    }
  });

  await scenario("Undo turn reverses only that turn; Undo Last Restore takes the undo back", async () => {
    await titleAction("New Chat");
    await until("an empty chat", async () => (await frame().$$(".item")).length === 0, 10000);
    await approveWrite("undo-a.txt", "alpha\n", "Wrote alpha.", "Write the alpha file");
    await approveWrite("undo-b.txt", "beta\n", "Wrote beta.", "Write the beta file");
    // The first turn's own Undo button: only its change goes, the later turn's file stays.
    const first = await until("the first prompt's Undo button", async () => {
      const users = await frame().$$(".item.user");
      return users.length === 2 && users[0].$("button.undo-turn");
    });
    // At the standard chat width (300 px) each of the bubble's buttons stays on one line (as tall as one with "X").
    const heights = await frame().$eval(".item.user .turn-actions", (bar) => {
      const body = document.body;
      const width = body.style.width;
      body.style.width = "300px";
      const out = [...bar.querySelectorAll("button")].map((b) => {
        const text = b.textContent;
        const h = b.getBoundingClientRect().height;
        b.textContent = "X";
        const one = b.getBoundingClientRect().height;
        b.textContent = text;
        return { text, h, one };
      });
      body.style.width = width;
      return out;
    });
    const wrapped = heights.filter((b) => b.h > b.one + 1);
    if (heights.length !== 3 || wrapped.length) throw new Error(`the turn's buttons wrap at 300 px: ${JSON.stringify(heights)}`);
    await first.click();
    const question = (await (await dialog()).textContent()) ?? "";
    if (!question.includes("Undo only") || !question.includes("undo-a.txt")) {
      throw new Error(`the undo question does not say what it does: ${question}`);
    }
    // It offers undoing the turn only: no "Restore N files" title, no choice it does not offer (issue 42).
    for (const other of [/Restore \d+ files?/, /Restore files/, /conversation/]) {
      if (other.test(question)) throw new Error(`the undo question speaks of ${other}: ${question}`);
    }
    const buttons = await page.$$eval(".monaco-dialog-box .monaco-button", (els) => els.map((e) => e.textContent?.trim()));
    if (JSON.stringify([...buttons].sort()) !== JSON.stringify(["Cancel", "Undo only this turn"])) throw new Error(`the dialog offers ${JSON.stringify(buttons)}`);
    if (read("undo-a.txt") !== "alpha\n") throw new Error("the preview changed the file");
    await clickDialog("Undo only this turn");
    await until("undo-a.txt gone", async () => read("undo-a.txt") === null, 15000);
    if (read("undo-b.txt") !== "beta\n") throw new Error("undoing the first turn touched the later turn's file");

    // Keys typed while the chat webview has focus do not all reach the workbench: focus the editor area first.
    await page.click(".editor-group-container.active");
    await runCommand("Agent Server: Undo Last Restore");
    const undoQuestion = (await (await dialog()).textContent()) ?? "";
    if (!undoQuestion.includes("undo-a.txt")) throw new Error(`the undo-restore question does not list the file: ${undoQuestion}`);
    await windowShot("vscode-undo-restore.png");
    await clickDialog("Undo the restore");
    await until("undo-a.txt back", async () => read("undo-a.txt") === "alpha\n", 15000);
    if (read("undo-b.txt") !== "beta\n") throw new Error("undoing the undo touched the later turn's file");
  });

  await scenario("the context meter and the session title follow a resume and a restore", async () => {
    // The chat of the previous scenario: two turns ("Write the alpha file", "Write the beta file").
    await until("the meter after the turns", async () => !(await meter()).hidden);
    await titleAction("New Chat");
    await until("an empty chat", async () => (await frame().$$(".item")).length === 0, 10000);
    await titleAction("Chat History");
    const entry = await until("the session in the history", async () => frame().$('#sessions .session:has(.session-title:text-is("Write the alpha file"))'), 10000);
    await entry.click();
    await until("the session replayed", async () => (await frame().$$(".item.user")).length === 2, 15000);
    // Resumed: the meter shows the session's context at once, not only after the next turn.
    const resumed = await until("the meter after the resume", async () => {
      const m = await meter();
      return !m.hidden && /\d/.test(m.label) ? m : undefined;
    }, 10000);

    // Back to before the first turn, conversation too: the chat is empty, the meter shrinks, the title names no
    // removed prompt.
    await frame().click(".item.user button.restore-turn");
    await dialog();
    await clickDialog("Restore files and conversation");
    await until("the cut turns gone", async () => (await frame().$$(".item.user")).length === 0, 15000);
    const after = await until("the meter after the restore", async () => {
      const m = await meter();
      return !m.hidden && m.label !== resumed.label ? m : undefined;
    }, 10000);
    log(`meter resumed ${resumed.label} → after the restore ${after.label}`);
    await titleAction("Chat History");
    const titles = await until("the history list, fetched again", async () => {
      if (await frame().isHidden("#sessions")) return undefined; // its entries of the last opening are still there
      const tt = await frame().$$eval("#sessions .session-title", (els) => els.map((e) => e.textContent ?? ""));
      return tt.length ? tt : undefined;
    }, 10000);
    if (titles.includes("Write the alpha file")) throw new Error(`the history still names the removed prompt: ${JSON.stringify(titles)}`);
    await titleAction("Chat History"); // close it again
  });
}
