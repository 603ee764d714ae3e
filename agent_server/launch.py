"""The `agent-server` entry point: `search` of a built index skips the full CLI's imports (configuration, store,
LLM and protocol modules); every other command goes to `agent_server.cli`."""

from __future__ import annotations

import gc
import os
import sys


def main(argv: list[str] | None = None) -> int:
    try:
        return _run(argv)
    finally:
        # The interpreter's teardown then collects garbage across every loaded module: with the agent loaded (~780
        # modules, ~90,000 tracked objects) that was 0.3-0.5 s of CPU at every exit of a server, an ACP agent or a
        # `chat` run, after everything of ours had closed (measured: an LSP server's `exit` to its end 0.31-0.34 s,
        # 0.03-0.05 s frozen). Frozen objects are only left out of those collections: atexit handlers, thread joins
        # and stream flushes run as before.
        gc.freeze()


def _run(argv: list[str] | None) -> int:
    args = sys.argv[1:] if argv is None else argv
    on_the_wire = args[:1] in (["serve"], ["acp"]) and "--tcp" not in args and not {"-h", "--help"} & set(args)
    if on_the_wire:
        # Before any other import: from here on nothing but JSON-RPC reaches the client (stdio.py).
        from .stdio import claim_stdout

        wire = claim_stdout()
    if on_the_wire and args[:1] == ["serve"]:
        # The editor's `initialize` is answered before pygls and the agent load (protocol/early_initialize.py).
        from . import __version__
        from .protocol.early_initialize import take

        take(__version__, wire.fileno())
    if args[:1] == ["search"]:
        # numpy's OpenBLAS starts a thread per core when it loads; a one-shot search does no BLAS work, and the
        # start-up costs ~60 ms on 2 busy cores (bench_cli_search.py). A user's own setting wins.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        from .errors import AgentServerError
        from .index.cli import main as index_main

        try:
            return index_main(args)
        except AgentServerError as exc:
            print(f"agent-server: {exc}", file=sys.stderr)
            return 1
    from .cli import main as full_main

    return full_main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
