"""Answers like bare.py, then takes its time to exit once stdin closes (1.5 s, or argv[1] seconds).

For `mcpx call`'s early print: the answer must reach stdout, and stdout's reader must see its end, while
this server is still being stopped; the exit code still waits for the stop.
"""

import sys
import time

import bare

bare.serve(name="slow-exit")
sys.stdout.flush()
time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 1.5)
