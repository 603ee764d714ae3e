"""The embedded llama.cpp child: clear errors before starting, and a real start/stop with the real runner."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from agent_server.config import EmbeddedConfig, LLMConfig, Settings
from agent_server.errors import LLMError
from agent_server.llm.base import ChatRequest, GenerationOptions
from agent_server.llm.embedded.catalogue import SMOLLM2_135M, resolve
from agent_server.llm.embedded.server import EmbeddedServerError, check_memory, shared_server, xllamacpp_installed
from agent_server.llm.registry import NoServerError, resolve_endpoint
from agent_server.messages import Message

CI_MODEL = Path(os.environ.get("AGENT_SERVER_CI_SMOLLM", "/nonexistent"))
ROOT = Path(__file__).resolve().parents[3]


def _fetched() -> Path:
    """The SmolLM2 GGUF scripts/real_llm.sh fetched (CI runs it before the tests)."""
    done = subprocess.run(["bash", "scripts/real_llm.sh", "--check"], cwd=ROOT, capture_output=True, text=True)
    values = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    return Path(values.get("LLAMA_MODEL", "/nonexistent"))


FETCHED = _fetched()  # at import: the tests' own cache dirs are temporary


def _smollm() -> Path:
    for path in (CI_MODEL, FETCHED):
        if path.is_file() and path.stat().st_size == SMOLLM2_135M.size:
            return path
    pytest.skip("SmolLM2 GGUF not present (scripts/real_llm.sh provides it)")


def test_a_configured_port_in_use_is_a_clear_error(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(EmbeddedServerError, match=f"port {port} .* is in use"):
            shared_server(model, "m", EmbeddedConfig(port=port, cache_dir=str(tmp_path)))


def test_not_enough_memory_is_said_before_loading(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    with pytest.raises(EmbeddedServerError, match="not enough memory"):
        check_memory(model, context=1_000_000_000)


def test_the_runner_without_xllamacpp_says_how_to_install_it(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['xllamacpp'] = None; from agent_server.llm.embedded.runner import main; "
        "sys.exit(main(['--model', 'x.gguf', '--port', '1', '--alias', 'x']))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, stdin=subprocess.PIPE
    )
    assert proc.returncode == 3
    # agent-server is not on PyPI: the hint is a command that works from here (this checkout's extra, this Python).
    assert "'agent-server[local]'" not in proc.stderr
    assert f"{sys.executable} -m pip install -e " in proc.stderr and "[local]'" in proc.stderr


def test_the_install_hint_names_this_python_and_the_pinned_xllamacpp(monkeypatch: pytest.MonkeyPatch) -> None:
    import tomllib

    from agent_server.llm.embedded import install_hint

    checkout = Path(__file__).resolve().parents[3]
    install_hint.install_command.cache_clear()
    assert install_hint.install_command() == f"{sys.executable} -m pip install -e '{checkout}[local]'"
    # Installed from a wheel (no checkout): the exact xllamacpp pin of pyproject's `local` extra.
    monkeypatch.setattr(install_hint, "_checkout", lambda: None)
    install_hint.install_command.cache_clear()
    [pin] = tomllib.loads((checkout / "pyproject.toml").read_text())["project"]["optional-dependencies"]["local"]
    assert install_hint.install_command() == f"{sys.executable} -m pip install {pin}"
    install_hint.install_command.cache_clear()


def test_an_unknown_model_name_lists_the_catalogue() -> None:
    with pytest.raises(LLMError, match=r"qwen2\.5-coder-0\.5b-instruct"):
        resolve("no-such-model")


async def test_no_server_offers_the_built_in_model() -> None:
    settings = Settings()
    with pytest.raises(NoServerError) as caught:
        await resolve_endpoint(settings, ollama_url="http://127.0.0.1:9", lmstudio_url="http://127.0.0.1:9")
    assert caught.value.embedded["settings"] == {"llm.provider": "embedded"}
    assert caught.value.embedded["available"] is xllamacpp_installed()
    assert 'llm.provider = "embedded"' in str(caught.value) or "[local]" in str(caught.value)


@pytest.mark.skipif(not xllamacpp_installed(), reason="needs the agent-server[local] extra (xllamacpp)")
async def test_the_embedded_server_serves_the_models_window_and_restarts_after_a_crash(tmp_path: Path) -> None:
    model = _smollm()
    llm = LLMConfig(
        provider="embedded", model=str(model), embedded=EmbeddedConfig(context=1024, cache_dir=str(tmp_path))
    )
    name, url, alias = await resolve_endpoint(Settings(llm=llm))
    from agent_server.llm.embedded.provider import server_at
    from agent_server.llm.registry import build

    server = server_at(url)
    try:
        assert (name, alias) == ("embedded", model.stem)
        provider = build(name, url, llm)
        info = await provider.model_info(alias)
        assert info.context_length == 1024  # the window it really runs, from /props
        assert info.details["server_facts"]["server"] == "llama.cpp"
        async with httpx.AsyncClient() as http:
            slots = (await http.get(url + "/slots", headers={"Authorization": f"Bearer {server.api_key}"})).json()
        assert len(slots) == 1
        assert server.proc is not None
        os.kill(server.proc.pid, signal.SIGKILL)  # a crash (or the OOM killer)
        await server.proc.wait()
        models = await provider.list_models()  # the next request starts it again, same URL
        assert [m.name for m in models] == [alias]
        await provider.aclose()
    finally:
        await server.stop()


@pytest.mark.skipif(not xllamacpp_installed(), reason="needs the agent-server[local] extra (xllamacpp)")
def test_the_child_stops_when_its_parent_dies(tmp_path: Path) -> None:
    model = _smollm()
    parent = subprocess.Popen(
        [sys.executable, "-m", "agent_server.llm.embedded.runner", "--model", str(model), "--port", "0",
         "--alias", "x", "--ctx", "512"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    # The runner is the child here; closing its stdin is what a dying parent does to it.
    time.sleep(1)
    assert parent.stdin is not None
    parent.stdin.close()
    assert parent.wait(timeout=30) == 0


@pytest.mark.skipif(not xllamacpp_installed(), reason="needs the agent-server[local] extra (xllamacpp)")
async def test_only_agent_server_can_use_the_embedded_server(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Another local process or a web page gets 401 and no CORS grant; agent-server's own requests carry the key,
    which appears in no log, no command line and no environment."""
    model = _smollm()
    llm = LLMConfig(
        provider="embedded", model=str(model), embedded=EmbeddedConfig(context=1024, cache_dir=str(tmp_path))
    )
    caplog.set_level(logging.DEBUG)
    name, url, alias = await resolve_endpoint(Settings(llm=llm))
    from agent_server.llm.embedded.provider import server_at
    from agent_server.llm.registry import build

    server = server_at(url)
    try:
        async with httpx.AsyncClient() as http:
            for method, path in [("GET", "/props"), ("GET", "/v1/models"), ("GET", "/slots"),
                                 ("POST", "/v1/chat/completions"), ("POST", "/infill"), ("POST", "/tokenize")]:  # fmt: skip
                refused = await http.request(method, url + path, json={"content": "x"})
                assert refused.status_code == 401, path
            save = await http.post(url + "/slots/0?action=save", json={"filename": "planted.bin"})
            assert save.status_code == 401 and not (server.slot_save_path / "planted.bin").exists()
            web = {"Origin": "http://evil.example"}
            preflight = {
                **web,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization",
            }
            for answer in (
                await http.get(url + "/health", headers=web),
                await http.options(url + "/v1/chat/completions", headers=preflight),
                await http.get(url + "/props", headers={**web, "Authorization": f"Bearer {server.api_key}"}),
            ):
                # No origin is granted: the header is absent or empty, which no browser accepts.
                assert answer.headers.get("access-control-allow-origin", "") == "", answer.headers
        provider = build(name, url, llm)
        assert (await provider.model_info(alias)).context_length == 1024  # /props, with the key
        hi = ChatRequest(model=alias, messages=[Message("user", "Hi")], options=GenerationOptions(max_tokens=4))
        events = [e async for e in provider.stream_chat(hi)]
        assert events, "the chat answered"
        try:
            await provider.embed(alias, ["hello"])
        except LLMError as exc:  # this server is not an embedding server; the point is that it was not refused
            assert "401" not in str(exc) and "API Key" not in str(exc), exc
        await provider.aclose()
        assert server.proc is not None
        child = server.proc.pid
        seen = [
            Path(f"/proc/{child}/cmdline").read_bytes(),
            Path(f"/proc/{child}/environ").read_bytes(),
            server.log_path.read_bytes(),
            caplog.text.encode(),
            repr(server).encode(),
        ]
        assert all(server.api_key.encode() not in blob for blob in seen)
    finally:
        await server.stop()


@pytest.mark.skipif(not xllamacpp_installed(), reason="needs the agent-server[local] extra (xllamacpp)")
async def test_the_runner_never_runs_a_package_from_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's working directory is the workspace; `python -m` would put it first on sys.path, so a repository
    holding an `agent_server/` folder would run in the runner's place."""
    model = _smollm()
    marker = tmp_path / "RAN"
    hostile = tmp_path / "repo" / "agent_server"
    hostile.mkdir(parents=True)
    (hostile / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    monkeypatch.chdir(hostile.parent)
    llm = LLMConfig(
        provider="embedded", model=str(model), embedded=EmbeddedConfig(context=512, cache_dir=str(tmp_path))
    )
    _, url, _ = await resolve_endpoint(Settings(llm=llm))
    from agent_server.llm.embedded.provider import server_at

    await server_at(url).stop()
    assert not marker.exists()
