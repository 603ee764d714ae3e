"""One-token variants of the lines a failing test ran: candidate fixes that no model has to write.

Many real one-line bugs are one token off: a comparison one step too strict (`<` for `<=`), a bound off by one, a
negation lost or added, `and` for `or`, `min` for `max`, two arguments swapped, the wrong one of two variables. In
ManySStuBs4J (Karampatsis and Allamanis, 2020) such "simple stupid bugs" are about a third of single-statement fixes;
the mutation operators of PIT and mutmut make exactly these edits, and PraPR (Ghanbari et al., 2019) repairs bugs by
trying them against the tests. A small model asked to rewrite such a line often writes it back unchanged (issue 37's
repository tasks, the 1.5B and the 0.5B); these variants go through the same trials as the model's rewrites
(`fix_trials.py`), so one is only ever proposed when the named tests pass with it and no other test of their files
that passed before fails, and then as an ordinary write the user approves.

Each variant changes one place of one statement and brings no name the function did not already use but the other
of a pair of computing builtins (`min` for `max`): nothing runs in the trials that the project's code did not hold.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from .failure_path import function_at, parsed
from .fix_trials import Rewrite, Unit

MAX_NAMES = 4  # other variables tried in place of one (the function's parameters first)
MAX_NAME_VARIANTS = 12  # variables swapped per statement: many more than the operator edits, more rarely the fix
MAX_CONSTANT = 10**6  # integers nudged by one (larger ones are sizes and masks, not bounds)
# Each operator, and what it is tried as: one step stricter or looser, the opposite, the negation.
_COMPARE = {
    ast.Lt: ("<=", ">"),
    ast.LtE: ("<", ">="),
    ast.Gt: (">=", "<"),
    ast.GtE: (">", "<="),
    ast.Eq: ("!=",),
    ast.NotEq: ("==",),
    ast.In: ("not in",),
    ast.NotIn: ("in",),
    ast.Is: ("is not",),
    ast.IsNot: ("is",),
}
_COMPARE_TEXT = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_BINARY = {
    ast.Add: ("+", "-"),
    ast.Sub: ("-", "+"),
    ast.Mult: ("*", "/"),
    ast.Div: ("/", "//"),
    ast.FloorDiv: ("//", "/"),
    ast.BitAnd: ("&", "|"),
    ast.BitOr: ("|", "&"),
    ast.LShift: ("<<", ">>"),
    ast.RShift: (">>", "<<"),
}
# Functions and methods that come in pairs, each the other's likely slip.
_PAIRS = {
    "min": "max", "max": "min", "any": "all", "all": "any",
    "startswith": "endswith", "endswith": "startswith", "lstrip": "rstrip", "rstrip": "lstrip",
    "ljust": "rjust", "rjust": "ljust", "upper": "lower", "lower": "upper", "isupper": "islower",
    "islower": "isupper", "find": "rfind", "rfind": "find", "index": "rindex", "rindex": "index",
    "split": "rsplit", "rsplit": "split", "floor": "ceil", "ceil": "floor", "append": "extend",
}  # fmt: skip
_BOUNDED = {"range", "islice", "slice"}  # calls whose arguments are bounds: tried one lower and one higher
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)


@dataclass(frozen=True)
class _Edit:
    """`source[start:end]` replaced by `text` (offsets in characters)."""

    start: int
    end: int
    text: str


class Variants(NamedTuple):
    """A statement's variants, in the order they are best tried: the operator edits (comparisons, bounds, a negation
    dropped, operators, paired functions, swapped arguments); the swapped variables (many more, more rarely the fix);
    a whole test negated last (it sends the failing test down the other branch, which makes many a test pass without
    fixing anything: on a tune task it won over the right variable)."""

    operators: list[Rewrite]
    names: list[Rewrite]
    negations: list[Rewrite]


def mutants(source: str, unit: Unit) -> Variants:
    """`source` with one place of `unit` changed, each way this knows; none that does not parse or is the same
    code."""
    node = function_at(source, unit.start)
    stmt = _statement(node, unit.first) if node is not None else None
    if node is None or stmt is None:
        return Variants([], [], [])
    at = _Offsets(source)
    exprs = [e for e in _header_exprs(stmt) if unit.first <= e.lineno and (e.end_lineno or e.lineno) <= unit.last]
    operators = [*_operator_edits(at, stmt, exprs)]
    names = [*_name_edits(at, node, exprs)][:MAX_NAME_VARIANTS]
    negations = [*_negation_edits(at, stmt, exprs)]
    return Variants(*(_rewrites(source, unit, edits) for edits in (operators, names, negations)))


def _statement(function: ast.AST, line: int) -> ast.stmt | None:
    """The outermost statement of `function` that starts on `line`."""
    for node in ast.walk(function):
        if isinstance(node, ast.stmt) and node is not function and node.lineno == line:
            return node
    return None


def _header_exprs(stmt: ast.stmt) -> list[ast.expr]:
    """The expressions of `stmt` itself (a compound statement's header: its test, its iterable), in source order."""
    if isinstance(stmt, ast.If | ast.While):
        roots: list[ast.expr] = [stmt.test]
    elif isinstance(stmt, ast.For | ast.AsyncFor):
        roots = [stmt.iter]
    elif isinstance(stmt, ast.With | ast.AsyncWith):
        roots = [item.context_expr for item in stmt.items]
    else:
        roots = [c for c in ast.iter_child_nodes(stmt) if isinstance(c, ast.expr)]
    found = [n for root in roots for n in ast.walk(root) if isinstance(n, ast.expr)]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


class _Offsets:
    """Character offsets of the AST's (line, UTF-8 byte column) positions."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.starts = [0] + [m.end() for m in re.finditer("\n", source)]

    def at(self, line: int, col: int) -> int:
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.source)
        return start + len(self.source[start:end].encode("utf-8")[:col].decode("utf-8", errors="ignore"))

    def span(self, node: ast.expr) -> tuple[int, int]:
        return self.at(node.lineno, node.col_offset), self.at(node.end_lineno or node.lineno, node.end_col_offset or 0)

    def text(self, node: ast.expr) -> str:
        start, end = self.span(node)
        return self.source[start:end]

    def gap_token(self, left: ast.AST, right: ast.AST, token: str) -> tuple[int, int] | None:
        """Where `token` (an operator) stands between the end of `left` and the start of `right`."""
        lo = self.at(getattr(left, "end_lineno", 0) or 0, getattr(left, "end_col_offset", 0) or 0)
        hi = self.at(right.lineno, right.col_offset)  # type: ignore[attr-defined]
        words = r"\s+".join(re.escape(w) for w in token.split())
        pattern = rf"(?<![\w<>=!*/&|]){words}(?![\w<>=!*/&|])"
        match = re.search(pattern, self.source[lo:hi])
        return (lo + match.start(), lo + match.end()) if match else None


def _operator_edits(at: _Offsets, stmt: ast.stmt, exprs: list[ast.expr]) -> Iterator[_Edit]:
    for e in exprs:
        if isinstance(e, ast.Compare):
            left: ast.expr = e.left
            for op, right in zip(e.ops, e.comparators, strict=True):
                place = at.gap_token(left, right, _COMPARE_TEXT[type(op)])
                for other in _COMPARE[type(op)] if place is not None else ():
                    yield _Edit(place[0], place[1], other)  # type: ignore[index]
                left = right
        elif isinstance(e, ast.BoolOp):
            old, new = ("and", "or") if isinstance(e.op, ast.And) else ("or", "and")
            for a, b in zip(e.values, e.values[1:], strict=False):
                if place := at.gap_token(a, b, old):
                    yield _Edit(*place, new)
        elif isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            yield _Edit(*at.span(e), _wrapped(at, e.operand))  # the negation dropped
    for e in exprs:
        yield from _bound_edits(at, e)
    for e in exprs:
        if isinstance(e, ast.BinOp) and type(e.op) in _BINARY:
            old, new = _BINARY[type(e.op)]
            if place := at.gap_token(e.left, e.right, old):
                yield _Edit(*place, new)
        elif isinstance(e, ast.Name) and e.id in _PAIRS:
            yield _Edit(*at.span(e), _PAIRS[e.id])
        elif isinstance(e, ast.Attribute) and e.attr in _PAIRS:
            end = at.span(e)[1]
            if at.source[end - len(e.attr) : end] == e.attr:
                yield _Edit(end - len(e.attr), end, _PAIRS[e.attr])
        elif isinstance(e, ast.Constant) and isinstance(e.value, bool):
            yield _Edit(*at.span(e), str(not e.value))
        elif isinstance(e, ast.Call) and len(e.args) == 2 and not e.keywords:
            a, b = e.args
            if not any(isinstance(x, ast.Starred) for x in e.args):
                (a0, a1), (b0, b1) = at.span(a), at.span(b)
                yield _Edit(a0, b1, at.source[b0:b1] + at.source[a1:b0] + at.source[a0:a1])
    if isinstance(stmt, ast.AugAssign) and type(stmt.op) in _BINARY:
        old, new = _BINARY[type(stmt.op)]
        if place := at.gap_token(stmt.target, stmt.value, old + "="):
            yield _Edit(*place, new + "=")


def _negation_edits(at: _Offsets, stmt: ast.stmt, exprs: list[ast.expr]) -> Iterator[_Edit]:
    for e in _conditions(stmt, exprs):
        if not (isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not)):
            yield _Edit(*at.span(e), f"not {_wrapped(at, e)}")


def _bound_edits(at: _Offsets, e: ast.expr) -> Iterator[_Edit]:
    """Off by one: an integer one higher or lower, a `± 1` dropped, an index or a bound given one more or less."""
    if isinstance(e, ast.Constant) and type(e.value) is int and abs(e.value) < MAX_CONSTANT:
        for value in (e.value + 1, e.value - 1):
            yield _Edit(*at.span(e), str(value))
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add | ast.Sub) and isinstance(e.right, ast.Constant):
        if type(e.right.value) is int:
            yield _Edit(*at.span(e), at.text(e.left))  # `x + 1` as `x`
    bounds: list[ast.expr] = []
    if isinstance(e, ast.Subscript):
        bounds += [e.slice] if not isinstance(e.slice, ast.Slice | ast.Tuple) else []
        if isinstance(e.slice, ast.Slice):
            bounds += [b for b in (e.slice.lower, e.slice.upper) if b is not None]
    elif isinstance(e, ast.Call) and _called(e) in _BOUNDED:
        bounds += [a for a in e.args if not isinstance(a, ast.Starred)]
    for b in bounds:
        if isinstance(b, ast.Constant) or _plus_minus_constant(b):
            continue  # nudged above
        for sign in ("+", "-"):
            yield _Edit(*at.span(b), f"{_wrapped(at, b)} {sign} 1")


def _name_edits(
    at: _Offsets, function: ast.FunctionDef | ast.AsyncFunctionDef, exprs: list[ast.expr]
) -> Iterator[_Edit]:
    """The wrong variable: a `None` as one of the function's parameters (`default` for the `None` it should have
    passed on), then each variable the statement reads as another of its function's, those bound nearest the
    statement first (`k` for `v` of the loop above)."""
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)]
    params += [a.arg for a in (function.args.vararg, function.args.kwarg) if a is not None]
    params = [p for p in params if p not in ("self", "cls")]
    bound: dict[str, list[int]] = {p: [function.lineno] for p in params}
    for n in ast.walk(function):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            bound.setdefault(n.id, []).append(n.lineno)
    for e in exprs:
        if isinstance(e, ast.Constant) and e.value is None:
            for other in params[:MAX_NAMES]:
                yield _Edit(*at.span(e), other)
    for e in exprs:
        if isinstance(e, ast.Name) and isinstance(e.ctx, ast.Load) and e.id in bound:
            others = sorted((n for n in bound if n != e.id), key=lambda n: _distance(bound[n], e.lineno))
            for other in others[:MAX_NAMES]:
                yield _Edit(*at.span(e), other)


def _distance(bound: list[int], line: int) -> int:
    """How far above `line` a variable was last bound; one bound only there or below it comes after all those."""
    return min(line - b if b < line else 1_000_000 + b - line for b in bound)


def _conditions(stmt: ast.stmt, exprs: list[ast.expr]) -> list[ast.expr]:
    """The tests the statement decides on: its own (`if`, `while`, `assert`), a conditional expression's, a
    comprehension's filters."""
    found: list[ast.expr] = [stmt.test] if isinstance(stmt, ast.If | ast.While | ast.Assert) else []
    for e in exprs:
        if isinstance(e, ast.IfExp):
            found.append(e.test)
        elif isinstance(e, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            found += [test for generator in e.generators for test in generator.ifs]
    return found


def _called(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _plus_minus_constant(e: ast.expr) -> bool:
    return isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add | ast.Sub) and isinstance(e.right, ast.Constant)


def _wrapped(at: _Offsets, e: ast.expr) -> str:
    """`e`'s text, in parentheses unless it is one term."""
    text = at.text(e)
    return text if isinstance(e, _ATOMS) else f"({text})"


def _rewrites(source: str, unit: Unit, edits: list[_Edit]) -> list[Rewrite]:
    """Each edit applied alone: the new source and the unit's new lines; none that does not parse, is the same code,
    or moves a line break (the unit keeps its lines)."""
    original = parsed(source)
    same = ast.dump(original) if original is not None else None
    seen: set[str] = set()
    out: list[Rewrite] = []
    for edit in edits:
        if source[edit.start : edit.end].count("\n") != edit.text.count("\n"):
            continue
        text = source[: edit.start] + edit.text + source[edit.end :]
        if text in seen:
            continue
        seen.add(text)
        try:
            tree = ast.dump(ast.parse(text))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if tree != same:
            out.append(Rewrite(text, tuple(text.split("\n")[unit.first - 1 : unit.last])))
    return out
