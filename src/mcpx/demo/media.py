"""Small images and sounds made in code, so the demo ships no binary files and needs no imaging library."""

from __future__ import annotations

import base64
import functools
import math
import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def png(width: int, height: int, hue: float = 0.0) -> bytes:
    """A valid RGB PNG: a diagonal gradient with a ring, recognisable in any viewer."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter type: none
        for x in range(width):
            t = (x + y) / max(1, width + height - 2)
            dx, dy = x - width / 2 + 0.5, y - height / 2 + 0.5
            ring = abs(math.hypot(dx, dy) - width / 3) < max(1.0, width / 16)
            r = int(255 * (1 - t) * (1 - hue) + 40 * hue)
            g = int(120 + 100 * t)
            b = int(255 * t)
            rows += bytes((255, 255, 255) if ring else (r, g, b))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(bytes(rows)))
        + _chunk(b"IEND", b"")
    )


def wav(seconds: float = 0.25, frequency: float = 440.0, rate: int = 8000) -> bytes:
    """8-bit mono PCM: a short beep."""
    count = int(seconds * rate)
    samples = bytes(int(128 + 100 * math.sin(2 * math.pi * frequency * i / rate)) for i in range(count))
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate, 1, 8)
    body = (
        b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", count) + samples
    )
    return b"RIFF" + struct.pack("<I", len(body)) + body


SVG_LOGO = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    '<rect width="32" height="32" rx="6" fill="#3b5bdb"/>'
    '<path d="M8 22V10l8 7 8-7v12" stroke="#fff" stroke-width="3" fill="none"/></svg>'
)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@functools.cache
def logo_png() -> bytes:
    return png(32, 32)


@functools.cache
def beep_wav() -> bytes:
    return wav()


def icons(hue: float = 0.0) -> list[dict[str, object]]:
    """Icons in the forms the spec names: SVG for any size, PNG for light and dark themes."""
    return [
        {
            "src": "data:image/svg+xml;base64," + b64(SVG_LOGO.encode()),
            "mimeType": "image/svg+xml",
            "sizes": ["any"],
        },
        {
            "src": "data:image/png;base64," + b64(png(16, 16, hue)),
            "mimeType": "image/png",
            "sizes": ["16x16"],
            "theme": "light",
        },
        {
            "src": "data:image/png;base64," + b64(png(16, 16, 1 - hue)),
            "mimeType": "image/png",
            "sizes": ["16x16"],
            "theme": "dark",
        },
    ]
