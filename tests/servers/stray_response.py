"""Answers an id the client never sent (and a JSON-RPC error for another unknown id) before each real answer."""

import bare


def echo(message):
    bare.result(987654, {"content": [{"type": "text", "text": "for nobody"}]})
    bare.error("no-such-request", -32603, "an error for a request nobody sent")
    return bare.call_echo(message)


bare.serve(name="stray-response", calls={"echo": echo})
