"""`mcpx doctor https://…`: certificate problems in words. Certificates are made in the test with
`cryptography` (a CA, and leaves that are fine, expired, for another host, or signed by nobody we trust);
the doctor trusts the test CA through SSL_CERT_FILE, as the connection itself does."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

x509 = pytest.importorskip("cryptography.x509")
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402

NOW = dt.datetime.now(dt.timezone.utc)


def _name(cn: str) -> Any:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _cert(
    cn: str,
    key: Any,
    issuer: tuple[Any, Any] | None,
    *,
    names: list[Any],
    days: tuple[int, int] = (-1, 30),
    ca: bool = False,
) -> Any:
    signer_name, signer_key = issuer if issuer is not None else (_name(cn), key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(cn))
        .issuer_name(signer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW + dt.timedelta(days=days[0]))
        .not_valid_after(NOW + dt.timedelta(days=days[1]))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        # what a real certificate carries and Python 3.13's default context (VERIFY_X509_STRICT) demands:
        # without the key identifiers every certificate here was refused as "Missing Authority Key Identifier"
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(signer_key.public_key()), critical=False
        )
    )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )  # fmt: skip
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(signer_key, hashes.SHA256())


def _write(path: Path, cert: Any, key: Any | None = None) -> Path:
    data = cert.public_bytes(serialization.Encoding.PEM)
    if key is not None:
        data += key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    path.write_bytes(data)
    return path


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b'{"jsonrpc":"2.0","id":"mcpx-doctor","error":{"code":-32601,"message":"no"}}'
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("tls")
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _cert("mcpx test CA", ca_key, None, names=[], ca=True, days=(-1, 365))
    ca_file = _write(tmp / "ca.pem", ca)
    local = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    leaves = {
        "good": ("127.0.0.1", local, (ca.subject, ca_key), (-1, 30)),
        "expired": ("127.0.0.1", local, (ca.subject, ca_key), (-30, -2)),
        "wrong-host": ("other.test", [x509.DNSName("other.test")], (ca.subject, ca_key), (-1, 30)),
        "self-signed": ("127.0.0.1", local, None, (-1, 30)),
        "unknown-ca": ("127.0.0.1", local, "stranger", (-1, 30)),
    }
    stranger_key = ec.generate_private_key(ec.SECP256R1())
    stranger = _cert("Stranger Root", stranger_key, None, names=[], ca=True)
    running: dict[str, Any] = {"ca": ca_file}
    threads = []
    for label, (cn, names, issuer, days) in leaves.items():
        key = ec.generate_private_key(ec.SECP256R1())
        signer = (stranger.subject, stranger_key) if issuer == "stranger" else issuer
        cert = _cert(cn, key, signer, names=names, days=days)
        pem = _write(tmp / f"{label}.pem", cert, key)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(pem)
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        threads.append((server, thread))
        running[label] = f"https://127.0.0.1:{server.server_address[1]}/mcp"
    yield running
    for server, thread in threads:
        server.shutdown()
        server.server_close()  # the listening TLS socket, else it is left for the garbage collector
        thread.join(timeout=5)


def doctor(url: str, ca: Path) -> tuple[int, dict[str, Any], str]:
    env = {**__import__("os").environ, "SSL_CERT_FILE": str(ca)}
    proc = subprocess.run(
        [sys.executable, "-m", "mcpx", "doctor", url, "--format", "json", "--timeout", "5"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert "Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def _tls(report: dict[str, Any]) -> dict[str, Any]:
    return next(step for step in report["steps"] if step["name"] == "TLS")


def test_a_trusted_certificate_passes_with_its_timings(servers: dict[str, Any]) -> None:
    _, report, _ = doctor(servers["good"], servers["ca"])
    tls = _tls(report)
    assert tls["status"] == "ok" and "by mcpx test CA" in tls["detail"] and "TLSv1" in tls["detail"]
    assert tls["timings"]["handshake_ms"] >= 0
    answer = next(step for step in report["steps"] if step["name"] == "HTTP answer")
    assert {"connect_ms", "tls_ms", "first_byte_ms"} <= set(answer["timings"])
    assert "HTTP 404" in answer["detail"]


@pytest.mark.parametrize(
    ("label", "words", "fix"),
    [
        ("expired", "the certificate expired on", "renewed certificate"),
        ("wrong-host", "the certificate is for other.test, not 127.0.0.1", "host name"),
        ("self-signed", "the certificate is self-signed", "SSL_CERT_FILE"),
        ("unknown-ca", "issued by Stranger Root, an authority this machine does not know", "install that CA"),
    ],
)
def test_certificate_problems_in_words(servers: dict[str, Any], label: str, words: str, fix: str) -> None:
    code, report, _ = doctor(servers[label], servers["ca"])
    assert code == 4
    tls = _tls(report)
    assert tls["status"] == "fail" and report["steps"][-1] == tls, report
    assert words in tls["got"] and fix in tls["hint"]
    assert report["verdict"].startswith("TLS: ") and words in report["verdict"]
