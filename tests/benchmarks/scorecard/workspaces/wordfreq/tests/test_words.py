from stats.words import top_words, words


def test_words():
    assert words("Hi, hi there!") == ["hi", "hi", "there"]


def test_top_words():
    text = "the cat and the hat and the bat"
    assert top_words(text, 2) == [("the", 3), ("and", 2)]


def test_ties_alphabetical():
    assert top_words("b a c", 2) == [("a", 1), ("b", 1)]
