"""HTML to markdown in a child process, with a deadline and a memory limit.

markdownify and BeautifulSoup are pure Python and hold the GIL: a 2 MB page of `<br>` or one long table keeps them
busy for tens of seconds and hundreds of megabytes, so a thread would stop the server from answering just as well
as the event loop would. The conversion runs in a child Python (`-I`: no workspace module, no PYTHON* variable can
reach it; started from `/`) limited in address space and CPU time, fed the page on stdin, read back up to a bound,
and killed with its process group when the deadline passes. The server keeps answering meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys

from ..errors import ToolError

DROP = ["script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed", "form", "head"]
MEMORY_BYTES = 1 << 30
"""The child's address space: a page that needs more fails with a clear error instead of growing the machine."""
MIN_SECONDS = 5.0
"""Starting the child takes part of the deadline: it gets at least this much."""
_BLANKS = re.compile(r"\n{3,}")
_OUT_OF_MEMORY, _TOO_DEEP = 3, 4


def to_markdown(html: str) -> tuple[str, str]:
    """(title, markdown) of an HTML page. Runs in the child; call `convert` from the server."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(strip=True) if soup.title else ""
    for tag in soup(DROP):
        tag.decompose()
    text = MarkdownConverter(heading_style="ATX", bullets="-", strip=["img"]).convert_soup(soup)
    text = "\n".join(line.rstrip() for line in text.splitlines())
    return title, _BLANKS.sub("\n\n", text).strip()


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def _exchange(process: asyncio.subprocess.Process, data: bytes, limit: int) -> bytes:
    """Feed `data`, read at most `limit` bytes back, wait for the exit."""
    assert process.stdin is not None and process.stdout is not None

    async def feed() -> None:
        assert process.stdin is not None
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            process.stdin.write(data)
            await process.stdin.drain()
            process.stdin.close()

    feeding = asyncio.ensure_future(feed())
    out = bytearray()
    try:
        while chunk := await process.stdout.read(1 << 16):
            out += chunk
            if len(out) > limit:
                raise ToolError(f"the page's markdown would be larger than {limit} bytes; it was not converted")
        await feeding
    finally:
        feeding.cancel()
    await process.wait()
    return bytes(out)


async def convert(html: str, seconds: float) -> tuple[str, str]:
    """(title, markdown) of `html`, converted by a child process within `seconds` (at least MIN_SECONDS)."""
    seconds = max(seconds, MIN_SECONDS)
    data = html.encode("utf-8", errors="replace")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-I", "-m", __name__, str(int(seconds) + 2),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        cwd="/", start_new_session=True,  # its own group: a kill at the deadline takes everything it started
    )  # fmt: skip
    try:
        async with asyncio.timeout(seconds):
            out = await _exchange(process, data, 4 * len(data) + (1 << 16))
    except TimeoutError:
        raise ToolError(
            f"converting the page to markdown took longer than {seconds:g} s (tools.fetch_timeout_s) and was stopped"
        ) from None
    finally:
        if process.returncode is None:
            _kill(process)
            await process.wait()
    if process.returncode == _OUT_OF_MEMORY:
        raise ToolError(f"the page needs more than {MEMORY_BYTES >> 20} MB to convert to markdown; it was not read")
    if process.returncode == _TOO_DEEP:
        raise ToolError("the page's HTML is nested too deeply to convert to markdown")
    if process.returncode != 0:
        raise ToolError(f"converting the page to markdown failed (exit status {process.returncode})")
    title, _, text = out.decode("utf-8", errors="replace").partition("\n")
    return title, text


def _child(cpu_seconds: int) -> int:
    """The child: limits first, then stdin (an HTML page) to stdout (its title line, then its markdown)."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))  # if the server dies before its deadline
    try:
        title, text = to_markdown(sys.stdin.buffer.read().decode("utf-8", errors="replace"))
    except MemoryError:
        return _OUT_OF_MEMORY
    except RecursionError:
        return _TOO_DEEP
    sys.stdout.buffer.write(" ".join(title.split()).encode() + b"\n" + text.encode("utf-8", errors="replace"))
    return 0


if __name__ == "__main__":
    sys.exit(_child(int(sys.argv[1])))
