from datetime import date


def days_between(a: date, b: date) -> int:
    return (b - a).days
