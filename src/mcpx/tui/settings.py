"""Settings of `mcpx inspect`, passed into the app factory (never read from a global).

`InspectSettings.load()` reads, lowest precedence first: the defaults, the `[inspect]` table of the config
file (`$MCPX_CONFIG_FILE`, else `config.toml` in `$MCPX_CONFIG_DIR` or the platformdirs config dir of
mcpx), then `MCPX_*` environment variables, then the CLI's flags (`load(**overrides)`). Tests build
settings directly, or call `load()` with a temporary directory and an empty environment.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpx.errors import UsageError
from mcpx.protocol.names import LOG_LEVELS

if TYPE_CHECKING:
    from mcpx.protocol.options import SessionOptions


@dataclass(frozen=True, slots=True)
class InspectSettings:
    """Everything `mcpx inspect` can be told, besides the server it talks to."""

    #: Textual theme name
    theme: str = "textual-dark"
    #: binding id → keys, e.g. {"reconnect": "ctrl+r"} (see the help screen for ids)
    keymap: dict[str, str] = field(default_factory=dict)
    #: seconds a request may take (None: forever)
    timeout: float | None = 60.0
    #: seconds the handshake may take (None: the request timeout)
    connect_timeout: float | None = None
    #: legacy | auto | modern
    protocol_era: str = "auto"
    #: a protocol revision to insist on (None: the newest mcpx speaks)
    protocol_version: str | None = None
    #: seconds `auto` waits for server/discover before falling back to the handshake
    probe_timeout: float = 2.0
    #: send logging/setLevel with this level once connected (None: leave the server's default)
    log_level: str | None = None
    #: the traffic log starts in follow mode
    follow: bool = True
    #: lines of the server's stderr shown in the banner when it dies
    stderr_tail: int = 8
    #: declare MCP Apps support (servers may list app tools only to clients that do)
    advertise_apps: bool = False

    @classmethod
    def load(
        cls,
        environ: Mapping[str, str] | None = None,
        config_dir: str | os.PathLike[str] | None = None,
        **overrides: Any,
    ) -> InspectSettings:
        """Defaults ← config file ← `MCPX_*` environment ← `overrides` (flags)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        path = config_path(env, config_dir)
        if path is not None and path.is_file():
            values.update(_read_config(path))
        names = {f.name for f in fields(cls)}
        for name in names:
            raw = env.get(f"MCPX_{name.upper()}")
            if raw is not None and name != "keymap":
                values[name] = raw
        values.update(overrides)
        unknown = set(values) - names
        if unknown:
            raise UsageError(f"unknown inspect setting(s): {', '.join(sorted(unknown))}")
        return replace(cls(), **{k: _coerce(k, v) for k, v in values.items()})


def session_options(settings: InspectSettings, **extra: Any) -> SessionOptions:
    """How to talk to the server, from the settings' era and timeouts (the one `SessionOptions` every face
    hands to `open_session()`); `extra` adds what the app answers with (roots, on_elicit, on_sample, …)."""
    from mcpx.protocol.options import SessionOptions, check_era

    if settings.advertise_apps and "extensions" not in extra:
        from mcpx.protocol import apps

        extra["extensions"] = {apps.APPS_EXTENSION: apps.capability()}
    return SessionOptions(
        era=check_era(settings.protocol_era),
        protocol_version=settings.protocol_version,
        probe_timeout=settings.probe_timeout,
        timeout=settings.timeout,
        connect_timeout=settings.connect_timeout,
        **extra,
    )


def config_path(environ: Mapping[str, str], config_dir: str | os.PathLike[str] | None = None) -> Path | None:
    explicit = environ.get("MCPX_CONFIG_FILE")
    if explicit:
        return Path(explicit)
    if config_dir is None:
        config_dir = environ.get("MCPX_CONFIG_DIR") or None
    if config_dir is None:
        try:
            from platformdirs import user_config_dir
        except ImportError:  # pragma: no cover - platformdirs is a dependency
            return None
        config_dir = user_config_dir("mcpx")
    return Path(config_dir) / "config.toml"


def _read_config(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10: tomli is a declared dependency there
        import tomli as tomllib
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the config file {str(path)!r}: {exc}") from None
    table = data.get("inspect", {})
    if not isinstance(table, dict):
        raise UsageError(f"[inspect] in {str(path)!r} must be a table")
    return table


def _coerce(name: str, value: Any) -> Any:
    """Turn strings from the environment into the field's type; say clearly what is wrong."""
    try:
        if name in ("timeout", "connect_timeout"):
            if value is None or (isinstance(value, str) and value.lower() in ("", "none", "0")):
                return None
            return float(value)
        if name == "probe_timeout":
            return float(value)
        if name == "stderr_tail":
            return int(value)
        if name in ("follow", "advertise_apps"):
            if isinstance(value, bool):
                return value
            return str(value).lower() in ("1", "true", "yes", "on")
        if name == "keymap":
            if not isinstance(value, dict):
                raise ValueError("expected a table of binding id = keys")
            return {str(k): str(v) for k, v in value.items()}
        if name == "log_level" and value is not None and value not in LOG_LEVELS:
            raise ValueError(f"expected one of {', '.join(LOG_LEVELS)}")
    except ValueError as exc:
        raise UsageError(f"the inspect setting {name} = {value!r} is not valid: {exc}") from None
    return value
