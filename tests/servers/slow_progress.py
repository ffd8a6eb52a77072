"""The `slow` tool takes STEPS × INTERVAL seconds and reports progress at every step, when the request
carries a progressToken (without one it may not send progress, so it just takes the time).

usage: slow_progress.py [steps, default 6] [interval in seconds, default 0.4]
"""

import sys
import time

import bare

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 6
INTERVAL = float(sys.argv[2]) if len(sys.argv) > 2 else 0.4


def slow(message):
    token = ((message.get("params") or {}).get("_meta") or {}).get("progressToken")
    for step in range(1, STEPS + 1):
        time.sleep(INTERVAL)
        if token is not None:
            bare.send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {
                        "progressToken": token,
                        "progress": step,
                        "total": STEPS,
                        "message": f"step {step}",
                    },
                }
            )
    return bare.text(f"done after {STEPS} steps")


bare.serve(name="slow-progress", tools=[bare.tool("slow")], calls={"slow": slow})
