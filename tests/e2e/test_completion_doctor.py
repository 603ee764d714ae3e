"""`agent-server doctor` says whether inline completion can work with the configured model, and why not."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.test_cli import run
from tests.fakes.fake_llm import FakeLLMServer, FakeModel


def doctor(fake: FakeLLMServer, model: str, workspace: Path) -> dict[str, object]:
    proc = run(
        "doctor", "--json", "--provider", "ollama", "--base-url", fake.url, "--model", model, "-w", str(workspace)
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr  # chat works: no FIM is a note, not a failure
    report: dict[str, object] = json.loads(proc.stdout)
    return report


def test_doctor_says_a_chat_model_cannot_fill_in_the_middle(fake_llm: FakeLLMServer, workspace: Path) -> None:
    fake_llm.models = [FakeModel("gemma3:4b", capabilities=["completion"])]
    report = doctor(fake_llm, "gemma3:4b", workspace)
    assert report["completion"] == {
        "enabled": True,
        "supported": False,
        "reason": "'gemma3:4b' on Ollama cannot fill in the middle (no 'insert' capability, and its name names no FIM "
        "family); set completion.model to a coder model such as qwen2.5-coder:1.5b-base",
        "note": report["completion"]["note"],  # type: ignore[index]
    }
    assert any("inline completion is off for this model" in n for n in report["notes"])  # type: ignore[attr-defined]


def test_doctor_names_the_fim_route_of_a_coder_model(fake_llm: FakeLLMServer, workspace: Path) -> None:
    fake_llm.models = [FakeModel("qwen2.5-coder:1.5b-base", capabilities=["completion", "insert"])]
    report = doctor(fake_llm, "qwen2.5-coder:1.5b-base", workspace)
    completion = report["completion"]
    assert isinstance(completion, dict) and completion["supported"] is True
    assert "/api/generate raw prompt, qwen tokens" in completion["backend"]
