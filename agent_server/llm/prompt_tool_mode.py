"""Prompt tool mode: tool schemas and calling rules rendered into the system prompt for models without native tools.

The calls come back as text and are recovered by `text_tools.recover_tool_calls`.
"""

from __future__ import annotations

import json

from .base import ToolSpec


def render_tool_prompt(tools: list[ToolSpec]) -> str:
    """A system-prompt section that lists the tools and says exactly how to call one."""
    if not tools:
        return ""
    lines = [
        "# Tools",
        "",
        "You can call the tools below. To call one, reply with a block of exactly this form and nothing after it:",
        "",
        "<tool_call>",
        '{"name": "<tool name>", "arguments": {<arguments as a JSON object>}}',
        "</tool_call>",
        "",
        "Rules:",
        "- Use only the tool names listed here, and only the argument names in each schema.",
        "- The arguments must be valid JSON: double quotes, no comments, no trailing commas.",
        "- Call one tool per block; you may write several blocks to call several tools in order.",
        "- After a call, wait: the result comes back in the next message. Do not invent results.",
        "- When you need no tool, answer normally without any <tool_call> block.",
        "",
        "Available tools:",
    ]
    for tool in tools:
        lines.append("")
        lines.append(f"## {tool.name}")
        if tool.description:
            lines.append(tool.description.strip())
        lines.append("Arguments schema: " + json.dumps(tool.parameters, separators=(",", ":"), sort_keys=True))
    return "\n".join(lines)
