from datetime import date

from cal.format import describe
from cal.span import days_between


def test_forward():
    assert days_between(date(2024, 1, 1), date(2024, 1, 31)) == 30


def test_backward():
    assert days_between(date(2024, 1, 31), date(2024, 1, 1)) == 30


def test_describe():
    assert describe(date(2024, 3, 2), date(2024, 3, 1)) == "1 day"
