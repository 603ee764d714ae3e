"""Where an answer's code goes when the model does not say, or says it inside the block, and what an excerpt of a
file does to it (agent.edit_format = "files").

The shapes are the real Qwen2.5-Coder-0.5B answers of the scorecard's workspace tasks
(tests/fixtures/scorecard_answers.json): no path with several files shown, the path as the block's first line or as
a comment, one function for the whole file, the test file echoed back.
"""

from __future__ import annotations

import ast

from agent_server.turn.edit_blocks import Shown, edit_calls
from agent_server.turn.excerpt_merge import merged

SPAN = "def days_between(a, b):\n    return (b - a).days\n"
FORMAT = 'from .span import days_between\n\n\ndef describe(a, b):\n    n = days_between(a, b)\n    return f"{n} days"\n'
TESTS = "from cal.span import days_between\n\n\ndef test_forward():\n    assert days_between(1, 2) == 1\n"
SHOWN = [Shown("cal/format.py"), Shown("cal/span.py"), Shown("tests/test_span.py", editable=False)]
NOW = {"cal/format.py": FORMAT, "cal/span.py": SPAN, "tests/test_span.py": TESTS}


def writes(text: str, shown: list[Shown] = SHOWN, now: dict[str, str] = NOW, **kw: bool) -> dict[str, str]:
    out = {}
    for call in edit_calls(text, shown, now, **kw):
        assert call.name == "write_file"
        out[call.arguments["path"]] = call.arguments["content"]
    return out


def test_a_block_without_a_path_goes_to_the_file_that_defines_its_function() -> None:
    fixed = "def days_between(a, b):\n    return abs((b - a).days)\n"
    assert writes(f"Here is the fix:\n```python\n{fixed}```") == {"cal/span.py": fixed}


def test_a_block_whose_names_no_file_defines_is_written_nowhere() -> None:
    assert writes("```python\ndef unrelated(x):\n    return x\n```") == {}


def test_a_block_defining_names_of_two_files_equally_is_written_nowhere() -> None:
    both = "def days_between(a, b):\n    return 0\n\n\ndef describe(a, b):\n    return ''\n"
    assert writes(f"```python\n{both}```") == {}


def test_an_echoed_test_file_is_never_written_even_with_one_editable_file() -> None:
    shown = [Shown("text/slug.py"), Shown("tests/test_slug.py", editable=False)]
    now = {"text/slug.py": "def slugify(t):\n    return t\n", "tests/test_slug.py": "def test_simple():\n    pass\n"}
    echo = "# slugify.py\nfrom text.slug import slugify\n\ndef test_simple():\n    assert slugify('a') == 'a'\n"
    assert writes(f"```python\n{echo}```", shown, now) == {}


def test_a_solution_with_its_tests_appended_still_goes_to_the_solution() -> None:
    shown = [Shown("leap.py"), Shown("leap_test.py", editable=False)]
    now = {
        "leap.py": "def leap_year(y):\n    pass\n",
        "leap_test.py": "def test_a():\n    pass\n\ndef test_b():\n  pass\n",
    }
    answer = "def leap_year(y):\n    return y % 4 == 0\n\n\ndef test_a():\n    assert leap_year(4)\n\n\ndef test_b():\n    pass\n"
    assert writes(f"```python\n{answer}```", shown, now) == {"leap.py": answer}


def test_a_path_on_the_block_s_first_line_names_its_file_and_is_not_written() -> None:
    fixed = "def days_between(a, b):\n    return abs((b - a).days)\n"
    for first in ("cal/span.py", "# cal/span.py", "# File: cal/span.py", "span.py"):
        assert writes(f"```python\n{first}\n{fixed}```") == {"cal/span.py": fixed}, first


def test_path_comments_inside_one_block_split_it_into_files() -> None:
    span = "def days_between(a, b):\n    return abs((b - a).days)\n"
    fmt = FORMAT.replace("days", "days apart")
    answer = f"# cal/span.py\n{span}\n# cal/format.py\n{fmt}"
    assert writes(f"```python\n{answer}```") == {"cal/span.py": f"{span}\n", "cal/format.py": fmt}


def test_a_comment_naming_no_shown_file_is_kept_as_code() -> None:
    fixed = "# helpers.py is where this lived\ndef days_between(a, b):\n    return abs((b - a).days)\n"
    assert writes(f"cal/span.py\n```python\n{fixed}```") == {"cal/span.py": fixed}


def test_one_function_sent_for_a_file_keeps_the_rest_of_the_file() -> None:
    # describe() alone, without the import it needs: written whole, the file would lose days_between.
    one = 'def describe(a, b):\n    n = days_between(a, b)\n    return f"{n} day" + ("" if n == 1 else "s")\n'
    got = writes(f"cal/format.py\n```python\n{one}```", may_remove=False)["cal/format.py"]
    assert got.startswith("from .span import days_between\n") and '("" if n == 1 else "s")' in got
    assert got.count("def describe") == 1
    ast.parse(got)


def test_a_whole_file_answer_is_written_exactly_as_sent() -> None:
    whole = "from .span import days_between\n\n\ndef describe(a, b):\n    return str(days_between(a, b))\n"
    assert writes(f"cal/format.py\n```python\n{whole}```", may_remove=False) == {"cal/format.py": whole}


def test_an_unchanged_echo_beside_a_real_change_is_dropped() -> None:
    fixed = "def days_between(a, b):\n    return abs((b - a).days)\n"
    text = f"cal/span.py\n```python\n{fixed}```\n\ncal/format.py\n```python\n{FORMAT}```"
    assert writes(text) == {"cal/span.py": fixed}


def test_an_unchanged_file_alone_still_reaches_write_file_which_says_so() -> None:
    assert writes(f"cal/span.py\n```python\n{SPAN}```") == {"cal/span.py": SPAN}


def test_a_copy_that_only_lost_blank_lines_is_the_file_unchanged() -> None:
    # Qwen2.5-Coder-0.5B on cart: the file back under a `# path` comment, one blank line fewer, nothing fixed.
    copy = "# cal/format.py\n" + FORMAT.replace("\n\n\n", "\n\n").replace("\n", "  \n")
    assert writes(f"```python\n{copy}```") == {"cal/format.py": FORMAT}  # the exact text: write_file refuses it


def test_merge_replaces_a_function_adds_imports_and_new_functions_and_keeps_the_rest() -> None:
    original = (
        '"""Words."""\nimport re\n\nWORD = re.compile(r"[a-z]+")\n\n\n@cache\ndef words(text):\n'
        "    return WORD.findall(text)\n\n\ndef count(text):\n    return len(words(text))\n"
    )
    block = (
        "from collections import Counter\n\n\n# the fix\ndef words(text):\n    return WORD.findall(text.lower())\n\n\n"
        "def top_words(text, n):\n    return Counter(words(text)).most_common(n)\n"
    )
    got = merged(original, block, may_remove=False)
    assert got is not None
    tree = ast.parse(got)
    assert [type(n).__name__ for n in tree.body] == [
        "Expr",
        "Import",
        "ImportFrom",
        "Assign",
        "FunctionDef",
        "FunctionDef",
        "FunctionDef",
    ]
    assert "@cache" not in got  # the decorated function was replaced, decorator and all
    assert "# the fix\ndef words(text):\n    return WORD.findall(text.lower())" in got
    assert got.index("def count") < got.index("def top_words")


def test_dropping_a_function_on_request_is_no_excerpt() -> None:
    original = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    assert merged(original, "def a():\n    return 1\n", may_remove=True) is None
    assert merged(original, "def a():\n    return 1\n", may_remove=False) == original


def test_a_block_that_does_not_parse_is_not_merged() -> None:
    assert merged("def a():\n    return 1\n", "from a/b import c\ndef a(:\n", may_remove=False) is None
