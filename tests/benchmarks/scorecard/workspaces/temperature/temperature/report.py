from .converters import fahrenheit_to_celsius


def describe(f):
    return f"{f}F is {fahrenheit_to_celsius(f):.1f}C"
