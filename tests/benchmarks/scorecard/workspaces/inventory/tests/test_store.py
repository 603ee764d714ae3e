from inventory.store import Store


def test_add():
    s = Store()
    s.add("apple", 3)
    assert s.count("apple") == 3


def test_remove_partial():
    s = Store()
    s.add("apple", 5)
    s.remove("apple", 2)
    assert s.count("apple") == 3


def test_remove_too_many():
    s = Store()
    s.add("apple", 1)
    try:
        s.remove("apple", 2)
    except ValueError:
        return
    assert False, "expected ValueError"
