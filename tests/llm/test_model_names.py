"""Model names the way Ollama reads them: a missing tag is `latest`, case does not matter, default prefixes drop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_server.llm.model_names import find_listed, parse, same_model, unique_models
from tests.fakes.fake_llm import FakeLLMServer, FakeModel
from tests.lsp_client import LspClient


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("qwen3", "qwen3:latest"),
        ("Qwen3:8B", "qwen3:8b"),
        ("library/qwen3:8b", "qwen3:8b"),
        ("registry.ollama.ai/library/qwen3", "qwen3:latest"),
        ("hf.co/bartowski/Llama-3.2-1B-GGUF", "hf.co/bartowski/llama-3.2-1b-gguf:latest"),
        ("qwen3:8b@sha256:0123", "qwen3:8b"),
    ],
)
def test_spellings_of_one_model_are_the_same_model(a: str, b: str) -> None:
    assert same_model(a, b) and same_model(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("qwen3:8b", "qwen3:4b"),
        ("qwen3", "qwen3:8b"),  # only a missing tag means latest
        ("someone/qwen3", "qwen3"),  # another namespace is another model
        ("hf.co/a/model:Q4_K_M", "hf.co/b/model:Q4_K_M"),
        ("localhost:5000/ns/model", "ns/model"),  # a port is part of the host, not a tag
    ],
)
def test_different_models_stay_different(a: str, b: str) -> None:
    assert not same_model(a, b)


def test_parts_and_the_short_spelling() -> None:
    name = parse("hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M")
    assert (name.host, name.namespace, name.model, name.tag) == (
        "hf.co",
        "bartowski",
        "Llama-3.2-1B-Instruct-GGUF",
        "Q4_K_M",
    )
    assert parse("registry.ollama.ai/library/qwen3").short == "qwen3:latest"
    assert parse("someone/qwen3").short == "someone/qwen3:latest"
    assert parse("localhost:5000/ns/model").tag == "latest"


def test_the_listed_spelling_is_found_and_an_exact_id_wins() -> None:
    listed = ["fake-model:latest", "Other:7b", "lmstudio-community/qwen3-8b"]
    assert find_listed("fake-model", listed) == "fake-model:latest"
    assert find_listed("other:7B", listed) == "Other:7b"
    assert find_listed("lmstudio-community/qwen3-8b", listed) == "lmstudio-community/qwen3-8b"
    assert find_listed("missing", listed) is None
    assert find_listed("m", ["m:latest", "m"]) == "m"  # the exact spelling, not the first equivalent
    assert unique_models(["m:latest", "M", "n", "m:latest"], str) == ["m:latest", "n"]


DOCTOR = [sys.executable, "-m", "agent_server", "doctor", "--json", "--provider", "ollama"]


def _doctor(fake: FakeLLMServer, workspace: Path, model: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*DOCTOR, "--base-url", fake.url, "--model", model, "-w", str(workspace)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NO_COLOR": "1"},
    )


@pytest.mark.parametrize("configured", ["fake-model", "Fake-Model:LATEST", "library/fake-model"])
def test_doctor_finds_a_model_named_without_its_tag(fake_llm: FakeLLMServer, workspace: Path, configured: str) -> None:
    fake_llm.models = [
        FakeModel("fake-model:latest", context_length=4096, capabilities=["completion"]),
        FakeModel("other:7b"),
    ]
    proc = _doctor(fake_llm, workspace, configured)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["problems"] == []
    assert report["model"] == "fake-model:latest"
    # The notes about the chosen model (its small window, prompt-based tools) are about the listed one.
    assert any("4096-token window" in n for n in report["notes"])
    assert any("no native tool calling" in n for n in report["notes"])


def test_doctor_still_names_a_model_with_another_tag(fake_llm: FakeLLMServer, workspace: Path) -> None:
    fake_llm.models = [FakeModel("fake-model:latest")]
    proc = _doctor(fake_llm, workspace, "fake-model:7b")
    assert proc.returncode == 1
    assert "fake-model:7b" in proc.stdout and "ollama pull fake-model:7b" in proc.stdout


async def test_the_model_list_names_the_current_model_as_listed_and_each_model_once(
    fake_llm: FakeLLMServer, workspace: Path, tmp_path: Path
) -> None:
    fake_llm.models = [FakeModel("fake-model:latest"), FakeModel("fake-model"), FakeModel("other:7b")]
    client = await LspClient.start(env={"AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db")}, cwd=tmp_path)
    try:
        options = {"llm": {"provider": "ollama", "baseUrl": fake_llm.url, "model": "fake-model"}}
        await client.initialize(workspace, options)
        result = await client.request("agent/_models/list", {})
        names = [m["name"] for m in result["models"]]
        assert names == ["fake-model:latest", "other:7b"]
        assert result["current"] == "fake-model:latest"
    finally:
        await client.close()
