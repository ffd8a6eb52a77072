"""Prints lines that are not JSON on stdout (a banner, a debug print, half a line) between real answers.

A client must skip and flag them and carry on.
"""

import bare

bare.send_bytes(b"Server starting... (this banner belongs on stderr)\n")


def noisy_echo(message):
    bare.send_bytes(b"DEBUG: got a call\n")
    bare.send_bytes(b"{not json at all\n")
    bare.send_bytes(b"   \n")
    return bare.call_echo(message)


bare.serve(name="noisy-stdout", calls={"echo": noisy_echo})
