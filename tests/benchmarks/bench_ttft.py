"""Time to first token on a CPU (issue 27): the real agent (AgentService, in process) against a real llama.cpp server
(the prebuilt xllamacpp, in a child process) running Qwen2.5-Coder-0.5B-Instruct Q4_K_M.

One run reports:
- the fixed prompt: system prompt + tool definitions of the default mode, counted by the model's own tokenizer
  (llama.cpp `/apply-template` then `/tokenize`, with a one-word user message), lean and full;
- time to first token (TTFT: from the prompt to the first event the model streams, text or tool call) and the tokens
  the server evaluated (`timings.prompt_n`; `cache_n` were reused) for:
  turn 1 (cold server), turn 2 (warm: same server, same session),
  a resumed session after a server and agent-server restart, with its saved slot restored and without,
  and the full re-evaluation baseline (turn 2's own request sent with `cache_prompt: false`).
Goals: fixed prompt <= 700 tokens; turn 2 <= 0.3 x turn 1; resumed with restore <= 0.3 x resumed without.

Run (heavy: under the lock): python tests/benchmarks/bench_ttft.py [--quick]
`--quick` (CI): shorter answers and a 4k window; asserts the run completed and printed every figure, not the goals.
The model: AGENT_TEST_GGUF, else the Qwen2.5-Coder-0.5B GGUF that scripts/real_llm.sh fetched.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agent_server import acp  # noqa: E402
from agent_server.config import Settings  # noqa: E402
from agent_server.llm.base import ChatRequest  # noqa: E402
from agent_server.llm.openai_compat import OpenAIProvider, build_payload  # noqa: E402
from agent_server.messages import Finish, Message, PromptProgress  # noqa: E402
from agent_server.session.service import AgentService  # noqa: E402
from agent_server.terminal import TerminalClient  # noqa: E402
from agent_server.tools.lean import lean_specs  # noqa: E402
from agent_server.turn.prompts import system_prompt  # noqa: E402
from tests.real_llm import xllama  # noqa: E402
from tests.tools.builtin_registry import default_registry  # noqa: E402

QUESTIONS = [
    "In one sentence: what is a Python list comprehension?",
    "And in one sentence: what is a generator expression?",
    "Last one, in one sentence: what does the walrus operator do?",
]


@dataclass
class Call:
    ttft_s: float
    evaluated: int  # prompt tokens the server evaluated (timings.prompt_n)
    cached: int  # prompt tokens it reused from its KV cache


CALLS: list[Call] = []
_original_stream = OpenAIProvider.stream_chat


async def _timed_stream(self: OpenAIProvider, request: ChatRequest) -> Any:
    """Every model call of the agent, timed to its first streamed event that is not progress."""
    start = time.perf_counter()
    first: float | None = None
    async for event in _original_stream(self, request):
        if first is None and not isinstance(event, PromptProgress):
            first = time.perf_counter() - start
        if isinstance(event, Finish):
            usage = event.usage
            CALLS.append(Call(first or 0.0, usage.prompt_tokens - usage.cached_tokens, usage.cached_tokens))
        yield event


OpenAIProvider.stream_chat = _timed_stream  # type: ignore[assignment,method-assign]


class QuietClient(TerminalClient):
    """The terminal client without output; the status lines it would show are kept."""

    def __init__(self) -> None:
        super().__init__(approve="none", show_thinking=False)
        self.status: list[str] = []

    async def session_update(self, session_id: str, update: acp.SessionUpdate) -> None:
        if isinstance(update, acp.AgentThoughtChunk) and isinstance(update.content, acp.TextContent):
            self.status.append(update.content.text)

    async def log(self, level: str, message: str) -> None:
        return None


def settings(server: xllama.XLlama, db: Path, slots: Path | None, max_tokens: int) -> Settings:
    return Settings.model_validate(
        {
            "llm": {**server.options(max_tokens=max_tokens), "slot_save_path": str(slots) if slots else None},
            "store": {"path": str(db)},
            "index": {"enabled": False},
            "checkpoints": {"enabled": False},
            # The lean prompt with its tool definitions is what is measured; `auto` would give this model the files
            # edit format, whose fixed prompt has no tools at all (smaller still).
            "agent": {"max_rounds": 2, "edit_format": "tools"},
        }
    )


def tokens(server: xllama.XLlama, body: dict[str, Any]) -> int:
    prompt = server.call("POST", "/apply-template", {k: body[k] for k in ("messages", "tools") if k in body})["prompt"]
    return len(server.call("POST", "/tokenize", {"content": prompt})["tokens"])


def fixed_prompt_tokens(server: xllama.XLlama, root: Path) -> tuple[int, int]:
    """(lean, full): system prompt + tools of the default mode, with a one-word user message, as the model counts."""
    registry = default_registry(Settings())
    out = []
    for lean in (True, False):
        specs = lean_specs(registry) if lean else registry.specs()
        system = system_prompt(root, "chat", None, lean=lean)
        request = ChatRequest(
            server.model, [Message(role="system", content=system), Message(role="user", content="hi")], specs
        )
        out.append(tokens(server, build_payload(request)))
    return out[0], out[1]


async def turn(service: AgentService, session_id: str, text: str, client: QuietClient) -> Call:
    before = len(CALLS)
    stop = await service.prompt(session_id, [acp.TextContent(text=text)], client)
    assert stop in ("end_turn", "max_tokens", "max_turn_requests"), stop
    assert len(CALLS) > before, "the turn made no model call"
    return CALLS[before]  # the turn's first call: the one whose prompt the user waits for


async def settle(service: AgentService) -> None:
    """Close the service (as an editor closing): the idle session's slot is saved."""
    await service.aclose()


def baseline(server: xllama.XLlama, body: dict[str, Any]) -> Call:
    """The same request evaluated from scratch (`cache_prompt: false`), streamed, for its TTFT."""
    payload = {**body, "cache_prompt": False, "max_tokens": 1, "stream": True}
    payload.pop("return_progress", None)
    request = urllib.request.Request(
        server.url + "/v1/chat/completions", json.dumps(payload).encode(), {"Content-Type": "application/json"}
    )
    start = time.perf_counter()
    first = 0.0
    timings: dict[str, Any] = {}
    with urllib.request.urlopen(request, timeout=1200) as response:
        for line in response:
            if not line.startswith(b"data: {"):
                continue
            obj = json.loads(line[6:])
            if not first and obj.get("choices"):
                first = time.perf_counter() - start
            timings = obj.get("timings") or timings
    return Call(first, int(timings.get("prompt_n", 0)), int(timings.get("cache_n", 0)))


class Recorder:
    """The last request body the agent sent, for the baseline."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        original = build_payload

        def record(request: ChatRequest) -> dict[str, Any]:
            body = original(request)
            self.bodies.append(body)
            return body

        import agent_server.llm.openai_compat as compat

        compat.build_payload = record  # type: ignore[assignment]


async def run(model: Path, work: Path, quick: bool) -> dict[str, Any]:
    n_ctx, max_tokens = (4096, 12) if quick else (8192, 48)
    slots = work / "slots"
    db = work / "agent.db"
    root = work / "project"
    root.mkdir()
    (root / "README.md").write_text("# demo\n")
    log = work / "server.log"
    recorder = Recorder()
    figures: dict[str, Any] = {}

    server = xllama.start(model, log, n_ctx=n_ctx, slot_dir=slots)
    try:
        figures["fixed_prompt_tokens"], figures["full_prompt_tokens"] = fixed_prompt_tokens(server, root)
        service = AgentService(settings(server, db, slots, max_tokens), [root])
        client = QuietClient()
        session = await service.new_session(str(root))
        figures["turn1"] = await turn(service, session.id, QUESTIONS[0], client)
        figures["turn2"] = await turn(service, session.id, QUESTIONS[1], client)
        turn2_body = next(b for b in reversed(recorder.bodies) if b.get("tools"))
        await settle(service)
        figures["status_lines"] = "".join(client.status).strip()
    finally:
        server.stop()
    # The same stored session and saved slot, twice: once resumed without the slot, once with it.
    shutil.copy(db, work / "copy.db")
    for name, db_path, slot_path in (("resumed_cold", work / "copy.db", None), ("resumed_restored", db, slots)):
        server = xllama.start(model, log, n_ctx=n_ctx, slot_dir=slots)
        try:
            service = AgentService(settings(server, db_path, slot_path, max_tokens), [root])
            await service.resume_session(session.id, str(root), [])
            figures[name] = await turn(service, session.id, QUESTIONS[2], QuietClient())
            await settle(service)
            if name == "resumed_restored":
                figures["baseline_turn2"] = baseline(server, turn2_body)
        finally:
            server.stop()
    return figures


def report(figures: dict[str, Any]) -> list[str]:
    lines = [
        f"fixed prompt (lean, default mode): {figures['fixed_prompt_tokens']} tokens "
        f"(full prompt: {figures['full_prompt_tokens']})",
        f"{'':28}{'TTFT s':>9}{'evaluated':>11}{'reused':>9}",
    ]
    for key, label in (
        ("turn1", "turn 1 (cold)"),
        ("turn2", "turn 2 (warm)"),
        ("baseline_turn2", "turn 2 full re-evaluation"),
        ("resumed_cold", "resumed, no slot restore"),
        ("resumed_restored", "resumed, slot restored"),
    ):
        call: Call = figures[key]
        lines.append(f"{label:28}{call.ttft_s:9.2f}{call.evaluated:11}{call.cached:9}")
    t1, t2 = figures["turn1"].ttft_s, figures["turn2"].ttft_s
    cold, warm = figures["resumed_cold"].ttft_s, figures["resumed_restored"].ttft_s
    lines.append(f"turn 2 / turn 1: {t2 / t1:.2f} (goal <= 0.3)")
    lines.append(f"resumed restored / resumed cold: {warm / cold:.2f} (goal <= 0.3)")
    lines.append(f"resumed restored / turn 1: {warm / t1:.2f}")
    lines.append(f"shown while waiting: {figures['status_lines'][:200]!r}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="CI: short answers, check that every figure is there")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    model = xllama.qwen_model()
    if model is None or not xllama.xllamacpp_available():
        raise SystemExit("bench_ttft needs xllamacpp and the Qwen2.5-Coder-0.5B GGUF (AGENT_TEST_GGUF)")
    with tempfile.TemporaryDirectory() as tmp:
        figures = asyncio.run(run(model, Path(tmp), args.quick))
    lines = report(figures)
    print("\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps({k: getattr(v, "__dict__", v) for k, v in figures.items()}, indent=2))
    calls = [figures[k] for k in ("turn1", "turn2", "baseline_turn2", "resumed_cold", "resumed_restored")]
    assert all(c.ttft_s > 0 for c in calls) and figures["fixed_prompt_tokens"] > 0, lines
    if not args.quick:
        return
    # Quick mode proves the machinery ran: the warm turn and the restored session reused the cache.
    assert figures["turn2"].cached > 0 and figures["resumed_restored"].cached > 0, lines
    print("bench_ttft --quick: ok")


if __name__ == "__main__":
    main()
