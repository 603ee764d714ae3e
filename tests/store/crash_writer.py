"""Appends messages forever, printing each id after its commit; the crash test SIGKILLs it at random points."""

from __future__ import annotations

import sys
from pathlib import Path

from agent_server.messages import Message, ToolCall
from agent_server.store import Store


def main() -> None:
    path, session_id, run = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    store = Store(path)
    i = 0
    while True:
        tag = f"{run}-{i}"
        # Big enough that a write spans several pages, so a kill mid-write would show if it were visible.
        calls = [ToolCall(f"call-{tag}", "write_file", {"path": f"f{i}.py", "content": tag * 400, "n": i})]
        msg_id = store.append_message(session_id, Message("assistant", tag, tool_calls=calls, meta={"tag": tag}))
        sys.stdout.write(f"{msg_id} {tag}\n")
        sys.stdout.flush()
        i += 1


if __name__ == "__main__":
    main()
