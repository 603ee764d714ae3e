"""Command expansion and invocation parsing: the placeholders of each peer's format."""

from __future__ import annotations

from agent_server.context_sources.commands import expand, split_invocation
from agent_server.context_sources.mcp_prompts import prompt_arguments


def test_placeholders() -> None:
    assert expand("Review $1 for $2; all: $ARGUMENTS", 'a.py "error handling"') == (
        'Review a.py for error handling; all: a.py "error handling"'
    )
    assert expand("Review $1 and $3", "a.py") == "Review a.py and "
    assert expand("Explain ${input:topic:placeholder} to ${input:who}; ${input:topic}", "closures kids") == (
        "Explain closures to kids; closures"
    )
    assert expand("No placeholders.", "extra words") == "No placeholders.\n\nextra words"
    assert expand("No placeholders.", "") == "No placeholders."
    assert expand("Quote $1", "'unclosed quote") == "Quote 'unclosed"


def test_invocations() -> None:
    assert split_invocation("/review a.py  b") == ("review", "a.py  b")
    assert split_invocation("  /frontend:test") == ("frontend:test", "")
    assert split_invocation("/review\nmore lines") == ("review", "more lines")
    assert split_invocation("/usr/bin/env is a path") is None
    assert split_invocation("// a comment") is None
    assert split_invocation("not /a command") is None


def test_mcp_prompt_arguments() -> None:
    names = ("number", "focus")
    assert prompt_arguments(names, "42 security") == {"number": "42", "focus": "security"}
    assert prompt_arguments(names, "focus=speed 7") == {"focus": "speed", "number": "7"}
    assert prompt_arguments(names, "7 very careful review") == {"number": "7", "focus": "very careful review"}
    assert prompt_arguments((), "ignored") == {}
