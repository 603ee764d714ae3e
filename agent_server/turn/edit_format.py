"""How a model edits files: by calling tools, or by answering with whole files / search-replace blocks.

Which one a model gets is decided by measurement (the scorecard: tests/benchmarks/bench_scorecard.py, per model
family and size), not by guessing: first what a scorecard run on this machine remembered for the model in the store
(`bench_scorecard.py --remember`), then `MEASURED`, the models for which the file format finished more tasks than
tool calling in the project's own runs. Everything else keeps tool calling. `agent.edit_format` overrides the choice.
What each format does is `edit_formats/` (the formats there are: `edit_formats/registry.py`).
"""

from __future__ import annotations

import re

from ..llm import model_names
from .edit_formats.registry import DEFAULT, FORMATS

EditFormat = str  # the name of a registered edit format (tests/benchmarks/scorecard/systems.py reads this name)

# (model name pattern, format, what the scorecard showed): see docs/scorecard.md for the runs behind each line.
MEASURED: list[tuple[re.Pattern[str], EditFormat, str]] = [
    (
        re.compile(r"qwen2\.5-coder[-_:]?(0\.5b|1\.5b)", re.I),
        "files",
        "Qwen2.5-Coder-0.5B and -1.5B: whole files finished more exercises than native tool calls "
        "(1.5B: 5/8 against 0/8; docs/scorecard.md)",
    ),
]


def model_key(model: str) -> str:
    """The key a measurement is remembered under: every spelling of one model (`qwen3`, `Qwen3:latest`) is one."""
    return model_names.parse(model).key


def choose(setting: str, model: str, remembered: str | None = None) -> EditFormat:
    """The format for `model`: the user's setting when it is not "auto", else the format a scorecard run on this
    machine remembered for it, else what the project measured, else tools."""
    return choose_why(setting, model, (remembered, "") if remembered else None)[0]


def choose_why(setting: str, model: str, remembered: tuple[str, str] | None) -> tuple[EditFormat, str]:
    """`choose`'s format with the reason for it (what `agent-server doctor` says); `remembered` is the measured
    format and its evidence."""
    if setting in FORMATS:
        return setting, f"agent.edit_format = {setting}"
    if remembered and remembered[0] in FORMATS:
        return remembered[0], f"measured on this machine: {remembered[1]}"
    for pattern, fmt, why in MEASURED:
        if pattern.search(model):
            return fmt, why
    return DEFAULT, "nothing measured for this model"
