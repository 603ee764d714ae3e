"""The built-in tools as declarative specs: name, description, JSON schema, kind, default policy, title."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import acp
from ..config import Settings, ToolsConfig
from ..errors import SandboxError
from .base import Tool, ToolContext
from .codebase import codebase_search
from .command import make_run_command
from .editing import edit_file, write_file
from .planning import ask_question, task_completion, update_plan
from .reading import list_directory, read_file
from .sandbox import resolve
from .search import find_files, search_text
from .web_fetch import host_of
from .web_fetch import make_handler as make_web_fetch

_PATH = {"type": "string", "description": "Path relative to the workspace root."}


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _short(text: str, width: int = 60) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= width else one_line[: width - 1] + "…"


def _path_location(key: str = "path") -> Callable[[ToolContext, dict[str, Any]], list[acp.ToolCallLocation]]:
    def locations(ctx: ToolContext, args: dict[str, Any]) -> list[acp.ToolCallLocation]:
        try:
            path = resolve(ctx.roots, str(args.get(key) or "."))
        except SandboxError:
            return []
        start = args.get("start_line")
        line = start - 1 if isinstance(start, int) and start > 0 else None
        return [acp.ToolCallLocation(path=str(path), line=line)]

    return locations


def _read_title(args: dict[str, Any]) -> str:
    start, end = args.get("start_line"), args.get("end_line")
    span = f":{start or 1}-{end}" if end else (f":{start}-" if start else "")
    return f"Read {args['path']}{span}"


def _tools_config(config: ToolsConfig | Settings | None) -> ToolsConfig:
    if isinstance(config, Settings):
        return config.tools
    return config or ToolsConfig()


def builtin_tools(config: ToolsConfig | Settings | None = None) -> list[Tool]:
    """Every built-in tool, configured from the `tools.*` settings (whole Settings are accepted too)."""
    cfg = _tools_config(config)
    line = {"type": "integer", "minimum": 1}
    return [
        Tool(
            name="read_file",
            description=(
                "Read a text file (the editor's unsaved text if it is open), with line numbers. Use start_line and "
                "end_line (1-based, inclusive) for part of a long file. Binary and huge files get a summary."
            ),
            parameters=_schema(
                {
                    "path": _PATH,
                    "start_line": {**line, "description": "First line (1-based)."},
                    "end_line": {**line, "description": "Last line, inclusive."},
                },
                ["path"],
            ),
            handler=read_file,
            kind="read",
            default_policy="allow",
            title=_read_title,
            locations=_path_location(),
        ),
        Tool(
            name="list_directory",
            description="List a folder of the workspace; folders end with '/'. Git-ignored entries are hidden.",
            parameters=_schema(
                {"path": {**_PATH, "description": "Folder relative to the workspace ('.' = root)."}}, []
            ),
            handler=list_directory,
            kind="read",
            default_policy="allow",
            title=lambda a: f"List {a.get('path') or '.'}",
            locations=_path_location(),
        ),
        Tool(
            name="find_files",
            description=(
                "Find files by glob over workspace-relative paths: '*.py' matches at any depth, 'src/**/*.ts' under "
                "src, '*' and '?' stay within one folder. Ignored folders (.git, node_modules, .venv) are skipped."
            ),
            parameters=_schema(
                {"pattern": {"type": "string", "description": "Glob, e.g. '**/test_*.py'."}}, ["pattern"]
            ),
            handler=find_files,
            kind="search",
            default_policy="allow",
            title=lambda a: f"Find files `{_short(a['pattern'])}`",
        ),
        Tool(
            name="search_text",
            description=(
                "Search file contents with a regular expression; prints 'path:line: text'. Optional path "
                "(file or folder) and glob (e.g. '*.py') narrow the search. Use (?i) for case-insensitive."
            ),
            parameters=_schema(
                {
                    "pattern": {"type": "string", "description": "Regular expression (RE2: no backreferences)."},
                    "path": {**_PATH, "description": "File or folder to search (default: the whole workspace)."},
                    "glob": {"type": "string", "description": "Only files whose path matches this glob."},
                    "skip": {"type": "integer", "minimum": 0, "description": "Skip this many matches (next page)."},
                },
                ["pattern"],
            ),
            handler=search_text,
            kind="search",
            default_policy="allow",
            title=lambda a: f"Search `{_short(a['pattern'])}`" + (f" in {a['path']}" if a.get("path") else ""),
            locations=lambda ctx, a: _path_location()(ctx, a) if a.get("path") else [],
        ),
        Tool(
            name="codebase_search",
            description=(
                "Find code by meaning or by name (functions, classes, concepts) in the workspace index; returns the "
                "best-ranked snippets with their paths and line ranges."
            ),
            parameters=_schema(
                {
                    "query": {"type": "string", "description": "What you are looking for, in words or identifiers."},
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 50,
                        "description": "Most results (default 8).",
                    },
                    "files": {
                        "type": "boolean",
                        "description": "Rank distinct files (each with its best line ranges) instead of snippets.",
                    },
                },
                ["query"],
            ),
            handler=codebase_search,
            kind="search",
            default_policy="allow",
            title=lambda a: f"Search code for '{_short(a['query'])}'",
        ),
        Tool(
            name="write_file",
            description="Create a file or replace its whole content. Prefer edit_file for changes to existing files.",
            parameters=_schema(
                {"path": _PATH, "content": {"type": "string", "description": "The full new text."}}, ["path", "content"]
            ),
            handler=write_file,
            kind="edit",
            default_policy="ask",
            title=lambda a: f"Write {a['path']}",
            locations=_path_location(),
        ),
        Tool(
            name="edit_file",
            description=(
                "Replace one exact occurrence of old_text with new_text in a file. old_text must match exactly once "
                "(copy it from read_file output without the line numbers, including indentation)."
            ),
            parameters=_schema(
                {
                    "path": _PATH,
                    "old_text": {"type": "string", "description": "Exact text to replace."},
                    "new_text": {"type": "string", "description": "Replacement text."},
                },
                ["path", "old_text", "new_text"],
            ),
            handler=edit_file,
            kind="edit",
            default_policy="ask",
            title=lambda a: f"Edit {a['path']}",
            locations=_path_location(),
        ),
        Tool(
            name="run_command",
            description=(
                "Run a shell command in the workspace and return its exit code and output (stdout and stderr "
                f"merged). No input is available. Default timeout {cfg.command_timeout_s:g}s."
            ),
            parameters=_schema(
                {
                    "command": {"type": "string", "description": "The shell command line."},
                    "cwd": {**_PATH, "description": "Folder to run in, relative to the workspace (default: root)."},
                    "timeout_s": {
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "maximum": 3600,
                        "description": "Seconds before the command is stopped.",
                    },
                },
                ["command"],
            ),
            handler=make_run_command(cfg.command_timeout_s, max(cfg.result_limit - 300, 200)),
            kind="execute",
            default_policy="ask",
            title=lambda a: f"Run `{_short(a['command'])}`",
            locations=_path_location("cwd"),
        ),
        Tool(
            name="update_plan",
            description="Record or update your step-by-step plan; send the whole list each time with each status.",
            parameters=_schema(
                {
                    "entries": {
                        "type": "array",
                        "items": _schema(
                            {
                                "content": {"type": "string"},
                                "priority": {"type": "string", "enum": ["high", "medium", "low"]},
                                "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                            },
                            ["content"],
                        ),
                    }
                },
                ["entries"],
            ),
            handler=update_plan,
            kind="think",
            default_policy="allow",
            title=lambda a: "Update plan",
        ),
        Tool(
            name="web_fetch",
            description=(
                "Read a web page (http/https) as markdown. Long pages come in pages: pass start_line for the next. "
                "Asks the user first unless the host is allowed."
            ),
            parameters=_schema(
                {
                    "url": {"type": "string", "description": "The full URL, e.g. 'https://docs.python.org/3/'."},
                    "start_line": {**line, "description": "First line of the page to show (1-based)."},
                },
                ["url"],
            ),
            handler=make_web_fetch(cfg),
            kind="fetch",
            default_policy="ask",
            title=lambda a: f"Fetch {host_of(str(a.get('url', ''))) or _short(str(a.get('url', '')))}",
        ),
        Tool(
            name="ask_question",
            description="Ask the user a question and end your turn; their answer comes as the next message.",
            parameters=_schema(
                {
                    "question": {"type": "string"},
                    "options": {"type": "array", "items": {"type": "string"}, "description": "Suggested answers."},
                },
                ["question"],
            ),
            handler=ask_question,
            kind="other",
            default_policy="allow",
            loop_breaking=True,
            title=lambda a: "Question",
        ),
        Tool(
            name="task_completion",
            description="Call when the task is finished, with a short summary of what you did; this ends your turn.",
            parameters=_schema({"summary": {"type": "string"}}, ["summary"]),
            handler=task_completion,
            kind="other",
            default_policy="allow",
            loop_breaking=True,
            title=lambda a: "Task complete",
        ),
    ]
