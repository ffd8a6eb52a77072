"""What a content block is, read without any UI: its kind, how its text looks, what its bytes hold.

Tool results, prompt messages and resource reads all carry content blocks (`text`, `image`, `audio`,
`resource_link`, `resource`). Servers send them in every shape, so nothing here raises on bad input:
a block that is not what it claims becomes `kind="invalid"` with the reason, bad base64 becomes a
`problem`, a header that cannot be read leaves the dimensions unknown.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["text", "image", "audio", "resource_link", "resource", "unknown", "invalid"]
TextFormat = Literal["json", "markdown", "plain"]
#: texts longer than this are not parsed as JSON nor scanned for Markdown (a preview is shown first)
FORMAT_LIMIT = 1 << 20

_MARKDOWN = re.compile(
    # headings, lists, quotes, fences, tables
    r"^\s{0,3}(#{1,6}\s|[-*+]\s+\S|\d+[.)]\s+\S|>\s|```|~~~|\|.*\|\s*$)"
    r"|\*\*[^*\n]+\*\*|__[^_\n]+__|\[[^\]\n]+\]\([^)\s]+\)|`[^`\n]+`",  # bold, links, inline code
    re.MULTILINE,
)


def content_kind(block: Any) -> tuple[Kind, str]:
    """The block's kind and, for `invalid`, why (an empty reason otherwise)."""
    if not isinstance(block, Mapping):
        return "invalid", f"a content block must be an object, got {type(block).__name__}"
    kind = block.get("type")
    needs: dict[str, tuple[str, ...]] = {
        "text": ("text",),
        "image": ("data", "mimeType"),
        "audio": ("data", "mimeType"),
        "resource_link": ("uri",),
        "resource": ("resource",),
    }
    if not isinstance(kind, str) or kind not in needs:
        return "unknown", ""
    missing = [key for key in needs[kind] if key not in block]
    if missing:
        return "invalid", f"a {kind} block without {', '.join(missing)}"
    wrong = [key for key in needs[kind] if key != "resource" and not isinstance(block[key], str)]
    if wrong or (kind == "resource" and not isinstance(block["resource"], Mapping)):
        return "invalid", f"{kind} block: {', '.join(wrong or ['resource'])} has the wrong type"
    return kind, ""  # type: ignore[return-value]


def text_format(text: str) -> tuple[TextFormat, Any]:
    """How a text reads best: ("json", parsed value), ("markdown", None) or ("plain", None)."""
    if len(text) > FORMAT_LIMIT:
        return "plain", None
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
        try:
            return "json", json.loads(stripped)
        except (ValueError, RecursionError):
            pass
    if _MARKDOWN.search(text):
        return "markdown", None
    return "plain", None


def decode_base64(data: Any) -> tuple[bytes, str | None]:
    """The bytes of a base64 field, and a problem when it is not clean base64 (bytes decoded leniently)."""
    if not isinstance(data, str):
        return b"", f"data is {type(data).__name__}, not a base64 string"
    try:
        return base64.b64decode(data, validate=True), None
    except (binascii.Error, ValueError) as exc:
        try:
            cleaned = re.sub(r"[^A-Za-z0-9+/=_-]", "", data)
            padded = cleaned + "=" * (-len(cleaned) % 4)
            return base64.b64decode(padded, altchars=b"-_" if "-" in cleaned or "_" in cleaned else None), (
                f"not clean base64 ({exc}); decoded leniently"
            )
        except (binascii.Error, ValueError) as again:
            return b"", f"not base64: {again}"


@dataclass(frozen=True, slots=True)
class MediaInfo:
    """What the bytes of an image or audio block say about themselves."""

    size: int
    #: the format the header shows ("image/png"), None when unrecognised
    sniffed: str | None = None
    width: int | None = None
    height: int | None = None
    #: seconds, for audio whose header tells (WAV, FLAC)
    duration: float | None = None
    channels: int | None = None
    sample_rate: int | None = None


def image_info(data: bytes) -> MediaInfo:
    """Format and pixel size from the header of a PNG, GIF, JPEG, WebP or BMP image."""
    size = len(data)
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
            width, height = struct.unpack(">II", data[16:24])
            return MediaInfo(size, "image/png", width, height)
        if data[:6] in (b"GIF87a", b"GIF89a"):
            width, height = struct.unpack("<HH", data[6:10])
            return MediaInfo(size, "image/gif", width, height)
        if data[:2] == b"\xff\xd8":
            return MediaInfo(size, "image/jpeg", *_jpeg_size(data))
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return MediaInfo(size, "image/webp", *_webp_size(data))
        if data[:2] == b"BM" and len(data) >= 26:
            width, height = struct.unpack("<ii", data[18:26])
            return MediaInfo(size, "image/bmp", width, abs(height))
        if data.lstrip()[:5] in (b"<?xml", b"<svg ") and b"<svg" in data[:4096]:
            return MediaInfo(size, "image/svg+xml")
    except struct.error:
        pass
    return MediaInfo(size)


def _jpeg_size(data: bytes) -> tuple[int | None, int | None]:
    at = 2
    while at + 9 < len(data):
        if data[at] != 0xFF:
            return None, None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # start of frame
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        at += 2 + length
    return None, None


def _webp_size(data: bytes) -> tuple[int | None, int | None]:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return None, None


def audio_info(data: bytes) -> MediaInfo:
    """Format, and duration where the header tells it (WAV, FLAC); MP3, Ogg and others: size only."""
    size = len(data)
    try:
        if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
            return _wav_info(data)
        if data[:4] == b"fLaC" and len(data) >= 26:
            info = int.from_bytes(
                data[18:26], "big"
            )  # STREAMINFO: rate 20 bits, channels 3, bps 5, samples 36
            rate = info >> 44
            channels = ((info >> 41) & 0x7) + 1
            samples = info & 0xFFFFFFFFF
            duration = samples / rate if rate and samples else None
            return MediaInfo(
                size, "audio/flac", duration=duration, channels=channels, sample_rate=rate or None
            )
        if data[:4] == b"OggS":
            return MediaInfo(size, "audio/ogg")
        if data[:3] == b"ID3" or (len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0):
            return MediaInfo(size, "audio/mpeg")
    except struct.error:
        pass
    return MediaInfo(size)


def _wav_info(data: bytes) -> MediaInfo:
    at = 12
    channels = rate = byte_rate = None
    while at + 8 <= len(data):
        chunk, length = data[at : at + 4], int.from_bytes(data[at + 4 : at + 8], "little")
        if chunk == b"fmt " and at + 24 <= len(data):
            channels, rate, byte_rate = struct.unpack("<HII", data[at + 10 : at + 20])
        elif chunk == b"data":
            length = min(length, len(data) - at - 8)  # a streamed WAV may claim 0xFFFFFFFF
            duration = length / byte_rate if byte_rate else None
            return MediaInfo(len(data), "audio/wav", duration=duration, channels=channels, sample_rate=rate)
        at += 8 + length + (length & 1)
    return MediaInfo(len(data), "audio/wav", channels=channels, sample_rate=rate)


_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "image/bmp": ".bmp",
    "image/svg+xml": ".svg",
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/wave": ".wav",
    "audio/flac": ".flac",
    "audio/mpeg": ".mp3",
    "audio/ogg": ".ogg",
    "application/json": ".json",
    "application/pdf": ".pdf",
    "application/gzip": ".gz",
    "text/plain": ".txt",
    "text/markdown": ".md",
    "text/html": ".html",
}


def file_name(stem: str, mime_type: str | None, uri: str | None = None) -> str:
    """A safe file name to suggest when saving: the URI's last segment, else stem + the MIME type's suffix."""
    if uri:
        last = re.sub(r"[^A-Za-z0-9._-]", "_", uri.rstrip("/").rsplit("/", 1)[-1])[:80].strip("._")
        if last and "." in last:
            return last
        if last:
            stem = last
    suffix = _EXTENSIONS.get((mime_type or "").split(";")[0].strip().lower(), ".bin")
    return f"{stem}{suffix}"


def annotation_facts(annotations: Any) -> list[tuple[str, str]]:
    """(label, value) pairs of a block's annotations: audience, priority, lastModified, and any other."""
    if not isinstance(annotations, Mapping):
        return [] if annotations is None else [("annotations", repr(annotations)[:200])]
    facts: list[tuple[str, str]] = []
    for key, value in annotations.items():
        if key == "audience" and isinstance(value, list):
            facts.append(("audience", ", ".join(str(v) for v in value) or "(none)"))
        elif key == "priority":
            bad = not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1
            facts.append(("priority", f"{value}" + (" (not within 0–1)" if bad else "")))
        elif key == "lastModified":
            facts.append(("last modified", str(value)))
        else:
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
            facts.append((str(key), shown[:200]))
    return facts
