"""Nothing but JSON-RPC on stdout, even when something in the server process writes to file descriptor 1."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.e2e.conftest import Start, llm_options, new_session
from tests.fakes.fake_llm import FakeLLMServer

# A library that writes while the server is still loading (the moment pygls is imported, long before the server
# is built), and a print once it runs.
STRAY = """
import os, sys, threading, time
def _stray():
    deadline = time.monotonic() + 20
    while "pygls" not in sys.modules and time.monotonic() < deadline:
        time.sleep(0.001)
    os.write(1, b"STRAY BYTES WHILE LOADING\\n")
    time.sleep(1.5)
    os.write(1, b"STRAY BYTES FROM A LIBRARY\\n")
    print("a stray print", flush=True)
threading.Thread(target=_stray, daemon=True).start()
"""


async def test_stray_writes_to_fd_1_go_to_stderr(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(STRAY)
    server = await start_server(workspace, llm_options(fake_llm), env={"PYTHONPATH": str(site)})
    await new_session(server, workspace)
    await asyncio.sleep(2.5)  # the stray writes have happened by now
    # The wire is intact: another request is answered (the client fails on any non-JSON-RPC byte on stdout).
    sid = await new_session(server, workspace)
    assert sid.startswith("sess_")
    assert server.proc.stderr is not None
    server.proc.terminate()
    err = await asyncio.wait_for(server.proc.stderr.read(), 30)
    assert b"STRAY BYTES WHILE LOADING" in err
    assert b"STRAY BYTES FROM A LIBRARY" in err and b"a stray print" in err
