"""How a model edits files: by calling tools, or by answering with whole files / search-replace blocks.

Which one a model gets is decided by measurement (the scorecard: tests/benchmarks/bench_scorecard.py, per model
family and size), not by guessing: `MEASURED` lists the models for which the file format finished more tasks than
tool calling in the same run. Everything else keeps tool calling. `agent.edit_format` overrides the choice.
"""

from __future__ import annotations

import re
from typing import Literal

EditFormat = Literal["tools", "files"]

# (model name pattern, format, what the scorecard showed): see docs/scorecard.md for the runs behind each line.
MEASURED: list[tuple[re.Pattern[str], EditFormat, str]] = [
    (
        re.compile(r"qwen2\.5-coder[-_:]?(0\.5b|1\.5b)", re.I),
        "files",
        "Qwen2.5-Coder-0.5B: whole files finished more exercises than native tool calls (docs/scorecard.md)",
    ),
]


def choose(setting: str, model: str) -> EditFormat:
    """The format for `model`: the user's setting when it is not "auto", else what was measured, else tools."""
    if setting in ("tools", "files"):
        return setting  # type: ignore[return-value]
    for pattern, fmt, _why in MEASURED:
        if pattern.search(model):
            return fmt
    return "tools"
