"""A model that sent a file back unchanged is asked again with sampling: greedy decoding (temperature 0, what small
local models are usually run at) answers the same prompt the same way, so after write_file refused an unchanged file
("already has exactly this content") the next answer at the same temperature is that file again, or "it is already
correct". The request after such a refusal is sampled at `agent.resample_temperature` (only ever raised, never
lowered, at most twice a turn), with a fresh seed, so the model can write something else. The user's own setting
holds for every other request. Off by default (`agent.resample_temperature` 0): measured on 18 tasks with the 0.5B
and the 1.5B it finished none more, since a small model with its own answer in the prompt copies it again even when
sampled, and it makes greedy runs unrepeatable (docs/scorecard.md)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from ...llm.base import ChatRequest
from .guard import Answer, Guard, Verdict

if TYPE_CHECKING:
    from ..turn import Turn

CAP = 2  # sampled requests a turn: a model that repeats itself after two is not going to change its mind


class Resample(Guard):
    async def after_calls(self, turn: Turn, answer: Answer) -> Verdict | None:
        # (Not after_tool_result: the refusal comes before approval, from the preview, and skips that hook.)
        if any(result.unchanged for result in answer.results):
            turn.resample = True
        return None

    async def before_request(self, turn: Turn, request: ChatRequest) -> None:
        due, turn.resample = turn.resample, False
        hot = turn.settings.agent.resample_temperature
        if not due or hot <= 0 or not turn.take("resample", CAP):
            return
        options = request.options
        # Unset: the server's own default, which samples already (llama.cpp's and Ollama's 0.8, a fresh seed).
        if options.temperature is not None and options.temperature < hot:
            options.temperature = hot
            options.seed = random.randrange(1 << 31)
