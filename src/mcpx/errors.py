"""Every error mcpx raises on purpose, in one tree (as httpx does), with the exit code the CLI maps it to.

    McpxError
    ├── UsageError                 bad user input: a flag, a file, a JSON argument            (exit 1)
    ├── ConnectError               the server could not be reached or started                (exit 4)
    │   ├── ServerExitedError      the server process ended (exit code and stderr tail)       (exit 4)
    │   └── SessionExpiredError    the HTTP server forgot the session (404); the client opens
    │                              a new one and retries, so users see it only if that fails  (exit 4)
    ├── RequestTimeoutError        no answer within the timeout (the request was cancelled)   (exit 4)
    ├── AuthRequiredError          the server wants credentials                               (exit 3)
    │   └── AuthFailedError        signing in failed at one step (expected vs got)            (exit 3)
    ├── ProtocolError              the server broke the protocol (e.g. an unknown version)    (exit 1)
    │   ├── UnsupportedVersionError
    │   └── ServerFailedError      it answered with no MCP at all: an HTTP 5xx, an HTML or
    │                              text page where JSON belongs — the server failing          (exit 4)
    ├── RpcError                   the server answered with a JSON-RPC error                  (exit 1)
    └── ToolError                  a tool answered isError, or does not exist                 (exit 5)

The module imports nothing of mcpx so every floor can raise these.
"""

from __future__ import annotations

from typing import Any


class McpxError(Exception):
    """Base of every error mcpx raises on purpose."""

    code: str = "unexpected"
    exit_code: int = 1

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        body.update({k: v for k, v in self.details.items() if v is not None})
        return {"error": body}


class UsageError(McpxError):
    code = "usage"
    exit_code = 1


class ConnectError(McpxError):
    code = "unreachable"
    exit_code = 4


class ServerExitedError(ConnectError):
    code = "server_exited"

    def __init__(
        self, message: str, *, returncode: int | None = None, stderr_tail: list[str] | None = None
    ) -> None:
        super().__init__(message, returncode=returncode, stderr_tail=stderr_tail)
        self.returncode = returncode
        self.stderr_tail = stderr_tail or []


class SessionExpiredError(ConnectError):
    """The server no longer knows the session the request carried (Streamable HTTP: 404).

    The transport has already forgotten the session id when it raises this; the client answers by opening
    a new session (the era's `open()`) and sending the request once more.
    """

    code = "session_expired"


class RequestTimeoutError(McpxError):
    code = "timeout"
    exit_code = 4


class AuthRequiredError(McpxError):
    code = "auth_required"
    exit_code = 3


class AuthFailedError(AuthRequiredError):
    """Signing in (OAuth) stopped at one step: which step, what was expected and what came back."""

    code = "auth_failed"

    def __init__(self, step: str, message: str, **details: Any) -> None:
        super().__init__(f"sign-in failed at {step}: {message}", step=step, **details)
        self.step = step


class ProtocolError(McpxError):
    code = "protocol"
    exit_code = 1


class UnsupportedVersionError(ProtocolError):
    code = "unsupported_protocol_version"


class ServerFailedError(ProtocolError):
    """Not a subtle protocol slip but a server (or what stands in front of it) failing: scripts treat it
    like an unreachable server (exit 4), not like a usage error."""

    code = "server_failed"
    exit_code = 4


class RpcError(McpxError):
    """The peer answered a request with a JSON-RPC error object."""

    code = "rpc_error"
    exit_code = 1

    def __init__(self, method: str, error_code: int, error_message: str, data: Any = None) -> None:
        super().__init__(
            f"{method} failed: {error_message} (JSON-RPC error {error_code})",
            method=method,
            rpc_code=error_code,
            data=data,
        )
        self.method = method
        self.error_code = error_code
        self.error_message = error_message
        self.data = data


class ToolError(McpxError):
    code = "tool_error"
    exit_code = 5
