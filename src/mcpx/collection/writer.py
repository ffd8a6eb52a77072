"""Changing a collection file without rewriting what the user wrote.

PyYAML (already a dependency, for skills' frontmatter) cannot round-trip a file with its comments, but it
tells where every node starts and ends. So nothing here re-serialises the user's YAML: a new test is text
inserted after the last one, and a re-recorded expectation replaces only the text of that test's
`expect` — every comment, blank line, key order and quoting style elsewhere stays byte for byte.
(ruamel.yaml round-trips whole documents, but would be a second YAML library for this one job; splicing
keeps even what ruamel reformats, such as indentation of sequences and flow spacing.)

    append_test(path, {"name": "adds", "call": "add", "arguments": {"a": 2}, "expect": {"text": "5"}},
                server="./server.py")        # creates the file when it is missing
    update_expectations(path, {0: {"text": "6"}})   # test index → its new expect mapping
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from mcpx.collection.model import CollectionError, compose

#: the order a test's keys are written in
KEY_ORDER = ("name", "call", "method", "arguments", "params", "elicit", "sample", "fresh", "expect")


def render(value: Any) -> str:
    """Block YAML for a mapping, with flow style for collections of scalars (`{a: 2, b: 3}`)."""
    return yaml.safe_dump(
        value, sort_keys=False, default_flow_style=None, allow_unicode=True, width=100, indent=2
    )


def ordered(test: Mapping[str, Any]) -> dict[str, Any]:
    keys = [k for k in KEY_ORDER if k in test] + [k for k in test if k not in KEY_ORDER]
    return {k: test[k] for k in keys}


def new_collection_text(server: Any, tests: list[Mapping[str, Any]]) -> str:
    return render({"server": server, "tests": [ordered(t) for t in tests]})


def append_test(path: str | Path, test: Mapping[str, Any], *, server: Any = None) -> str:
    """Add `test` at the end of the collection's tests (creating the file with `server` when missing);
    returns the file's new text."""
    path = Path(path)
    if not path.exists() or not path.read_text(encoding="utf-8").strip():
        if server is None:
            raise CollectionError(f"the collection {str(path)!r} does not exist (and no server was given)")
        text = new_collection_text(server, [test])
        _write(path, text)
        return text
    text = path.read_text(encoding="utf-8")
    new = append_to_text(text, test, path)
    _write(path, new)
    return new


def append_to_text(text: str, test: Mapping[str, Any], path: Path) -> str:
    _, root = compose(text, path, exact=True)
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        raise CollectionError(f"{path}: a test can only be added to a collection written as a block mapping")
    item = render([ordered(test)])
    for key, value in root.value:
        if not (isinstance(key, yaml.ScalarNode) and key.value == "tests"):
            continue
        if isinstance(value, yaml.SequenceNode) and value.value and not value.flow_style:
            # after the last test, at the column of its dash
            column = value.start_mark.column
            at = _line_end(text, _last_end(value.value[-1], text))
            return text[:at] + "\n" + _indent(item, column).rstrip("\n") + text[at:]
        # `tests:` with nothing, `tests: []` or a flow list: that value becomes a block list
        existing = value.value if isinstance(value, yaml.SequenceNode) else []
        tests = [*_constructed(existing), ordered(test)]
        block = _indent(render(tests), key.start_mark.column + 2).rstrip("\n")
        start = key.end_mark.index + 1  # after the colon
        end = _last_end(value, text) if existing or not _is_null(value) else start
        return text[:start] + "\n" + block + text[max(end, start) :]
    tail = "" if text.endswith("\n") else "\n"
    return text + tail + render({"tests": [ordered(test)]})


def update_expectations(path: str | Path, updates: Mapping[int, Mapping[str, Any]]) -> str:
    """Replace the `expect` of each test index in `updates`; returns the new text (written to `path`)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    new = update_text(text, updates, path)
    if new != text:
        _write(path, new)
    return new


def update_text(text: str, updates: Mapping[int, Mapping[str, Any]], path: Path) -> str:
    _, root = compose(text, path, exact=True)
    items: list[yaml.Node] = []
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if (
                isinstance(key, yaml.ScalarNode)
                and key.value == "tests"
                and isinstance(value, yaml.SequenceNode)
            ):
                items = list(value.value)
    edits: list[tuple[int, int, str]] = []
    for index, expect in updates.items():
        if index >= len(items) or not isinstance(items[index], yaml.MappingNode):
            continue
        test = items[index]
        if getattr(test, "flow_style", False):
            # `- {name: a, call: b}` stays one flow mapping, its expect replaced (a flow mapping holds no
            # comments, so writing it anew loses nothing but spacing)
            (data,) = _constructed([test])
            data["expect"] = dict(expect)
            flow = yaml.safe_dump(
                data, default_flow_style=True, sort_keys=False, allow_unicode=True, width=10**6
            )
            edits.append((test.start_mark.index, test.end_mark.index, flow.strip()))
            continue
        rendered = render({"expect": dict(expect)}).rstrip("\n")
        found = [(k, v) for k, v in test.value if isinstance(k, yaml.ScalarNode) and k.value == "expect"]
        if found:
            key, value = found[0]
            column = key.start_mark.column
            edits.append(
                (key.start_mark.index, _last_end(value, text), _indent(rendered, column, first=False))
            )
        else:
            column = test.value[0][0].start_mark.column if test.value else test.start_mark.column
            at = _line_end(text, _last_end(test, text))
            edits.append((at, at, "\n" + _indent(rendered, column)))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _constructed(nodes: list[yaml.Node]) -> list[Any]:
    loader = yaml.SafeLoader("")
    try:
        return [loader.construct_document(n) for n in nodes]
    finally:
        loader.dispose()


def _is_null(node: yaml.Node) -> bool:
    return (
        isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null") and node.value in ("", "~", "null")
    )


def _last_end(node: yaml.Node, text: str) -> int:
    """Where the node's own text ends: its last scalar's end (a block collection's end mark lies at the next
    key, past comments and blank lines that belong to what follows)."""
    while isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style and node.value:
        last = node.value[-1]
        node = last[1] if isinstance(last, tuple) else last
    end = node.end_mark.index
    return len(text[:end].rstrip()) if end > node.start_mark.index else end


def _line_end(text: str, index: int) -> int:
    at = text.find("\n", index)
    return len(text) if at < 0 else at


def _indent(block: str, column: int, *, first: bool = True) -> str:
    pad = " " * column
    lines = block.split("\n")
    return "\n".join((pad + line if line and (first or n) else line) for n, line in enumerate(lines))


def _write(path: Path, text: str) -> None:
    """Atomically: a temporary file beside it, then a rename (keeping the file's mode)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text if text.endswith("\n") else text + "\n")
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
