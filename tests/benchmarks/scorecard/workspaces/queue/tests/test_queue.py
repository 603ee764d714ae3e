import pytest

from ds.queue import Queue


def test_fifo():
    q = Queue()
    q.push(1)
    q.push(2)
    assert q.pop() == 1


def test_peek():
    q = Queue()
    q.push("a")
    q.push("b")
    assert q.peek() == "a"
    assert len(q) == 2


def test_peek_empty():
    with pytest.raises(IndexError):
        Queue().peek()
