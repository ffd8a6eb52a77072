"""`mcpx call`'s words read without typer, for a plain run: typer stays for help and for mistakes.

Importing typer (with the click it vendors) and building the command costs `mcpx call` ~30 ms of CPU at
every start — a sixth of its own start-up — to read a dozen words. This reads them by a table of the
command's options and hands calling.py exactly the values typer would. It reads only what it reads the
same way by construction, and returns None for everything else, so that typer reads the words as always
(its `--help`, its error messages): `-h`/`--help`, an option without its value, a value to a flag, a
number that is not plainly written, a dashed word that holds one of the short options (`-e`, `-H`, `-h`)
among unknown letters. Like typer here, a word mcpx does not know is the server's (`npx -y pkg`), `--`
ends mcpx's options, an option takes the next word as its value whatever it looks like, and the last
value of a repeated option wins.

tests/unit/test_call_argv.py holds the table to typer's declaration (call.py) and the result to
typer's over many command lines.
"""

from __future__ import annotations

import sys
from typing import Any

from mcpx.cli.calling import MAX_TOTAL_TIMEOUT

#: (parameter, its words, kind, default) for every option of `mcpx call`, as call.py declares them; the
#: kinds: "str", "int", "float" (one value), "list" (every value given, in order), "flag" (no value)
OPTIONS: list[tuple[str, tuple[str, ...], str, Any]] = [
    ("method", ("--method",), "str", None),
    ("tool_name", ("--tool-name",), "str", None),
    ("tool_arg", ("--tool-arg",), "list", None),
    ("tool_args_json", ("--tool-args-json",), "str", None),
    ("uri", ("--uri",), "str", None),
    ("prompt_name", ("--prompt-name",), "str", None),
    ("prompt_args", ("--prompt-args",), "list", None),
    ("params", ("--params",), "str", None),
    ("cursor", ("--cursor",), "str", None),
    ("log_level", ("--log-level",), "str", None),
    ("verify", ("--verify",), "flag", False),
    ("task", ("--task",), "flag", False),
    ("advertise_apps", ("--advertise-apps",), "flag", False),
    ("env", ("-e", "--env"), "list", None),
    ("cwd", ("--cwd",), "str", None),
    ("header", ("--header", "-H"), "list", None),
    ("transport", ("--transport",), "str", "auto"),
    ("config", ("--config",), "str", None),
    ("server", ("--server",), "str", None),
    ("timeout", ("--timeout",), "float", 60.0),
    ("max_total_timeout", ("--max-total-timeout",), "float", MAX_TOTAL_TIMEOUT),
    ("protocol_era", ("--protocol-era",), "str", "auto"),
    ("protocol_version", ("--protocol-version",), "str", None),
    ("probe_timeout", ("--probe-timeout",), "float", 2.0),
    ("bearer", ("--bearer",), "str", None),
    ("secret_header", ("--secret-header",), "list", None),
    ("server_url", ("--server-url",), "str", None),
    ("allow_cross_origin_redirects", ("--allow-cross-origin-redirects",), "flag", False),
    ("oauth_client_id", ("--oauth-client-id",), "str", None),
    ("oauth_client_secret", ("--oauth-client-secret",), "str", None),
    ("oauth_client_metadata_url", ("--oauth-client-metadata-url",), "str", None),
    ("oauth_scope", ("--oauth-scope",), "str", None),
    ("oauth_callback_port", ("--oauth-callback-port",), "int", None),
    ("oauth_no_browser", ("--oauth-no-browser",), "flag", False),
    ("oauth_non_interactive", ("--oauth-non-interactive",), "flag", False),
    ("elicit", ("--elicit",), "str", None),
    ("sample", ("--sample",), "str", None),
    ("root", ("--root",), "list", None),
    ("fmt", ("--format",), "str", "text"),
    ("traffic", ("--traffic",), "flag", False),
    ("record", ("--record",), "str", None),
    ("record_secrets", ("--record-secrets",), "flag", False),
]
#: the parameters that are connection flags (options.connection_flags' groups), not the command's own
CONNECTION = {
    "env", "cwd", "header", "transport", "config", "server", "timeout", "protocol_era", "protocol_version",
    "probe_timeout", "bearer", "secret_header", "server_url", "allow_cross_origin_redirects",
    "oauth_client_id", "oauth_client_secret", "oauth_client_metadata_url", "oauth_scope",
    "oauth_callback_port", "oauth_no_browser", "oauth_non_interactive",
}  # fmt: skip
_BY_WORD = {word: (name, kind) for name, words, kind, _ in OPTIONS for word in words}
#: the one-letter options (typer reads `-xe` as -x then -e: such a word is left to it), help's included
_SHORT = {word[1] for word in _BY_WORD if len(word) == 2} | {"h"}


def _number(kind: str, text: str) -> int | float | None:
    """A plainly written number (what every converter reads alike), else None."""
    digits = text[1:] if text[:1] == "-" else text
    if not digits.isascii():
        return None
    if kind == "int":
        return int(text) if digits.isdigit() else None
    whole, _, fraction = digits.partition(".")  # a second "." stays in `fraction`: not a digit
    return float(text) if (whole + fraction).isdigit() else None


def parse(words: list[str]) -> dict[str, Any] | None:
    """The keyword arguments typer would give `mcpx call`'s function for `words` (what follows `call`),
    or None where typer must read them itself."""
    values: dict[str, Any] = {name: default for name, _, _, default in OPTIONS}
    positional: list[str] = []
    strays: list[str] = []  # long options mcpx does not know, given before any `--`
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            positional.extend(words[index:])
            break
        if len(word) < 2 or word[0] != "-":
            positional.append(word)
            continue
        name, sep, value = word.partition("=")
        known = _BY_WORD.get(name)
        if known is None:
            if word in ("-h", "--help") or name in ("-h", "--help"):
                return None
            if word[1] != "-" and _SHORT & set(word[1:]):
                return None  # -xe… : typer's short-option reading
            positional.append(word)  # the server's
            if name.startswith("--") and len(name) > 4:
                strays.append(name)
            continue
        if len(name) == 2 and sep:
            return None  # -e=…: typer reads "=…" as the value
        param, kind = known
        if kind == "flag":
            if sep:
                return None  # --verify=…: typer's error
            values[param] = True
            continue
        if not sep:
            if index >= len(words):
                return None  # no value: typer's error
            value = words[index]
            index += 1
        if kind == "list":
            values[param] = [*(values[param] or []), value]
        elif kind == "str":
            values[param] = value
        else:
            number = _number(kind, value)
            if number is None:
                return None  # typer's conversion, or its error
            values[param] = number
    values["target"] = positional[0] if positional else None
    values["server_args"] = positional[1:] or None
    values[STRAYS] = strays
    return values


#: parse()'s list of the unknown long options given before `--` (not one of the command's parameters)
STRAYS = "_strays"


def near_misses(strays: list[str]) -> list[str]:
    """A sentence for each unknown option that is nearly one of mcpx's (`--tool-args` for `--tool-arg`):
    it goes to the server as the contract says, and a server that ignores it would leave the mistake
    unseen (a tool called with no arguments)."""
    if not strays:
        return []
    import difflib

    ours = [word for word in _BY_WORD if word.startswith("--")]
    notes = []
    for stray in strays:
        close = difflib.get_close_matches(stray, ours, n=1, cutoff=0.85)
        if close:
            notes.append(
                f"{stray} is not an option of mcpx call, so it goes to the server (did you mean {close[0]}? "
                f"a word for the server that mcpx would take as its own goes after --)"
            )
    return notes


def run_call(words: list[str]) -> int | None:
    """Run `mcpx call` with `words` and return its exit code, or None: typer must read these words."""
    values = parse(words)
    if values is None:
        return None
    for note in near_misses(values.pop(STRAYS)):
        print(f"mcpx: {note}", file=sys.stderr)
    from mcpx.cli import calling
    from mcpx.cli.connection import ConnectionOptions
    from mcpx.cli.main import outcome

    connection = ConnectionOptions.from_flags(values["target"], values["server_args"], values)
    own = {name: value for name, value in values.items() if name not in CONNECTION}
    del own["target"], own["server_args"]
    return outcome(values["fmt"], calling.prepare(connection=connection, **own), calling.LOOP)
