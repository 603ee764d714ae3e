"""The workspace files a pasted failure names, and the modules a test imports (traceback_files.py,
imported_modules.py), against real files in a throwaway workspace."""

from __future__ import annotations

from pathlib import Path

from agent_server.context_sources.imported_modules import imported_modules
from agent_server.context_sources.traceback_files import frames, is_workspace_file, resolve


def src_layout(root: Path) -> Path:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("from .core import run\nfrom .util import helper\n")
    (root / "src" / "pkg" / "core.py").write_text("def run():\n    return helper()\n")
    (root / "src" / "pkg" / "util.py").write_text("def helper():\n    return 1\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_core.py").write_text(
        "import pkg\nfrom pkg import run\n\n\ndef test_run():\n    assert run() == 2\n\n\n"
        "def test_helper():\n    assert pkg.helper() == 1\n"
    )
    return root


def test_frames_resolve_deepest_first_in_every_spelling(tmp_path: Path) -> None:
    root = src_layout(tmp_path / "ws")
    text = (
        "tests/test_core.py::test_run FAILED\n"
        'Traceback (most recent call last):\n  File "/ci/build/repo/tests/test_core.py", line 6, in test_run\n'
        f'  File "{root}/src/pkg/core.py", line 2, in run\n'
        '  File "/opt/venv/lib/python3.11/site-packages/pkg/util.py", line 2, in helper\n'
        '  File "/usr/lib/python3.11/json/decoder.py", line 9, in decode\n'
    )
    found = frames(text, root)
    assert [f.path for f in found] == ["src/pkg/util.py", "src/pkg/core.py", "tests/test_core.py"]
    assert found[0].lines == [2] and found[0].names == {"helper"}
    assert found[2].names == {"test_run"}


def test_pytest_locations_and_node_ids_resolve(tmp_path: Path) -> None:
    root = src_layout(tmp_path / "ws")
    text = "src/pkg/core.py:2: in run\n    return helper()\nE   NameError\nsrc/pkg/core.py:2: NameError\n"
    assert [(f.path, f.lines, f.names) for f in frames(text, root)] == [("src/pkg/core.py", [2, 2], {"run"})]


def test_a_path_never_reaches_outside_the_workspace_or_through_a_link(tmp_path: Path) -> None:
    root = src_layout(tmp_path / "ws")
    (tmp_path / "secret.py").write_text("KEY = 1\n")
    (root / "link.py").symlink_to(tmp_path / "secret.py")
    for raw in ["../secret.py", str(tmp_path / "secret.py"), "link.py", "/etc/passwd", "src/../../secret.py"]:
        assert resolve(raw, root) is None, raw


def test_a_test_s_imports_resolve_in_a_src_layout_through_reexports(tmp_path: Path) -> None:
    root = src_layout(tmp_path / "ws")
    found = imported_modules(["tests/test_core.py"], root, {"tests/test_core.py": {"test_run"}})
    assert found[0].path == "src/pkg/core.py" and found[0].names == {"run"}
    assert {m.path for m in found} == {"src/pkg/core.py", "src/pkg/__init__.py"}
    # `pkg.helper()` in the failing test: the module the package takes `helper` from
    found = imported_modules(["tests/test_core.py"], root, {"tests/test_core.py": {"test_helper"}})
    assert "src/pkg/util.py" in {m.path for m in found}


def test_a_file_reached_through_a_folder_link_is_not_a_workspace_file(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    (tmp_path / "cfg").symlink_to(".")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("y = 2\n")
    assert is_workspace_file(tmp_path, "app.py") and is_workspace_file(tmp_path, "pkg/mod.py")
    assert not is_workspace_file(tmp_path, "cfg/app.py"), "the real path differs from the path as written"
    assert not is_workspace_file(tmp_path, "pkg/../app.py/..") and not is_workspace_file(tmp_path, "../x.py")
