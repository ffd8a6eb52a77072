"""What `mcpx proxy` adds per message, over stdio and over HTTP, against the direct path, in one run.

    .venv/bin/python benchmarks/bench_proxy.py [--calls 1000] [--rounds 3] [--baseline OLD/src]

The host is a plain blocking loop (the cheapest host there is, so the proxy's cost is not hidden under
a client's): over stdio it writes a `tools/call echo` line and reads the answer line; over HTTP it POSTs
with one keep-alive `httpx.Client`.

- stdio: host → `benchmarks/echo_server.py` directly, and host → `mcpx proxy` (recording, the default)
  → the same server.
- stdio to a server as real ones are (the official SDK's, `tests/servers/sdk_everything.py`, a quarter of
  the calls): the same two paths.
- HTTP: host → `benchmarks/http_echo_server.py` directly, and host → `mcpx proxy --listen` (recording)
  → the same server over HTTP (a reverse proxy in front of it).
- HTTP to a server as real ones are (the official SDK's Streamable HTTP server, `tests/servers/http_sdk.py
  --stateless --json`, a quarter of the calls): the same two paths.

Each call is timed on its own; the figure is the median per call, and the added latency is the proxied
median minus the direct one. Throughput: over stdio, 5 × N requests written at once (pipelined) and the
time until the last answer, calls/s proxied ÷ direct; over HTTP, sequential calls/s proxied ÷ direct (a host
that waits for each answer: 1/latency) and concurrent ones (`--concurrency` keep-alive connections POSTing
at once from a raw-socket host, each sending its next request when its answer is in: what a proxy serving
HTTP hosts carries), against the echo server and the SDK's. Rounds interleave direct and proxied so that
drift on a busy machine hits both alike; the proxies' CPU time is reported per call (from /proc: user +
system of the proxy process), sequential and pipelined/concurrent apart.

The floor (`bare_relay`): `benchmarks/bare_relay.py`, a relay that passes bytes on and does nothing else
(no decoding, log or recording), in the same rounds over stdio and over HTTP (a TCP relay): what the two
extra process hops of any proxy cost on this machine, apart from the proxy's own work.

`--baseline DIR` runs, in each round, the stdio and HTTP proxies of another source tree as well (`DIR` on
PYTHONPATH: a checkout's `src` before a change): before and after in one run, under the same load, in
`baseline` (its medians, ratios and CPU beside this tree's). The two take turns going first, round by
round, so that neither always gets the state the other left (a warm cache, a busier minute).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ECHO = ROOT / "benchmarks" / "echo_server.py"
HTTP_ECHO = ROOT / "benchmarks" / "http_echo_server.py"
BARE = ROOT / "benchmarks" / "bare_relay.py"
#: a server as real ones are: the official SDK's (its echo tool), where a call costs ~1 ms of the server's
SDK = ROOT / "tests" / "servers" / "sdk_everything.py"
#: the same over HTTP: the SDK's Streamable HTTP server (stateless, JSON replies: a POST loop drives it)
HTTP_SDK = ROOT / "tests" / "servers" / "http_sdk.py"
PY = sys.executable
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}


def call(rid: int) -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}},
        },
        separators=(",", ":"),
    ).encode()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class StdioHost:
    def __init__(self, command: list[str], env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )  # fmt: skip
        self.ask(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT}).encode())
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def send(self, frame: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(frame + b"\n")
        self.process.stdin.flush()

    def ask(self, frame: bytes) -> bytes:
        self.send(frame)
        assert self.process.stdout is not None
        return self.process.stdout.readline()

    def sequential(self, n: int) -> list[float]:
        times = []
        for rid in range(1, n + 1):
            start = time.perf_counter()
            self.ask(call(rid))
            times.append(time.perf_counter() - start)
        return times

    def pipelined(self, n: int) -> float:
        """Seconds from the first request written to the n-th answer read (a writer thread feeds)."""
        frames = [call(100_000 + rid) + b"\n" for rid in range(n)]
        assert self.process.stdin is not None and self.process.stdout is not None
        stdin = self.process.stdin

        def feed() -> None:
            for frame in frames:
                stdin.write(frame)
            stdin.flush()

        start = time.perf_counter()
        writer = threading.Thread(target=feed)
        writer.start()
        for _ in range(n):
            self.process.stdout.readline()
        elapsed = time.perf_counter() - start
        writer.join()
        return elapsed

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()


def http_sequential(client: object, url: str, n: int) -> list[float]:
    times = []
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    for rid in range(1, n + 1):
        start = time.perf_counter()
        response = client.post(url, content=call(rid), headers=headers)  # type: ignore[attr-defined]
        response.read()
        times.append(time.perf_counter() - start)
    return times


def http_concurrent(url: str, n: int, k: int) -> float:
    """Seconds for `n` calls POSTed over `k` keep-alive connections at once (each connection sends its
    next request as soon as its answer is in): what a proxy serving many HTTP hosts, or one host with
    requests in flight side by side, can carry. The host is a `selectors` loop on raw sockets, so its own
    cost per call (a few µs) hides nothing; every answer must be a Content-Length reply."""
    import selectors
    import socket

    host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
    path = "/" + url.split("//")[1].split("/", 1)[1]
    selector = selectors.DefaultSelector()
    buffers: dict[socket.socket, bytearray] = {}
    sent = done = 0

    def post(sock: socket.socket) -> None:
        nonlocal sent
        body = call(200_000 + sent)
        sent += 1
        sock.sendall(
            b"POST %s HTTP/1.1\r\nHost: %s:%s\r\nAccept: application/json, text/event-stream\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
            % (path.encode(), host.encode(), port.encode(), len(body), body)
        )

    socks = []
    for _ in range(k):
        sock = socket.create_connection((host, int(port)))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
        buffers[sock] = bytearray()
        socks.append(sock)
    start = time.perf_counter()
    for sock in socks:
        post(sock)
    while done < n:
        for key, _ in selector.select():
            sock = key.fileobj  # type: ignore[assignment]
            buffer = buffers[sock]
            buffer += sock.recv(1 << 16)
            while (end := buffer.find(b"\r\n\r\n")) >= 0:
                head = bytes(buffer[:end]).lower()
                assert head.startswith(b"http/1.1 200"), head[:80]
                length = int(head.split(b"content-length:")[1].split(b"\r\n")[0])
                if len(buffer) < end + 4 + length:
                    break
                del buffer[: end + 4 + length]
                done += 1
                if sent < n:
                    post(sock)
    elapsed = time.perf_counter() - start
    for sock in socks:
        selector.unregister(sock)
        sock.close()
    return elapsed


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_http_echo() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    server = subprocess.Popen(
        [PY, str(HTTP_ECHO), str(port)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert server.stdout is not None
    server.stdout.readline()  # "ready"
    return server, f"http://127.0.0.1:{port}/mcp"


def start_http_sdk() -> tuple[subprocess.Popen[bytes], str]:
    import socket

    port = free_port()
    server = subprocess.Popen(
        [PY, str(HTTP_SDK), "--port", str(port), "--stateless", "--json"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}/mcp"


def start_listening_proxy(
    target: str, data: str, env: dict[str, str] | None = None, command: list[str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    proxy = subprocess.Popen(
        command or [PY, "-m", "mcpx", "proxy", "--listen", "0", "--name", "bench-http", target],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env={**os.environ, "MCPX_DATA_DIR": data, **(env or {})},
    )  # fmt: skip
    assert proxy.stderr is not None
    line = proxy.stderr.readline().decode()
    return proxy, line.split("listening on ")[1].split(" ")[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8, help="HTTP connections POSTing at once")
    parser.add_argument("--baseline", help="another tree's src: its stdio proxy measured in the same rounds")
    args = parser.parse_args()
    import httpx

    data = tempfile.mkdtemp(prefix="mcpx-bench-proxy-")
    env = {"MCPX_DATA_DIR": data}
    kinds = ("stdio-direct", "stdio-proxy", "stdio-bare", "sdk-direct", "sdk-proxy")
    kinds += ("http-direct", "http-proxy", "http-bare", "httpsdk-direct", "httpsdk-proxy")
    kinds += ("stdio-baseline", "sdk-baseline", "http-baseline") if args.baseline else ()
    results: dict[str, list[float]] = {k: [] for k in kinds}
    pipelined: dict[str, list[float]] = {"direct": [], "proxy": [], "bare": [], "baseline": []}
    concurrent: dict[str, list[float]] = {"direct": [], "proxy": [], "bare": [], "baseline": []}
    concurrent_sdk: dict[str, list[float]] = {"direct": [], "proxy": []}
    proxy_cpu: dict[str, list[float]] = {
        "stdio": [], "stdio_pipelined": [], "http": [], "http_concurrent": [],
        "baseline": [], "baseline_pipelined": [], "http-baseline": [], "http_concurrent-baseline": [],
    }  # fmt: skip
    old_env = {**env, "PYTHONPATH": str(args.baseline)} if args.baseline else {}
    n = args.calls
    #: pipelined calls a round: a burst of 1,000 is over in ~25 ms, within the scheduler's noise (and the
    #: proxy's CPU in /proc counts 10 ms ticks)
    burst = 5 * n

    server, direct_url = start_http_echo()
    http_proxy, proxy_url = start_listening_proxy(direct_url, data)
    bare_http, bare_url = start_listening_proxy(
        direct_url, data, command=[PY, str(BARE), "--tcp", direct_url]
    )
    old_http, old_url = start_listening_proxy(direct_url, data, old_env) if old_env else (None, "")
    sdk_server, sdk_url = start_http_sdk()
    sdk_proxy, sdk_proxy_url = start_listening_proxy(sdk_url, data)

    def stdio_proxy(tag: str, server_cmd: list[str], calls: int, pipelines: bool) -> None:
        """One proxy (this tree's, or the baseline's): sequential calls, then pipelined ones."""
        suffix = "" if tag == "proxy" else "-baseline"
        host = StdioHost(
            [PY, "-m", "mcpx", "proxy", "--name", f"bench-{tag}", *server_cmd],
            env if tag == "proxy" else old_env,
        )
        kind = "stdio" if pipelines else "sdk"
        before = cpu_seconds(host.process.pid)
        results[f"{kind}{'-proxy' if tag == 'proxy' else suffix}"] += host.sequential(calls)
        if pipelines:
            cpu = "stdio" if tag == "proxy" else "baseline"
            proxy_cpu[cpu].append((cpu_seconds(host.process.pid) - before) / calls)
            before = cpu_seconds(host.process.pid)
            pipelined[tag].append(host.pipelined(burst))
            proxy_cpu[f"{cpu}_pipelined"].append((cpu_seconds(host.process.pid) - before) / burst)
        host.close()

    def http_proxy_run(tag: str) -> None:
        relay, url = (http_proxy, proxy_url) if tag == "proxy" else (old_http, old_url)
        assert relay is not None
        suffix = "" if tag == "proxy" else "-baseline"
        before = cpu_seconds(relay.pid)
        results[f"http-{'proxy' if tag == 'proxy' else 'baseline'}"] += http_sequential(client, url, n)
        proxy_cpu[f"http{suffix}"].append((cpu_seconds(relay.pid) - before) / n)
        before = cpu_seconds(relay.pid)
        concurrent[tag].append(http_concurrent(url, n, args.concurrency))
        proxy_cpu[f"http_concurrent{suffix}"].append((cpu_seconds(relay.pid) - before) / n)

    try:
        with httpx.Client() as client:
            init = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT}).encode()
            headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
            for url in (direct_url, proxy_url, bare_url, old_url, sdk_url, sdk_proxy_url):
                if url:
                    client.post(url, content=init, headers=headers).read()
            for round_ in range(args.rounds):
                # this tree and the baseline take turns going first, so neither gets the other's drift
                tags = ["proxy", "baseline"] if old_env else ["proxy"]
                if round_ % 2:
                    tags.reverse()
                direct = StdioHost([PY, str(ECHO)])
                results["stdio-direct"] += direct.sequential(n)
                pipelined["direct"].append(direct.pipelined(burst))
                direct.close()
                for tag in tags:
                    stdio_proxy(tag, [PY, str(ECHO)], n, pipelines=True)
                bare = StdioHost([PY, str(BARE), PY, str(ECHO)])
                results["stdio-bare"] += bare.sequential(n)
                pipelined["bare"].append(bare.pipelined(burst))
                bare.close()
                direct = StdioHost([PY, str(SDK)])
                results["sdk-direct"] += direct.sequential(n // 4)
                direct.close()
                for tag in tags:
                    stdio_proxy(tag, [PY, str(SDK)], n // 4, pipelines=False)
                results["http-direct"] += http_sequential(client, direct_url, n)
                concurrent["direct"].append(http_concurrent(direct_url, n, args.concurrency))
                for tag in tags:
                    http_proxy_run(tag)
                results["http-bare"] += http_sequential(client, bare_url, n)
                concurrent["bare"].append(http_concurrent(bare_url, n, args.concurrency))
                results["httpsdk-direct"] += http_sequential(client, sdk_url, n // 4)
                results["httpsdk-proxy"] += http_sequential(client, sdk_proxy_url, n // 4)
                concurrent_sdk["direct"].append(http_concurrent(sdk_url, n // 4, args.concurrency))
                concurrent_sdk["proxy"].append(http_concurrent(sdk_proxy_url, n // 4, args.concurrency))
    finally:
        for relay in (http_proxy, bare_http, old_http, sdk_proxy, sdk_server):
            if relay is not None:
                relay.terminate()
                relay.wait(timeout=10)
        server.terminate()
        server.wait(timeout=10)

    med = {k: statistics.median(v) * 1e6 for k, v in results.items()}

    def ratio(times: dict[str, list[float]], tag: str) -> float:
        return round(statistics.median(times["direct"]) / statistics.median(times[tag]), 3)

    def cpu(key: str) -> float:
        return round(statistics.median(proxy_cpu[key]) * 1e6, 1)

    out = {
        "calls_per_round": n,
        "rounds": args.rounds,
        "concurrency": args.concurrency,
        "median_us": {k: round(v, 1) for k, v in med.items()},
        "added_median_us": {
            "stdio": round(med["stdio-proxy"] - med["stdio-direct"], 1),
            "sdk": round(med["sdk-proxy"] - med["sdk-direct"], 1),
            "http": round(med["http-proxy"] - med["http-direct"], 1),
            "http_sdk": round(med["httpsdk-proxy"] - med["httpsdk-direct"], 1),
        },
        "throughput_ratio": {
            "stdio_pipelined": ratio(pipelined, "proxy"),
            "stdio_sequential": round(med["stdio-direct"] / med["stdio-proxy"], 3),
            "sdk_sequential": round(med["sdk-direct"] / med["sdk-proxy"], 3),
            "http_sequential": round(med["http-direct"] / med["http-proxy"], 3),
            "http_concurrent": ratio(concurrent, "proxy"),
            "http_sdk_sequential": round(med["httpsdk-direct"] / med["httpsdk-proxy"], 3),
            "http_sdk_concurrent": ratio(concurrent_sdk, "proxy"),
        },
        # the floor: a relay that passes bytes on and does nothing else (benchmarks/bare_relay.py)
        "bare_relay": {
            "added_median_us": {
                "stdio": round(med["stdio-bare"] - med["stdio-direct"], 1),
                "http": round(med["http-bare"] - med["http-direct"], 1),
            },
            "throughput_ratio": {
                "stdio_pipelined": ratio(pipelined, "bare"),
                "stdio_sequential": round(med["stdio-direct"] / med["stdio-bare"], 3),
                "http_sequential": round(med["http-direct"] / med["http-bare"], 3),
                "http_concurrent": ratio(concurrent, "bare"),
            },
        },
        "pipelined_calls_per_s": {k: round(burst / statistics.median(v)) for k, v in pipelined.items() if v},
        "http_concurrent_calls_per_s": {
            k: round(n / statistics.median(v)) for k, v in concurrent.items() if v
        },
        "http_sdk_concurrent_calls_per_s": {
            k: round(n // 4 / statistics.median(v)) for k, v in concurrent_sdk.items() if v
        },
        "proxy_cpu_us_per_call": {k: cpu(k) for k, v in proxy_cpu.items() if v and "baseline" not in k},
        "load_average": os.getloadavg()[0],
    }
    if args.baseline:
        out["baseline"] = {
            "src": args.baseline,
            "median_us": {k: round(med[f"{k}-baseline"], 1) for k in ("stdio", "sdk", "http")},
            "added_median_us": {
                k: round(med[f"{k}-baseline"] - med[f"{k}-direct"], 1) for k in ("stdio", "sdk", "http")
            },
            "throughput_ratio": {
                "stdio_pipelined": ratio(pipelined, "baseline"),
                "stdio_sequential": round(med["stdio-direct"] / med["stdio-baseline"], 3),
                "sdk_sequential": round(med["sdk-direct"] / med["sdk-baseline"], 3),
                "http_sequential": round(med["http-direct"] / med["http-baseline"], 3),
                "http_concurrent": ratio(concurrent, "baseline"),
            },
            "proxy_cpu_us_per_call": {
                "stdio": cpu("baseline"),
                "stdio_pipelined": cpu("baseline_pipelined"),
                "http": cpu("http-baseline"),
                "http_concurrent": cpu("http_concurrent-baseline"),
            },
        }
    print(json.dumps(out, indent=2))
    shutil.rmtree(data, ignore_errors=True)  # the sessions the proxies recorded (megabytes a run)


if __name__ == "__main__":
    main()
