"""The `forever` tool reports progress every 50 ms and never answers: a per-answer timeout that progress
restarts never fires, only a total bound ends the call. The server goes when stdin closes, or after 60 s.

usage: progress_forever.py
"""

import os
import threading
import time

import bare


def forever(message):
    token = ((message.get("params") or {}).get("_meta") or {}).get("progressToken")

    def report() -> None:
        step = 0
        while token is not None:
            step += 1
            bare.send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": step, "message": f"still going ({step})"},
                }
            )
            time.sleep(0.05)

    threading.Thread(target=report, daemon=True).start()
    return bare.NO_ANSWER


threading.Timer(60, lambda: os._exit(0)).start()
bare.serve(name="progress-forever", tools=[bare.tool("forever")], calls={"forever": forever})
os._exit(0)  # stdin closed: the timer thread must not keep the process
