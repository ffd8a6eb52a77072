"""During a tool call, sends the client a request for a method no client has, and a ping.

It waits for both answers and returns them as the tool's result (JSON text), so a test can check that
the client answered the unknown method with -32601 and the ping with an empty result.
"""

import json

import bare


def ask(message):
    bare.send({"jsonrpc": "2.0", "id": "srv-1", "method": "x-test/unknown-method", "params": {"q": 1}})
    bare.send({"jsonrpc": "2.0", "id": "srv-2", "method": "ping"})
    answers = {}
    while len(answers) < 2:
        reply = bare.read()
        if reply is None:
            raise SystemExit(0)
        if reply.get("id") in ("srv-1", "srv-2") and "method" not in reply:
            answers[reply["id"]] = reply
    return bare.text(json.dumps({"unknown": answers["srv-1"], "ping": answers["srv-2"]}))


bare.serve(name="asks-client", tools=[bare.tool("ask")], calls={"ask": ask})
