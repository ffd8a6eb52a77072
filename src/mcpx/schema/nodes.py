"""The form model's field nodes: one class per kind, each holding what the user typed, typed.

A node turns its state into a JSON value with `value()` (`MISSING` when nothing is to be sent) and takes
one back with `load(value)` (False when the value does not fit this kind: the parent then swaps in a
`JsonNode` for that sub-tree, so nothing loaded is ever lost). Text stays text: a string field holding
"012" sends "012"; a number field holding "1.50" sends 1.5 and keeps showing "1.50"; a number field
holding "abc" sends the string "abc" (a debugger may send invalid input on purpose) and says why it is
wrong through `local_error`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from mcpx.schema.refs import Schema

Path = tuple[str | int, ...]


class _Missing:
    """Nothing to send (the field is left out of its object)."""

    _instance: ClassVar[_Missing | None] = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()


@dataclass(slots=True)
class Spec:
    """What a field is, apart from its kind: where it sits and what the schema says about it."""

    schema: Schema
    path: Path = ()
    name: str | None = None
    required: bool = False
    default: Any = MISSING

    @property
    def title(self) -> str:
        title = self.schema.get("title")
        if isinstance(title, str) and title:
            return title
        return self.name if self.name is not None else ""

    @property
    def description(self) -> str | None:
        text = self.schema.get("description")
        return text if isinstance(text, str) and text.strip() else None

    @property
    def read_only(self) -> bool:
        return self.schema.get("readOnly") is True

    @property
    def deprecated(self) -> bool:
        return self.schema.get("deprecated") is True

    @property
    def header(self) -> str | None:
        """The HTTP header a modern-era server mirrors this property into (`x-mcp-header`)."""
        value = self.schema.get("x-mcp-header")
        if isinstance(value, str) and value:
            return value
        return self.name if value is True else None


@dataclass(slots=True)
class Choice:
    value: Any
    label: str


def same(a: Any, b: Any) -> bool:
    """JSON equality (True is not 1, 1 is 1.0)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b) if type(a) is type(b) or _numbers(a, b) else False


def _numbers(a: Any, b: Any) -> bool:
    return isinstance(a, (int, float)) and isinstance(b, (int, float))


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class Node:
    """A field of the form."""

    kind: ClassVar[str] = "node"

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        #: the user (or a load) chose to send this field even though it is optional and empty
        self.touched = False

    @property
    def path(self) -> Path:
        return self.spec.path

    def relocate(self, path: Path) -> None:
        """The node moved (an array item reordered, a key renamed): it and its children learn where."""
        self.spec.path = path
        for key, child in self.children():
            child.relocate((*path, key))

    def children(self) -> Iterator[tuple[str | int, Node]]:
        return iter(())

    def value(self) -> Any:
        raise NotImplementedError

    def load(self, value: Any) -> bool:
        raise NotImplementedError

    @property
    def local_error(self) -> str | None:
        """What is wrong with the typed text itself (before any schema check), or None."""
        return None

    def walk(self) -> Iterator[Node]:
        yield self
        for _, child in self.children():
            yield from child.walk()


class StringNode(Node):
    kind = "string"

    def __init__(self, spec: Spec) -> None:
        super().__init__(spec)
        self.text = ""

    @property
    def format(self) -> str | None:
        fmt = self.spec.schema.get("format")
        return fmt if isinstance(fmt, str) else None

    def set_text(self, text: str) -> None:
        self.text = text
        self.touched = False  # cleared by hand: an optional field is left out again

    def value(self) -> Any:
        return self.text if self.text or self.touched else MISSING

    def load(self, value: Any) -> bool:
        if not isinstance(value, str):
            return False
        self.text, self.touched = value, True
        return True


class NumberNode(Node):
    kind = "number"

    def __init__(self, spec: Spec, *, integer: bool) -> None:
        super().__init__(spec)
        self.integer = integer
        self.text = ""

    def set_text(self, text: str) -> None:
        self.text = text

    def parsed(self) -> int | float | None:
        text = self.text.strip()
        try:
            return int(text)
        except ValueError:
            pass
        try:
            number = float(text)
        except ValueError:
            return None
        return number if math.isfinite(number) else None

    def value(self) -> Any:
        if not self.text.strip():
            return MISSING
        number = self.parsed()
        return self.text if number is None else number

    @property
    def local_error(self) -> str | None:
        if self.text.strip() and self.parsed() is None:
            return "not an integer" if self.integer else "not a number"
        return None

    def load(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        self.text = dumps(value)
        return True


class BooleanNode(Node):
    kind = "boolean"

    def __init__(self, spec: Spec) -> None:
        super().__init__(spec)
        self.checked: bool | None = None

    def value(self) -> Any:
        return MISSING if self.checked is None else self.checked

    def load(self, value: Any) -> bool:
        if not isinstance(value, bool):
            return False
        self.checked = value
        return True


class EnumNode(Node):
    """One of a fixed list (`enum`, `const`+`title` options, legacy `enumNames`)."""

    kind = "enum"

    def __init__(self, spec: Spec, choices: list[Choice]) -> None:
        super().__init__(spec)
        self.choices = choices
        self.selected: int | None = None

    def value(self) -> Any:
        return MISSING if self.selected is None else self.choices[self.selected].value

    def index_of(self, value: Any) -> int | None:
        return next((i for i, c in enumerate(self.choices) if same(c.value, value)), None)

    def load(self, value: Any) -> bool:
        index = self.index_of(value)
        if index is None:
            return False
        self.selected = index
        return True


class ConstNode(Node):
    """A fixed value (a discriminator): shown, sent when required or loaded."""

    kind = "const"

    def __init__(self, spec: Spec, const: Any) -> None:
        super().__init__(spec)
        self.const = const

    def value(self) -> Any:
        return self.const if self.spec.required or self.touched else MISSING

    def load(self, value: Any) -> bool:
        if not same(value, self.const):
            return False
        self.touched = True
        return True


class MultiNode(Node):
    """An array of enum values: a multi-select (kept in the order chosen)."""

    kind = "multi"

    def __init__(self, spec: Spec, choices: list[Choice]) -> None:
        super().__init__(spec)
        self.choices = choices
        self.selected: list[int] = []

    def toggle(self, index: int) -> None:
        if index in self.selected:
            self.selected.remove(index)
        else:
            self.selected.append(index)
        self.touched = True

    def value(self) -> Any:
        if not self.selected and not self.touched:
            return MISSING
        return [self.choices[i].value for i in self.selected]

    def load(self, value: Any) -> bool:
        if not isinstance(value, list):
            return False
        indices = []
        for item in value:
            index = next((i for i, c in enumerate(self.choices) if same(c.value, item)), None)
            if index is None:
                return False
            indices.append(index)
        self.selected, self.touched = indices, True
        return True


class JsonNode(Node):
    """Anything the form cannot show as fields: a JSON editor for this sub-tree only."""

    kind = "json"

    def __init__(self, spec: Spec, reason: str = "") -> None:
        super().__init__(spec)
        self.reason = reason
        self.text = ""

    def set_text(self, text: str) -> None:
        self.text = text

    def value(self) -> Any:
        if not self.text.strip():
            return MISSING
        try:
            return json.loads(self.text)
        except ValueError:
            return self.text

    @property
    def local_error(self) -> str | None:
        if not self.text.strip():
            return None
        try:
            json.loads(self.text)
        except ValueError as exc:
            return f"not valid JSON: {exc}"
        return None

    def load(self, value: Any) -> bool:
        self.text = (
            json.dumps(value, ensure_ascii=False, indent=2)
            if isinstance(value, (dict, list))
            else dumps(value)
        )
        return True


Build = Callable[[Schema, Spec, tuple[str, ...]], Node]


@dataclass(slots=True)
class Row:
    """A key/value row of an object's additional properties."""

    key: str
    node: Node


@dataclass(slots=True)
class Lazy:
    """A sub-schema to build on demand (recursive schemas expand one level per request)."""

    schema: Schema
    refs: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
