def tally(rows):
    pass
