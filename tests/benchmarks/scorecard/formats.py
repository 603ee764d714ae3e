"""The scorecard's verdict on how a model should edit (tool calls or whole files), remembered in agent-server's store.

`bench_scorecard.py --remember` runs agent-server both ways on the same tasks, picks the format that finished more
(pass@1, then pass@2, then fewer prompt tokens per task: a CPU reads every one; a full tie keeps tool calls, the
default), and writes it where `agent.edit_format = "auto"` looks first (`turn/edit_format.py`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from agent_server.config_layers import load_layers
from agent_server.store import Store
from agent_server.turn.edit_format import model_key


def _score(s: dict[str, Any]) -> tuple[int, int, float]:
    return s["pass@1"], s["pass@2"], -s["prompt_tokens"] / max(s["tasks"], 1)


def verdict(result: dict[str, Any]) -> tuple[str, str]:
    """(format, evidence) from a run's --json result; ValueError when the run did not measure both formats."""
    best: dict[str, dict[str, Any]] = {}
    for name, fmt in result.get("formats", {}).items():
        s = result["summary"].get(name)
        if s is not None and (fmt not in best or _score(s) > _score(best[fmt])):
            best[fmt] = s
    if set(best) != {"files", "tools"}:
        raise ValueError("the run did not measure both edit formats (agent-server with files and with tool calls)")
    if best["files"]["tasks"] != best["tools"]["tasks"]:
        raise ValueError("the two edit formats ran different numbers of tasks")
    fmt = "files" if _score(best["files"]) > _score(best["tools"]) else "tools"
    f, t = best["files"], best["tools"]
    evidence = (
        f"scorecard {time.strftime('%Y-%m-%d')}, {f['tasks']} tasks, window {result['window']}: "
        f"files {f['pass@1']}/{f['tasks']} (pass@2 {f['pass@2']}), tools {t['pass@1']}/{t['tasks']} "
        f"(pass@2 {t['pass@2']})"
    )
    return fmt, evidence


def remember(result: dict[str, Any], store_path: Path | None, model: str | None = None) -> str:
    """Write the verdict for `model` (default: the name the run used) into the store agent-server reads: `store_path`,
    else the one the user's configuration names. Returns what was remembered, as a line to print."""
    fmt, evidence = verdict(result)
    name = model or result["model"]
    path = store_path or load_layers(Path.cwd()).settings.database_path()
    store = Store(path)
    try:
        store.put_measured_format(model_key(name), fmt, evidence)
    finally:
        store.close()
    return f"remembered for {name}: edit with {fmt} ({evidence}) in {path}"
