"""Which pictures a request carries and what they count for in a small window (context/images.py, tokens.py)."""

from __future__ import annotations

from agent_server.context import estimate_message
from agent_server.context.images import can_see, images_for_request
from agent_server.context.tokens import IMAGE_TOKENS
from agent_server.llm.base import ModelInfo
from agent_server.messages import Image, Message

SHOT = Image(mime_type="image/png", data="iVBORw0KGgo=" * 1000, name="shot.png")


def _history() -> list[Message]:
    return [
        Message(role="user", content="first", images=[SHOT]),
        Message(role="assistant", content="a dot"),
        Message(role="user", content="second", images=[SHOT, SHOT]),
        Message(role="assistant", content=""),
        Message(role="user", content="keep going", nudge="guard"),
    ]


def test_only_the_latest_prompt_keeps_its_pictures_and_a_nudge_does_not_count_as_one() -> None:
    sent = images_for_request(_history(), vision=True)
    assert sent[0].images == [] and "1 image(s) attached here earlier (shot.png)" in sent[0].content
    assert sent[2].images == [SHOT, SHOT] and sent[2].content == "second"
    # The store's copy is untouched: a replay still has every picture.
    assert _history()[0].images == [SHOT]


def test_a_model_that_cannot_see_gets_none() -> None:
    sent = images_for_request(_history(), vision=False)
    assert all(not m.images for m in sent)
    assert "not sent: this model cannot see images" in sent[2].content


def test_a_picture_counts_as_a_fixed_share_not_its_base64_length() -> None:
    plain = estimate_message(Message(role="user", content="second"))
    assert estimate_message(Message(role="user", content="second", images=[SHOT])) == plain + IMAGE_TOKENS
    shaped = images_for_request(_history(), vision=True)
    assert estimate_message(shaped[0]) < IMAGE_TOKENS  # the note, not the picture


def test_llm_vision_setting_against_what_the_server_says() -> None:
    seeing, blind = ModelInfo(name="m", supports_vision=True), ModelInfo(name="m", supports_vision=False)
    assert can_see(seeing, "auto") and not can_see(blind, "auto") and not can_see(ModelInfo(name="m"), "auto")
    assert can_see(blind, "on") and not can_see(seeing, "off") and not can_see(None, "auto")
