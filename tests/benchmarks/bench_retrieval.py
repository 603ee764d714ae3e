"""Retrieval benchmark on the DEV split of SWE-bench Lite file localization: hybrid ranking vs plain FTS5 BM25.

Run: python tests/benchmarks/bench_retrieval.py [--repos-dir $AGENT_BENCH_REPOS] [--big-repo <sympy bare git dir>]
Repositories are bare git dirs with full history (`<repos-dir>/<owner>+<name>/repo` or `<repos-dir>/<name>.git`).
Only the dev split is ever read; held-out tasks are skipped before anything else happens.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_server.index.entities import analyze_request
from agent_server.index.path_policy import is_test_path
from agent_server.index.search import rank, rank_files
from agent_server.index.tokenize import STOP_WORDS, split_identifier
from agent_server.index.weights import Weights
from agent_server.index.workspace_index import WorkspaceIndex
from agent_server.tools.search_query import MAX_QUERY_CHARS

ROOT = Path(__file__).resolve().parents[2]
# The task file ships in the project's shared folder beside the checkout; elsewhere pass --tasks or AGENT_BENCH_TASKS.
TASKS = Path(os.environ.get("AGENT_BENCH_TASKS") or ROOT.parent / "shared/bench/swebench-lite-loc/tasks.jsonl")
# --quick: two requests about this repository itself, so the whole benchmark path runs anywhere (CI) in seconds.
QUICK_TASKS = [
    (
        "The streamed answer repeats the same span until the token limit; the repetition guard should cut it earlier.",
        "agent_server/turn/guards/repetition.py",
    ),
    (
        "Reciprocal rank fusion of the lexical ranking with the nearest chunk vectors gives the wrong weight.",
        "agent_server/index/fusion.py",
    ),
]
KS = (1, 3, 5, 10)


def find_git_dir(repos_dir: Path, repo: str) -> Path:
    if repo == "self/agent-server":
        return ROOT / ".git"
    owner, name = repo.split("/")
    for cand in (repos_dir / f"{owner}+{name}" / "repo", repos_dir / f"{name}.git", repos_dir / name / ".git",
                 repos_dir / name):  # fmt: skip
        if (cand / "HEAD").exists() or (cand / "objects").exists():
            return cand
    raise SystemExit(f"no git dir for {repo} under {repos_dir}")


def materialize(git_dir: Path, commit: str, dest: Path) -> Path:
    """The tree at `commit` as a fresh one-commit repo (nothing after the base commit is reachable)."""
    if (dest / ".done").exists():
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", f"--git-dir={git_dir}", "archive", commit], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    env = ["-c", "user.email=bench@localhost", "-c", "user.name=bench"]
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "add", "-A"], check=True)
    subprocess.run(["git", *env, "-C", str(dest), "commit", "-qm", "base"], check=True)
    (dest / ".git" / "info" / "exclude").write_text(".done\n")
    (dest / ".done").write_text(commit)
    return dest


_TERM = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def bm25_baseline(index: WorkspaceIndex, statement: str, limit: int = 300) -> list[str]:
    """Plain FTS5 BM25 over the same chunks: OR of the statement's identifier-like terms, unique files in order."""
    terms = list(dict.fromkeys(t.lower() for t in _TERM.findall(statement) if t.lower() not in STOP_WORDS))[:64]
    if not terms:
        return []
    expr = " OR ".join(f'"{t}"' for t in terms)
    rows = index.db.query(
        "SELECT f.path FROM chunks_fts x JOIN chunks c ON c.id = x.rowid JOIN files f ON f.id = c.file_id "
        "WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts) LIMIT ?",
        (expr, limit),
    )
    return list(dict.fromkeys(str(r[0]) for r in rows))


def ref_baseline_index(ws: Path) -> tuple[sqlite3.Connection, int, float]:
    """REFERENCE.md's baseline: non-test .py files, 60-line chunks + split identifiers, porter, path weighted 10."""
    t0 = time.perf_counter()
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    conn.execute("CREATE VIRTUAL TABLE c USING fts5(path, body, tokenize='porter unicode61')")
    conn.execute("INSERT INTO c(c, rank) VALUES ('rank', 'bm25(10.0, 1.0)')")
    files = 0
    for f in sorted(ws.rglob("*.py")):
        rel = f.relative_to(ws).as_posix()
        if ".git/" in rel or is_test_path(rel):
            continue
        lines = f.read_text(encoding="utf-8", errors="replace").splitlines()
        files += 1
        for i in range(0, max(1, len(lines)), 60):
            text = "\n".join(lines[i : i + 60])
            parts = {p for n in set(_TERM.findall(text)) for p in split_identifier(n)}
            conn.execute("INSERT INTO c(path, body) VALUES (?, ?)", (rel, text + "\n" + " ".join(sorted(parts))))
    return conn, files, time.perf_counter() - t0


def ref_baseline(conn: sqlite3.Connection, statement: str) -> list[str]:
    terms = list(dict.fromkeys(t.lower() for t in _TERM.findall(statement) if t.lower() not in STOP_WORDS))
    if not terms:
        return []
    rows = conn.execute(
        "SELECT path FROM c WHERE c MATCH ? ORDER BY rank LIMIT 300", (" OR ".join(f'"{t}"' for t in terms),)
    )
    return list(dict.fromkeys(str(r[0]) for r in rows))


# Each ablation switches one technique off (the rest as default); "chunk-order" is the file list a chunk search
# (`agent-server search --json`, default limit 10) gives: distinct files in the order of the chunks.
ABLATIONS: dict[str, dict[str, float]] = {
    "no-phrase": {"phrase": 0.0},
    "no-title": {"title": 0.0},
    "no-salience": {"salience": 0.0},
    "no-vendored-demotion": {"vendored_penalty": 1.0},
    "no-wide-file-query": {"wide_file_query": 0.0},
    "no-strong-def": {"strong_definition": 0.0},
    "no-define-file": {"define_file": 0.0},
    "no-aggregate": {"aggregate": 0.0},
    "no-graph": {"graph": 0.0},
    "no-test-demotion": {"test_penalty": 1.0, "test_word_penalty": 1.0},
    "no-example-demotion": {"example_penalty": 1.0},
    "no-file-bm25": {"file_bm25": 0.0},
    "no-definition": {"definition": 0.0, "strong_definition": 0.0, "define_file": 0.0},
}


async def hybrid_files(index: WorkspaceIndex, statement: str, weights: Weights | None = None,
                       chunk_order: bool = False) -> list[str]:  # fmt: skip
    ctx = await index._context()
    if chunk_order:  # what `agent-server search --json` gives at its default limit of 10 chunks
        hits = rank(index.db, ctx, analyze_request(statement), 10, None, weights or index.weights)
        return list(dict.fromkeys(h.path for h in hits))
    return [f.path for f in rank_files(index.db, ctx, analyze_request(statement), 100, None, weights or index.weights)]


def pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def score(rows: list[dict[str, Any]], key: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for k in KS:
        out[f"acc@{k}"] = 100 * sum(all(g in r[key][:k] for g in r["gold"]) for r in rows) / max(1, len(rows))
    out["mrr"] = sum(1 / (r[key].index(r["gold"][0]) + 1) if r["gold"][0] in r[key] else 0 for r in rows) / max(
        1, len(rows)
    )
    return out


def quick_tasks() -> list[dict[str, Any]]:
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    return [
        {"instance_id": f"self-{i}", "repo": "self/agent-server", "base_commit": head.stdout.strip(), "split": "dev",
         "problem_statement": text, "gold_files": [gold], "leak_class": "None"}
        for i, (text, gold) in enumerate(QUICK_TASKS)
    ]  # fmt: skip


def dev_tasks(path: Path = TASKS) -> list[dict[str, Any]]:
    if not path.is_file():
        raise SystemExit(f"no task file at {path}: pass --tasks or set AGENT_BENCH_TASKS")
    tasks = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [t for t in tasks if t["split"] == "dev"]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    tasks = quick_tasks() if args.quick else dev_tasks(Path(args.tasks))
    scratch = Path(args.scratch)
    rows: list[dict[str, Any]] = []
    hybrid_ms: list[float] = []
    base_ms: list[float] = []
    files_total = 0
    index_s_total = 0.0
    ref_files = 0
    ref_s = 0.0
    for t in tasks:
        git_dir = find_git_dir(Path(args.repos_dir or "."), t["repo"])
        ws = await asyncio.to_thread(materialize, git_dir, t["base_commit"], scratch / t["instance_id"])
        with tempfile.TemporaryDirectory() as tmp:
            index = WorkspaceIndex(ws, Path(tmp) / "index.db")
            stats = await index.build()
            files_total += stats.files_processed
            index_s_total += stats.seconds
            statement = t["problem_statement"]
            await hybrid_files(index, statement)  # load graph caches outside the timed query
            t0 = time.perf_counter()
            ours = await hybrid_files(index, statement)
            hybrid_ms.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            base = bm25_baseline(index, statement)
            base_ms.append((time.perf_counter() - t0) * 1000)
            variants: dict[str, list[str]] = {}
            if args.ablation:
                variants["chunk-order"] = await hybrid_files(index, statement, chunk_order=True)
                for name, change in ABLATIONS.items():
                    variants[name] = await hybrid_files(index, statement, replace(index.weights, **change))
            index.close()
        ref_conn, n, secs = await asyncio.to_thread(ref_baseline_index, ws)
        ref_files += n
        ref_s += secs
        ref = ref_baseline(ref_conn, statement)
        ref_conn.close()
        gold = t["gold_files"]
        rank_of = ours.index(gold[0]) + 1 if gold[0] in ours else None
        rows.append({"id": t["instance_id"], "repo": t["repo"], "leak": t["leak_class"], "gold": gold,
                     "ours": ours[:20], "base": base[:20], "ref": ref[:20], "gold_rank": rank_of,
                     "index_s": stats.seconds, "files": stats.files_processed,
                     **{f"abl:{k}": v[:20] for k, v in variants.items()}})  # fmt: skip
        print(f"{t['instance_id']:<28} gold rank ours={rank_of} base="
              f"{base.index(gold[0]) + 1 if gold[0] in base else None}", file=sys.stderr)  # fmt: skip
    result: dict[str, Any] = {
        "tasks": len(rows),
        "hybrid": score(rows, "ours"),
        "bm25": score(rows, "base"),
        "ref_bm25": score(rows, "ref"),
        "index_files_per_s": files_total / index_s_total if index_s_total else 0.0,
        "ref_index_files_per_s": ref_files / ref_s if ref_s else 0.0,
        "index_s_mean": index_s_total / max(1, len(rows)),
        "query_ms": {
            "hybrid_p50": pct(hybrid_ms, 50),
            "hybrid_p95": pct(hybrid_ms, 95),
            "bm25_p50": pct(base_ms, 50),
            "bm25_p95": pct(base_ms, 95),
        },
        "by_leak": {},
        "by_repo": {},
        "ablation": {k[4:]: score(rows, k) for k in rows[0] if k.startswith("abl:")} if rows else {},
        "rows": rows,
    }
    for leak in sorted({r["leak"] for r in rows}):
        sub = [r for r in rows if r["leak"] == leak]
        result["by_leak"][leak] = {
            "n": len(sub), "hybrid": score(sub, "ours"), "bm25": score(sub, "base"), "ref_bm25": score(sub, "ref")
        }  # fmt: skip
    for repo in sorted({r["repo"] for r in rows}):
        sub = [r for r in rows if r["repo"] == repo]
        result["by_repo"][repo] = {"n": len(sub), "hybrid": score(sub, "ours"), "ref_bm25": score(sub, "ref")}
    if args.big_repo:
        # the server refuses queries past MAX_QUERY_CHARS; one dev statement is longer
        queries = [t["problem_statement"][:MAX_QUERY_CHARS] for t in tasks]
        result["big_repo"] = await big_repo(Path(args.big_repo), scratch, queries)
    return result


async def big_repo(git_dir: Path, scratch: Path, queries: list[str]) -> dict[str, Any]:
    """Cold index and query latency on a large repository at its HEAD (dev statements as queries)."""
    ws = await asyncio.to_thread(materialize, git_dir, "HEAD", scratch / f"big-{git_dir.parent.name}")
    with tempfile.TemporaryDirectory() as tmp:
        index = WorkspaceIndex(ws, Path(tmp) / "index.db")
        stats = await index.build()
        await hybrid_files(index, queries[0])
        ms: list[float] = []
        base: list[float] = []
        for q in queries:
            t0 = time.perf_counter()
            await index.search(q, 10)
            ms.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            bm25_baseline(index, q)
            base.append((time.perf_counter() - t0) * 1000)
        fresh = await edit_latency(index, ws)
        if index._ctx_task is not None:
            await index._ctx_task  # a background cache refresh must not write into the directory being removed
        index.close()
    return {"fresh_ms_median": statistics.median(fresh), "fresh_ms_max": max(fresh), "repo": str(git_dir), "files": stats.files_processed, "chunks": stats.chunks,
            "index_s": stats.seconds, "files_per_s": stats.files_processed / stats.seconds,
            "hybrid_p50": pct(ms, 50), "hybrid_p95": pct(ms, 95), "bm25_p50": pct(base, 50), "bm25_p95": pct(base, 95)}  # fmt: skip


async def edit_latency(index: WorkspaceIndex, ws: Path, edits: int = 20) -> list[float]:
    """Milliseconds from `update_file` start until a search returns the symbol the edit added."""
    target = sorted(p for p in ws.rglob("*.py") if ".git" not in p.parts)[len(ws.name) % 7]
    original = target.read_text(encoding="utf-8")
    out: list[float] = []
    for i in range(edits):
        name = f"freshly_saved_symbol_{i}"
        t0 = time.perf_counter()
        await index.update_file(target, original + f"\n\ndef {name}():\n    return {i}\n")
        for _ in range(100):
            if any(h.symbol == name for h in await index.search(name, 3)):
                break
        out.append((time.perf_counter() - t0) * 1000)
        await asyncio.sleep(0.05)  # an editor saves at human pace
    await index.update_file(target, original)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--repos-dir", default=os.environ.get("AGENT_BENCH_REPOS"), help="bare git mirrors (env AGENT_BENCH_REPOS)"
    )
    ap.add_argument("--tasks", default=str(TASKS), help="SWE-bench Lite localization tasks (env AGENT_BENCH_TASKS)")
    ap.add_argument(
        "--quick", action="store_true", help="two tasks on this repository itself: checks that it runs (CI)"
    )
    ap.add_argument("--scratch", default=str(Path(tempfile.gettempdir()) / "bench-retrieval"))
    ap.add_argument("--big-repo", default=None, help="bare git dir of a large repo for the latency run")
    ap.add_argument("--json", default=None, help="write the full result (with per-task rankings) here")
    ap.add_argument("--ablation", action="store_true", help="also rank with each technique switched off")
    args = ap.parse_args()
    if not args.quick and not args.repos_dir:
        ap.error("--repos-dir (or AGENT_BENCH_REPOS) is required, except with --quick")
    r = asyncio.run(run(args))
    print(f"\nSWE-bench Lite file localization, DEV split ({r['tasks']} tasks)")
    print(
        f"{'ranking':<10} {'Acc@1':>6} {'Acc@3':>6} {'Acc@5':>6} {'Acc@10':>7} {'MRR':>6} {'p50 ms':>7} {'p95 ms':>7}"
    )
    for name, key in (("hybrid", "hybrid"), ("bm25", "bm25"), ("ref-bm25", "ref_bm25")):
        s = r[key]
        lat = f"{r['query_ms'][key + '_p50']:7.1f} {r['query_ms'][key + '_p95']:7.1f}" if key != "ref_bm25" else ""
        print(
            f"{name:<10} {s['acc@1']:6.1f} {s['acc@3']:6.1f} {s['acc@5']:6.1f} {s['acc@10']:7.1f} {s['mrr']:6.3f} {lat}"
        )
    print(f"Acc@5 ratio hybrid/bm25: {r['hybrid']['acc@5'] / max(r['bm25']['acc@5'], 1e-9):.2f}")
    for leak, v in r["by_leak"].items():
        print(f"  {leak:<18} n={v['n']:<3} Acc@5 hybrid {v['hybrid']['acc@5']:5.1f}  bm25 {v['bm25']['acc@5']:5.1f}"
              f"  ref-bm25 {v['ref_bm25']['acc@5']:5.1f}")  # fmt: skip
    for repo, v in r["by_repo"].items():
        print(
            f"  {repo:<18} n={v['n']:<3} Acc@5 hybrid {v['hybrid']['acc@5']:5.1f}  ref-bm25 {v['ref_bm25']['acc@5']:5.1f}"
        )
    if r["ablation"]:
        print(f"\n{'ablation':<20} {'Acc@1':>6} {'Acc@3':>6} {'Acc@5':>6} {'Acc@10':>7} {'MRR':>6}")
        for name, s in (("all techniques", r["hybrid"]), *r["ablation"].items()):
            print(
                f"{name:<20} {s['acc@1']:6.1f} {s['acc@3']:6.1f} {s['acc@5']:6.1f} {s['acc@10']:7.1f} {s['mrr']:6.3f}"
            )
    print(f"cold index: {r['index_files_per_s']:.0f} files/s (mean {r['index_s_mean']:.2f} s per task); ref-bm25 indexer "
          f"{r['ref_index_files_per_s']:.0f} files/s, ratio {r['index_files_per_s'] / max(r['ref_index_files_per_s'], 1e-9):.2f}")  # fmt: skip
    if "big_repo" in r:
        b = r["big_repo"]
        print(f"big repo {b['repo']}: {b['files']} files, {b['chunks']} chunks, {b['files_per_s']:.0f} files/s; "
              f"query p50 {b['hybrid_p50']:.1f} ms p95 {b['hybrid_p95']:.1f} ms (bm25 p95 {b['bm25_p95']:.1f} ms, "
              f"ratio {b['hybrid_p95'] / max(b['bm25_p95'], 1e-9):.2f}); saved file searchable after "
              f"{b['fresh_ms_median']:.1f} ms median (max {b['fresh_ms_max']:.1f}) over 20 edits")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=2))


if __name__ == "__main__":
    main()
