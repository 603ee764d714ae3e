from app.loader import load
from app.values import parse_bool


def test_parse_bool():
    assert parse_bool("True") is True
    assert parse_bool("false") is False
    assert parse_bool("False") is False
    assert parse_bool(" YES ") is True


def test_load():
    assert load(["debug = False", "name = x"]) == {"debug": False, "name": "x"}
