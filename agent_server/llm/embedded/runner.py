"""The child process that runs llama.cpp: `python -m agent_server.llm.embedded.runner --model FILE --port N ...`.

It lives only as long as its parent: it exits when its stdin reaches end of file (the parent closed it, or died and
the kernel closed it) and, on Linux, when the parent dies (PR_SET_PDEATHSIG). A crash or out-of-memory kill here
never takes the agent down; the parent sees the exit and reports it.

With `--api-key-stdin` the first line of stdin is the API key every request but `/health` must carry (the parent
makes it per run; a command line or an environment can be read by other processes, a pipe cannot). CORS grants no
origin in any case, and the web UI is off: this server is agent-server's, not a browser's.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import sys
import threading


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except OSError:
            pass


def _watch_stdin() -> None:
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except (OSError, ValueError):
        pass
    os._exit(0)  # the parent is gone: no clean-up of llama.cpp's threads is needed


def _read_key() -> str:
    """The first line of stdin, read byte by byte so nothing after it is taken from the pipe's watcher."""
    line = b""
    while not line.endswith(b"\n") and len(line) < 4096:
        byte = os.read(0, 1)
        if not byte:
            break
        line += byte
    return line.decode("ascii", "replace").strip()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="agent_server.llm.embedded.runner")
    p.add_argument("--model", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ctx", type=int, default=0, help="0 = the model's trained window")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--alias", required=True)
    p.add_argument("--slot-save-path", default="")
    p.add_argument("--parallel", type=int, default=1)
    p.add_argument("--metrics", action="store_true", help="serve /metrics (token counters, for benchmarks)")
    p.add_argument("--embeddings", action="store_true", help="serve /v1/embeddings (an embedding server)")
    p.add_argument("--pooling", choices=["mean", "cls", "last", "none"], default=None)
    p.add_argument("--batch", type=int, default=None)
    p.add_argument("--ubatch", type=int, default=None)
    p.add_argument("--api-key-stdin", action="store_true", help="read the API key from stdin's first line")
    args = p.parse_args(argv)
    _die_with_parent()
    key = _read_key() if args.api_key_stdin else None
    if args.api_key_stdin and not key:
        print("agent-server: no API key on stdin", file=sys.stderr)
        return 2
    try:
        import xllamacpp
    except ImportError:
        from .install_hint import install_command

        print(f"agent-server: xllamacpp is not installed: {install_command()}", file=sys.stderr)
        return 3
    threading.Thread(target=_watch_stdin, daemon=True).start()
    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}  # a set of names in this binding
    params.n_ctx = args.ctx
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.use_jinja = True  # the model's own chat template: it renders tool definitions and calls
    params.endpoint_slots = True
    params.endpoint_props = True
    params.endpoint_metrics = args.metrics
    params.cache_prompt = True
    params.port = args.port
    params.hostnames = ["127.0.0.1"]
    if key:
        params.api_keys = [key]
    # llama.cpp reflects any Origin by default; an explicit empty list grants none (the header is empty, which no
    # browser accepts), so no web page can read an answer or pass a CORS preflight. No web UI either.
    params.cors_origins = ""
    params.cors_origins_explicit = True
    params.ui = False
    if args.slot_save_path:
        # llama.cpp joins this and the file name as strings (its own CLI adds the separator; this binding does not):
        # without it, slot files land beside the folder as `slots<name>`.
        params.slot_save_path = os.path.join(args.slot_save_path, "")
    if args.embeddings:
        params.embedding = True
    if args.pooling:
        params.pooling_type = getattr(xllamacpp.llama_pooling_type, f"LLAMA_POOLING_TYPE_{args.pooling.upper()}")
    if args.batch:
        params.n_batch = args.batch
    if args.ubatch:
        params.n_ubatch = args.ubatch
    server = xllamacpp.Server(params)  # serves from its own threads
    print(f"agent-server embedded llama.cpp ready on 127.0.0.1:{args.port}", file=sys.stderr, flush=True)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    del server
    os._exit(0)


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    sys.exit(main())
