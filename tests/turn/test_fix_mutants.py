"""One-token variants of the lines a failing test ran (turn/fix_mutants.py): what each kind of slip is tried as, and
that no variant brings a name the function did not use, moves a line, or is the same code."""

from __future__ import annotations

import ast

from agent_server.turn.failure_path import Call
from agent_server.turn.fix_mutants import mutants
from agent_server.turn.fix_trials import Unit, units

SOURCE = '''import itertools


def pick(seq, n, key=None, default=None):
    """The n first items key keeps."""
    kept = [s for s in seq if key(s) and not s.startswith("#")]
    if len(kept) < n or n == 0:
        return next(filter(key, seq), None)
    for k, v in enumerate(kept):
        total = max(k, v)
    total += kept[n] + sum(range(len(kept) + 1))
    return itertools.islice(kept, 1, None, n)
'''


def unit_at(line: int) -> Unit:
    (found,) = [u for u in units(SOURCE, Call(file="m.py", function="pick", first_line=4, lines={line: 1}))]
    return found


def shown(line: int) -> tuple[list[str], list[str], list[str]]:
    operators, names, negations = mutants(SOURCE, unit_at(line))
    return [r.shown for r in operators], [r.shown for r in names], [r.shown for r in negations]


def test_a_comparison_is_tried_one_step_looser_or_stricter_and_turned_round() -> None:
    ops, _, negated = shown(7)
    assert "if len(kept) <= n or n == 0:" in ops and "if len(kept) > n or n == 0:" in ops
    assert "if len(kept) < n or n != 0:" in ops and "if len(kept) < n and n == 0:" in ops
    assert negated == ["if not (len(kept) < n or n == 0):"]  # the whole test negated: tried last
    assert "if len(kept) < n or n == 1:" in ops  # a constant one higher


def test_a_negation_is_dropped_or_added_and_a_paired_method_swapped() -> None:
    ops, _, negated = shown(6)
    assert 'kept = [s for s in seq if key(s) and s.startswith("#")]' in ops
    assert negated == ['kept = [s for s in seq if not (key(s) and not s.startswith("#"))]']
    assert 'kept = [s for s in seq if key(s) and not s.endswith("#")]' in ops


def test_bounds_are_tried_one_off_and_arguments_swapped() -> None:
    ops, _, _ = shown(12)
    assert "return itertools.islice(kept, 0, None, n)" in ops  # the constant one lower
    assert "return itertools.islice(kept, 1, None, n + 1)" in ops  # a bound one higher
    ops, _, _ = shown(11)
    assert "total += kept[n - 1] + sum(range(len(kept) + 1))" in ops  # an index one lower
    assert "total += kept[n] + sum(range(len(kept)))" in ops  # the `+ 1` dropped
    assert (
        "total -= kept[n] + sum(range(len(kept) + 1))" in ops and "total += kept[n] - sum(range(len(kept) + 1))" in ops
    )
    ops, _, _ = shown(10)
    assert "total = max(v, k)" in ops and "total = min(k, v)" in ops


def test_the_wrong_variable_is_tried_as_its_neighbours_and_none_as_a_parameter() -> None:
    _, names, _ = shown(10)
    # `k` is tried as `v` first (bound with it on the line above), then `kept`, the parameters; `total` (bound by this
    # very statement) last; likewise `v` as `k`.
    assert names[:2] == ["total = max(v, v)", "total = max(kept, v)"] and names[4] == "total = max(k, k)"
    _, names, _ = shown(8)
    assert "return next(filter(key, seq), default)" in names


def test_no_variant_brings_a_new_name_moves_a_line_or_is_the_same_code() -> None:
    tree = ast.dump(ast.parse(SOURCE))
    nodes = list(ast.walk(ast.parse(SOURCE)))
    known = {n.id for n in nodes if isinstance(n, ast.Name)} | {a.arg for a in nodes if isinstance(a, ast.arg)}
    known |= {"min", "max", "any", "all"}  # the builtins that come in pairs
    rows = SOURCE.splitlines()
    for line in (6, 7, 8, 9, 10, 11, 12):
        unit = unit_at(line)
        variants = mutants(SOURCE, unit)
        assert any(variants)
        for rewrite in [r for tier in variants for r in tier]:
            new = rewrite.source.splitlines()
            assert len(new) == len(rows) and new[: line - 1] == rows[: line - 1] and new[line:] == rows[line:]
            assert ast.dump(ast.parse(rewrite.source)) != tree
            used = {n.id for n in ast.walk(ast.parse(rewrite.source)) if isinstance(n, ast.Name)}
            assert used <= known


def test_a_line_that_is_no_statement_of_the_function_has_no_variants() -> None:
    assert not any(mutants(SOURCE, Unit("m.py", 3, 3, 4, 12)))
    assert not any(mutants("def f(:\n", Unit("m.py", 1, 1, 1, 1)))
