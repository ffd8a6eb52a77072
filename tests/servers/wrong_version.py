"""Answers initialize with a protocol version no client knows (argv[1], default 1999-01-01)."""

import sys

import bare

bare.serve(name="wrong-version", version=sys.argv[1] if len(sys.argv) > 1 else "1999-01-01")
