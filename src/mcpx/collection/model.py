"""A collection file (`*.mcpx.yaml`): a server and the tests to run against it, read leniently.

    server: ./server.py --port 0     # a TARGET and its words, a list of words, or a mapping:
                                     #   {target: …, args: […], env: {…}, cwd: …, headers: {…}, transport: …}
                                     #   {config: FILE, server: NAME}     a server of a config file
                                     #   {recording: FILE}                a recording, served by `mcpx mock`
    era: auto                        # as --protocol-era (optional)
    timeout: 30                      # seconds per answer (optional; default 60)
    tests:
      - name: adds two numbers
        call: add                    # a tool … (or `method: tools/list` with `params: {…}`)
        arguments: {a: 2, b: 3}
        expect: {isError: false, text: "5", maxMs: 500}      # see mcpx.collection.expect
        elicit: accept-defaults      # or decline, cancel, {field: value}, "@answers.json"
        sample: decline              # or a CreateMessageResult mapping, "@reply.json"
        fresh: true                  # a connection of its own

What cannot be read at all (not YAML, no server) raises `CollectionError` with one sentence and the line.
A test that is wrong keeps its place with its `problems` (it fails when run, saying why); the others run.
Relative paths (a script TARGET, a config, a recording, answers files) are taken from the collection's
folder, which is also the server's working directory unless `cwd` says otherwise.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mcpx.collection.expect import check_expect
from mcpx.errors import UsageError

if TYPE_CHECKING:
    from yaml import Node

    from mcpx.target import ServerSpec

#: the suffix `mcpx test` and the pytest plugin look for
SUFFIX = ".mcpx.yaml"
TOP_KEYS = ("server", "era", "timeout", "tests")
TEST_KEYS: tuple[str, ...] = ("name", "call", "arguments", "method", "params", "expect", "elicit", "sample")
TEST_KEYS += ("fresh",)
TEST_KEYS += ("timeout", "skip")
ELICIT_MODES = ("accept-defaults", "decline", "cancel")


class CollectionError(UsageError):
    """A collection file that cannot be used at all (its sentence names the file and the line)."""

    code = "collection"


@dataclass(slots=True)
class ServerRef:
    """Which server a collection runs against (`spec()` for a target or a config entry)."""

    kind: Literal["target", "config", "recording"]
    base: Path
    target: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    transport: str = "auto"
    config: str | None = None
    server: str | None = None
    recording: str | None = None

    def spec(self) -> ServerSpec:
        """The target as mcpx opens it (raises `UsageError`: a missing script, an unknown server)."""
        from mcpx.target import check_transport, resolve_target

        if self.kind == "config":
            from mcpx.workspace.config import pick_server

            assert self.config is not None
            try:
                spec = pick_server(self._path(self.config), self.server)
            except UsageError as exc:  # said for the command line: a collection names it otherwise
                message = exc.message.replace(
                    "choose one with --server", "name one: {config: …, server: NAME}"
                )
                raise CollectionError(message) from None
        else:
            assert self.target is not None
            target = self.target
            local = self.base / target
            if not Path(target).is_absolute() and ("/" in target or local.suffix) and local.exists():
                target = str(local)  # a script beside the collection, wherever mcpx runs from
            spec = resolve_target(
                target,
                self.args,
                env=self.env,
                cwd=self.cwd,
                headers=self.headers,
                transport=check_transport(self.transport),
            )
        if spec.command and not spec.cwd:
            spec.cwd = str(self.base)
        return spec

    def recording_path(self) -> Path:
        assert self.recording is not None
        return self._path(self.recording)

    def _path(self, name: str) -> Path:
        path = Path(name).expanduser()
        return path if path.is_absolute() else self.base / path

    def describe(self) -> str:
        if self.kind == "recording":
            return f"recording {self.recording}"
        if self.kind == "config":
            return f"{self.server or 'the server'} of {self.config}"
        return shlex.join([self.target or "", *self.args])


@dataclass(slots=True)
class TestCase:
    """One test: a request, what its answer must be, and how to answer what the server asks."""

    name: str
    method: str
    params: dict[str, Any] | None = None
    expect: dict[str, Any] = field(default_factory=dict)
    elicit: Any = None
    sample: Any = None
    fresh: bool = False
    timeout: float | None = None
    skip: str | None = None
    #: where it starts in the file (1-based), and its position among the tests
    line: int = 0
    index: int = 0
    #: why it cannot run as written (it fails with these sentences)
    problems: list[str] = field(default_factory=list)

    @property
    def tool(self) -> str | None:
        """The tool a tools/call test calls."""
        name = (self.params or {}).get("name") if self.method == "tools/call" else None
        return name if isinstance(name, str) else None

    # pytest must not take a class named Test… in a module it imports for a test class
    __test__ = False


@dataclass(slots=True)
class Collection:
    path: Path
    server: ServerRef | None
    era: str = "auto"
    timeout: float | None = 60.0
    tests: list[TestCase] = field(default_factory=list)
    #: what was ignored or doubtful (unknown keys, repeated names): worth a warning, not a failure
    warnings: list[str] = field(default_factory=list)

    @property
    def base(self) -> Path:
        return self.path.parent


def load_collection(path: str | Path) -> Collection:
    """Read a collection file (raises `CollectionError` with one sentence when it cannot be used)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CollectionError(f"the collection {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CollectionError(f"cannot read the collection {str(path)!r}: {exc}") from None
    return parse_collection(text, path)


def compose(text: str, path: Path, *, exact: bool = False) -> tuple[Any, Node | None]:
    """The YAML document as Python values and as nodes (the nodes know their lines).

    libyaml's parser (PyYAML's C loader, ~10x faster: a 100-test file loads in 25 ms, not 250) reads the
    file where it is installed; `exact` asks for the pure-Python one, whose marks are character offsets
    the writer splices at (libyaml's count bytes in places). A file that does not parse is read again by
    the pure-Python parser, whose sentences say more ("expected the node content, but found '-'")."""
    import yaml

    fast = None if exact else getattr(yaml, "CSafeLoader", None)
    loader = yaml.SafeLoader(text) if fast is None else fast(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        if fast is not None:
            return compose(text, path, exact=True)
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise CollectionError(f"{where}: not valid YAML: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        if fast is not None:
            return compose(text, path, exact=True)
        raise CollectionError(f"{path}: not valid YAML: {exc}") from None
    finally:
        loader.dispose()
    return data, node


def parse_collection(text: str, path: Path) -> Collection:
    data, node = compose(text, path)
    if data is None:
        raise CollectionError(f"{path}: the collection is empty (it needs a server and tests)")
    if not isinstance(data, dict):
        raise CollectionError(f"{path}: a collection is a mapping with server and tests, not a {_kind(data)}")
    base = path.resolve().parent
    lines = _key_lines(node)
    collection = Collection(path, None)
    for key in data:
        if key not in TOP_KEYS:
            collection.warnings.append(f"{path}:{lines.get(key, 1)}: unknown key {key!r} ignored")
    if "server" not in data:
        raise CollectionError(f"{path}: no server: say which server to test (server: ./server.py)")
    where = f"{path}:{lines.get('server', 1)}"
    collection.server = _server(data["server"], base, where)
    era = data.get("era", "auto")
    if era not in ("legacy", "auto", "modern"):
        raise CollectionError(
            f"{path}:{lines.get('era', 1)}: era must be legacy, auto or modern, not {era!r}"
        )
    collection.era = era
    if "timeout" in data:
        collection.timeout = _seconds(data["timeout"], f"{path}:{lines.get('timeout', 1)}: timeout")
    tests = data.get("tests")
    if tests is None:
        tests = []
    if not isinstance(tests, list):
        raise CollectionError(f"{path}:{lines.get('tests', 1)}: tests must be a list of tests")
    nodes = _items(node, "tests")
    seen: set[str] = set()
    for index, raw in enumerate(tests):
        line = nodes[index].start_mark.line + 1 if index < len(nodes) else 0
        test = _test(raw, index, line, base)
        if test.name in seen:
            collection.warnings.append(f"{path}:{line}: another test is named {test.name!r}")
        seen.add(test.name)
        collection.tests.append(test)
    return collection


def _server(raw: Any, base: Path, where: str) -> ServerRef:
    if isinstance(raw, str):
        try:
            words = shlex.split(raw)
        except ValueError as exc:
            raise CollectionError(f"{where}: server: cannot split {raw!r} into words ({exc})") from None
        raw = words
    if isinstance(raw, list):
        words = [str(w) for w in raw]
        if not words:
            raise CollectionError(f"{where}: server is empty: name a script, a command or a URL")
        args = words[1:]
        if "--" in args:  # as on mcpx's command line: the first -- only says the rest is the server's
            args.remove("--")
        return ServerRef("target", base, target=words[0], args=args)
    if not isinstance(raw, dict):
        raise CollectionError(f"{where}: server must be a TARGET, a list of words or a mapping")
    known = {"target", "args", "env", "cwd", "headers", "transport", "config", "server", "recording"}
    unknown = sorted(str(k) for k in raw if k not in known)
    if unknown:
        raise CollectionError(f"{where}: server has unknown keys: {', '.join(unknown)}")
    if "recording" in raw:
        return ServerRef("recording", base, recording=str(raw["recording"]))
    if "config" in raw:
        name = raw.get("server")
        return ServerRef(
            "config", base, config=str(raw["config"]), server=None if name is None else str(name)
        )
    if "target" not in raw:
        raise CollectionError(f"{where}: server needs target, config or recording")
    args = raw.get("args") or []
    if not isinstance(args, list):
        raise CollectionError(f"{where}: server.args must be a list of words")
    for key in ("env", "headers"):
        if not isinstance(raw.get(key) or {}, dict):
            raise CollectionError(f"{where}: server.{key} must be a mapping")
    return ServerRef(
        "target",
        base,
        target=str(raw["target"]),
        args=[str(a) for a in args],
        env={str(k): str(v) for k, v in (raw.get("env") or {}).items()},
        cwd=None if raw.get("cwd") is None else str(base / str(raw["cwd"])),
        headers={str(k): str(v) for k, v in (raw.get("headers") or {}).items()},
        transport=str(raw.get("transport", "auto")),
    )


def _test(raw: Any, index: int, line: int, base: Path) -> TestCase:
    if not isinstance(raw, dict):
        return TestCase(
            f"test {index + 1}", "", line=line, index=index, problems=["a test must be a mapping"]
        )
    name = raw.get("name")
    test = TestCase(str(name) if name is not None else f"test {index + 1}", "", line=line, index=index)
    problems = test.problems
    problems.extend(f"unknown key {k!r}" for k in raw if k not in TEST_KEYS)
    if "call" in raw and "method" in raw and raw["method"] != "tools/call":
        problems.append("give either call (a tool) or method, not both")
    if "call" in raw:
        if not isinstance(raw["call"], str) or not raw["call"]:
            problems.append("call must name a tool")
        arguments = raw.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            problems.append("arguments must be a mapping")
        test.method = "tools/call"
        test.params = {"name": raw["call"], **({"arguments": arguments} if arguments is not None else {})}
        if "params" in raw:
            problems.append("a call takes arguments, not params")
    elif "method" in raw:
        if not isinstance(raw["method"], str) or not raw["method"]:
            problems.append("method must be an MCP method name such as tools/list")
        test.method = str(raw["method"])
        params = raw.get("params")
        if params is not None and not isinstance(params, dict):
            problems.append("params must be a mapping")
        test.params = params if isinstance(params, dict) else None
        if "arguments" in raw:
            problems.append("arguments go with call; give params to a method")
    else:
        problems.append("a test needs call (a tool) or method")
    expect = raw.get("expect")
    problems.extend(check_expect(expect))
    test.expect = dict(expect) if isinstance(expect, dict) else {}
    test.elicit = _answers(raw.get("elicit"), "elicit", base, problems)
    test.sample = _answers(raw.get("sample"), "sample", base, problems)
    fresh = raw.get("fresh", False)
    if not isinstance(fresh, bool):
        problems.append("fresh must be true or false")
    test.fresh = fresh is True
    if "timeout" in raw:
        try:
            test.timeout = _seconds(raw["timeout"], "timeout")
        except CollectionError as exc:
            problems.append(exc.message)
    if raw.get("skip") not in (None, False):
        test.skip = "skipped" if raw["skip"] is True else str(raw["skip"])
    return test


def _answers(raw: Any, key: str, base: Path, problems: list[str]) -> Any:
    """elicit/sample: a mode word, an inline mapping, or "@file.json" (read now, relative to the file)."""
    if raw is None or isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw.startswith("@"):
        import json

        file = Path(raw[1:]).expanduser()
        file = file if file.is_absolute() else base / file
        try:
            loaded = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            problems.append(f"{key}: cannot read JSON from {str(file)!r}: {exc}")
            return None
        if not isinstance(loaded, dict):
            problems.append(f"{key}: {str(file)!r} must hold a JSON object")
            return None
        return loaded
    modes = ELICIT_MODES if key == "elicit" else ("decline",)
    if raw not in modes:
        choices = ", ".join(modes)
        problems.append(f"{key} must be {choices}, a mapping or @file.json, not {raw!r}")
        return None
    return raw


def _seconds(raw: Any, what: str) -> float | None:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw < 0:
        raise CollectionError(f"{what} must be a number of seconds (0: none), not {raw!r}")
    return float(raw) or None


def _kind(value: Any) -> str:
    names: dict[type, str] = {list: "list", str: "string"}
    return names.get(type(value), type(value).__name__)


def _key_lines(node: Node | None) -> dict[Any, int]:
    """The 1-based line of each top-level key."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: k.start_mark.line + 1 for k, _ in node.value if isinstance(k, yaml.ScalarNode)}


def _items(node: Node | None, key: str) -> list[Node]:
    """The item nodes of the sequence under a top-level key."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key and isinstance(v, yaml.SequenceNode):
                return list(v.value)
    return []
