"""Pictures checked before a turn (context_sources/images.py): the bytes decide the type, not the claim."""

from __future__ import annotations

import base64

import pytest

from agent_server.context_sources.images import checked_image
from agent_server.errors import InvalidParamsError

SAMPLES = {
    "image/png": b"\x89PNG\r\n\x1a\n" + bytes(16),
    "image/jpeg": b"\xff\xd8\xff\xe0" + bytes(16),
    "image/gif": b"GIF89a" + bytes(16),
    "image/webp": b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(8),
}


@pytest.mark.parametrize("mime", sorted(SAMPLES))
def test_each_format_is_known_by_its_bytes(mime: str) -> None:
    data = base64.b64encode(SAMPLES[mime]).decode()
    image = checked_image(data, "application/octet-stream", 1024)
    assert image.mime_type == mime and base64.b64decode(image.data) == SAMPLES[mime]


def test_line_wrapped_base64_and_a_data_url_are_accepted() -> None:
    data = base64.b64encode(SAMPLES["image/png"]).decode()
    assert checked_image(data[:10] + "\n" + data[10:], "image/png", 1024).mime_type == "image/png"
    assert checked_image("data:image/png;base64," + data, "image/png", 1024).mime_type == "image/png"


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ("", "is empty"),
        ("abc", "not valid base64"),
        (base64.b64encode(b"<svg xmlns='http://www.w3.org/2000/svg'/>").decode(), "not a PNG, JPEG, GIF or WebP"),
        (base64.b64encode(SAMPLES["image/png"] + bytes(2000)).decode(), "over the limit of 1024"),
    ],
    ids=["empty", "malformed", "svg", "oversize"],
)
def test_a_bad_picture_says_what_is_wrong(data: str, error: str) -> None:
    with pytest.raises(InvalidParamsError, match=error):
        checked_image(data, "image/png", 1024, "shot.png")
