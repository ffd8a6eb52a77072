"""Content blocks read without a UI: kinds, text formats, base64, image and audio headers, file names."""

from __future__ import annotations

import base64
import io
import struct
import wave
import zlib

import pytest

from mcpx.schema.content import (
    annotation_facts,
    audio_info,
    content_kind,
    decode_base64,
    file_name,
    image_info,
    text_format,
)


def png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = b"".join(b"\x00" + b"\xff\x00\x00\xff" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    ("block", "kind"),
    [
        ({"type": "text", "text": "hi"}, "text"),
        ({"type": "image", "data": "", "mimeType": "image/png"}, "image"),
        ({"type": "audio", "data": "", "mimeType": "audio/wav"}, "audio"),
        ({"type": "resource_link", "uri": "x://y", "name": "y"}, "resource_link"),
        ({"type": "resource", "resource": {"uri": "x://y", "text": ""}}, "resource"),
        ({"type": "hologram"}, "unknown"),
        ({"text": "no type"}, "unknown"),
        ({"type": "text"}, "invalid"),
        ({"type": "text", "text": 5}, "invalid"),
        ({"type": "resource", "resource": "x"}, "invalid"),
        ([1, 2], "invalid"),
        (None, "invalid"),
    ],
)
def test_content_kind(block: object, kind: str) -> None:
    found, reason = content_kind(block)
    assert found == kind
    assert bool(reason) == (kind == "invalid")


def test_text_format() -> None:
    assert text_format('{"a": [1, 2]}') == ("json", {"a": [1, 2]})
    assert text_format("[1, 2") == ("plain", None)
    assert text_format("# Title\n\nbody")[0] == "markdown"
    assert text_format("some **bold** words")[0] == "markdown"
    assert text_format("- item\n- item")[0] == "markdown"
    assert text_format("Here's the image you requested:")[0] == "plain"
    assert text_format("a 3 * 4 = 12 sum")[0] == "plain"


def test_decode_base64() -> None:
    assert decode_base64(base64.b64encode(b"\x00\x01hello").decode()) == (b"\x00\x01hello", None)
    data, problem = decode_base64("aGVs\nbG8=")  # line breaks are not clean base64 but decode
    assert data == b"hello" and problem is not None
    data, problem = decode_base64(b"bytes")
    assert data == b"" and problem is not None
    assert decode_base64("!!!")[0] == b""


def test_image_headers() -> None:
    info = image_info(png(20, 7))
    assert (info.sniffed, info.width, info.height) == ("image/png", 20, 7)
    gif = b"GIF89a" + struct.pack("<HH", 300, 200) + b"\x00" * 10
    assert (image_info(gif).width, image_info(gif).height) == (300, 200)
    jpeg = (
        b"\xff\xd8"
        + b"\xff\xe0"
        + struct.pack(">H", 16)
        + b"JFIF\x00"
        + b"\x00" * 9
        + b"\xff\xc0"
        + struct.pack(">HBHH", 17, 8, 480, 640)
        + b"\x00" * 10
    )
    assert (image_info(jpeg).sniffed, image_info(jpeg).width, image_info(jpeg).height) == (
        "image/jpeg",
        640,
        480,
    )
    webp = (
        b"RIFF"
        + b"\x00" * 4
        + b"WEBPVP8X"
        + b"\x00" * 8
        + (99).to_bytes(3, "little")
        + (49).to_bytes(3, "little")
    )
    assert (image_info(webp).width, image_info(webp).height) == (100, 50)
    bmp = b"BM" + b"\x00" * 16 + struct.pack("<ii", 64, -32)
    assert (image_info(bmp).width, image_info(bmp).height) == (64, 32)
    assert image_info(b"not an image").sniffed is None
    assert image_info(b"\x89PNG\r\n\x1a\n\x00").width is None  # cut short: no exception


def test_audio_headers() -> None:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * 2 * 4000)
    info = audio_info(buffer.getvalue())
    assert info.sniffed == "audio/wav"
    assert info.duration == pytest.approx(0.5)
    assert (info.channels, info.sample_rate) == (2, 8000)
    streaminfo = (44100 << 44) | (1 << 41) | (15 << 36) | 88200
    flac = b"fLaC" + b"\x80\x00\x00\x22" + b"\x00" * 10 + streaminfo.to_bytes(8, "big") + b"\x00" * 16
    info = audio_info(flac)
    assert (info.sniffed, info.channels, info.sample_rate) == ("audio/flac", 2, 44100)
    assert info.duration == pytest.approx(2.0)
    assert audio_info(b"ID3\x03rest").sniffed == "audio/mpeg"
    assert audio_info(b"RIFF\x00\x00\x00\x00WAVE").duration is None


def test_file_name_and_annotations() -> None:
    assert file_name("image", "image/png") == "image.png"
    assert file_name("blob", "application/x-unknown") == "blob.bin"
    assert file_name("blob", None, "demo://resource/dynamic/blob/3") == "3.bin"
    assert file_name("x", "text/plain", "file:///etc/../a b.txt") == "a_b.txt"
    assert annotation_facts({"audience": ["user", "assistant"], "priority": 0.7}) == [
        ("audience", "user, assistant"),
        ("priority", "0.7"),
    ]
    assert annotation_facts({"priority": 3})[0][1].endswith("(not within 0–1)")
    assert annotation_facts(None) == []
    assert annotation_facts("odd")[0][0] == "annotations"
