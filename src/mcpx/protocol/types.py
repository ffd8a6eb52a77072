"""Pydantic views of what servers send, for the faces to read.

Lenient by design: unknown fields are kept (`extra="allow"`), a missing optional field is fine, and a
wrong shape becomes a list of diagnostics while the raw JSON is still returned (`parse()` never raises).
Attributes are snake_case; the wire's camelCase names are aliases. `.raw` is the dict as received.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel


class McpModel(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, alias_generator=to_camel)
    # plain slots, not pydantic private attributes: those cost every view a post-init hook that builds
    # their defaults (a third of a small result's parse, on every tools/call). `parse()` sets both; a
    # view built otherwise (or copied) reads as raw None, no problems.
    __slots__ = ("_problems", "_raw")

    @property
    def raw(self) -> Any:
        """The JSON this view was built from, untouched."""
        return getattr(self, "_raw", None)

    @property
    def problems(self) -> list[str]:
        """Where the JSON did not match the schema (empty when it did)."""
        problems: list[str] | None = getattr(self, "_problems", None)
        if problems is None:
            problems = []
            object.__setattr__(self, "_problems", problems)
        return problems


class Implementation(McpModel):
    name: str = ""
    version: str = ""
    title: str | None = None
    description: str | None = None
    website_url: str | None = None
    icons: list[dict[str, Any]] | None = None


class ToolAnnotations(McpModel):
    title: str | None = None
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None


class Tool(McpModel):
    name: str
    title: str | None = None
    description: str | None = None
    input_schema: dict[str, Any] = {}
    output_schema: dict[str, Any] | None = None
    annotations: ToolAnnotations | None = None
    icons: list[dict[str, Any]] | None = None
    meta: dict[str, Any] | None = None

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        alias_generator=lambda n: "_meta" if n == "meta" else to_camel(n),
    )

    @property
    def display_name(self) -> str:
        """The spec's precedence: title, then annotations.title, then name."""
        return (
            self.title
            or (self.annotations.title if self.annotations and self.annotations.title else None)
            or self.name
        )


class Resource(McpModel):
    uri: str
    name: str = ""
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None


class ResourceTemplate(McpModel):
    uri_template: str
    name: str = ""
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None


class PromptArgument(McpModel):
    name: str
    title: str | None = None
    description: str | None = None
    required: bool | None = None


class Prompt(McpModel):
    name: str
    title: str | None = None
    description: str | None = None
    arguments: list[PromptArgument] | None = None


class CallToolResult(McpModel):
    content: list[dict[str, Any]] = []
    structured_content: Any = None
    is_error: bool | None = None


class ReadResourceResult(McpModel):
    contents: list[dict[str, Any]] = []


class GetPromptResult(McpModel):
    description: str | None = None
    messages: list[dict[str, Any]] = []


class Completion(McpModel):
    values: list[str] = []
    total: int | None = None
    has_more: bool | None = None


class CompleteResult(McpModel):
    completion: Completion = Completion()


class InitializeResult(McpModel):
    protocol_version: str
    capabilities: dict[str, Any] = {}
    server_info: Implementation = Implementation()
    instructions: str | None = None


M = TypeVar("M", bound=McpModel)


def parse(model: type[M], data: Any, where: str = "") -> M:
    """Build a view of `data`; never raises. Problems are on `.problems`, the raw JSON on `.raw`."""
    try:
        # the validator itself: `model_validate` only passes its defaults on to it (a third of a small
        # result's parse, on every tools/call)
        view: M = model.__pydantic_validator__.validate_python(data)
    except ValidationError as exc:
        problems = [_describe(err, where) for err in exc.errors()]
        view = model.model_construct(**data) if isinstance(data, dict) else model.model_construct()
        for name in model.model_fields:  # a required field that is missing reads as None, not AttributeError
            if name not in view.__dict__:
                object.__setattr__(view, name, None)
    else:
        problems = []
    object.__setattr__(view, "_problems", problems)
    object.__setattr__(view, "_raw", data)
    return view


def parse_list(model: type[M], items: Any, where: str) -> tuple[list[M], list[str]]:
    """Parse each item on its own, so one bad entry does not hide the others."""
    if not isinstance(items, list):
        return [], [f"{where} is not a list"]
    views, problems = [], []
    for index, item in enumerate(items):
        view = parse(model, item, f"{where}[{index}]")
        if isinstance(item, dict):
            views.append(view)
        problems.extend(
            view.problems or ([] if isinstance(item, dict) else [f"{where}[{index}] is not an object"])
        )
    return views, problems


def _describe(err: Any, where: str) -> str:
    loc = ".".join(str(part) for part in err.get("loc", ()))
    path = f"{where}.{loc}" if where and loc else where or loc
    return f"{path}: {err.get('msg', 'invalid')}"
