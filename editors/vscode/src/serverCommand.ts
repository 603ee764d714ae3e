/** Finding the agent-server executable: settings first, then PATH; a clear message with the fix when none works. */

import * as fs from "node:fs";
import * as path from "node:path";

export interface ServerCommandSettings {
  serverCommand: readonly string[];
  pythonPath: string;
  logLevel: string;
}

export interface ResolvedCommand {
  command: string;
  args: string[];
  source: "agentServer.serverCommand" | "agentServer.pythonPath" | "PATH";
}

export type Resolution = { ok: true; command: ResolvedCommand } | { ok: false; message: string };

/** Resolves a program name or path to an executable file, or undefined. */
export type Which = (program: string) => string | undefined;

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (process.platform === "win32") return true;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A `which` over the given PATH (and PATHEXT on Windows); names with a slash are checked as paths. */
export function makeWhich(env: NodeJS.ProcessEnv = process.env, isExecutable = isExecutableFile): Which {
  return (program: string) => {
    if (program.includes("/") || program.includes("\\")) return isExecutable(program) ? program : undefined;
    const exts = process.platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
    for (const dir of (env.PATH ?? "").split(path.delimiter)) {
      if (!dir) continue;
      for (const ext of exts) {
        const candidate = path.join(dir, program + ext);
        if (isExecutable(candidate)) return candidate;
      }
    }
    return undefined;
  };
}

const FIX =
  "Install it from a checkout of agent-server (it is not on PyPI): `pipx install /path/to/agent-server`, or `pip install -e .` in the checkout, " +
  'or set "agentServer.pythonPath" to a Python that has it, ' +
  'or "agentServer.serverCommand" to the full command, e.g. ["/path/to/agent-server", "serve"].';

/** Picks the command: `serverCommand` as given, else `pythonPath -m agent_server serve`, else `agent-server serve`. */
export function resolveServerCommand(settings: ServerCommandSettings, which: Which): Resolution {
  const logArgs = settings.logLevel ? ["--log-level", settings.logLevel] : [];
  if (settings.serverCommand.length > 0) {
    const [program, ...args] = settings.serverCommand;
    const found = program ? which(program) : undefined;
    if (!found) {
      return {
        ok: false,
        message: `agentServer.serverCommand: "${program ?? ""}" is not an executable file or a program on PATH. ${FIX}`,
      };
    }
    return { ok: true, command: { command: found, args, source: "agentServer.serverCommand" } };
  }
  if (settings.pythonPath.trim()) {
    const python = which(settings.pythonPath.trim());
    if (!python) {
      return { ok: false, message: `agentServer.pythonPath: "${settings.pythonPath}" is not an executable. ${FIX}` };
    }
    return {
      ok: true,
      // -P: `python -m` would put the working directory (the workspace) first on sys.path, so a repository holding an
      // `agent_server/` folder or a module named like a dependency would run as the server (Python ≥ 3.11, as required).
      command: { command: python, args: ["-P", "-m", "agent_server", "serve", ...logArgs], source: "agentServer.pythonPath" },
    };
  }
  const onPath = which("agent-server");
  if (!onPath) return { ok: false, message: `agent-server was not found on PATH. ${FIX}` };
  return { ok: true, command: { command: onPath, args: ["serve", ...logArgs], source: "PATH" } };
}
