"""What a bug report says about where to look: its reproducer's test file, vendored libraries it names, the words
it keeps coming back to, the rules of pasted terminal output. Real indexes on disk, ranked files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from agent_server.index import WorkspaceIndex
from agent_server.index.entities import is_vendored_path
from agent_server.index.query import parse_query
from agent_server.index.search import salience


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


async def files_for(index: WorkspaceIndex, request: str, limit: int = 10) -> list[str]:
    return [f.path for f in await index.search_files(request, limit)]


def filler(root: Path, n: int = 15) -> None:
    for i in range(n):
        write(root, f"pkg/filler_{i}.py", f"def filler_{i}(item):\n    return item.name + 'plain {i}'\n")


async def test_a_reproducer_test_file_in_the_report_does_not_promote_the_projects_tests(
    workspace: Path, tmp_path: Path
) -> None:
    write(
        workspace,
        "pkg/rounding.py",
        "def round_invoice(invoice):\n    # invoice totals are rounded half up to cents\n"
        "    return round(invoice.total, 2)\n",
    )
    # The project's test says the report's words more often than the code does.
    write(
        workspace,
        "tests/test_rounding.py",
        "from pkg.rounding import round_invoice\n\n\ndef test_round_invoice_total_cents():\n"
        "    # invoice total cents rounding: the invoice total is rounded to cents, invoice total cents\n"
        "    assert round_invoice(Invoice(total=1.005)) == 1.01  # invoice total cents\n",
    )
    filler(workspace)
    report = (
        "round_invoice loses a cent on some invoice totals\n\n"
        "```python\n# file: test_repro.py\nfrom pkg.rounding import round_invoice\n\n"
        "def test_total():\n    assert round_invoice(Invoice(total=2.675)) == 2.68\n```\n\n"
        "test_repro.py:5: AssertionError: invoice total cents\n"
    )
    index = WorkspaceIndex(workspace, tmp_path / "i.db")
    await index.build()
    try:
        ranked = await files_for(index, report)
        assert ranked[0] == "pkg/rounding.py", ranked
        assert ranked.index("tests/test_rounding.py") > 0
        # Naming the project's own test file is asking for it: it is no longer demoted.
        asked = await index.search_files("tests/test_rounding.py fails: invoice total cents " + report, 10)
        score = {f.path: f.score for f in asked}
        assert score["tests/test_rounding.py"] > 0.8 * score["pkg/rounding.py"], score
    finally:
        index.close()


def test_vendored_paths() -> None:
    assert is_vendored_path("requests/packages/urllib3/exceptions.py")
    assert is_vendored_path("src/pip/_vendor/rich/console.py")
    assert is_vendored_path("third_party/zlib/zlib.h")
    assert is_vendored_path("web/node_modules/left-pad/index.js")
    assert is_vendored_path("astro/extern/ply/lex.py")
    # A monorepo's own packages and a project's own `external` helpers are first-party code.
    assert not is_vendored_path("packages/core/src/index.ts")
    assert not is_vendored_path("sympy/external/importtools.py")
    assert not is_vendored_path("requests/adapters.py")


async def test_the_projects_own_code_ranks_above_a_vendored_copy_saying_the_same(
    workspace: Path, tmp_path: Path
) -> None:
    body = (
        "class DecodeError(Exception):\n    # the response body could not be decoded\n    pass\n\n\n"
        "def decode_body(raw):\n    # decode the response body or raise DecodeError\n"
        "    raise DecodeError('cannot decode response body')\n"
    )
    write(workspace, "client/packages/netlib/errors.py", body)
    write(workspace, "client/errors.py", body)
    filler(workspace)
    index = WorkspaceIndex(workspace, tmp_path / "i.db")
    await index.build()
    try:
        request = "DecodeError when the response body cannot be decoded"
        score = {f.path: f.score for f in await index.search_files(request, 10)}
        assert score["client/packages/netlib/errors.py"] < 0.7 * score["client/errors.py"], score
        index.weights = replace(index.weights, vendored_penalty=1.0)  # the demotion is what separates them
        neutral = {f.path: f.score for f in await index.search_files(request, 10)}
        assert neutral["client/packages/netlib/errors.py"] > 0.9 * neutral["client/errors.py"], neutral
    finally:
        index.close()


async def test_the_title_and_the_words_a_report_repeats_outweigh_incidental_ones(
    workspace: Path, tmp_path: Path
) -> None:
    # `session.py` matches more of the report's words (once each); `retry.py` is about the one word the report is about.
    write(
        workspace,
        "pkg/session.py",
        "class Session:\n    def send(self, request):\n        # send the request over the pooled connection\n"
        "        # honouring the proxy settings\n        return self.pool.urlopen(request)\n",
    )
    write(
        workspace,
        "pkg/retry.py",
        "class Backoff:\n    def sleep_for(self, attempt):\n        # backoff between attempts\n"
        "        return min(self.cap, self.base * 2 ** attempt)\n",
    )
    filler(workspace)
    report = (
        "Backoff ignored behind a proxy\n\n"
        "When I send a request through a proxy on a pooled connection the response headers come back, the body "
        "is read, and the session settings look right, but there is no backoff at all: the backoff I configured "
        "never happens between attempts. With backoff set to 2 seconds the requests go out immediately.\n"
    )
    index = WorkspaceIndex(workspace, tmp_path / "i.db")
    await index.build()
    try:
        on = {f.path: f.score for f in await index.search_files(report, 5)}
        index.weights = replace(index.weights, salience=0.0)
        off = {f.path: f.score for f in await index.search_files(report, 5)}
        # Counting the title's and the repeated word more moves the backoff code up against the busy file.
        assert on["pkg/retry.py"] / on["pkg/session.py"] > 1.3 * off["pkg/retry.py"] / off["pkg/session.py"]
    finally:
        index.close()


def test_salience_counts_title_words_and_repeated_terms_once_more_each() -> None:
    q = parse_query("Slow export of ledgers\n\nThe export writes each ledger; ledger rows, ledger totals.\nmisc words")
    weight = salience(q)
    assert weight["export"] == 2  # title only (said twice)
    assert weight["ledger"] == 2  # said three times, not in the title
    assert weight["ledgers"] == 2  # title
    assert weight["misc"] == 1


def test_rules_of_underscores_in_pasted_output_are_not_words() -> None:
    q = parse_query("Failure report\n\n" + "_" * 40 + " test_total " + "_" * 41 + "\n=== 1 failed ===\n__init__ helper")
    terms = q.fts_terms()
    assert not any(set(t) <= {"_"} for t in terms), terms
    assert "test_total" in terms and "__init__" in [i for i in q.identifiers] + terms
