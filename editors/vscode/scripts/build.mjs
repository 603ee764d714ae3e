// Bundles the extension (node, `vscode` external), the webview (browser) and, with --tests, the unit tests.
import { build } from "esbuild";
import { cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const production = process.argv.includes("--production");
const tests = process.argv.includes("--tests");
const common = { bundle: true, sourcemap: !production, minify: production, logLevel: "warning", absWorkingDir: root };

rmSync(join(root, "dist"), { recursive: true, force: true });
mkdirSync(join(root, "dist"), { recursive: true });
await build({
  ...common,
  entryPoints: ["src/extension.ts"],
  outfile: "dist/extension.js",
  platform: "node",
  format: "cjs",
  target: "node20",
  external: ["vscode"],
});
await build({
  ...common,
  entryPoints: ["webview/main.ts"],
  outfile: "dist/webview.js",
  platform: "browser",
  format: "iife",
  target: "es2022",
});
cpSync(join(root, "webview/style.css"), join(root, "dist/webview.css"));

if (tests) {
  rmSync(join(root, "out"), { recursive: true, force: true });
  const entries = readdirSync(join(root, "test"))
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => `test/${f}`);
  await build({
    ...common,
    entryPoints: entries,
    outdir: "out/test",
    platform: "node",
    format: "esm",
    target: "node20",
    outExtension: { ".js": ".mjs" },
    external: ["vscode"],
  });
}
