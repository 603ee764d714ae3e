"""Nothing but JSON-RPC on stdout, even when something in the server process writes to file descriptor 1."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.e2e.conftest import Start, llm_options, new_session
from tests.fakes import stray_stdout
from tests.fakes.fake_llm import FakeLLMServer


async def test_stray_writes_to_fd_1_go_to_stderr(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    site = stray_stdout.site_folder(tmp_path, "pygls", later=True)  # pygls loads long before the server is built
    server = await start_server(workspace, llm_options(fake_llm), env={"PYTHONPATH": str(site)})
    await new_session(server, workspace)
    await asyncio.sleep(2.5)  # the stray writes have happened by now
    # The wire is intact: another request is answered (the client fails on any non-JSON-RPC byte on stdout).
    sid = await new_session(server, workspace)
    assert sid.startswith("sess_")
    assert server.proc.stderr is not None
    server.proc.terminate()
    err = await asyncio.wait_for(server.proc.stderr.read(), 30)
    assert stray_stdout.WHILE_LOADING.encode() in err
    assert stray_stdout.LATER.encode() in err and stray_stdout.PRINTED.encode() in err
