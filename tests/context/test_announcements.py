"""The announcement detector (agent/analysis.py) on a corpus of real and constructed end-of-answer texts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_server.turn.guards.analysis import analyze, announces_next_step

CORPUS = json.loads((Path(__file__).parent / "announcement_corpus.json").read_text(encoding="utf-8"))


def test_corpus_is_big_enough_and_cites_real_reports() -> None:
    assert len(CORPUS["announcements"]) >= 40 and len(CORPUS["final_answers"]) >= 40
    assert sum(1 for x in CORPUS["announcements"] if x["source"].startswith("https://github.com/")) >= 10


def test_recall_on_announcements_is_at_least_95_percent() -> None:
    texts = [x["text"] for x in CORPUS["announcements"]]
    missed = [t for t in texts if analyze(t).verdict != "incomplete"]
    assert 1 - len(missed) / len(texts) >= 0.95, missed


def test_false_positives_on_final_answers_are_at_most_5_percent() -> None:
    texts = [x["text"] for x in CORPUS["final_answers"]]
    flagged = [t for t in texts if analyze(t).verdict != "ok"]
    assert len(flagged) / len(texts) <= 0.05, flagged


# Not in the corpus: the detector must not be tuned to its exact sentences.
@pytest.mark.parametrize(
    ("text", "announces"),
    [
        ("I will now read pyproject.toml and then bump the version.", True),
        ("Next, I'll open `docs/index.md` to check the links.", True),
        ("Let me view lib/core/engine.rs.", True),
        ("Okay, let me first grep for `unwrap()` in src/.", True),
        ("I'm going to rewrite the loop in worker.py to use asyncio.gather.", True),
        ("Running the migrations now.", True),
        ("I'll run the tests after that:", True),
        ("The version in pyproject.toml is 0.3.1.", False),
        ("I read pyproject.toml: the version is 0.3.1, and nothing else needs a bump.", False),
        ("Let me know if the links in docs/index.md should point to the new site.", False),
        ("Should I also update the changelog?", False),
        ("I'll be glad to help with the next step.", False),
        ("Here is the new loop:\n\n```python\nawait asyncio.gather(*jobs)\n```", False),
        ("I won't change worker.py, since the loop is already concurrent.", False),
        ("I'll explain: the function returns None when the list is empty.", False),
        ("I'm still seeing the error in the logs, so the fix did not help.", False),
        ("Everything is working now.", False),
        ("Nothing else needs changing now.", False),
        ("Let me summarize: the bug was in parse() in lexer.py.", False),
    ],
)
def test_unseen_examples(text: str, announces: bool) -> None:
    assert announces_next_step(text) is announces
    assert (analyze(text).verdict == "incomplete") is announces


def test_only_the_end_of_the_answer_counts() -> None:
    early = "Let me read config.py first. " + "It sets the port to 8080 and the log level to INFO. " * 3
    assert analyze(early).verdict == "ok"
    assert analyze("The port is 8080. Now I'll update it in config.py.").verdict == "incomplete"
