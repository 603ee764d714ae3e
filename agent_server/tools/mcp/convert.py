"""MCP tool results -> a `ToolResult`: text for the model, ACP content blocks for the client."""

from __future__ import annotations

import base64
import json
from typing import Any

import mcp_types as mt

from ... import acp
from ..base import ToolResult


def _blob_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except ValueError:
        return len(data)


def _block(block: Any) -> tuple[str, acp.Content | None]:
    """One MCP content block -> (text the model reads, the ACP block the client shows)."""
    if isinstance(block, mt.TextContent):
        return block.text, acp.Content(content=acp.TextContent(text=block.text))
    if isinstance(block, mt.ImageContent):
        image = acp.ImageContent(data=block.data, mime_type=block.mime_type)
        return f"[image: {block.mime_type}, {_blob_size(block.data)} bytes]", acp.Content(content=image)
    if isinstance(block, mt.AudioContent):
        return f"[audio: {block.mime_type}, {_blob_size(block.data)} bytes]", None
    if isinstance(block, mt.ResourceLink):
        link = acp.ResourceLink(
            uri=block.uri,
            name=block.name,
            mime_type=block.mime_type,
            title=block.title,
            description=block.description,
            size=block.size,
        )
        label = f"[resource: {block.name} <{block.uri}>]"
        if block.description:
            label += f" {block.description}"
        return label, acp.Content(content=link)
    if isinstance(block, mt.EmbeddedResource):
        res = block.resource
        if isinstance(res, mt.TextResourceContents):
            contents: acp.TextResourceContents | acp.BlobResourceContents = acp.TextResourceContents(
                uri=res.uri, text=res.text, mime_type=res.mime_type
            )
            text = f"[resource {res.uri}]\n{res.text}"
        else:
            contents = acp.BlobResourceContents(uri=res.uri, blob=res.blob, mime_type=res.mime_type)
            text = f"[resource {res.uri}: {res.mime_type or 'binary'}, {_blob_size(res.blob)} bytes]"
        return text, acp.Content(content=acp.EmbeddedResource(resource=contents))
    return f"[unsupported MCP content: {getattr(block, 'type', type(block).__name__)}]", None


def to_tool_result(result: mt.CallToolResult) -> ToolResult:
    """Convert a `tools/call` result; `isError` results become error results the model can read."""
    texts: list[str] = []
    content: list[acp.Content | acp.Diff] = []
    for block in result.content:
        text, item = _block(block)
        texts.append(text)
        if item is not None:
            content.append(item)
    if not texts and result.structured_content is not None:
        dumped = json.dumps(result.structured_content, ensure_ascii=False, indent=1)
        texts.append(dumped)
        content.append(acp.Content(content=acp.TextContent(text=dumped)))
    text = "\n".join(texts) if texts else "(no output)"
    if result.is_error:
        text = text if text.startswith("Error") else f"Error: {text}"
    return ToolResult(
        text=text,
        is_error=bool(result.is_error),
        content=content,
        raw_output=result.structured_content,
    )
