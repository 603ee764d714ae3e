// Issue 28's VS Code scenarios (imported by chat.e2e.mjs): diagnostics from a real language server (ruff server,
// through the test-only extension in ruff-lsp/) reach the model after an edit; "Allow for this session" and the
// reason a request asks.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Builds and packages the ruff-lsp test extension into `dir`/test-ruff-lsp.vsix; returns its path. */
export function buildRuffLsp(here, extRoot, dir) {
  const src = join(here, "ruff-lsp");
  const out = join(dir, "ruff-lsp");
  mkdirSync(join(out, "out"), { recursive: true });
  cpSync(join(src, "package.json"), join(out, "package.json"));
  writeFileSync(join(out, "LICENSE"), "MIT\n");
  const esbuild = spawnSync(
    join(extRoot, "node_modules/.bin/esbuild"),
    [join(src, "extension.js"), "--bundle", "--platform=node", "--format=cjs", "--external:vscode", `--outfile=${join(out, "out/extension.js")}`],
    { cwd: extRoot, encoding: "utf8" },
  );
  if (esbuild.status !== 0) throw new Error(`bundling ruff-lsp failed: ${esbuild.stderr}`);
  const vsix = join(dir, "test-ruff-lsp.vsix");
  const pack = spawnSync(
    join(extRoot, "node_modules/.bin/vsce"),
    ["package", "--no-dependencies", "--allow-missing-repository", "--skip-license", "-o", vsix],
    { cwd: out, encoding: "utf8", input: "y\n" },
  );
  if (pack.status !== 0) throw new Error(`packaging ruff-lsp failed: ${pack.stderr}${pack.stdout}`);
  return vsix;
}

export const TOTAL = "def total(xs):\n    return sum(xs)\n";

export async function editsScenarios(t) {
  const { scenario, until, script, chatRequests, fake, send, turnEnded, openFile, frame, lastAgentText } = t;

  await scenario("diagnostics: the error an edit introduced reaches the model from the language server", async () => {
    await openFile("total.py", "return sum(xs)");
    await script(fake.url, [
      { steps: [{ tool_calls: [{ name: "edit_file", arguments: { path: "total.py", old_text: "sum(xs)", new_text: "sum(xs) + offset" } }] }] },
      { text: "Added the offset.", pieces: 1 },
    ]);
    const before = (await chatRequests(fake.url)).length;
    await send("Add the offset to the total");
    const allow = await until("the approval buttons", async () => frame().$('.item.tool.asking button[data-option="allow_once"]'));
    await allow.click();
    await until("the answer after the edit", async () => (await lastAgentText(frame())).includes("Added the offset."), 30000);
    await turnEnded();
    const requests = await chatRequests(fake.url);
    const tools = requests[before + 1].json.messages.filter((m) => m.role === "tool");
    const result = tools.at(-1)?.content ?? "";
    if (!/total\.py:2:\d+: Undefined name `offset`/.test(result)) throw new Error(`the model did not hear the new error:\n${result}`);
    // The user sees it too: on the edit's card, not folded away inside Result (issue 42).
    const shown = await frame().$$eval(".item.tool .problems", (els) =>
      els.map((e) => ({ text: e.textContent ?? "", visible: e.getClientRects().length > 0 })),
    );
    if (!shown.some((p) => p.visible && /new error/.test(p.text) && p.text.includes("Undefined name `offset`"))) {
      throw new Error(`the new error is not shown on the card: ${JSON.stringify(shown)}`);
    }
  });

  await scenario("approvals: Allow for this session shows why it asks and is not asked again in the session", async () => {
    await script(fake.url, [
      { steps: [{ tool_calls: [{ name: "run_command", arguments: { command: "echo session-ok" } }] }] },
      { text: "Ran it.", pieces: 1 },
      { steps: [{ tool_calls: [{ name: "run_command", arguments: { command: "echo session-ok" } }] }] },
      { text: "Ran it again.", pieces: 1 },
    ]);
    await send("Run the echo");
    const session = await until("the session button", async () => frame().$('.item.tool.asking button[data-option="allow_session"]'));
    const why = await frame().$eval(".item.tool.asking ul.why", (e) => e.textContent ?? "");
    if (!why.includes("`echo session-ok`: no rule or earlier answer allows it")) throw new Error(`no reason shown: ${why}`);
    await session.click();
    await until("the first answer", async () => (await lastAgentText(frame())).includes("Ran it."), 30000);
    await turnEnded();
    await send("Run it again");
    await until("the second answer, without a question", async () => {
      if (await frame().$(".item.tool.asking")) throw new Error("asked again in the same session");
      return (await lastAgentText(frame())).includes("Ran it again.");
    }, 30000);
    await turnEnded();
  });
}
