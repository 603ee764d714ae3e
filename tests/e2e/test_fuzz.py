"""Seeded, bounded fuzzing of the real server over stdio: bad framing, bad and huge Content-Length, huge headers,
non-JSON, wrong types for every params field of every method the server registers, deep nesting, huge numbers and
strings, unknown methods and session ids, batches, ids on notifications, invalid ids.

After every batch of messages the server must still complete a normal prompt (fake LLM). Printed at the end (run
with -s): messages sent, crashes, requests left unanswered, answers sent twice, stdout bytes that were not
JSON-RPC, internal errors (-32603). FUZZ_MESSAGES (default 10,000) and FUZZ_SEED (default 12) change the run.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent_server.protocol.app import create_server
from tests.fakes.fake_llm import FakeLLMServer, Reply

MESSAGES = int(os.environ.get("FUZZ_MESSAGES", "10000"))
SEED = int(os.environ.get("FUZZ_SEED", "12"))
BATCH = 250  # fuzz messages between two health prompts
ANSWER_WAIT_S = 60.0
# Ends the process or stops it serving, by design: never sent.
NEVER = {"exit", "shutdown"}


def templates(ws: str) -> dict[str, Any]:
    """Valid-looking params per method; the fuzzer breaks one place in them at a time."""
    doc = {"uri": Path(ws, "fuzz.py").as_uri(), "languageId": "python", "version": 1, "text": "x = 1\n"}
    return {
        "initialize": {"processId": None, "rootUri": None, "capabilities": {}, "initializationOptions": {}},
        "initialized": {},
        "agent/initialize": {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": False}}},
        "agent/session/new": {"cwd": ws, "mcpServers": []},
        "agent/session/list": {"cwd": ws},
        "agent/session/load": {"sessionId": "sess_nope", "cwd": ws, "mcpServers": []},
        "agent/session/delete": {"sessionId": "sess_nope"},
        "agent/session/prompt": {"sessionId": "sess_nope", "prompt": [{"type": "text", "text": "hi"}]},
        "agent/session/cancel": {"sessionId": "sess_nope"},
        "agent/_permissions/list": {"cwd": ws},
        "agent/_permissions/revoke": {"id": "dec_nope"},
        "agent/_models/list": {},
        "agent/_models/select": {"model": "qwen3:8b"},
        "agent/_index/start": {},
        "agent/_index/status": {},
        "agent/_index/search": {"query": "compute total", "limit": 3, "path": None},
        "agent/_checkpoints/list": {"sessionId": "sess_nope", "cwd": ws},
        "agent/_checkpoints/show": {"checkpointId": "cp_nope"},
        "agent/_checkpoints/restore": {"checkpointId": "cp_nope", "conversation": False, "dryRun": True},
        "textDocument/didOpen": {"textDocument": doc},
        "textDocument/didChange": {
            "textDocument": {"uri": doc["uri"], "version": 2},
            "contentChanges": [{"text": "y"}],
        },
        "textDocument/didSave": {"textDocument": {"uri": doc["uri"]}, "text": "x = 2\n"},
        "textDocument/didClose": {"textDocument": {"uri": doc["uri"]}},
        "notebookDocument/didOpen": {"notebookDocument": {}, "cellTextDocuments": []},
        "notebookDocument/didChange": {"notebookDocument": {}, "change": {}},
        "notebookDocument/didClose": {"notebookDocument": {}, "cellTextDocuments": []},
        "workspace/didChangeConfiguration": {"settings": None},
        "workspace/didChangeWorkspaceFolders": {"event": {"added": [], "removed": []}},
        "workspace/executeCommand": {"command": "agent.index", "arguments": []},
        "window/workDoneProgress/cancel": {"token": "agent-server-1"},
        "$/setTrace": {"value": "off"},
        "$/cancelRequest": {"id": 987654321},
    }


def registered_methods() -> set[str]:
    fm = create_server().protocol.fm
    return set(fm.features) | set(fm.builtin_features)


def is_notification(method: str) -> bool:
    from lsprotocol.types import METHOD_TO_TYPES

    types = METHOD_TO_TYPES.get(method)
    if types is not None:
        return not any(f.name == "id" for f in getattr(types[0], "__attrs_attrs__", ()))
    return method == "agent/session/cancel"


# --- generation -------------------------------------------------------------------------------------------------


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


WRONG: list[Callable[[random.Random], Any]] = [
    lambda r: None,
    lambda r: r.choice([True, False]),
    lambda r: r.choice([0, -1, 1, 2**31, -(2**63), 2**64]),
    lambda r: r.choice([1.5, -0.0, 1e308, math.nan, math.inf, -math.inf]),
    lambda r: r.choice(["", "x", "sess_nope", "../../etc/passwd", "\u0000", "\ud800", "☃" * 5, "file:///"]),
    lambda r: [],
    lambda r: {},
    lambda r: [1, "a", None],
    lambda r: {"a": {"b": [1]}},
    lambda r: "x" * r.choice([1000, 70_000]),
]


@dataclass
class Case:
    data: bytes
    expect: list[Any] = field(default_factory=list)  # ids that must get exactly one answer


class Fuzzer:
    def __init__(self, seed: int, ws: str, methods: set[str]) -> None:
        self.r = random.Random(seed)
        self.ws = ws
        self.templates = templates(ws)
        self.methods = sorted(methods - NEVER)
        self.requests = [m for m in self.methods if not is_notification(m)]
        self.notifications = [m for m in self.methods if is_notification(m)]
        self.next_id = 1
        self.huge_headers = 0

    def new_id(self) -> int | str:
        self.next_id += 1
        return self.next_id if self.r.random() < 0.7 else f"f-{self.next_id}"

    def params(self, method: str) -> Any:
        base = json.loads(json.dumps(self.templates.get(method, {})))
        return self.mutate(base)

    def mutate(self, value: Any) -> Any:
        """Replace one randomly chosen node (or the whole params) with a value of a wrong type."""
        r = self.r
        slots: list[tuple[Any, Any]] = [(None, None)]
        stack = [value]
        while stack:
            node = stack.pop()
            keys = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else []
            for k in keys:
                slots.append((node, k))
                stack.append(node[k])
        parent, key = r.choice(slots)
        wrong = r.choice(WRONG)(r)
        if parent is None:
            return wrong if r.random() < 0.3 else {**value, "unexpected": wrong} if isinstance(value, dict) else wrong
        parent[key] = wrong
        return value

    @staticmethod
    def frame(body: bytes) -> bytes:
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    @staticmethod
    def dumps(obj: Any) -> bytes:
        return json.dumps(obj, allow_nan=True).encode("utf-8", "surrogatepass")

    def request(self, method: str, params: Any) -> Case:
        msg_id = self.new_id()
        body = self.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return Case(self.frame(body), [msg_id])

    def case(self) -> Case:
        r = self.r
        kind = r.choices(
            ["typed", "notify", "framing", "garbage", "deep", "number", "string", "unknown", "batch", "id_on_notif",
             "bad_id", "valid"],
            weights=[40, 8, 8, 8, 4, 4, 2, 5, 5, 5, 3, 8],
        )[0]  # fmt: skip
        if kind == "typed":
            method = r.choice(self.requests)
            return self.request(method, self.params(method))
        if kind == "notify":
            method = r.choice(self.notifications)
            body = self.dumps({"jsonrpc": "2.0", "method": method, "params": self.params(method)})
            return Case(self.frame(body))
        if kind == "valid":
            method = r.choice([m for m in self.requests if m != "initialize"])
            return self.request(method, self.templates.get(method, {}))
        if kind == "framing":
            return self.framing()
        if kind == "garbage":
            junk = r.choice(
                [bytes(r.getrandbits(8) for _ in range(r.randint(1, 200))), b"{", b"null", b"[1,2", b"\xff\xfe{}",
                 b'{"jsonrpc": "2.0", "id": 1, "method": ', b'"just a string"', b"42", b"{}", b'{"jsonrpc": "1.0"}']
            )  # fmt: skip
            return Case(self.frame(junk))
        if kind == "deep":
            msg_id = self.new_id()
            depth = r.choice([65, 500, 1000, 5000])
            body = b'{"jsonrpc": "2.0", "id": %s, "method": "agent/session/list", "params": {"cwd": %s}}' % (
                json.dumps(msg_id).encode(),
                deep(depth).encode(),
            )
            return Case(self.frame(body), [msg_id])
        if kind == "number":
            msg_id = self.new_id()
            digits = "9" * r.choice([20, 400, 401, 5000, 50_000])
            method = r.choice(self.requests)
            body = b'{"jsonrpc": "2.0", "id": %s, "method": "%s", "params": {"limit": %s}}' % (
                json.dumps(msg_id).encode(),
                method.encode(),
                digits.encode(),
            )
            return Case(self.frame(body), [msg_id])
        if kind == "string":
            method = r.choice(self.requests)
            params = self.templates.get(method, {})
            big = "s" * r.choice([100_000, 500_000])
            return self.request(method, {**params, "text": big} if isinstance(params, dict) else big)
        if kind == "unknown":
            method = r.choice(["agent/nope", "textDocument/hover", "", "$/nope", "agent/session/new/x", "\u0000"])
            if r.random() < 0.5:
                return self.request(method, self.params(r.choice(self.requests)))
            return Case(self.frame(self.dumps({"jsonrpc": "2.0", "method": method, "params": {}})))
        if kind == "batch":
            items: list[Any] = []
            ids: list[Any] = []
            for _ in range(r.randint(0, 4)):
                if r.random() < 0.6:
                    msg_id = self.new_id()
                    ids.append(msg_id)
                    items.append({"jsonrpc": "2.0", "id": msg_id, "method": r.choice(self.requests), "params": {}})
                else:
                    items.append(r.choice([{"jsonrpc": "2.0", "method": "initialized", "params": {}}, 1, None, []]))
            return Case(self.frame(self.dumps(items)), ids)
        if kind == "id_on_notif":
            method = r.choice(self.notifications)
            return self.request(method, self.templates.get(method, {}))
        # bad_id: ids that are not strings or integers get an answer with id null, which nobody waits on
        bad = r.choice([{}, [], True, 1.5, {"a": 1}])
        body = self.dumps({"jsonrpc": "2.0", "id": bad, "method": r.choice(self.requests), "params": {}})
        return Case(self.frame(body))

    def framing(self) -> Case:
        """Broken frames, each followed by a real request: reading must resume and answer it."""
        r = self.r
        body = self.dumps({"jsonrpc": "2.0", "id": 0, "method": "agent/session/list", "params": {}})
        choice = r.randrange(9)
        if choice == 0:
            bad = b"Content-Length: -%d\r\n\r\n" % r.randint(1, 99) + body
        elif choice == 1:
            bad = b"Content-Length: %s\r\n\r\n" % r.choice([b"abc", b"", b"1e3", b"0x10", b"\xff"]) + body
        elif choice == 2:
            bad = b"Content-Length: %d\r\n\r\n" % r.choice([10**15, 2**63, (64 << 20) + 1]) + body
        elif choice == 3:
            bad = b"Content-Length: " + b"9" * r.choice([50, 5000]) + b"\r\n\r\n" + body
        elif choice == 4:
            bad = b"\r\n" + body  # no header at all
        elif choice == 5:
            bad = b"Content-Length: %d\r\n\r\n" % (len(body) - 5) + body  # too short: leftover bytes
        elif choice == 6:  # too long: the next bytes complete it
            extra = r.randint(1, 64)
            bad = b"Content-Length: %d\r\n\r\n" % (len(body) + extra) + body + b"x" * extra
        elif choice == 7 and self.huge_headers < 12:
            self.huge_headers += 1
            bad = b"X-Junk: " + b"h" * ((1 << 20) + r.randint(1, 1 << 19)) + b"\r\n\r\n"
        else:
            bad = b"Content-Type: " + bytes(r.getrandbits(7) | 32 for _ in range(r.randint(1, 300))) + b"\r\n\r\n"
        follow = self.request("agent/session/list", {})
        return Case(bad + follow.data, follow.expect)


# --- the client ---------------------------------------------------------------------------------------------------


class FuzzClient:
    """Reads stdout strictly: anything that is not a framed JSON-RPC 2.0 object is counted, never fatal."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.answers: collections.Counter[Any] = collections.Counter()
        self.results: dict[Any, dict[str, Any]] = {}
        self.notifications: list[dict[str, Any]] = []
        self.bad_stdout = 0
        self.internal: list[str] = []
        self.arrived = asyncio.Event()
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        length: int | None = None
        while line := await out.readline():
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
            elif line.lower().startswith(b"content-type:"):
                pass
            elif line == b"\r\n" and length is not None:
                body = await out.readexactly(length)
                length = None
                self._dispatch(body)
            else:
                self.bad_stdout += len(line)

    def _dispatch(self, body: bytes) -> None:
        try:
            msg = json.loads(body)
        except ValueError:
            self.bad_stdout += len(body)
            return
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            self.bad_stdout += len(body)
            return
        if "method" in msg and "id" in msg:
            self._answer_server(msg)
        elif "method" in msg:
            self.notifications.append(msg)
        else:
            self.answers[_key(msg.get("id"))] += 1
            self.results[_key(msg.get("id"))] = msg
            error = msg.get("error") or {}
            if error.get("code") == -32603:
                self.internal.append(str(error.get("message"))[:200])
        self.arrived.set()

    def _answer_server(self, msg: dict[str, Any]) -> None:
        method = msg["method"]
        result: Any = None
        if method == "workspace/configuration":
            result = [None for _ in (msg.get("params") or {}).get("items", [])]
        elif method == "agent/session/request_permission":
            result = {"outcome": {"outcome": "cancelled"}}
        self.send(Fuzzer.frame(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode()))

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)

    async def drain(self) -> None:
        assert self.proc.stdin is not None
        await self.proc.stdin.drain()

    async def wait_answers(self, ids: list[Any], within: float) -> list[Any]:
        """The ids still unanswered after `within` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while True:
            missing = [i for i in ids if self.answers[_key(i)] == 0]
            if not missing or loop.time() > deadline or self.proc.returncode is not None:
                return missing
            self.arrived.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), 0.2)

    async def call(self, msg_id: Any, method: str, params: Any, within: float = 60) -> dict[str, Any]:
        self.send(
            Fuzzer.frame(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode())
        )
        await self.drain()
        missing = await self.wait_answers([msg_id], within)
        assert not missing, f"no answer to {method}"
        return self.results[_key(msg_id)]


def _key(msg_id: Any) -> Any:
    return json.dumps(msg_id)


async def start(tmp: Path, ws: Path, fake: FakeLLMServer) -> FuzzClient:
    env = {**os.environ, "AGENT_SERVER_STORE__PATH": str(tmp / "fuzz.db")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent_server", "serve",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        env=env, cwd=str(tmp), limit=2**26,
    )  # fmt: skip
    client = FuzzClient(proc)
    options = {"llm": {"provider": "ollama", "baseUrl": fake.url, "model": fake.models[0].name}}
    init = {"processId": os.getpid(), "rootUri": ws.as_uri(), "capabilities": {}, "initializationOptions": options,
            "workspaceFolders": [{"uri": ws.as_uri(), "name": ws.name}]}  # fmt: skip
    assert "result" in await client.call("init", "initialize", init)
    client.send(Fuzzer.frame(b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}'))
    return client


async def health(client: FuzzClient, fake: FakeLLMServer, ws: Path, n: int) -> bool:
    """A normal session and prompt still work, and the answer streams back."""
    new = await client.call(f"h-new-{n}", "agent/session/new", {"cwd": str(ws), "mcpServers": []})
    sid = new["result"]["sessionId"]
    fake.script(Reply.text(f"pong {n}"))
    prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "ping"}]}
    done = await client.call(f"h-prompt-{n}", "agent/session/prompt", prompt)
    text = "".join(
        m["params"]["update"].get("content", {}).get("text", "")
        for m in client.notifications
        if m["method"] == "agent/session/update"
        and m["params"].get("sessionId") == sid
        and m["params"]["update"].get("sessionUpdate") == "agent_message_chunk"
    )
    return done.get("result") == {"stopReason": "end_turn"} and text == f"pong {n}"


@pytest.mark.timeout(900)
async def test_fuzzing_the_server_never_crashes_it_or_leaves_a_request_unanswered(
    tmp_path: Path, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "billing.py").write_text("def compute_total(lines):\n    return sum(lines)\n")
    fuzzer = Fuzzer(SEED, str(workspace), registered_methods())
    client = await start(tmp_path, workspace, fake_llm)
    sent = crashes = unanswered = failed_health = 0
    began = time.monotonic()
    try:
        while sent < MESSAGES:
            expected: list[Any] = []
            for _ in range(min(BATCH, MESSAGES - sent)):
                case = fuzzer.case()
                client.send(case.data)
                expected.extend(case.expect)
                sent += 1
                if sent % 20 == 0:
                    await client.drain()
            await client.drain()
            missing = await client.wait_answers(expected, ANSWER_WAIT_S)
            if client.proc.returncode is not None:
                crashes += 1
                await stop(client)
                client = await start(tmp_path, workspace, fake_llm)
                continue
            unanswered += len(missing)
            if not await health(client, fake_llm, workspace, sent):
                failed_health += 1
        twice = sum(1 for k, n in client.answers.items() if n > 1 and k != "null")
        internal = collections.Counter(client.internal)
        print(
            f"\nfuzz: seed {SEED}, messages sent {sent}, crashes {crashes}, requests left unanswered {unanswered}, "
            f"answered twice {twice}, stdout bytes not JSON-RPC {client.bad_stdout}, failed health prompts "
            f"{failed_health}, internal errors (-32603) {len(client.internal)}, {time.monotonic() - began:.0f} s"
        )
        for message, count in internal.most_common(10):
            print(f"  -32603 x{count}: {message}")
        assert crashes == 0
        assert unanswered == 0
        assert twice == 0
        assert client.bad_stdout == 0
        assert failed_health == 0
        assert not client.internal, internal.most_common(5)
    finally:
        await stop(client)


async def stop(client: FuzzClient) -> None:
    """shutdown and exit, as an editor does (the server then stops its index workers); kill only if that fails.
    Waits are bounded: a killed server's workers may keep stdout open, and Python 3.11's wait() waits for pipes."""
    with contextlib.suppress(Exception):
        if client.proc.returncode is None:
            await client.call("bye", "shutdown", None, within=10)
            client.send(Fuzzer.frame(b'{"jsonrpc": "2.0", "method": "exit"}'))
            await client.drain()
            await asyncio.wait_for(client.proc.wait(), 10)
    if client.proc.returncode is None:
        client.proc.kill()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(client.proc.wait(), 10)
    client.reader.cancel()


# --- hostile tool calls (issue 23) -------------------------------------------------------------------------------

TOOL_CALLS = int(os.environ.get("FUZZ_TOOL_CALLS", "240"))
_REGEX_PIECES = ["(a+)+", "(a|a)*", "(.*)*", "a{1,30}", "[a-z]*", "\\w+", "(?:x+x+)+", "$", "^", "b", "(a|aa)+", ".*",
                 "(", ")", "[", "\\1", "(?=a)", "{2}", "NEEDLE", "\\s*", "|"]  # fmt: skip
_GLOB_PIECES = ["*", "**", "a", "/", "?", "[a-z]", "{a,b}", "**/", "*a", "[", "{", "b"]
_PATHS = ["pipe.py", "src/pipe.md", "zero.txt", "stdin.txt", "urandom.py", "self_loop", "ping", "src/up", "src/up/up",
          ".", "src", "long.txt", "src/app.py"]  # fmt: skip
_OPERATORS = ["&>", "&>>", ">|", "|&", "<>", ">&", "2>&1", ">&-", ";;", "&", "&&", "||", "|", ";", "\n", "(", "$(",
              "`", "<(", "<<<", "{fd}>", "!", "#"]  # fmt: skip


def hostile_call(rng: random.Random, n: int, marker_dir: Path) -> Any:
    from tests.fakes.fake_llm import FakeToolCall

    kind = rng.choice(["regex", "regex", "glob", "path", "command"])
    if kind == "regex":
        pattern = "".join(rng.choice(_REGEX_PIECES) for _ in range(rng.randint(1, 6)))
        args: dict[str, Any] = {"pattern": pattern}
        if rng.random() < 0.3:
            args["glob"] = "".join(rng.choice(_GLOB_PIECES) for _ in range(rng.randint(1, 12)))
        return FakeToolCall("search_text", args)
    if kind == "glob":
        pattern = "".join(rng.choice(_GLOB_PIECES) for _ in range(rng.randint(1, 16))) + f"{n}"
        return FakeToolCall("find_files", {"pattern": pattern})
    if kind == "path":
        return FakeToolCall(rng.choice(["read_file", "list_directory"]), {"path": rng.choice(_PATHS)})
    command = f"ls{rng.choice(['', ' '])}{rng.choice(_OPERATORS)}{rng.choice(['', ' ', '/dev/null '])}"
    return FakeToolCall("run_command", {"command": f"{command}touch {marker_dir / f'pwned-{n}'}"})


@pytest.mark.timeout(900)
async def test_fuzzing_hostile_tool_calls_never_hangs_or_escapes(
    start_server: Any, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seeded hostile tool calls through the fake LLM: backtracking regexes and globs, FIFOs, device links and link
    loops as paths, allowed commands with every shell operator before a `touch`. Every call answers, every turn
    ends, no command runs that was not allowed, and the server keeps answering."""
    from tests.e2e.conftest import llm_options, new_session
    from tests.e2e.helpers import answer_permissions, final_tool_updates, prompt_params
    from tests.e2e.test_denial_of_service import hostile_workspace, still_answers
    from tests.fakes.fake_llm import ToolCalls

    hostile_workspace(workspace)
    markers = tmp_path / "markers"
    markers.mkdir()
    rules = [{"tool": "run_command", "policy": "allow", "pattern": "ls *"}]
    client = await start_server(workspace, {**llm_options(fake_llm), "tools": {"rules": rules}})
    answer_permissions(client, "reject_once")
    rng = random.Random(SEED)
    sent = answered = 0
    for start_n in range(0, TOOL_CALLS, 12):
        calls = [hostile_call(rng, start_n + i, markers) for i in range(min(12, TOOL_CALLS - start_n))]
        fake_llm.script(Reply(steps=[ToolCalls(calls)]), Reply.text("done"))
        sid = await new_session(client, workspace)
        result = await client.request("agent/session/prompt", prompt_params(sid, "go"), timeout=120)
        assert result["stopReason"] in ("end_turn", "max_turn_requests"), result
        sent += len(calls)
        answered += len(final_tool_updates(client, sid))
    ran = sorted(p.name for p in markers.iterdir())
    with capsys.disabled():
        print(f"\nhostile tool calls: seed {SEED}, {sent} sent, {answered} answered, {len(ran)} escapes")
    assert ran == [], ran
    assert answered >= sent - 12  # a repeated call may stop a turn early (the repetition guard); none may hang
    await still_answers(client, workspace)
