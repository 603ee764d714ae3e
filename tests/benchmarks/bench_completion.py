"""Inline completion on code nobody tuned on: lines added by real commits of pallets/click, each masked in the file
as it was after the commit, the cursor at the line's indentation.

For each span the same model answers twice in the same run: with prefix and suffix only (`context_tokens = 0`), and
with repository context (the ring holding the other files the commit touched, as they were before it, and the
definitions of names near the cursor from an index of the parent commit's tree; the file itself is never in the
context). Scored on the first suggested line against the real one: exact match (whitespace-trimmed) and edit
similarity (1 - Levenshtein / longer length). Latency, request to suggestion, on a subset, for one request (the span
with its first character typed) asked twice: warm (the keystroke before, the span without that character, was just
asked, so llama.cpp reuses the evaluated prompt up to the cursor) and cold (an unrelated prompt took the slot first);
temperature 0, so both generate the same answer and only the prompt evaluation differs. Our own prefix cache is off
for these; its hit (the user typed what was suggested) is timed apart. `--spans 0` measures latency only.

The model is Qwen2.5-Coder-0.5B (Q4_K_M) under llama.cpp's server from `xllamacpp`, started here in a child process
(`cache_prompt`, `n_cache_reuse = 256`). Everything goes through `CompletionService` and `LlamaCppInfill`.

Run (heavy: take the lock): python tests/benchmarks/bench_completion.py
    [--spans 40] [--latency-spans 10] [--quick] [--repo-git DIR] [--model GGUF] [--json OUT]
`--quick` (CI): 3 spans, 2 for latency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from agent_server.completion.backends import LlamaCppInfill
from agent_server.completion.context import IndexDefinitions, RecentChunks
from agent_server.completion.service import CompletionService, Document
from agent_server.config import CompletionConfig
from agent_server.index.workspace_index import WorkspaceIndex

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from tests.real_llm.xllama import qwen_model  # noqa: E402

# The model: AGENT_COMPLETION_GGUF, else the Qwen2.5-Coder-0.5B GGUF scripts/real_llm.sh fetched. The code: a bare git
# dir of a repository nobody tuned on (AGENT_BENCH_COMPLETION_REPO or --repo-git; pallets/click for the reported run);
# --quick falls back to this repository's own history, only to check that the benchmark runs.
MODEL_ENV = os.environ.get("AGENT_COMPLETION_GGUF")
MODEL = Path()  # set in main()
REPO_GIT = Path(os.environ["AGENT_BENCH_COMPLETION_REPO"]) if os.environ.get("AGENT_BENCH_COMPLETION_REPO") else None
_SERVE = """
import sys, time
import xllamacpp as x
p = x.CommonParams()
p.model.path = sys.argv[1]; p.port = int(sys.argv[2]); p.n_ctx = int(sys.argv[3])
p.n_parallel = 1; p.cpuparams.n_threads = 2; p.endpoint_slots = True; p.endpoint_props = True
p.n_cache_reuse = 256; p.cache_prompt = True
server = x.Server(p)
while True:
    time.sleep(3600)
"""


@dataclass
class Span:
    commit: str
    parent: str
    path: str
    line: int  # 0-based, in the file after the commit
    target: str  # the line, trimmed
    text: str  # the file after the commit
    others: list[tuple[str, str, int]] = field(default_factory=list)  # (path, text before the commit, hunk line)


def git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=True).stdout


def _good_line(text: str) -> bool:
    s = text.strip()
    return (
        12 <= len(s) <= 100
        and not s.startswith(("#", '"""', "'''", "@", "import ", "from "))
        and re.search(r"[A-Za-z_]{3}", s) is not None
        and not re.fullmatch(r"[\"'].*[\"'],?", s)  # a bare string: prose, not code
    )


def collect(git_dir: Path, n: int, seed: int, source: str = "src/click") -> list[Span]:
    """`n` spans from commits touching `source` (a folder of the repository): its .py files only."""
    pattern = re.compile(rf"^{re.escape(source)}/.*\.py$")
    log = git(git_dir, "log", "--no-merges", "--since=2019-01-01", "--format=%H %P", "--", source)
    commits = [ln.split() for ln in log.splitlines() if len(ln.split()) == 2]
    rng = random.Random(seed)
    rng.shuffle(commits)
    spans: list[Span] = []
    for commit, parent in commits:
        if len(spans) >= n:
            break
        diff = git(git_dir, "diff", "-U0", parent, commit, "--", "*.py")
        added: dict[str, list[tuple[int, str]]] = {}
        first_line: dict[str, int] = {}
        path = ""
        for row in diff.splitlines():
            if row.startswith("+++ "):
                path = row[6:] if row.startswith("+++ b/") else ""
            elif row.startswith("@@") and path:
                m = re.search(r"\+(\d+)", row)
                start = int(m.group(1)) if m else 1
                first_line.setdefault(path, start - 1)
                cursor = start - 1
            elif row.startswith("+") and path:
                added.setdefault(path, []).append((cursor, row[1:]))
                cursor += 1
        sources = [p for p in added if pattern.match(p)]
        if not sources:
            continue
        path = rng.choice(sources)
        candidates = [(i, t) for i, t in added[path] if _good_line(t)]
        if not candidates:
            continue
        line, target = rng.choice(candidates)
        text = git(git_dir, "show", f"{commit}:{path}")
        others = []
        for other in added:
            if other == path or other not in first_line:
                continue
            try:
                before = git(git_dir, "show", f"{parent}:{other}")
            except subprocess.CalledProcessError:
                continue  # a new file: the user had nothing open there yet
            others.append((other, before, first_line[other]))
        spans.append(Span(commit, parent, path, line, target.strip(), text, others))
    return spans


def extract(git_dir: Path, commit: str, dest: Path, source: str = "src/click") -> None:
    """The top folder of `source` at `commit` into `dest` (the workspace the index is built from)."""
    top = source.split("/")[0]
    tar = subprocess.run(["git", f"--git-dir={git_dir}", "archive", commit, top], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=tar.stdout, check=True)


def levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def similarity(a: str, b: str) -> float:
    return 1.0 if not a and not b else 1 - levenshtein(a, b) / max(len(a), len(b))


def masked(span: Span, typed: str = "") -> Document:
    lines = span.text.split("\n")
    original = lines[span.line]
    indent = original[: len(original) - len(original.lstrip())]
    lines[span.line] = indent + typed
    return Document("file:///" + span.path, span.path, "\n".join(lines), span.line, len(indent) + len(typed))


def start_server(port: int, n_ctx: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _SERVE, str(MODEL), str(port), str(n_ctx)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise SystemExit("the llama.cpp server exited at start")
        time.sleep(0.5)
    proc.kill()
    raise SystemExit("the llama.cpp server did not come up in 180 s")


def config(context_tokens: int, cache: int = 0) -> CompletionConfig:
    # Small windows: on 2 shared cores the 0.5B model evaluates ~30-80 prompt tokens/s.
    return CompletionConfig(
        debounce_ms=0,
        max_tokens=24,
        multiline=False,
        prefix_lines=24,
        suffix_lines=6,
        context_tokens=context_tokens,
        chunk_lines=16,
        ring_chunks=8,
        cache_size=cache,
        temperature=0.0,
    )


async def run(args: argparse.Namespace) -> dict[str, Any]:
    spans = collect(args.repo_git, max(args.spans, args.latency_spans), args.seed, args.source)
    print(
        f"{len(spans)} spans from {len({s.commit for s in spans})} commits touching {args.source} of {args.repo_git}",
        file=sys.stderr,
    )
    url = args.url
    client = httpx.AsyncClient(timeout=httpx.Timeout(600, connect=5))

    backend = LlamaCppInfill(url, "qwen2.5-coder-0.5b", client, 600, None)

    async def factory() -> LlamaCppInfill:
        return backend

    plain = CompletionService(config(0), factory)
    # One service per configuration for the whole run: the backend is checked once, as in the editor.
    rich = CompletionService(config(args.context_tokens), factory, None, "click")
    cached = CompletionService(config(args.context_tokens, cache=64), factory, None, "click")
    rows: list[dict[str, Any]] = []
    cold: list[float] = []
    warm: list[float] = []
    hits: list[float] = []
    reused: list[int] = []  # prompt tokens llama.cpp took from its cache (warm)
    prompt_tokens: list[int] = []  # prompt tokens evaluated (cold)
    same: list[bool] = []
    with tempfile.TemporaryDirectory() as tmp:
        indexes: dict[str, WorkspaceIndex] = {}
        for n, span in enumerate(spans):
            index = indexes.get(span.parent)
            if index is None:
                tree = Path(tmp) / span.parent[:12]
                tree.mkdir()
                await asyncio.to_thread(extract, args.repo_git, span.parent, tree, args.source)
                index = indexes[span.parent] = WorkspaceIndex(tree, db_path=Path(tmp) / f"{span.parent[:12]}.db")
                await index.build()
            rich.definitions = IndexDefinitions(index.db)
            rich.ring = RecentChunks(8, 16)
            for path, before, line in span.others:
                rich.ring.add(path, before, line)
            if n < args.spans:
                a = await plain.complete(masked(span))
                b = await rich.complete(masked(span))
                row: dict[str, Any] = {"commit": span.commit[:10], "path": span.path, "line": span.line + 1}
                row["target"] = span.target
                for name, got in (("plain", a), ("context", b)):
                    first = got.text.split("\n")[0].strip()
                    row[name] = {
                        "first_line": first,
                        "exact": first == span.target,
                        "sim": similarity(first, span.target),
                    }
                row["extra_chunks"] = b.extra_chunks
                rows.append(row)
                print(
                    f"[{n + 1}/{len(spans)}] {span.path}:{span.line + 1} plain={row['plain']['sim']:.2f} "
                    f"context={row['context']['sim']:.2f} ({b.extra_chunks} chunks)",
                    file=sys.stderr,
                )
            if n < args.latency_spans:
                # Same prompt and (temperature 0) same answer both times: only llama.cpp's prompt cache differs.
                # Warm: the span was just asked without the typed character, as the keystroke before would have.
                typed = span.target[:1]
                await forget(client, url)
                await rich.complete(masked(span))
                backend.last_timings = None  # an answer cut short (the line ended) brings no timings
                t = time.perf_counter()
                got = await rich.complete(masked(span, typed))
                warm.append((time.perf_counter() - t) * 1000)
                if backend.last_timings:
                    reused.append(int(backend.last_timings.get("cache_n", 0)))
                await forget(client, url)
                backend.last_timings = None
                t = time.perf_counter()
                again = await rich.complete(masked(span, typed))
                cold.append((time.perf_counter() - t) * 1000)
                if backend.last_timings:
                    prompt_tokens.append(int(backend.last_timings.get("prompt_n", 0)))
                same.append(got.text == again.text)
                shown = got.text or "x = 1"
                cached.cache.put(_prefix(span), _suffix(span), shown)
                t = time.perf_counter()
                await cached.complete(masked(span, shown[:1]))
                hits.append((time.perf_counter() - t) * 1000)
        for index in indexes.values():
            index.close()
    await client.aclose()
    extra = {"cache_n_warm_p50": pct([float(x) for x in reused], 0.5), "prompt_n_cold_p50": pct([float(x) for x in prompt_tokens], 0.5),
             "same_answer_warm_and_cold": sum(same)}  # fmt: skip
    return summarize(rows, cold, warm, hits, args) | {"latency_tokens": extra}


def _prefix(span: Span) -> str:
    from agent_server.completion.service import split

    cfg = config(0)
    return split(masked(span), cfg.prefix_lines, cfg.suffix_lines).prefix


def _suffix(span: Span) -> str:
    from agent_server.completion.service import split

    cfg = config(0)
    return split(masked(span), cfg.prefix_lines, cfg.suffix_lines).suffix


async def forget(client: httpx.AsyncClient, url: str) -> None:
    """Leave nothing of the span in the server's prompt cache: a tiny unrelated prompt takes the (only) slot, as
    when the user comes from another file. (`/slots/0?action=erase` did not clear it in xllamacpp's build.)"""
    body = {"input_prefix": "x = 0\n", "input_suffix": "", "prompt": "", "n_predict": 1, "cache_prompt": True}
    await client.post(f"{url}/infill", json=body)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summarize(
    rows: list[dict[str, Any]], cold: list[float], warm: list[float], hits: list[float], args: argparse.Namespace
) -> dict[str, Any]:
    out: dict[str, Any] = {"spans": len(rows), "model": MODEL.name, "context_tokens": args.context_tokens}
    for name in ("plain", "context"):
        out[name] = {
            "exact": sum(r[name]["exact"] for r in rows) / max(1, len(rows)),
            "edit_similarity": statistics.fmean(r[name]["sim"] for r in rows) if rows else float("nan"),
        }
    out["latency_ms"] = {
        "n": len(cold),
        "cold_p50": pct(cold, 0.5),
        "cold_p95": pct(cold, 0.95),
        "warm_p50": pct(warm, 0.5),
        "warm_p95": pct(warm, 0.95),
        "prefix_cache_hit_p50": pct(hits, 0.5),
    }
    out["rows"] = rows
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo-git", type=Path, default=REPO_GIT)
    ap.add_argument("--source", default="src/click", help="the repository's source folder the spans come from")
    ap.add_argument("--spans", type=int, default=40)
    ap.add_argument("--latency-spans", type=int, default=10)
    ap.add_argument("--context-tokens", type=int, default=384)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--port", type=int, default=18932)
    ap.add_argument("--quick", action="store_true", help="CI: 3 spans, 2 for latency")
    ap.add_argument("--json", type=Path, help="write the full results here")
    ap.add_argument("--url", help="use this llama.cpp server instead of starting one (e.g. the embedded provider's)")
    args = ap.parse_args()
    if args.quick:
        # Enough to check every part runs (a span with context, the warm/cold/cached latencies), not to measure:
        # 6 spans and 3 for latency took 117 s of CI's real_llm lane (28 Nov 2026, 2 threads), ~25 s a latency span.
        args.spans, args.latency_spans = 3, 2
    global MODEL
    found = Path(MODEL_ENV) if MODEL_ENV else qwen_model()
    if found is None or not found.is_file():
        raise SystemExit("no model: set AGENT_COMPLETION_GGUF or run scripts/real_llm.sh")
    MODEL = found
    if args.repo_git is None and args.quick:
        args.repo_git, args.source = ROOT / ".git", "agent_server"
    if args.repo_git is None or not (args.repo_git / "HEAD").exists():
        raise SystemExit(f"no git dir at {args.repo_git}: --repo-git or AGENT_BENCH_COMPLETION_REPO (pallets/click)")
    server = None if args.url else start_server(args.port, 4096)
    args.url = args.url or f"http://127.0.0.1:{args.port}"
    started = time.monotonic()
    try:
        result = asyncio.run(run(args))
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
    result["seconds"] = round(time.monotonic() - started, 1)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    lat = result["latency_ms"]
    print(f"spans: {result['spans']} ({args.source} commits, first line of the suggestion)")
    for name in ("plain", "context"):
        r = result[name]
        label = "prefix/suffix only" if name == "plain" else f"+ repository context ({args.context_tokens} tok)"
        print(f"  {label:32s} exact {r['exact']:.3f}  edit similarity {r['edit_similarity']:.3f}")
    print(
        f"latency ms (n={lat['n']}): cold p50 {lat['cold_p50']:.0f} p95 {lat['cold_p95']:.0f} | "
        f"warm p50 {lat['warm_p50']:.0f} p95 {lat['warm_p95']:.0f} | prefix-cache hit p50 "
        f"{lat['prefix_cache_hit_p50']:.2f}"
    )
    tok = result["latency_tokens"]
    print(
        f"  llama.cpp prompt tokens (answers not cut short only): cold evaluates p50 {tok['prompt_n_cold_p50']:.0f}; "
        f"warm reuses p50 "
        f"{tok['cache_n_warm_p50']:.0f} from its cache; same answer warm and cold: {tok['same_answer_warm_and_cold']}/{lat['n']}"
    )
    print(f"took {result['seconds']} s")


if __name__ == "__main__":
    main()
