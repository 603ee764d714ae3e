from text.slug import slugify


def test_simple():
    assert slugify("Hello World") == "hello-world"


def test_collapse():
    assert slugify("Hello,   World!!") == "hello-world"


def test_ends():
    assert slugify("  --Python 3--  ") == "python-3"
