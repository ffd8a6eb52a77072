"""Writes bytes that are not UTF-8 on stdout: a line of garbage, then answers holding an invalid byte.

`echo` answers correctly after the garbage line; `latin1` answers with a Latin-1 byte inside a string.
"""

import bare


def echo(message):
    bare.send_bytes(b"\xff\xfe\xfa garbage \xc3\x28\n")
    return bare.call_echo(message)


def latin1(message):
    bare.send_bytes(
        b'{"jsonrpc":"2.0","id":'
        + str(message["id"]).encode()
        + b',"result":{"content":[{"type":"text","text":"caf\xe9"}]}}\n'
    )
    return bare.NO_ANSWER


bare.serve(name="bad-utf8", tools=[bare.ECHO, bare.tool("latin1")], calls={"echo": echo, "latin1": latin1})
