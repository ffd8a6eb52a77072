"""Plain conversion of plain CLI values, so a command's start-up does not import pydantic.

typer (≥ 0.29) converts every parameter's value through a pydantic `TypeAdapter` it builds on first use:
`mcpx call` has ~45 parameters, so each run imported pydantic and built ~45 adapters (a third of its
start-up, see docs/performance.md) to turn strings into strings. mcpx's parameters are all `str`,
`int`, `float`, `bool` or lists of them, optional or not; for exactly those, this gives typer a
converter of a few lines, and hands everything else (paths, files, choices, ranges, dates, anything
new) to typer's own. If typer's internals are not the ones this was written against, nothing is
changed and typer works as it always does.
"""

from __future__ import annotations

import types
import typing
from typing import Any

_PLAIN: dict[Any, str] = {str: "text", int: "integer", float: "number", bool: "boolean"}


def _plain(annotation: Any) -> tuple[Any, bool] | None:
    """(the scalar type, whether a list) for `T`, `T | None`, `list[T]`, `list[T] | None`; else None."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            return None
        annotation, origin = args[0], typing.get_origin(args[0])
    if origin is list:
        (item,) = typing.get_args(annotation) or (None,)
        return (item, True) if item in _PLAIN else None
    return (annotation, False) if annotation in _PLAIN else None


def install() -> None:
    """Route mcpx's plain parameters to the plain converter (idempotent; a no-op on other typers)."""
    try:
        from typer import core
        from typer._click.exceptions import BadParameter
        from typer._coercion import RuntimeParam, TypeDescriptor
    except ImportError:
        return
    typers_own = getattr(core, "build_runtime_param", None)
    if typers_own is None or getattr(typers_own, "mcpx_plain", False):
        return

    def convert(kind: Any, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            return value
        if kind is bool:
            word = str(value).strip().lower()
            if word in ("1", "true", "yes", "y", "on", "t"):
                return True
            if word in ("0", "false", "no", "n", "off", "f"):
                return False
        else:
            try:
                return kind(value)
            except (TypeError, ValueError):
                pass
        raise BadParameter(f"{value!r} is not a valid {_PLAIN[kind]}.", ctx=ctx, param=param)

    class PlainRuntimeParam(RuntimeParam):
        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            kind, many = _plain(self.annotation) or (str, False)
            if many:
                return [convert(kind, item, param, ctx) for item in value]
            return convert(kind, value, param, ctx)

    def build_runtime_param(descriptor: TypeDescriptor) -> Any:
        plain = _plain(descriptor.annotation)
        # "ranged" asked here, not through typer's is_ranged: on Python 3.10 `list[str]` passes
        # isinstance(_, type), so typer's is_number_type raises on every list parameter, and falling back to
        # typer's own for those (`-e`, `-H`, ...) imported pydantic on each `mcpx call`
        info = descriptor.parameter_info
        ranged = (
            plain is not None
            and not plain[1]
            and plain[0] in (int, float)
            and (info.min is not None or info.max is not None)
        )
        try:
            special = ranged or descriptor.is_file or descriptor.is_choice or descriptor.is_path
        except TypeError:  # another typer's checks failing on an annotation: let typer convert it
            special = True
        if plain is None or special:
            return typers_own(descriptor)
        return PlainRuntimeParam(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation)

    build_runtime_param.mcpx_plain = True  # type: ignore[attr-defined]
    setattr(core, "build_runtime_param", build_runtime_param)  # noqa: B010 - typer does not export it
