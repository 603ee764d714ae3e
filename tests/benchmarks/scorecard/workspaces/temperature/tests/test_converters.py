from temperature.converters import celsius_to_fahrenheit, fahrenheit_to_celsius
from temperature.report import describe


def test_boiling():
    assert fahrenheit_to_celsius(212) == 100


def test_freezing():
    assert fahrenheit_to_celsius(32) == 0


def test_round_trip():
    assert celsius_to_fahrenheit(fahrenheit_to_celsius(50)) == 50


def test_describe():
    assert describe(212) == "212F is 100.0C"
