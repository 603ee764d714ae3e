"""`agent-server serve | acp | chat | doctor | index | search | sessions | permissions | memory`."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__, logging_setup, wire_trace
from . import config as config_mod
from .config_layers import LoadResult, load_layers
from .errors import AgentServerError, ConfigError, LLMError

if TYPE_CHECKING:
    from .headless import JsonClient
    from .terminal import TerminalClient


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    llm: dict[str, Any] = {}
    for key in ("provider", "base_url", "model"):
        value = getattr(args, key, None)
        if value:
            llm[key] = value
    out: dict[str, Any] = {"llm": llm} if llm else {}
    if getattr(args, "max_rounds", None):
        out["agent"] = {"max_rounds": args.max_rounds}
    return out


def _add_llm_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--provider",
        choices=["ollama", "openai", "embedded"],
        help="LLM server kind (default: auto-detect); embedded = the built-in llama.cpp (the 'local' extra: xllamacpp)",
    )
    p.add_argument("--base-url", dest="base_url", help="LLM server URL, e.g. http://127.0.0.1:11434")
    p.add_argument(
        "--model", help="model name (default: the first the server lists); embedded: a GGUF path or catalogue name"
    )


def _add_log_content_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--log-content",
        action="store_true",
        dest="log_content",
        help="with --log-level DEBUG: keep file contents and messages whole in the message trace (off: their length)",
    )


def _load_report(args: argparse.Namespace, workspace: Path | None) -> LoadResult:
    """Every layer, each key on its own; risky workspace settings only if the workspace is trusted."""
    return load_layers(workspace=workspace, cli_overrides=_overrides(args))


def _load(args: argparse.Namespace, workspace: Path | None) -> config_mod.Settings:
    loaded = _load_report(args, workspace)
    for notice in loaded.notices():
        print(f"agent-server: {notice}", file=sys.stderr)
    return loaded.settings


def cmd_serve(args: argparse.Namespace) -> int:
    from .protocol.app import create_server
    from .protocol.running import serve_stdio, serve_tcp

    logging_setup.setup(args.log_level, args.log_file)
    wire_trace.show_content = args.log_content
    server = create_server(_overrides(args))
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        serve_tcp(server, host or "127.0.0.1", int(port))
    else:
        serve_stdio(server)
    return 0


def cmd_acp(args: argparse.Namespace) -> int:
    from .acp_agent.agent import serve_stdio

    logging_setup.setup(args.log_level, args.log_file)
    wire_trace.show_content = args.log_content
    serve_stdio(_overrides(args))
    return 0


class _BadFlags(ValueError):
    """A chat flag that cannot be used as given: said on stderr, exit code 2 (usage)."""


def _chat_client(args: argparse.Namespace) -> TerminalClient | JsonClient:
    """The terminal's rich text for a person, or JSON events for a script (`--output-format json|stream-json`)."""
    if args.output_format == "text":
        from .terminal import TerminalClient

        return TerminalClient(approve=args.approve, show_thinking=not args.no_thinking)
    from .headless import JsonClient

    # Nobody reads a question on a JSON stream: "ask" means no person, so what the rules leave open is refused.
    return JsonClient(output_format=args.output_format, approve="all" if args.approve == "all" else "none")


def _rules_from_flags(args: argparse.Namespace) -> list[config_mod.ToolRule]:
    """`--deny`/`--allow TOOL[:PATTERN]`: rules a script gives instead of a person's answers (deny wins, as ever)."""
    rules = []
    for policy, specs in (("deny", args.deny), ("allow", args.allow)):
        for spec in specs or []:
            tool, sep, pattern = spec.partition(":")
            if not tool.strip():
                raise _BadFlags(f"--{policy} {spec!r}: give TOOL or TOOL:PATTERN, e.g. 'run_command:pytest*'")
            rule = {"tool": tool.strip(), "policy": policy, "pattern": pattern if sep else None}
            rules.append(config_mod.ToolRule.model_validate(rule))
    return rules


def _chat_prompt(args: argparse.Namespace) -> str | None:
    """The one prompt to run: the argument, stdin (`-`), or `--prompt-file`; None starts a REPL."""
    if args.prompt_file:
        if args.prompt:
            raise _BadFlags("give the prompt either as an argument or with --prompt-file, not both")
        source = sys.stdin if args.prompt_file == "-" else None
        try:
            return source.read() if source else Path(args.prompt_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise _BadFlags(f"--prompt-file {args.prompt_file}: {exc}") from exc
    if args.prompt == "-":
        return sys.stdin.read()
    if args.prompt is None and args.output_format != "text":
        raise _BadFlags(f"--output-format {args.output_format} runs one prompt: give PROMPT, '-' or --prompt-file")
    return str(args.prompt) if args.prompt is not None else None


def cmd_chat(args: argparse.Namespace) -> int:
    from .headless import EXIT_CANCELLED, EXIT_MODEL_UNREACHABLE, JsonClient

    workspace = Path(args.workspace or ".").resolve()
    try:
        prompt = _chat_prompt(args)
        extra_rules = _rules_from_flags(args)
    except _BadFlags as exc:
        print(f"agent-server: {exc}", file=sys.stderr)
        return 2
    client = _chat_client(args)
    if not isinstance(client, JsonClient):
        try:
            return asyncio.run(_chat(args, workspace, extra_rules, client, prompt))
        except KeyboardInterrupt:
            return 130
    try:
        return asyncio.run(_chat(args, workspace, extra_rules, client, prompt))
    except LLMError as exc:
        return client.finish(None, error=str(exc), code=EXIT_MODEL_UNREACHABLE)
    except AgentServerError as exc:
        return client.finish(None, error=str(exc))
    except KeyboardInterrupt:
        return client.finish("cancelled", code=EXIT_CANCELLED)


def _say(text: str) -> None:
    """The terminal face's notices (bad settings, trust, the store): stderr, so stdout stays the answer."""
    print(f"agent-server: {text}", file=sys.stderr)


async def _chat(
    args: argparse.Namespace,
    workspace: Path,
    extra_rules: list[config_mod.ToolRule],
    client: TerminalClient | JsonClient,
    prompt: str | None,
) -> int:
    """One prompt (or a REPL without one) in a new or resumed session; the exit code of how it ended."""
    from . import acp
    from .host.face_host import FaceHost
    from .terminal import TerminalClient

    host = FaceHost(client, _say, _overrides(args), extra_rules)
    host.load([workspace])
    host.show_notices()
    # The workspace file's risky settings: asked about on a terminal, ignored (with a notice) without one; before
    # the service starts, so the first session already has what the answer allows.
    await host.settle_trust(client.show_message_request)
    logging_setup.setup(host.settings.log.level, host.settings.log.file)
    service = host.start(refresh_index=False)  # a one-shot chat ends before a refresh would (the REPL likewise)
    settings = host.settings
    text_face = client if isinstance(client, TerminalClient) else None
    try:
        if args.session:
            # Resume a conversation started anywhere (an editor, another terminal): show it, then go on.
            await service.load_session(args.session, str(workspace), [], client)
            if text_face:
                sys.stdout.write("\n")
            session = await service.open(args.session)
        else:
            session = await service.new_session(str(workspace))
        if args.agent:
            await service.set_mode(session.id, args.agent)
        if not text_face:
            assert not isinstance(client, TerminalClient)
            client.start(session.id, workspace, settings.llm.model, settings.llm.provider)
            stop = await service.prompt(session.id, [acp.TextContent(text=prompt or "")], client)
            return client.finish(stop)
        while True:
            text = prompt if prompt is not None else await _next_line(service, session.id, text_face)
            if text is None:
                return 0
            if not text.strip():
                if prompt is not None:
                    return 0  # an empty prompt: nothing to send
                continue
            stop = await service.prompt(session.id, [acp.TextContent(text=text)], client)
            sys.stdout.write("\n")
            if stop not in ("end_turn", "cancelled"):
                text_face.err.print(f"[yellow](stopped: {stop})[/]")
            if prompt is not None:
                return 0
    finally:
        await host.aclose()


async def _next_line(service: Any, session_id: str, face: TerminalClient) -> str | None:
    """The REPL's next prompt: None to leave, "" after its own commands (or an empty line)."""
    try:
        text = await asyncio.to_thread(input, "\n› ")
    except EOFError:
        return None
    if text.strip() in ("/exit", "/quit"):
        return None
    if text.strip() in ("/help", "/commands"):
        await _print_commands(service, session_id, face.err)
        return ""
    return text if text.strip() else ""


async def _print_commands(service: Any, session_id: str, console: Any) -> None:
    """The REPL's `/help`: its own commands and the custom ones (prompt files, MCP prompts), each run as `/name`."""
    from rich.markup import escape

    console.print("/exit, /quit: leave; /help, /commands: this list")
    for command in await service.list_commands(session_id):
        hint = f" {command['hint']}" if command["hint"] else ""
        line = escape(f"/{command['name']}{hint}: {command['description']}")
        console.print(f"{line} [dim]({escape(command['source'])})[/]")


def cmd_doctor(args: argparse.Namespace) -> int:
    from .doctor import run_doctor

    workspace = Path(args.workspace or ".").resolve()
    loaded = _load_report(args, workspace)
    logging_setup.setup("ERROR")
    return asyncio.run(run_doctor(loaded.settings, workspace, as_json=args.json, config_notices=loaded.notices()))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agent-server", description=__doc__)
    parser.add_argument("--version", action="version", version=f"agent-server {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("serve", help="run the language server on stdio (editors start this)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio (debugging)")
    p.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    p.add_argument("--log-file")
    _add_log_content_flag(p)
    _add_llm_flags(p)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("acp", help="run as an Agent Client Protocol agent on stdio (Zed, JetBrains, ...)")
    p.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    p.add_argument("--log-file")
    _add_log_content_flag(p)
    _add_llm_flags(p)
    p.set_defaults(func=cmd_acp)

    p = sub.add_parser("chat", help="chat with the agent in the terminal (a REPL without PROMPT)")
    p.add_argument("prompt", nargs="?", help="one prompt to run ('-' reads stdin); omit for a REPL")
    p.add_argument("--prompt-file", dest="prompt_file", metavar="FILE", help="read the prompt from FILE ('-': stdin)")
    p.add_argument(
        "--output-format",
        dest="output_format",
        choices=["text", "json", "stream-json"],
        default="text",
        help="text for a person; json: one object at the end; stream-json: one JSON event per line (docs/headless.md)",
    )
    p.add_argument(
        "--allow", action="append", metavar="TOOL[:PATTERN]", help="allow without asking, e.g. 'run_command:pytest*'"
    )
    p.add_argument("--deny", action="append", metavar="TOOL[:PATTERN]", help="refuse without asking, e.g. web_fetch")
    p.add_argument("--workspace", "-w", help="project directory (default: the current directory)")
    p.add_argument("--approve", choices=["ask", "all", "none"], default="ask", help="answer to approval prompts")
    p.add_argument("--no-thinking", action="store_true", help="hide the model's reasoning")
    p.add_argument("--max-rounds", type=int, dest="max_rounds")
    p.add_argument("--session", "-s", help="resume this session (see `agent-server sessions list`)")
    p.add_argument("--agent", "-a", help="the agent profile (mode) to use: code, ask, plan, task, orchestrate, ...")
    _add_llm_flags(p)
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("doctor", help="check the LLM server, models, MCP servers and configuration")
    p.add_argument("--workspace", "-w")
    p.add_argument("--json", action="store_true")
    _add_llm_flags(p)
    p.set_defaults(func=cmd_doctor)

    from . import memory_cli, permissions_cli
    from .agents import cli as agents_cli
    from .checkpoints import cli as checkpoints_cli
    from .index import cli as index_cli
    from .store import cli as store_cli

    for module in (index_cli, store_cli, permissions_cli, checkpoints_cli, agents_cli, memory_cli):
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None) or getattr(args, "handler", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        offline = ("index", "search", "sessions", "permissions", "checkpoints", "agents", "memory")
        if "settings" not in vars(args) and args.command in offline:
            args.settings = _load(args, Path(getattr(args, "workspace", None) or ".").resolve())
        status: int = func(args) or 0
        return status
    except ConfigError as exc:
        print(f"agent-server: {exc}", file=sys.stderr)
        return 2
    except AgentServerError as exc:
        print(f"agent-server: {exc}", file=sys.stderr)
        return 1
