"""Answers of the kinds real models give to coding questions, for calibrating the repetition guard: none may be cut."""

from __future__ import annotations

LOG_LINE = "2024-05-01 12:00:01 WARN  pool-1 Connection refused: localhost/127.0.0.1:5432, retrying in 5s\n"

ANSWERS: dict[str, str] = {
    "markdown_table": "Here is the comparison you asked for:\n\n"
    + "| Setting | Default | Range | Meaning |\n|---|---|---|---|\n"
    + "".join(f"| `opt_{i}` | {i * 10} | 0–{i * 100} | option number {i} of the pool |\n" for i in range(1, 40))
    + "\nAll values are in milliseconds.\n",
    "wide_table": "| "
    + " | ".join(f"c{i}" for i in range(30))
    + " |\n|"
    + "---|" * 30
    + "\n"
    + "".join("| " + " | ".join("0" for _ in range(30)) + " |\n" for _ in range(25)),
    "numbered_list": "Steps:\n\n"
    + "".join(f"{i}. Run `make test-{i}` and check that step {i} passes before moving on.\n" for i in range(1, 31)),
    "nested_bullets": "".join(
        f"- Module `{m}`\n  - reads its config\n  - validates input\n  - writes results\n"
        for m in ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda"]
    ),
    "repeated_log_lines": "The service keeps logging this while the database is down:\n\n```\n"
    + LOG_LINE * 12
    + "```\n\nStart PostgreSQL first (`systemctl start postgresql`) and the warnings stop.\n",
    "log_with_counters": "```\n"
    + "".join(f"[{i:04d}] GET /api/items?page={i} 200 {12 + i % 7}ms\n" for i in range(60))
    + "```\n",
    "python_code": "```python\n"
    + "\n\n".join(
        f"def test_case_{i}(client):\n    response = client.get('/items/{i}')\n    assert response.status_code == 200\n"
        f"    assert response.json()['id'] == {i}\n"
        for i in range(20)
    )
    + "```\n",
    "zero_matrix": "```python\nIDENTITY = [\n"
    + "".join("    [" + ", ".join("1" if r == c else "0" for c in range(12)) + "],\n" for r in range(12))
    + "]\n```\n",
    "ruler_and_headings": "\n".join(f"{'=' * 79}\nSection {i}\n{'=' * 79}\nText of section {i}.\n" for i in range(8)),
    "json_array": "```json\n["
    + ", ".join(f'{{"id": {i}, "name": "item-{i}", "tags": ["a", "b"], "active": true}}' for i in range(40))
    + "]\n```\n",
    "css": "```css\n"
    + "".join(
        f".col-{i} {{\n  flex: 0 0 {i * 100 / 12:.4f}%;\n  max-width: {i * 100 / 12:.4f}%;\n}}\n" for i in range(1, 13)
    )
    + "```\n",
    "sql_inserts": "```sql\n"
    + "".join(f"INSERT INTO users (id, name, active) VALUES ({i}, 'user{i}', TRUE);\n" for i in range(30))
    + "```\n",
    "prose": (
        "The function reads the configuration once at start-up and caches it. When the file changes on disk, the "
        "watcher thread notices the new modification time, parses the file again and swaps the cached object "
        "atomically, so readers never see a half-updated configuration. Errors during the re-read are logged and "
        "the previous configuration stays in effect. "
    )
    * 2,
}

# What looping small models really emit (SmolLM2-135M and friends), which must be cut.
LOOPS: dict[str, str] = {
    "one_word": "Sure! The answer is " + "the " * 400,
    "sentence": "Let me explain. " + "I am a helpful assistant and I will help you with your question. " * 60,
    "numbered_same_line": "".join(f"{i}. The file is empty.\n" for i in range(1, 120)),
    "phrase_variations": " ".join(
        ["I can help you.", "I can help you!", "I can help you?", "I can help you..."][i % 4] for i in range(200)
    ),
    "newlines": "Answer:" + "\n" * 4000,
    "code_loop": "```python\nimport os\n" + "import os.path\n" * 600,
}
