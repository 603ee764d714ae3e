"""The tests' forked server start (tests/server_zygote.py) behaves as `python -m agent_server` does: same output and
exit status, the caller's environment and directory, the pipes it was given; and it is the forked path that ran."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests import server_zygote
from tests.lsp_client import LspClient


@pytest.fixture
def forked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_TEST_EXEC", raising=False)


def exec_env() -> dict[str, str]:
    return {**os.environ, "AGENT_TEST_EXEC": "1"}


@pytest.mark.usefixtures("forked")
def test_a_forked_command_answers_as_an_execd_one(tmp_path: Path) -> None:
    for args in (["--version"], ["no-such-command"], ["sessions", "list", "--json"]):
        env = {**os.environ, "AGENT_SERVER_STORE__PATH": str(tmp_path / "s.db")}
        forked, execd = server_zygote.run(args, env=env, timeout=60), server_zygote.run(args, env={**env, **exec_env()})
        assert (forked.returncode, forked.stdout) == (execd.returncode, execd.stdout), args
        assert forked.stderr.replace(str(tmp_path), "") == execd.stderr.replace(str(tmp_path), ""), args
    assert server_zygote._zygote is not None  # the forked runs went through the zygote


@pytest.mark.usefixtures("forked")
def test_a_forked_command_takes_the_callers_environment_directory_and_input(tmp_path: Path) -> None:
    store = tmp_path / "elsewhere" / "agent.db"
    store.parent.mkdir()
    done = server_zygote.run(["sessions", "list", "--json"], env={**os.environ, "AGENT_SERVER_STORE__PATH": str(store)})
    assert done.returncode == 0 and done.stdout.strip() == "[]" and store.exists()
    # a relative store path is read from the child's own working directory
    relative = server_zygote.run(
        ["sessions", "list", "--json"], env={**os.environ, "AGENT_SERVER_STORE__PATH": "rel.db"}, cwd=tmp_path
    )
    assert relative.returncode == 0 and (tmp_path / "rel.db").exists()


@pytest.mark.usefixtures("forked")
async def test_a_forked_server_speaks_on_its_pipes_and_reports_how_it_ended(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    client = await LspClient.start(env={"AGENT_SERVER_STORE__PATH": str(tmp_path / "a.db")}, cwd=tmp_path)
    assert isinstance(client.proc, server_zygote.ForkedServer)
    result = await client.initialize(ws, {})
    assert result["serverInfo"]["name"] == "agent-server"
    await client.close()
    assert client.proc.returncode == 0  # shutdown + exit: a clean exit, as from an exec'd server
    killed = await LspClient.start(env={"AGENT_SERVER_STORE__PATH": str(tmp_path / "b.db")}, cwd=tmp_path)
    await killed.initialize(ws, {})
    killed.proc.kill()
    assert await killed.proc.wait() == -signal.SIGKILL


@pytest.mark.usefixtures("forked")
def test_a_python_variable_set_after_the_zygote_started_gives_a_real_exec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert server_zygote.run(["--version"], timeout=60).returncode == 0  # the zygote is up
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sys\nsys.stderr.write('CUSTOMIZED\\n')\n")
    monkeypatch.setenv("PYTHONPATH", str(site))  # this process's and the child's, not the zygote's
    assert "CUSTOMIZED" in server_zygote.run(["--version"], timeout=60).stderr
