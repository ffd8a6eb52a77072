"""`JsonTree`: a collapsible, syntax-coloured view of a parsed JSON value, built lazily.

Only expanded nodes get children, and long strings are cut in their label, so a 10 MB result opens as
fast as a small one.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from mcpx.tui.widgets.event_list_view import foreground

STRING_PREVIEW = 160
CHILD_LIMIT = 500


def size_label(size: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


class JsonTree(Tree[Any]):
    """A JSON value as a tree: objects and arrays fold, scalars are coloured leaves."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "json-tree--key",
        "json-tree--string",
        "json-tree--number",
        "json-tree--constant",
        "json-tree--muted",
    }
    DEFAULT_CSS = """
    JsonTree {
        background: $surface;
        & > .json-tree--key { color: $text-accent; }
        & > .json-tree--string { color: $text-success; }
        & > .json-tree--number { color: $text-warning; }
        & > .json-tree--constant { color: $text-primary; }
        & > .json-tree--muted { color: $foreground-muted; }
    }
    """

    def __init__(
        self, value: Any, *, label: str = "message", expand_depth: int = 3, id: str | None = None
    ) -> None:
        super().__init__(label, data=value, id=id)
        self.value = value
        self.expand_depth = expand_depth
        self.show_root = False
        self.guide_depth = 3

    def on_mount(self) -> None:
        self._colours = {
            "key": foreground(self, "json-tree--key"),
            "str": foreground(self, "json-tree--string"),
            "num": foreground(self, "json-tree--number"),
            "const": foreground(self, "json-tree--constant"),
            "muted": foreground(self, "json-tree--muted"),
        }
        self._fill(self.root, self.value, self.expand_depth)
        self.root.expand()

    def _fill(self, node: TreeNode[Any], value: Any, depth: int) -> None:
        if isinstance(value, dict):
            entries: list[tuple[str, Any]] = [
                (json.dumps(k, ensure_ascii=False), v) for k, v in value.items()
            ]
        elif isinstance(value, list):
            entries = [(f"[{i}]", v) for i, v in enumerate(value)]
        else:
            node.add_leaf(self._scalar(None, value))
            return
        for index, (key, child) in enumerate(entries):
            if index >= CHILD_LIMIT:
                node.add_leaf(Text(f"… {len(entries) - CHILD_LIMIT:,} more", style=self._colours["muted"]))
                break
            if isinstance(child, (dict, list)) and child:
                branch = node.add(self._container(key, child), data=child)
                if depth > 1:
                    self._fill(branch, child, depth - 1)
                    branch.expand()
            else:
                node.add_leaf(self._scalar(key, child))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[Any]) -> None:
        node = event.node
        if not node.children and node.data is not None and node is not self.root:
            self._fill(node, node.data, 1)

    def _container(self, key: str, value: dict[str, Any] | list[Any]) -> Text:
        text = Text(key, style=self._colours["key"])
        if isinstance(value, dict):
            text.append(
                f"  {{…}} {len(value)} key{'s' if len(value) != 1 else ''}", style=self._colours["muted"]
            )
        else:
            text.append(
                f"  […] {len(value)} item{'s' if len(value) != 1 else ''}", style=self._colours["muted"]
            )
        return text

    def _scalar(self, key: str | None, value: Any) -> Text:
        text = Text()
        if key is not None:
            text.append(key, style=self._colours["key"])
            text.append(": ")
        if isinstance(value, str):
            shown = value[:STRING_PREVIEW]
            text.append(
                json.dumps(shown, ensure_ascii=False)[: STRING_PREVIEW + 40], style=self._colours["str"]
            )
            if len(value) > STRING_PREVIEW:
                text.append(
                    f" … ({size_label(len(value.encode('utf-8', 'replace')))})", style=self._colours["muted"]
                )
        elif isinstance(value, bool) or value is None:
            text.append(json.dumps(value), style=self._colours["const"])
        elif isinstance(value, (int, float)):
            text.append(
                json.dumps(value) if isinstance(value, int) or value == value else "NaN",
                style=self._colours["num"],
            )
        elif isinstance(value, (dict, list)):
            text.append("{}" if isinstance(value, dict) else "[]", style=self._colours["muted"])
        else:
            text.append(repr(value))
        return text
