"""LiteLLM's proxy (the usual team gateway: per-user keys, rate limits, fallbacks), from PyPI, in its own venv outside
the project's dependencies (~/.cache/agent-server-bench/litellm-venv), in front of a real llama.cpp server.

The gateway a team would run, in small: a key of its own (checked by a custom auth hook, as LiteLLM's docs show for
keys kept elsewhere), a header the team requires (`X-Team-User`: missing, the request is refused), a limit of
`rpm` requests per `window_s` seconds on that key (LiteLLM's own limiter, answering 429 with `retry-after`), and a
fallback: the model agent-server asks for (`team-coder`) points at a replica that is down, so LiteLLM answers from
`team-fallback`, the real llama.cpp. What reached the hook (the header's value and the key's last four characters)
is written to `seen.jsonl` beside the config, so a test can see that the header arrived.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

VERSION = "1.106.12"  # the newest whose `proxy` extra installs from PyPI (later ones need an unpublished package)
VENV = Path(os.environ.get("AGENT_SERVER_LITELLM_VENV", Path.home() / ".cache" / "agent-server-bench" / "litellm-venv"))
KEY = "sk-team-alice-0123456789abcdef"
USER = "alice"

AUTH = """
import json, os
from fastapi import Request
from litellm.proxy._types import UserAPIKeyAuth

async def user_api_key_auth(request: Request, api_key: str) -> UserAPIKeyAuth:
    user = request.headers.get("x-team-user")
    with open(os.path.join(os.path.dirname(__file__), "seen.jsonl"), "a") as seen:
        seen.write(json.dumps({"path": request.url.path, "user": user, "key_end": (api_key or "")[-4:]}) + "\\n")
    if api_key != os.environ["TEAM_KEY"]:
        raise Exception("unknown key")
    if user != os.environ["TEAM_USER"]:
        raise Exception("the X-Team-User header is required")
    return UserAPIKeyAuth(api_key=api_key, user_id=user, rpm_limit=int(os.environ["TEAM_RPM"]))
"""


def installed() -> Path | None:
    exe = VENV / "bin" / "litellm"
    return exe if exe.is_file() else None


def install() -> Path:
    """The venv with `litellm[proxy]` (minutes the first time, nothing after)."""
    if (exe := installed()) is not None:
        return exe
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, timeout=300)
    subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", f"litellm[proxy]=={VERSION}"], check=True,
                   timeout=1800)  # fmt: skip
    exe = installed()
    assert exe is not None
    return exe


@dataclass
class Gateway:
    url: str
    folder: Path
    proc: subprocess.Popen[bytes]
    log: Path

    def seen(self) -> list[dict[str, str]]:
        path = self.folder / "seen.jsonl"
        lines = path.read_text().splitlines() if path.is_file() else []
        return [json.loads(line) for line in lines]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_gateway(exe: Path, folder: Path, llama_url: str, llama_model: str, rpm: int, window_s: int) -> Gateway:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "team_auth.py").write_text(AUTH)
    down = f"http://127.0.0.1:{_free_port()}/v1"  # a replica that is down: nothing listens there
    config = {
        "model_list": [
            {"model_name": "team-coder", "litellm_params": {"model": f"openai/{llama_model}", "api_base": down,
                                                             "api_key": "none"}},
            {"model_name": "team-fallback", "litellm_params": {"model": f"openai/{llama_model}",
                                                                "api_base": llama_url + "/v1", "api_key": "none"}},
        ],
        "router_settings": {"fallbacks": [{"team-coder": ["team-fallback"]}], "num_retries": 0},
        "litellm_settings": {"num_retries": 0, "request_timeout": 600},
        # The admin's key (LiteLLM refuses to start without one); users come in through the hook with their own.
        "general_settings": {"custom_auth": "team_auth.user_api_key_auth", "master_key": "sk-" + secrets.token_hex(32)},
    }  # fmt: skip
    (folder / "config.yaml").write_text(json.dumps(config))  # JSON is YAML
    port = _free_port()
    env = {**os.environ, "TEAM_KEY": KEY, "TEAM_USER": USER, "TEAM_RPM": str(rpm),
           "LITELLM_RATE_LIMIT_WINDOW_SIZE": str(window_s), "LITELLM_LOG": "ERROR", "NO_DOCS": "True"}  # fmt: skip
    log = folder / "litellm.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([str(exe), "--config", str(folder / "config.yaml"), "--host", "127.0.0.1",
                                 "--port", str(port), "--num_workers", "1"], stdout=out, stderr=subprocess.STDOUT,
                                env=env, cwd=folder)  # fmt: skip
    gateway = Gateway(f"http://127.0.0.1:{port}", folder, proc, log)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"litellm exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(gateway.url + "/health/liveliness", timeout=5) as answer:
                if answer.status == 200:
                    return gateway
        except (OSError, urllib.error.URLError):
            pass
        time.sleep(0.5)
    gateway.stop()
    raise RuntimeError(f"litellm did not answer in 180 s:\n{log.read_text()[-3000:]}")
