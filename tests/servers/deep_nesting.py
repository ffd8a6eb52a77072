"""The `deep` tool's result holds a value nested 100 000 arrays deep (argv[1] sets the depth)."""

import sys

import bare

DEPTH = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000


def deep(message):
    nested = "[" * DEPTH + "]" * DEPTH
    head = (
        '{"jsonrpc":"2.0","id":'
        + str(message["id"])
        + ',"result":{"content":[{"type":"text","text":"deep"}],"structuredContent":{"deep":'
    )
    bare.send_bytes(head.encode() + nested.encode() + b"}}}\n")
    return bare.NO_ANSWER


bare.serve(
    name="deep-nesting", tools=[bare.ECHO, bare.tool("deep")], calls={"echo": bare.call_echo, "deep": deep}
)
