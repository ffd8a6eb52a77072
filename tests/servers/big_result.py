"""Returns a text block of N megabytes (argv[1], default 5) as a single line; `echo` still works."""

import sys

import bare

SIZE = int(float(sys.argv[1] if len(sys.argv) > 1 else "5") * 1024 * 1024)
# a pattern that ends in a marker so a test can tell the text arrived whole
BODY = ("0123456789abcdef" * (SIZE // 16 + 1))[: SIZE - 4] + "/END"


def big(message):
    return bare.text(BODY)


bare.serve(name="big-result", tools=[bare.ECHO, bare.tool("big")], calls={"echo": bare.call_echo, "big": big})
