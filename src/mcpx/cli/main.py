"""The `mcpx` command: a thin typer face over the core.

Non-TUI commands never import Textual, and each command imports what it needs when it runs, so
`mcpx call` starts fast. Every failure ends in one sentence and one JSON line on stderr with an exit code
scripts can trust: 0 ok, 1 usage/unexpected, 3 auth required, 4 unreachable/died/timed out, 5 tool error
(6 check failures, 7 replay/diff drift, 8 a test of `mcpx test` failed).
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, NoReturn

from mcpx.__about__ import __version__
from mcpx.errors import McpxError, UsageError

if TYPE_CHECKING:
    import asyncio

    import typer

_HELP = {"help_option_names": ["-h", "--help"]}
# TARGET [server args…]: mcpx's flags mix with the server's words, and an option mcpx does not know is the
# server's (`mcpx call npx -y @scope/server --method tools/list`), as the official inspector's --cli takes it
_SERVER_CONTEXT = {**_HELP, "allow_interspersed_args": True, "ignore_unknown_options": True}
#: every command: its module, and whether it takes TARGET [server args…] (its flags mix with the server's
#: words). A run imports only the module of the command it runs (a module per command costs 5–20 ms).
COMMANDS: dict[str, tuple[str, bool]] = {
    "call": ("mcpx.cli.call", True),
    "inspect": ("mcpx.cli.inspect", True),
    "doctor": ("mcpx.cli.doctor", True),
    "check": ("mcpx.cli.check", True),
    "replay": ("mcpx.cli.replay", True),
    "diff": ("mcpx.cli.diff", False),
    "mock": ("mcpx.cli.mock", False),
    "demo": ("mcpx.cli.demo", False),
    "ls": ("mcpx.cli.ls", False),
    "proxy": ("mcpx.cli.proxy", True),
    "sessions": ("mcpx.cli.sessions", False),
    "export": ("mcpx.cli.export", False),
    "test": ("mcpx.cli.testing", False),
    "watch": ("mcpx.cli.watch", True),
}
SUB_APPS = {"auth": "mcpx.cli.auth"}


def build_app(only: str | None = None) -> typer.Typer:
    """The typer app with every command, or with just `only` (what a run of that command needs)."""
    import importlib

    import typer

    from mcpx.cli import light_params

    light_params.install()  # plain values without pydantic (light_params.py says why)
    app = typer.Typer(
        name="mcpx",
        help="A terminal inspector and debugger for MCP servers.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings=_HELP,
    )
    app.callback()(_main_callback())
    for name, (module, takes_server) in COMMANDS.items():
        if only is None or only == name:
            command = importlib.import_module(module).command
            app.command(name, context_settings=_SERVER_CONTEXT if takes_server else _HELP)(command)
    for name, module in SUB_APPS.items():
        if only is None or only == name:
            app.add_typer(importlib.import_module(module).app, name=name)
    return app


def __getattr__(name: str) -> typer.Typer:
    # `app`, the whole CLI, is built when first asked for (tests drive it with typer's CliRunner)
    if name == "app":
        globals()["app"] = built = build_app()
        return built
    raise AttributeError(name)


class InterruptedError_(McpxError):
    code = "interrupted"
    exit_code = 130


def _main_callback() -> Callable[..., None]:
    import typer

    def version_callback(value: bool) -> None:
        if value:
            typer.echo(f"mcpx {__version__}")
            raise typer.Exit()

    def main(
        version: bool = typer.Option(
            False, "--version", callback=version_callback, is_eager=True, help="Show the version."
        ),
    ) -> None:
        """mcpx: see what your MCP server really does."""

    return main


def execute(fmt: str, prepare: Callable[[], Coroutine[Any, Any, int]], loop: str = "uvloop") -> None:
    """Check the flags (`prepare`), run the command's coroutine, and end with its exit code (typer.Exit)."""
    import typer

    raise typer.Exit(outcome(fmt, prepare, loop))


def outcome(fmt: str, prepare: Callable[[], Coroutine[Any, Any, int]], loop: str = "uvloop") -> int:
    """Check the flags (`prepare`), run the command's coroutine on `loop` (uvloop or asyncio; $MCPX_LOOP
    overrides it), and turn every outcome into an exit code."""
    try:
        coroutine = prepare()
    except McpxError as exc:
        print_error(exc, fmt)
        return exc.exit_code
    return _run_async(coroutine, fmt, loop)


def print_error(error: McpxError, fmt: str) -> None:
    # imported when needed: this module is imported before `run()` sets the garbage collector aside
    from mcpx.cli.output import print_error

    print_error(error, fmt)


def _run_async(coroutine: Coroutine[Any, Any, int], fmt: str, loop: str = "uvloop") -> int:
    import asyncio

    async def guarded() -> int:
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        received: list[int] = []

        def stop(signum: int) -> None:
            received.append(signum)
            if task is not None:
                task.cancel()

        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, stop, signum)
        try:
            return await coroutine
        except asyncio.CancelledError:
            if received:
                name = signal.Signals(received[0]).name
                error = InterruptedError_(f"interrupted by {name}; the server was stopped")
                error.exit_code = 128 + received[0]
                raise error from None
            raise

    try:
        return _loop_run(guarded, loop)
    except McpxError as exc:
        print_error(exc, fmt)
        return exc.exit_code
    except KeyboardInterrupt:
        print_error(InterruptedError_("interrupted; the server was stopped"), fmt)
        return 130
    except RecursionError:
        print_error(McpxError("a message was nested too deeply to handle"), fmt)
        return 1
    except Exception as exc:
        if os.environ.get("MCPX_DEBUG"):
            raise
        print_error(
            McpxError(f"unexpected error: {type(exc).__name__}: {exc} (set MCPX_DEBUG=1 for details)"), fmt
        )
        return 1


def _loop_run(main: Callable[[], Coroutine[Any, Any, int]], loop: str = "uvloop") -> int:
    """Run on uvloop where it exists (measurably faster per frame, see docs/performance.md) unless the
    command asks for asyncio's own loop."""
    import asyncio

    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    if os.environ.get("MCPX_LOOP", loop) == "uvloop":
        try:
            import uvloop

            factory = uvloop.new_event_loop
        except ImportError:
            factory = None
    if sys.version_info >= (3, 11):
        with asyncio.Runner(loop_factory=factory) as runner:
            return runner.run(main())
    if factory is not None:  # pragma: no cover - Python 3.10
        asyncio.set_event_loop_policy(__import__("uvloop").EventLoopPolicy())
    return asyncio.run(main())  # pragma: no cover


def run() -> None:
    """Console-script entry: usage errors become one sentence, one JSON line and exit 1."""
    words = sys.argv[1:]
    fmt = "json" if _wants_json(words) else "text"
    if words[:1] == ["call"]:
        # The common `mcpx call` is read without typer (call_argv.py says why); None: typer reads it.
        # Its imports build ~100,000 objects that live until the process ends: the garbage collector
        # would walk them again and again meanwhile (~10 ms of CPU), so it stays off while they load,
        # and afterwards never looks at them again (`freeze`) while it collects what the run makes.
        gc.disable()
        try:
            from mcpx.cli.call_argv import run_call
        finally:
            gc.freeze()
            gc.enable()
        code = _unexpected(fmt, run_call, words[1:])
        if code is not None:
            _end(code)
    _run_typer(words, fmt)


def _end(code: int) -> NoReturn:
    """End a finished `mcpx call` without tearing the interpreter down: that teardown (a last garbage
    collection, then every module's objects freed one by one) cost ~25 ms of CPU, a sixth of the run,
    to free memory the system takes back anyway. What a normal exit does that matters still happens:
    the `atexit` functions run (the stdio transport's net for servers still alive) and the output is
    flushed. Only for a process that runs `run()` as its program (the console script, `python -m mcpx`).
    """
    import atexit

    try:
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def _run_typer(words: list[str], fmt: str) -> NoReturn:
    import typer

    first = words[0] if words else None
    if first == "proxy" and words[1:2] in (["install"], ["uninstall"]):
        # verbs of their own (with their own --help), not a server called "install"
        from mcpx.cli.proxy_install import run_verb

        try:
            run_verb(words[1], words[2:])
        except typer.Exit as exc:
            sys.exit(exc.exit_code)
        sys.exit(0)
    command = typer.main.get_command(build_app(first if first in COMMANDS or first in SUB_APPS else None))
    if "-h" in words or "--help" in words or not words or first in SUB_APPS:
        from mcpx.cli.help_text import polish  # only help reads it: a call does not pay for it

        polish(command)
    try:
        code = command.main(args=words, prog_name="mcpx", standalone_mode=False)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        print_error(InterruptedError_("interrupted"), fmt)
        sys.exit(130)
    except typer.TyperException as exc:  # click's usage errors, as vendored by typer
        ctx = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
            typer.echo(ctx.get_help())
            sys.exit(0)
        message = exc.format_message()
        if ctx is not None:
            message += f" (see: {ctx.command_path} --help)"
        print_error(UsageError(message), fmt)
        sys.exit(1)
    except Exception as exc:  # a bug of ours still ends in one sentence and the JSON line
        _unexpected_error(exc, fmt)
    sys.exit(code if isinstance(code, int) else 0)


def _unexpected(fmt: str, fn: Callable[..., int | None], *args: Any) -> int | None:
    try:
        return fn(*args)
    except Exception as exc:  # a bug of ours
        _unexpected_error(exc, fmt)


def _unexpected_error(exc: Exception, fmt: str) -> NoReturn:
    """A bug of ours still ends in one sentence and the JSON line (MCPX_DEBUG=1: the traceback)."""
    if os.environ.get("MCPX_DEBUG"):
        raise exc
    print_error(
        McpxError(f"unexpected error: {type(exc).__name__}: {exc} (set MCPX_DEBUG=1 for details)"), fmt
    )
    sys.exit(1)


def _wants_json(argv: list[str]) -> bool:
    for index, word in enumerate(argv):
        if word == "--":
            return False
        if word == "--format=json" or (word == "--format" and argv[index + 1 : index + 2] == ["json"]):
            return True
    return False
