"""Every command's `--help`, found by walking the CLI (a new command is checked without being listed here),
read the way `mcpx … -h` prints it: through `mcpx.cli.main.run`, in this process (no interpreter start per
command), at a narrow and a wide terminal."""

from __future__ import annotations

import re
import shlex
import sys
from typing import Any

import pytest
import typer

from mcpx.cli import proxy_install
from mcpx.cli.main import COMMANDS, SUB_APPS, build_app, run

#: Python types as typer names values: the user types a file, seconds or KEY=VALUE, not a `<str>`
PYTHON_TYPE = re.compile(r"<(str|int|float|bool|path|list\[[a-z]+\]|[a-z]+ \| none)>", re.IGNORECASE)
#: the only "..." click may print: "this argument repeats", never a summary cut short
REPEATS = re.compile(r"(\]|[A-Z_]+|\})\.\.\.")


def _all_commands() -> list[str]:
    words = list(COMMANDS)
    root = typer.main.get_command(build_app())
    for name in SUB_APPS:
        sub = root.commands[name]  # type: ignore[attr-defined]
        words += [name, *(f"{name} {verb}" for verb in sub.commands)]
    verbs = typer.main.get_command(proxy_install.app).commands  # type: ignore[attr-defined]
    return words + [f"proxy {verb}" for verb in verbs]


ALL = _all_commands()
#: option names that already say what to type
KINDS = {"NAME", "URL", "URI", "ID", "JSON", "SECRET", "PORT", "HOST", "PATH", "VERSION", "CURSOR", "METHOD"}
KINDS |= {"LEVEL", "THEME"}


def _help(words: list[str], monkeypatch: Any, capsys: Any, width: int) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setattr(sys, "argv", ["mcpx", *words])
    with pytest.raises(SystemExit) as ended:
        run()
    shown = capsys.readouterr()
    assert ended.value.code in (0, None), shown.err
    assert shown.out.startswith("Usage: mcpx"), shown.out
    return str(shown.out)


def _options(text: str) -> list[str]:
    """Each option's entry: its line and the lines that continue it."""
    entries: list[str] = []
    for line in text.split("\nOptions:", 1)[-1].split("\n\n", 1)[0].splitlines():
        if line.startswith("  -"):
            entries.append(line.strip())
        elif entries:
            entries[-1] += "  " + line.strip()
    return entries


def test_the_walk_finds_the_commands_added_since_the_list_was_written() -> None:
    assert {"test", "watch", "proxy", "proxy install", "sessions", "export", "auth token"} <= set(ALL)


@pytest.mark.parametrize("width", [60, 160])
def test_every_command_says_what_to_type_and_explains_every_option(
    width: int, monkeypatch: Any, capsys: Any
) -> None:
    problems: list[str] = []
    for command in ["", *ALL]:
        words = command.split()
        text = _help([*words, "-h"], monkeypatch, capsys, width)
        if text != _help([*words, "--help"], monkeypatch, capsys, width):
            problems.append(f"mcpx {command} -h differs from --help")
        if found := PYTHON_TYPE.search(text):
            problems.append(f"mcpx {command}: a Python type {found.group()!r}")
        if "..." in REPEATS.sub("", text):
            problems.append(f"mcpx {command}: '...' cuts something short")
        options = _options(text)
        if not any(entry.startswith("-h, --help") for entry in options):
            problems.append(f"mcpx {command}: -h is not offered")
        for entry in options:
            flag, *described = re.split(r"\s{2,}", entry, maxsplit=1)
            if not described or described[0].startswith("["):
                problems.append(f"mcpx {command}: {flag} has no help")
            # a metavar made up from the option's own name says nothing (`--listen LISTEN`), unless
            # that name is the kind of value (`--cursor CURSOR`)
            *names, value = flag.split()
            if names and value == names[-1].lstrip("-").split("-")[-1].upper() and value not in KINDS:
                problems.append(f"mcpx {command}: {flag} names its value after itself")
        if command and (" " not in command or command == "proxy install") and "Examples:" not in text:
            problems.append(f"mcpx {command}: no examples")
    assert not problems, "\n".join(problems)


def test_a_format_option_lists_what_it_takes(monkeypatch: Any, capsys: Any) -> None:
    """`--format` is text|json almost everywhere; where it takes other values, its metavar says them."""
    text = _help(["export", "-h"], monkeypatch, capsys, 120)
    assert re.search(r"--format har\|otlp-json\s", text), text


def test_every_example_in_help_parses(monkeypatch: Any, capsys: Any) -> None:
    """Each `mcpx …` line under "Examples:" is taken by the command it names (no unknown option, no
    missing value): parsed, not run."""
    root = typer.main.get_command(build_app())
    verbs = typer.main.get_command(proxy_install.app)
    seen = 0
    for command in ALL:
        text = _help([*command.split(), "-h"], monkeypatch, capsys, 200)
        for line in text.split("Examples:", 1)[1:] and text.split("Examples:", 1)[1].splitlines():
            if not line.strip().startswith("mcpx "):
                continue
            words = shlex.split(re.sub(r"\s{2,}\(.*\)$", "", line.strip()))[1:]
            group: Any = verbs if words[:2] in (["proxy", "install"], ["proxy", "uninstall"]) else root
            words = words[1:] if group is verbs else words
            while getattr(group, "commands", None):  # typer's vendored click: no click.Group
                group = group.commands[words.pop(0)]
            group.make_context(group.name, words)  # raises on an unknown option or a missing value
            seen += 1
    assert seen >= 30, seen


def test_the_proxy_offers_no_flag_it_would_ignore(monkeypatch: Any, capsys: Any) -> None:
    """The host chooses the era and waits for its own answers: `mcpx proxy` relays, so a timeout or an era
    flag would be accepted and do nothing; `mcpx call` has them."""
    relay = " ".join(_options(_help(["proxy", "-h"], monkeypatch, capsys, 200)))
    call = " ".join(_options(_help(["call", "-h"], monkeypatch, capsys, 200)))
    for flag in ("--timeout", "--protocol-era", "--probe-timeout"):
        assert flag not in relay and flag in call
