"""`mcpx call`'s words read without typer (cli/call_argv.py) give the command exactly what typer gives it,
and every command line it does not read the same way by construction is left to typer."""

from __future__ import annotations

import inspect
import typing
from typing import Any

import pytest
import typer

from mcpx.cli import call, call_argv, calling
from mcpx.cli.main import build_app


class Captured(Exception):
    def __init__(self, kwargs: dict[str, Any]) -> None:
        self.kwargs = kwargs


def capture(**kwargs: Any) -> Any:
    raise Captured(kwargs)


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(calling, "prepare", capture)
    # --allow-cross-origin-redirects sets a process-wide switch: keep it in this test
    monkeypatch.delenv("MCPX_ALLOW_CROSS_ORIGIN_REDIRECTS", raising=False)


def by_typer(words: list[str]) -> dict[str, Any]:
    command = typer.main.get_command(build_app("call"))
    with pytest.raises(Captured) as caught:
        command.main(args=["call", *words], prog_name="mcpx", standalone_mode=False)
    return caught.value.kwargs


def by_table(words: list[str]) -> dict[str, Any]:
    with pytest.raises(Captured) as caught:
        call_argv.run_call(words)
    return caught.value.kwargs


READ_ALIKE = [
    [],
    ["srv.py"],
    ["srv.py", "--method", "tools/list"],
    ["npx", "-y", "@scope/server", "--method", "tools/list"],
    ["srv.py", "--port", "8080", "--method=tools/call", "--tool-name", "t", "--tool-arg", "a=1",
     "--tool-arg", "b=[1, 2]"],
    ["srv.py", "-e", "A=1", "--env", "B=2", "--env=C==3", "-H", "X: y", "--header=Z: w", "--timeout", "2.5",
     "--max-total-timeout", "0", "--probe-timeout", ".5"],
    ["srv.py", "--", "--method", "-e", "A=1", "--help"],
    ["srv.py", "--method", "--", "more"],
    ["srv.py", "--method", "-e", "--tool-name", "--help"],
    ["srv.py", "--verify", "--task", "--advertise-apps", "--traffic", "--record", "f.jsonl",
     "--record-secrets", "--format", "json", "--method=ping"],
    ["--config", "c.json", "--server", "s", "--method", "ping", "extra", "words"],
    ["https://h/mcp", "--bearer", "t", "--secret-header", "X-Key", "--secret-header", "Y",
     "--server-url", "u", "--allow-cross-origin-redirects", "--oauth-client-id", "i",
     "--oauth-client-secret", "s", "--oauth-client-metadata-url", "https://m/x", "--oauth-scope", "a b",
     "--oauth-callback-port", "08080", "--oauth-no-browser", "--oauth-non-interactive"],
    ["srv.py", "--method", "a", "--method", "b", "--timeout", "1", "--timeout", "-1"],
    ["srv.py", "-", "", "-1", "--unknown=v", "---", "-yz", "--method="],
    ["srv.py", "--transport", "stdio", "--protocol-era", "legacy", "--protocol-version", "2025-06-18"],
    ["srv.py", "--elicit", "decline", "--sample", "@r.json", "--root", "file:///a", "--root", "/b",
     "--log-level", "debug", "--cursor", "c", "--params", "{}", "--uri", "u", "--prompt-name", "p",
     "--prompt-args", "k=v", "--tool-args-json", "{}", "--cwd", "/tmp", "--timeout", "5."],
]  # fmt: skip


@pytest.mark.parametrize("words", READ_ALIKE, ids=lambda words: " ".join(words)[:60] or "nothing")
@pytest.mark.usefixtures("captured")
def test_the_table_reads_what_typer_reads(words: list[str]) -> None:
    assert by_table(words) == by_typer(words)


LEFT_TO_TYPER = [
    ["srv.py", "--help"],
    ["-h"],
    ["srv.py", "--help=x"],
    ["srv.py", "-yh"],
    ["srv.py", "-eA=1"],
    ["srv.py", "-e=A=1"],
    ["srv.py", "-ye", "A=1"],
    ["srv.py", "--timeout"],
    ["srv.py", "--timeout", "1e3"],
    ["srv.py", "--timeout", "soon"],
    ["srv.py", "--timeout", "1.2.3"],
    ["srv.py", "--oauth-callback-port", "80.5"],
    ["srv.py", "--verify=yes"],
]


@pytest.mark.parametrize("words", LEFT_TO_TYPER, ids=" ".join)
def test_what_the_table_does_not_read_alike_is_left_to_typer(words: list[str]) -> None:
    assert call_argv.parse(words) is None


def _kind(annotation: Any) -> str:
    hint = typing.get_args(annotation)[0]  # Annotated[T, typer.Option(...)]
    args = [a for a in typing.get_args(hint) if a is not type(None)] or [hint]
    hint = args[0]
    if typing.get_origin(hint) is list:
        return "list"
    return {bool: "flag", int: "int", float: "float", str: "str"}[hint]


def test_the_table_is_typers_declaration() -> None:
    command = typer.main.get_command(build_app("call")).commands["call"]  # type: ignore[attr-defined]
    declared = {p.name: p for p in command.params}
    assert declared.pop("target").nargs == 1
    assert declared.pop("server_args").nargs == -1
    signature = inspect.signature(call.command)
    table = {name: (words, kind, default) for name, words, kind, default in call_argv.OPTIONS}
    assert list(table) == list(declared)  # every option, in --help's order
    for name, param in declared.items():
        words, kind, default = table[name]
        assert set(words) == set(param.opts) and not param.secondary_opts, name
        assert kind == _kind(signature.parameters[name].annotation), name
        assert default == param.default, name
    own = set(inspect.signature(call.command.__wrapped__).parameters)  # type: ignore[attr-defined]
    assert set(signature.parameters) - own == call_argv.CONNECTION


@pytest.mark.usefixtures("captured")
def test_a_near_miss_of_an_option_goes_to_the_server_and_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    # --tool-args (for --tool-arg) is the server's by the contract; a server that ignores it would answer a
    # call with no arguments, so mcpx says what it did with the word and what was probably meant
    kwargs = by_table(["srv.py", "--method", "tools/call", "--tool-name", "echo", "--tool-args", "text=hi"])
    assert kwargs["connection"].server_args == ["--tool-args", "text=hi"]
    err = capsys.readouterr().err
    assert "--tool-args is not an option of mcpx call" in err and "did you mean --tool-arg?" in err
    by_table(["npx", "-y", "@scope/server", "--kubeconfig", "k", "--port", "1", "--method", "tools/list"])
    by_table(["srv.py", "--method", "tools/list", "--", "--tool-args", "x"])  # after --: meant for it
    assert capsys.readouterr().err == ""
