// Issue 29's VS Code scenarios (imported by chat.e2e.mjs): a proposed edit opens as a diff editor whose right side
// the user may edit; the diff editor's revert puts a hunk back; Allow writes exactly what the diff shows and the
// model hears what the user changed.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runPaletteCommand } from "./boot.mjs";

const BASE = "def total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n";
const PROPOSED = "def total(xs):\n    return sum(xs) + 0\n\n\ndef mean(xs):\n    return total(xs) / max(1, len(xs))\n";

export async function reviewScenarios(t) {
  const { scenario, until, script, chatRequests, fake, send, turnEnded, frame, lastAgentText, page, ws, openFile } = t;
  const reviewEditor = () => page.$(".editor-group-container.active .monaco-diff-editor");
  // The diff as rendered, both sides (Monaco draws spaces as no-break spaces); the checks look for text only the
  // proposal has.
  const proposal = () =>
    page.$eval(".editor-group-container.active .monaco-diff-editor", (e) => (e.textContent ?? "").replace(/\u00a0/g, " "));
  const palette = (title) => runPaletteCommand(page, title);
  const tabTitles = () => page.$$eval(".tab", (els) => els.map((e) => e.textContent ?? ""));

  await scenario("review: the proposal opens as an editable diff; a rejected hunk and the user's edit are what gets written", async () => {
    writeFileSync(join(ws, "stats.py"), BASE);
    await script(fake.url, [
      { steps: [{ tool_calls: [{ name: "write_file", arguments: { path: "stats.py", content: PROPOSED } }] }] },
      { text: "Kept your version.", pieces: 1 },
    ]);
    const before = (await chatRequests(fake.url)).length;
    await send("Guard the mean against empty lists");
    await until("the approval buttons", async () => frame().$('.item.tool.asking button[data-option="allow_once"]'));
    const hint = await frame().$eval(".item.tool.asking .review-hint", (e) => e.textContent ?? "").catch(() => "");
    if (!hint.includes("revert hunks")) throw new Error(`the card does not point to the review diff: ${hint}`);
    await until("the review diff editor", async () => (await tabTitles()).some((x) => x.includes("now ↔ proposed")) && (await reviewEditor()), 20000);
    // Revert the first hunk as a VS Code user does: cursor on it, "Diff Editor: Revert" (the gutter arrow's command).
    await until("the cursor in the proposal's first hunk", async () => {
      await page.click(".editor-group-container.active .modified-in-monaco-diff-editor .view-lines");
      await page.keyboard.press("Control+Home");
      await page.keyboard.press("ArrowDown");
      const status = await page.$$eval(".statusbar-item", (els) => els.map((e) => e.textContent ?? ""));
      return status.some((x) => x.includes("Ln 2,"));
    }, 10000);
    await palette("Diff Editor: Revert");
    await until("the first hunk put back", async () => {
      const text = await proposal();
      return !text.includes("sum(xs) + 0");
    }, 10000);
    // Edit the proposal's last line by hand: go to line 6, select its text, type over it.
    await page.click(".editor-group-container.active .modified-in-monaco-diff-editor .view-lines");
    await page.keyboard.press("Control+G");
    await page.waitForSelector(".quick-input-widget input", { state: "visible" });
    await page.keyboard.type("6");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".quick-input-widget", { state: "hidden" });
    await page.keyboard.press("End");
    await page.keyboard.press("Shift+Home");
    await page.keyboard.type("return total(xs) / (len(xs) or 1)");
    let shown = "";
    await until("the typed line in the proposal", async () => (shown = await proposal()).includes("(len(xs) or 1)"), 10000).catch((e) => {
      throw new Error(`${e.message}: ${JSON.stringify(shown)}`);
    });
    if (readFileSync(join(ws, "stats.py"), "utf8") !== BASE) throw new Error("stats.py changed before Allow");
    // The approval card follows the review (issue 42): its diff is the user's version, what Allow writes.
    const card = await until("the card's diff as the user left it", async () => {
      const diff = await frame().$eval(".item.tool.asking .diff", (e) => e.textContent ?? "");
      return diff.includes("(len(xs) or 1)") && !diff.includes("sum(xs) + 0") ? diff : undefined;
    }, 10000);
    if (!card.includes("your version")) throw new Error(`the card does not say it shows the user's version: ${card}`);
    // The review's internal id stays out of what the editor shows: its tab, title, breadcrumbs and hovers.
    const shownText = await page.$eval(".part.editor", (part) =>
      [part.innerText, ...[...part.querySelectorAll("[title], [aria-label]")].flatMap((e) => [e.getAttribute("title"), e.getAttribute("aria-label")])]
        .filter(Boolean)
        .join("\n"),
    );
    const id = /.{0,80}perm_\d+.{0,40}/.exec(shownText);
    if (id) throw new Error(`the editor shows the internal id: ${id[0]}`);
    // The card was drawn again with the user's version: its button too.
    await (await frame().$('.item.tool.asking button[data-option="allow_once"]')).click();
    await until("the answer after the write", async () => (await lastAgentText(frame())).includes("Kept your version."), 30000);
    await turnEnded();
    const written = readFileSync(join(ws, "stats.py"), "utf8");
    const expected = BASE.replace("/ len(xs)", "/ (len(xs) or 1)");
    if (written !== expected) throw new Error(`stats.py is not what the diff showed:\n${written}`);
    const tools = (await chatRequests(fake.url))[before + 1].json.messages.filter((m) => m.role === "tool");
    const told = tools.at(-1)?.content ?? "";
    for (const part of ["The user rejected 1 of the 2 hunks of your change (hunk 1)", "+    return total(xs) / (len(xs) or 1)"]) {
      if (!told.includes(part)) throw new Error(`the model was not told ${JSON.stringify(part)}:\n${told}`);
    }
    if ((await tabTitles()).some((x) => x.includes("now ↔ proposed"))) throw new Error("the review diff stayed open");
  });

  await scenario("review: Apply on a code block merges it into its function as an edit, shown as a diff first", async () => {
    const file = "import os\n\n\ndef total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n";
    writeFileSync(join(ws, "merge.py"), file);
    await openFile("merge.py", "def mean");
    await script(fake.url, [{ text: "Like this:\n\n```python\ndef total(xs):\n    return sum(x or 0 for x in xs)\n```\n", pieces: 1 }]);
    await send("Make total skip None");
    const apply = await until("the Apply button of the code block", async () => frame().$(".item.agent:last-of-type button.apply"), 30000);
    await turnEnded();
    await apply.click();
    await until("the diff of the merged block", async () => (await proposal()).includes("sum(x or 0 for x in xs)"), 20000);
    const button = await until("the Apply question", async () => {
      for (const b of await page.$$(".notifications-toasts .notification-list-item .monaco-button")) {
        if ((await b.textContent())?.trim() === "Apply") return b;
      }
      return undefined;
    }, 10000);
    await button.click();
    const expected = file.replace("sum(xs)\n", "sum(x or 0 for x in xs)\n");
    await until("the merged text in the editor", async () => {
      const text = await page.$eval(".editor-group-container.active .monaco-editor .view-lines", (e) => e.innerText.replace(/\u00a0/g, " "));
      return text.includes("sum(x or 0 for x in xs)") && text.includes("def mean(xs):") && text.includes("import os");
    }, 10000);
    if (readFileSync(join(ws, "merge.py"), "utf8") !== file) throw new Error("Apply saved the file (it changes the buffer only)");
    await page.click(".editor-group-container.active .monaco-editor .view-lines");
    await page.keyboard.press("Control+S");
    await until("merge.py saved as merged", async () => readFileSync(join(ws, "merge.py"), "utf8") === expected, 10000).catch(() => {
      throw new Error(`merge.py is not the file with the function replaced:\n${JSON.stringify(readFileSync(join(ws, "merge.py"), "utf8"))}`);
    });
  });

  let cleanupAutoSave = false;
  await scenario("review: an allowed edit changes a buffer with unsaved text of the user but does not save it", async () => {
    const file = "def total(xs):\n    return sum(xs)\n";
    writeFileSync(join(ws, "dirty.py"), file);
    // VS Code in the browser saves after a delay by default; the desktop default (off) is the case at stake here.
    await palette("File: Toggle Auto Save");
    cleanupAutoSave = true;
    await openFile("dirty.py", "return sum(xs)");
    await page.click(".editor-group-container.active .monaco-editor .view-lines");
    await page.keyboard.press("Control+End");
    await page.keyboard.type("# my note, not saved");
    await script(fake.url, [
      { steps: [{ tool_calls: [{ name: "edit_file", arguments: { path: "dirty.py", old_text: "sum(xs)", new_text: "sum(xs) + 0" } }] }] },
      { text: "Added zero.", pieces: 1 },
    ]);
    const before = (await chatRequests(fake.url)).length;
    await send("Add zero");
    const allow = await until("the approval buttons", async () => frame().$('.item.tool.asking button[data-option="allow_once"]'));
    await allow.click();
    await until("the answer after the edit", async () => (await lastAgentText(frame())).includes("Added zero."), 30000);
    await turnEnded();
    const told = (await chatRequests(fake.url))[before + 1].json.messages.filter((m) => m.role === "tool").at(-1)?.content ?? "";
    if (!told.includes("has unsaved changes of the user in the editor")) throw new Error(`the model was not told:\n${told}`);
    if (readFileSync(join(ws, "dirty.py"), "utf8") !== file) throw new Error("the user's unsaved text was saved with the edit");
    const editor = await page.$$eval(".editor-group-container .monaco-editor .view-lines", (els) => els.map((e) => e.innerText).join("\n").replace(/\u00a0/g, " "));
    if (!editor.includes("sum(xs) + 0") || !editor.includes("# my note, not saved")) throw new Error(`the buffer lacks the edit or the note:\n${editor}`);
  });
  if (cleanupAutoSave) {
    await page.keyboard.press("Escape").catch(() => undefined);
    await palette("File: Toggle Auto Save").catch(() => undefined); // back to the browser's default for the rest
  }
}
