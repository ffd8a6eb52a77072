"""Reading a 100,000-event recording: the whole file into a traffic log, and the first screen.

A recording of an echo session (requests, responses, a stderr line now and then) is written with the
real recorder, then read back with `read_recording` (every event decoded and linked, as the TUI needs it).
"The first screen" is the time until the header and the first 200 events are in a log
(`open_recording(path).load(200)`: the file is read whole, its events decoded only as asked).

    python benchmarks/record_read.py [--events 100000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcpx.record.reader import open_recording, read_recording
from mcpx.record.writer import start_recording
from mcpx.transports.spec import ServerSpec
from mcpx.wire import Request, Response
from mcpx.wire.jsonrpc import encode
from mcpx.wire.traffic import TrafficLog


def make_recording(path: Path, events: int) -> None:
    log = TrafficLog()
    recorder = start_recording(path, log, ServerSpec(command=["python", "echo_server.py"]))
    log.info("spawned python echo_server.py (pid 1)", "process", event="spawned", pid=1)
    rid = 0
    while len(log) < events:
        rid += 1
        params = {"name": "echo", "arguments": {"text": f"hello {rid}"}}
        request = Request(rid, "tools/call", params)
        log.sent(encode(request.to_obj()), request, "stdio")
        result = {"content": [{"type": "text", "text": f"hello {rid}"}], "isError": False}
        log.received(encode(Response(rid, result).to_obj()).encode(), "stdio")
        if rid % 50 == 0:
            log.stderr(f"handled {rid} calls")
    recorder.close()


def first_screen(path: Path, rows: int = 200) -> float:
    """Seconds until the first `rows` events are in a log (`open_recording` + one `load(rows)`)."""
    started = time.perf_counter()
    loader = open_recording(path)
    loader.load(rows)
    assert len(loader.recording.log) >= rows
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.mcpx.jsonl"
        written = time.perf_counter()
        make_recording(path, args.events)
        write_s = time.perf_counter() - written
        size = os.path.getsize(path)
        reads = []
        for _ in range(args.runs):
            started = time.perf_counter()
            recording = read_recording(path)
            reads.append(time.perf_counter() - started)
            assert len(recording.log) >= args.events and not recording.problems
        heads = [first_screen(path) for _ in range(args.runs)]
    out = {
        "events": args.events,
        "file_mb": round(size / 1e6, 1),
        "write_s": round(write_s, 3),
        "read_all_s_median": round(statistics.median(reads), 3),
        "events_per_s": round(args.events / statistics.median(reads)),
        "first_screen_ms_median": round(statistics.median(heads) * 1000, 2),
        "python": sys.version.split()[0],
    }
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:24} {value}")


if __name__ == "__main__":
    main()
