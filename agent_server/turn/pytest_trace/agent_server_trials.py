"""Tries candidate fixes of one file against the tests, without writing any into the workspace, and stops at the first
that works: `python agent_server_trials.py <folder> [--first <named tests command>] -- <test command>`.

`<folder>/trials.json` (written by agent-server's `fix_trials.py`) names the tests that must pass (`named`, as the
request gave them: node ids, or none for "every test the command runs") and the candidates, each a JSON file `{real
path: source}` in that folder. The test command runs once as it is (the baseline), then once per candidate with that
source imported in place of the file (the pytest plugin beside this file, AGENT_SERVER_OVERLAY), each test's outcome
written by the plugin (AGENT_SERVER_OUTCOMES); a candidate's run is given five times the baseline's time (ten seconds at
least), so that one that loops costs little. With `--first`, a candidate runs the named tests alone first (the request's
own command) and the whole files only when they pass. When the spec names files (`spectrum`: real paths), the
baseline also records which of their lines each test ran, and `<folder>/spectrum.json` gets, for each line a failing
named test ran, how many failing named tests and how many passing tests ran it (`fix_spectrum.py` ranks the lines to
try next by it). With `--compare` (no candidates), it runs the command with the
files as they were before a turn (`before.json`) and as they are, and prints `worse` or `not worse`. A candidate works
when every named test passes and no test fails that passed in the baseline. The last line printed is `fix: <candidate
file>` or `no fix`. Standalone (the standard library only): agent-server runs it as a command the user sees and
approves.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

PLUGIN = "agent_server_trace"
MIN_CANDIDATE_S = 10.0  # the least a candidate's run is given
SLOWER = 5.0  # how many times the baseline's time a candidate's run is given


def run(
    folder: Path, command: str, overlay: str | None, tag: str, timeout_s: float, spectrum: bool = False
) -> dict[str, str] | None:
    """Each test's outcome for one run of `command` (with `overlay` imported in place of its file; with `spectrum`,
    the lines of `<folder>/spectrum-files.json` each test ran, in `<folder>/spectrum-raw*.json`); None when the run
    made no report (it could not start, or timed out)."""
    out = folder / f"outcomes-{tag}.json"
    env = dict(os.environ)
    for name in ("AGENT_SERVER_SPECTRUM", "AGENT_SERVER_SPECTRUM_FILES"):
        env.pop(name, None)
    if spectrum:
        env["AGENT_SERVER_SPECTRUM"] = str(folder / "spectrum-raw")
        env["AGENT_SERVER_SPECTRUM_FILES"] = str(folder / "spectrum-files.json")
    here = str(Path(__file__).resolve().parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH", "")) if p)
    env["AGENT_SERVER_OUTCOMES"] = str(out)
    env.pop("AGENT_SERVER_TRACE_OUT", None)
    if overlay is not None:
        env["AGENT_SERVER_OVERLAY"] = str(folder / overlay)
    else:
        env.pop("AGENT_SERVER_OVERLAY", None)
    try:
        # Its own process group, so that a run stopped at its time takes the tests the shell started with it (the
        # shell alone would leave them running); the driver's SIGTERM handler stops the current one's group too.
        child = subprocess.Popen(
            f"{command} -p {PLUGIN}",
            shell=True,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            process_group=0,
        )
    except OSError:
        return None
    _running[:] = [child]
    try:
        child.wait(timeout=timeout_s)
        seen = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    finally:
        _stop(child)
        _running.clear()
    return {str(k): str(v) for k, v in seen.items()} if isinstance(seen, dict) else None


_running: list[subprocess.Popen[bytes]] = []


def _stop(child: subprocess.Popen[bytes]) -> None:
    """The run's whole process group killed (whatever of it is left), and the run reaped."""
    with contextlib.suppress(OSError):
        os.killpg(child.pid, signal.SIGKILL)
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        child.wait(timeout=5)


def _on_term(signum: int, frame: object) -> None:
    """Stopped (the run_command's timeout, a cancelled turn): the current run's group with it."""
    for child in list(_running):
        _stop(child)
    sys.exit(128 + signum)


def is_named(nodeid: str, named: list[str]) -> bool:
    """Whether pytest's `nodeid` is one of the tests the request named (`tests/t.py::test_x` names its parametrized
    cases too; a node id given from another folder than pytest's root matches by its tail)."""
    bare = nodeid.split("[", 1)[0]
    for name in named:
        if nodeid == name or bare == name or nodeid.endswith("/" + name) or bare.endswith("/" + name):
            return True
        if name.endswith("/" + bare) or name.endswith("/" + nodeid):
            return True
    return False


def works(baseline: dict[str, str], trial: dict[str, str], named: list[str]) -> bool:
    """The candidate passes every named test (every test, when none is named) and fails none the baseline passed."""
    wanted = [n for n in trial if is_named(n, named)] if named else list(trial)
    if not wanted or any(trial[n] != "passed" for n in wanted):
        return False
    if named and not all(any(is_named(n, [name]) for n in wanted) for name in named):
        return False  # a named test the candidate's run did not run (it broke the test's import)
    lost = [n for n, outcome in baseline.items() if outcome == "passed" and trial.get(n) != "passed"]
    return not lost


def compare(folder: Path, command: str, timeout_s: float) -> int:
    """`--compare`: the test command with the files as they were before the turn (`before.json`, imported in place)
    and as they are now; `worse` when a test that passed before no longer does, or the run no longer finishes."""
    started = time.monotonic()
    before = run(folder, command, "before.json", "before", timeout_s)
    each_s = _given(timeout_s, started)
    after = run(folder, command, None, "after", each_s)
    for name, outcomes in (("before", before), ("after", after)):
        print(f"{name}: " + (_count(outcomes, "tests fail") if outcomes else f"no report (or over {each_s:.0f} s)"))
    if before is None:
        print("not worse")  # nothing to compare with
        return 0
    lost = [n for n, v in before.items() if v == "passed" and (after is None or after.get(n) != "passed")]
    print("worse" if after is None or lost else "not worse")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) > 2 and argv[1] == "--compare" and argv[2] == "--":
        folder = Path(argv[0])
        spec = json.loads((folder / "trials.json").read_text(encoding="utf-8"))
        signal.signal(signal.SIGTERM, _on_term)
        return compare(folder, " ".join(argv[3:]), float(spec.get("timeout_s", 120)))
    first = None
    if len(argv) > 3 and argv[1] == "--first":
        first, argv = argv[2], [argv[0], *argv[3:]]
    if len(argv) < 3 or argv[1] != "--":
        print(
            "usage: agent_server_trials.py <folder> [--first <named tests command>] -- <test command>", file=sys.stderr
        )
        return 2
    folder, command = Path(argv[0]), " ".join(argv[2:])
    spec = json.loads((folder / "trials.json").read_text(encoding="utf-8"))
    named = [str(n) for n in spec.get("named", [])]
    timeout_s = float(spec.get("timeout_s", 120))
    signal.signal(signal.SIGTERM, _on_term)
    started = time.monotonic()
    files = [str(f) for f in spec.get("spectrum", [])]
    if files:
        (folder / "spectrum-files.json").write_text(json.dumps(files), encoding="utf-8")
    baseline = run(folder, command, None, "baseline", timeout_s, spectrum=bool(files))
    if files and baseline is not None:
        write_spectrum(folder, baseline, named)
    if baseline is None:
        print("the test command made no report: no trial run")
        print("no fix")
        return 1
    # A candidate that makes the tests loop (a negated `while`) is stopped long before the limit of a whole run:
    # a hundred of them must not cost a minute each.
    each_s = _given(timeout_s, started)
    print(f"baseline: {sum(v == 'failed' for v in baseline.values())} of {len(baseline)} tests fail")
    for i, candidate in enumerate(spec.get("candidates", [])):
        if first is not None and named:
            # The named tests alone first: most candidates fail them, in a fraction of the files' run.
            quick = run(folder, first, str(candidate), f"{i}-named", each_s)
            if quick is None or not works({}, quick, named):
                failed = "the run made no report" if quick is None else _count(quick, "named tests fail")
                print(f"{candidate}: {failed}")
                continue
        trial = run(folder, command, str(candidate), str(i), each_s)
        if trial is None:
            print(f"{candidate}: the run made no report (or took over {each_s:.0f} s)")
            continue
        print(f"{candidate}: {_count(trial, 'tests fail')}")
        if works(baseline, trial, named):
            print(f"fix: {candidate}")
            return 0
    print("no fix")
    return 1


def write_spectrum(folder: Path, baseline: dict[str, str], named: list[str]) -> None:
    """`<folder>/spectrum.json`: for each line the failing tests ran (the named ones, when tests are named), how many
    of them ran it and how many passing tests did, from the baseline's raw records."""
    failing = {n for n, v in baseline.items() if v == "failed" and (not named or is_named(n, named))}
    lines: dict[str, dict[str, list[int]]] = {}
    for raw in sorted(folder.glob("spectrum-raw*.json")):
        try:
            record = json.loads(raw.read_text(encoding="utf-8"))
            tests = [(str(t[0]), str(t[1])) for t in record["tests"]]
            hits = record["hits"]
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            continue
        for path, numbers in hits.items():
            for number, indices in numbers.items():
                ran = [tests[i][0] for i in indices if 0 <= i < len(tests)]
                failed = sum(t in failing for t in ran)
                passed = sum(baseline.get(t) == "passed" for t in ran)
                if failed:
                    counts = lines.setdefault(path, {}).setdefault(str(number), [0, 0])
                    counts[0] += failed
                    counts[1] += passed
    spectrum = {"failing": len(failing), "lines": lines}
    (folder / "spectrum.json").write_text(json.dumps(spectrum), encoding="utf-8")


def _given(timeout_s: float, started: float) -> float:
    """The time a later run is given: SLOWER times the first run (begun at `started`), MIN_CANDIDATE_S at least."""
    return min(timeout_s, max(MIN_CANDIDATE_S, SLOWER * (time.monotonic() - started)))


def _count(outcomes: dict[str, str], what: str) -> str:
    return f"{sum(v == 'failed' for v in outcomes.values())} of {len(outcomes)} {what}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
