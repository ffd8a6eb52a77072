"""Control characters made visible: the one function every human-readable output passes server text through.

A server chooses the bytes of its stderr, its name, descriptions and results. Written raw to a terminal,
some of them are commands: ESC starts escape sequences (OSC 52 writes the clipboard, OSC 0 the window
title, CSI 2J clears the screen), C1 characters are the same commands in one code point on some terminals,
a lone CR moves the cursor back so a line can be overwritten ("✓ all checks passed"), BEL rings, BS
erases. `escape_controls` writes each of them as a visible escape (`\\x1b`, `\\r`, `\\x9b`, `\\u202e`) so
the reader sees that the server sent it and the terminal does nothing.

Kept as they are: newline and tab (layout), CR directly before LF (a CRLF line end moves nothing), and
every printable character. Escaped too: DEL, and the Unicode bidirectional overrides and isolates, which
reorder what a line shows without any escape sequence ("Trojan Source").

JSON output and recordings never pass through here: they keep the exact bytes (JSON escapes controls
itself). Callers escape server text once, where it meets the terminal, and add their own styling after.
"""

from __future__ import annotations

import functools
import re

# C0 but tab and newline, CR not followed by LF, DEL, C1, bidi embeddings/overrides/isolates and marks.
_CONTROLS = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\r(?!\n)"
# what json.dumps(ensure_ascii=False) leaves raw: it escapes C0 itself, never DEL, C1 or bidi controls
_JSON_CONTROLS = "[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    # compiled when first needed: the three classes cost ~1.5 ms of every `mcpx call`'s start-up, whose
    # output is usually plain ASCII and then never reaches a regular expression
    return re.compile(pattern)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\r":
        return "\\r"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


# printable ASCII and the layout kept as is: what is left after deleting these from ASCII text is a control
_PLAIN_ASCII = bytes(range(0x20, 0x7F)) + b"\n\t"


def escape_controls(text: str) -> str:
    """`text` with every control character that could act on a terminal written as a visible escape."""
    if text.isascii():
        # the common case: a C-speed byte pass (~10x quicker than the regex on a 50 MB result), no copy back
        left = text.encode("ascii").translate(None, _PLAIN_ASCII)
        if not left:
            return text
        if left.strip(b"\r"):  # something other than CRs: escape for sure
            return _compiled(_CONTROLS).sub(_escape, text)
    # CRs only (CRLF line ends are kept), or non-ASCII text: the regex decides
    if _compiled(_CONTROLS).search(text) is None:
        return text
    return _compiled(_CONTROLS).sub(_escape, text)


def escape_json_controls(json_text: str) -> str:
    """JSON text (from json.dumps) with the control characters it still holds written as `\\uXXXX`: the same
    JSON value, safe on a terminal. Such characters can only stand inside strings, where `\\u` is valid."""
    if json_text.isascii() and "\x7f" not in json_text:
        return json_text  # the usual answer, without a regular expression
    left = _compiled(_JSON_CONTROLS)
    if left.search(json_text) is None:
        return json_text
    return left.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


# C1 and the bidi controls: a full-screen app (Textual) never writes them itself; all of them come from text
_C1_AND_BIDI = "[\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
_C1_AND_BIDI_CHARS = tuple(
    [chr(code) for code in range(0x80, 0xA0)]
    + ["\u061c", "\u200e", "\u200f"]
    + [chr(code) for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
)


def drop_c1_and_bidi(screen_output: str) -> str:
    """The TUI's last guard, on what it writes to the terminal: C1 controls and bidi overrides removed.

    A full-screen app lays text out in cells before it writes, so escaping there would shift the line; these
    characters take no cell, so dropping them changes no layout. (ESC and the C0 controls it strips are the
    TUI's own business: Textual writes its escape sequences in 7-bit form, never in C1.)"""
    if screen_output.isascii() or not any(char in screen_output for char in _C1_AND_BIDI_CHARS):
        return screen_output  # 44 substring scans cost ~3x less than the regex on a 20 KB frame
    return _compiled(_C1_AND_BIDI).sub("", screen_output)


def has_controls(text: str) -> bool:
    """Whether `escape_controls` would change `text` (tests and the check that flags such text)."""
    return _compiled(_CONTROLS).search(text) is not None
