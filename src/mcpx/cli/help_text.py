"""What `--help` shows, put right in one place over the click commands typer builds.

Typer names a value by its Python type (`target <str>`, `--env <list[str]>`), cuts each command's summary
with "..." and leaves an option without help silent. Here every option gets a metavar that says what to
type (`--tool-arg KEY=VALUE`, `--timeout SECONDS`), a help line where the command gave none, its default
shown when it has one, `[required]` where the command cannot run without it, each command its full first
sentence as the summary, and `call` its examples and exit codes. `tests/unit/test_cli_help.py` checks
every command.
"""

from __future__ import annotations

from typing import Any

from mcpx.target import TRANSPORT_NAMES

METAVARS = {
    "--method": "METHOD",
    "--tool-name": "NAME",
    "--tool-arg": "KEY=VALUE",
    "--tool-args-json": "JSON",
    "--uri": "URI",
    "--prompt-name": "NAME",
    "--prompt-args": "KEY=VALUE",
    "--params": "JSON",
    "--cursor": "CURSOR",
    "--log-level": "LEVEL",
    "--env": "KEY=VALUE",
    "--cwd": "DIR",
    "--header": '"NAME: VALUE"',
    "--transport": "|".join(TRANSPORT_NAMES),
    "--config": "FILE",
    "--server": "NAME",
    "--timeout": "SECONDS",
    "--max-total-timeout": "SECONDS",
    "--probe-timeout": "SECONDS",
    "--tool-timeout": "SECONDS",
    "--protocol-era": "legacy|auto|modern",
    "--protocol-version": "VERSION",
    "--bearer": "TOKEN",
    "--secret-header": "NAME",
    "--server-url": "URL",
    "--oauth-client-id": "ID",
    "--oauth-client-secret": "SECRET",
    "--oauth-client-metadata-url": "URL",
    "--oauth-scope": "SCOPES",
    "--oauth-callback-port": "PORT",
    "--elicit": "ANSWER",
    "--sample": "REPLY",
    "--root": "URI|PATH",
    "--format": "text|json",
    "--record": "FILE",
    "--theme": "THEME",
    "--misbehave": "MODE",
    "--against": "TARGET",
    "--ignore": "JSONPATH",
    "--junit": "FILE",
    "--tests": "FILE",
    "--debounce": "MS",
    "--listen": "[HOST:]PORT",
    "--forward-header": "NAME",
    "--output": "FILE",
    "--select": "TEXT",
    "--only": "CHECKS",
    "--skip": "CHECKS",
    "--recording": "FILE",
}
#: where one command's option takes other values than the option of that name elsewhere
COMMAND_METAVARS = {("export", "--format"): "har|otlp-json"}
ARGUMENTS = {"target": "TARGET", "server_args": "SERVER_ARG", "a": "A", "b": "B"}
HELP = {
    "--tool-name": "The tool to call (tools/call).",
    "--uri": "The resource's URI (resources/read, resources/subscribe, resources/unsubscribe).",
    "--prompt-name": "The prompt to get (prompts/get).",
    "--log-level": "Ask the server for log messages at this level and above: debug, info, notice, warning, "
    "error, critical, alert, emergency.",
}
#: where one command's option means something else than the option of that name elsewhere
COMMAND_HELP = {
    ("inspect", "--timeout"): "Seconds to wait for each answer (progress resets it; default: the settings "
    "file's timeout, else 60).",
}
REQUIRED = {("call", "--method")}
EPILOGS = {
    "call": """\b
Examples:
  mcpx call ./server.py --method tools/list
  mcpx call ./server.py --method tools/call --tool-name add --tool-arg a=2 --tool-arg b=3
  mcpx call npx -y @modelcontextprotocol/server-everything --method prompts/list
  mcpx call https://host/mcp --method resources/read --uri file:///notes.md --format json
  mcpx call demo --method tools/call --tool-name echo --tool-arg text=hi

\b
Options mcpx does not know, after TARGET, are the server's; put server words
that mcpx would take as its own after --.

\b
Exit codes: 0 ok, 1 usage or unexpected, 3 auth required,
4 unreachable / server died / timed out, 5 tool error; on failure the last
stderr line is {"error": {"code": …, "message": …}}.""",
    "inspect": """\b
Examples:
  mcpx inspect ./server.py
  mcpx inspect npx -y @modelcontextprotocol/server-everything
  mcpx inspect https://host/mcp --record session.jsonl
  mcpx inspect                     (every server your hosts' configs list)""",
    "demo": """\b
Examples:
  mcpx demo
  mcpx demo --protocol-era legacy --record demo.jsonl
  mcpx call demo --method tools/list        (the same server from a script)
  mcpx demo --stdio                         (the server alone, for any client)""",
    "doctor": """\b
Examples:
  mcpx doctor https://host/mcp
  mcpx doctor ./server.py""",
    "check": """\b
Examples:
  mcpx check ./server.py
  mcpx check https://host/mcp --format json""",
    "test": """\b
Examples:
  mcpx test calc.mcpx.yaml
  mcpx test tests/ --junit out.xml
  mcpx test calc.mcpx.yaml --update        (re-record the expectations; review the diff)
Exit 0 all passed, 8 a test failed, 4 a server could not be reached. See docs/testing.md.""",
    "replay": """\b
Examples:
  mcpx replay session.jsonl                 (the recording in the TUI, no server)
  mcpx replay session.jsonl --against ./server.py --ignore '$..timestamp'
Exit 0 the same, 7 the server answers differently now (drift), 4 it could not be reached.""",
    "diff": """\b
Examples:
  mcpx diff before.jsonl ./server.py
  mcpx diff 'python old/server.py' 'python new/server.py' --ignore '$.serverInfo'
Exit 0 the same, 7 they differ.""",
    "mock": """\b
Examples:
  mcpx mock session.jsonl
  mcpx call mcpx mock session.jsonl --method tools/list    (a client starting the mock)""",
    "ls": """\b
Examples:
  mcpx ls
  mcpx ls --config .vscode/mcp.json --format json""",
    "proxy": """\b
Examples:
  mcpx proxy ./server.py                   (where a host's config ran ./server.py)
  mcpx proxy npx -y @modelcontextprotocol/server-everything
  mcpx proxy --listen 8765 https://host/mcp
  mcpx proxy install --host claude-desktop --all
Then: mcpx sessions, mcpx inspect --attach NAME. See docs/proxy.md.""",
    "sessions": """\b
Examples:
  mcpx sessions
  mcpx sessions --live --format json
  mcpx inspect --attach NAME                (watch a live one)""",
    "export": """\b
Examples:
  mcpx export session.jsonl -o session.har
  mcpx export NAME --format otlp-json -o traces.json   (a proxied session, by name)""",
    "watch": """\b
Examples:
  mcpx watch ./server.py
  mcpx watch ./server.py --tests calc.mcpx.yaml
  mcpx watch node build/index.js --watch-path src""",
    "auth": """\b
Examples:
  mcpx auth login https://host/mcp
  mcpx auth status
  mcpx auth token https://host/mcp         (the token alone, for curl and other tools)""",
}


def polish(command: Any, path: str = "") -> None:
    """Apply the above to `command` and every command under it."""
    name = path or command.name or ""
    if command.help and not command.short_help:
        command.short_help = _first_sentence(command.help)
    if name in EPILOGS and not command.epilog:
        command.epilog = EPILOGS[name]
    for param in command.params:
        _polish_param(name, param)
    for sub_name, sub in (getattr(command, "commands", None) or {}).items():
        polish(sub, f"{name} {sub_name}".strip() if path else sub_name)


def _polish_param(command: str, param: Any) -> None:
    # typer vendors click and names a value by its type in `display_type`: say what to type instead
    if param.param_type_name == "argument":
        param.metavar = ARGUMENTS.get(param.name or "", (param.name or "ARG").upper())
        param.display_type = lambda ctx: ""  # the name says it; typer would add "<str>"
        return
    if param.param_type_name != "option":
        return
    long = next((o for o in param.opts if o.startswith("--")), param.opts[0])
    if not param.is_flag:
        fallback = METAVARS.get(long, long.lstrip("-").split("-")[-1].upper())
        _show_as(param, COMMAND_METAVARS.get((command, long), fallback))
    if (command, long) in COMMAND_HELP:
        param.help = COMMAND_HELP[command, long]
    elif not param.help and long in HELP:
        param.help = HELP[long]
    if (command, long) in REQUIRED and "[required]" not in (param.help or ""):
        param.help = f"{param.help or ''}  [required]".strip()
    # a default worth showing is shown, the same way everywhere; none, False and [] say nothing
    param.show_default = _worth_showing(param.default) and not param.is_flag


def _show_as(param: Any, metavar: str) -> None:
    param.metavar = metavar
    param.display_type = lambda ctx: metavar


def _worth_showing(default: Any) -> bool:
    return default not in (None, False, (), []) and not callable(default)


def _first_sentence(text: str) -> str:
    paragraph = text.strip().split("\n\n", 1)[0].replace("\n", " ")
    for end in (". ", "; "):
        if end in paragraph:
            return paragraph.split(end, 1)[0].rstrip(".") + "."
    return paragraph
