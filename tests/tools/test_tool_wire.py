"""The built-in tools' wire is kept: what the model is offered (full and lean, every schema key in its order), the
cards' titles, kinds, default policies and how the policy judges sample calls, exactly as tool_wire.json recorded
them before the tools were redefined with typed arguments (issue 39). A change here changes every model's prompt."""

from __future__ import annotations

import json

from tests.tools.tool_wire import SNAPSHOT, dumped, wire


def test_every_builtin_tool_is_offered_exactly_as_before() -> None:
    now, before = wire(), json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    for section in before:  # one section at a time, so a failure names what moved
        assert dumped({section: now[section]}) == dumped({section: before[section]}), section
    assert set(now) == set(before)
