"""What `mcpx watch` watches for a server, and how a batch of changes reads (no files are watched here)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcpx.errors import UsageError
from mcpx.target import ServerSpec, resolve_target
from mcpx.watch.changes import ChangeBatch
from mcpx.watch.loop import WatchPlan
from mcpx.watch.paths import watch_roots


def test_a_script_is_watched_in_its_folder_a_module_in_the_cwd(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    script = tmp_path / "src" / "server.py"
    script.write_text("")
    assert watch_roots(resolve_target(str(script))) == ((tmp_path / "src").resolve(),)
    # node dist/index.js, relative to the server's cwd
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "index.js").write_text("")
    spec = ServerSpec(command=["node", "--enable-source-maps", "dist/index.js"], cwd=str(tmp_path))
    assert watch_roots(spec) == ((tmp_path / "dist").resolve(),)
    module = ServerSpec(command=[sys.executable, "-m", "some_server"], cwd=str(tmp_path))
    assert watch_roots(module) == (tmp_path.resolve(),)


def test_watch_paths_replace_the_guess_and_must_exist(tmp_path: Path) -> None:
    spec = ServerSpec(command=["uvx", "some-server"])
    (tmp_path / "a").mkdir()
    assert watch_roots(spec, [str(tmp_path / "a"), str(tmp_path / "a")]) == ((tmp_path / "a").resolve(),)
    with pytest.raises(UsageError, match="does not exist"):
        watch_roots(spec, [str(tmp_path / "nope")])
    with pytest.raises(UsageError, match="not a URL"):
        watch_roots(ServerSpec(url="https://example.invalid/mcp"))


def test_a_collection_outside_the_watched_folder_is_watched_too(tmp_path: Path) -> None:
    (tmp_path / "srv").mkdir()
    script = tmp_path / "srv" / "server.py"
    script.write_text("")
    inside = WatchPlan.for_spec(resolve_target(str(script)), tests=str(tmp_path / "srv" / "t.mcpx.yaml"))
    assert inside.roots == (script.parent.resolve(),)
    outside = WatchPlan.for_spec(resolve_target(str(script)), tests=str(tmp_path / "t.mcpx.yaml"))
    assert outside.roots == (script.parent.resolve(), (tmp_path / "t.mcpx.yaml").resolve())


def test_a_batch_names_its_files_and_knows_a_tests_only_change(tmp_path: Path) -> None:
    batch = ChangeBatch(tuple(str(tmp_path / n) for n in ("a.py", "b.py", "c.py", "d.py", "e.py")))
    assert batch.describe([tmp_path]) == "a.py, b.py, c.py and 2 more"
    assert not batch.only_collections
    assert ChangeBatch((str(tmp_path / "calc.mcpx.yaml"),)).only_collections
    assert not ChangeBatch(()).only_collections


def test_a_transient_file_is_no_change(tmp_path: Path) -> None:
    from watchfiles import Change

    from mcpx.watch.changes import _real

    real = tmp_path / "server.py"
    real.write_text("")
    temporary = str(tmp_path / "sedAb12x")  # written, then renamed over server.py
    changes = {(Change.added, temporary), (Change.deleted, temporary), (Change.modified, str(real))}
    assert _real(changes).paths == (str(real),)
    assert _real({(Change.deleted, str(tmp_path / "gone.py"))}).paths == (str(tmp_path / "gone.py"),)


def test_where_a_servers_collection_lives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpx.watch.paths import collection_for

    script = tmp_path / "calc.server.py"
    script.write_text("")
    assert collection_for(resolve_target(str(script))) == tmp_path.resolve() / "calc.mcpx.yaml"
    monkeypatch.chdir(tmp_path)
    assert collection_for(ServerSpec(url="https://x.invalid/mcp"), "Weather API") == (
        tmp_path.resolve() / "Weather-API.mcpx.yaml"
    )
    assert collection_for(ServerSpec(command=["uvx", "x"], name="time")).name == "time.mcpx.yaml"
