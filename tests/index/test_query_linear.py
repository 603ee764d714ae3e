"""Query parsing costs linear time on any text: the shapes that made the old patterns quadratic, at 100k chars.

A quadratic pattern takes minutes to hours on these inputs; the timeout is the assertion (no wall-clock checks).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_server.index.query import parse_query

# Units that, repeated, defeated the old patterns: paths without an extension, dotted runs, "at " runs (JS frames),
# blank lines (version lines), digits and dots, quotes of Python frames, half-finished Java frames.
SHAPES = ["a", "a.", "a/", "a-", "1.", "\n", " \n", "at ", "at x", 'File "', "at a.b(", "x.py:", "`a", "a ("]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("unit", SHAPES)
def test_parsing_100k_characters_of_a_pathological_shape_finishes(unit: str) -> None:
    text = (unit * (100_000 // len(unit) + 1))[:100_000]
    parsed = parse_query(text)
    assert all(f.path in text for f in parsed.frames)


@pytest.mark.timeout(240)
@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from([*SHAPES, "pkg/mod.py:12", "Error in foo_bar()", " "]), min_size=1, max_size=400))
def test_mixed_shapes_at_length_finish_and_parse_sanely(parts: list[str]) -> None:
    # Each drawn piece repeated to make ~20k characters (the query limit): long runs and their seams.
    text = "".join(p * max(1, 20_000 // (len(parts) * len(p))) for p in parts)
    parsed = parse_query(text)
    assert all(i in text for i in parsed.identifiers)


def test_stack_traces_and_paths_still_parse() -> None:
    text = (
        'Traceback:\n  File "/home/u/proj/app/main.py", line 12, in run\n'
        "    at com.acme.Billing.total(Billing.java:40)\n"
        "    at render (/srv/web/src/view.ts:7:3)\n"
        "see pkg/util/helpers.py:88 and `compute_total` in billing.models\n"
    )
    parsed = parse_query(text)
    frames = {(f.path, f.line) for f in parsed.frames}
    assert ("/home/u/proj/app/main.py", 12) in frames
    assert ("com/acme/Billing.java", 40) in frames
    assert ("/srv/web/src/view.ts", 7) in frames
    assert ("pkg/util/helpers.py", 88) in frames
    assert {"compute_total", "run", "total", "render"} <= set(parsed.identifiers)
