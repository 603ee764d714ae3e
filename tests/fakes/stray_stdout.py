"""A `sitecustomize.py` that plays a library writing to file descriptor 1 while the server process loads: the
moment `module` starts to import (long before the server is built), and, with `later`, once more 1.5 s on, as a
raw write and a print. Put its folder on PYTHONPATH of the server process."""

from __future__ import annotations

from pathlib import Path

WHILE_LOADING = "STRAY BYTES WHILE LOADING"
LATER = "STRAY BYTES FROM A LIBRARY"
PRINTED = "a stray print"


def site_folder(where: Path, module: str, later: bool = False) -> Path:
    site = where / "site"
    site.mkdir()
    after = (
        f'    time.sleep(1.5)\n    os.write(1, b"{LATER}\\n")\n    print("{PRINTED}", flush=True)\n' if later else ""
    )
    (site / "sitecustomize.py").write_text(
        "import os, sys, threading, time\n"
        "def _stray():\n"
        "    deadline = time.monotonic() + 20\n"
        f"    while {module!r} not in sys.modules and time.monotonic() < deadline:\n"
        "        time.sleep(0.001)\n"
        f'    os.write(1, b"{WHILE_LOADING}\\n")\n'
        f"{after}"
        "threading.Thread(target=_stray, daemon=True).start()\n"
    )
    return site
