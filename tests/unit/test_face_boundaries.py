"""The faces keep to the front door, checked on the syntax tree of every module under `mcpx.tui` and
`mcpx.cli` (not by grep: comments, docstrings and strings do not count, and any spelling of the access
does):

- no face reads a client's `.peer` or `.transport` (the session façade answers what faces ask: describe,
  in flight, ended and why, wait closed). "A client" is told by name, as the code writes it: an access
  `X.peer` / `X.transport` (or `getattr(X, "peer")`) where X is a name or attribute spelled `client`,
  `*_client` or `client_*` — `spec.transport` or a session state's `transport` field are other things.
- no widget looks services up on the app with `getattr(self.app, …)` (or on a name bound to
  `self.app`): they come in an `InspectContext` or by data binding.
- the apps (`mcpx inspect`, `replay`, a workspace) compose the inspector's screen: no app class is built
  on another, and no module but an app's own (`*_app.py`, `shell/app.py`, the package's door) names
  one — a widget that did would be asking which app it is in.
"""

from __future__ import annotations

import ast
import pkgutil
from dataclasses import dataclass
from pathlib import Path

import pytest

import mcpx

SRC = Path(mcpx.__file__).parent
FACES = ("tui", "cli")
CLIENT_INNARDS = {"peer", "transport"}
APP_CLASSES = {"InspectApp", "ReplayApp", "WorkspaceApp"}


@dataclass(frozen=True)
class Breach:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def _is_client(node: ast.expr) -> bool:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
    return name is not None and (name == "client" or name.endswith("_client") or name.startswith("client_"))


def _is_self_app(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "app"
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def breaches(source: str, path: str = "<source>") -> list[Breach]:
    """What in `source` goes past the front door."""
    tree = ast.parse(source)
    app_names = {"self.app"}
    for node in ast.walk(tree):  # names bound to self.app (`app = self.app`, `app: Any = self.app`)
        if isinstance(node, ast.Assign) and _is_self_app(node.value):
            app_names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif (
            isinstance(node, ast.AnnAssign)
            and node.value is not None
            and _is_self_app(node.value)
            and isinstance(node.target, ast.Name)
        ):
            app_names.add(node.target.id)
    found: list[Breach] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in CLIENT_INNARDS and _is_client(node.value):
            found.append(Breach(path, node.lineno, f"reads a client's .{node.attr}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
            if not node.args:
                continue
            target, name = node.args[0], node.args[1] if len(node.args) > 1 else None
            if _is_self_app(target) or (isinstance(target, ast.Name) and target.id in app_names):
                found.append(Breach(path, node.lineno, "getattr() on the app"))
            elif _is_client(target) and isinstance(name, ast.Constant) and name.value in CLIENT_INNARDS:
                found.append(Breach(path, node.lineno, f"reads a client's .{name.value} with getattr()"))
    return found


def _is_app_module(path: str) -> bool:
    return path.endswith("_app.py") or path in ("tui/shell/app.py", "tui/__init__.py")


def app_breaches(source: str, path: str = "<source>") -> list[Breach]:
    """Where `source` builds an app on another, or (outside an app's module) names an app class."""
    found: list[Breach] = []
    own = _is_app_module(path)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
                if name in APP_CLASSES:
                    found.append(Breach(path, node.lineno, f"{node.name} subclasses {name}"))
        if own:
            continue
        if isinstance(node, ast.Name) and node.id in APP_CLASSES:
            found.append(Breach(path, node.lineno, f"names {node.id}"))
        elif isinstance(node, ast.alias) and node.name in APP_CLASSES:
            found.append(Breach(path, node.lineno, f"imports {node.name}"))
        elif isinstance(node, ast.Constant) and node.value in APP_CLASSES:  # cast("InspectApp", …)
            found.append(Breach(path, node.lineno, f"names {node.value} in a string"))
    return found


def face_modules() -> list[Path]:
    paths: list[Path] = []
    for face in FACES:
        package = SRC / face
        paths += sorted(package.rglob("*.py"))
    return paths


def test_the_faces_are_all_read() -> None:
    names = {p.relative_to(SRC).as_posix() for p in face_modules()}
    assert "tui/shell/app.py" in names and "cli/main.py" in names
    # every module pkgutil sees under the faces is among them (no face module is skipped)
    for face in FACES:
        for info in pkgutil.walk_packages([str(SRC / face)], prefix=f"{face}/"):
            if not info.ispkg:
                assert info.name.replace(".", "/") + ".py" in names


def test_no_face_goes_past_the_front_door() -> None:
    found = [
        b
        for path in face_modules()
        for b in breaches(path.read_text(encoding="utf-8"), path.relative_to(SRC).as_posix())
    ]
    assert not found, "\n".join(map(str, found))


@pytest.mark.parametrize(
    "source",
    [
        "client.peer.in_flight",
        "self.client.transport.describe()",
        "app.client.peer.problems",
        "live_client.transport",
        "getattr(client, 'transport', None)",
        "getattr(self.app, 'client', None)",
        "app = self.app\ngetattr(app, 'clock', None)",
        "app: Any = self.app\nx = getattr(app, 'read_only', False)",
    ],
)
def test_the_checker_sees_each_way_past_the_door(source: str) -> None:
    assert breaches(source)


@pytest.mark.parametrize(
    "source",
    [
        "spec.transport = 'http'",
        "session.transport",
        "entry.configured.transport",
        "getattr(item, 'raw', None)",
        "'client.peer'  # a string",
        "self.context.client",
    ],
)
def test_the_checker_leaves_other_things_alone(source: str) -> None:
    assert not breaches(source)


def test_no_app_is_built_on_another_and_no_widget_names_one() -> None:
    found = [
        b
        for path in face_modules()
        for b in app_breaches(path.read_text(encoding="utf-8"), path.relative_to(SRC).as_posix())
    ]
    assert not found, "\n".join(map(str, found))


@pytest.mark.parametrize(
    ("source", "path"),
    [
        ("class ReplayApp(InspectApp): ...", "tui/replay/replay_app.py"),
        ("class ReplayApp(app.InspectApp): ...", "tui/replay/replay_app.py"),
        ("isinstance(self.app, ReplayApp)", "tui/catalogue/item_detail.py"),
        ("from mcpx.tui.shell.app import InspectApp", "tui/shell/commands.py"),
        ("app = cast('InspectApp', self.app)", "tui/shell/commands.py"),
    ],
)
def test_the_app_checker_sees_a_subclass_or_a_sniffing_widget(source: str, path: str) -> None:
    assert app_breaches(source, path)


def test_the_app_checker_lets_an_app_build_its_screen() -> None:
    source = "class ReplayApp(App[int]):\n    view = InspectScreen(context)\nx: ReplayApp"
    assert not app_breaches(source, "tui/replay/replay_app.py")
    assert not app_breaches("screen: InspectScreen = self.screen", "tui/shell/commands.py")
