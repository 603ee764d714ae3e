from .span import days_between


def describe(a, b):
    n = days_between(a, b)
    return f"{n} day" + ("" if n == 1 else "s")
