"""During a tool call, asks the client to elicit, then withdraws the question with notifications/cancelled.

It sends a ping after the cancellation and waits for its answer, so whatever the client sent for the
withdrawn request before that has arrived; the tool's result says whether it did (it must not).
"""

import bare


def withdraw(message):
    bare.send(
        {
            "jsonrpc": "2.0",
            "id": "srv-1",
            "method": "elicitation/create",
            "params": {"message": "Never mind", "requestedSchema": {"type": "object", "properties": {}}},
        }
    )
    bare.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "srv-1"}})
    bare.send({"jsonrpc": "2.0", "id": "srv-2", "method": "ping"})
    answered = False
    while True:
        reply = bare.read()
        if reply is None:
            raise SystemExit(0)
        if reply.get("id") == "srv-1" and "method" not in reply:
            answered = True
        if reply.get("id") == "srv-2" and "method" not in reply:
            break
    return bare.text("withdrawn request answered" if answered else "withdrawn request not answered")


bare.serve(
    name="withdraws",
    tools=[bare.tool("withdraw")],
    calls={"withdraw": withdraw},
)
