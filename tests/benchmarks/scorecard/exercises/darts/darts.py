def score(x, y):
    pass
