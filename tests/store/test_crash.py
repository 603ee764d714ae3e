"""A real writer process is SIGKILLed at random points; every message it reported as committed survives,
exactly once, and nothing half-written is ever visible."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from agent_server.store import Store

WRITER = Path(__file__).with_name("crash_writer.py")
KILLS = 15


def _run_and_kill(path: Path, session_id: str, run: int, delay: float) -> list[tuple[int, str]]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), str(path), session_id, str(run)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    first = threading.Event()

    def reader() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            lines.append(raw.decode())
            first.set()

    t = threading.Thread(target=reader)
    t.start()
    # Kill only once the writer is really writing (imports and migrations take a while on a busy machine).
    assert first.wait(60), proc.stderr.read().decode() if proc.stderr else ""
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    t.join()
    out = []
    for line in lines:
        if line.endswith("\n"):  # a line cut by the kill was never a completed report
            msg_id, tag = line.split()
            out.append((int(msg_id), tag))
    return out


def test_sigkill_never_loses_or_tears_a_committed_message(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    with Store(path) as s:
        sid = s.create_session("/w").id
    rng = random.Random(1234)
    reported: dict[int, str] = {}
    for run in range(KILLS):
        for msg_id, tag in _run_and_kill(path, sid, run, rng.uniform(0.0, 0.3)):
            reported[msg_id] = tag

        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = conn.execute("SELECT id, content, tool_calls, meta FROM messages WHERE session_id = ?", (sid,))
        seen: dict[str, int] = {}
        for _msg_id, content, tool_calls, meta in rows:
            calls = json.loads(tool_calls)  # a torn row would not parse
            assert calls[0]["arguments"]["content"] == content * 400
            assert json.loads(meta) == {"tag": content}
            seen[content] = seen.get(content, 0) + 1
        conn.close()
        for msg_id, tag in reported.items():
            assert seen.get(tag) == 1, f"committed message {msg_id} ({tag}) seen {seen.get(tag, 0)} times"
        assert all(n == 1 for n in seen.values())

    assert len(reported) > KILLS  # the writer did get work done between kills
    with Store(path) as s:
        transcript = s.transcript(sid)
    assert {m.content for m in transcript} >= set(reported.values())
