"""Exchanges recorded from the real llama-server (SmolLM2-135M, `-c 2048 --jinja`) by tests/fakes/record_llamacpp.py.

fake.props = recorded.props()                      # GET /props
fake.models = recorded.fake_models()               # GET /v1/models, as FakeModel entries
fake.script(recorded.stream_reply("llamacpp_stream.sse"))
fake.script(recorded.error_reply("llamacpp_overflow.json"))
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.fake_llm import FakeModel, Reply

DIR = Path(__file__).parent / "recorded"


def props() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DIR / "llamacpp_props.json").read_text())
    return data


def models() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DIR / "llamacpp_models.json").read_text())
    return data


def fake_models() -> list[FakeModel]:
    """The /v1/models entries as the fake lists them (its own id/object/created, the rest as recorded)."""
    out = []
    for entry in models()["data"]:
        extra = {k: v for k, v in entry.items() if k not in ("id", "object", "created")}
        out.append(FakeModel(name=entry["id"], v1_extra=extra))
    return out


def stream_reply(name: str) -> Reply:
    return Reply(recorded=(DIR / name).read_text())


def error_reply(name: str) -> Reply:
    data = json.loads((DIR / name).read_text())
    return Reply.http_error(int(data["status"]), data["body"])


def stream_events(name: str) -> list[dict[str, Any]]:
    """The JSON events of a recorded SSE stream (without `[DONE]`)."""
    text = (DIR / name).read_text()
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]
