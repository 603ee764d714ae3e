class SpaceAge:
    def __init__(self, seconds):
        pass
