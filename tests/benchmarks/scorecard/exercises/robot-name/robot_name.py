class Robot:
    def __init__(self):
        pass
