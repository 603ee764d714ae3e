"""A built-in tool in one place (issue 39): a `BuiltinTool` subclass holds its typed arguments (a pydantic model; the
JSON schema the model sees is derived from it), what it does (`run`), its kind and default policy, its card's title
and locations, what a permission request shows (`preview`), its lean form and the file it reads or writes.
`builtin.py`'s BUILTINS lists them; every set of tools the server needs (what reads or writes files, what runs
commands, what changes things, the default policies) is derived from these attributes, never written out again.

The model's arguments are checked against the derived schema first (registry.py, with the messages the model
learns from); `run` and `preview` get them parsed into the model.
"""

from __future__ import annotations

import copy
import functools
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from .. import acp
from ..config import ToolsConfig
from ..errors import SandboxError, ToolError
from .base import LeanForm, Policy, Tool, ToolContext, ToolResult, Touches
from .preview import Preview
from .sandbox import resolve


class ToolArgs(BaseModel):
    """A built-in tool's arguments: unknown fields refused, each field's docstring its description for the model."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


A = TypeVar("A", bound=ToolArgs)


class BuiltinTool(Generic[A]):
    """Subclass it, set the class attributes and implement `run`; override the other hooks a tool needs."""

    name: ClassVar[str]
    description: ClassVar[str]
    args: type[A]
    kind: ClassVar[acp.ToolKind] = "other"
    policy: ClassVar[Policy] = "ask"  # the default policy: what happens when no rule or earlier answer applies
    touches: ClassVar[Touches | None] = None  # what a call does to the file or folder its `path` names
    lean: ClassVar[LeanForm | None] = None  # how the lean prompt offers it (None: as it is)
    loop_breaking: ClassVar[bool] = False  # its result ends the turn; offered by every profile
    offered: ClassVar[bool] = True  # in every session's tools; False: whoever needs it builds it (read_output)

    def __init__(self, config: ToolsConfig | None = None) -> None:
        self.config = config or ToolsConfig()

    def describe(self) -> str:
        """The description the model reads (override when it depends on the `tools.*` settings)."""
        return self.description

    def title(self, args: dict[str, Any]) -> str:
        """The card's title for a call, from its arguments as the model sent them (valid or not)."""
        return self.name

    def locations(self, ctx: ToolContext, args: dict[str, Any]) -> list[acp.ToolCallLocation]:
        """Where the card points before the call runs."""
        return []

    async def run(self, ctx: ToolContext, args: A) -> ToolResult:
        raise NotImplementedError

    async def preview(self, ctx: ToolContext, args: A) -> Preview | None:
        """What a permission request shows; raises ToolError when the call would fail anyway. None: nothing more
        than the call's title and arguments."""
        return None

    def parse(self, arguments: dict[str, Any]) -> A:
        try:
            return self.args.model_validate(arguments)
        except ValidationError as exc:  # only when called without the registry's schema check
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ToolError(f"invalid arguments for {self.name}: field '{where}': {first['msg']}") from None

    async def _run(self, ctx: ToolContext, arguments: dict[str, Any]) -> ToolResult:
        return await self.run(ctx, self.parse(arguments))

    async def _preview(self, ctx: ToolContext, arguments: dict[str, Any]) -> Preview | None:
        shown = await self.preview(ctx, self.parse(arguments))
        if shown is not None and shown.raw_input is None:
            shown.raw_input = {**arguments, **shown.resolved}
        return shown

    def _overrides(self, hook: str) -> bool:
        return getattr(type(self), hook) is not getattr(BuiltinTool, hook)

    def tool(self) -> Tool:
        """The tool as the registry holds it and the model is offered it."""
        return Tool(
            name=self.name,
            description=self.describe(),
            parameters=schema_of(self.args),
            handler=self._run,
            kind=self.kind,
            default_policy=self.policy,
            loop_breaking=self.loop_breaking,
            title=self.title if self._overrides("title") else None,
            locations=self.locations if self._overrides("locations") else None,
            preview=self._preview if self._overrides("preview") else None,
            lean=self.lean,
            touches=self.touches,
        )


# --- the JSON schema the model sees, derived from the argument model --------------------------------------------

# The order of a schema's keys: the one every built-in tool was offered with before the schemas were derived.
_KEY_ORDER = (
    "type", "enum", "items", "properties", "required", "additionalProperties",
    "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "minLength", "maxLength",
)  # fmt: skip
_DROPPED = ("title", "default")


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema as the model is offered it: nested models inline, no titles or defaults, an optional
    field as its type alone (null is never offered), every object closed and with its `required` list. A copy: the
    tools of every turn are built afresh, the schema derived once."""
    return copy.deepcopy(_derived(model))


@functools.cache
def _derived(model: type[BaseModel]) -> dict[str, Any]:
    full = model.model_json_schema()
    return _clean(full, full.get("$defs", {}))


def _clean(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in node:
        node = {**defs[node["$ref"].rsplit("/", 1)[1]], **{k: v for k, v in node.items() if k != "$ref"}}
    options = node.get("anyOf")
    if options is not None and len(options) == 2 and {"type": "null"} in options:
        (kept,) = [o for o in options if o != {"type": "null"}]
        node = {**{k: v for k, v in node.items() if k != "anyOf"}, **kept}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED or key == "$defs":
            continue
        if key == "properties":
            out[key] = {name: _clean(sub, defs) for name, sub in value.items()}
        elif key == "items":
            out[key] = _clean(value, defs)
        else:
            out[key] = value
    if out.get("type") == "object":
        out.setdefault("required", [])
        out["additionalProperties"] = False
    first = [k for k in _KEY_ORDER if k in out]
    last = [k for k in out if k not in _KEY_ORDER and k != "description"]
    return {k: out[k] for k in [*first, *last, *(["description"] if "description" in out else [])]}


# --- what several built-in tools share ----------------------------------------------------------------------------

STRING: dict[str, Any] = {"type": "string"}
INTEGER: dict[str, Any] = {"type": "integer"}


def lean_object(required: list[str], **optional: dict[str, Any]) -> dict[str, Any]:
    """A lean schema: the required arguments as strings, then the optional ones a first call needs."""
    properties = {name: STRING for name in required} | optional
    return {"type": "object", "properties": properties, "required": required}


def short(text: str, width: int = 60) -> str:
    """One line of at most `width` characters, for a card's title."""
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= width else one_line[: width - 1] + "…"


def path_location(ctx: ToolContext, args: dict[str, Any], key: str = "path") -> list[acp.ToolCallLocation]:
    """The card's location: the path argument `key` in the workspace, at `start_line` when there is one."""
    try:
        path = resolve(ctx.roots, str(args.get(key) or "."))
    except SandboxError:
        return []
    start = args.get("start_line")
    line = start - 1 if isinstance(start, int) and start > 0 else None
    return [acp.ToolCallLocation(path=str(path), line=line)]
