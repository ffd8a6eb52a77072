"""The network steps of `mcpx doctor URL`: DNS, TLS (certificate problems in words), the first HTTP
answer with httpx's trace timings (connect, TLS, first byte), and authorization discovery on a 401.

Each function returns the doctor's `Step`; none raises for what the network or the server does.
"""

from __future__ import annotations

import asyncio
import shlex
import socket
import ssl
import time
from typing import TYPE_CHECKING, Any

import httpx

from mcpx.wire.waiting import within

if TYPE_CHECKING:
    from mcpx.check.doctor import Step

#: OpenSSL's verify codes for the certificate problems people meet
EXPIRED, NOT_YET_VALID = 10, 9
SELF_SIGNED, SELF_SIGNED_IN_CHAIN = 18, 19
UNKNOWN_ISSUER, UNKNOWN_ISSUER_LEAF = 20, 21
HOSTNAME_MISMATCH, IP_MISMATCH = 62, 64
PROBE_BODY = (
    '{"jsonrpc":"2.0","id":"mcpx-doctor","method":"server/discover","params":{"_meta":{'
    '"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":'
    '{"name":"mcpx-doctor","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}'
)


def _step(*args: Any, **kwargs: Any) -> Step:
    from mcpx.check.doctor import Step

    return Step(*args, **kwargs)


async def resolve(host: str, port: int, timeout: float) -> Step:
    loop = asyncio.get_running_loop()
    started = time.monotonic()
    try:
        infos = await within(loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), timeout)
    except socket.gaierror as exc:
        return _step(
            "DNS",
            "fail",
            got=f"the name {host!r} does not resolve ({exc.strerror})",
            hint="check the host name, and that this machine's DNS sees it",
        )
    except asyncio.TimeoutError:
        return _step("DNS", "fail", got=f"no DNS answer for {host!r} within {timeout:g} s", hint="check DNS")
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    took = round((time.monotonic() - started) * 1000, 1)
    shown = ", ".join(addresses[:4]) + (f" (+{len(addresses) - 4})" if len(addresses) > 4 else "")
    return _step("DNS", "ok", detail=f"{host} → {shown}", timings={"dns_ms": took})


def _describe_cert(der: bytes | None) -> dict[str, str]:
    """Subject, issuer, names and dates of a certificate (empty without `cryptography`)."""
    if not der:
        return {}
    try:
        from cryptography import x509
        from cryptography.x509.oid import NameOID
    except ImportError:
        return {}
    try:
        cert = x509.load_der_x509_certificate(der)
    except ValueError:
        return {}

    def cn(name: x509.Name) -> str:
        found = name.get_attributes_for_oid(NameOID.COMMON_NAME)
        return str(found[0].value) if found else name.rfc4514_string()

    try:
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        dns = [str(v) for v in names.get_values_for_type(x509.DNSName)]
        ips = [str(v) for v in names.get_values_for_type(x509.IPAddress)]
        alt = ", ".join(dns + ips)
    except x509.ExtensionNotFound:
        alt = ""
    return {
        "subject": cn(cert.subject),
        "issuer": cn(cert.issuer),
        "names": alt or cn(cert.subject),
        "not_before": cert.not_valid_before_utc.strftime("%Y-%m-%d"),
        "not_after": cert.not_valid_after_utc.strftime("%Y-%m-%d"),
    }


async def _peer_cert(host: str, port: int, timeout: float) -> bytes | None:
    """The server's certificate, unverified (to describe what was wrong with it)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    try:
        _, writer = await within(asyncio.open_connection(host, port, ssl=ctx, server_hostname=host), timeout)
    except (OSError, asyncio.TimeoutError, ssl.SSLError):
        return None
    ssl_object = writer.get_extra_info("ssl_object")
    der = ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None
    writer.close()
    return der


def _in_words(code: int, message: str, host: str, cert: dict[str, str]) -> tuple[str, str]:
    """(what is wrong, the likely fix) for a verify error."""
    issuer = cert.get("issuer", "an authority")
    if code == EXPIRED:
        when = f" on {cert['not_after']}" if "not_after" in cert else ""
        return f"the certificate expired{when}", "the server needs a renewed certificate"
    if code == NOT_YET_VALID:
        when = f" until {cert['not_before']}" if "not_before" in cert else ""
        return f"the certificate is not valid yet{when}", "check the clocks of this machine and the server"
    if code in (SELF_SIGNED, SELF_SIGNED_IN_CHAIN):
        what = (
            "the certificate is self-signed"
            if code == SELF_SIGNED
            else "the chain ends in a self-signed root"
        )
        return (
            f"{what} ({cert.get('subject', host)}), and this machine does not trust it",
            "trust it for mcpx with SSL_CERT_FILE=/path/to/cert.pem, or give the server a certificate from a "
            "trusted authority",
        )
    if code in (UNKNOWN_ISSUER, UNKNOWN_ISSUER_LEAF):
        return (
            f"the certificate is issued by {issuer}, an authority this machine does not know",
            "install that CA, or point SSL_CERT_FILE at a bundle that holds it (a proxy that inspects TLS "
            "needs its CA too)",
        )
    if code in (HOSTNAME_MISMATCH, IP_MISMATCH):
        names = cert.get("names", "other names")
        return (
            f"the certificate is for {names}, not {host}",
            "use the host name the certificate names, or reissue it for this one",
        )
    return f"the certificate was refused: {message}", "check the server's certificate chain"


async def tls(host: str, port: int, timeout: float) -> Step:
    """Verify the server's certificate the way the connection will (httpx's context: certifi, or
    SSL_CERT_FILE / SSL_CERT_DIR)."""
    ctx = httpx.create_ssl_context()
    started = time.monotonic()
    try:
        _, writer = await within(asyncio.open_connection(host, port, ssl=ctx, server_hostname=host), timeout)
    except ssl.SSLCertVerificationError as exc:
        cert = _describe_cert(await _peer_cert(host, port, timeout))
        got, hint = _in_words(exc.verify_code, exc.verify_message, host, cert)
        return _step(
            "TLS", "fail", expected="a certificate this machine trusts, for this host", got=got, hint=hint
        )
    except ssl.SSLError as exc:
        reason = exc.reason or str(exc)
        hint = "the port may speak plain HTTP: try http://" if "WRONG_VERSION" in str(reason) else ""
        return _step("TLS", "fail", got=f"the TLS handshake failed ({reason})", hint=hint or "check the port")
    except (OSError, asyncio.TimeoutError) as exc:
        return _step("TLS", "fail", got=f"the TLS handshake did not finish ({exc!r})", hint="check the port")
    took = round((time.monotonic() - started) * 1000, 1)
    ssl_object = writer.get_extra_info("ssl_object")
    version = ssl_object.version() if ssl_object is not None else "TLS"
    cert = _describe_cert(ssl_object.getpeercert(binary_form=True) if ssl_object is not None else None)
    writer.close()
    detail = f"{version}" + (
        f", certificate for {cert['names']} by {cert['issuer']}, valid until {cert['not_after']}"
        if cert
        else ""
    )
    return _step("TLS", "ok", detail=detail, timings={"handshake_ms": took})


class Trace:
    """httpx's `trace` request extension: when each phase of the exchange started and ended."""

    def __init__(self) -> None:
        self.at: dict[str, float] = {}

    async def __call__(self, name: str, info: dict[str, Any]) -> None:
        # "connection.connect_tcp.started", "http11.receive_response_headers.complete", … (http2 alike)
        self.at.setdefault(
            name.split(".", 1)[1] if name.startswith(("http11.", "http2.")) else name, time.monotonic()
        )

    def span(self, start: str, end: str) -> float | None:
        if start in self.at and end in self.at:
            return round((self.at[end] - self.at[start]) * 1000, 1)
        return None

    def timings(self) -> dict[str, float]:
        spans = {
            "connect_ms": ("connection.connect_tcp.started", "connection.connect_tcp.complete"),
            "tls_ms": ("connection.start_tls.started", "connection.start_tls.complete"),
            "first_byte_ms": ("send_request_headers.started", "receive_response_headers.complete"),
        }
        out = {key: value for key, (a, b) in spans.items() if (value := self.span(a, b)) is not None}
        return out


async def first_answer(
    http: httpx.AsyncClient, url: str, headers: dict[str, str]
) -> tuple[Step, httpx.Response | None]:
    """POST a harmless request (server/discover) and say what came back, with the trace timings."""
    trace = Trace()
    name = "HTTP answer"
    request_headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "server/discover",
        **headers,
    }
    started = time.monotonic()
    try:
        async with http.stream(
            "POST", url, content=PROBE_BODY, headers=request_headers, extensions={"trace": trace}
        ) as response:
            first = round((time.monotonic() - started) * 1000, 1)
            await response.aread()
    except httpx.HTTPError as exc:
        step = _step(name, "fail", got=f"no HTTP answer ({type(exc).__name__}: {exc})", hint="check the URL")
        step.timings = trace.timings()
        return step, None
    timings = trace.timings()
    timings.setdefault("first_byte_ms", first)
    timings["total_ms"] = round((time.monotonic() - started) * 1000, 1)
    kind = response.headers.get("content-type", "").split(";")[0].strip() or "no content type"
    detail = f"HTTP {response.status_code} {response.reason_phrase}, {kind}"
    status = "ok"
    if response.status_code < 400 and kind not in ("application/json", "text/event-stream"):
        status, detail = "warn", detail + " (an MCP endpoint answers JSON or an event stream)"
    return _step(name, status, detail=detail, timings=timings), response


async def authorization(url: str, response: httpx.Response, timeout: float) -> Step:
    """The server answered 401: find who authorizes it (PRM, then the authorization server's metadata)."""
    from mcpx.auth.discovery import discover

    challenge = response.headers.get("www-authenticate")
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=True) as http:
        found = await discover(http, url, challenge=challenge)
    walk = [f"{s.verdict}: {s.sentence}" for s in found.steps]
    got = "HTTP 401" + (
        f" with WWW-Authenticate: {challenge}" if challenge else " without a WWW-Authenticate challenge"
    )
    hint = "the server wants a token: pass --bearer TOKEN or --header 'Authorization: …'"
    if found.ok:
        endpoint = (found.as_metadata or {}).get("authorization_endpoint", "?")
        detail = f"authorization server {found.issuer} (sign-in at {endpoint})"
        hint += f", or sign in with `{shlex.join(['mcpx', 'auth', 'login', url])}`"  # runs as printed
    else:
        detail = f"authorization discovery failed at {found.failed_step}: {found.failure}"
    got += "; " + detail
    step = _step("authorization", "fail", detail=detail, got=got + "\n" + "\n".join(walk), hint=hint)
    return step
