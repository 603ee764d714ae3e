"""The scorecard's lanes and what it reports (issue 37): every run says what ran it (versions, command lines, date,
machine) and draws its chart; agent-server's headless face is a lane of its own; a turn that leaves more tests
failing counts as damaged; tokens and time are reported per solved task; a peer is stopped whole at the time limit;
`--model 0.5b|1.5b` finds the catalogue's model; a fixed part of every task family is held out (a third; the
repository tasks more: the six added after the fix trials' tuning are all held out).

The peers themselves (aider, mini-swe-agent, agent-mini, OpenCode) run against a real model in the real_llm lane
(tests/real_llm/test_scorecard_lanes.py): they install from the package registries on first use.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.benchmarks.scorecard.peer_run import Child, PeerSystem, RunSettings
from tests.benchmarks.scorecard.peers import make_peer
from tests.benchmarks.scorecard.repo_tasks import load_specs
from tests.benchmarks.scorecard.run_info import catalogue_entry, model_file
from tests.benchmarks.scorecard.tasks import HELD_OUT, TUNED, all_tasks, select
from tests.benchmarks.test_scorecard_merge import merge, row, run_file
from tests.fakes.fake_llm import FakeLLMServer, Reply

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "benchmarks" / "bench_scorecard.py"
LEAP = "```python\ndef leap_year(year):\n    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n```"


def bench(fake: FakeLLMServer, tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:  # type: ignore[type-arg]
    out = tmp_path / "run.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--base-url", fake.url, "--model", fake.models[0].name, "--timeout", "120",
         "--json", str(out), *args],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done, json.loads(out.read_text())


def test_a_run_records_what_ran_it_and_draws_its_chart(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    code = LEAP.split("\n", 1)[1].rsplit("```", 1)[0]
    fake_llm.script(Reply.tool_call("write_file", {"path": "leap.py", "content": code}), Reply.text("Done."),
                    Reply.text(LEAP))  # fmt: skip
    done, result = bench(fake_llm, tmp_path, "--systems", "agentcli,wholefile", "--tasks", "leap")
    assert set(result["systems"]) == {"agent-server cli", "whole file"}
    cli = result["systems"]["agent-server cli"]
    assert cli["version"] and "chat --output-format json" in cli["command"] and "--allow write_file" in cli["command"]
    assert "<request>" in cli["command"] or "--prompt-file -" in cli["command"]  # never the task's text
    assert "/v1/chat/completions" in result["systems"]["whole file"]["command"]
    run = result["run"]
    assert run["date"][:2] == "20" and run["machine"]["cores"] and run["machine"]["memory_mib"]
    assert "--systems agentcli,wholefile" in run["command"]
    assert {r["system"]: r["passed_1"] for r in result["rows"]} == {"agent-server cli": True, "whole file": True}
    headless = next(r for r in result["rows"] if r["system"] == "agent-server cli")
    assert headless["attempts"][0]["rounds"] >= 1  # read back from the session the headless run stored
    chart = (tmp_path / "run.svg").read_text()
    assert chart.startswith("<svg") and "agent-server cli" in chart and "whole file" in chart
    assert "1/1" in chart  # each system's pass@1 bar
    assert f"chart: {tmp_path / 'run.svg'}" in done.stdout


def test_a_turn_that_leaves_more_tests_failing_is_counted_as_damaged(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    broken = "inventory/store.py\n```python\nraise ImportError('rewritten')\n```"
    fake_llm.script(Reply.text(broken), Reply.text(broken))
    done, result = bench(fake_llm, tmp_path, "--systems", "wholefile", "--tasks", "inventory,leap", "--per-task")
    rows = {r["task"]: r for r in result["rows"]}
    assert rows["inventory"]["damaged"] is True  # some of its tests passed before the turn, none after
    assert rows["leap"]["damaged"] is None  # an exercise's stub passes nothing: nothing to damage
    assert result["summary"]["whole file"]["damaged"] == 1
    assert "inventory                x" in done.stdout


def test_tokens_and_time_are_reported_per_solved_task(tmp_path: Path) -> None:
    a = run_file(tmp_path / "a.json", [row("leap", "agent-server", True, True, 1000) | {"generated_tokens": 300},
                                       row("isogram", "agent-server", False, False, 3000) | {"generated_tokens": 900}])  # fmt: skip
    b = run_file(tmp_path / "b.json", [row("queue", "agent-server", False, True, 2000) | {"generated_tokens": 600}])
    out = tmp_path / "all.json"
    done = merge(str(a), str(b), "--json", str(out))
    assert done.returncode == 0, done.stderr
    s = json.loads(out.read_text())["summary"]["agent-server"]
    assert (s["prompt_tokens"], s["generated_tokens"], s["pass@2"]) == (6000, 1800, 2)
    assert s["per_solved"] == {"prompt_tokens": 3000.0, "generated_tokens": 900.0, "seconds": 30.0}
    assert "tok/solved" in done.stdout and "3,900" in done.stdout  # prompt + generated per solved task


class SleepyPeer(PeerSystem):
    """A peer whose agent starts a command of its own and never finishes (what a stuck agent does)."""

    name = "sleepy"

    def child(self, task, ws, message, retry):  # type: ignore[no-untyped-def]
        script = f"import subprocess, time; open('{ws}/grandchild.pid', 'w').write(str(subprocess.Popen(['sleep', '300']).pid)); time.sleep(300)"
        return Child([sys.executable, "-c", script], dict(os.environ), ws)


def test_a_peer_is_stopped_whole_at_the_time_limit(tmp_path: Path) -> None:
    settings = RunSettings("http://127.0.0.1:9", "m", 4096, None, 3.0, tmp_path / "scratch")
    peer = SleepyPeer(settings)
    [task] = select(["leap"])
    ws = task.materialize(tmp_path / "ws")
    attempt = asyncio.run(peer.first(task, ws))
    assert attempt.stop == "timeout" and 2.5 < attempt.seconds < 60
    grandchild = int((ws / "grandchild.pid").read_text())
    with pytest.raises(ProcessLookupError):  # the agent's own command died with it, not left running
        for _ in range(50):
            os.kill(grandchild, 0)
            time.sleep(0.1)


HARNESS = """
import asyncio, os, sys
from pathlib import Path
from tests.benchmarks.scorecard.peer_run import Child, run_child, stop_children_on_signal
stop_children_on_signal()
ws = Path(sys.argv[1])
agent = "import subprocess, time; open('grandchild.pid', 'w').write(str(subprocess.Popen(['sleep', '300']).pid)); time.sleep(300)"
try:
    asyncio.run(run_child(Child([sys.executable, '-c', agent], dict(os.environ), ws), 600, ws / 'logs'))
finally:
    (ws / 'unwound').write_text('yes')
"""


def test_a_stopped_benchmark_takes_its_running_peer_down_with_it(tmp_path: Path) -> None:
    # A peer runs in a session of its own, so a SIGTERM to the harness alone never reached it: it went on calling
    # the shared model server after the benchmark was stopped.
    harness = subprocess.Popen([sys.executable, "-c", HARNESS, str(tmp_path)], cwd=ROOT)
    pid_file = tmp_path / "grandchild.pid"
    for _ in range(300):
        if pid_file.exists() and pid_file.read_text():
            break
        time.sleep(0.1)
    grandchild = int(pid_file.read_text())
    harness.terminate()
    assert harness.wait(timeout=60) == 128 + 15
    assert (tmp_path / "unwound").exists()  # its cleanup ran (the model server a run started stops there)
    with pytest.raises(ProcessLookupError):
        for _ in range(50):
            os.kill(grandchild, 0)
            time.sleep(0.1)


def test_mini_swe_agent_runs_with_either_of_its_configs(tmp_path: Path) -> None:
    # Its default config wants the command as a tool call, which small models write as text; `mini:text` gives it
    # the text-based config it ships, so the peer is measured at its best, not at a format it cannot meet.
    settings = RunSettings("http://127.0.0.1:9", "m", 4096, 0.0, 30.0, tmp_path / "scratch")
    [task] = select(["leap"])
    ws = task.materialize(tmp_path / "ws")
    tool, text = make_peer("mini", settings), make_peer("mini:text", settings)
    assert tool is not None and text is not None and tool.name != text.name
    argv = text.child(task, ws, "fix it", False).argv
    assert "mini_textbased.yaml" in argv and argv[argv.index("--model-class") + 1] == "litellm_textbased"
    assert "mini.yaml" in (plain := tool.child(task, ws, "fix it", False).argv) and "--model-class" not in plain
    with pytest.raises(SystemExit, match="mini-swe-agent takes `text`"):
        make_peer("mini:xml", settings)
    with pytest.raises(SystemExit, match="opencode takes no option"):
        make_peer("opencode:fast", settings)
    assert make_peer("plain", settings) is None


def test_model_names_of_the_catalogue_lead_to_its_cached_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SERVER_CACHE", str(tmp_path))
    for name in ("0.5b", "1.5b"):
        entry = catalogue_entry(name)
        assert entry is not None and name in entry.name
        cached = tmp_path / f"sha256-{entry.sha256[:16]}" / entry.filename
        cached.parent.mkdir()
        with cached.open("wb") as f:  # as scripts/real_llm.sh leaves it (the size is what marks it complete)
            f.truncate(entry.size)
        assert model_file(entry) == cached
    assert catalogue_entry("qwen3:8b") is None  # any other name is sent to a server as it is


def test_a_fixed_part_of_every_family_is_held_out() -> None:
    tasks = all_tasks()
    specs = [t["name"] for t in load_specs()["tasks"]]
    for family in ("exercise", "hard", "workspace", "repo"):
        members = specs if family == "repo" else [t.name for t in tasks if t.family == family]
        held = HELD_OUT[family]
        # the repository family holds out more than a third: a third of its first 17 tasks (6), and all 6 added later
        share = 12 if family == "repo" else -(-len(members) // 3)
        assert set(held) <= set(members) and len(held) == share, family
        assert not set(held) & set(TUNED), family  # what was tuned on is never the held-out part
    heldout = {t.name for t in select(None, kinds={"exercise", "hard", "workspace"}, split="heldout")}
    tune = {t.name for t in select(None, kinds={"exercise", "hard", "workspace"}, split="tune")}
    assert heldout == set(HELD_OUT["exercise"]) | set(HELD_OUT["hard"]) | set(HELD_OUT["workspace"])
    assert not heldout & tune and len(tune) == 59 + 54 + 10 - len(heldout)


def test_repository_tasks_plant_realistic_bugs_in_several_libraries() -> None:
    specs = load_specs()
    tasks = specs["tasks"]
    assert len(tasks) >= 15 and len({t["library"] for t in tasks}) >= 5
    assert sum(t["module_lines"] > 400 for t in tasks) >= 5
    for t in tasks:
        lib = specs["libraries"][t["library"]]
        assert lib["version"].count(".") >= 1 and t["old"] != t["new"] and t["failing"]
        assert all("::" in f for f in t["failing"]) and t["file"] not in json.dumps(t["failing"])


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_repository_task_is_built_from_pypi_and_judged_by_the_whole_suite(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    env = {**os.environ, "AGENT_BENCH_CACHE": str(tmp_path / "cache")}
    build = subprocess.run(
        [sys.executable, str(ROOT / "tests/benchmarks/scorecard/build_repo_tasks.py"), "--only", "unidecode-offset"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=800,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-3000:]
    built = tmp_path / "cache" / "repo-tasks" / "unidecode-offset"
    meta = json.loads((built / "task.json").read_text())
    assert meta["request"].startswith("Running `python -m pytest -q test_unidecode.py::test_transliterate`")
    assert "text_unidecode/__init__.py" not in meta["request"] and "assert" in meta["request"]
    assert meta["baseline_passed"] < meta["clean_passed"]
    module = built / "workspace" / "src" / "text_unidecode" / "__init__.py"
    fixed = module.read_text().replace("_replaces[codepoint]", "_replaces[codepoint-1]")
    answers = {"fixed": fixed, "broken": "raise ImportError('rewritten')\n"}
    verdicts = {}
    for name, code in answers.items():
        fake_llm.script(Reply.text(f"src/text_unidecode/__init__.py\n```python\n{code}```"))
        out = tmp_path / f"{name}.json"
        done = subprocess.run(
            [sys.executable, str(SCRIPT), "--base-url", fake_llm.url, "--systems", "wholefile", "--kinds", "repo",
             "--timeout", "120", "--json", str(out)],
            capture_output=True, text=True, cwd=ROOT, env=env, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        [row] = json.loads(out.read_text())["rows"]
        verdicts[name] = (row["passed_1"], row["damaged"])
        first = fake_llm.chat_requests()[-1].json["messages"][0]["content"]
        assert "test_unidecode.py::test_transliterate" in first and "__init__.py" not in first.split("```")[0]
    assert verdicts == {"fixed": (True, False), "broken": (False, True)}
