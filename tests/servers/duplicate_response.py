"""Answers every tool call twice: the same id, a second (different) result."""

import bare


def echo(message):
    bare.result(message["id"], bare.call_echo(message))
    bare.result(message["id"], bare.text("a second answer to the same request"))
    return bare.NO_ANSWER


bare.serve(name="duplicate-response", calls={"echo": echo})
