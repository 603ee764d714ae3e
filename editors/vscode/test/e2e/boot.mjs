// Booting code-server for the end-to-end tests and the cold-start benchmark: a throwaway profile (user data,
// extensions, XDG dirs), the extension installed from a .vsix, code-server on a free loopback port, headless
// Chromium on the workbench. One copy, so the benchmark measures the start the tests exercise.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { chromium } from "playwright-core";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Quiet settings for a test profile: no start page, no telemetry, no updates, no built-in AI chat. */
export const BASE_SETTINGS = {
  "workbench.startupEditor": "none",
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "chat.disableAIFeatures": true,
  "workbench.tips.enabled": false,
};

export async function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
    s.on("error", rej);
  });
}

export async function until(what, fn, timeoutMs = 30000, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) return last;
    } catch (err) {
      last = err;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
}

/** Directories and environment of a fresh profile under `tmp` (the workspace is `tmp`/workspace). */
export function makeProfile(tmp, extraEnv = {}) {
  const ws = join(tmp, "workspace");
  const ud = join(tmp, "user-data");
  const ext = join(tmp, "extensions");
  for (const d of [ws, join(ud, "User"), ext, join(tmp, "xdg")]) mkdirSync(d, { recursive: true });
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: join(tmp, "xdg/config"),
    XDG_DATA_HOME: join(tmp, "xdg/data"),
    XDG_STATE_HOME: join(tmp, "xdg/state"),
    XDG_CACHE_HOME: join(tmp, "xdg/cache"),
    EXTENSIONS_GALLERY: "{}",
    ...extraEnv,
  };
  return { ws, ud, ext, env };
}

export function writeSettings(profile, settings) {
  writeFileSync(join(profile.ud, "User/settings.json"), JSON.stringify({ ...BASE_SETTINGS, ...settings }, null, 2));
}

export function installExtension(codeServer, profile, vsix) {
  const { env, ext, ud } = profile;
  const done = spawnSync(codeServer, ["--extensions-dir", ext, "--user-data-dir", ud, "--install-extension", vsix], {
    env,
    encoding: "utf8",
  });
  if (done.status !== 0) throw new Error(`installing ${vsix} failed: ${done.stderr}${done.stdout}`);
}

/** code-server on a free loopback port, up (its /healthz answers); `stop()` ends its whole process group. */
export async function startCodeServer(codeServer, profile) {
  const { env, ext, ud, ws } = profile;
  const port = await freePort();
  const proc = spawn(
    codeServer,
    [
      "--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--disable-telemetry", "--disable-update-check",
      "--disable-workspace-trust", "--disable-getting-started-override", "--extensions-dir", ext,
      "--user-data-dir", ud, ws,
    ],
    { env, detached: true, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  const stop = () => {
    try {
      process.kill(-proc.pid, "SIGTERM"); // the whole group: code-server leaves a watcher child otherwise
    } catch {}
  };
  const base = `http://127.0.0.1:${port}`;
  try {
    await until("code-server /healthz", async () => (await fetch(`${base}/healthz`)).ok, 60000, 50);
  } catch (err) {
    stop();
    throw new Error(`${err.message}\n${stderr}`);
  }
  return { proc, port, base, stop };
}

export async function launchBrowser(chromiumPath) {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
  });
}

/** A page on the workbench of `ws`, once its main parts are drawn. */
export async function openWorkbench(browser, base, ws) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${base}/?folder=${encodeURIComponent(ws)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: 60000 });
  return page;
}

/** The fake LLM (tests/fakes/fake_llm.py) on a free loopback port, listing `models`; resolves once it is READY. */
export function startFakeLlm(python, repoRoot, env, models, extraArgs = []) {
  const proc = spawn(python, ["-m", "tests.fakes.fake_llm", "--port", "0", ...models.flatMap((m) => ["--model", m]), ...extraArgs], {
    cwd: repoRoot,
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((res, rej) => {
    let out = "";
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /READY (\S+)/.exec(out);
      if (m) res({ proc, url: m[1] });
    });
    proc.on("exit", (code) => rej(new Error(`fake LLM exited (${code}) before READY`)));
  });
}

/** Runs a command by its exact palette title (fuzzy matching also lists VS Code's own commands: pick the exact row). */
export async function runPaletteCommand(page, title) {
  await page.keyboard.press("F1");
  await page.waitForSelector(".quick-input-widget input", { state: "visible" });
  await page.keyboard.type(title);
  const row = await until(`the palette entry ${title}`, async () => {
    for (const r of await page.$$(".quick-input-list .monaco-list-row")) {
      const label = await r.$eval(".label-name", (e) => e.textContent?.trim()).catch(() => "");
      if (label === title) return r;
    }
    return undefined;
  }, 10000);
  await row.click();
}
