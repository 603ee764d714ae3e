"""The repetition guard cuts loops early and never cuts a real answer: calibrated on real text of every kind."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

import pytest

from agent_server.messages import ToolCall
from agent_server.turn.guards.repeated_calls import CallRepeats
from agent_server.turn.guards.repetition import Loop, RepetitionGuard, trimmed
from tests.turn.guards.real_answers import ANSWERS, LOOPS

ROOT = Path(__file__).resolve().parents[3]
RECORDED = ROOT / "tests" / "fakes" / "recorded"


def stream(text: str, piece: int) -> tuple[Loop | None, int]:
    """Feed `text` as a model streams it, `piece` characters per token; (the loop found, characters fed then)."""
    guard = RepetitionGuard()
    for i in range(0, len(text), piece):
        if (loop := guard.feed(text[i : i + piece])) is not None:
            return loop, i + piece
    return None, len(text)


@pytest.mark.parametrize("piece", [1, 4, 11])
@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_real_answers_are_never_cut(name: str, piece: int) -> None:
    loop, _ = stream(ANSWERS[name], piece)
    assert loop is None, f"{name} was cut: {loop}"


def corpus() -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    picked = [stdlib / n for n in ("argparse.py", "textwrap.py", "difflib.py", "typing.py", "pydoc_data/topics.py")]
    picked += [stdlib / "encodings" / "aliases.py", stdlib / "encodings" / "cp1252.py", stdlib / "json" / "encoder.py"]
    ours = sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "agent_server").rglob("*.py"))
    return [p for p in picked + ours if p.is_file()]


def test_code_and_docs_of_this_repository_and_the_standard_library_are_never_cut() -> None:
    """Source files and docs stand in for long code answers: tables of aliases, encodings, repetitive tests."""
    files = corpus()
    assert len(files) > 50
    cut = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")[:300_000]
        loop, at = stream(text, 5)
        if loop is not None:
            cut.append(f"{path} at {at}: {loop}")
    assert not cut, "\n".join(cut)


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_loops_are_stopped_early(name: str) -> None:
    text = LOOPS[name]
    loop, at = stream(text, 4)
    assert loop is not None, f"{name} was not detected"
    # Early: within a few thousand characters of where the loop began, long before the text (the token limit) ends.
    assert at - loop.start <= 4000 and at < len(text) * 0.8
    kept = trimmed(text[:at], loop)
    assert len(kept) < at and text.startswith(kept[: loop.start])


def test_a_long_block_said_again_and_again_inside_code_is_cut() -> None:
    """A files-format answer (a code block) where a 0.5B model wrote one 97-character block 37 times: a block, not a
    line, repeated back to back is a loop even in code, and is cut before its 37th copy."""
    block = "    def push(self, item):\n        self.items.append(item)\n        return len(self.items)  # len\n\n"
    assert len(block) == 97
    head = "queue.py\n```python\nclass Queue:\n    def __init__(self):\n        self.items = []\n\n"
    text = head + block * 37 + "```\n"
    loop, at = stream(text, 4)
    assert loop is not None and sorted(loop.span.splitlines()) == sorted(block.splitlines()), loop
    assert at < len(head) + 30 * len(block), "cut well before the model finished its 37 copies"
    # Ten copies of a block are still code (a test file of near-identical cases): not cut.
    assert stream(head + block * 10 + "```\n", 4)[0] is None


def recorded_loops() -> list[Path]:
    return sorted(RECORDED.glob("loop_*.txt"))


@pytest.mark.parametrize("path", recorded_loops(), ids=lambda p: p.stem)
def test_loops_recorded_from_a_real_small_model_are_stopped(path: Path) -> None:
    """Degenerate answers SmolLM2-135M gave through llama-server (tests/fakes/recorded/loop_*.txt)."""
    text = path.read_text(encoding="utf-8")
    loop, at = stream(text, 4)
    assert loop is not None and at < len(text)


def test_trimmed_keeps_the_text_before_the_loop_and_one_copy() -> None:
    text = "Intro. " + "again " * 300
    loop, at = stream(text, 6)
    assert loop is not None and loop.span.strip() == "again"
    assert trimmed(text[:at], loop).split() == ["Intro.", "again"]
    assert "again" in loop.describe() and str(loop.repeats) in loop.describe()


def call(name: str, **args: object) -> ToolCall:
    return ToolCall(id=f"c{len(args)}", name=name, arguments=dict(args))


def test_the_third_identical_call_earns_a_nudge_and_the_fourth_stops() -> None:
    repeats = CallRepeats()
    read = call("read_file", path="a.py")
    assert repeats.check([read]) == ("ok", None)
    assert repeats.check([call("read_file", path="a.py")]) == ("ok", None)
    assert repeats.check([read]) == ("nudge", read)
    assert "3 times" in repeats.nudge_text(read) and '"path": "a.py"' in repeats.nudge_text(read)
    assert repeats.check([read])[0] == "stop"


def test_argument_order_does_not_hide_a_repeat_and_any_other_call_resets() -> None:
    repeats = CallRepeats()
    a1 = ToolCall(id="1", name="grep", arguments={"pattern": "x", "path": "."})
    a2 = ToolCall(id="2", name="grep", arguments={"path": ".", "pattern": "x"})
    other = call("read_file", path="b.py")
    assert [repeats.check([c])[0] for c in (a1, a2, other, a1, a2)] == ["ok"] * 5
    assert repeats.check([a1])[0] == "nudge"
    # The same call three times in one reply counts too.
    fresh = CallRepeats()
    assert fresh.check([a1, a2, a1])[0] == "nudge"
    assert fresh.check([a1])[0] == "stop"


def test_a_whole_answer_of_several_calls_repeated_is_a_loop_too() -> None:
    """The real_llm lane's Qwen 0.5B answered read, edit, run the tests, then the same three calls again, for 10
    rounds: no call was ever twice in a row, so only the cycle shows the loop."""
    repeats = CallRepeats()
    answer = [
        call("read_file", path="calc.py"),
        call("edit_file", path="calc.py", old="-", new="+"),
        call("run_command", command="pytest"),
    ]
    assert repeats.check(answer) == ("ok", None)
    verdict, culprit = repeats.check([ToolCall(id="x", name=c.name, arguments=dict(c.arguments)) for c in answer])
    assert verdict == "nudge" and culprit is not None
    nudge = repeats.nudge_text(culprit)
    assert "same 3 tool calls" in nudge and "read_file" in nudge and "run_command" in nudge
    assert repeats.check(answer)[0] == "stop"
    assert "read_file" in repeats.stop_note(answer[-1]) and "run_command" in repeats.stop_note(answer[-1])


def test_a_cycle_over_several_answers_counts_and_a_new_call_resets_it() -> None:
    repeats = CallRepeats()
    read, run = call("read_file", path="a.py"), call("run_command", command="pytest")
    assert [repeats.check([c])[0] for c in (read, run, read)] == ["ok"] * 3
    assert repeats.check([run])[0] == "nudge"
    assert repeats.check([call("edit_file", path="a.py", old="x", new="y")])[0] == "ok"
    assert [repeats.check([c])[0] for c in (read, run, read)] == ["ok"] * 3  # new progress: counted afresh


def test_work_that_changes_between_runs_of_the_tests_is_not_a_loop() -> None:
    repeats = CallRepeats()
    verdicts = []
    for i in range(6):
        verdicts.append(repeats.check([call("edit_file", path="a.py", old=f"v{i}", new=f"v{i + 1}")])[0])
        verdicts.append(repeats.check([call("run_command", command="pytest")])[0])
    assert set(verdicts) == {"ok"}


def test_different_arguments_are_progress_not_a_loop() -> None:
    repeats = CallRepeats()
    verdicts = [repeats.check([call("read_file", path=f"f{i}.py")])[0] for i in range(30)]
    assert set(verdicts) == {"ok"}


def test_the_guard_is_cheap_enough_for_every_token() -> None:
    """Not a timing assertion: the guard only does real work every CHECK_EVERY characters."""
    guard = RepetitionGuard()
    checks = 0
    text = ANSWERS["prose"] * 20
    for i in range(0, len(text), 3):
        before = guard._total
        guard.feed(text[i : i + 3])
        checks += guard._total != before
    assert checks <= len(text) // 100 + 1
    assert sys.getsizeof(guard._tail) < 64_000
