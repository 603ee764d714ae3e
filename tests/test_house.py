"""The plan of the house, held against the code: no import circles, layers that point down, no oversized modules,
pygls only in protocol/, no face importing another.

Imports are read with `ast` from every module of the package, type-only imports (under TYPE_CHECKING) and imports
inside functions included: a circle hidden behind a lazy import is still a circle a reader has to untangle, and an
arrow back up behind one is still a floor that needs the one above it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "agent_server"
MAX_LINES = 500
FACE_ONLY = ("pygls", "lsprotocol")  # the editor protocol's vocabulary

# The floors, ground first (docs/architecture.md, "The layers"), each by the top-level names of agent_server/ it
# holds. A module imports only from its own floor or the floors below; a new top-level module or package is placed
# here. Within a floor, the circle check keeps the order.
FLOORS: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (name, frozenset(rooms.split()))
    for name, rooms in (
        ("ground", "agent_server acp messages errors logging_setup wire_trace stdio text_lines client_contract config"),
        ("models", "llm"),
        ("context", "context"),
        ("tools", "tools"),
        ("store and hooks", "store hooks"),
        ("the turn", "turn"),
        ("beside the turn", "index checkpoints trust"),
        ("rooms of the turn", "context_sources completion agents config_layers"),
        ("service and the small faces", "session doctor memory_cli permissions_cli headless terminal"),
        ("the host", "host"),
        ("the faces", "protocol acp_agent"),
        ("the entry", "cli launch __main__"),
    )
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules `path` imports (a package's own __init__ is not counted as an edge to itself)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in known:
                    out.add(sub)
                elif target in known:
                    out.add(target)
    out.discard(name)
    return {m for m in out if not name.startswith(m + ".")}  # a module importing its own package's face


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def floor_of(module: str) -> int | None:
    """The floor number of `module` (0 = ground); None when no floor holds its top-level name."""
    parts = module.split(".")
    room = parts[1] if len(parts) > 1 else parts[0]
    return next((i for i, (_name, rooms) in enumerate(FLOORS) if room in rooms), None)


def arrows_up(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a module on a higher floor, and every module on no floor, as readable lines."""
    found = [f"{m} is on no floor: place it in FLOORS" for m in sorted(graph) if floor_of(m) is None]
    for module in sorted(graph):
        low = floor_of(module)
        for target in sorted(graph[module]):
            high = floor_of(target)
            if low is not None and high is not None and high > low:
                found.append(f"{module} ({FLOORS[low][0]}) imports {target} ({FLOORS[high][0]})")
    return found


def test_no_import_circles_between_modules() -> None:
    known = modules()
    graph = {name: imports_of(path, known) for name, path in known.items()}
    assert cycles(graph) == []


def test_the_circle_check_sees_a_circle(tmp_path: Path) -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_runs_back_up_a_floor() -> None:
    known = modules()
    graph = {name: imports_of(path, known) for name, path in known.items()}
    assert arrows_up(graph) == [], "move the shared shape down a floor, or take it as a parameter or a Protocol"


def test_the_layer_check_sees_an_arrow_back_up() -> None:
    planted = {
        "agent_server.tools.base": {"agent_server.turn.loop", "agent_server.messages"},  # up, then down
        "agent_server.turn.loop": {"agent_server.tools.base", "agent_server.client_contract"},
        "agent_server.context.shrink": {"agent_server.context.tokens"},  # its own floor
        "agent_server.basement": set(),
    }
    assert arrows_up(planted) == [
        "agent_server.basement is on no floor: place it in FLOORS",
        "agent_server.tools.base (tools) imports agent_server.turn.loop (the turn)",
    ]


def test_no_module_over_the_size_limit() -> None:
    big = {
        str(p.relative_to(PACKAGE.parent)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert big == {}, f"split these along their ideas: {big}"


def test_only_the_editor_face_speaks_lsp() -> None:
    offenders = []
    for name, path in modules().items():
        if name.startswith("agent_server.protocol"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            roots = []
            if isinstance(node, ast.Import):
                roots = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                roots = [node.module.split(".")[0]]
            offenders += [f"{name} imports {r}" for r in roots if r in FACE_ONLY]
    # the CLI starts the LSP face, so it may name it (lazily); nothing of the core may
    assert [o for o in offenders if not o.startswith("agent_server.cli ")] == []


# Each face adapts its protocol to the one core (host/face_host.py starts it) and shares nothing with another face
# but what lies below both: the editor face (pygls), the ACP face, the terminal's clients.
FACES = {
    "the editor face": ("agent_server.protocol",),
    "the ACP face": ("agent_server.acp_agent",),
    "the terminal face": ("agent_server.terminal", "agent_server.headless"),
}


def face_of(module: str) -> str | None:
    return next(
        (f for f, roots in FACES.items() if any(module == r or module.startswith(r + ".") for r in roots)), None
    )


def faces_crossed(graph: dict[str, set[str]]) -> list[str]:
    found = []
    for module in sorted(graph):
        mine = face_of(module)
        for target in sorted(graph[module]):
            theirs = face_of(target)
            if mine is not None and theirs is not None and theirs != mine:
                found.append(f"{module} ({mine}) imports {target} ({theirs})")
    return found


def test_a_face_never_imports_another_face() -> None:
    known = modules()
    graph = {name: imports_of(path, known) for name, path in known.items()}
    assert faces_crossed(graph) == [], "move what two faces share below both (host/), never into one of them"


def test_the_face_check_sees_a_face_importing_another() -> None:
    planted = {
        "agent_server.acp_agent.agent": {"agent_server.protocol.errors", "agent_server.host.face_host"},
        "agent_server.terminal": {"agent_server.acp_agent.rpc"},
        "agent_server.protocol.server": {"agent_server.host.face_host"},
    }
    assert faces_crossed(planted) == [
        "agent_server.acp_agent.agent (the ACP face) imports agent_server.protocol.errors (the editor face)",
        "agent_server.terminal (the terminal face) imports agent_server.acp_agent.rpc (the ACP face)",
    ]
