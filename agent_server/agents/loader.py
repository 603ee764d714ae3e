"""Profiles from files: built-in ones shipped with the package, the user's (config dir) and the workspace's
(`.agent-server/agents/NAME.md`). A later scope replaces an earlier one of the same name. A file with an error is
reported (file, key, expected form) and skipped; the others still load.

A workspace profile comes with the repository, so it may tighten but not loosen: its `allow` permissions apply only
once the user trusted that file (per workspace and file content, like `.agent-server.toml`); until then they are
dropped with a notice. Until then it cannot replace a built-in or user profile of the same name either (a
workspace `plan.md` would turn the read-only plan mode into one with every tool): it is reported and skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import platformdirs
import yaml
from pydantic import ValidationError

from ..errors import AgentServerError, SandboxError
from ..tools.sandbox import FileTooLargeError, read_regular
from .profile import PermissionRule, Profile, ProfileSpec, Scope

BUILTIN_DIR = Path(__file__).parent / "builtin"
WORKSPACE_DIR = Path(".agent-server") / "agents"
MAX_FILE_BYTES = 64_000
TrustCheckFn = Callable[[Path, Path], bool]  # (workspace, profile file) -> trusted?


class ProfileError(AgentServerError, ValueError):
    """A profile file that cannot be used; the message names the file and the key."""


def user_dir() -> Path:
    return Path(platformdirs.user_config_dir("agent-server")) / "agents"


def parse_profile(text: str, path: Path | None, scope: Scope) -> Profile:
    where = str(path) if path else "profile"
    if not text.startswith("---"):
        raise ProfileError(f"{where}: must start with YAML frontmatter between '---' lines (name, description, ...)")
    parts = text.split("\n---", 1)
    if len(parts) != 2:
        raise ProfileError(f"{where}: the frontmatter has no closing '---' line")
    head, body = parts[0][3:], parts[1]
    body = body.split("\n", 1)[1] if "\n" in body else ""
    try:
        data = yaml.safe_load(head) or {}
    except yaml.YAMLError as exc:
        raise ProfileError(f"{where}: the frontmatter is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ProfileError(f"{where}: the frontmatter must be a mapping of keys (name: ..., tools: [...])")
    if "name" not in data and path is not None:
        data["name"] = path.stem
    try:
        spec = ProfileSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "frontmatter"
        raise ProfileError(f"{where}: {key}: {first['msg']}") from None
    if path is not None and spec.name != path.stem:
        raise ProfileError(f"{where}: name: {spec.name!r} differs from the file name; name it {spec.name}.md")
    return Profile(spec=spec, prompt=body.strip(), scope=scope, path=path)


@dataclass
class Catalog:
    """Every usable profile by name, and what could not be loaded."""

    profiles: dict[str, Profile] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def get(self, name: str) -> Profile:
        profile = self.profiles.get(name)
        if profile is None:
            names = ", ".join(sorted(self.profiles))
            raise ProfileError(f"no agent profile named {name!r}; the profiles are: {names}")
        return profile


def _read_dir(directory: Path, scope: Scope, catalog: Catalog) -> None:
    if not directory.is_dir():
        return
    for path in sorted(directory.glob("*.md")):
        try:
            # Only a regular file, and only so much of it: a profile linked to /dev/zero or a FIFO must not hang us.
            data = read_regular(path, MAX_FILE_BYTES)
            profile = parse_profile(data.decode("utf-8"), path, scope)
        except FileTooLargeError:
            catalog.errors.append(f"{path}: larger than {MAX_FILE_BYTES} bytes")
            continue
        except (OSError, UnicodeDecodeError, SandboxError) as exc:
            catalog.errors.append(f"{path}: cannot be read: {exc}")
            continue
        except ProfileError as exc:
            catalog.errors.append(str(exc))
            continue
        catalog.profiles[profile.name] = profile


def loosening(profile: Profile) -> list[PermissionRule]:
    """The rules that would let something run without asking: what a workspace profile needs trust for."""
    return [r for r in profile.rules() if r.policy == "allow"]


def without_loosening(profile: Profile, workspace: Path) -> Profile:
    dropped = loosening(profile)
    if not dropped:
        return profile
    kept = [r for r in profile.rules() if r.policy != "allow"]
    names = ", ".join(f"{r.tool}{' ' + r.pattern if r.pattern else ''}" for r in dropped)
    notice = (
        f"Agent profile {profile.name} ({profile.path}) allows {names} without asking: ignored until you trust it "
        f"(`agent-server agents trust {profile.name} --workspace {workspace}`)."
    )
    spec = profile.spec.model_copy(update={"permissions": kept})
    return replace(profile, spec=spec, notices=(*profile.notices, notice))


def load_catalog(workspace: Path | None, trusted: TrustCheckFn | None = None, user: Path | None = None) -> Catalog:
    """Built-in < user < workspace. `trusted(workspace, file)` says whether a workspace profile file is trusted."""
    catalog = Catalog()
    _read_dir(BUILTIN_DIR, "builtin", catalog)
    _read_dir(user or user_dir(), "user", catalog)
    if workspace is not None:
        found = Catalog()
        _read_dir(workspace / WORKSPACE_DIR, "workspace", found)
        catalog.errors.extend(found.errors)
        for name, profile in found.profiles.items():
            assert profile.path is not None
            below = catalog.profiles.get(name)
            if below is None and not loosening(profile):
                catalog.profiles[name] = profile
                continue
            if trusted is not None and trusted(workspace, profile.path):
                catalog.profiles[name] = profile
            elif below is not None:
                # `plan.md` in a cloned repository must not turn the read-only plan mode into one that writes.
                catalog.errors.append(
                    f"{profile.path}: would replace the {below.scope} profile {name!r}; ignored until you trust it "
                    f"(`agent-server agents trust {name} --workspace {workspace}`)"
                )
            else:
                catalog.profiles[name] = without_loosening(profile, workspace)
    return catalog
