"""Record real edit_file calls of Qwen2.5-Coder-0.5B (the small model this project targets) as fixtures.

Run (heavy: a real model): python tests/fakes/record_failed_edits.py [MODEL.gguf
[COUNT [SEED]]] (seed 28 writes the fixture anew; any other seed adds its calls to it)

Each task shows the model a real source file of this repository as read_file renders it (numbered lines) and asks
for one small change at a known line, with the edit_file tool offered. Every call it makes is kept with the file,
the target line and whether old_text occurs exactly once (`tests/fixtures/edit_calls.json`);
`tests/benchmarks/bench_edit_matching.py` measures the forgiving matcher on the calls that did not.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent_server.config import Settings  # noqa: E402
from agent_server.llm.text_tools import recover_tool_calls  # noqa: E402
from agent_server.tools.builtin import builtin_tools  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "edit_calls.json"
MODEL = Path(os.environ.get("AGENT_TEST_GGUF", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"))  # or give it as argument
PORT = 18931
SYSTEM = (
    "You are a coding agent. Change files with the edit_file tool: old_text must be copied exactly from the file "
    "(without the line numbers), new_text is its replacement. Answer with one tool call."
)
CHANGES = [
    ("Add the comment `  # checked` at the end of line {n}, which reads: {line}", "comment"),
    ('Insert a new line `log.debug("here")` right after line {n} ({line}), with the same indentation.', "insert"),
    ("On line {n} ({line}) rename `{word}` to `{word}_v2`.", "rename"),
]


def serve(model: str) -> None:
    import xllamacpp as x

    params = x.CommonParams()
    params.model.path = model
    params.n_ctx = 4096
    params.use_jinja = True
    params.port = PORT
    params.n_parallel = 1
    params.cpuparams.n_threads = 2
    server = x.Server(params)  # serves while this reference lives
    while True:
        time.sleep(3600)
        del server


def post(body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{PORT}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def wait_up() -> None:
    for _ in range(240):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit("the model server did not start")


def snippets(rng: random.Random, count: int) -> list[tuple[str, str, int]]:
    """(path, text of a 8-18 line window of a real file, target line in it)."""
    files = sorted(p for p in (ROOT / "agent_server").rglob("*.py") if p.stat().st_size > 2000)
    picked: list[tuple[str, str, int]] = []
    while len(picked) < count:
        path = rng.choice(files)
        lines = path.read_text().splitlines()
        size = rng.randint(8, 18)
        start = rng.randint(0, max(0, len(lines) - size))
        window = lines[start : start + size]
        candidates = [i for i, line in enumerate(window) if len(line.strip()) > 12 and line.startswith(" ")]
        if not candidates:
            continue
        picked.append((path.name, "\n".join(window) + "\n", rng.choice(candidates) + 1))
    return picked


def edit_arguments(text: str) -> list[dict[str, Any]]:
    """Objects with old_text and new_text anywhere in JSON the model wrote as text (under any tool name it made up)."""
    found: list[dict[str, Any]] = []
    decoder = json.JSONDecoder()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("old_text"), str) and isinstance(node.get("new_text"), str):
                found.append(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    at = text.find("{")
    while at >= 0:
        try:
            obj, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            at = text.find("{", at + 1)
            continue
        walk(obj)
        at = text.find("{", end)
    return found


def main() -> None:
    model = sys.argv[1] if len(sys.argv) > 1 else str(MODEL)
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 28  # another seed adds to the fixture instead of replacing it
    kept: list[dict[str, Any]] = json.loads(OUT.read_text())["calls"] if seed != 28 and OUT.exists() else []
    server = multiprocessing.Process(target=serve, args=(model,), daemon=True)
    server.start()
    try:
        wait_up()
        tool = next(t for t in builtin_tools(Settings()) if t.name == "edit_file")
        wire = [{"type": "function", "function": {"name": tool.name, "description": tool.description,
                                                  "parameters": tool.parameters}}]  # fmt: skip
        rng = random.Random(seed)
        records: list[dict[str, Any]] = list(kept)
        for index, (name, text, target) in enumerate(snippets(rng, count)):
            lines = text.splitlines()
            line = lines[target - 1].strip()
            words = [w for w in "".join(c if c.isalnum() or c == "_" else " " for c in line).split() if len(w) > 3]
            template, kind = CHANGES[index % len(CHANGES)]
            if kind == "rename" and not words:
                template, kind = CHANGES[0]
            task = template.format(n=target, line=line, word=words[0] if words else "")
            numbered = "\n".join(f"{n}\t{content}" for n, content in enumerate(lines, start=1))
            messages = [
                {"role": "system", "content": SYSTEM},
                {
                    "role": "user",
                    "content": f"{task}\nThe file {name}:\n{name} (lines 1-{len(lines)} of {len(lines)})\n{numbered}",
                },
            ]
            body = {
                "messages": messages,
                "tools": wire,
                "temperature": 0.2,
                "seed": index,
                "max_tokens": 200,
                "tool_choice": "required",
            }
            reply = post(body)["choices"][0]["message"]
            calls = [
                (c["function"]["name"], json.loads(c["function"]["arguments"]))
                for c in reply.get("tool_calls") or []
                if c.get("function")
            ]
            if not calls:
                calls = [
                    (c.name, c.arguments) for c in recover_tool_calls(reply.get("content") or "", {"edit_file"})[0]
                ]
            if not calls:
                calls = [("edit_file", args) for args in edit_arguments(reply.get("content") or "")][:1]
            if not calls:
                print(f"no call: {json.dumps(reply)[:300]}", file=sys.stderr)
            for _, args in calls[:1]:
                old, new = args.get("old_text"), args.get("new_text")
                if not isinstance(old, str) or not isinstance(new, str) or not old:
                    continue
                records.append(
                    {
                        "file": name,
                        "text": text,
                        "target_line": target,
                        "task": task,
                        "kind": kind,
                        "old_text": old,
                        "new_text": new,
                        "exact": text.count(old) == 1,
                    }
                )
            OUT.parent.mkdir(parents=True, exist_ok=True)  # after every task: a partial run still counts
            OUT.write_text(json.dumps({"model": Path(model).name, "calls": records}, indent=1) + "\n")
            print(f"{index + 1}/{count}: {len(records)} calls, {sum(not r['exact'] for r in records)} failed",
                  file=sys.stderr)  # fmt: skip
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps({"model": Path(model).name, "calls": records}, indent=1) + "\n")
        print(f"wrote {OUT}: {len(records)} calls, {sum(not r['exact'] for r in records)} failed", file=sys.stderr)
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
