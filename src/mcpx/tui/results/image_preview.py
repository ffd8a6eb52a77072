"""A small PNG as coloured half blocks (▀): two pixels per cell, in any terminal Textual draws in.

Only cheap cases are drawn: 8-bit, non-interlaced PNGs of at most `MAX_PIXELS` pixels (decoded here with
zlib, no imaging library), scaled down to `MAX_COLUMNS` cells wide. Anything else gets no preview (the
facts and Save still show); a broken file gets none either, never an exception.
"""

from __future__ import annotations

import struct
import zlib

from rich.color import Color
from rich.style import Style
from rich.text import Text

MAX_PIXELS = 128 * 128
MAX_COLUMNS = 40
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
Pixel = tuple[int, int, int, int]


def decode_png(data: bytes) -> list[list[Pixel]] | None:
    """RGBA rows of a small 8-bit non-interlaced PNG, or None when it is not one."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    at, idat, palette, alpha = 8, bytearray(), b"", b""
    width = height = depth = colour = interlace = -1
    try:
        while at + 8 <= len(data):
            length, kind = struct.unpack(">I4s", data[at : at + 8])
            body = data[at + 8 : at + 8 + length]
            if kind == b"IHDR":
                width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            elif kind == b"PLTE":
                palette = body
            elif kind == b"tRNS":
                alpha = body
            elif kind == b"IDAT":
                idat += body
            elif kind == b"IEND":
                break
            at += 12 + length
        if depth != 8 or interlace != 0 or colour not in _CHANNELS or not 0 < width * height <= MAX_PIXELS:
            return None
        raw = zlib.decompressobj().decompress(bytes(idat), width * height * 4 + height)
    except (struct.error, zlib.error):
        return None
    channels = _CHANNELS[colour]
    stride = width * channels
    if len(raw) < height * (stride + 1):
        return None
    rows: list[list[Pixel]] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        line = bytearray(raw[start + 1 : start + 1 + stride])
        _unfilter(raw[start], line, previous, channels)
        rows.append([_pixel(line, x * channels, colour, palette, alpha) for x in range(width)])
        previous = line
    return rows


def _unfilter(kind: int, line: bytearray, previous: bytearray, bpp: int) -> None:
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        up = previous[i]
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 2:
            line[i] = (line[i] + up) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
        elif kind == 4:
            corner = previous[i - bpp] if i >= bpp else 0
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            best = left if pa <= pb and pa <= pc else up if pb <= pc else corner
            line[i] = (line[i] + best) & 0xFF


def _pixel(line: bytearray, i: int, colour: int, palette: bytes, alpha: bytes) -> Pixel:
    if colour == 6:
        return line[i], line[i + 1], line[i + 2], line[i + 3]
    if colour == 2:
        return line[i], line[i + 1], line[i + 2], 255
    if colour == 4:
        return line[i], line[i], line[i], line[i + 1]
    if colour == 0:
        return line[i], line[i], line[i], 255
    index = line[i]
    if 3 * index + 3 > len(palette):
        return 0, 0, 0, 0
    red, green, blue = palette[3 * index : 3 * index + 3]
    return red, green, blue, alpha[index] if index < len(alpha) else 255


def png_preview(data: bytes, max_columns: int = MAX_COLUMNS) -> Text | None:
    """Half-block art of a small PNG (transparent pixels left empty), or None."""
    rows = decode_png(data)
    if not rows:
        return None
    height, width = len(rows), len(rows[0])
    scale = max(1, -(-width // max_columns))
    text = Text()
    for y in range(0, height, 2 * scale):
        for x in range(0, width, scale):
            top = rows[y][x]
            bottom = rows[y + scale][x] if y + scale < height else (0, 0, 0, 0)
            top_on, bottom_on = top[3] >= 128, bottom[3] >= 128
            if top_on and bottom_on:
                text.append("▀", Style(color=_colour(top), bgcolor=_colour(bottom)))
            elif top_on:
                text.append("▀", Style(color=_colour(top)))
            elif bottom_on:
                text.append("▄", Style(color=_colour(bottom)))
            else:
                text.append(" ")
        text.append("\n")
    text.rstrip()
    return text


def _colour(pixel: Pixel) -> Color:
    return Color.from_rgb(pixel[0], pixel[1], pixel[2])
