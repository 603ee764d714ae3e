def rectangles(strings):
    pass
