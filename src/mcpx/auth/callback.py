"""How the authorization response comes back: a loopback redirect, a pasted address, or a bare GET.

* `Loopback`: a one-shot HTTP listener on 127.0.0.1 (never another interface) that takes the first
  `/callback?...` request, answers with a short page and closes.
* `paste_from_terminal`: for a browser that cannot reach the loopback port (SSH), the user pastes the
  address the browser was sent to.
* `follow_once`: `--oauth-non-interactive`, for authorization servers that approve at once (test servers,
  the conformance suite): GET the authorization URL without following redirects and read `Location`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

import httpx

from mcpx.errors import AuthFailedError
from mcpx.wire.waiting import within

CALLBACK_PATH = "/callback"
_PAGE = (
    "<!doctype html><meta charset=utf-8><title>mcpx</title>"
    "<body style='font-family:sans-serif'><h2>{title}</h2><p>{text}</p></body>"
)


@dataclass(frozen=True, slots=True)
class Redirect:
    """The parameters of the authorization response (code, state, iss, error, error_description)."""

    params: dict[str, str]
    source: str

    def get(self, name: str) -> str | None:
        return self.params.get(name)


def redirect_from_url(url: str, source: str) -> Redirect:
    parts = urlsplit(url.strip())
    params = dict(parse_qsl(parts.query, keep_blank_values=True))
    if not params and parts.fragment:
        params = dict(parse_qsl(parts.fragment, keep_blank_values=True))
    return Redirect(params, source)


class Loopback:
    """Listen on 127.0.0.1:`port` (0: any free port) for one redirect to `/callback`."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[Redirect] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def start(self) -> int:
        self._result = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        except OSError as exc:
            raise AuthFailedError(
                "callback", f"cannot listen on 127.0.0.1:{self.port} for the redirect ({exc.strerror or exc})"
            ) from None
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def wait(self) -> Redirect:
        assert self._result is not None
        return await self._result

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await within(reader.readline(), 10)
            while (await within(reader.readline(), 10)) not in (b"\r\n", b"\n", b""):
                pass
            parts = line.decode("latin-1").split()
            target = parts[1] if len(parts) >= 2 else "/"
            if not target.startswith(CALLBACK_PATH) or self._result is None or self._result.done():
                await _answer(writer, 404, "Not here", "mcpx waits for the redirect on /callback only.")
                return
            redirect = redirect_from_url(f"http://127.0.0.1{target}", "loopback")
            failed = redirect.get("error")
            title = "Sign-in was refused" if failed else "Signed in"
            text = "You can close this tab and go back to the terminal."
            await _answer(writer, 200, title, text)
            self._result.set_result(redirect)
        except (OSError, asyncio.TimeoutError, UnicodeError):
            pass
        finally:
            writer.close()


async def _answer(writer: asyncio.StreamWriter, status: int, title: str, text: str) -> None:
    body = _PAGE.format(title=title, text=text).encode()
    reason = "OK" if status == 200 else "Not Found"
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n"
    )
    writer.write(head.encode() + body)
    with contextlib.suppress(OSError):
        await writer.drain()


async def read_terminal_line() -> str | None:
    """One line typed on a terminal stdin, read without blocking the loop; None when stdin is no terminal."""
    if not sys.stdin.isatty():
        return None
    loop = asyncio.get_running_loop()
    done: asyncio.Future[str] = loop.create_future()
    fd = sys.stdin.fileno()
    chunks: list[bytes] = []

    def readable() -> None:
        data = os.read(fd, 4096)
        chunks.append(data)
        if (b"\n" in data or b"\r" in data or not data) and not done.done():
            done.set_result(b"".join(chunks).decode("utf-8", "replace"))

    try:
        loop.add_reader(fd, readable)
    except (NotImplementedError, ValueError, OSError):
        return None
    try:
        line = await done
    finally:
        loop.remove_reader(fd)
    return line.strip()


async def paste_from_terminal() -> Redirect | None:
    """Wait for the redirected address pasted on a terminal; None when stdin is no terminal."""
    line = await read_terminal_line()
    if line is None or ("?" not in line and "#" not in line):
        return None
    return redirect_from_url(line, "pasted")


async def follow_once(http: httpx.AsyncClient, url: str) -> Redirect:
    """GET the authorization URL without following redirects; the code is in `Location`."""
    try:
        response = await http.get(url, follow_redirects=False)
    except httpx.HTTPError as exc:
        raise AuthFailedError(
            "authorization", f"the authorization endpoint could not be reached ({exc or type(exc).__name__})"
        ) from None
    location = response.headers.get("location")
    if not response.is_redirect or not location:
        raise AuthFailedError(
            "authorization",
            f"--oauth-non-interactive expected a redirect with a code from the authorization endpoint; "
            f"got HTTP {response.status_code} with no Location (this server wants a person to sign in: "
            "leave out --oauth-non-interactive)",
        )
    return redirect_from_url(location, "redirect")
