class HighScores:
    def __init__(self, scores):
        pass
