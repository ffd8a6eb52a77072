"""The floor of any relay between a host and a server: bytes passed on as read, nothing decoded, logged
or recorded. `bench_proxy.py` runs it beside `mcpx proxy` so the cost of the two extra process hops a
proxy adds (on this machine) is seen apart from the proxy's own work.

    python benchmarks/bare_relay.py CMD [ARGS…]            # stdio: our stdin → CMD's stdin, its stdout → ours
    python benchmarks/bare_relay.py --tcp HOST:PORT        # TCP on 127.0.0.1 (a free port) → HOST:PORT;
                                                           # prints "listening on http://127.0.0.1:P/mcp "
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading


def pump(source: int, sink: int) -> None:
    while data := os.read(source, 1 << 16):
        view = memoryview(data)
        while view:
            view = view[os.write(sink, view) :]


def stdio(command: list[str]) -> int:
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    server_stdin = server.stdin

    def to_server() -> None:
        pump(0, server_stdin.fileno())
        server_stdin.close()  # the host is done: so is the server's input

    threading.Thread(target=to_server, daemon=True).start()
    pump(server.stdout.fileno(), 1)
    return server.wait()


async def tcp(target: str) -> None:
    host, _, port = target.rpartition(":")

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(1 << 16):
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(host, int(port))
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    print(
        f"listening on http://127.0.0.1:{server.sockets[0].getsockname()[1]}/mcp ",
        file=sys.stderr,
        flush=True,
    )
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if sys.argv[1] == "--tcp":
        asyncio.run(tcp(sys.argv[2].split("//")[-1].split("/")[0]))
    else:
        sys.exit(stdio(sys.argv[1:]))
