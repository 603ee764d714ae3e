// Issue 41 part 4's VS Code scenario (imported by chat.e2e.mjs): the code tools answered by VS Code's own language
// servers through the extension (agent/_code, src/codeNav.ts). JavaScript needs no extension: VS Code's built-in
// TypeScript server serves it. The agent lists a function's references and renames it across two files; the rename
// is asked about with both files' changes and lands through the editor (workspace/applyEdit), saved to disk.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const LIB = "export function totalPrice(items) {\n  return items.reduce((sum, x) => sum + x, 0);\n}\n";
const APP = 'import { totalPrice } from "./lib.js";\n\nconsole.log(totalPrice([1, 2]));\n';

export async function codeNavScenarios(t) {
  const { scenario, until, script, chatRequests, fake, send, turnEnded, frame, lastAgentText, ws, openFile } = t;

  await scenario("code tools: VS Code's language server lists references and renames a function across two files", async () => {
    writeFileSync(join(ws, "lib.js"), LIB);
    writeFileSync(join(ws, "app.js"), APP);
    await openFile("app.js", "totalPrice([1, 2])"); // open, as a user has it: the edit goes to its buffer, then disk
    const rename = { path: "lib.js", line: 1, symbol: "totalPrice", new_name: "grandTotal" };
    await script(fake.url, [
      { steps: [{ tool_calls: [{ name: "find_references", arguments: { path: "lib.js", line: 1, symbol: "totalPrice" } }] }] },
      { steps: [{ tool_calls: [{ name: "rename_symbol", arguments: rename }] }] },
      { text: "Renamed it.", pieces: 1 },
    ]);
    const before = (await chatRequests(fake.url)).length;
    await send("Rename totalPrice to grandTotal everywhere");
    const allow = await until("the rename's approval", async () => frame().$('.item.tool.asking button[data-option="allow_once"]'), 60000);
    const asking = await frame().$eval(".item.tool.asking", (e) => e.textContent ?? "");
    if (!asking.includes("lib.js") || !asking.includes("app.js")) throw new Error(`the approval does not show both files:\n${asking}`);
    if (readFileSync(join(ws, "lib.js"), "utf8") !== LIB) throw new Error("lib.js changed before the approval");
    await allow.click();
    await until("the answer after the rename", async () => (await lastAgentText(frame())).includes("Renamed it."), 30000);
    await turnEnded();

    const requests = (await chatRequests(fake.url)).slice(before);
    const results = requests.at(-1).json.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    const references = results.find((r) => r.startsWith("References of `totalPrice`")) ?? "";
    for (const place of ["lib.js:1: export function totalPrice(items) {", "app.js:1:", "app.js:3: console.log(totalPrice([1, 2]));"]) {
      if (!references.includes(place)) throw new Error(`the references lack ${place}:\n${references}\n${results.join("\n---\n")}`);
    }
    const renamed = results.find((r) => r.startsWith("Renamed `totalPrice` to `grandTotal`")) ?? "";
    if (!renamed.includes("in 2 files")) throw new Error(`the rename's result: ${renamed}\n${results.join("\n---\n")}`);
    await until("the rename on disk in both files", async () =>
      readFileSync(join(ws, "lib.js"), "utf8") === LIB.replaceAll("totalPrice", "grandTotal") &&
      readFileSync(join(ws, "app.js"), "utf8") === APP.replaceAll("totalPrice", "grandTotal"), 15000);
  });
}
