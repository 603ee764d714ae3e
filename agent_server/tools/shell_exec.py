"""The one shell every command runs under: bash, by an explicit path, as `bash --noprofile --norc -c COMMAND`.

The permission policy parses a command with bash's grammar (`shell_parse.py`); the command must then be run by
bash too, never by whatever `/bin/sh` is. Under dash, `ls &>/dev/null touch M` is `ls &` then `touch M`, while
bash (and the policy) read one `ls` with a redirection: a policy and a shell that parse differently let an approved
command run an unapproved one. The same argv goes to the client's terminal (ACP `terminal/create`).

Variables that would make bash run a file before the command (`BASH_ENV`, `ENV`), turn on options that change how
it parses (`SHELLOPTS`, `BASHOPTS`: `extglob`; `POSIXLY_CORRECT`), or replace a program by a function
(`BASH_FUNC_name%%`) are removed from the environment the command gets.
"""

from __future__ import annotations

import os
import shutil

# Removed from a command's environment (see the module docstring); `BASH_FUNC_*` exported functions as well.
UNSAFE_SHELL_VARIABLES = ("BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "POSIXLY_CORRECT", "PROMPT_COMMAND")
# For a client terminal we can only add variables: an empty value makes bash skip them (it reads no file for an
# empty BASH_ENV and turns on no option for an empty SHELLOPTS/BASHOPTS).
CLIENT_SHELL_ENV = {"BASH_ENV": "", "ENV": "", "SHELLOPTS": "", "BASHOPTS": ""}


class NoBashError(RuntimeError):
    """bash is not installed: commands cannot run, since no other shell parses them the way the policy does."""


def bash_path() -> str:
    """The absolute path of bash (`/bin/bash` first: a PATH entry in the workspace must not pick our shell)."""
    for candidate in ("/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash"):
        if os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("bash")
    if found is None:
        raise NoBashError("run_command needs bash (commands are checked with bash's grammar and run by bash only)")
    return os.path.realpath(found)


def shell_argv(command: str) -> list[str]:
    """The argv that runs `command` as the policy parsed it."""
    return [bash_path(), "--noprofile", "--norc", "-c", command]


def shell_env(base: dict[str, str]) -> dict[str, str]:
    """`base` without the variables that change what bash runs or how it parses."""
    return {k: v for k, v in base.items() if k not in UNSAFE_SHELL_VARIABLES and not k.startswith("BASH_FUNC_")}
