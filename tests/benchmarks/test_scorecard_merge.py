"""The scorecard's bookkeeping: runs that split the tasks between cores add up to one table, an ablation can switch
several features off in one system (a tool-path feature is measured on the tool path), and `--remember` writes the
edit format that won into the store agent-server reads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from agent_server.store import Store
from agent_server.turn.edit_format import model_key
from tests.benchmarks.bench_scorecard import run_tests
from tests.benchmarks.scorecard.chart import label
from tests.benchmarks.scorecard.systems import AgentServerSystem
from tests.benchmarks.scorecard.tasks import select
from tests.fakes.fake_llm import FakeLLMServer, Reply

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "benchmarks" / "bench_scorecard.py"


def row(task: str, system: str, p1: bool, p2: bool, tokens: int, calls: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    attempt = {"stop": "end_turn", "rounds": 1, "calls_attempted": calls[0], "calls_valid": calls[1],
               "recoveries": {}, "seconds": 10.0, "error": "", "passed": p1}  # fmt: skip
    attempts = [attempt] if p1 else [attempt, {**attempt, "passed": p2}]
    return {"task": task, "kind": "exercise", "system": system, "passed_1": p1, "passed_2": p2,
            "attempts": attempts, "prompt_tokens": tokens, "seconds": 20.0}  # fmt: skip


def run_file(path: Path, rows: list[dict[str, Any]], window: int = 8192, formats: dict[str, str] | None = None) -> Path:
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    run = {"model": "m", "window": window, "tasks": tasks, "rows": rows, "wall_seconds": 5.0, "formats": formats or {}}
    path.write_text(json.dumps(run))
    return path


SVG_TEXT = "{http://www.w3.org/2000/svg}text"


def merge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--merge", *args], capture_output=True, text=True, cwd=ROOT)


def test_two_halves_of_a_run_make_one_table(tmp_path: Path) -> None:
    a = run_file(tmp_path / "a.json", [row("leap", "agent-server", True, True, 100, (2, 1)),
                                       row("leap", "whole file", False, True, 50)])  # fmt: skip
    b = run_file(tmp_path / "b.json", [row("queue", "agent-server", False, False, 300, (2, 2)),
                                       row("queue", "whole file", False, False, 70)])  # fmt: skip
    out = tmp_path / "all.json"
    done = merge(str(a), str(b), "--per-task", "--json", str(out))
    assert done.returncode == 0, done.stderr
    merged = json.loads(out.read_text())
    assert merged["tasks"] == ["leap", "queue"]
    agent, whole = merged["summary"]["agent-server"], merged["summary"]["whole file"]
    assert (agent["tasks"], agent["pass@1"], agent["pass@2"], agent["prompt_tokens"]) == (2, 1, 1, 400)
    assert (whole["pass@1"], whole["pass@2"], whole["prompt_tokens"]) == (0, 1, 120)
    assert agent["validity"] == 5 / 6  # every attempt of both runs: leap's 1 of 2, queue's 2 of 2 twice
    assert "2 tasks, m, window 8192" in done.stdout
    assert "leap                     1 2" in done.stdout and "queue                    . ." in done.stdout


def test_runs_of_the_same_tasks_by_other_systems_make_one_table(tmp_path: Path) -> None:
    # one system per run against one server (how peers are run side by side): the tasks are counted once
    a = run_file(tmp_path / "a.json", [row("leap", "agent-server", True, True, 100),
                                       row("queue", "agent-server", False, False, 300)])  # fmt: skip
    b = run_file(tmp_path / "b.json", [row("leap", "aider", False, False, 90),
                                       row("queue", "aider", False, True, 200)])  # fmt: skip
    out = tmp_path / "all.json"
    done = merge(str(a), str(b), "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["tasks"] == ["leap", "queue"]
    assert "2 tasks, m, window 8192" in done.stdout


def test_runs_that_do_not_add_up_are_refused(tmp_path: Path) -> None:
    a = run_file(tmp_path / "a.json", [row("leap", "agent-server", True, True, 1)])
    other_window = run_file(tmp_path / "b.json", [row("queue", "agent-server", True, True, 1)], window=4096)
    same_task = run_file(tmp_path / "c.json", [row("leap", "agent-server", False, False, 1)])
    missing = tmp_path / "still-running.json"
    for second, why in (
        (other_window, "different models, windows or temperatures"),
        (same_task, "in two of these runs"),
        (missing, "cannot read the run"),
    ):
        done = merge(str(a), str(second))
        assert done.returncode != 0 and why in done.stderr, done.stderr


def test_several_features_off_in_one_system(tmp_path: Path) -> None:
    system = AgentServerSystem("http://127.0.0.1:9", "m", tmp_path / "a.db", 60, ("files_format", "text_tool_calls"))
    settings = system._settings(tmp_path)
    assert system.name == "agent-server -files_format -text_tool_calls"
    assert settings.agent.edit_format == "tools" and settings.agent.recover_text_tool_calls is False
    assert settings.agent.reduced_tools is True  # only what was named is off


FORMATS = {"agent-server +files": "files", "agent-server -files_format": "tools"}


def test_remember_writes_the_format_that_finished_more_tasks(tmp_path: Path) -> None:
    files, tools = "agent-server +files", "agent-server -files_format"
    a = run_file(tmp_path / "a.json", [row("leap", files, True, True, 900), row("leap", tools, False, False, 2000)],
                 formats=FORMATS)  # fmt: skip
    b = run_file(tmp_path / "b.json", [row("isogram", files, False, True, 900), row("isogram", tools, False, True, 50)],
                 formats=FORMATS)  # fmt: skip
    db = tmp_path / "agent.db"
    done = merge(str(a), str(b), "--remember", "--remember-as", "Llama3.2:1B", "--store", str(db))
    assert done.returncode == 0, done.stderr
    assert "edit with files" in done.stdout
    store = Store(db)
    found = store.get_measured_format(model_key("llama3.2:1b"))  # the spelling agent-server is configured with
    store.close()
    assert found is not None and found[0] == "files"
    assert "2 tasks" in found[1] and "files 1/2" in found[1] and "tools 0/2" in found[1]


def test_a_tie_keeps_tool_calls_and_a_run_without_both_formats_remembers_nothing(tmp_path: Path) -> None:
    files, tools = "agent-server +files", "agent-server -files_format"
    tie = run_file(tmp_path / "tie.json", [row("leap", files, True, True, 100), row("leap", tools, True, True, 100)],
                   formats=FORMATS)  # fmt: skip
    db = tmp_path / "agent.db"
    assert "edit with tools" in merge(str(tie), "--remember", "--store", str(db)).stdout
    one = run_file(tmp_path / "one.json", [row("leap", files, True, True, 100)], formats={files: "files"})
    other = tmp_path / "other.db"
    done = merge(str(one), "--remember", "--store", str(other))
    assert done.returncode != 0 and "did not measure both edit formats" in done.stderr
    store = Store(other)
    assert store.get_measured_format(model_key("m")) is None
    store.close()


def test_a_system_that_rewrote_the_tests_is_judged_by_the_real_ones(tmp_path: Path) -> None:
    for name in ("leap", "queue"):  # an exercise and a workspace task
        [task] = select([name])
        ws = task.materialize(tmp_path / name)
        for test in task.test_files():  # what an echoed, "fixed" test file would do
            (ws / test).write_text("def test_nothing():\n    pass\n")
        passed, output = run_tests(task, ws)
        assert not passed, output  # the stub still fails the task's real tests
        assert all((ws / t).read_text() == (task.source / t).read_text() for t in task.test_files())
        assert task.test_files(), name


def test_a_run_at_one_temperature_samples_every_system_at_it(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    # Greedy (0) makes a run repeatable: both systems then differ only by the harness, never by the dice.
    fake_llm.script(*[Reply.text("```python\ndef leap_year(year):\n    return year % 4 == 0\n```")] * 6)
    out = tmp_path / "run.json"
    args = [
        "--base-url",
        fake_llm.url,
        "--model",
        fake_llm.models[0].name,
        "--systems",
        "agent,wholefile",
        "--tasks",
        "leap",
    ]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args, "--temperature", "0", "--timeout", "60", "--json", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    sent = [r.json for r in fake_llm.chat_requests()]
    assert len(sent) >= 2 and all(body.get("temperature") == 0 for body in sent), [b.get("temperature") for b in sent]
    assert json.loads(out.read_text())["temperature"] == 0
    assert "temperature 0.0" in done.stdout
    greedy = run_file(tmp_path / "g.json", [row("queue", "agent-server", True, True, 1)])
    sampled = json.loads(greedy.read_text()) | {"temperature": 0.8}
    (tmp_path / "s.json").write_text(json.dumps(sampled | {"rows": [row("leap", "agent-server", True, True, 1)]}))
    refused = merge(str(greedy), str(tmp_path / "s.json"))
    assert refused.returncode != 0 and "temperatures" in refused.stderr


def test_a_chart_of_two_families_of_one_model_tells_the_runs_apart(tmp_path: Path) -> None:
    exercises = run_file(tmp_path / "ex.json", [row("leap", "agent-server", True, True, 100),
                                                {**row("forth", "agent-server", False, False, 300), "family": "hard"}])  # fmt: skip
    repo_rows = [{**row(name, "agent-server", False, False, 900), "kind": "repo"} for name in ("toolz-a", "boltons-b")]
    repo = run_file(tmp_path / "repo.json", repo_rows)
    for run in (exercises, repo):  # the results as a run writes them (with their summary): --merge of one run
        assert merge(str(run), "--json", str(run)).returncode == 0
    out = tmp_path / "both.svg"
    done = subprocess.run([sys.executable, str(SCRIPT), "--chart", str(exercises), str(repo), "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT)  # fmt: skip
    assert done.returncode == 0, done.stderr
    chart = out.read_text()
    assert "run 1: m, 2 exercises + harder exercises (window 8192)" in chart
    assert "run 2: m, 2 repository tasks (window 8192)" in chart
    assert "circle: run 1, square: run 2" in chart


def test_a_chart_of_many_runs_keeps_its_keys_clear_of_the_names_and_names_every_system(tmp_path: Path) -> None:
    # The README's repository chart has five runs of seven systems, most of which solved nothing: the run key drew
    # over the slanted system names, and the names of the points on the axis over each other.
    systems = ["agent-server", "whole file", "aider", "agent-mini", "mini-swe-agent", "opencode", "mini-swe-agent text"]
    paths = []
    for j in range(5):
        rows = [row(f"t{j}", name, name == "agent-server", name == "agent-server", 100 * (i + 1))
                for i, name in enumerate(systems)]  # fmt: skip
        paths.append(str(run_file(tmp_path / f"r{j}.json", rows)))
        assert merge(paths[-1], "--json", paths[-1]).returncode == 0
    out = tmp_path / "many.svg"
    done = subprocess.run([sys.executable, str(SCRIPT), "--chart", *paths, "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT)  # fmt: skip
    assert done.returncode == 0, done.stderr
    root = ElementTree.fromstring(out.read_text())
    texts = [
        (float(t.get("x", 0)), float(t.get("y", 0)), t.text or "", t.get("transform")) for t in root.iter(SVG_TEXT)
    ]
    keys = [y for _, y, s, _ in texts if s.startswith("run ")]
    slanted = [(y, s) for _, y, s, turn in texts if turn and turn.startswith("rotate(-30")]  # names under the bars
    assert len(keys) == 5 and len(slanted) == len(systems)
    # a name at 10 px runs ~6 px a character, half of it downwards at 30°
    assert all(y + 0.5 * 6 * len(s) < min(keys) - 10 for y, s in slanted), (slanted, keys)
    right = [s for x, _, s, _ in texts if x >= 570]
    assert right.count("agent-server") == len(paths) + 1  # its point in each run is named, and it is in the key
    assert all(right.count(name) == 1 for name in systems[1:])  # the rest, on the axis, only in the key
    assert float(root.get("height", 0)) >= max(y for _, y, _, _ in texts)


def test_a_merged_run_whose_systems_ran_different_tasks_says_so_in_the_key() -> None:
    # agent-server on all twelve, a peer on the six new ones: "12 repository tasks" would claim the peer ran twelve.
    run = {"model": "m", "window": 8192, "tasks": [f"t{i}" for i in range(12)], "rows": [{"kind": "repo"}],
           "summary": {"agent-server": {"tasks": 12}, "aider": {"tasks": 6}}}  # fmt: skip
    assert label(run) == "m, 6–12 repository tasks (window 8192)"
    run["summary"] = {"agent-server": {"tasks": 12}, "aider": {"tasks": 12}}
    assert label(run) == "m, 12 repository tasks (window 8192)"
